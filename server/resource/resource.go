// Package resource reads what the generic engine needs to know about each resource
// from the OpenAPI document itself: the resource object schema gives the
// attributes, their types and the relationships; its x- extensions give the table,
// the columns, the filterable and sortable fields, the title, upsert criteria and
// batch support. The document stays the single source of truth.
package resource

import (
	"strings"
	"sync"
)

// FieldType is the JSON type of an attribute, refined by its format.
type FieldType int

// The attribute types the engine converts between JSON and storage values.
const (
	String FieldType = iota
	Integer
	Number
	Boolean
	DateTime
	Date
	JSON // objects and arrays, stored as JSON
)

// Resource describes one resource type of an application.
type Resource struct {
	Type     string
	Table    string
	Scoped   bool     // records belong to an organization
	Self     bool     // the resource is the organization itself: callers see only their own
	IDColumn string   // the column behind the resource identifier
	IntID    bool     // the identifier is a database-generated integer
	IDOps    []string // filter operators on id
	Title    []string // attributes whose values make the record's title
	Upsert   [][]string
	Batch    bool
	// Managed: managers may create and edit the records, not only
	// administrators (docs/decisions.md §8); x-entityapi managed: true.
	Managed bool
	// Readers are the only roles that may read the records (x-entityapi
	// readers: the change events); empty: every role.
	Readers []string
	// Feed: the records are a feed that grows at its end, numbered as they
	// commit (x-entityapi feed: the change events): reads number what has
	// committed first, and a forward cursor page always links to what
	// comes after it.
	Feed bool
	// Log: the records are a log the store writes itself (x-entityapi log:
	// the change events, the audit history); their changes are not
	// audited (storage/audit.go).
	Log bool
	// Batch chunk sizes from x-entityapi chunk (0: the defaults).
	ChunkSize, IncludedChunkSize int

	Attributes    []*Attribute // by name, createdAt and updatedAt last
	WriteOnly     []*Attribute // accepted in bodies, never answered (passwords)
	Relationships []*Relationship
	// Paths are the fields of related records the lists may be filtered and
	// sorted by, as declared (path.go).
	Paths []*Path
	// Search are the attributes whose words filter[searchText] finds, as
	// declared (search.go); none: the records are not searched.
	Search []*Attribute
	// SearchOpen: a view (For) lacks some searched attributes, and its
	// searches read the index of the attributes every reader sees
	// (docs/fields.md).
	SearchOpen bool
	attrs      map[string]*Attribute
	rels       map[string]*Relationship

	// Field-level permissions (fields.go): the attributes that name their
	// readers, and the views made for callers; a view knows the whole
	// resource (full) and what it hides.
	restricted []*Attribute
	views      *sync.Map // uint64 (hidden bits) -> *Resource
	full       *Resource
	hidden     uint64
}

// Attribute is one attribute of a resource.
type Attribute struct {
	Name      string
	Column    string
	Type      FieldType
	Nullable  bool
	ReadOnly  bool
	WriteOnly bool
	Filter    []string // operators; empty: not filterable
	List      bool     // a comma in a filter value separates values (non-string types always)
	Sort      bool
	// Localized maps a language code to the column holding the value in that
	// language (x-localized); Column is the default language's.
	Localized map[string]string
	// Aggregate lists the functions filter[aggregations] may apply to the
	// attribute (x-aggregate; see aggregate.go); empty: none.
	Aggregate []string
	// Readers are the only roles that may read the attribute (x-readers),
	// Writers the only ones that may write it (x-writers); empty: every
	// role that may read, or write, the records (fields.go).
	Readers, Writers []string
	// FieldsOf, on a log's list of a record's fields (an event's
	// changedAttributes, an audit's fields: x-fields-of), is the attribute
	// naming the record's type: a caller sees the fields of that type it
	// may read, no others.
	FieldsOf *Attribute
	fieldsOf string
}

// ColumnIn is the attribute's column for a language ("" or an unknown one:
// the default column).
func (a *Attribute) ColumnIn(lang string) string {
	if c, ok := a.Localized[lang]; ok {
		return c
	}
	return a.Column
}

// Relationship is one relationship of a resource. A to-one relationship is a
// column of the resource (or, for Organization, the caller's organization); a
// to-many one is either the inverse of the target's to-one relationship or a join
// table (Through).
type Relationship struct {
	Name         string
	Target       string // the related resource type
	ToMany       bool
	Column       string   // to-one: the column holding the related identifier
	Inverse      string   // to-many: the target's to-one relationship pointing back
	Through      *Through // to-many: the join table
	Organization bool     // the records' organization: always the caller's
	Filter       []string
	Sort         bool
}

// Through names a join table: Column refers to the owning resource, Target to
// the related one.
type Through struct {
	Table  string `json:"table"`
	Column string `json:"column"`
	Target string `json:"target"`
}

// Writable tells whether clients may change the relationship: to-one columns and
// join tables; inverse lists and the organization follow from other records.
func (rel *Relationship) Writable() bool {
	return !rel.Organization && (!rel.ToMany || rel.Through != nil)
}

// Attribute returns the attribute with the given name.
func (r *Resource) Attribute(name string) (*Attribute, bool) {
	a, ok := r.attrs[name]
	return a, ok
}

// Relationship returns the relationship with the given name.
func (r *Resource) Relationship(name string) (*Relationship, bool) {
	rel, ok := r.rels[name]
	return rel, ok
}

// Operators on each type when a field is filterable without naming operators
// (oro-behaviour §2.2): ordered types compare, the others test (in)equality.
var (
	orderedOps = []string{"eq", "neq", "lt", "lte", "gt", "gte", "exists", "neq_or_null"}
	equalOps   = []string{"eq", "neq", "exists", "neq_or_null"}
	stringOps  = []string{"eq", "neq", "exists", "neq_or_null", "contains", "not_contains",
		"starts_with", "not_starts_with", "ends_with", "not_ends_with", "empty"}
	toManyOps = []string{"eq", "neq", "exists", "neq_or_null", "contains", "not_contains"}
)

// DefaultOps returns the operators a field of this type gets by default.
func DefaultOps(t FieldType) []string {
	switch t {
	case Integer, Number, DateTime, Date:
		return orderedOps
	case JSON:
		return nil
	case String:
		return stringOps
	default:
		return equalOps
	}
}

// Column names follow the attribute names in snake case unless x-column says otherwise.
func snake(name string) string {
	var b strings.Builder
	for i, r := range name {
		if r >= 'A' && r <= 'Z' {
			if i > 0 {
				b.WriteByte('_')
			}
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}
