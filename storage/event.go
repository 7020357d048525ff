package storage

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/uptrace/bun"
)

// Change events (issue 19, migration 0011): a change of a record records one
// event in the transaction of the change, so that a rolled-back change
// leaves none and a committed one always has its own. Events are thin: the
// names of what changed, never the values; a consumer reads the record.

// The actions of an event.
const (
	EventCreated = "created"
	EventUpdated = "updated"
	EventDeleted = "deleted"
)

// eventsTable is the table of the feed.
const eventsTable = "events"

// ChangeEvent is a row of the feed, as GET /admin/api/events serves it. Its
// ID is its position in the feed (see eventfeed.go).
type ChangeEvent struct {
	bun.BaseModel `bun:"table:events"`

	ID                   int64           `bun:"id,pk,autoincrement"`
	OrganizationID       int64           `bun:"organization_id,notnull"`
	ResourceType         string          `bun:"resource_type,notnull"`
	ResourceID           string          `bun:"resource_id,notnull"`
	Action               string          `bun:"action,notnull"`
	ChangedAttributes    json.RawMessage `bun:"changed_attributes,notnull"`
	ChangedRelationships json.RawMessage `bun:"changed_relationships,notnull"`
	Version              *int64          `bun:"version"`
	ClientID             *string         `bun:"client_id"`
	UserID               *int64          `bun:"user_id"`
	OccurredAt           time.Time       `bun:"occurred_at,notnull"`
}

// Event is one change to record (RecordEvents).
type Event struct {
	Org    int64
	Type   string // the resource type of the record
	Action string // EventCreated, EventUpdated or EventDeleted
	// Table and Key name the record. The event's version is Version when
	// set, else read from the record's row as the statement that records the
	// event finds it (the row's version once every write before it in the
	// transaction is done); a table without versions gives none.
	Table   *Table
	Key     any
	Version *int64
	// Attributes and Relationships name what the change set (nil: nothing).
	Attributes, Relationships []string
	Client                    string // the acting client ("": none known)
	User                      int64  // the acting user (0: none)
}

// eventColumns are the columns RecordEvents writes, in its VALUES order.
var eventColumns = []string{"organization_id", "resource_type", "resource_id", "action",
	"changed_attributes", "changed_relationships", "version", "client_id", "user_id", "occurred_at"}

// eventsPerStatement bounds the rows of one INSERT (11 parameters each at
// most, within MaxParams).
const eventsPerStatement = 2000

// RecordEvents writes events in c's transaction, with one multi-row INSERT
// (per 2,000 events). Outside a transaction it refuses: an event committed
// apart from its change could outlive a change that rolled back.
func (c *Conn) RecordEvents(ctx context.Context, events []Event) error {
	if len(events) == 0 {
		return nil
	}
	if c.tx == nil {
		return fmt.Errorf("storage: events are recorded only in the transaction of their change")
	}
	table := c.s.f.EventsInsert
	if rows, ok := c.eventCopyRows(events); ok {
		return c.s.mapError("insert", table, c.copyRows(ctx, table, eventColumns, rows))
	}
	at, _ := toSQL(KindTime, now(), true)
	for start := 0; start < len(events); start += eventsPerStatement {
		var st sqlText
		st.add("INSERT INTO ? (", bun.Ident(table))
		st.idents(eventColumns)
		st.add(") VALUES ")
		for i, ev := range events[start:min(start+eventsPerStatement, len(events))] {
			if i > 0 {
				st.add(", ")
			}
			if err := addEventValues(&st, ev, at); err != nil {
				return err
			}
		}
		if _, err := c.exec(ctx, &st); err != nil {
			return c.s.mapError("insert", table, err)
		}
	}
	return nil
}

// recordRunEvents records c.note for each row of t whose key is in
// first..last, the run of keys InsertMany reserved on SQLite for the rows
// it has just inserted (no other row can have one: they follow the
// largest key, under the write lock), with one INSERT ... SELECT that
// takes each key and version from its row, in key order, which is the
// rows' order.
func (c *Conn) recordRunEvents(ctx context.Context, t *Table, org int64, first, last int64) error {
	ev := c.note
	var client, user any
	if ev.Client != "" {
		client = ev.Client
	}
	if ev.User != 0 {
		user = ev.User
	}
	var st sqlText
	st.add("INSERT INTO ? (", bun.Ident("events"))
	st.idents(eventColumns)
	st.add(") SELECT ?, ?, CAST(? AS TEXT), ?, ?, ?, ", ev.Org, ev.Type, bun.Ident(t.Key), ev.Action,
		namesText(ev.Attributes), namesText(ev.Relationships))
	if t.Versioned {
		st.add("?", bun.Ident(VersionColumn))
	} else {
		st.add("NULL")
	}
	st.add(", ?, ?, ? FROM ? WHERE ? BETWEEN ? AND ?", client, user, now().UTC().Truncate(time.Second),
		bun.Ident(t.Name), bun.Ident(t.Key), first, last)
	if t.Scoped {
		st.add(" AND ? = ?", bun.Ident(orgColumn), org)
	}
	st.add(" ORDER BY ?", bun.Ident(t.Key))
	res, err := c.exec(ctx, &st)
	if err != nil {
		return c.s.mapError("insert", "events", err)
	}
	if n, err := res.RowsAffected(); err != nil || n != last-first+1 {
		return fmt.Errorf("storage: %d change events for the %d rows of %s inserted (%v)", n, last-first+1, t.Name, err)
	}
	return nil
}

// eventCopyRows are events as the rows of a COPY (PostgreSQL, in a
// transaction, many events whose versions are known: a batch chunk of
// creates), or false when they go with an INSERT.
func (c *Conn) eventCopyRows(events []Event) ([][]any, bool) {
	if c.txConn == nil || len(events) < copyMinRows {
		return nil, false
	}
	at := now().UTC().Truncate(time.Second)
	rows := make([][]any, len(events))
	for i, ev := range events {
		var version, client, user any
		switch {
		case ev.Version != nil:
			version = *ev.Version
		case ev.Table != nil && ev.Table.Versioned:
			return nil, false // read from the row: INSERT ... SELECT
		}
		if ev.Client != "" {
			client = ev.Client
		}
		if ev.User != 0 {
			user = ev.User
		}
		rows[i] = []any{ev.Org, ev.Type, keyText(ev.Key), ev.Action, namesText(ev.Attributes),
			namesText(ev.Relationships), version, client, user, at}
	}
	return rows, true
}

// addEventValues appends the VALUES tuple of one event.
func addEventValues(st *sqlText, ev Event, at any) error {
	attrs, err := nameList(ev.Attributes)
	if err != nil {
		return err
	}
	rels, err := nameList(ev.Relationships)
	if err != nil {
		return err
	}
	var client, user any
	if ev.Client != "" {
		client = ev.Client
	}
	if ev.User != 0 {
		user = ev.User
	}
	st.add("(?, ?, ?, ?, ?, ?, ", ev.Org, ev.Type, keyText(ev.Key), ev.Action, attrs, rels)
	switch {
	case ev.Version != nil:
		st.add("?", *ev.Version)
	case ev.Table != nil && ev.Table.Versioned:
		key, err := toSQL(ev.Table.Columns[ev.Table.Key], ev.Key, false)
		if err != nil {
			return fmt.Errorf("storage: event of %s: key: %w", ev.Table.Name, err)
		}
		st.add("(SELECT ? FROM ?", bun.Ident(VersionColumn), bun.Ident(ev.Table.Name))
		keyWhere(st, ev.Table, ev.Org, key)
		st.add(")")
	default:
		st.add("NULL")
	}
	st.add(", ?, ?, ?)", client, user, at)
	return nil
}

// nameList is the JSON array of names an event stores ([] for none).
func nameList(names []string) (any, error) {
	if names == nil {
		names = []string{}
	}
	return toSQL(KindJSON, names, true)
}

// keyText is a record's key as an event names it: the resource identifier.
func keyText(key any) string {
	switch k := deref(key).(type) {
	case string:
		return k
	case int64:
		return strconv.FormatInt(k, 10)
	}
	return fmt.Sprint(deref(key))
}
