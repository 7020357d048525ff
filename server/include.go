package server

import (
	"context"
	"strings"

	"github.com/entityapi/entityapi/server/jsonapi"
	"github.com/entityapi/entityapi/server/resource"
	"github.com/entityapi/entityapi/storage"
)

// loadLinkage loads, in one query per to-many relationship shown, the related
// identifiers of every record in rows.
func (e *engine) loadLinkage(ctx context.Context, cl *call, res *resource.Resource, rows []storage.Row, fields map[string]bool) (linkage, error) {
	if len(rows) == 0 {
		return nil, nil
	}
	var out linkage
	for _, rel := range res.Relationships {
		if !rel.ToMany || (cl.f == jsonapiFormat && !wanted(fields, rel.Name)) {
			continue
		}
		target, _ := e.reg.Get(rel.Target)
		back, _ := target.Relationship(rel.Inverse)
		keys := make([]any, len(rows))
		for i, row := range rows {
			keys[i] = row[res.IDColumn]
		}
		pairs, err := e.store.Linkage(ctx, e.table(target), cl.org, back.Column, keys)
		if err != nil {
			return nil, err
		}
		if out == nil {
			out = linkage{}
		}
		m := map[string][]any{}
		for _, pair := range pairs {
			owner := keyString(pair[1])
			m[owner] = append(m[owner], pair[0])
		}
		out[rel.Name] = m
	}
	return out, nil
}

// related finds the records a relationship of rows points at, in one query.
func (e *engine) related(ctx context.Context, cl *call, res *resource.Resource, rows []storage.Row, rel *resource.Relationship) (*resource.Resource, []storage.Row, error) {
	target, _ := e.reg.Get(rel.Target)
	var cond storage.Cond
	seen := map[any]bool{}
	var values []any
	if rel.ToMany {
		back, _ := target.Relationship(rel.Inverse)
		cond.Column = back.Column
		for _, row := range rows {
			values = append(values, row[res.IDColumn])
		}
	} else {
		cond.Column = target.IDColumn
		for _, row := range rows {
			if v := row[rel.Column]; v != nil && !seen[v] {
				seen[v] = true
				values = append(values, v)
			}
		}
	}
	if len(values) == 0 {
		return target, nil, nil
	}
	cond.Op, cond.Values = storage.Eq, values
	found, err := e.store.Find(ctx, storage.Query{Table: e.table(target), Org: cl.org, Where: []storage.Cond{cond}})
	return target, found, err
}

// included loads every include path, one query per path segment (segments shared
// by several paths are loaded once), and renders the related records once each.
func (e *engine) included(ctx context.Context, cl *call, res *resource.Resource, rows []storage.Row, p *listParams) ([]*jsonapi.ResourceObject, error) {
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
				for _, row := range found {
					id := target.Type + "\x00" + keyString(row[target.IDColumn])
					if !seen[id] {
						seen[id] = true
						out = append(out, e.resourceObject(cl, target, row, fields, links))
					}
				}
			}
			cur = next
		}
	}
	return out, nil
}
