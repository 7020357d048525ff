package engine_test

import (
	"encoding/json"
	"testing"
)

// TestVisibleFieldList: a log's list of a record's fields (the events'
// changedAttributes, which a webhook's message carries, and the audits'
// fields) keeps the fields the roles may read of the record's type, in
// both shapes, and is left as it is for roles that read them all and a
// type without restricted fields; a value that is not a list is empty for
// a caller who may not read every field (nothing of it is known readable).
// A type the documents do not describe (the webhooks, audited) is the
// administrators' alone.
func TestVisibleFieldList(t *testing.T) {
	eachDialect(t, func(t *testing.T, b *testBundle) {
		for _, c := range []struct {
			name, typ string
			roles     []string
			in, want  string
		}{
			{"names, hidden from a viewer", "users", []string{"ROLE_USER"}, `["email","lastName","owner"]`, `["lastName","owner"]`},
			{"audit fields, hidden from an auditor", "users", []string{"ROLE_AUDITOR"},
				`[{"field":"email","newValue":"x@example.com"},{"field":"username","newValue":"u"}]`, `[{"field":"username","newValue":"u"}]`},
			{"every field for a manager", "users", []string{"ROLE_MANAGER"}, `["email", "lastLogin"]`, `["email", "lastLogin"]`},
			{"a type without restricted fields", "accounts", []string{"ROLE_USER"}, `["name"]`, `["name"]`},
			{"a type the document does not have, for an auditor", "webhooks", []string{"ROLE_AUDITOR"}, `[{"field":"url"}]`, `[]`},
			{"a type the document does not have, for an administrator", "webhooks", []string{"ROLE_ADMINISTRATOR"}, `[{"field":"url"}]`, `[{"field":"url"}]`},
			{"not a list, for a caller who may not read every field", "users", []string{"ROLE_USER"}, `{"email":1}`, `[]`},
			{"not a list, for one who may", "users", []string{"ROLE_ADMINISTRATOR"}, `{"email":1}`, `{"email":1}`},
		} {
			got := b.e.VisibleFieldList(c.roles, c.typ, json.RawMessage(c.in))
			if string(got) != c.want {
				t.Errorf("%s: %s, want %s", c.name, got, c.want)
			}
		}
	})
}
