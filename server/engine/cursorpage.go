package engine

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/entityapi/entityapi/server/jsonapi"
	"github.com/entityapi/entityapi/server/problem"
	"github.com/entityapi/entityapi/storage"
)

// Cursor paging (docs/queries.md, "Cursor paging"): page[after] or page[before] with
// page[size] asks for the records after or before a place in the list's
// order, read by key (storage.Query.Seek), never by OFFSET, so a page deep
// in a large list costs what the first does. An empty cursor starts a walk:
// page[after]= from the first record, page[before]= from the last. A
// request with neither pages by number, as before.

// cursorPage is the cursor part of a list request, and what its page
// found.
type cursorPage struct {
	before bool  // page[before]: the records before the place, read backward
	seek   []any // the place; nil for an empty cursor (a walk's start or end)
	order  []storage.Order
	table  *storage.Table

	// prev and next are the cursors of the page's first and last records
	// when records come before or after the page ("" at the ends).
	prev, next string
	// feed: the list grows at its end, where a consumer follows it (the
	// change events): a page read forward always has a next link, from its
	// last record, so that the consumer can ask what came after it later.
	feed bool
}

// parseCursor reads page[after] and page[before] for a list of t sorted by
// order; nil when the request has neither. size is what parsePage read;
// pathSort, the first field of related records the order names, which a
// cursor does not hold (the related value may change under the walk).
func (e *Engine) parseCursor(q url.Values, t *storage.Table, order []storage.Order, pathSort string, size int) (*cursorPage, problem.List) {
	after, hasAfter := q["page[after]"]
	before, hasBefore := q["page[before]"]
	if !hasAfter && !hasBefore {
		return nil, nil
	}
	var errs problem.List
	if hasAfter && hasBefore {
		errs = append(errs, problem.CursorRange())
	}
	if _, ok := q["page[number]"]; ok {
		errs = append(errs, problem.Filter("page[number]", "page[number] cannot be given with page[after] or page[before]; a cursor names the page."))
	}
	if size < 0 {
		errs = append(errs, problem.Filter("page[size]", fmt.Sprintf("The value should be between 1 and %d with page[after] or page[before].", maxPageSize)))
	}
	whole := storage.Ordering(t, order)
	if pathSort != "" {
		errs = append(errs, problem.UnsupportedCursorSort(fmt.Sprintf("A list sorted by the related field %q cannot be paged by cursor; page it by number.", pathSort)))
	} else if col := seekable(t, whole); col != "" {
		errs = append(errs, problem.UnsupportedCursorSort(fmt.Sprintf("A list sorted by the %q column cannot be paged by cursor; page it by number.", col)))
	}
	if len(errs) > 0 {
		return nil, errs
	}
	c := &cursorPage{before: hasBefore, order: whole, table: t}
	param, text := "page[after]", after
	if hasBefore {
		param, text = "page[before]", before
	}
	if text[0] != "" {
		seek, err := e.cursors.decode(t, whole, text[0])
		if err != nil {
			return nil, problem.List{problem.Filter(param, "The cursor is not valid for this list and sort: "+err.Error()+".")}
		}
		c.seek = seek
	}
	return c, nil
}

// withOrderColumns adds to cols the columns of the order a cursor is made
// of, so that every record read carries its place.
func (c *cursorPage) withOrderColumns(cols []string) []string {
	if cols == nil {
		return nil // every column
	}
	out := cols
	for _, o := range c.order {
		if !slices.Contains(out, o.Column) {
			if len(out) == len(cols) {
				out = append([]string(nil), cols...)
			}
			out = append(out, o.Column)
		}
	}
	return out
}

// cursorRead reads the page of a cursor request: size records after (or
// before) the place, one more to tell whether the walk goes on, and sets
// the cursors of the page's ends.
func (e *Engine) cursorRead(ctx context.Context, q storage.Query, p *listParams) ([]storage.Row, error) {
	c := p.cursor
	q.Columns = c.withOrderColumns(q.Columns)
	q.Seek, q.Backward = c.seek, c.before
	q.Offset, q.Limit = 0, p.size+1
	rows, err := e.store.Find(ctx, q)
	if err != nil {
		return nil, err
	}
	more := len(rows) > p.size
	switch {
	case more && c.before:
		storage.Release(rows[:len(rows)-p.size])
		rows = rows[len(rows)-p.size:] // the extra record is the farthest back
	case more:
		storage.Release(rows[p.size:])
		rows = rows[:p.size]
	}
	if len(rows) == 0 {
		return rows, nil
	}
	first := e.cursors.encode(c.table, c.order, rows[0])
	last := e.cursors.encode(c.table, c.order, rows[len(rows)-1])
	// Records lie beyond the far end of the page when more were found, and
	// behind the near end when the walk did not start at the list's end.
	if c.before {
		c.prev, c.next = pick(more, first), pick(c.seek != nil, last)
	} else {
		c.prev, c.next = pick(c.seek != nil, first), pick(more || c.feed, last)
	}
	return rows, nil
}

func pick(ok bool, s string) string {
	if ok {
		return s
	}
	return ""
}

// cursorLink is the address of the page after (or before) cursor.
func (cl *call) cursorLink(self, param, cursor string) string {
	q := maps.Clone(cl.query)
	q.Del("page[after]")
	q.Del("page[before]")
	q.Del("page[number]")
	q.Set(param, cursor)
	return self + "?" + q.Encode()
}

// cursorLinks are the links of a cursor page: self, first (a walk from
// the start), and prev and next, null at the ends of the list: the
// cursor-pagination profile says a server MUST include both and MUST answer
// null where there is no page that way (issue 31; DocumentLinks says so).
func (cl *call) cursorLinks(self string, c *cursorPage) *jsonapi.Links {
	l := &jsonapi.Links{Self: self, First: cl.cursorLink(self, "page[after]", ""), PrevNextNull: true}
	if c.prev != "" {
		l.Prev = cl.cursorLink(self, "page[before]", c.prev)
	}
	if c.next != "" {
		l.Next = cl.cursorLink(self, "page[after]", c.next)
	}
	return l
}

// listLinks are the links of a page of a list: cursor links for a cursor
// request, page-number links otherwise.
func (cl *call) listLinks(self string, p *listParams, hasMore bool, total int) *jsonapi.Links {
	if p.cursor != nil {
		return cl.cursorLinks(self, p.cursor)
	}
	return cl.pageLinks(self, p, hasMore, total)
}

// withProfile names the cursor-pagination profile in the Content-Type of a
// JSON:API page read by cursor (JSON:API 1.1: a server that applies a
// profile MUST name it); a page by number applies none.
func (cl *call) withProfile(r *jsonapi.Reply, p *listParams) *jsonapi.Reply {
	if p.cursor != nil && cl.f != Plain {
		r.ContentType = jsonapi.CursorMediaType
	}
	return r
}

// withLinkHeader adds the cursors of a plain-format cursor page as a Link
// header (RFC 8288), rel="next" and rel="prev", where JSON:API would have
// them in its links.
func (cl *call) withLinkHeader(r *jsonapi.Reply, self string, p *listParams) *jsonapi.Reply {
	c := p.cursor
	if c == nil || (c.prev == "" && c.next == "") {
		return r
	}
	var parts []string
	if c.next != "" {
		parts = append(parts, "<"+cl.cursorLink(self, "page[after]", c.next)+`>; rel="next"`)
	}
	if c.prev != "" {
		parts = append(parts, "<"+cl.cursorLink(self, "page[before]", c.prev)+`>; rel="prev"`)
	}
	if r.Header == nil {
		r.Header = http.Header{}
	}
	r.Header.Set("Link", strings.Join(parts, ", "))
	return r
}
