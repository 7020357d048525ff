package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/entityapi/entityapi/server/resource"
	"github.com/entityapi/entityapi/storage"
)

// cursorKeyWait bounds the start's one read (or first write) of the cursor key.
const cursorKeyWait = 30 * time.Second

// New builds the engine of one application from its validated document: its
// resources, the routes under base, and the storage tables each resource
// lives in. A document naming a table or column storage does not have fails
// here, at start, not on the first request.
func New(doc *openapi3.T, store *storage.Store, base string, cfg Config) (*Engine, error) {
	reg, err := resource.Load(doc)
	if err != nil {
		return nil, err
	}
	routes, err := newRouteTable(doc, reg, base)
	if err != nil {
		return nil, err
	}
	tables := map[string]*storage.Table{}
	joins := map[string]*storage.JoinTable{}
	for _, typ := range reg.Types() {
		res, _ := reg.Get(typ)
		t, ok := store.Table(res.Table)
		if !ok {
			return nil, fmt.Errorf("resource %s: no table %q in storage", typ, res.Table)
		}
		if err := checkColumns(res, t); err != nil {
			return nil, err
		}
		tables[typ] = t
		for _, rel := range res.Relationships {
			if th := rel.Through; th != nil {
				j, ok := store.JoinTable(th.Table)
				if !ok || !((j.Left == th.Column && j.Right == th.Target) || (j.Right == th.Column && j.Left == th.Target)) {
					return nil, fmt.Errorf("resource %s: relationship %s: no join table %s(%s, %s) in storage", typ, rel.Name, th.Table, th.Column, th.Target)
				}
				joins[th.Table] = j
			}
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), cursorKeyWait)
	defer cancel()
	cursorKey, err := store.CursorKey(ctx)
	if err != nil {
		return nil, err
	}
	return &Engine{store: store, reg: reg, routes: routes, tables: tables, joins: joins, items: newItemSchemas(routes), cfg: cfg,
		shownCols: newShownColumns(reg, tables), cursors: cursorCodec{key: cursorKey}}, nil
}

// checkColumns makes a document naming a column storage does not have fail at start.
func checkColumns(res *resource.Resource, t *storage.Table) error {
	has := func(col string) bool { _, ok := t.Columns[col]; return ok || col == t.Key }
	if !has(res.IDColumn) {
		return fmt.Errorf("resource %s: no column %q in table %s", res.Type, res.IDColumn, t.Name)
	}
	for _, a := range append(res.Attributes, res.WriteOnly...) {
		if !has(a.Column) {
			return fmt.Errorf("resource %s: attribute %s: no column %q in table %s", res.Type, a.Name, a.Column, t.Name)
		}
		for lang, col := range a.Localized {
			if !has(col) {
				return fmt.Errorf("resource %s: attribute %s in %s: no column %q in table %s", res.Type, a.Name, lang, col, t.Name)
			}
		}
	}
	for _, rel := range res.Relationships {
		if !rel.ToMany && !rel.Organization && !has(rel.Column) {
			return fmt.Errorf("resource %s: relationship %s: no column %q in table %s", res.Type, rel.Name, rel.Column, t.Name)
		}
	}
	for _, a := range res.Search {
		// A caller who may not read a searched field searches the open
		// index (docs/fields.md), which its table must have.
		if _, open := storage.OpenSearchColumns[t.Name]; len(a.Readers) > 0 && !open {
			return fmt.Errorf("resource %s: the searched attribute %s names its readers, and table %s has no open full-text index (storage.OpenSearchColumns)", res.Type, a.Name, t.Name)
		}
	}
	return nil
}

// Registry is the application's resources, as its document describes them.
func (e *Engine) Registry() *resource.Registry { return e.reg }

// Routes is the application's documented operations.
func (e *Engine) Routes() *RouteTable { return e.routes }

// Store is where the application's records are.
func (e *Engine) Store() *storage.Store { return e.store }

// LimitTo makes only the records of typ with these keys exist for the API,
// such as the enabled currencies of the storefront. Called at start, before
// the first request.
func (e *Engine) LimitTo(typ string, keys []any) {
	if e.only == nil {
		e.only = map[string][]any{}
	}
	e.only[typ] = keys
}
