package jsonapi

import (
	"io"
	"net/url"
)

// Member is one named value of an object whose member order matters to readers
// (attributes in schema order, plain fields, meta).
type Member struct {
	Name  string
	Value any
}

// ResourceObject is a resource as the engine answers it. Nil or empty parts are
// left out of the output.
type ResourceObject struct {
	Type          string
	ID            string
	Attributes    []Member
	Relationships []RelationshipObject
	// Self is the resource's address; when it is empty and Collection is
	// set, the address is Collection/ID (ID path-escaped), written as the
	// object is encoded: a page of records then builds no address string
	// per record, only one for its collection.
	Self       string
	Collection string
	Meta       []Member
}

// RelationshipObject is one relationship of a response resource. Data holds no
// identifier (null) or one for a to-one relationship; any number for a to-many one.
//
// Its links are written from the address of the resource it belongs to
// (Owner, or when Owner is empty the address of the resource object it is
// written in): the relationship endpoint Owner/relationships/Name when
// HasSelf, the subresource Owner/Name when HasRelated. A page of resources
// has a few relationships each; building both addresses as strings for
// every one of them was most of the allocations of rendering a list.
type RelationshipObject struct {
	Name                string
	ToMany              bool
	Data                []Identifier
	Owner               string
	HasSelf, HasRelated bool
}

// Links are the top-level links of a document; empty members are left out,
// except prev and next of a cursor page, which are null at the ends of the
// list as the cursor-pagination profile asks.
type Links struct {
	Self, Related, First, Prev, Next, Last string
	// PrevNextNull writes an empty Prev or Next as null, not leaving it out.
	PrevNextNull bool
}

// Primary is the primary data of a response document.
type Primary interface {
	appendPrimary(b []byte) []byte
}

// One is a single resource as primary data; a nil One is written as null.
type One struct{ Resource *ResourceObject }

// Many is a list of resources as primary data.
type Many []*ResourceObject

// ToOne is the linkage of a to-one relationship endpoint; nil is null.
type ToOne struct{ Identifier *Identifier }

// ToMany is the linkage of a to-many relationship endpoint.
type ToMany []Identifier

// TopLevel is a response document.
type TopLevel struct {
	Data     Primary
	Included []*ResourceObject
	// IncludeAsked writes "included" even when it is empty: JSON:API 1.1
	// requires the member whenever the request named include, also when
	// fields left the path out or nothing is related.
	IncludeAsked bool
	Links        *Links
	// Meta is the document's top-level meta (nil: none), such as a list's
	// meta.aggregatedData.
	Meta []Member
}

func (o One) appendPrimary(b []byte) []byte {
	if o.Resource == nil {
		return append(b, "null"...)
	}
	return o.Resource.AppendJSON(b)
}

func (m Many) appendPrimary(b []byte) []byte {
	p := pieces{b: b}
	m.writePieces(&p)
	return p.b
}

// writePieces writes the list one object at a time, handing each full piece
// to the writer: a list of tens of megabytes (every contact with its accounts)
// never sits whole in one buffer that doubles and copies itself as it grows.
func (m Many) writePieces(p *pieces) {
	p.b = append(p.b, '[')
	for i, r := range m {
		if i > 0 {
			p.b = append(p.b, ',')
		}
		p.b = r.AppendJSON(p.b)
		p.pass()
	}
	p.b = append(p.b, ']')
}
func (t ToOne) appendPrimary(b []byte) []byte {
	if t.Identifier == nil {
		return append(b, "null"...)
	}
	return appendIdentifier(b, *t.Identifier)
}

func (t ToMany) appendPrimary(b []byte) []byte {
	return appendArray(b, t, appendIdentifier)
}

// AppendJSON appends the document as JSON.
func (d *TopLevel) AppendJSON(b []byte) []byte {
	p := pieces{b: b}
	d.writePieces(&p)
	return p.b
}

// WriteTo writes the document as JSON to w in pieces of about pieceSize,
// through buf (which it may grow and returns for reuse).
func (d *TopLevel) WriteTo(w io.Writer, buf []byte) ([]byte, error) {
	return d.writeTo(w, buf, nil)
}

// writeTo is WriteTo calling begin (when not nil) once before the first
// write: with the document's length when that write is the whole document,
// -1 when more pieces follow.
func (d *TopLevel) writeTo(w io.Writer, buf []byte, begin func(whole int)) ([]byte, error) {
	p := pieces{b: buf[:0], w: w, begin: begin}
	d.writePieces(&p)
	p.last = true
	p.flush()
	if p.begin != nil { // nothing written: an empty document cannot happen, but the head must go out
		p.begin(0)
	}
	return p.b[:0], p.err
}

func (d *TopLevel) writePieces(p *pieces) {
	p.b = append(p.b, `{"data":`...)
	if m, ok := d.Data.(Many); ok {
		m.writePieces(p)
	} else {
		p.b = d.Data.appendPrimary(p.b)
	}
	if len(d.Included) > 0 || d.IncludeAsked {
		p.b = append(p.b, `,"included":`...)
		Many(d.Included).writePieces(p)
	}
	if d.Links != nil {
		if l := appendLinks(nil, d.Links); len(l) > 2 {
			p.b = append(p.b, `,"links":`...)
			p.b = append(p.b, l...)
		}
	}
	if d.Meta != nil {
		p.b = append(p.b, `,"meta":`...)
		p.b = AppendObject(p.b, d.Meta)
	}
	p.b = append(p.b, '}')
}

// pieceSize is how much of a document is gathered before it is written.
const pieceSize = 64 << 10

// pieces gathers a document's bytes and, when it has a writer, writes them
// out each time pieceSize is reached; without one it only appends.
type pieces struct {
	b     []byte
	w     io.Writer
	err   error
	begin func(whole int) // called before the first write, then cleared
	last  bool            // the next flush writes the end of the document
}

// pass writes what was gathered once it reaches pieceSize.
func (p *pieces) pass() {
	if p.w != nil && len(p.b) >= pieceSize {
		p.flush()
	}
}

func (p *pieces) flush() {
	if p.w == nil || len(p.b) == 0 {
		return
	}
	if p.begin != nil {
		whole := -1
		if p.last {
			whole = len(p.b)
		}
		p.begin(whole)
		p.begin = nil
	}
	if p.err == nil {
		_, p.err = p.w.Write(p.b)
	}
	p.b = p.b[:0]
}

// AppendJSON appends the resource object as JSON.
func (r *ResourceObject) AppendJSON(b []byte) []byte {
	b = append(b, `{"type":`...)
	b = AppendString(b, r.Type)
	b = append(b, `,"id":`...)
	b = AppendString(b, r.ID)
	if r.Meta != nil {
		b = append(b, `,"meta":`...)
		b = AppendObject(b, r.Meta)
	}
	if r.Self != "" || r.Collection != "" {
		b = append(b, `,"links":{"self":"`...)
		b = r.appendAddress(b)
		b = append(b, `"}`...)
	}
	if r.Attributes != nil {
		b = append(b, `,"attributes":`...)
		b = AppendObject(b, r.Attributes)
	}
	if len(r.Relationships) > 0 {
		b = append(b, `,"relationships":{`...)
		for i, rel := range r.Relationships {
			if i > 0 {
				b = append(b, ',')
			}
			b = AppendString(b, rel.Name)
			b = append(b, ':')
			b = rel.appendJSON(b, r)
		}
		b = append(b, '}')
	}
	return append(b, '}')
}

// appendAddress appends the resource's address (Self, or Collection/ID)
// escaped as inside a JSON string.
func (r *ResourceObject) appendAddress(b []byte) []byte {
	if r.Self != "" {
		return appendStringBody(b, r.Self)
	}
	b = appendStringBody(b, r.Collection)
	b = append(b, '/')
	return appendStringBody(b, url.PathEscape(r.ID))
}

// appendOwner appends the address the relationship's links start from:
// Owner, or that of the resource object it belongs to.
func (rel *RelationshipObject) appendOwner(b []byte, of *ResourceObject) []byte {
	if rel.Owner != "" || of == nil {
		return appendStringBody(b, rel.Owner)
	}
	return of.appendAddress(b)
}

func (rel *RelationshipObject) appendJSON(b []byte, of *ResourceObject) []byte {
	b = append(b, `{"data":`...)
	switch {
	case rel.ToMany:
		b = ToMany(rel.Data).appendPrimary(b)
	case len(rel.Data) == 0:
		b = append(b, "null"...)
	default:
		b = appendIdentifier(b, rel.Data[0])
	}
	if rel.HasSelf || rel.HasRelated {
		b = append(b, `,"links":{`...)
		if rel.HasSelf {
			b = append(b, `"self":"`...)
			b = rel.appendOwner(b, of)
			b = append(b, "/relationships/"...)
			b = appendStringBody(b, rel.Name)
			b = append(b, '"')
		}
		if rel.HasRelated {
			if rel.HasSelf {
				b = append(b, ',')
			}
			b = append(b, `"related":"`...)
			b = rel.appendOwner(b, of)
			b = append(b, '/')
			b = appendStringBody(b, rel.Name)
			b = append(b, '"')
		}
		b = append(b, '}')
	}
	return append(b, '}')
}

func appendIdentifier(b []byte, id Identifier) []byte {
	b = append(b, `{"type":`...)
	b = AppendString(b, id.Type)
	b = append(b, `,"id":`...)
	b = AppendString(b, id.ID)
	return append(b, '}')
}

func appendLinks(b []byte, l *Links) []byte {
	b = append(b, '{')
	first := true
	for _, m := range [...]struct {
		name, url string
		null      bool // written as null when empty
	}{
		{"self", l.Self, false}, {"related", l.Related, false}, {"first", l.First, false},
		{"prev", l.Prev, l.PrevNextNull}, {"next", l.Next, l.PrevNextNull}, {"last", l.Last, false},
	} {
		if m.url == "" && !m.null {
			continue
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = AppendString(b, m.name)
		b = append(b, ':')
		if m.url == "" {
			b = append(b, "null"...)
		} else {
			b = AppendString(b, m.url)
		}
	}
	return append(b, '}')
}
