package dialect

import (
	"context"
	"database/sql/driver"
	"encoding/json"
	"strconv"
)

// The audit history (issue 33, docs/audit.md): every change of a record of an
// entity table, through whatever statement makes it, writes an audit row in
// that statement, with each changed field's old and new value. The dialects
// write it with triggers on the tables (PostgreSQL: statement triggers over
// transition tables, kept in the schema; SQLite: row triggers on each
// connection, as the note triggers are), from the description here, which
// the store makes from the documents' resources (storage/audit.go). Who made
// the change comes from the actor the store hands the database for the
// statement or transaction (Actor), never from the row.

// AuditsTable is the table the triggers write (migration 0021).
const AuditsTable = "audits"

// The actions of an audit row, Oro's words.
const (
	AuditCreate = "create"
	AuditUpdate = "update"
	AuditRemove = "remove"
)

// The data types an audit field names (the wire's AuditField.dataType).
const (
	AuditString     = "string"
	AuditInteger    = "integer"
	AuditNumber     = "number"
	AuditBoolean    = "boolean"
	AuditDate       = "date"
	AuditDateTime   = "datetime"
	AuditJSON       = "json"
	AuditReference  = "reference"  // a to-one relationship: the related id
	AuditCollection = "collection" // a to-many relationship: ids added and removed
	AuditSecret     = "secret"     // changed, its values never recorded
)

// Audit describes what the triggers record.
type Audit struct {
	Tables []AuditTable
	Joins  []AuditJoin
}

// AuditTable is an entity table whose row changes are audited.
type AuditTable struct {
	Table, Type string // the table and the resource type its rows are
	Key         string // the key column, the resource identifier
	// Org is the column that holds the organization of a row, its audit
	// row's: organization_id, or the key of the organizations themselves;
	// "" for records of no organization, whose audit rows are the actor's.
	Org    string
	Fields []AuditField
}

// AuditField is a column an audit names, as the field of the API it is.
type AuditField struct {
	Column, Field string
	Type          string // one of the Audit* data types
}

// AuditJoin is a join table of a to-many relationship: each link added or
// removed is an update of the owner's relationship.
type AuditJoin struct {
	Table         string
	Type, Field   string // the owner's resource type and relationship
	Owner, Member string // the join table's columns: the owner's key, the member's
	// OwnerTable is the owner's table, OwnerKey its key and OwnerOrg its
	// AuditTable.Org (the audit's organization when no actor says).
	OwnerTable, OwnerKey, OwnerOrg string
}

// ActorFields is how many values an Actor carries to the database.
const ActorFields = 4

// Actor is who makes the writes of a statement or transaction, as the audit
// rows record it: the organization, the OAuth 2.0 client, the user (nil:
// none) and the request's id, in this order.
type Actor [ActorFields]driver.Value

// Actors is implemented by a dialect whose triggers read the actor from the
// process (SQLite's DB): the store sets it while it holds the write slot,
// so the one writer of the process is the only one that meets it.
type Actors interface {
	// Act makes a the actor of the writes that follow (nil: none) and
	// returns the one it replaces.
	Act(a *Actor) (previous *Actor)
}

// AuditInstaller is implemented by a dialect whose audit triggers live in
// the schema (PostgreSQL): the store installs them after its migrations,
// under their lock. A dialect whose triggers live on each connection
// installs them with the note triggers instead (Notes.Audit).
type AuditInstaller interface {
	InstallAudit(ctx context.Context, a *Audit) error
}

// InsertAuditor is implemented by a dialect whose bulk connection (the one
// batch chunks write on) has no audit trigger on the inserts of entity
// tables: a row trigger runs for each row of a multi-row INSERT, and on
// SQLite it cost a batch's inserts a third of their time. The store writes
// the audit rows of the rows it inserts there itself, in the same
// transaction, with the statement InsertedAudits begins.
type InsertAuditor interface {
	// InsertedAudits is the start of the statement that writes the audit
	// rows of t's rows as the insert trigger would, ending in "WHERE ": the
	// store adds which rows (of the alias InsertedRow). Its four bind marks
	// (?) are, in this order, the actor's organization (the audit row's
	// when t has no Org), client, user and request.
	InsertedAudits(t AuditTable) string
}

// InsertedRow is the alias of the inserted rows in InsertedAudits.
const InsertedRow = "r"

// EncodeActor is a as the text a dialect with Features.SetActor keeps it in:
// a JSON object of o (organization), c (client), u (user) and r (request),
// absent where a has none. Written by hand: it is made for every write.
func EncodeActor(a *Actor) string {
	b := make([]byte, 0, 96)
	b = append(b, '{')
	for i, k := range [ActorFields]string{"o", "c", "u", "r"} {
		if a[i] == nil {
			continue
		}
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = append(b, k...)
		b = append(b, '"', ':')
		switch v := a[i].(type) {
		case int64:
			b = strconv.AppendInt(b, v, 10)
		case string:
			q, _ := json.Marshal(v) // a string always encodes
			b = append(b, q...)
		}
	}
	return string(append(b, '}'))
}
