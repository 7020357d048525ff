package postgres

import (
	"context"
	"strconv"
	"strings"
	"testing"
)

// TestEventWith runs a write and the insert of its event as the store puts
// them together from eventWith's pieces, on PostgreSQL: the statement
// answers the written row, the event holds its key and version, and a
// delete's row count is its event's.
func TestEventWith(t *testing.T) {
	t.Parallel()
	d, schema := open(t)
	ctx := context.Background()
	for _, q := range []string{
		"ALTER TABLE " + schema + ".widgets ADD COLUMN version BIGINT",
		"CREATE TABLE " + schema + ".log (organization_id BIGINT, resource_type TEXT, resource_id TEXT, action TEXT, changed_attributes JSONB, changed_relationships JSONB, version BIGINT, client_id TEXT, user_id BIGINT, occurred_at TIMESTAMPTZ)",
	} {
		if _, err := d.DB().DB.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	// marks numbers the ? of text as $1, $2..., quoting the identifiers
	// the store would quote in.
	marks := func(text string, idents map[int]string) string {
		var b strings.Builder
		n, param := 0, 0
		for _, r := range text {
			if r != '?' {
				b.WriteRune(r)
				continue
			}
			n++
			if id, ok := idents[n]; ok {
				b.WriteString(`"` + id + `"`)
				continue
			}
			param++
			b.WriteString("$" + strconv.Itoa(param))
		}
		return b.String()
	}
	w := eventWith
	columns := "organization_id, resource_type, resource_id, action, changed_attributes, changed_relationships, version, client_id, user_id, occurred_at"
	insert := w.Insert[0] + columns + w.Insert[1] + "w.version" + w.Insert[2]
	write := w.Write[0] + "INSERT INTO " + schema + ".widgets (id, org, code, version) VALUES (7, 1, 'a', 3) RETURNING id, version" +
		w.Write[1] + insert + w.Write[2]
	// Marks 1 (the events table) and 4 (w's key column) are identifiers.
	q := marks(write, map[int]string{1: "log", 4: "id"})
	q = strings.Replace(q, `"log"`, schema+".log", 1)
	var id, version int64
	if err := d.DB().DB.QueryRowContext(ctx, q, 1, "widgets", "create", `["code"]`, `[]`, "c", 5, "2026-01-02T03:04:05Z").Scan(&id, &version); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	if id != 7 || version != 3 {
		t.Errorf("the write answered %d, %d; want its row 7, 3", id, version)
	}
	del := w.Delete[0] + "DELETE FROM " + schema + ".widgets WHERE id = 7 RETURNING id, version" + w.Delete[1] + insert
	q = strings.Replace(marks(del, map[int]string{1: "log", 4: "id"}), `"log"`, schema+".log", 1)
	res, err := d.DB().DB.ExecContext(ctx, q, 1, "widgets", "delete", nil, nil, nil, nil, "2026-01-02T03:04:05Z")
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		t.Errorf("the delete's row count is %d, want 1", n)
	}
	var events int
	var keys string
	if err := d.DB().DB.QueryRowContext(ctx, "SELECT count(*), string_agg(resource_id || ':' || action || ':' || version, ',' ORDER BY action) FROM "+schema+".log").Scan(&events, &keys); err != nil {
		t.Fatal(err)
	}
	if events != 2 || keys != "7:create:3,7:delete:3" {
		t.Errorf("events %d %q; want the create's and the delete's of row 7 at version 3", events, keys)
	}
}
