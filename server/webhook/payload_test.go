package webhook

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/entityapi/entityapi/openapi"
	"github.com/entityapi/entityapi/server/engine"
	"github.com/entityapi/entityapi/storage/jobs"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// TestPayloadNamesWhatItsReceiverMayRead: a message names the changed
// fields of the record that the receiver's roles may read (docs/fields.md):
// administrators', who manage webhooks, read a user's email; a receiver
// read as a viewer would not be told of it. The rest of the event is as
// the feed has it.
func TestPayloadNamesWhatItsReceiverMayRead(t *testing.T) {
	t.Parallel()
	doc, err := openapi3.NewLoader().LoadFromData(openapi.Backoffice)
	if err != nil {
		t.Fatal(err)
	}
	for _, dialect := range storagetest.Dialects() {
		t.Run(dialect, func(t *testing.T) {
			t.Parallel()
			e, err := engine.New(doc, storagetest.Open(t, dialect), "/admin", engine.Config{})
			if err != nil {
				t.Fatal(err)
			}
			s := &Service{engine: e}
			event := jobs.WebhookEvent{ID: 7, Type: "users.updated", ResourceType: "users", ResourceID: "3", Action: "updated",
				ChangedAttributes: json.RawMessage(`["email","lastName"]`), OccurredAt: time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)}
			for _, c := range []struct {
				roles []string
				want  []string
			}{
				{managerRoles, []string{"email", "lastName"}},
				{[]string{"ROLE_USER"}, []string{"lastName"}},
			} {
				raw, err := s.payload(event, c.roles)
				if err != nil {
					t.Fatal(err)
				}
				var got body
				if err := json.Unmarshal(raw, &got); err != nil {
					t.Fatal(err)
				}
				var names []string
				if err := json.Unmarshal(got.Data.ChangedAttributes, &names); err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(names, c.want) || got.Type != "users.updated" || got.Data.ResourceID != "3" || got.Timestamp != "2026-11-29T12:00:00Z" {
					t.Errorf("%v: %s, want changedAttributes %v", c.roles, raw, c.want)
				}
			}
		})
	}
}
