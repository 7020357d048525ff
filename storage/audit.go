package storage

import (
	"context"
	"time"

	"github.com/uptrace/bun"

	"github.com/entityapi/entityapi/storage/dialect"
)

// The audit history (issue 33; docs/audit.md): the dialect's triggers
// write an audit row for every change of a record of an entity table, in
// the statement of the change, from auditSpec (models.gen.go, made from the
// documents by scripts/genmodels). What the store adds is who makes the
// change: the Actor a request puts in its context (WithActor), which the
// store hands the database for each write (act, actorText):
//   - on SQLite, the process's one writer: set while the write slot is held
//     (a transaction, each single write of a group), read by the triggers
//     through entityapi_actor;
//   - on PostgreSQL, a transaction-scoped setting: set once after BEGIN,
//     and, for a single write in autocommit, in the write's own statement
//     (Features.ActorJoin), so that it costs no round trip.

// Actor is who makes a request's writes, as their audit rows name them.
type Actor struct {
	Org     int64
	Client  string // the OAuth 2.0 client ("": none)
	User    int64  // the user (0: none)
	Request string // the request's id (X-Request-ID)
}

// actorKey keys a context's Actor.
type actorKey struct{}

// WithActor is ctx whose writes are made by a. Every authenticated request
// carries one, reads too: it costs them one value in the context, and the
// database's form of it is made only for a write (actorOf).
func WithActor(ctx context.Context, a Actor) context.Context {
	return context.WithValue(ctx, actorKey{}, &a)
}

// ActorFrom is the actor WithActor put in ctx; false for none.
func ActorFrom(ctx context.Context) (Actor, bool) {
	a, ok := ctx.Value(actorKey{}).(*Actor)
	if !ok {
		return Actor{}, false
	}
	return *a, true
}

// actorOf is the actor ctx carries as the dialects take it, nil for none.
func actorOf(ctx context.Context) *dialect.Actor {
	a, ok := ctx.Value(actorKey{}).(*Actor)
	if !ok {
		return nil
	}
	v := dialect.Actor{a.Org, nil, nil, nil}
	if a.Client != "" {
		v[1] = a.Client
	}
	if a.User != 0 {
		v[2] = a.User
	}
	if a.Request != "" {
		v[3] = a.Request
	}
	return &v
}

// act makes ctx's actor the one the triggers of a dialect with
// dialect.Actors read, for a write made while the caller holds the write
// slot; the function it returns puts the previous one back. Elsewhere it
// does nothing.
func (s *Store) act(ctx context.Context) (restore func()) {
	if s.actors == nil {
		return func() {}
	}
	previous := s.actors.Act(actorOf(ctx))
	return func() { s.actors.Act(previous) }
}

// setActor gives ctx's actor to the transaction c has just begun, where
// the dialect keeps it in the transaction (Features.SetActor).
func (c *Conn) setActor(ctx context.Context) error {
	a := actorOf(ctx)
	if a == nil || c.s.f.SetActor == "" {
		return nil
	}
	var st sqlText
	st.add(c.s.f.SetActor, dialect.EncodeActor(a))
	_, err := c.exec(ctx, &st)
	return err
}

// actorJoin appends to out, a single write's event INSERT ending in its
// FROM, what sets ctx's actor in that statement (Features.ActorJoin).
func (c *Conn) actorJoin(ctx context.Context, out *sqlText) {
	if a := actorOf(ctx); a != nil && c.s.f.ActorJoin != "" && c.tx == nil {
		out.add(c.s.f.ActorJoin, dialect.EncodeActor(a))
	}
}

// webhookAudit is the audit of the webhooks (migration 0012,
// storage/jobs/webhooks.go), which no document describes as an entity
// (server/webhook serves them by hand) and so auditSpec does not list: a
// webhook says where the organization's changes are sent, and who pointed
// it elsewhere, or rotated its secret, is what an audit is asked first. Its
// fields are those an administrator sets (the secret a rotation makes: that
// it changed, never its value); the dispatcher's bookkeeping (failures,
// disabled_at, the previous secret) is not listed, so a failed delivery
// leaves no audit row, and a webhook the dispatcher disables leaves one of
// no actor (docs/audit.md).
var webhookAudit = dialect.AuditTable{Table: "webhooks", Type: "webhooks", Key: "id", Org: orgColumn,
	Fields: []dialect.AuditField{
		{Column: "url", Field: "url", Type: dialect.AuditString},
		{Column: "event_types", Field: "eventTypes", Type: dialect.AuditJSON},
		{Column: "enabled", Field: "enabled", Type: dialect.AuditBoolean},
		{Column: "secret", Field: "secret", Type: dialect.AuditSecret},
	}}

// audit is the description of the audit triggers of the store's tables:
// auditSpec's tables and joins that the store has, and the webhooks, whose
// table every migrated database has (PostgreSQL installs the triggers after
// the migrations; SQLite's connections skip the tables not there yet).
func (s *Store) audit() *dialect.Audit {
	a := &dialect.Audit{}
	for _, t := range auditSpec.Tables {
		if _, ok := s.tables[t.Table]; ok {
			a.Tables = append(a.Tables, t)
		}
	}
	if s.tables != nil {
		a.Tables = append(a.Tables, webhookAudit)
	}
	for _, j := range auditSpec.Joins {
		if _, ok := s.joins[j.Table]; ok {
			a.Joins = append(a.Joins, j)
		}
	}
	return a
}

// installAudit installs the audit triggers where they live in the schema
// (dialect.AuditInstaller); on SQLite the connections get them (notes).
func (s *Store) installAudit(ctx context.Context) error {
	if in, ok := s.d.(dialect.AuditInstaller); ok {
		return in.InstallAudit(ctx, s.audit())
	}
	return nil
}

// DeleteAuditsBefore deletes the audit rows logged before t
// (--audit-retention) and returns how many. The newest row always stays, as
// the newest event does (DeleteEventsBefore): on SQLite an id is the rowid,
// which would start again from the largest one left, and a reader that
// follows the history by id (filter[id][gt]) would skip the rows that
// reuse it.
func (s *Store) DeleteAuditsBefore(ctx context.Context, t time.Time) (int, error) {
	var st sqlText
	st.add("DELETE FROM ? WHERE ? < ? AND ? < (SELECT max(?) FROM ?)", bun.Ident(dialect.AuditsTable), bun.Ident("logged_at"),
		t.UTC().Truncate(time.Second), bun.Ident("id"), bun.Ident("id"), bun.Ident(dialect.AuditsTable))
	return s.deleteCounted(ctx, dialect.AuditsTable, &st)
}
