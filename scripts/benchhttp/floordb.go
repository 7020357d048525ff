package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	_ "modernc.org/sqlite"
)

// The floors' database access, written the way a careful engineer would:
// every statement prepared once (pgx's statement cache on PostgreSQL,
// database/sql statements on SQLite), values only as bound parameters, the
// same pool sizes as the service, and on SQLite one writer at a time.

// sqlitePragmas are the service's (storage/open.go): the floor must read and
// write the file as the service does (WAL, case-sensitive LIKE, ...).
const sqlitePragmas = "_pragma=foreign_keys(1)&_pragma=journal_mode(WAL)&_pragma=busy_timeout(10000)" +
	"&_pragma=synchronous(NORMAL)&_pragma=case_sensitive_like(1)&_txlock=immediate"

const (
	sqliteConns   = 4  // storage's sqliteReadConns
	postgresConns = 20 // storage's minPoolConns
)

// rows is what both drivers' result sets have in common.
type rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
	Close()
}

type sqlRows struct{ *sql.Rows }

func (r sqlRows) Close() { _ = r.Rows.Close() }

// querier runs a named statement, in or out of a transaction.
type querier interface {
	query(ctx context.Context, name string, args ...any) (rows, error)
}

// floorDB is one database of the floors.
type floorDB struct {
	dialect string
	text    map[string]string // statement name: SQL

	pool *pgxpool.Pool // PostgreSQL

	sqldb   *sql.DB              // SQLite
	stmts   map[string]*sql.Stmt // SQLite, prepared at open
	writeMu sync.Mutex           // SQLite: one writer at a time, as the service

	// SQLite prepares a statement with a bound LIMIT again at every run (its
	// planner weighs the value), so its page statements carry the count in
	// their text, one prepared statement per count (as the service does).
	pagedMu sync.Mutex
	paged   map[string]*sql.Stmt
}

// pagedStatements are the statements whose last parameter is a LIMIT.
var pagedStatements = map[string]bool{"regionsPage": true, "contactsPage": true, "contactsStartingWith": true, "contactsOwnedBy": true, "search": true}

// openFloorDB opens the service's database: url is a postgres:// URL, or ""
// with path the SQLite file.
func openFloorDB(ctx context.Context, url, path string) (*floorDB, error) {
	d := &floorDB{dialect: "postgres"}
	if url == "" {
		d.dialect = "sqlite"
	}
	d.text = statements(d.dialect)
	if d.dialect == "postgres" {
		cfg, err := pgxpool.ParseConfig(url)
		if err != nil {
			return nil, err
		}
		cfg.MaxConns = postgresConns
		if d.pool, err = pgxpool.NewWithConfig(ctx, cfg); err != nil {
			return nil, err
		}
		return d, nil
	}
	var err error
	if d.sqldb, err = sql.Open("sqlite", "file:"+path+"?"+sqlitePragmas); err != nil {
		return nil, err
	}
	d.sqldb.SetMaxOpenConns(sqliteConns)
	d.sqldb.SetMaxIdleConns(sqliteConns)
	d.stmts = map[string]*sql.Stmt{}
	for name, text := range d.text {
		if d.stmts[name], err = d.sqldb.PrepareContext(ctx, text); err != nil {
			d.close()
			return nil, fmt.Errorf("prepare %s: %w", name, err)
		}
	}
	return d, nil
}

func (d *floorDB) close() {
	if d.pool != nil {
		d.pool.Close()
	}
	for _, s := range d.stmts {
		_ = s.Close()
	}
	for _, s := range d.paged {
		_ = s.Close()
	}
	if d.sqldb != nil {
		_ = d.sqldb.Close()
	}
}

func (d *floorDB) query(ctx context.Context, name string, args ...any) (rows, error) {
	if d.pool != nil {
		return d.pool.Query(ctx, d.text[name], args...)
	}
	stmt := d.stmts[name]
	if pagedStatements[name] {
		limit := args[len(args)-1].(int)
		var err error
		if stmt, err = d.pagedStatement(ctx, name, limit); err != nil {
			return nil, err
		}
		args = args[:len(args)-1]
	}
	r, err := stmt.QueryContext(ctx, args...)
	if err != nil {
		return nil, err
	}
	return sqlRows{r}, nil
}

// pagedStatement is SQLite's statement name with its LIMIT written as limit.
func (d *floorDB) pagedStatement(ctx context.Context, name string, limit int) (*sql.Stmt, error) {
	key := name + " " + strconv.Itoa(limit)
	d.pagedMu.Lock()
	defer d.pagedMu.Unlock()
	if stmt, ok := d.paged[key]; ok {
		return stmt, nil
	}
	text := d.text[name]
	i := strings.LastIndex(text, "LIMIT ?")
	stmt, err := d.sqldb.PrepareContext(ctx, text[:i]+"LIMIT "+strconv.Itoa(limit))
	if err != nil {
		return nil, fmt.Errorf("prepare %s: %w", key, err)
	}
	if d.paged == nil {
		d.paged = map[string]*sql.Stmt{}
	}
	d.paged[key] = stmt
	return stmt, nil
}

// tx runs fn in one transaction.
func (d *floorDB) tx(ctx context.Context, fn func(q querier) error) error {
	if d.pool != nil {
		return d.inPgxTx(ctx, func(tx pgx.Tx) error { return fn(pgxTx{tx, d.text}) })
	}
	return d.inSQLiteTx(ctx, func(tx *sql.Tx) error { return fn(sqlTx{tx, d.stmts}) })
}

// inPgxTx runs fn in one PostgreSQL transaction, committed if fn succeeds and
// rolled back otherwise. The floors' writes and the batch target's raw
// INSERT and COPY share it.
func (d *floorDB) inPgxTx(ctx context.Context, fn func(tx pgx.Tx) error) error {
	tx, err := d.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// inSQLiteTx is inPgxTx on SQLite, where it also holds writeMu for the whole
// transaction: one writer at a time, as the service.
func (d *floorDB) inSQLiteTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	d.writeMu.Lock()
	defer d.writeMu.Unlock()
	tx, err := d.sqldb.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit()
}

type pgxTx struct {
	tx   pgx.Tx
	text map[string]string
}

func (t pgxTx) query(ctx context.Context, name string, args ...any) (rows, error) {
	return t.tx.Query(ctx, t.text[name], args...)
}

type sqlTx struct {
	tx    *sql.Tx
	stmts map[string]*sql.Stmt
}

func (t sqlTx) query(ctx context.Context, name string, args ...any) (rows, error) {
	r, err := t.tx.StmtContext(ctx, t.stmts[name]).QueryContext(ctx, args...)
	if err != nil {
		return nil, err
	}
	return sqlRows{r}, nil
}

// ids is a list of keys as one bound parameter: an array on PostgreSQL, a
// JSON array for json_each on SQLite.
func (d *floorDB) ids(ids []int64) any {
	if d.dialect == "postgres" {
		return ids
	}
	b := make([]byte, 0, 8*len(ids)+2)
	b = append(b, '[')
	for i, id := range ids {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, id, 10)
	}
	return string(append(b, ']'))
}

// timeArg is a point in time as the service stores it.
func (d *floorDB) timeArg(t time.Time) any {
	t = t.UTC().Truncate(time.Second)
	if d.dialect == "postgres" {
		return t
	}
	return t.Format(sqliteTimeLayout)
}

// linkIDs reads the contacts linkage the UPDATE returns on SQLite: a JSON
// array.
type linkIDs struct{ Value []int64 }

func (l *linkIDs) Scan(v any) error {
	switch x := v.(type) {
	case nil:
		l.Value = nil
		return nil
	case []byte:
		return json.Unmarshal(x, &l.Value)
	case string:
		return json.Unmarshal([]byte(x), &l.Value)
	}
	return fmt.Errorf("linkage of %T", v)
}

// The columns the floors read, in the order their scanners expect.
const (
	contactColumns = "id, name_prefix, first_name, middle_name, last_name, name_suffix, gender, birthday, description, " +
		"job_title, emails, phones, primary_email, primary_phone, external_id, owner_id, assigned_to_id, reports_to_id, " +
		"created_at, updated_at"
	accountColumns = "id, name, external_id, owner_id, default_contact_id, referred_by_id, created_at, updated_at"
	userColumns    = "id, username, email, first_name, last_name, name_prefix, middle_name, name_suffix, phone, title, " +
		"google_id, birthday, enabled, emails, external_id, last_login, login_count, owner_id, created_at, updated_at"
)

// statements is the floors' SQL for dialect, written with $N placeholders
// (?N on SQLite). A list of keys is one parameter: an array on PostgreSQL
// (= ANY), a JSON array on SQLite, joined through json_each so that each key
// is one index lookup (SQLite plans "id IN (SELECT value FROM json_each(?))"
// as a scan of the table).
func statements(dialect string) map[string]string {
	text := map[string]string{
		"country":        `SELECT code, iso3, name_en FROM countries WHERE code = $1`,
		"countryRegions": `SELECT code FROM regions WHERE country_code = $1 ORDER BY code`,
		"regionsPage":    `SELECT code, country_code, sub_code, name_en FROM regions ORDER BY code LIMIT $1`,
		"contactsPage":   `SELECT ` + contactColumns + ` FROM contacts WHERE organization_id = $1 ORDER BY id LIMIT $2`,
		"contactsStartingWith": `SELECT ` + contactColumns + ` FROM contacts WHERE organization_id = $1 ` +
			`AND last_name LIKE $2 ESCAPE '!' ORDER BY created_at DESC, last_name, id LIMIT $3`,
		"contactsOwnedBy": `SELECT ` + contactColumns + ` FROM contacts WHERE organization_id = $1 ` +
			`AND owner_id IN (SELECT id FROM users WHERE organization_id = $2 AND username = $3) ORDER BY id LIMIT $4`,
		"search": searchStatement(dialect),
		// SQLite: the full-text index of the records a transaction wrote,
		// from the triggers' notes, as the service writes it before it
		// commits (its migration 0019); PostgreSQL keeps its index itself
		// and never runs it.
		"writeSearchNotes": `DELETE FROM search_pending`,
		"insertAccount": `INSERT INTO accounts (organization_id, name, external_id, created_at, updated_at) ` +
			`VALUES ($1, $2, $3, $4, $4) RETURNING ` + accountColumns,
	}
	keyed := map[string]struct{ table, key, columns, where, order string }{
		"accountsOfContacts": {"account_contacts", "contact_id", "contact_id, account_id", "", "contact_id, account_id"},
		"contactsOfAccounts": {"account_contacts", "account_id", "account_id, contact_id", "", "account_id, contact_id"},
		"accounts":           {"accounts", "id", accountColumns, "organization_id = $1", "id"},
		"users":              {"users", "id", userColumns, "organization_id = $1", "id"},
		"contactTitles":      {"contacts", "id", "id, first_name, last_name", "organization_id = $1", "id"},
		"rolesOfUsers":       {"user_userroles", "user_id", "user_id, role_code", "", "user_id, role_code"},
	}
	for name, k := range keyed {
		keys := "$1"
		if k.where != "" {
			keys = "$2"
		}
		if dialect == "postgres" {
			where := k.key + " = ANY(" + keys + ")"
			if k.where != "" {
				where = k.where + " AND " + where
			}
			text[name] = "SELECT " + k.columns + " FROM " + k.table + " WHERE " + where + " ORDER BY " + k.order
			continue
		}
		t := "SELECT " + qualify(k.columns, "t") + " FROM json_each(" + keys + ") AS k CROSS JOIN " + k.table +
			" AS t ON t." + k.key + " = k.value"
		if k.where != "" {
			t += " WHERE t." + k.where
		}
		text[name] = t + " ORDER BY " + qualify(k.order, "t")
	}
	contactIDs := `SELECT coalesce(array_agg(contact_id ORDER BY contact_id), '{}') ` +
		`FROM account_contacts WHERE account_id = accounts.id`
	if dialect == "sqlite" {
		contactIDs = `SELECT json_group_array(contact_id) FROM (SELECT contact_id FROM account_contacts ` +
			`WHERE account_id = accounts.id ORDER BY contact_id)`
	}
	// The change events (issue 19) the event floors record: into the outbox
	// on PostgreSQL, the feed on SQLite, as the service does.
	events := "events"
	if dialect == "postgres" {
		events = "event_outbox"
	}
	eventColumns := "organization_id, resource_type, resource_id, action, changed_attributes, changed_relationships, " +
		"version, client_id, user_id, occurred_at"
	text["insertEvent"] = `INSERT INTO ` + events + ` (` + eventColumns + `) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`
	text["lastAccount"] = `SELECT coalesce(max(id), 0) FROM accounts`
	text["accountEventsAfter"] = `INSERT INTO ` + events + ` (` + eventColumns + `) SELECT organization_id, 'accounts', ` +
		`CAST(id AS TEXT), 'created', '["name"]', '[]', 1, NULL, NULL, $2 FROM accounts WHERE organization_id = $1 AND id > $3 ORDER BY id`
	// The audit rows (issue 33) of the batch's creates, which the event
	// floors write on SQLite as the service's triggers do; on PostgreSQL the
	// audit triggers are in the schema and write them for every floor's
	// rows, as for the service's.
	text["accountAuditsAfter"] = `INSERT INTO audits (organization_id, resource_type, resource_id, action, fields, ` +
		`client_id, user_id, request_id, logged_at) SELECT organization_id, 'accounts', CAST(id AS TEXT), 'create', ` +
		`json_array(json_object('field', 'name', 'dataType', 'string', 'oldValue', NULL, 'newValue', name)), NULL, NULL, NULL, $2 ` +
		`FROM accounts WHERE organization_id = $1 AND id > $3 ORDER BY id`
	text["updateAccount"] = `UPDATE accounts SET name = $1, updated_at = $2 WHERE id = $3 AND organization_id = $4 ` +
		`RETURNING ` + accountColumns + `, (` + contactIDs + `)`
	if dialect == "sqlite" {
		for name, t := range text {
			text[name] = placeholder.ReplaceAllString(t, "?$1")
		}
	}
	return text
}

// qualify prefixes each of the comma-separated columns with alias.
func qualify(columns, alias string) string {
	parts := strings.Split(columns, ", ")
	for i, p := range parts {
		parts[i] = alias + "." + p
	}
	return strings.Join(parts, ", ")
}

var placeholder = regexp.MustCompile(`\$(\d+)`)
