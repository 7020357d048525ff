package atomic

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"

	"github.com/entityapi/entityapi/server/engine"
	"github.com/entityapi/entityapi/server/problem"
)

// An atomic operation names what it acts on by ref (type, id or lid,
// relationship), by href, or by its data alone; this file turns that target
// into the documented route and address of the single request the operation
// stands for, so that the operation is checked and served as that request.

// target is the resource type, id and relationship an operation acts on, from
// its ref, its href, or its data (an add or update without either).
func (run *atomicRun) target(op *atomicOperation, data json.RawMessage) (typ, id, rel string, err error) {
	switch {
	case op.Ref != nil:
		ref := op.Ref
		if ref.ID != nil && ref.LID != nil {
			return "", "", "", problem.RequestData("A ref has an id or a lid, not both.", "/ref/lid")
		}
		typ = ref.Type
		switch {
		case ref.ID != nil:
			id = *ref.ID
		case ref.LID != nil:
			if id, err = run.lookup(ref.Type, *ref.LID, "/ref/lid"); err != nil {
				return "", "", "", err
			}
		}
		if ref.Relationship != nil {
			rel = *ref.Relationship
		}
		return typ, id, rel, nil
	case op.Href != nil:
		return "", "", "", nil // route reads the address
	}
	var d struct {
		Type string  `json:"type"`
		ID   *string `json:"id"`
	}
	_ = json.Unmarshal(data, &d) // the schema check reports a data that is not an object
	if d.Type == "" {
		return "", "", "", problem.RequestData("The operation names no target: it needs a ref, an href, or data with a type.", "")
	}
	if d.ID != nil {
		id = *d.ID
	}
	if op.Op != "add" && id == "" {
		return "", "", "", problem.RequestData("The operation names no record: it needs a ref, an href, or data with an id.", "")
	}
	return d.Type, id, "", nil
}

// route is the documented route an operation stands for, and the address of
// that single request: add is POST on the collection (or on a relationship),
// update PATCH and remove DELETE on the record (or on a relationship). An
// address the application does not have is a 404, a method the address does
// not allow what the single JSON:API request gets: 403 for an update of a
// record or a change of a relationship, 405 otherwise (RouteTable.Refusal).
func (run *atomicRun) route(op *atomicOperation, typ, id, rel string) (*engine.Route, string, string, error) {
	base := run.routes.Base()
	var path string
	if op.Href != nil {
		p, err := run.hrefPath(*op.Href)
		if err != nil {
			return nil, "", "", err
		}
		path = p
	} else {
		if typ == "" || strings.Contains(typ, "/") || strings.Contains(id, "/") || strings.Contains(rel, "/") {
			return nil, "", "", problem.UnknownPath("The operation's target names no address of the API.")
		}
		path = base + "/api/" + typ
		if op.Op != "add" || rel != "" {
			if id == "" {
				return nil, "", "", problem.RequestData("The operation needs the id of its record.", "/ref/id")
			}
			path += "/" + id
		}
		if rel != "" {
			path += "/relationships/" + rel
		}
	}
	method := map[string]string{"add": http.MethodPost, "update": http.MethodPatch, "remove": http.MethodDelete}[op.Op]
	if method == "" {
		return nil, "", "", problem.RequestData("The op should be add, update or remove.", "/op")
	}
	rt, params := run.routes.Match(method, path)
	if rt == nil {
		if run.routes.Allowed(path) != nil {
			return nil, "", "", run.routes.Refusal(method, path, true)
		}
		return nil, "", "", problem.UnknownPath("The operation's target names no address of the API.")
	}
	switch {
	case rt.IsCollection() && method == http.MethodPost,
		rt.IsItem() && method != http.MethodPost,
		rt.IsRelationship():
	default:
		return nil, "", "", problem.RequestData("The operation's target is not an address an operation may change.", "")
	}
	return rt, path, params["id"], nil
}

// hrefPath is the path of an operation's href, absolute or relative to the
// application base; only addresses of this application are taken.
func (run *atomicRun) hrefPath(href string) (string, error) {
	u, err := url.Parse(href)
	bad := problem.RequestData("The href is not an address of this API.", "/href")
	if err != nil || u.RawQuery != "" || u.Fragment != "" {
		return "", bad
	}
	base := run.routes.Base()
	if u.IsAbs() {
		if u.Scheme+"://"+u.Host != run.r.Origin {
			return "", bad
		}
		if !strings.HasPrefix(u.Path, base+"/api/") {
			return "", bad
		}
		return u.Path, nil
	}
	switch {
	case strings.HasPrefix(u.Path, base+"/api/") && base != "":
		return u.Path, nil
	case strings.HasPrefix(u.Path, "/api/"):
		return base + u.Path, nil
	case strings.HasPrefix(u.Path, "api/"):
		return base + "/" + u.Path, nil
	}
	return "", bad
}
