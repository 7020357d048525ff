package engine

import (
	"context"
	"errors"

	"github.com/entityapi/entityapi/server/problem"
	"github.com/entityapi/entityapi/storage"
)

// This file writes the checked items of a chunk (chunk.go) by the groups
// their links make: an item linked with a failed one is skipped with it, and
// each group is written so that one failing write blames the right item.

// links maps each item to the items of the chunk it is linked with, in
// either direction, from the relationships as sent (so links to items that
// failed before conversion count too).
func links(all []*chunkItem) map[*chunkItem][]*chunkItem {
	byRef := map[string]*chunkItem{}
	for _, ci := range all {
		if ci.res != nil && ci.clientID != "" {
			byRef[ci.res.Type+"\x00"+ci.clientID] = ci
		}
	}
	adjacent := map[*chunkItem][]*chunkItem{}
	for _, ci := range all {
		if ci.res == nil {
			continue
		}
		for _, r := range ci.in.rels {
			ids, _, err := r.Linkage()
			if err != nil {
				continue
			}
			for _, id := range ids {
				if other := byRef[id.Type+"\x00"+id.ID]; other != nil && other != ci {
					adjacent[ci] = append(adjacent[ci], other)
					adjacent[other] = append(adjacent[other], ci)
				}
			}
		}
	}
	return adjacent
}

// skipLinked marks every item linked, directly or not, with a failed item: a
// primary item is written with its included items or not at all.
func skipLinked(all []*chunkItem, adjacent map[*chunkItem][]*chunkItem) {
	var queue []*chunkItem
	for _, ci := range all {
		if ci.failed {
			queue = append(queue, ci)
		}
	}
	for len(queue) > 0 {
		ci := queue[0]
		queue = queue[1:]
		for _, next := range adjacent[ci] {
			if !next.failed {
				next.failed = true
				queue = append(queue, next)
			}
		}
	}
}

// components splits the live items into groups linked with each other, in
// request order of their first item.
func components(live []*chunkItem, adjacent map[*chunkItem][]*chunkItem) [][]*chunkItem {
	seen := map[*chunkItem]bool{}
	var out [][]*chunkItem
	for _, ci := range live {
		if seen[ci] {
			continue
		}
		seen[ci] = true
		comp := []*chunkItem{ci}
		for i := 0; i < len(comp); i++ {
			for _, next := range adjacent[comp[i]] {
				if !seen[next] && !next.failed {
					seen[next] = true
					comp = append(comp, next)
				}
			}
		}
		out = append(out, comp)
	}
	return out
}

// writeChunk writes the live items in c's transaction. It first writes them
// all at once (multi-row INSERTs) in a savepoint; when a write fails (a
// unique clash between items, say), it writes each linked group in a
// savepoint of its own, so that only the groups that fail are skipped, each
// with the problem of its failing item. With atomic, the first failure
// marks its item and stops.
func (e *Engine) writeChunk(ctx context.Context, c *storage.Conn, cl *call, all []*chunkItem, adjacent map[*chunkItem][]*chunkItem, atomic bool) error {
	var live []*chunkItem
	for _, ci := range all {
		if !ci.failed {
			live = append(live, ci)
		}
	}
	if len(live) == 0 {
		return nil
	}
	var failed *item
	err := c.Tx(ctx, func(sp *storage.Conn) error {
		var err error
		failed, err = e.writeRecords(ctx, sp, cl, plainItems(live), true, false)
		return err
	})
	if err == nil {
		return nil
	}
	if atomic {
		// Find the item to blame: a multi-row INSERT names none.
		err = c.Tx(ctx, func(sp *storage.Conn) error {
			var err error
			failed, err = e.writeRecords(ctx, sp, cl, plainItems(live), false, false)
			return err
		})
		if err == nil {
			return errors.New("engine: a batch write failed once and then succeeded")
		}
		return e.blame(failed, err, live)
	}
	for _, comp := range components(live, adjacent) {
		err := c.Tx(ctx, func(sp *storage.Conn) error {
			var err error
			failed, err = e.writeRecords(ctx, sp, cl, plainItems(comp), false, false)
			return err
		})
		if err == nil {
			continue
		}
		if err := e.blame(failed, err, comp); err != nil {
			return err
		}
		for _, ci := range comp {
			ci.failed = true
		}
	}
	return nil
}

// blame records a write error as the problem of the item that caused it; an
// error no item explains (the database went away) is returned.
func (e *Engine) blame(failed *item, err error, among []*chunkItem) error {
	if failed == nil {
		return err
	}
	var p error
	if errors.Is(err, storage.ErrNotFound) {
		p = notFoundAt(failed.in.base + "/id")
	} else {
		p = writeProblem(failed.res, failed.in, err)
	}
	list, ok := problem.From(p)
	if !ok {
		return err
	}
	for _, ci := range among {
		if ci.item == failed {
			ci.fail(list...)
		}
	}
	return nil
}

func plainItems(cs []*chunkItem) []*item {
	out := make([]*item, len(cs))
	for i, ci := range cs {
		out[i] = ci.item
	}
	return out
}
