package dialect

import (
	"encoding/json"
	"time"
)

// TextTime is the single text form of times where they are stored as text
// (Features.TextValues: SQLite): UTC, space separated, no zone, as SQLite's
// own CURRENT_TIMESTAMP writes it. One fixed width form makes text
// comparison chronological; fractions (never written by the generic
// queries) still sort correctly after the whole second.
const TextTime = "2006-01-02 15:04:05.999999999"

// TextValue is v as a database whose values travel as text
// (Features.TextValues) receives it: times in TextTime, JSON and bytes as
// text (a driver would store bytes as a BLOB). The store binds its parameters
// with it, and a dialect that writes values into its own SQL uses it too, so
// that both give one text form.
func TextValue(v any) any {
	switch x := v.(type) {
	case time.Time:
		return x.UTC().Format(TextTime)
	case json.RawMessage:
		return string(x)
	case []byte:
		return string(x)
	}
	return v
}

// Features are what the generic SQL reads of a database while it writes a
// statement: capabilities (one writer, COPY, arrays as parameters) and the
// fragments whose text differs. They are plain values, read on the request
// path without a call.
type Features struct {
	// SystemName is the database's name as OpenTelemetry's db.system.name
	// attribute gives it ("sqlite", "postgresql"), for the spans of its
	// statements.
	SystemName string
	// OneWriter: the database takes one writer at a time (a SQLite file,
	// one process's).
	// The store queues its writers at its write slot and commits single
	// writes together (writegroup.go); keys InsertMany reserves follow the
	// largest one with no writer between; a login failure is counted in
	// memory rather than queued behind the writes.
	OneWriter bool
	// InProcess: the database runs in this process (a SQLite file): a
	// statement waits on no network, only on another writer's lock, which
	// the dialect bounds (busy_timeout). A short read may then go without
	// its caller's deadline, whose watch costs more than the read
	// (Store.ReferenceGeneration).
	InProcess bool
	// NumberedMarks: a statement's parameters are $1, $2... (else ?).
	NumberedMarks bool
	// InlineCounts: a LIMIT or OFFSET is written into the text rather than
	// bound (SQLite's planner weighs a LIMIT's value: see sqlCount).
	InlineCounts bool
	// TextValues: times (in TextTime) and JSON travel as text.
	TextValues bool
	// TimeColumn is how a time column ? is selected: SQLite's driver parses
	// a column declared as a time itself, trying a time.Time.String form
	// before the others on every value (allocating a parse error each
	// time), and the store reads the result again; there a unary plus (a
	// no-op on any value) hides the declared type, "+?", so the text
	// reaches the store, which reads it with the layout it writes first.
	// Elsewhere "?". It always ends with the mark.
	TimeColumn string
	// ArrayParams: a list of values is one array parameter; else it is one
	// JSON array (JSONList), or a list of marks when the values do not fit
	// one.
	ArrayParams bool
	// AnyOf and NoneOf are the conditions that ? is (is not) one of the
	// values of the list parameter ? (ArrayParams' array or JSONList's
	// array): on PostgreSQL = ANY / <> ALL, which the planner treats as an
	// IN list, so that the statement's text does not depend on how many
	// values there are.
	AnyOf, NoneOf string
	// JSONList, where lists are not arrays, is vals as the text of one
	// JSON array for AnyOf, NoneOf and KeysIn, and whether they all fit
	// one (else they are bound one mark each); nil where ArrayParams.
	JSONList func(vals []any) (string, bool)
	// KeysIn, where JSONList is set, follows "IN" or "NOT IN" in a
	// condition on the keys of related records looked up key by key from
	// JSONList's array; its marks are: the alias and the column read, the
	// array, the table and its alias, the alias and the column matched
	// with the array's values, then the alias and the column read twice
	// more (IS NOT NULL, ORDER BY).
	KeysIn string
	// InSubqueries: a correlated EXISTS runs again for every row (SQLite),
	// so a condition on related records that excludes them is written as
	// NOT IN (subquery) too, as the one that includes them always is.
	InSubqueries bool
	// Match is the condition that a row of the target's table holds the
	// words of a search, through the target's full-text index (PostgreSQL:
	// the GIN index of its search_vector column; SQLite: its FTS5 table
	// <table>_search): its text, with marks, and the arguments.
	Match func(t SearchTarget, q Search) (string, []any)
	// SearchHits is the SELECT of the key (k) and the relevance (score,
	// higher first) of each row of the target's table (in its organization
	// when Scoped) that holds the words of q, ranked by the database: its
	// text, with marks, and the arguments.
	SearchHits func(t SearchTarget, q Search) (string, []any)
	// SearchVector is the expression of a generated full-text column over
	// cols, in the text-search configuration the dialect was opened with,
	// where the dialect keeps such columns (PostgreSQL); nil where the index
	// is kept otherwise (SQLite's FTS5 tables and their triggers).
	SearchVector func(cols []string) string
	// NotedSearch, where the triggers of the full-text indexes only note
	// the records a write changed (SQLite: its table search_pending,
	// migration 0019), is the statement that writes the indexes from the
	// notes, and clears them; the store sends it before each write
	// transaction commits. "" where the database keeps its indexes in each
	// statement (PostgreSQL).
	NotedSearch string
	// SearchConfiguration is the text-search configuration the dialect's
	// statements and SearchVector use; "" where there is no such choice.
	SearchConfiguration string
	// OffsetWithoutLimit is written before an OFFSET that has no LIMIT
	// (SQLite accepts OFFSET only after one); "" where OFFSET stands alone.
	OffsetWithoutLimit string
	// NullsSmallest: NULL sorts before every value in ascending order;
	// the generic order then writes NULLS LAST (ascending) and NULLS FIRST
	// (descending) to sort as PostgreSQL does by itself.
	NullsSmallest bool
	// KeysArray is the aggregate gathering a group's member keys into a
	// JSON array: the column's identifier is written between its pieces.
	KeysArray []string
	// OrderedKeysArray: KeysArray's keys come in order (else each group's
	// keys are sorted after reading).
	OrderedKeysArray bool
	// EmptyJSON and NotEmptyJSON are the conditions that a JSON column is
	// NULL, [] or {}, and that it is none of them; ? is the column, twice.
	EmptyJSON, NotEmptyJSON string
	// RowLock follows a SELECT of a row a transaction will update; "" where
	// the write transaction already holds the database.
	RowLock string
	// LockKey takes a lock on the key ? until the transaction ends; ""
	// where the write transaction already holds the database's only lock.
	LockKey string
	// TryLockKey is LockKey that does not wait: it answers one boolean
	// row, false when another transaction holds the key; "" as LockKey.
	TryLockKey string
	// NoteTriggers: a single write records its change event through the
	// connection's triggers (SQLite has no writes in WITH); else the
	// write's statement is wrapped in EventWith's statement.
	NoteTriggers bool
	// EventWith, where NoteTriggers is false, is how a single write and
	// the insert of its change event go in one statement.
	EventWith EventWith
	// SetActor, where the audit triggers read who writes from the
	// transaction (PostgreSQL), is the statement that sets it: ? is the
	// actor's text (EncodeActor). "" where the dialect has Actors instead.
	SetActor string
	// ActorJoin, with SetActor, is appended to the FROM of a single
	// write's event INSERT (EventWith) to set the actor in that statement,
	// before its triggers fire: ? is the actor's text.
	ActorJoin string
	// EventsInsert is the table events are written to in the transaction
	// of their change; "event_outbox" is numbered into events afterwards
	// (SequenceEvents).
	EventsInsert string
	// SequenceEvents are the statements, run in one transaction, that
	// move the events of the outbox whose transactions have all ended into
	// the feed, numbered (storage's eventfeed.go); none where events
	// commit in the order they are inserted.
	SequenceEvents []string
	// Prepare: the store keeps its statements prepared itself (the
	// PostgreSQL driver prepares and caches them on its own).
	Prepare bool
	// LongInserts: a multi-row INSERT of many rows goes in statements as
	// long as its parameters allow (storage's insertRuns), not insertChunk
	// rows each. On SQLite every statement that writes a table with a
	// full-text index makes FTS5 write one more segment of it, which later
	// merges copy again, and there is no round trip that shorter
	// statements would spread: a batch's run of 3,000 records in one
	// INSERT rather than six went 13-15% faster (docs/speed.md, "The batch on
	// SQLite: one INSERT a run").
	LongInserts bool
	// OwnTxConn: a transaction runs on a connection the store holds, on
	// which COPY can be sent within it.
	OwnTxConn bool
	// NextKeys draws keys from a table's sequence: ? the table's name, its
	// key column's name, how many (one row each). "" where keys follow
	// LastKey instead.
	NextKeys string
	// LastKey is the largest key a table has had (where NextKeys is ""):
	// ? the table's name, its key column, the table. The one writer then
	// takes the keys that follow it.
	LastKey string
	// CustomPlan, put first among a statement's parameters, has the
	// statement planned for its values (pgx's describe-exec mode), which
	// a long array parameter asks for (storage's customPlanArray).
	CustomPlan any
	// HasTable counts the tables of the current schema named ?.
	HasTable string
	// WALPosition and ReplayPosition are expressions of a primary's write
	// position in its log and of a streaming replica's replayed position,
	// as integers comparable with each other (storage's replica.go); ""
	// where the database has no replicas.
	WALPosition, ReplayPosition string
}

// EventWith is how a write of one row ending in RETURNING and the insert of
// its change event go in one statement, a data-modifying WITH (PostgreSQL's):
// the write is named w, and the event's INSERT reads the row w returns (its
// key, and version where the table has one). The store writes the pieces in
// order around its own parts.
type EventWith struct {
	// Write goes before the write, between it and the event's INSERT, and
	// after the INSERT; the statement answers w's row.
	Write [3]string
	// Delete goes before a DELETE, whose RETURNING the store adds, and
	// between it and the event's INSERT; the statement's row count is the
	// INSERT's, which is the deleted row's.
	Delete [2]string
	// Insert is the event's INSERT from w: before the events table (its
	// first mark) and event columns, after them (marks: the organization,
	// the resource type, w's key column, the action, the changed
	// attributes and relationships), and after the version (w's version
	// column, or NULL), with marks for the client, the user and the time.
	Insert [3]string
}
