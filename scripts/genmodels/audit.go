package main

import (
	"bytes"
	"fmt"
	"sort"

	"github.com/entityapi/entityapi/server/resource"
	"github.com/entityapi/entityapi/storage/dialect"
)

// The audit triggers' description (storage/audit.go's auditSpec): each
// entity table's fields as the API names them, with the data type an audit
// field shows, and the join tables of to-many relationships. Only what a
// client writes is audited: the read-only attributes (the creation and
// update times, a user's last login and count of logins), the version and
// the organization are the server's bookkeeping; a write-only attribute (a
// password) is a secret whose values are never recorded.

// auditTable is one table's description and the joins its resource owns.
type auditTable struct {
	table dialect.AuditTable
	joins []dialect.AuditJoin
}

// bookkeeping are the columns no audit names.
var bookkeeping = map[string]bool{"version": true, "created_at": true, "updated_at": true, "organization_id": true}

// auditTypes are the audit data types of the attribute types.
var auditTypes = map[resource.FieldType]string{
	resource.String: dialect.AuditString, resource.Integer: dialect.AuditInteger, resource.Number: dialect.AuditNumber,
	resource.Boolean: dialect.AuditBoolean, resource.DateTime: dialect.AuditDateTime, resource.Date: dialect.AuditDate,
	resource.JSON: dialect.AuditJSON,
}

// auditOf is r's audit description; false for a log (the events, the audits).
func auditOf(r *resource.Resource) (auditTable, bool) {
	if r.Feed || r.Log {
		return auditTable{}, false
	}
	t := dialect.AuditTable{Table: r.Table, Type: r.Type, Key: r.IDColumn}
	switch {
	case r.Scoped:
		t.Org = "organization_id"
	case r.Self: // the organizations: each is its own
		t.Org = r.IDColumn
	}
	seen := map[string]bool{r.IDColumn: true}
	add := func(col, field, typ string) {
		if col == "" || seen[col] || bookkeeping[col] {
			return
		}
		seen[col] = true
		t.Fields = append(t.Fields, dialect.AuditField{Column: col, Field: field, Type: typ})
	}
	for _, a := range r.Attributes {
		if a.ReadOnly {
			continue // the server's bookkeeping: a user's last login would leave a row per login
		}
		add(a.Column, a.Name, auditTypes[a.Type])
		langs := make([]string, 0, len(a.Localized))
		for lang := range a.Localized {
			langs = append(langs, lang)
		}
		sort.Strings(langs)
		for _, lang := range langs {
			add(a.Localized[lang], a.Name+"."+lang, auditTypes[a.Type])
		}
	}
	for _, a := range r.WriteOnly {
		add(a.Column, a.Name, dialect.AuditSecret)
	}
	var joins []dialect.AuditJoin
	for _, rel := range r.Relationships {
		switch {
		case rel.Organization:
		case rel.Through != nil:
			joins = append(joins, dialect.AuditJoin{Table: rel.Through.Table, Type: r.Type, Field: rel.Name,
				Owner: rel.Through.Column, Member: rel.Through.Target, OwnerTable: r.Table, OwnerKey: r.IDColumn, OwnerOrg: t.Org})
		case !rel.ToMany:
			add(rel.Column, rel.Name, dialect.AuditReference)
		}
	}
	return auditTable{table: t, joins: joins}, true
}

// writeAudit appends auditSpec to b, in table order.
func writeAudit(b *bytes.Buffer, audited map[string]auditTable) {
	tables := make([]string, 0, len(audited))
	for name := range audited {
		tables = append(tables, name)
	}
	sort.Strings(tables)
	b.WriteString("\n// auditSpec describes the audit triggers of the tables (storage/audit.go): each\n" +
		"// entity table's audited fields as the API names them, and the join tables.\n" +
		"var auditSpec = dialect.Audit{\n\tTables: []dialect.AuditTable{\n")
	var joins []dialect.AuditJoin
	for _, name := range tables {
		t := audited[name].table
		fmt.Fprintf(b, "\t\t{Table: %q, Type: %q, Key: %q, Org: %q, Fields: []dialect.AuditField{\n", t.Table, t.Type, t.Key, t.Org)
		for _, f := range t.Fields {
			fmt.Fprintf(b, "\t\t\t{Column: %q, Field: %q, Type: %q},\n", f.Column, f.Field, f.Type)
		}
		b.WriteString("\t\t}},\n")
		joins = append(joins, audited[name].joins...)
	}
	b.WriteString("\t},\n\tJoins: []dialect.AuditJoin{\n")
	sort.Slice(joins, func(i, k int) bool { return joins[i].Table+joins[i].Type < joins[k].Table+joins[k].Type })
	for _, j := range joins {
		fmt.Fprintf(b, "\t\t{Table: %q, Type: %q, Field: %q, Owner: %q, Member: %q, OwnerTable: %q, OwnerKey: %q, OwnerOrg: %q},\n",
			j.Table, j.Type, j.Field, j.Owner, j.Member, j.OwnerTable, j.OwnerKey, j.OwnerOrg)
	}
	b.WriteString("\t},\n}\n")
}
