package engine

import (
	"context"

	"github.com/entityapi/entityapi/server/problem"
	"github.com/entityapi/entityapi/server/resource"
	"github.com/entityapi/entityapi/storage"
)

// Group is items of a batch checked together (one chunk, whose items the
// splitter keeps with those they name): an item may refer to another of the
// group by its type and id before that one exists, as an included record of
// a single request may. Its steps read outside any transaction and write
// nothing, so that a job may check its next chunks while it writes these
// (server/batch/chunk); each costs one query per type, not one per item.
type Group struct {
	b     *Bulk
	items []*Item
	set   itemSet
}

// Group starts checking items together: the live ones that carry an id are
// known to the others from now on, even if a later step fails them.
func (b *Bulk) Group(items []*Item) *Group {
	g := &Group{b: b, items: items, set: itemSet{known: map[string]*item{}, created: map[string]*item{}}}
	for _, it := range items {
		if it.failed || it.in.id == nil || *it.in.id == "" {
			continue
		}
		ref := g.set.ref(it.res.Type, *it.in.id)
		g.set.known[ref] = &it.item
		if !it.update {
			g.set.created[ref] = &it.item
		}
	}
	return g
}

// LoadCurrent loads the records the live update items change, one query per
// type; an update of a record that does not exist fails its item (404).
func (g *Group) LoadCurrent(ctx context.Context) error {
	e, cl := g.b.e, g.b.cl
	wanted := map[*resource.Resource][]*Item{}
	for _, it := range g.items {
		if !it.failed && it.update {
			wanted[it.res] = append(wanted[it.res], it)
		}
	}
	for res, items := range wanted {
		keys := make([]any, 0, len(items))
		for _, it := range items {
			k, err := key(res, it.clientID)
			if err != nil {
				it.Fail(notFoundAt(it.in.base + "/id"))
				continue
			}
			it.key = k
			keys = append(keys, k)
		}
		rows, err := cl.db.Find(ctx, storage.Query{Table: e.table(res), Org: cl.org,
			Where: []storage.Cond{{Column: res.IDColumn, Op: storage.Eq, Values: keys}}})
		if err != nil {
			return err
		}
		found := make(map[string]storage.Row, len(rows))
		for _, row := range rows {
			found[keyString(row[res.IDColumn])] = row
		}
		for _, it := range items {
			if it.failed {
				continue
			}
			row, ok := found[keyString(it.key)]
			if !ok {
				it.Fail(notFoundAt(it.in.base + "/id"))
				continue
			}
			it.current = row
		}
	}
	return nil
}

// Convert turns each live item into the values to write, with the rules of
// its type, as a single request's record is converted; the records the
// items name in their relationships are looked up first, one query per
// related type. A new record whose identifier the client chooses
// (weightunits) is stored under it, as a single create does (write.go).
func (g *Group) Convert(ctx context.Context) error {
	e, cl := g.b.e, g.b.cl
	var err error
	if g.set.present, err = g.prefetch(ctx); err != nil {
		return err
	}
	for _, it := range g.items {
		if it.failed {
			continue
		}
		ch, err := e.values(ctx, cl, it.res, it.in, it.current, &g.set)
		if list, ok := problem.From(err); ok {
			it.Fail(list...)
			continue
		}
		if err != nil {
			return err
		}
		it.ch = ch
		if it.keepsClientID() {
			if it.clientID == "" {
				it.Fail(problem.Constraint("entity identifier constraint", "The identifier is mandatory.", it.in.base+"/id"))
				continue
			}
			ch.row[it.res.IDColumn] = it.clientID
		}
	}
	return nil
}

// prefetch looks up, with one query per related type, every stored record
// the live items name in their relationships, so that checking them costs no
// query per item.
func (g *Group) prefetch(ctx context.Context) (presence, error) {
	e, cl, set := g.b.e, g.b.cl, &g.set
	wanted := map[*resource.Resource]map[string]any{}
	for _, it := range g.items {
		if it.failed {
			continue
		}
		for name, r := range it.in.rels {
			rel, ok := it.res.Relationship(name)
			if !ok {
				continue
			}
			ids, _, err := r.Linkage()
			if err != nil {
				continue
			}
			target, ok := e.reg.Get(rel.Target)
			if !ok {
				continue
			}
			for _, id := range ids {
				if set.has(set.ref(id.Type, id.ID)) {
					continue
				}
				k, err := key(target, id.ID)
				if err != nil {
					continue
				}
				if wanted[target] == nil {
					wanted[target] = map[string]any{}
				}
				wanted[target][keyString(k)] = k
			}
		}
	}
	out := presence{}
	for target, byString := range wanted {
		keys := make([]any, 0, len(byString))
		found := make(map[string]bool, len(byString))
		for ks, k := range byString {
			keys = append(keys, k)
			found[ks] = false
		}
		rows, err := cl.db.Find(ctx, storage.Query{Table: e.table(target), Org: cl.org,
			Where: []storage.Cond{{Column: target.IDColumn, Op: storage.Eq, Values: keys}}})
		if err != nil {
			return nil, err
		}
		for _, row := range rows {
			found[keyString(row[target.IDColumn])] = true
		}
		out[target.Type] = found
	}
	return out, nil
}
