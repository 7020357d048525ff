package chunk

import (
	"context"
	"errors"

	"github.com/entityapi/entityapi/server/engine"
	"github.com/entityapi/entityapi/storage"
)

// This file writes the checked items of a chunk (check.go) by the groups
// their links make: an item linked with a failed one is skipped with it, and
// each group is written so that one failing write blames the right item.

// links maps each item to the items of the chunk it is linked with, in
// either direction, from the relationships as sent (so links to items that
// failed before conversion count too).
func links(all []*engine.Item) map[*engine.Item][]*engine.Item {
	byRef := map[string]*engine.Item{}
	for _, it := range all {
		if res := it.Resource(); res != nil && it.ClientID() != "" {
			byRef[res.Type+"\x00"+it.ClientID()] = it
		}
	}
	adjacent := map[*engine.Item][]*engine.Item{}
	for _, it := range all {
		if it.Resource() == nil {
			continue
		}
		for _, r := range it.Relationships() {
			ids, _, err := r.Linkage()
			if err != nil {
				continue
			}
			for _, id := range ids {
				if other := byRef[id.Type+"\x00"+id.ID]; other != nil && other != it {
					adjacent[it] = append(adjacent[it], other)
					adjacent[other] = append(adjacent[other], it)
				}
			}
		}
	}
	return adjacent
}

// skipLinked skips every item linked, directly or not, with a failed item: a
// primary item is written with its included items or not at all.
func skipLinked(all []*engine.Item, adjacent map[*engine.Item][]*engine.Item) {
	var queue []*engine.Item
	for _, it := range all {
		if it.Failed() {
			queue = append(queue, it)
		}
	}
	for len(queue) > 0 {
		it := queue[0]
		queue = queue[1:]
		for _, next := range adjacent[it] {
			if !next.Failed() {
				next.Skip()
				queue = append(queue, next)
			}
		}
	}
}

// components splits the live items into groups linked with each other, in
// request order of their first item.
func components(live []*engine.Item, adjacent map[*engine.Item][]*engine.Item) [][]*engine.Item {
	seen := map[*engine.Item]bool{}
	var out [][]*engine.Item
	for _, it := range live {
		if seen[it] {
			continue
		}
		seen[it] = true
		comp := []*engine.Item{it}
		for i := 0; i < len(comp); i++ {
			for _, next := range adjacent[comp[i]] {
				if !seen[next] && !next.Failed() {
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
func writeChunk(ctx context.Context, c *storage.Conn, b *engine.Bulk, all []*engine.Item, adjacent map[*engine.Item][]*engine.Item, atomic bool) error {
	var live []*engine.Item
	for _, it := range all {
		if !it.Failed() {
			live = append(live, it)
		}
	}
	if len(live) == 0 {
		return nil
	}
	var failed *engine.Item
	err := c.Tx(ctx, func(sp *storage.Conn) error {
		var err error
		failed, err = b.WriteItems(ctx, sp, live, true)
		return err
	})
	if err == nil {
		return nil
	}
	if atomic {
		// Find the item to blame: a multi-row INSERT names none.
		err = c.Tx(ctx, func(sp *storage.Conn) error {
			var err error
			failed, err = b.WriteItems(ctx, sp, live, false)
			return err
		})
		if err == nil {
			return errors.New("chunk: a batch write failed once and then succeeded")
		}
		return blame(failed, err)
	}
	for _, comp := range components(live, adjacent) {
		err := c.Tx(ctx, func(sp *storage.Conn) error {
			var err error
			failed, err = b.WriteItems(ctx, sp, comp, false)
			return err
		})
		if err == nil {
			continue
		}
		if err := blame(failed, err); err != nil {
			return err
		}
		for _, it := range comp {
			it.Skip()
		}
	}
	return nil
}

// blame records a write error as the problem of the item that caused it; an
// error no item explains (the database went away) is returned.
func blame(failed *engine.Item, err error) error {
	if failed == nil || !failed.Blame(err) {
		return err
	}
	return nil
}
