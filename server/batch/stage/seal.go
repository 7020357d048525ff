package stage

import (
	"bytes"
	"encoding/json"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/entityapi/entityapi/server/batch/split"
	"github.com/entityapi/entityapi/server/engine"
	"github.com/entityapi/entityapi/server/jsonapi"
	"github.com/entityapi/entityapi/server/resource"
	"github.com/entityapi/entityapi/storage/jobs"
)

// This file keeps passwords out of the staged chunks of a batch: a staged
// item waits in the database until its chunk runs, so no plain password may
// be in it, not even for a moment. Before an item is staged (or run, for a
// synchronous batch) the rules that need the plain password run on it, its
// schema and bcrypt's 72 bytes (engine.SealSecret), and the password is
// replaced by its hash; the chunk run then stores that hash as it is
// (engine.ItemSource.Hashed). A password that breaks a rule is dropped and
// its problems are staged in its place, reported as the item's errors with
// their pointers into the original request.

// Seal turns the items of a split into staged items with every password
// hashed. res is the batch's type for primary items, nil for included ones.
// Items of types without write-only attributes are passed on as sent.
func Seal(b *engine.Bulk, res *resource.Resource, items []split.Item) []jobs.ChunkItem {
	out := make([]jobs.ChunkItem, len(items))
	names := secretNames(b.Resources())
	var wg sync.WaitGroup
	slots := make(chan struct{}, runtime.GOMAXPROCS(0)) // bcrypt is CPU work: one hash per core at a time
	for i, it := range items {
		out[i] = jobs.ChunkItem{Index: it.Index, Raw: it.Raw}
		if res != nil && !it.Included && len(res.WriteOnly) == 0 {
			continue // a primary item of a type without secrets (the 100,000 accounts of a batch): not even scanned
		}
		if !mayHold(it.Raw, names) {
			continue
		}
		wg.Add(1)
		slots <- struct{}{}
		go func(ci *jobs.ChunkItem, included bool) {
			defer func() { <-slots; wg.Done() }()
			sealItem(b, res, ci, included)
		}(&out[i], it.Included)
	}
	wg.Wait()
	return out
}

// secretNames lists the names of the write-only attributes of every type.
func secretNames(reg *resource.Registry) []string {
	var names []string
	for _, typ := range reg.Types() {
		res, _ := reg.Get(typ)
		for _, a := range res.WriteOnly {
			names = append(names, a.Name)
		}
	}
	return names
}

// mayHold tells whether raw may name one of the attributes, in any case or
// with escaped characters; when it cannot, the item is staged as sent.
func mayHold(raw []byte, names []string) bool {
	if bytes.Contains(raw, []byte(`\u`)) {
		return true
	}
	for _, name := range names {
		n := len(name)
		for i := 0; i+n <= len(raw); i++ {
			if raw[i]|0x20 == name[0]|0x20 && bytes.EqualFold(raw[i:i+n], []byte(name)) {
				return true
			}
		}
	}
	return false
}

// sealItem rewrites one item in place. The write-only attribute the chunk run
// reads (member "attributes", key as declared) is checked and hashed, or
// dropped with its problems; any other spelling of it (which the run refuses
// as an unknown field, whatever its value) gets an empty value.
func sealItem(b *engine.Bulk, res *resource.Resource, ci *jobs.ChunkItem, included bool) {
	var r jsonapi.Resource
	var members map[string]json.RawMessage
	if json.Unmarshal(ci.Raw, &r) != nil || json.Unmarshal(ci.Raw, &members) != nil {
		return // not a resource object: the run refuses it as such
	}
	if included {
		var ok bool
		if res, ok = b.Resources().Get(r.Type); !ok {
			return
		}
	}
	if len(res.WriteOnly) == 0 {
		return
	}
	base := "/data/"
	if included {
		base = "/included/"
	}
	base += strconv.Itoa(ci.Index)
	var update bool
	_ = json.Unmarshal(r.Meta["update"], &update)
	for key, raw := range members {
		if !strings.EqualFold(key, attributesMember) {
			continue
		}
		var attrs map[string]json.RawMessage
		if json.Unmarshal(raw, &attrs) != nil {
			continue
		}
		for name, value := range attrs {
			a := secretAttribute(res, name)
			if a == nil {
				continue
			}
			if key != attributesMember || name != a.Name {
				attrs[name] = json.RawMessage(`""`)
				continue
			}
			pointer := base + "/" + attributesMember + "/" + name
			hash, ps := b.SealSecret(res.Type, update, name, value, base, pointer)
			if len(ps) > 0 {
				delete(attrs, name)
				for _, p := range ps {
					ci.Problems = append(ci.Problems, jobs.ChunkProblem{Title: p.Title, Detail: p.Detail, Pointer: p.Pointer})
				}
				continue
			}
			attrs[name] = hash
			ci.Hashed = true
		}
		members[key], _ = json.Marshal(attrs)
	}
	ci.Raw, _ = json.Marshal(members)
}

// attributesMember is the member of a resource object that holds its
// attributes, where the engine reads a write-only attribute.
const attributesMember = "attributes"

// secretAttribute is the write-only attribute name spells, in any case.
func secretAttribute(res *resource.Resource, name string) *resource.Attribute {
	for _, a := range res.WriteOnly {
		if strings.EqualFold(a.Name, name) {
			return a
		}
	}
	return nil
}
