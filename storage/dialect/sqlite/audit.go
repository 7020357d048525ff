package sqlite

import (
	"database/sql/driver"
	"fmt"
	"strings"

	"modernc.org/sqlite"

	"github.com/entityapi/entityapi/storage/dialect"
)

// The audit triggers (dialect/audit.go tells what they record): on SQLite
// each audited table gets, on every connection and beside its note
// triggers (triggers.go), three TEMP row triggers, after insert, update and
// delete, that insert the audit row of the row they fire for, armed or not:
// every write, through whatever statement, leaves its audit in that
// statement. Who writes comes from entityapi_actor, which reads the actor
// the store sets while it holds the write slot (Act).

var _ dialect.Actors = (*DB)(nil)

// Act makes a the actor the audit triggers record (nil: none) and returns
// the one it replaces.
func (d *DB) Act(a *dialect.Actor) *dialect.Actor { return d.actor.Swap(a) }

// registerActorFunction registers entityapi_actor(i) on drv: field i of the
// actor (dialect.Actor's order), NULL when none is set.
func (d *DB) registerActorFunction(drv *sqlite.Driver) {
	drv.MustRegisterScalarFunction("entityapi_actor", 1, func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
		a := d.actor.Load()
		i, _ := args[0].(int64)
		if a == nil || i < 0 || i >= dialect.ActorFields {
			return nil, nil
		}
		return a[i], nil
	})
}

// auditColumns are the columns of an audit row the triggers write, and
// auditActor the values of its last four.
const (
	auditColumns = "organization_id, resource_type, resource_id, action, fields, client_id, user_id, request_id, logged_at"
	auditActor   = "entityapi_actor(1), entityapi_actor(2), entityapi_actor(3), strftime('%Y-%m-%d %H:%M:%S', 'now')"
)

// auditFields is the expression of the fields of the audit row of a row
// (the trigger's OLD and NEW, or one alias for both) after event: concat_ws joins the JSON objects of the fields that the write
// set, changed or held, skipping the others (a NULL), into the text of a
// JSON array, one expression without a subquery (a subquery of a UNION per
// field and json_group_array cost a tenth more of a batch's inserts).
// changed are the conditions of the fields, any of which makes a change.
func auditFields(t dialect.AuditTable, event, oldRow, newRow string) (fields string, changed []string) {
	var parts []string
	for _, f := range t.Fields {
		col := quoteIdent(f.Column)
		var cond string
		switch event {
		case "INSERT":
			cond = newRow + "." + col + " IS NOT NULL"
		case "UPDATE":
			cond = newRow + "." + col + " IS NOT " + oldRow + "." + col
		default:
			cond = oldRow + "." + col + " IS NOT NULL"
		}
		changed = append(changed, cond)
		oldValue, newValue := "NULL", "NULL"
		if f.Type != dialect.AuditSecret {
			if event != "INSERT" {
				oldValue = jsonValue(oldRow+"."+col, f.Type)
			}
			if event != "DELETE" {
				newValue = jsonValue(newRow+"."+col, f.Type)
			}
		}
		parts = append(parts, fmt.Sprintf("CASE WHEN %s THEN json_object('field', %s, 'dataType', %s, 'oldValue', %s, 'newValue', %s) END",
			cond, sqlString(f.Field), sqlString(f.Type), oldValue, newValue))
	}
	if len(parts) == 0 {
		return "'[]'", nil
	}
	return "'[' || concat_ws(',', " + strings.Join(parts, ", ") + ") || ']'", changed
}

// auditOrg is the organization of the audit row of t's row.
func auditOrg(t dialect.AuditTable, row string) string {
	if t.Org != "" {
		return row + "." + quoteIdent(t.Org)
	}
	return "COALESCE(entityapi_actor(0), 0)"
}

// writeAuditTriggers appends the audit triggers of t: after insert (unless
// inserts is false: the bulk connection's, see InsertedAudits), update and
// delete. An update that changed none of the fields does not fire (WHEN).
func writeAuditTriggers(b *strings.Builder, t dialect.AuditTable, inserts bool) {
	for _, on := range []struct{ event, row, action string }{
		{"INSERT", "NEW", dialect.AuditCreate},
		{"UPDATE", "NEW", dialect.AuditUpdate},
		{"DELETE", "OLD", dialect.AuditRemove},
	} {
		if on.event == "INSERT" && !inserts {
			continue
		}
		fields, changed := auditFields(t, on.event, "OLD", "NEW")
		when := ""
		if on.event == "UPDATE" {
			when = " WHEN 0" // no audited field: an update never has one
			if len(changed) > 0 {
				when = " WHEN " + strings.Join(changed, " OR ")
			}
		}
		fmt.Fprintf(b, "CREATE TEMP TRIGGER IF NOT EXISTS %s AFTER %s ON main.%s FOR EACH ROW%s BEGIN "+
			"INSERT INTO %s (%s) VALUES (%s, %s, CAST(%s.%s AS TEXT), %s, %s, %s); END;\n",
			quoteIdent("entityapi_audit_"+strings.ToLower(on.event)+"_"+t.Table), on.event, quoteIdent(t.Table), when,
			dialect.AuditsTable, auditColumns, auditOrg(t, on.row), sqlString(t.Type), on.row, quoteIdent(t.Key), sqlString(on.action),
			fields, auditActor)
	}
}

var _ dialect.InsertAuditor = (*DB)(nil)

// InsertedAudits is the insert trigger's statement made set-based, for the
// bulk connection, which has no insert trigger (openBulk): the same columns
// and the same fields from the rows of t the store names after its WHERE,
// in key order; the actor from bind marks, not entityapi_actor (three calls
// into Go per row).
func (d *DB) InsertedAudits(t dialect.AuditTable) string {
	const r = dialect.InsertedRow
	fields, _ := auditFields(t, "INSERT", r, r)
	org := "COALESCE(?, 0)" // as auditOrg: the actor's
	if t.Org != "" {
		org = "COALESCE(" + r + "." + quoteIdent(t.Org) + ", ?)" // the row's: never NULL (the mark is bound either way)
	}
	return fmt.Sprintf("INSERT INTO %s (%s) SELECT %s, %s, CAST(%s.%s AS TEXT), %s, %s, ?, ?, ?, strftime('%%Y-%%m-%%d %%H:%%M:%%S', 'now') FROM main.%s AS %s WHERE ",
		dialect.AuditsTable, auditColumns, org, sqlString(t.Type), r, quoteIdent(t.Key), sqlString(dialect.AuditCreate), fields,
		quoteIdent(t.Table), r)
}

// writeJoinAuditTriggers appends the two audit triggers of j: a link added
// or removed is an update of the owner's relationship.
func writeJoinAuditTriggers(b *strings.Builder, j dialect.AuditJoin) {
	for _, on := range []struct{ event, row string }{{"INSERT", "NEW"}, {"DELETE", "OLD"}} {
		member := "json_array(CAST(" + on.row + "." + quoteIdent(j.Member) + " AS TEXT))"
		added, removed := member, "json_array()"
		if on.event == "DELETE" {
			added, removed = removed, member
		}
		org := "COALESCE(entityapi_actor(0), 0)"
		if j.OwnerOrg != "" {
			org = fmt.Sprintf("COALESCE(entityapi_actor(0), (SELECT w.%s FROM main.%s w WHERE w.%s = %s.%s), 0)",
				quoteIdent(j.OwnerOrg), quoteIdent(j.OwnerTable), quoteIdent(j.OwnerKey), on.row, quoteIdent(j.Owner))
		}
		fmt.Fprintf(b, "CREATE TEMP TRIGGER IF NOT EXISTS %s AFTER %s ON main.%s FOR EACH ROW BEGIN "+
			"INSERT INTO %s (%s) VALUES (%s, %s, CAST(%s.%s AS TEXT), %s, "+
			"json_array(json_object('field', %s, 'dataType', %s, 'oldValue', NULL, 'newValue', NULL, 'added', %s, 'removed', %s)), %s); END;\n",
			quoteIdent("entityapi_audit_"+strings.ToLower(on.event)+"_"+j.Table+"_"+j.Type), on.event, quoteIdent(j.Table),
			dialect.AuditsTable, auditColumns, org, sqlString(j.Type), on.row, quoteIdent(j.Owner), sqlString(dialect.AuditUpdate),
			sqlString(j.Field), sqlString(dialect.AuditCollection), added, removed, auditActor)
	}
}

// jsonValue is a column's value as the API shows a field of that type
// (SQLite keeps booleans as 0 and 1, times as text, JSON as text).
func jsonValue(col, typ string) string {
	switch typ {
	case dialect.AuditBoolean:
		return "json(CASE WHEN " + col + " IS NULL THEN NULL WHEN " + col + " THEN 'true' ELSE 'false' END)"
	case dialect.AuditDateTime:
		return "strftime('%Y-%m-%dT%H:%M:%SZ', " + col + ")"
	case dialect.AuditDate:
		return "date(" + col + ")"
	case dialect.AuditJSON:
		return "json(" + col + ")"
	case dialect.AuditReference:
		return "CAST(" + col + " AS TEXT)"
	}
	return col
}
