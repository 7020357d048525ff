package split

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/entityapi/entityapi/server/jsonapi"
	"github.com/entityapi/entityapi/server/problem"
)

// Split reads r, calling emit for every chunk as soon as it is complete, and returns the
// structural problems of the request as a problem.List (a synchronous 400: the caller
// discards what it staged). It never returns a partial success: on a structural problem,
// the caller must treat every emitted chunk as void.
//
// Errors: a problem.List holds every structural problem found (at most
// MaxProblems; reading stops there, at a malformed spot, or at an exceeded
// MaxItems / MaxIncluded / MaxItemBytes). The body is read through a
// jsonguard.Guard: invalid UTF-8 and nesting deeper than jsonguard.MaxDepth are
// malformed JSON, found as the bytes arrive. An error of emit is returned as is and stops the
// split. An error of r itself (other than io.EOF, for example
// *http.MaxBytesError) is returned as is too: it is not a problem of the JSON.
// Once a problem has been found, emit is not called any more.
//
// Chunks: data items linked with no included item go into chunks of
// ChunkSize in request order. A data item is linked with an included item when
// one of its relationships names the included item (type + id), or the
// included item names the data item (the type of the request + the data item's
// id); included items link with each other the same way. Every connected group
// of data and included items goes into one chunk with all its items (it may
// share the chunk with other groups and plain items while the chunk stays
// within ChunkSize / IncludedChunkSize; a group larger than that gets a chunk
// of its own, up to MaxFactor times the sizes). References between two data
// items are not links: a data item cannot depend on another data item of the
// same request.
//
// Memory: the decoder holds one item at a time, of at most MaxItemBytes. What the splitter holds
// depends on where "included" stands in the body:
//   - "included" absent, or before "data": plain data items (those that turn out
//     to be linked with no included item) are emitted as soon as ChunkSize of
//     them are read, so they cost at most one chunk. When "included" came first
//     the linking of each data item is known when it is read; when "included"
//     has not been met yet, a data item without an id and without any
//     relationship identifier can never be linked and is emitted early too.
//   - Items that might refer to included items are held until the end of the
//     body: every included item, every data item linked with an included item,
//     and, while "included" has not been met yet, every data item that has an
//     id or a relationship identifier (it might be linked with an included item
//     still to come). So plain data items are held only when "included" comes
//     after "data", or may still come, and they carry an id or relationships.
//
// A held data item is not kept in memory: its bytes go to a spool (memory up
// to Limits.SpoolMemory, then a temporary file) and the splitter keeps only
// its index and size (12 bytes). At the end, when there are included items,
// one pass over the spool finds the held items linked with them (by their
// exact keys, read again); then the items are read back in request order as
// they are packed. So memory is bounded by the chunk sizes plus 12 bytes per
// held item, and by the included items, which are held whole; a client that
// sends updates or items with relationships and no included items avoids even
// the spool by putting an empty "included": [] before "data".
func Split(r io.Reader, typ string, lim Limits, emit func(Chunk) error) (Stats, error) {
	lim = lim.normal()
	pr := newPosReader(r, lim.MaxItemBytes)
	s := &splitter{
		typ:          typ,
		lim:          lim,
		emit:         emit,
		pr:           pr,
		dec:          json.NewDecoder(pr),
		incIndex:     map[string]int{},
		incTargets:   map[string]struct{}{},
		readingIndex: -1,
	}
	pr.dec = s.dec
	s.spool = spool{dir: lim.SpoolDir, memory: lim.SpoolMemory}
	defer s.spool.close()
	err := s.run()
	st := Stats{Data: s.nData, Included: s.nInc, Chunks: s.chunks}
	if err != nil {
		return st, err
	}
	if len(s.problems) > 0 {
		if len(s.problems) > MaxProblems {
			s.problems = s.problems[:MaxProblems]
		}
		return st, s.problems
	}
	return st, nil
}

// heldItem is what stays in memory of a held data item: its bytes are in the
// spool, where the held items stand one after the other (so the offset of
// one is the sum of the sizes before it).
type heldItem struct {
	index int32 // in data
	size  int32 // of its bytes (at most MaxItemBytes)
	bad   bool  // it has a structural problem
}

type incItem struct {
	Item
	refs  []string
	valid bool // type and id are fine and the item is not a duplicate
}

type splitter struct {
	typ  string
	lim  Limits
	emit func(Chunk) error
	pr   *posReader
	dec  *json.Decoder

	problems problem.List
	stop     bool // stop reading: too many problems, malformed JSON or an item limit
	// The array and index of the item being decoded (index -1 between
	// items): its pointer, built only for a problem (per item, building it
	// cost a tenth of the split).
	readingArray string
	readingIndex int

	dataSeen, incSeen bool // the member has been met
	incDone           bool // the included array has been read: every data item read now knows its links
	nData, nInc       int

	pending    []Item     // plain data items not emitted yet (fewer than ChunkSize)
	held       []heldItem // data items whose chunk is decided at the end
	spool      spool      // the bytes of the held items
	inc        []incItem
	incIndex   map[string]int      // key of a valid included item → its index in inc
	incTargets map[string]struct{} // every key some included item refers to

	chunks int
}

func key(typ, id string) string { return typ + "\x00" + id }

func (s *splitter) run() error {
	tok, err := s.dec.Token()
	if err == io.EOF && s.pr.err == nil {
		s.add(problem.RequestData(detailEmpty, ""))
		return nil
	}
	if err != nil {
		return s.malformed(err)
	}
	switch tok {
	case json.Delim('{'):
	case nil:
		s.add(problem.RequestData(detailEmpty, ""))
		return s.end()
	default:
		// Not a document at all: nothing in the rest can change the answer.
		s.add(problem.RequestData(detailNotObject, ""))
		s.stop = true
		return nil
	}
	for s.dec.More() {
		tok, err := s.dec.Token()
		if err != nil {
			return s.malformed(err)
		}
		name, _ := tok.(string)
		switch name {
		case "data":
			err = s.readData()
		case "included":
			err = s.readIncluded()
		case "jsonapi", "meta":
			err = s.skip()
		default:
			if strings.HasPrefix(name, "@") {
				err = s.skip() // an @-member: JSON:API 1.1 says to ignore it
				break
			}
			s.add(problem.RequestData(fmt.Sprintf("The '%s' property is not allowed here.", name), "/"+escapePointer(name)))
			err = s.skip()
		}
		if err != nil || s.stop {
			return err
		}
	}
	if _, err := s.dec.Token(); err != nil { // the closing brace
		return s.malformed(err)
	}
	if err := s.end(); err != nil || s.stop {
		return err
	}
	if !s.dataSeen {
		s.add(problem.RequestData(detailEmpty, ""))
		return nil
	}
	return s.finish()
}

// end checks that nothing but white space follows the root value.
func (s *splitter) end() error {
	s.dec.More() // moves past white space
	off := s.dec.InputOffset()
	var next [1]byte
	_, _ = s.dec.Buffered().Read(next[:])
	_, err := s.dec.Token()
	if err == io.EOF && s.pr.err == nil {
		return nil
	}
	if err != nil {
		return s.malformed(err)
	}
	return s.malformedAt(off, fmt.Sprintf("invalid character %q after top-level value", next[0]))
}

// readArray reads the value of data or included: null (an empty section),
// an array of items, or anything else (a problem, notArray at pointer). each
// gets every item's index and bytes. empty tells whether the value was null or
// an empty array.
func (s *splitter) readArray(pointer, notArray string, limit int, limitDetail string, each func(int, json.RawMessage) error) (empty bool, err error) {
	tok, err := s.dec.Token()
	if err != nil {
		return false, s.malformed(err)
	}
	switch tok {
	case json.Delim('['):
	case nil:
		return true, nil
	default:
		s.add(problem.RequestData(notArray, pointer))
		return false, s.skipRest(tok)
	}
	n := 0
	for s.dec.More() {
		if limit > 0 && n >= limit {
			s.add(problem.RequestData(limitDetail, pointer))
			s.stop = true
			return false, nil
		}
		var raw json.RawMessage
		s.readingArray, s.readingIndex = pointer, n
		err := s.dec.Decode(&raw)
		if err != nil {
			return false, s.malformed(err)
		}
		s.readingIndex = -1
		n++
		if err := each(n-1, raw); err != nil {
			return false, err
		}
		s.pr.prune(s.dec.InputOffset())
		if s.stop {
			return false, nil
		}
	}
	if _, err := s.dec.Token(); err != nil { // the closing bracket
		return false, s.malformed(err)
	}
	return n == 0, nil
}

// readSection reads the array of the member at pointer (/data or /included)
// as readArray does, the first time the body has it; a second occurrence is
// a problem, and skipped.
func (s *splitter) readSection(seen *bool, pointer, notArray string, limit int, limitDetail string, each func(int, json.RawMessage) error) (empty bool, err error) {
	if *seen {
		s.add(problem.RequestData("The '"+pointer[1:]+"' property should occur only once.", pointer))
		return false, s.skip()
	}
	*seen = true
	return s.readArray(pointer, notArray, limit, limitDetail, each)
}

func (s *splitter) readData() error {
	empty, err := s.readSection(&s.dataSeen, "/data", detailDataArray, s.lim.MaxItems, detailDataLimit, func(i int, raw json.RawMessage) error {
		s.nData++
		return s.addData(i, raw)
	})
	if err != nil || s.stop {
		return err
	}
	if empty {
		s.add(problem.RequestData(detailEmpty, "/data"))
	}
	return nil
}

func (s *splitter) readIncluded() error {
	_, err := s.readSection(&s.incSeen, "/included", detailIncludedArray, s.lim.MaxIncluded, detailIncludedLimit, func(i int, raw json.RawMessage) error {
		s.nInc++
		s.addIncluded(i, raw)
		return nil
	})
	if err != nil || s.stop {
		return err
	}
	s.incDone = true
	return nil
}

func (s *splitter) addData(i int, raw json.RawMessage) error {
	raw = jsonapi.ResourceWithoutAtMembers(raw)
	it := Item{Index: i, Raw: raw}
	base := it.Pointer // built only for a problem
	if !isObject(raw) {
		s.add(problem.RequestData(detailItemObject, base()))
		return nil
	}
	f := readItem(raw)
	before := len(s.problems)
	t, present, isString := str(f.typ)
	it.Type = t
	switch {
	case !present || isString && t == "":
		s.add(problem.RequestData(detailTypeRequired, base()+"/type"))
	case !isString || t != s.typ:
		s.add(problem.RequestData(detailTypeMismatch, base()+"/type"))
	}
	if id, present, isString := str(f.id); present && !isString {
		s.add(problem.RequestData(detailIDString, base()+"/id"))
	} else {
		it.ID = id
	}
	itemRefs := refs(f.relationships)
	bad := len(s.problems) > before
	var linked bool
	if s.incDone {
		for _, r := range itemRefs {
			if _, ok := s.incIndex[r]; ok {
				linked = true
				break
			}
		}
		if !linked && it.ID != "" {
			_, linked = s.incTargets[key(s.typ, it.ID)]
		}
	} else {
		linked = len(itemRefs) > 0 || it.ID != ""
	}
	switch {
	case linked:
		return s.hold(it, bad)
	case bad:
		// reported; it links nothing and is never emitted
	default:
		if s.pending == nil {
			s.pending = make([]Item, 0, s.lim.ChunkSize)
		}
		s.pending = append(s.pending, it)
		if len(s.pending) >= s.lim.ChunkSize {
			c := Chunk{Data: s.pending}
			s.pending = nil
			return s.send(c)
		}
	}
	return nil
}

// hold keeps a data item for the end: its bytes in the spool.
func (s *splitter) hold(it Item, bad bool) error {
	if _, err := s.spool.write(it.Raw); err != nil {
		return err
	}
	s.held = append(s.held, heldItem{index: int32(it.Index), size: int32(len(it.Raw)), bad: bad})
	return nil
}

// loadHeld reads held item h, whose bytes are at off in the spool, back: the
// item as addData made it, and the keys it refers to.
func (s *splitter) loadHeld(h int, off int64) (Item, []string, error) {
	hi := s.held[h]
	raw, err := s.spool.read(off, int(hi.size))
	if err != nil {
		return Item{}, nil, err
	}
	f := readItem(raw)
	it := Item{Index: int(hi.index), Raw: raw}
	it.Type, _, _ = str(f.typ)
	if id, present, isString := str(f.id); !present || isString {
		it.ID = id
	}
	return it, refs(f.relationships), nil
}

func (s *splitter) addIncluded(i int, raw json.RawMessage) {
	raw = jsonapi.ResourceWithoutAtMembers(raw)
	it := incItem{Item: Item{Included: true, Index: i, Raw: raw}}
	base := it.Pointer
	if !isObject(raw) {
		s.add(problem.RequestData(detailItemObject, base()))
		s.inc = append(s.inc, it)
		return
	}
	f := readItem(raw)
	it.refs = refs(f.relationships)
	for _, r := range it.refs {
		s.incTargets[r] = struct{}{}
	}
	before := len(s.problems)
	it.Type = s.requiredString(f.typ, base, "type", detailTypeRequired, detailTypeString)
	it.ID = s.requiredString(f.id, base, "id", detailIDRequired, detailIDString)
	if len(s.problems) == before {
		k := key(it.Type, it.ID)
		if first, dup := s.incIndex[k]; dup {
			s.add(problem.RequestData(fmt.Sprintf("The item duplicates the item with the index %d.", first), base()))
		} else {
			s.incIndex[k] = len(s.inc)
			it.valid = true
		}
	}
	s.inc = append(s.inc, it)
}

// requiredString reads the member of an included item that must be a
// non-empty string (its type and its id) and adds the problem at base()+"/"+
// member when it is absent or empty (required) or not a string (notString).
// base is called only for a problem, as the pointer is rarely needed.
func (s *splitter) requiredString(raw []byte, base func() string, member, required, notString string) string {
	v, present, isString := str(raw)
	switch {
	case !present || isString && v == "":
		s.add(problem.RequestData(required, base()+"/"+member))
	case !isString:
		s.add(problem.RequestData(notString, base()+"/"+member))
	}
	return v
}

// send emits a chunk unless the request is already known to be void.
func (s *splitter) send(c Chunk) error {
	if len(s.problems) > 0 {
		return nil
	}
	s.chunks++
	c.Number = s.chunks
	return s.emit(c)
}
