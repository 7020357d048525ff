package engine

import (
	"context"
	"strings"

	"github.com/entityapi/entityapi/server/jsonapi"
	"github.com/entityapi/entityapi/server/resource"
	"github.com/entityapi/entityapi/storage"
)

// loadLinkage loads, in one query per to-many relationship shown, the related
// identifiers of every record in rows.
func (e *Engine) loadLinkage(ctx context.Context, cl *call, res *resource.Resource, rows []storage.Row, fields map[string]bool) (linkage, error) {
	if len(rows) == 0 {
		return nil, nil
	}
	var out linkage
	for _, rel := range res.Relationships {
		if !rel.ToMany || (cl.f == JSONAPI && !wanted(fields, rel.Name)) {
			continue
		}
		pairs, err := e.pairs(ctx, cl, res, rel, ownerKeys(res, rows))
		if err != nil {
			return nil, err
		}
		if out == nil {
			out = linkage{}
		}
		out[rel.Name] = groupByOwner(pairs)
	}
	return out, nil
}

// groupByOwner maps each owner key to its related keys, in the order of
// pairs. Storage answers pairs ordered by owner, so each owner's keys are
// one run of pairs: the lists are cut from one array, a run each, and an
// owner's key is made once, not once per pair. An owner met again after
// another (pairs in any other order) has the run appended to its list.
func groupByOwner(pairs [][2]any) map[string][]any {
	all := make([]any, len(pairs))
	runs := 0
	for i, pair := range pairs {
		all[i] = pair[0]
		if i == 0 || pair[1] != pairs[i-1][1] {
			runs++
		}
	}
	m := make(map[string][]any, runs)
	for start := 0; start < len(pairs); {
		end := start + 1
		for end < len(pairs) && pairs[end][1] == pairs[start][1] {
			end++
		}
		owner := keyString(pairs[start][1])
		if list, ok := m[owner]; ok {
			m[owner] = append(list[:len(list):len(list)], all[start:end]...)
		} else {
			m[owner] = all[start:end:end]
		}
		start = end
	}
	return m
}

// pairs returns (related key, owner key) for every member of a to-many
// relationship of the given owners, in one query.
func (e *Engine) pairs(ctx context.Context, cl *call, res *resource.Resource, rel *resource.Relationship, keys []any) ([][2]any, error) {
	return cl.db.MemberPairs(ctx, e.membersOf(cl, rel), keys)
}

func ownerKeys(res *resource.Resource, rows []storage.Row) []any {
	keys := make([]any, len(rows))
	for i, row := range rows {
		keys[i] = row[res.IDColumn]
	}
	return keys
}

// memberOf is the condition selecting the records of a to-many relationship's
// target that belong to any of the owners.
func (e *Engine) memberOf(rel *resource.Relationship, owners []any) storage.Cond {
	if th := rel.Through; th != nil {
		return storage.Cond{Via: &storage.Via{Table: th.Table, Column: th.Target, Target: th.Column}, Op: storage.Eq, Values: owners}
	}
	target, _ := e.reg.Get(rel.Target)
	back, _ := target.Relationship(rel.Inverse)
	return storage.Cond{Column: back.Column, Op: storage.Eq, Values: owners}
}

// toOneKey is the identifier a to-one relationship of a record points at.
func toOneKey(cl *call, rel *resource.Relationship, row storage.Row) any {
	if rel.Organization {
		return cl.org
	}
	return row[rel.Column]
}

// related finds the records a relationship of rows points at, in one query,
// with the columns a document in the caller's language shows (engine.shown).
func (e *Engine) related(ctx context.Context, cl *call, res *resource.Resource, rows []storage.Row, rel *resource.Relationship) (*resource.Resource, []storage.Row, error) {
	target, _ := e.reg.Get(rel.Target)
	if len(rows) == 0 {
		return target, nil, nil
	}
	var cond storage.Cond
	if rel.ToMany {
		cond = e.memberOf(rel, ownerKeys(res, rows))
	} else {
		seen := map[any]bool{}
		var values []any
		for _, row := range rows {
			if v := toOneKey(cl, rel, row); v != nil && !seen[v] {
				seen[v] = true
				values = append(values, v)
			}
		}
		if len(values) == 0 {
			return target, nil, nil
		}
		cond = storage.Cond{Column: target.IDColumn, Op: storage.Eq, Values: values}
	}
	found, err := cl.db.Find(ctx, storage.Query{Table: e.table(target), Columns: e.shown(target, cl.lang), Org: cl.org, Where: []storage.Cond{cond}})
	return target, found, err
}

// included loads every include path, one query per path segment (segments shared
// by several paths are loaded once), and renders the related records once each.
func (e *Engine) included(ctx context.Context, cl *call, res *resource.Resource, rows []storage.Row, p *listParams) ([]*jsonapi.ResourceObject, error) {
	if len(p.include) == 0 || len(rows) == 0 {
		return nil, nil
	}
	type level struct {
		res  *resource.Resource
		rows []storage.Row
	}
	loaded := map[string]level{}
	seen := map[string]bool{}
	for _, row := range rows {
		seen[res.Type+"\x00"+keyString(row[res.IDColumn])] = true
	}
	var out []*jsonapi.ResourceObject
	for _, chain := range p.include {
		if !wanted(p.fields[res.Type], chain[0].Name) {
			continue // oro-behaviour §5.1: the relation is left out, and so is what it includes
		}
		cur := level{res, rows}
		var path []string
		for _, rel := range chain {
			path = append(path, rel.Name)
			k := strings.Join(path, ".")
			next, ok := loaded[k]
			if !ok {
				target, found, err := e.related(ctx, cl, cur.res, cur.rows, rel)
				if err != nil {
					return nil, err
				}
				next = level{target, found}
				loaded[k] = next
				fields := p.fields[target.Type]
				links, err := e.loadLinkage(ctx, cl, target, found, fields)
				if err != nil {
					return nil, err
				}
				fresh := make([]storage.Row, 0, len(found))
				for _, row := range found {
					id := target.Type + "\x00" + keyString(row[target.IDColumn])
					if !seen[id] {
						seen[id] = true
						fresh = append(fresh, row)
					}
				}
				out = append(out, e.resourceObjects(cl, target, fresh, fields, links)...)
			}
			cur = next
		}
	}
	return out, nil
}
