package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/entityapi/entityapi/server/jsonapi"
	"github.com/entityapi/entityapi/server/problem"
	"github.com/entityapi/entityapi/server/resource"
	"github.com/entityapi/entityapi/storage"
)

// input is a request body in either format, reduced to what the engine writes.
type input struct {
	id    *string
	attrs map[string]json.RawMessage
	rels  map[string]jsonapi.Relationship
	meta  map[string]json.RawMessage
	plain bool
	base  string // where the resource object is in the body: /data, /included/2
	// hashed: the write-only attributes hold hashes made before the item was
	// staged (a batch item, see server/batch/stage), not the values as sent.
	hashed bool
}

// Members of a resource object a pointer can lead to.
const (
	idMember           = "id"
	attributesMember   = "attributes"
	relationshipMember = "relationships"
)

// pointer says where a field is in the body: /data/attributes/name in a JSON:API
// document, /name in a plain one; an empty name points at the member itself.
func (in *input) pointer(member, name string) string {
	if in.plain {
		if name == "" {
			return ""
		}
		return "/" + escapePointer(name)
	}
	switch {
	case member == idMember:
		return in.base + "/id"
	case member == "":
		return in.base
	case name == "":
		return in.base + "/" + member
	case member == relationshipMember:
		return in.base + "/relationships/" + escapePointer(name) + "/data"
	}
	return in.base + "/" + member + "/" + escapePointer(name)
}

// resourceInput wraps a resource object found at base in a JSON:API body.
func resourceInput(r *jsonapi.Resource, base string) *input {
	return &input{id: r.ID, attrs: r.Attributes, rels: r.Relationships, meta: r.Meta, base: base}
}

func readInput(res *resource.Resource, doc *jsonapi.Document, plain jsonapi.Object) (*input, error) {
	if doc != nil {
		r, err := doc.Primary()
		if err != nil {
			return nil, problem.RequestData("The primary data object should exist.", "/data")
		}
		return resourceInput(r, "/data"), nil
	}
	in := &input{attrs: map[string]json.RawMessage{}, rels: map[string]jsonapi.Relationship{}, plain: true}
	for name, raw := range plain {
		switch _, isRel := res.Relationship(name); {
		case name == "id":
			s := plainID(raw)
			in.id = &s
		case isRel:
			in.rels[name] = plainLinkage(res, name, raw)
		default:
			in.attrs[name] = raw
		}
	}
	return in, nil
}

// plainLinkage turns inline related identifiers (one, null, or a list) into a
// relationship.
func plainLinkage(res *resource.Resource, name string, raw json.RawMessage) jsonapi.Relationship {
	rel, _ := res.Relationship(name)
	if jsonapi.IsNull(raw) {
		return jsonapi.Relationship{Data: json.RawMessage("null")}
	}
	var many []json.RawMessage
	if json.Unmarshal(raw, &many) == nil {
		ids := make([]jsonapi.Identifier, len(many))
		for i, m := range many {
			ids[i] = jsonapi.Identifier{Type: rel.Target, ID: plainID(m)}
		}
		b, _ := json.Marshal(ids)
		return jsonapi.Relationship{Data: b}
	}
	b, _ := json.Marshal(jsonapi.Identifier{Type: rel.Target, ID: plainID(raw)})
	return jsonapi.Relationship{Data: b}
}

// plainID reads an identifier written as a JSON string or number.
func plainID(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(bytes.TrimSpace(raw))
}

// change is what a body asks to write: column values, the complete new member
// lists of join-table relationships, and references to records the same request
// creates, which get their keys only once those are inserted. The maps of
// relationships are nil until one is set: most records (every plain create of
// a batch) have none, and a map each would cost three allocations per record.
type change struct {
	row     storage.Row
	links   map[*resource.Relationship][]any
	newOne  map[*resource.Relationship]*item
	newMany map[*resource.Relationship][]*item
	refs    []string // request records this one refers to (see itemSet.ref)
}

// setMany sets the new member list of a join-table relationship (keys of
// stored records) and the members the same request creates.
func (ch *change) setMany(rel *resource.Relationship, keys []any, created []*item) {
	if ch.links == nil {
		ch.links = map[*resource.Relationship][]any{}
	}
	ch.links[rel] = keys
	if len(created) > 0 {
		if ch.newMany == nil {
			ch.newMany = map[*resource.Relationship][]*item{}
		}
		ch.newMany[rel] = created
	}
}

// setNewOne sets a to-one relationship to a record the same request creates.
func (ch *change) setNewOne(rel *resource.Relationship, target *item) {
	if ch.newOne == nil {
		ch.newOne = map[*resource.Relationship]*item{}
	}
	ch.newOne[rel] = target
}

// values converts the body's fields into column values and checks that every
// related record exists in the caller's organization, or is created by the same
// request (set). current is the record being updated (nil on create), for rules
// that look at the whole record.
func (e *Engine) values(ctx context.Context, cl *call, res *resource.Resource, in *input, current storage.Row, set *itemSet) (*change, error) {
	ch := &change{row: storage.Row{}}
	var errs problem.List
	for name, raw := range in.attrs {
		a, ok := res.Attribute(name)
		if !ok || a.ReadOnly {
			errs = append(errs, problem.ExtraFields(in.pointer(attributesMember, ""), name))
			continue
		}
		if !a.WritableBy(cl.roles) { // x-readers, x-writers (fields.go)
			errs = append(errs, problem.FieldDenied(res.Type, name, in.pointer(attributesMember, name)))
			continue
		}
		v, err := storageValue(a.Type, raw)
		if err != nil {
			errs = append(errs, problem.Constraint("type constraint", "This value is not valid.", in.pointer(attributesMember, name)))
			continue
		}
		ch.row[a.Column] = v
	}
	for name, r := range in.rels {
		rel, ok := res.Relationship(name)
		if !ok || (!rel.Writable() && !rel.Organization) {
			errs = append(errs, problem.ExtraFields(in.pointer(relationshipMember, ""), name))
			continue
		}
		ids, _, err := r.Linkage()
		if err != nil {
			errs = append(errs, problem.RequestData("The relationship data is not valid.", in.pointer(relationshipMember, name)))
			continue
		}
		var stored []jsonapi.Identifier
		var storedAt []int // positions of stored in ids, for pointers
		var created []*item
		for i, id := range ids {
			ref := set.ref(id.Type, id.ID)
			if set.has(ref) {
				ch.refs = append(ch.refs, ref)
			}
			if it := set.created[ref]; it != nil {
				created = append(created, it)
			} else {
				stored = append(stored, id)
				storedAt = append(storedAt, i)
			}
		}
		keys, missing, err := e.existingIn(ctx, cl, rel, stored, set.presence())
		if err != nil {
			return nil, err
		}
		for _, i := range missing {
			p := in.pointer(relationshipMember, name)
			if rel.ToMany {
				p += "/" + strconv.Itoa(storedAt[i])
			}
			errs = append(errs, problem.MissingRelated(p))
		}
		switch {
		case len(missing) > 0:
		case rel.Organization:
			if len(keys) != 1 || keys[0] != any(cl.org) {
				errs = append(errs, problem.Constraint("form constraint", "The organization of a record is the caller's own.", in.pointer(relationshipMember, name)))
			}
		case rel.ToMany:
			ch.setMany(rel, keys, created)
		case len(created) > 0:
			ch.setNewOne(rel, created[0])
		case len(keys) == 0:
			ch.row[rel.Column] = nil
		default:
			ch.row[rel.Column] = keys[0]
		}
	}
	if rule := rules[res.Type]; rule != nil && len(errs) == 0 {
		errs = append(errs, rule(ch.row, current, in)...)
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return ch, nil
}

// existing converts identifiers to keys and finds, in one query, which of them
// name no record visible to the caller: their positions are returned.
func (e *Engine) existing(ctx context.Context, cl *call, rel *resource.Relationship, ids []jsonapi.Identifier) (keys []any, missing []int, err error) {
	return e.existingIn(ctx, cl, rel, ids, nil)
}

// presence records, per resource type and key (keyString), whether a record
// exists for the caller: what a batch chunk looked up for all its items at
// once (see Group.prefetch), so that each item costs no query of its own.
type presence map[string]map[string]bool

// existingIn is existing answered from known when it holds every key.
func (e *Engine) existingIn(ctx context.Context, cl *call, rel *resource.Relationship, ids []jsonapi.Identifier, known presence) (keys []any, missing []int, err error) {
	target, _ := e.reg.Get(rel.Target)
	wanted := map[string][]int{}
	for i, id := range ids {
		k, err := key(target, id.ID)
		if err != nil || (target.Self && k != any(cl.org)) {
			missing = append(missing, i)
			continue
		}
		keys = append(keys, k)
		wanted[keyString(k)] = append(wanted[keyString(k)], i)
	}
	if len(keys) == 0 || target.Self {
		// Every key left is the caller's organization, which exists: the
		// caller's own records refer to it.
		return keys, missing, nil
	}
	if cached := known[target.Type]; cached != nil {
		covered := true
		for _, k := range keys {
			if _, ok := cached[keyString(k)]; !ok {
				covered = false
				break
			}
		}
		if covered {
			for ks, positions := range wanted {
				if !cached[ks] {
					missing = append(missing, positions...)
				}
			}
			sort.Ints(missing)
			return keys, missing, nil
		}
	}
	found, err := cl.db.Existing(ctx, e.table(target), cl.org, target.IDColumn, keys)
	if err != nil {
		return nil, nil, err
	}
	for _, k := range found {
		delete(wanted, keyString(k))
	}
	for _, positions := range wanted {
		missing = append(missing, positions...)
	}
	sort.Ints(missing)
	return keys, missing, nil
}

// lookAhead finds, in one query per related type, which of the records the
// relationships of set name exist for the caller, so that two relationships
// to one type (an account's contacts and default contact) cost one query,
// not one each. Records of the request itself and the caller's organization
// need none.
func (e *Engine) lookAhead(ctx context.Context, cl *call, set *itemSet) (presence, error) {
	wanted := map[*resource.Resource][]any{}
	for _, it := range set.items {
		for name, r := range it.in.rels {
			rel, ok := it.res.Relationship(name)
			if !ok || !rel.Writable() {
				continue
			}
			ids, _, err := r.Linkage()
			if err != nil {
				continue
			}
			target, _ := e.reg.Get(rel.Target)
			for _, id := range ids {
				if set.has(set.ref(id.Type, id.ID)) {
					continue
				}
				if k, err := key(target, id.ID); err == nil && !target.Self {
					wanted[target] = append(wanted[target], k)
				}
			}
		}
	}
	var out presence
	for target, keys := range wanted {
		found, err := cl.db.Existing(ctx, e.table(target), cl.org, target.IDColumn, keys)
		if err != nil {
			return nil, err
		}
		exists := make(map[string]bool, len(keys))
		for _, k := range keys {
			exists[keyString(k)] = false
		}
		for _, k := range found {
			exists[keyString(k)] = true
		}
		if out == nil {
			out = presence{}
		}
		out[target.Type] = exists
	}
	return out, nil
}

// storageValue decodes one attribute value for storage.
func storageValue(t resource.FieldType, raw json.RawMessage) (any, error) {
	if jsonapi.IsNull(raw) {
		return nil, nil
	}
	switch t {
	case resource.String:
		if s, ok := jsonapi.PlainString(raw); ok {
			return s, nil // what json.Unmarshal makes of it, without its scans
		}
		var s string
		err := json.Unmarshal(raw, &s)
		return s, err
	case resource.Integer:
		var n int64
		err := json.Unmarshal(raw, &n)
		return n, err
	case resource.Number:
		var f float64
		err := json.Unmarshal(raw, &f)
		return f, err
	case resource.Boolean:
		var b bool
		err := json.Unmarshal(raw, &b)
		return b, err
	case resource.DateTime, resource.Date:
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, err
		}
		layout := time.RFC3339
		if t == resource.Date {
			layout = dateLayout
		}
		tm, err := time.Parse(layout, s)
		return tm.UTC().Truncate(time.Second), err
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return nil, err
	}
	return json.RawMessage(buf.Bytes()), nil
}

// escapePointer escapes a member name as one segment of a JSON pointer.
func escapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}
