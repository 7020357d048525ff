package postgres

import (
	"context"
	"fmt"
	"strings"

	"github.com/entityapi/entityapi/storage/dialect"
)

// The audit triggers (dialect/audit.go tells what they record): on
// PostgreSQL each audited table has three statement triggers, after
// INSERT, UPDATE and DELETE, whose functions read the statement's rows from
// its transition tables and insert their audit rows with one INSERT ...
// SELECT per statement, whatever wrote them: a single write, a batch's COPY,
// an upsert's ON CONFLICT, a delete by filter. A function per table and
// operation names the table's columns, so its plan is made once per
// connection. The actor is the transaction's setting entityapi.actor
// (Features.SetActor, ActorFrom): transaction-scoped, as a transaction
// pooler needs.

// actorSetting is the setting the store puts the actor in.
const actorSetting = "entityapi.actor"

// setActor is the statement that makes ? (EncodeActor's text) the actor of
// the transaction it runs in.
const setActor = "SELECT set_config('" + actorSetting + "', ?, true)"

// actorJoin, appended to the FROM of a single write's event INSERT
// (EventWith), sets the actor in that statement, before its triggers fire
// at its end.
const actorJoin = " CROSS JOIN (SELECT set_config('" + actorSetting + "', CAST(? AS TEXT), true)) entityapi_actor"

// auditPrefix begins the name of every function and trigger installed here.
const auditPrefix = "entityapi_audit_"

// InstallAudit creates the functions and triggers of a that are missing or
// differ from what a describes, in one transaction (the store calls it under
// its migration lock, so processes that start together do not race).
func (d *DB) InstallAudit(ctx context.Context, a *dialect.Audit) error {
	if a == nil {
		return nil
	}
	want := auditFunctions(a)
	have := map[string]string{}
	rows, err := d.pool.Query(ctx, "SELECT proname, prosrc FROM pg_proc WHERE proname LIKE '"+auditPrefix+"%'")
	if err != nil {
		return fmt.Errorf("postgres: audit triggers: %w", err)
	}
	for rows.Next() {
		var name, src string
		if err := rows.Scan(&name, &src); err != nil {
			rows.Close()
			return fmt.Errorf("postgres: audit triggers: %w", err)
		}
		have[name] = src
	}
	rows.Close()
	triggers := map[string]bool{}
	rows, err = d.pool.Query(ctx, "SELECT c.relname || '.' || t.tgname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid WHERE t.tgname LIKE '"+auditPrefix+"%'")
	if err != nil {
		return fmt.Errorf("postgres: audit triggers: %w", err)
	}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			rows.Close()
			return fmt.Errorf("postgres: audit triggers: %w", err)
		}
		triggers[name] = true
	}
	rows.Close()
	var b strings.Builder
	for _, f := range want {
		if have[f.name] != f.body {
			fmt.Fprintf(&b, "CREATE OR REPLACE FUNCTION %s() RETURNS trigger LANGUAGE plpgsql AS $entityapi$%s$entityapi$;\n", f.name, f.body)
		}
		if !triggers[f.table+"."+f.trigger] {
			ref := "NEW TABLE AS new_rows"
			switch f.op {
			case "DELETE":
				ref = "OLD TABLE AS old_rows"
			case "UPDATE":
				ref = "OLD TABLE AS old_rows NEW TABLE AS new_rows"
			}
			fmt.Fprintf(&b, "CREATE TRIGGER %s AFTER %s ON %s REFERENCING %s FOR EACH STATEMENT EXECUTE FUNCTION %s();\n",
				f.trigger, f.op, ident(f.table), ref, f.name)
		}
	}
	if b.Len() == 0 {
		return nil
	}
	tx, err := d.pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("postgres: audit triggers: %w", err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	if _, err := tx.Exec(ctx, b.String()); err != nil {
		return fmt.Errorf("postgres: audit triggers: %w", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("postgres: audit triggers: %w", err)
	}
	return nil
}

// auditFunction is one trigger function and the trigger that calls it.
type auditFunction struct {
	name, body     string
	table, trigger string
	op             string // INSERT, UPDATE or DELETE
}

// auditFunctions are the functions and triggers a describes.
func auditFunctions(a *dialect.Audit) []auditFunction {
	var out []auditFunction
	for _, t := range a.Tables {
		for _, op := range []string{"INSERT", "UPDATE", "DELETE"} {
			out = append(out, auditFunction{name: auditPrefix + t.Table + "_" + strings.ToLower(op), body: tableAudit(t, op),
				table: t.Table, trigger: auditPrefix + strings.ToLower(op), op: op})
		}
	}
	for _, j := range a.Joins {
		for _, op := range []string{"INSERT", "DELETE"} {
			// Both sides of a relationship may own the same join table.
			out = append(out, auditFunction{name: auditPrefix + j.Table + "_" + j.Type + "_" + strings.ToLower(op), body: joinAudit(j, op),
				table: j.Table, trigger: auditPrefix + j.Type + "_" + strings.ToLower(op), op: op})
		}
	}
	return out
}

// auditInsert begins every audit function's INSERT; the SELECT that follows
// gives the organization, type, id, action and fields, then auditActor.
const auditInsert = "INSERT INTO " + dialect.AuditsTable +
	" (organization_id, resource_type, resource_id, action, fields, client_id, user_id, request_id, logged_at) "

// auditActor are the actor's columns of an audit row.
const auditActor = "a->>'c', CAST(a->>'u' AS BIGINT), a->>'r', now()"

// auditDeclare and auditEnd wrap a function's statement: a is the actor.
const (
	auditDeclare = "\nDECLARE a jsonb := CAST(nullif(current_setting('" + actorSetting + "', true), '') AS jsonb);\nBEGIN\n"
	auditEnd     = ";\nRETURN NULL;\nEND\n"
)

// tableAudit is the body of the function of t's trigger after op: one
// audit row per row written, naming each field the write set (INSERT),
// changed (UPDATE) or held (DELETE); an update that changed no audited
// field has none.
func tableAudit(t dialect.AuditTable, op string) string {
	var rows, action, row string
	switch op {
	case "INSERT":
		rows, action, row = "new_rows n", dialect.AuditCreate, "n"
	case "UPDATE":
		rows, action, row = "new_rows n JOIN old_rows o ON o."+ident(t.Key)+" = n."+ident(t.Key), dialect.AuditUpdate, "n"
		if t.Org != "" && t.Org != t.Key {
			rows += " AND o." + ident(t.Org) + " = n." + ident(t.Org)
		}
	default:
		rows, action, row = "old_rows o", dialect.AuditRemove, "o"
	}
	org := "COALESCE(CAST(a->>'o' AS BIGINT), 0)"
	if t.Org != "" {
		org = "CAST(" + row + "." + ident(t.Org) + " AS BIGINT)"
	}
	var vals strings.Builder
	for i, f := range t.Fields {
		if i > 0 {
			vals.WriteString(", ")
		}
		col := ident(f.Column)
		var cond string
		switch op {
		case "INSERT":
			cond = "n." + col + " IS NOT NULL"
		case "UPDATE":
			cond = "n." + col + " IS DISTINCT FROM o." + col
		default:
			cond = "o." + col + " IS NOT NULL"
		}
		oldValue, newValue := "NULL", "NULL"
		if f.Type != dialect.AuditSecret {
			if op != "INSERT" {
				oldValue = jsonValue("o."+col, f.Type)
			}
			if op != "DELETE" {
				newValue = jsonValue("n."+col, f.Type)
			}
		}
		fmt.Fprintf(&vals, "CASE WHEN %s THEN jsonb_build_object('field', %s, 'dataType', %s, 'oldValue', %s, 'newValue', %s) END",
			cond, literal(f.Field), literal(f.Type), oldValue, newValue)
	}
	// One expression per row, no subquery: the array of the fields'
	// objects without the NULLs of those the write did not touch.
	fields := "'[]'::jsonb"
	if len(t.Fields) > 0 {
		fields = "to_jsonb(array_remove(ARRAY[" + vals.String() + "]::jsonb[], NULL))"
	}
	inner := fmt.Sprintf("SELECT %s AS org, CAST(%s.%s AS TEXT) AS id, %s AS fields FROM %s", org, row, ident(t.Key), fields, rows)
	return auditDeclare + auditInsert + fmt.Sprintf("SELECT org, %s, id, %s, fields, %s FROM (%s) c",
		literal(t.Type), literal(action), auditActor, inner) + updateOnlyChanged(op) + auditEnd
}

// updateOnlyChanged keeps an update's audit rows to those that changed an
// audited field.
func updateOnlyChanged(op string) string {
	if op == "UPDATE" {
		return " WHERE fields <> '[]'::jsonb"
	}
	return ""
}

// joinAudit is the body of the function of j's trigger after op: an
// update of the owner's relationship per link added or removed.
func joinAudit(j dialect.AuditJoin, op string) string {
	rows, added, removed := "new_rows n", "jsonb_build_array(CAST(n."+ident(j.Member)+" AS TEXT))", "'[]'::jsonb"
	if op == "DELETE" {
		rows, added, removed = "old_rows n", removed, "jsonb_build_array(CAST(n."+ident(j.Member)+" AS TEXT))"
	}
	org := "COALESCE(CAST(a->>'o' AS BIGINT), 0)"
	if j.OwnerOrg != "" {
		org = fmt.Sprintf("COALESCE(CAST(a->>'o' AS BIGINT), (SELECT CAST(w.%s AS BIGINT) FROM %s w WHERE w.%s = n.%s), 0)",
			ident(j.OwnerOrg), ident(j.OwnerTable), ident(j.OwnerKey), ident(j.Owner))
	}
	field := fmt.Sprintf("jsonb_build_array(jsonb_build_object('field', %s, 'dataType', %s, 'oldValue', NULL, 'newValue', NULL, 'added', %s, 'removed', %s))",
		literal(j.Field), literal(dialect.AuditCollection), added, removed)
	return auditDeclare + auditInsert + fmt.Sprintf("SELECT %s, %s, CAST(n.%s AS TEXT), %s, %s, %s FROM %s",
		org, literal(j.Type), ident(j.Owner), literal(dialect.AuditUpdate), field, auditActor, rows) + auditEnd
}

// jsonValue is the JSON of a column's value as the API shows a field of
// that type: times in UTC to the second, references as identifier strings.
func jsonValue(col, typ string) string {
	switch typ {
	case dialect.AuditDateTime:
		return "to_jsonb(to_char(" + col + " AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'))"
	case dialect.AuditReference:
		return "to_jsonb(CAST(" + col + " AS TEXT))"
	}
	return "to_jsonb(" + col + ")"
}

// ident quotes a table or column name of the models (never a request's).
func ident(name string) string { return `"` + strings.ReplaceAll(name, `"`, `""`) + `"` }

// literal is s as an SQL string literal.
func literal(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
