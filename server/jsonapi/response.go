package jsonapi

import "slices"

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
	Self          string
	Meta          []Member
}

// RelationshipObject is one relationship of a response resource. Data holds no
// identifier (null) or one for a to-one relationship; any number for a to-many one.
type RelationshipObject struct {
	Name    string
	ToMany  bool
	Data    []Identifier
	Self    string
	Related string
}

// Links are the top-level links of a document; empty members are left out.
type Links struct {
	Self, Related, First, Prev, Next, Last string
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
}

func (o One) appendPrimary(b []byte) []byte {
	if o.Resource == nil {
		return append(b, "null"...)
	}
	return o.Resource.AppendJSON(b)
}

// maxReserve bounds the room Many reserves ahead of its objects.
const maxReserve = 64 << 20

func (m Many) appendPrimary(b []byte) []byte {
	b = append(b, '[')
	for i, r := range m {
		if i > 0 {
			b = append(b, ',')
		}
		start := len(b)
		b = r.AppendJSON(b)
		if i == 0 && len(m) > 1 {
			// Room for the rest at the first object's size, in one step:
			// doubling a buffer up to tens of megabytes (every contact with
			// its accounts is 31 MB) copies it over and over (issue 15).
			// Capped, for a first object much larger than the others.
			b = slices.Grow(b, min((len(b)-start+1)*(len(m)-1), maxReserve))
		}
	}
	return append(b, ']')
}

func (t ToOne) appendPrimary(b []byte) []byte {
	if t.Identifier == nil {
		return append(b, "null"...)
	}
	return appendIdentifier(b, *t.Identifier)
}

func (t ToMany) appendPrimary(b []byte) []byte {
	b = append(b, '[')
	for i, id := range t {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendIdentifier(b, id)
	}
	return append(b, ']')
}

// AppendJSON appends the document as JSON.
func (d *TopLevel) AppendJSON(b []byte) []byte {
	b = append(b, `{"data":`...)
	b = d.Data.appendPrimary(b)
	if len(d.Included) > 0 || d.IncludeAsked {
		b = append(b, `,"included":`...)
		b = Many(d.Included).appendPrimary(b)
	}
	if d.Links != nil {
		if l := appendLinks(nil, d.Links); len(l) > 2 {
			b = append(b, `,"links":`...)
			b = append(b, l...)
		}
	}
	return append(b, '}')
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
	if r.Self != "" {
		b = append(b, `,"links":{"self":`...)
		b = AppendString(b, r.Self)
		b = append(b, '}')
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
			b = rel.appendJSON(b)
		}
		b = append(b, '}')
	}
	return append(b, '}')
}

func (rel *RelationshipObject) appendJSON(b []byte) []byte {
	b = append(b, `{"data":`...)
	switch {
	case rel.ToMany:
		b = ToMany(rel.Data).appendPrimary(b)
	case len(rel.Data) == 0:
		b = append(b, "null"...)
	default:
		b = appendIdentifier(b, rel.Data[0])
	}
	if rel.Self != "" || rel.Related != "" {
		b = append(b, `,"links":`...)
		b = appendLinks(b, &Links{Self: rel.Self, Related: rel.Related})
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
	for _, m := range [...]struct{ name, url string }{
		{"self", l.Self}, {"related", l.Related}, {"first", l.First},
		{"prev", l.Prev}, {"next", l.Next}, {"last", l.Last},
	} {
		if m.url == "" {
			continue
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = AppendString(b, m.name)
		b = append(b, ':')
		b = AppendString(b, m.url)
	}
	return append(b, '}')
}
