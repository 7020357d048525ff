package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/entityapi/entityapi/server/jsonapi"
	"github.com/entityapi/entityapi/server/problem"
	"github.com/entityapi/entityapi/server/resource"
	"github.com/entityapi/entityapi/storage"
)

// item is one record a request writes: the primary data, or a record of the
// root included array (oro-behaviour §15).
type item struct {
	res      *resource.Resource
	in       *input
	update   bool
	upsert   *upsert // how the record finds the one it updates, if it may be created instead
	clientID string  // the id the client gave an included record, echoed as meta.includeId
	key      any     // known for updates; set once a new record is inserted
	current  storage.Row
	ch       *change
	// answered: the answer shows the record (a single request's, not a batch
	// item), so its INSERT or UPDATE reads it back into stored, and the
	// answer need not read it again.
	answered bool
	stored   storage.Row
	// members are the to-many relationships whose keys the answer needs
	// from the database, read with the record by its UPDATE's RETURNING
	// into memberKeys (answerLinkage); set only for a request that writes
	// this record alone.
	members    []*resource.Relationship
	memberKeys [][]any
	// ifMatch is the request's If-Match (the primary record of a PATCH),
	// expect its meta.version: the versions the write must find (etag.go).
	ifMatch, expect *precondition
}

// keepsClientID tells whether the record is created under the identifier the
// client chose (weightunits: the code), not one the database generates.
func (it *item) keepsClientID() bool {
	return !it.update && it.upsert == nil && !it.res.IntID
}

// itemSet is every record of one request. Records it creates are known by the
// client's type and id, so the others can refer to them before they exist.
type itemSet struct {
	items   []*item // the primary first, then the included records in order
	known   map[string]*item
	created map[string]*item
	present presence // related records looked up in advance (batch chunks), or nil
}

func (s *itemSet) presence() presence {
	if s == nil {
		return nil
	}
	return s.present
}

func (s *itemSet) ref(typ, id string) string { return typ + "\x00" + id }

func (s *itemSet) has(ref string) bool { return s != nil && s.known[ref] != nil }

// newItemSet reads the included records of a JSON:API body: each needs a type the
// application can write, an id, and no twin.
func (e *Engine) newItemSet(ctx context.Context, cl *call, primary *item, doc *jsonapi.Document) (*itemSet, error) {
	set := &itemSet{items: []*item{primary}, known: map[string]*item{}, created: map[string]*item{}}
	if primary.in.id != nil && *primary.in.id != "" {
		set.known[set.ref(primary.res.Type, *primary.in.id)] = primary
	}
	if doc == nil || jsonapi.IsNull(doc.Included) {
		return set, nil
	}
	var included []json.RawMessage
	if err := json.Unmarshal(doc.Included, &included); err != nil {
		return nil, problem.RequestData("The 'included' property should be an array of resource objects.", "/included")
	}
	var errs problem.List
	for i, raw := range included {
		base := "/included/" + strconv.Itoa(i)
		var r jsonapi.Resource
		if err := json.Unmarshal(raw, &r); err != nil || r.ID == nil {
			errs = append(errs, problem.RequestData("The included item should be a resource object with a type and an id.", base))
			continue
		}
		res, ok := e.reg.Get(r.Type)
		if !ok {
			errs = append(errs, problem.RequestData(fmt.Sprintf("Unknown entity type: %s.", r.Type), base+"/type"))
			continue
		}
		it := &item{res: res, in: resourceInput(&r, base), clientID: *r.ID}
		opts, err := readMeta(res, it.in, false, http.MethodPost)
		if err == nil && opts.validate {
			err = validateNotSupported(it.in, "The option is not supported on an included record; put it in the primary data's meta.")
		}
		if err != nil {
			errs = append(errs, err.(*problem.Problem))
			continue
		}
		it.update, it.upsert = opts.update, opts.upsert
		if it.expect, err = readVersion(it.in, opts.update, opts.upsert); err != nil {
			errs = append(errs, err.(*problem.Problem))
			continue
		}
		act := createAction
		if it.update {
			act = editAction
		}
		if !allowed(cl.roles, res, act) {
			d := Denied()
			d.Pointer = base
			errs = append(errs, d)
			continue
		}
		ref := set.ref(r.Type, *r.ID)
		if prev, dup := set.known[ref]; dup {
			errs = append(errs, problem.RequestData(fmt.Sprintf("The item duplicates the item with the index %d.", indexOf(set.items, prev)-1), base))
			continue
		}
		if p := e.checkItem(raw, r.Type, it.update, base); p != nil {
			errs = append(errs, p...)
			continue
		}
		set.known[ref] = it
		if !it.update {
			set.created[ref] = it // upserted records too: their key is known only once matched or inserted
		}
		set.items = append(set.items, it)
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return set, nil
}

func indexOf(items []*item, it *item) int {
	for i, x := range items {
		if x == it {
			return i
		}
	}
	return -1
}

// prepare converts every record of the set, loading the records it updates, and
// checks that each included record is linked with the primary one.
func (e *Engine) prepare(ctx context.Context, cl *call, set *itemSet) error {
	var errs problem.List
	for _, it := range set.items[1:] {
		if !it.update {
			continue
		}
		row, err := e.load(ctx, cl, it.res, it.clientID)
		if err != nil {
			if _, ok := problem.From(err); ok {
				errs = append(errs, problem.MissingRelated(it.in.pointer(idMember, "")))
				continue
			}
			return err
		}
		it.current, it.key = row, row[it.res.IDColumn]
	}
	if len(errs) > 0 {
		return errs
	}
	for _, it := range set.items {
		ch, err := e.values(ctx, cl, it.res, it.in, it.current, set)
		if list, ok := problem.From(err); ok {
			errs = append(errs, list...)
			continue
		}
		if err != nil {
			return err
		}
		it.ch = ch
		if it.upsert != nil {
			if err := e.match(ctx, cl.db, cl, it); err != nil {
				if list, ok := problem.From(err); ok {
					errs = append(errs, list...)
					continue
				}
				return err
			}
		}
	}
	if len(errs) > 0 {
		return errs
	}
	return set.linked()
}

// linked checks that every included record is connected with the primary one
// through the relationships of the request, in either direction.
func (s *itemSet) linked() error {
	adjacent := map[*item][]*item{}
	for _, it := range s.items {
		for _, ref := range it.ch.refs {
			other := s.known[ref]
			adjacent[it] = append(adjacent[it], other)
			adjacent[other] = append(adjacent[other], it)
		}
	}
	reached := map[*item]bool{s.items[0]: true}
	queue := []*item{s.items[0]}
	for len(queue) > 0 {
		it := queue[0]
		queue = queue[1:]
		for _, next := range adjacent[it] {
			if !reached[next] {
				reached[next] = true
				queue = append(queue, next)
			}
		}
	}
	var errs problem.List
	for _, it := range s.items[1:] {
		if !reached[it] {
			errs = append(errs, problem.RequestData("The entity should have a relationship with the primary entity and this should be explicitly specified in the request.", it.in.base))
		}
	}
	if len(errs) > 0 {
		return errs
	}
	return nil
}

// write stores every record of the set in one transaction, with their change
// events: first each record's own values, then the references between
// records the request creates. Each record's statement reads it back for the
// answer (item.stored).
func (e *Engine) write(ctx context.Context, cl *call, set *itemSet) error {
	for _, it := range set.items {
		it.answered = true
	}
	answerMembers(set)
	var failed *item
	inline := false
	writeAll := func(c *storage.Conn) error {
		var err error
		failed, err = e.writeRecords(ctx, c, cl, set.items, false, inline)
		return err
	}
	var err error
	switch {
	case set.oneStatement() && cl.db.NotesInline():
		inline = true
		err = writeAll(cl.db) // the write and its event are one statement
	case set.oneStatement():
		err = cl.db.Atomic(ctx, writeAll) // the write and its event: a transaction, or the caller's
	default:
		err = cl.db.Tx(ctx, writeAll)
	}
	if errors.Is(err, storage.ErrNotFound) {
		return problem.NotFound()
	}
	if _, isProblem := problem.From(err); isProblem {
		return err
	}
	if err != nil && failed != nil {
		return writeProblem(failed.res, failed.in, err)
	}
	return err
}

// oneStatement tells whether writing set takes a single statement: one
// record, new or found by its key (an upsert looks for it under a lock),
// and no join-table members to replace.
func (s *itemSet) oneStatement() bool {
	if len(s.items) != 1 {
		return false
	}
	it := s.items[0]
	return it.upsert == nil && it.ifMatch == nil && it.expect == nil && len(it.ch.links) == 0 && len(it.ch.newOne) == 0 && len(it.ch.newMany) == 0
}

// writeRecords writes items, and their change events, in c's transaction
// (with inline, the one item of a set that oneStatement writes, with c
// outside a transaction or in one: its event goes in its write's statement,
// storage.Conn.Noting): upserts find their records,
// every record gets its own values, then the references between records the
// request creates are filled in. With bulk, plain creates (no upsert, no
// reference to another new record) of one type share multi-row INSERTs. On an
// error it returns the item being written (the first of a multi-row INSERT).
func (e *Engine) writeRecords(ctx context.Context, c *storage.Conn, cl *call, items []*item, bulk, inline bool) (failed *item, err error) {
	for _, it := range items {
		if it.upsert != nil {
			if err := e.match(ctx, c, cl, it); err != nil {
				return it, err
			}
		}
	}
	for _, it := range items {
		if err := e.checkVersions(ctx, c, cl, it); err != nil {
			return it, err
		}
	}
	var single []*item
	groups := map[*resource.Resource][]*item{}
	var order []*resource.Resource
	for _, it := range items {
		if bulk && !it.update && it.upsert == nil && len(it.ch.newOne) == 0 && len(it.ch.newMany) == 0 {
			if groups[it.res] == nil {
				order = append(order, it.res)
			}
			groups[it.res] = append(groups[it.res], it)
			continue
		}
		single = append(single, it)
	}
	// When every item is a create of one group with the same names, the
	// group's InsertMany records their events (in the items' order).
	notedAll := false
	for _, res := range order {
		group := groups[res]
		rows := make([]storage.Row, len(group))
		for i, it := range group {
			rows[i] = it.ch.row
		}
		ins := c
		if len(group) == len(items) && !inline {
			if ev, ok := e.groupEvent(cl, group); ok {
				ins, notedAll = c.Noting(ev), true
			}
		}
		keys, err := ins.InsertMany(ctx, e.table(res), cl.org, rows)
		if err != nil {
			return group[0], err
		}
		for i, it := range group {
			it.key = keys[i]
		}
	}
	for _, it := range single {
		t := e.table(it.res)
		c := c
		if inline {
			c = c.Noting(e.itemEvents(cl, []*item{it})[0])
		}
		switch {
		case it.answered && it.update && len(it.members) > 0:
			members := make([]storage.Members, len(it.members))
			for i, rel := range it.members {
				members[i] = e.membersOf(cl, rel)
			}
			if it.stored, it.memberKeys, err = c.UpdateRowMembers(ctx, t, cl.org, it.key, it.ch.row, members); err != nil {
				return it, err
			}
		case it.answered && it.update:
			if it.stored, err = c.UpdateRow(ctx, t, cl.org, it.key, it.ch.row); err != nil {
				return it, err
			}
		case it.answered:
			if it.stored, err = c.InsertRow(ctx, t, cl.org, it.ch.row); err != nil {
				return it, err
			}
			it.key = it.stored[t.Key]
		case it.update:
			if err := c.Update(ctx, t, cl.org, it.key, it.ch.row); err != nil {
				return it, err
			}
		default:
			k, err := c.Insert(ctx, t, cl.org, it.ch.row)
			if err != nil {
				return it, err
			}
			it.key = k
		}
	}
	// Join-table members: an updated record loses its old members first; the
	// new pairs of every record then go in with one INSERT per relationship.
	pairs := map[*resource.Relationship][][2]any{}
	var rels []*resource.Relationship
	first := map[*resource.Relationship]*item{}
	for _, it := range items {
		late := storage.Row{}
		for rel, target := range it.ch.newOne {
			late[rel.Column] = target.key
		}
		switch {
		case len(late) > 0 && it.answered:
			if it.stored, err = c.UpdateRow(ctx, e.table(it.res), cl.org, it.key, late); err != nil {
				return it, err
			}
		case len(late) > 0:
			if err := c.Update(ctx, e.table(it.res), cl.org, it.key, late); err != nil {
				return it, err
			}
		}
		for rel, keys := range it.ch.links {
			j := e.joins[rel.Through.Table]
			if it.update {
				if err := c.UnlinkAll(ctx, j, rel.Through.Column, it.key); err != nil {
					return it, err
				}
			}
			for _, target := range it.ch.newMany[rel] {
				keys = append(keys, target.key)
			}
			if first[rel] == nil {
				first[rel] = it
				rels = append(rels, rel)
			}
			pairs[rel] = append(pairs[rel], joinPairs(j, rel, it.key, keys)...)
		}
	}
	for _, rel := range rels {
		if err := c.Link(ctx, e.joins[rel.Through.Table], pairs[rel]); err != nil {
			return first[rel], err
		}
	}
	if inline {
		return nil, nil
	}
	// Last, so that each event reads its record's version as the writes
	// above left it; one statement for every record (a batch's chunks too)
	// unless InsertMany recorded them.
	if notedAll {
		return nil, nil
	}
	return nil, c.RecordEvents(ctx, e.itemEvents(cl, items))
}

// includedObjects renders the records of the request other than the primary one,
// each with the client's id in meta.includeId.
func (e *Engine) includedObjects(ctx context.Context, cl *call, set *itemSet) ([]*jsonapi.ResourceObject, error) {
	var out []*jsonapi.ResourceObject
	for _, it := range set.items[1:] {
		row, err := e.writtenRow(ctx, cl, it)
		if err != nil {
			return nil, err
		}
		links, err := e.loadLinkage(ctx, cl, it.res, []storage.Row{row}, nil)
		if err != nil {
			return nil, err
		}
		obj := e.resourceObject(cl, it.res, row, nil, links)
		obj.Meta = append(obj.Meta, jsonapi.Member{Name: "includeId", Value: it.clientID})
		out = append(out, obj)
	}
	return out, nil
}
