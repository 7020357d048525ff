// Package storage keeps entityapi's records in SQLite (the embedded default) or
// PostgreSQL through Bun. It offers generic, table-described queries so that one
// engine above it can serve every resource: tables are declared once as Bun models
// (models.go) and created by migrations; column names come only from those
// declarations, and values reach SQL only as Bun arguments or as bound
// parameters (statement.go), never concatenated by hand.
//
// storage knows nothing of HTTP, JSON:API or the generated code. The records
// that only typed queries touch live beside it, on its connections,
// transactions and errors (seam.go): batch operations and their job queue in
// storage/jobs, clients, principals, signing keys and failure counts in
// storage/authstore. storage imports neither; its migrations create their
// tables, so that there is one migration sequence.
package storage

import (
	"errors"
	"fmt"
	"strings"
)

// Kind is the type of a column's values as the generic queries see them.
type Kind int

// The kinds of column values. Values travel as: KindString string, KindInt int64,
// KindFloat float64, KindBool bool, KindTime time.Time (UTC, whole seconds),
// KindDate time.Time (midnight UTC), KindJSON json.RawMessage; NULL is nil.
const (
	KindString Kind = iota
	KindInt
	KindFloat
	KindBool
	KindTime
	KindDate
	KindJSON
)

// Table describes one table for the generic queries.
type Table struct {
	Name    string
	Key     string          // primary key column (unique per organization when Scoped)
	AutoKey bool            // the database generates Key (an integer)
	Scoped  bool            // rows belong to an organization (column organization_id)
	Columns map[string]Kind // every column except organization_id
	Order   []string        // the columns in declaration order
	// Versioned: the table has the version column (KindInt) that every
	// change of a row increments (version.go); reads return it like any
	// other column, writes never take it from a Row.
	Versioned bool
}

// Row is one record: column name to value (see Kind for the Go types).
type Row map[string]any

// Op is a comparison in a condition.
type Op int

// The comparisons. Eq and Neq take any number of values (IN / NOT IN); Range takes
// two (both ends included); Exists takes none (IS NOT NULL), NotExists none (IS NULL);
// NeqOrNull is Neq that also matches NULL; Contains, StartsWith and EndsWith take
// one string (LIKE, with %, _ and \ in the value escaped) and have Not... forms.
// Empty takes none and matches NULL or the empty value (the empty string, [] or
// {} for JSON; other kinds have only NULL); NotEmpty matches the rest.
// Range, NotRange and NotRangeOrNull take pairs of ends: Range matches a value in
// any of the ranges, NotRange one in none of them, NotRangeOrNull also NULL.
//
// With Cond.Via the values are keys of related rows and the operators mean:
// Eq has any of them, Neq and NeqOrNull has none of them (rows without related
// rows included), Contains has all of them, NotContains not all of them,
// Exists (and NotEmpty) has a related row, NotExists (and Empty) has none.
const (
	Eq Op = iota
	Neq
	Lt
	Lte
	Gt
	Gte
	Range
	NotRange
	Exists
	NotExists
	NeqOrNull
	Contains
	NotContains
	StartsWith
	NotStartsWith
	EndsWith
	NotEndsWith
	Empty
	NotEmpty
	NotRangeOrNull
	// Match takes one Search and matches the rows that hold its words, by
	// the table's full-text index (search.go); Column is "".
	Match
)

// Cond is one condition on a column of the queried table. All conditions of a
// query must hold (AND). Column may be organization_id on a Scoped table
// (filtering by the organization relationship).
type Cond struct {
	Column string
	Op     Op
	Values []any
	Via    *Via // nil: Column is tested; else related rows are (Column is then "" or the key)
	// Path, when set, makes Column a column of the rows at the path's end
	// (the related records' field of filter[owner.username]): any of them
	// matches, or, for a negated operator, none does (pathCond, path.go).
	Path []Hop
}

// Via makes a condition test related rows instead of a column: the queried row's key
// is looked up in Table.Column, and the related key is Table.Target.
//
// Table is a table or a join table. For a join table (account_contacts seen
// from accounts) Column is the side of the queried row and Target the other;
// for an inverse foreign key (the users of a business unit) Table is the
// referring table, Column its foreign key and Target its key. Column may be
// organization_id when Table is Scoped (the users of an organization). The
// related rows are not limited to the query's organization: links never
// cross organizations.
type Via struct {
	Table, Column, Target string
}

// JoinTable links rows of two tables (many-to-many); its rows carry no organization:
// callers check that both ends are visible before linking.
type JoinTable struct {
	Name        string
	Left, Right string // the two key columns, in declaration order
	LeftKind    Kind
	RightKind   Kind
}

// Order sorts by one column: of the queried table, or, with Path (to-one
// hops only), of the row the path reaches (sort=owner.username).
type Order struct {
	Column string
	Desc   bool
	Path   []Hop
}

// Query selects rows of one table within one organization (Org is ignored for
// tables that are not Scoped).
type Query struct {
	Table *Table
	// Columns are the columns Find reads into each Row, in this order; nil
	// reads every column of Table.Order. A read that shows only part of a
	// record names that part, so that the rest (such as a name in the
	// languages the request did not ask for) is neither sent by the
	// database nor scanned. A name outside Table.Columns is an error.
	Columns []string
	Org     int64
	Where   []Cond
	OrderBy []Order
	Limit   int // 0: no limit
	Offset  int
	// Seek, when not nil, keeps only the rows that come strictly after
	// these values in the query's order (Ordering(Table, OrderBy): one
	// value per column, the key last), or before them with Backward: a
	// page read by key, which the database finds through an index however
	// deep it is, where Offset reads and drops every row before it.
	Seek []any
	// Backward reads the order from its end (with Seek: the rows before
	// it), so that Limit takes the rows nearest the end or the position;
	// Find still returns them in the query's order. Offset must be 0.
	Backward bool
}

// ErrNotFound reports that no row has the given key (in the organization).
var ErrNotFound = errors.New("storage: not found")

// ErrTooMany reports a delete that would remove more rows than allowed.
var ErrTooMany = errors.New("storage: too many rows")

// UniqueError reports a write that would duplicate a unique value.
type UniqueError struct {
	Table   string
	Columns []string // the unique columns, organization_id left out
}

func (e *UniqueError) Error() string {
	return fmt.Sprintf("storage: duplicate value of %s.%s", e.Table, strings.Join(e.Columns, ","))
}

// ForeignKeyError reports a write that refers to a row that does not exist.
type ForeignKeyError struct {
	Table string
}

func (e *ForeignKeyError) Error() string {
	return fmt.Sprintf("storage: %s refers to a missing row", e.Table)
}
