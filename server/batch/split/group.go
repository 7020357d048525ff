package split

// This file links held data items with the included items they refer to,
// once the whole body has been read, and emits the chunks that hold them.

import (
	"errors"
	"slices"
	"strings"

	"github.com/entityapi/entityapi/server/problem"
)

// candidate is a held item linked with an included item, with its keys.
type candidate struct {
	held int
	off  int64  // of its bytes in the spool
	id   string // "" when it has none or has a problem
	refs []string
}

// finish links the held items with the included items, checks the links and
// emits the remaining chunks.
func (s *splitter) finish() error {
	cands, err := s.candidates()
	if err != nil {
		return err
	}
	nI := len(s.inc)
	uf := newUnionFind(nI + len(cands))
	dataByKey := map[string][]int{}
	for c, it := range cands {
		if it.id != "" {
			k := key(s.typ, it.id)
			dataByKey[k] = append(dataByKey[k], nI+c)
		}
		for _, r := range it.refs {
			if j, ok := s.incIndex[r]; ok {
				uf.union(nI+c, j)
			}
		}
	}
	for i, it := range s.inc {
		for _, r := range it.refs {
			if j, ok := s.incIndex[r]; ok {
				uf.union(i, j)
			}
			for _, c := range dataByKey[r] {
				uf.union(i, c)
			}
		}
	}
	n := nI + len(cands)
	nData := make([]int32, n)
	nInc := make([]int32, n)
	for i := range s.inc {
		nInc[uf.find(i)]++
	}
	var groupFirst []int // the first candidate of every group, in request order
	for c := range cands {
		root := uf.find(nI + c)
		if nData[root] == 0 && nInc[root] > 0 {
			groupFirst = append(groupFirst, c)
		}
		nData[root]++
	}
	for i, it := range s.inc {
		if it.valid && nData[uf.find(i)] == 0 {
			s.add(problem.RequestData(detailUnlinked, it.Pointer()))
		}
	}
	maxData, maxInc := int32(s.lim.MaxFactor*s.lim.ChunkSize), int32(s.lim.MaxFactor*s.lim.IncludedChunkSize)
	for _, c := range groupFirst {
		if root := uf.find(nI + c); nData[root] > maxData || nInc[root] > maxInc {
			s.add(problem.RequestData(detailGroupTooLarge, (&Item{Index: int(s.held[cands[c].held].index)}).Pointer()))
		}
	}
	if len(s.problems) > 0 {
		return nil
	}

	// Every plain item and every group is a unit; units are packed in the
	// order of their first data item: a group where its first data item
	// stands, with all its data and included items.
	type group struct{ data, included []int } // candidates, included items
	groups := make(map[int]*group, len(groupFirst))
	candOf := make(map[int]int, len(cands)) // held item → its candidate
	for c, it := range cands {
		candOf[it.held] = c
		if root := uf.find(nI + c); nInc[root] > 0 {
			g := groups[root]
			if g == nil {
				g = &group{}
				groups[root] = g
			}
			g.data = append(g.data, c)
		}
	}
	for i := range s.inc {
		g := groups[uf.find(i)]
		if g == nil { // cannot happen: an unlinked included item is a problem
			return errors.New("batch: an included item without a group")
		}
		g.included = append(g.included, i)
	}

	var cur Chunk
	flush := func() error {
		if len(cur.Data) == 0 && len(cur.Included) == 0 {
			return nil
		}
		slices.SortFunc(cur.Data, func(a, b Item) int { return a.Index - b.Index })
		slices.SortFunc(cur.Included, func(a, b Item) int { return a.Index - b.Index })
		c := cur
		cur = Chunk{}
		return s.send(c)
	}
	place := func(data, included []Item) error {
		if len(cur.Data)+len(data) > s.lim.ChunkSize || len(cur.Included)+len(included) > s.lim.IncludedChunkSize {
			if err := flush(); err != nil {
				return err
			}
		}
		cur.Data = append(cur.Data, data...)
		cur.Included = append(cur.Included, included...)
		return nil
	}
	pending := s.pending
	s.pending = nil
	off := int64(0)
	for h := range s.held {
		itemOff := off
		off += int64(s.held[h].size)
		for len(pending) > 0 && pending[0].Index < int(s.held[h].index) {
			if err := place(pending[:1], nil); err != nil {
				return err
			}
			pending = pending[1:]
		}
		if c, ok := candOf[h]; ok {
			if g := groups[uf.find(nI+c)]; g != nil {
				if g.data[0] == c {
					if err := s.placeGroup(cands, g.data, g.included, place); err != nil {
						return err
					}
				}
				continue
			}
		}
		it, _, err := s.loadHeld(h, itemOff)
		if err != nil {
			return err
		}
		if err := place([]Item{it}, nil); err != nil {
			return err
		}
	}
	for i := range pending {
		if err := place(pending[i:i+1], nil); err != nil {
			return err
		}
	}
	s.held, s.inc = nil, nil
	return flush()
}

// candidates reads the held items back, when there are included items, and
// returns those that refer to a valid included item or that an included item
// refers to: only they can be linked.
func (s *splitter) candidates() ([]candidate, error) {
	if len(s.inc) == 0 {
		return nil, nil
	}
	var cands []candidate
	off := int64(0)
	for h, hi := range s.held {
		it, itemRefs, err := s.loadHeld(h, off)
		if err != nil {
			return nil, err
		}
		c := candidate{held: h, off: off, refs: itemRefs}
		off += int64(hi.size)
		if !hi.bad {
			c.id = it.ID
		}
		linked := false
		if c.id != "" {
			_, linked = s.incTargets[key(s.typ, c.id)]
		}
		for _, r := range itemRefs {
			if _, ok := s.incIndex[r]; ok {
				linked = true
				break
			}
		}
		if linked {
			cands = append(cands, c)
		}
	}
	return cands, nil
}

// placeGroup places one group: its held data items read back, its included
// items.
func (s *splitter) placeGroup(cands []candidate, held, included []int, place func(data, included []Item) error) error {
	data := make([]Item, len(held))
	for i, c := range held {
		it, _, err := s.loadHeld(cands[c].held, cands[c].off)
		if err != nil {
			return err
		}
		data[i] = it
	}
	inc := make([]Item, len(included))
	for i, j := range included {
		inc[i] = s.inc[j].Item
	}
	return place(data, inc)
}

type unionFind struct{ parent, size []int32 }

func newUnionFind(n int) *unionFind {
	u := &unionFind{parent: make([]int32, n), size: make([]int32, n)}
	for i := range u.parent {
		u.parent[i] = int32(i)
		u.size[i] = 1
	}
	return u
}

func (u *unionFind) find(x int) int {
	for int(u.parent[x]) != x {
		u.parent[x] = u.parent[u.parent[x]]
		x = int(u.parent[x])
	}
	return x
}

func (u *unionFind) union(a, b int) {
	a, b = u.find(a), u.find(b)
	if a == b {
		return
	}
	if u.size[a] < u.size[b] {
		a, b = b, a
	}
	u.parent[b] = int32(a)
	u.size[a] += u.size[b]
}

func escapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}
