package storage_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// insert adds one row and returns its generated key.
func insert(t *testing.T, s *storage.Store, tbl string, org int64, row storage.Row) int64 {
	t.Helper()
	key, err := s.Insert(context.Background(), storagetest.Table(t, s, tbl), org, row)
	if err != nil {
		t.Fatalf("insert %s %v: %v", tbl, row, err)
	}
	return key.(int64)
}

// joinTable returns a join table the test needs.
func joinTable(t *testing.T, s *storage.Store, name string) *storage.JoinTable {
	t.Helper()
	j, ok := s.JoinTable(name)
	if !ok {
		t.Fatalf("JoinTable(%q) not found", name)
	}
	return j
}

// user inserts a user of the organization with the given username (and an
// email made from it).
func user(t *testing.T, s *storage.Store, org int64, username string, extra storage.Row) int64 {
	t.Helper()
	row := storage.Row{"username": username, "email": username + "@example.com", "first_name": "F", "last_name": "L"}
	for k, v := range extra {
		row[k] = v
	}
	return insert(t, s, "users", org, row)
}

// keys runs a query and returns the keys found, in result order.
func keys(t *testing.T, s *storage.Store, q storage.Query) []int64 {
	t.Helper()
	rows, err := s.Find(context.Background(), q)
	if err != nil {
		t.Fatalf("Find: %v", err)
	}
	out := []int64{}
	for _, r := range rows {
		out = append(out, r[q.Table.Key].(int64))
	}
	if n, err := s.Count(context.Background(), q); err != nil || n != len(out) {
		t.Errorf("Count = %d, %v; Find found %d", n, err, len(out))
	}
	return out
}

func TestMigrationSeedsRoles(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		rows, err := s.Find(context.Background(), storage.Query{Table: storagetest.Table(t, s, "userroles")})
		if err != nil {
			t.Fatal(err)
		}
		want := []storage.Row{
			{"code": "ROLE_ADMINISTRATOR", "label": "Administrator"},
			{"code": "ROLE_AUDITOR", "label": "Auditor"},
			{"code": "ROLE_INTEGRATION", "label": "Integration"},
			{"code": "ROLE_MANAGER", "label": "Manager"},
			{"code": "ROLE_USER", "label": "User"},
		}
		if !reflect.DeepEqual(rows, want) {
			t.Errorf("userroles = %v, want %v", rows, want)
		}
	})
}

func TestUserRoundTrip(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		ctx := context.Background()
		users := storagetest.Table(t, s, "users")
		birthday := time.Date(1990, 5, 17, 0, 0, 0, 0, time.UTC)
		id := user(t, s, 1, "jdoe", storage.Row{"birthday": birthday, "emails": json.RawMessage(`[{"email":"j@x.org"}]`)})
		row, err := s.Get(ctx, users, 1, id)
		if err != nil {
			t.Fatal(err)
		}
		if got, ok := row["birthday"].(time.Time); !ok || !got.Equal(birthday) || got.Location() != time.UTC {
			t.Errorf("birthday reads back as %#v, want %v", row["birthday"], birthday)
		}
		if row["enabled"] != true || row["login_count"] != int64(0) || row["last_login"] != nil || row["password_hash"] != nil {
			t.Errorf("defaults: enabled %v, login_count %v, last_login %v, password_hash %v",
				row["enabled"], row["login_count"], row["last_login"], row["password_hash"])
		}
		sameJSON(t, row["emails"], `[{"email":"j@x.org"}]`)
		// A date compares as a date, whatever time of day the value carries.
		other := user(t, s, 1, "other", storage.Row{"birthday": birthday.AddDate(0, 0, 1)})
		for _, tc := range []struct {
			cond storage.Cond
			want []int64
		}{
			{storage.Cond{Column: "birthday", Op: storage.Eq, Values: []any{birthday.Add(13 * time.Hour)}}, []int64{id}},
			{storage.Cond{Column: "birthday", Op: storage.Gt, Values: []any{birthday}}, []int64{other}},
			{storage.Cond{Column: "birthday", Op: storage.Range, Values: []any{birthday, birthday.AddDate(0, 0, 1)}}, []int64{id, other}},
		} {
			if got := keys(t, s, storage.Query{Table: users, Org: 1, Where: []storage.Cond{tc.cond}}); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("%+v: got %v, want %v", tc.cond, got, tc.want)
			}
		}
		if err := s.Update(ctx, users, 1, id, storage.Row{"birthday": nil, "login_count": 3}); err != nil {
			t.Fatal(err)
		}
		if row, _ := s.Get(ctx, users, 1, id); row["birthday"] != nil || row["login_count"] != int64(3) {
			t.Errorf("after update: birthday %v, login_count %v", row["birthday"], row["login_count"])
		}
		contacts := storagetest.Table(t, s, "contacts")
		c := insert(t, s, "contacts", 1, storage.Row{"last_name": "C", "birthday": birthday})
		if row, err := s.Get(ctx, contacts, 1, c); err != nil || !reflect.DeepEqual(row["birthday"], birthday) {
			t.Errorf("contact birthday = %#v, %v", row["birthday"], err)
		}
	})
}

func TestUsersUniqueAcrossOrganizations(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		ctx := context.Background()
		users := storagetest.Table(t, s, "users")
		other := newOrganization(t, s, "Other")
		user(t, s, 1, "ann", storage.Row{"external_id": "X-1"})
		// external_id is unique per organization only.
		user(t, s, other, "bob", storage.Row{"external_id": "X-1"})
		for _, tc := range []struct {
			org  int64
			row  storage.Row
			cols []string
		}{
			{other, storage.Row{"username": "ann", "email": "new@example.com"}, []string{"username"}},
			{1, storage.Row{"username": "ann", "email": "new@example.com"}, []string{"username"}},
			{other, storage.Row{"username": "new", "email": "ann@example.com"}, []string{"email"}},
			{1, storage.Row{"username": "new", "email": "x@example.com", "external_id": "X-1"}, []string{"external_id"}},
		} {
			row := storage.Row{"first_name": "F", "last_name": "L"}
			for k, v := range tc.row {
				row[k] = v
			}
			_, err := s.Insert(ctx, users, tc.org, row)
			var ue *storage.UniqueError
			if !errors.As(err, &ue) || ue.Table != "users" || !reflect.DeepEqual(ue.Columns, tc.cols) {
				t.Errorf("insert %v in %d: %v (%+v), want UniqueError on %v", tc.row, tc.org, err, ue, tc.cols)
			}
		}
		// Required columns.
		if _, err := s.Insert(ctx, users, 1, storage.Row{"username": "x", "email": "x@y"}); err == nil {
			t.Error("user without first and last name accepted")
		}
	})
}

func TestJoinTables(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		ctx := context.Background()
		ac := joinTable(t, s, "account_contacts")
		a1 := insert(t, s, "accounts", 1, storage.Row{"name": "a1"})
		a2 := insert(t, s, "accounts", 1, storage.Row{"name": "a2"})
		c1 := insert(t, s, "contacts", 1, storage.Row{"last_name": "c1"})
		c2 := insert(t, s, "contacts", 1, storage.Row{"last_name": "c2"})
		c3 := insert(t, s, "contacts", 1, storage.Row{"last_name": "c3"})
		pairs := func(col string, ks ...int64) [][2]any {
			t.Helper()
			vals := make([]any, len(ks))
			for i, k := range ks {
				vals[i] = k
			}
			got, err := s.Pairs(ctx, ac, col, vals)
			if err != nil {
				t.Fatalf("Pairs(%s, %v): %v", col, ks, err)
			}
			return got
		}
		p := func(a, b int64) [2]any { return [2]any{a, b} }

		// Linking twice, or the same pair twice in one call, is no error.
		for range 2 {
			if err := s.Link(ctx, ac, [][2]any{{a2, c3}, {a1, c2}, {a1, c1}, {a2, c1}, {a1, c2}}); err != nil {
				t.Fatalf("Link: %v", err)
			}
		}
		if got, want := pairs("account_id", a2, a1, 999), [][2]any{p(c1, a1), p(c2, a1), p(c1, a2), p(c3, a2)}; !reflect.DeepEqual(got, want) {
			t.Errorf("Pairs by account = %v, want %v", got, want)
		}
		if got, want := pairs("contact_id", c1, c3), [][2]any{p(a1, c1), p(a2, c1), p(a2, c3)}; !reflect.DeepEqual(got, want) {
			t.Errorf("Pairs by contact = %v, want %v", got, want)
		}
		if got := pairs("account_id"); len(got) != 0 {
			t.Errorf("Pairs of no keys = %v", got)
		}
		// Unlinking a pair that is not linked is no error.
		if err := s.Unlink(ctx, ac, [][2]any{{a1, c2}, {a1, c3}, {a2, c2}}); err != nil {
			t.Fatalf("Unlink: %v", err)
		}
		if got, want := pairs("account_id", a1, a2), [][2]any{p(c1, a1), p(c1, a2), p(c3, a2)}; !reflect.DeepEqual(got, want) {
			t.Errorf("after Unlink: %v, want %v", got, want)
		}
		if err := s.UnlinkAll(ctx, ac, "contact_id", c1); err != nil {
			t.Fatal(err)
		}
		if got, want := pairs("account_id", a1, a2), [][2]any{p(c3, a2)}; !reflect.DeepEqual(got, want) {
			t.Errorf("after UnlinkAll(contact c1): %v, want %v", got, want)
		}
		if err := s.UnlinkAll(ctx, ac, "account_id", a2); err != nil {
			t.Fatal(err)
		}
		if got := pairs("account_id", a1, a2); len(got) != 0 {
			t.Errorf("after UnlinkAll(account a2): %v", got)
		}
		// Nothing to do is fine.
		if err := s.Link(ctx, ac, nil); err != nil {
			t.Error(err)
		}
		if err := s.Unlink(ctx, ac, nil); err != nil {
			t.Error(err)
		}

		// A link to a missing row fails as a whole.
		var fk *storage.ForeignKeyError
		if err := s.Link(ctx, ac, [][2]any{{a1, c1}, {a1, int64(999)}}); !errors.As(err, &fk) || fk.Table != "account_contacts" {
			t.Errorf("Link to a missing contact: %v, want ForeignKeyError", err)
		}
		if got := pairs("account_id", a1); len(got) != 0 {
			t.Errorf("failed Link left %v", got)
		}
		// Only the join table's two columns, and keys of their kind.
		for name, err := range map[string]error{
			"Pairs on a bad column": func() error { _, err := s.Pairs(ctx, ac, "id", []any{a1}); return err }(),
			"Pairs on nil":          func() error { _, err := s.Pairs(ctx, nil, "account_id", []any{a1}); return err }(),
			"UnlinkAll bad column":  s.UnlinkAll(ctx, ac, "account_id; --", a1),
			"UnlinkAll NULL":        s.UnlinkAll(ctx, ac, "account_id", nil),
			"Link NULL":             s.Link(ctx, ac, [][2]any{{a1, nil}}),
			"Link wrong kind":       s.Link(ctx, ac, [][2]any{{a1, "c1"}}),
			"Unlink wrong kind":     s.Unlink(ctx, ac, [][2]any{{"a1", c1}}),
		} {
			if err == nil {
				t.Errorf("%s accepted", name)
			}
		}

		// A join table with a string side, inside a transaction.
		ur := joinTable(t, s, "user_userroles")
		u1, u2 := user(t, s, 1, "u1", nil), user(t, s, 1, "u2", nil)
		err := s.Tx(ctx, func(c *storage.Conn) error {
			return c.Link(ctx, ur, [][2]any{{u2, "ROLE_USER"}, {u1, "ROLE_USER"}, {u1, "ROLE_ADMINISTRATOR"}})
		})
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.Pairs(ctx, ur, "role_code", []any{"ROLE_USER", "ROLE_MANAGER", "ROLE_ADMINISTRATOR"})
		if want := [][2]any{{u1, "ROLE_ADMINISTRATOR"}, {u1, "ROLE_USER"}, {u2, "ROLE_USER"}}; err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("Pairs by role = %v, %v; want %v", got, err, want)
		}
		if err := s.Link(ctx, ur, [][2]any{{u1, "ROLE_NOPE"}}); !errors.As(err, &fk) {
			t.Errorf("Link to an unknown role: %v, want ForeignKeyError", err)
		}
	})
}

// TestVia checks conditions on related rows through a join table
// (account_contacts), inverse foreign keys (users.owner_id,
// accounts.referred_by_id: a table related to itself) and organization_id.
func TestVia(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		ctx := context.Background()
		accounts, contacts, units, orgs := storagetest.Table(t, s, "accounts"), storagetest.Table(t, s, "contacts"), storagetest.Table(t, s, "businessunits"), storagetest.Table(t, s, "organizations")
		a1 := insert(t, s, "accounts", 1, storage.Row{"name": "a1"})
		a2 := insert(t, s, "accounts", 1, storage.Row{"name": "a2", "referred_by_id": a1})
		a3 := insert(t, s, "accounts", 1, storage.Row{"name": "a3", "referred_by_id": a1})
		a4 := insert(t, s, "accounts", 1, storage.Row{"name": "a4", "referred_by_id": a2})
		c1 := insert(t, s, "contacts", 1, storage.Row{"last_name": "c1"})
		c2 := insert(t, s, "contacts", 1, storage.Row{"last_name": "c2"})
		c3 := insert(t, s, "contacts", 1, storage.Row{"last_name": "c3"})
		if err := s.Link(ctx, joinTable(t, s, "account_contacts"), [][2]any{{a1, c1}, {a1, c2}, {a2, c2}, {a3, c3}}); err != nil {
			t.Fatal(err)
		}
		b1 := insert(t, s, "businessunits", 1, storage.Row{"name": "b1"})
		b2 := insert(t, s, "businessunits", 1, storage.Row{"name": "b2"})
		b3 := insert(t, s, "businessunits", 1, storage.Row{"name": "b3"})
		u1 := user(t, s, 1, "u1", storage.Row{"owner_id": b1})
		u2 := user(t, s, 1, "u2", storage.Row{"owner_id": b1})
		u3 := user(t, s, 1, "u3", storage.Row{"owner_id": b2})
		u4 := user(t, s, 1, "u4", nil) // no unit: a NULL that NOT IN must not trip over
		org2 := newOrganization(t, s, "Second")
		newOrganization(t, s, "Third")
		u5 := user(t, s, org2, "u5", nil)

		contactsOf := &storage.Via{Table: "account_contacts", Column: "account_id", Target: "contact_id"}
		accountsOf := &storage.Via{Table: "account_contacts", Column: "contact_id", Target: "account_id"}
		usersOf := &storage.Via{Table: "users", Column: "owner_id", Target: "id"}
		referred := &storage.Via{Table: "accounts", Column: "referred_by_id", Target: "id"}
		orgUsers := &storage.Via{Table: "users", Column: "organization_id", Target: "id"}
		ids := func(ks ...int64) []any {
			out := make([]any, len(ks))
			for i, k := range ks {
				out[i] = k
			}
			return out
		}
		tests := []struct {
			name  string
			table *storage.Table
			cond  storage.Cond
			want  []int64
		}{
			{"eq one", accounts, storage.Cond{Via: contactsOf, Op: storage.Eq, Values: ids(c1)}, []int64{a1}},
			{"eq any", accounts, storage.Cond{Via: contactsOf, Op: storage.Eq, Values: ids(c2, c3)}, []int64{a1, a2, a3}},
			{"eq none", accounts, storage.Cond{Via: contactsOf, Op: storage.Eq}, []int64{}},
			{"eq key column", accounts, storage.Cond{Column: "id", Via: contactsOf, Op: storage.Eq, Values: ids(c3)}, []int64{a3}},
			{"neq", accounts, storage.Cond{Via: contactsOf, Op: storage.Neq, Values: ids(c2)}, []int64{a3, a4}},
			{"neq many", accounts, storage.Cond{Via: contactsOf, Op: storage.Neq, Values: ids(c1, c3)}, []int64{a2, a4}},
			{"neq none", accounts, storage.Cond{Via: contactsOf, Op: storage.Neq}, []int64{a1, a2, a3, a4}},
			{"neq or null", accounts, storage.Cond{Via: contactsOf, Op: storage.NeqOrNull, Values: ids(c2)}, []int64{a3, a4}},
			{"exists", accounts, storage.Cond{Via: contactsOf, Op: storage.Exists}, []int64{a1, a2, a3}},
			{"not exists", accounts, storage.Cond{Via: contactsOf, Op: storage.NotExists}, []int64{a4}},
			{"empty", accounts, storage.Cond{Via: contactsOf, Op: storage.Empty}, []int64{a4}},
			{"not empty", accounts, storage.Cond{Via: contactsOf, Op: storage.NotEmpty}, []int64{a1, a2, a3}},
			{"contains all", accounts, storage.Cond{Via: contactsOf, Op: storage.Contains, Values: ids(c1, c2)}, []int64{a1}},
			{"contains one", accounts, storage.Cond{Via: contactsOf, Op: storage.Contains, Values: ids(c2)}, []int64{a1, a2}},
			{"contains repeated", accounts, storage.Cond{Via: contactsOf, Op: storage.Contains, Values: ids(c2, c2, c1)}, []int64{a1}},
			{"contains unlinked", accounts, storage.Cond{Via: contactsOf, Op: storage.Contains, Values: ids(c1, c3)}, []int64{}},
			{"not contains", accounts, storage.Cond{Via: contactsOf, Op: storage.NotContains, Values: ids(c1, c2)}, []int64{a2, a3, a4}},
			{"other side", contacts, storage.Cond{Via: accountsOf, Op: storage.Eq, Values: ids(a1)}, []int64{c1, c2}},
			{"other side contains", contacts, storage.Cond{Via: accountsOf, Op: storage.Contains, Values: ids(a1, a2)}, []int64{c2}},

			{"fk eq", units, storage.Cond{Via: usersOf, Op: storage.Eq, Values: ids(u1, u4)}, []int64{b1}},
			{"fk neq", units, storage.Cond{Via: usersOf, Op: storage.Neq, Values: ids(u1, u4)}, []int64{b2, b3}},
			{"fk neq or null", units, storage.Cond{Via: usersOf, Op: storage.NeqOrNull, Values: ids(u3)}, []int64{b1, b3}},
			{"fk exists", units, storage.Cond{Via: usersOf, Op: storage.Exists}, []int64{b1, b2}},
			{"fk not exists", units, storage.Cond{Via: usersOf, Op: storage.NotExists}, []int64{b3}},
			{"fk contains", units, storage.Cond{Via: usersOf, Op: storage.Contains, Values: ids(u1, u2)}, []int64{b1}},
			{"fk contains apart", units, storage.Cond{Via: usersOf, Op: storage.Contains, Values: ids(u1, u3)}, []int64{}},
			{"fk contains with null", units, storage.Cond{Via: usersOf, Op: storage.Contains, Values: ids(u4)}, []int64{}},
			{"fk not contains", units, storage.Cond{Via: usersOf, Op: storage.NotContains, Values: ids(u1, u4)}, []int64{b1, b2, b3}},
			{"fk not contains one", units, storage.Cond{Via: usersOf, Op: storage.NotContains, Values: ids(u2)}, []int64{b2, b3}},

			{"self exists", accounts, storage.Cond{Via: referred, Op: storage.Exists}, []int64{a1, a2}},
			{"self not exists", accounts, storage.Cond{Via: referred, Op: storage.NotExists}, []int64{a3, a4}},
			{"self eq", accounts, storage.Cond{Via: referred, Op: storage.Eq, Values: ids(a3, a4)}, []int64{a1, a2}},
			{"self neq", accounts, storage.Cond{Via: referred, Op: storage.Neq, Values: ids(a3)}, []int64{a2, a3, a4}},
			{"self contains", accounts, storage.Cond{Via: referred, Op: storage.Contains, Values: ids(a2, a3)}, []int64{a1}},
			{"self not contains", accounts, storage.Cond{Via: referred, Op: storage.NotContains, Values: ids(a2, a3)}, []int64{a2, a3, a4}},

			{"organization eq", orgs, storage.Cond{Via: orgUsers, Op: storage.Eq, Values: ids(u5)}, []int64{org2}},
			{"organization exists", orgs, storage.Cond{Via: orgUsers, Op: storage.Exists}, []int64{1, org2}},
			{"organization contains", orgs, storage.Cond{Via: orgUsers, Op: storage.Contains, Values: ids(u1, u4)}, []int64{1}},
		}
		for _, tc := range tests {
			q := storage.Query{Table: tc.table, Org: 1, Where: []storage.Cond{tc.cond}}
			if got := keys(t, s, q); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
			}
		}
		// Two conditions on related rows combine with AND and with columns.
		q := storage.Query{Table: accounts, Org: 1, Where: []storage.Cond{
			{Via: contactsOf, Op: storage.Exists},
			{Via: referred, Op: storage.NotExists},
			{Column: "name", Op: storage.Neq, Values: []any{"a1"}},
		}}
		if got := keys(t, s, q); !reflect.DeepEqual(got, []int64{a3}) {
			t.Errorf("combined: got %v, want [%d]", got, a3)
		}
		// The organization still scopes the queried rows.
		if got := keys(t, s, storage.Query{Table: accounts, Org: org2, Where: []storage.Cond{{Via: contactsOf, Op: storage.Exists}}}); len(got) != 0 {
			t.Errorf("organization 2 sees %v", got)
		}
		// DeleteWhere takes them too.
		n, err := s.DeleteWhere(ctx, storage.Query{Table: accounts, Org: 1, Where: []storage.Cond{
			{Via: contactsOf, Op: storage.NotExists}, {Via: referred, Op: storage.NotExists}}}, 10, nil)
		if err != nil || n != 1 {
			t.Errorf("DeleteWhere = %d, %v; want 1 (a4)", n, err)
		}

		for _, c := range []storage.Cond{
			{Via: &storage.Via{Table: "nope", Column: "account_id", Target: "contact_id"}, Op: storage.Eq, Values: ids(c1)},
			{Via: &storage.Via{Table: "account_contacts", Column: "nope", Target: "contact_id"}, Op: storage.Eq, Values: ids(c1)},
			{Via: &storage.Via{Table: "account_contacts", Column: "account_id", Target: "nope"}, Op: storage.Eq, Values: ids(c1)},
			{Via: &storage.Via{Table: "account_contacts", Column: "account_id", Target: "account_id"}, Op: storage.Eq, Values: ids(c1)},
			{Via: &storage.Via{Table: "users", Column: "owner_id; --", Target: "id"}, Op: storage.Exists},
			{Via: &storage.Via{Table: "user_userroles", Column: "role_code", Target: "user_id"}, Op: storage.Exists}, // text vs integer key
			{Via: &storage.Via{Table: "regions", Column: "organization_id", Target: "code"}, Op: storage.Exists},     // regions are not scoped
			{Via: &storage.Via{Table: "users", Column: "owner_id", Target: "emails"}, Op: storage.Eq, Values: []any{"[]"}},
			{Column: "name", Via: contactsOf, Op: storage.Eq, Values: ids(c1)},
			{Via: contactsOf, Op: storage.Lt, Values: ids(c1)},
			{Via: contactsOf, Op: storage.StartsWith, Values: []any{"1"}},
			{Via: contactsOf, Op: storage.Range, Values: ids(c1, c2)},
			{Via: contactsOf, Op: storage.Exists, Values: ids(c1)},
			{Via: contactsOf, Op: storage.Contains},
			{Via: contactsOf, Op: storage.Eq, Values: []any{nil}},
			{Via: contactsOf, Op: storage.Eq, Values: []any{"c1"}},
		} {
			if _, err := s.Find(ctx, storage.Query{Table: accounts, Org: 1, Where: []storage.Cond{c}}); err == nil {
				t.Errorf("condition %+v via %+v accepted", c, *c.Via)
			}
		}
	})
}

func TestOrganizationColumn(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		ctx := context.Background()
		users := storagetest.Table(t, s, "users")
		org2 := newOrganization(t, s, "Second")
		u1 := user(t, s, 1, "u1", nil)
		u2 := user(t, s, 1, "u2", nil)
		user(t, s, org2, "u3", nil)
		byOrg := func(org int64, op storage.Op, values ...any) []int64 {
			return keys(t, s, storage.Query{Table: users, Org: org,
				Where: []storage.Cond{{Column: "organization_id", Op: op, Values: values}}})
		}
		if got := byOrg(1, storage.Eq, int64(1)); !reflect.DeepEqual(got, []int64{u1, u2}) {
			t.Errorf("organization_id = 1: %v", got)
		}
		if got := byOrg(1, storage.Eq, org2); len(got) != 0 {
			t.Errorf("organization_id = 2 seen from 1: %v", got)
		}
		if got := byOrg(1, storage.Neq, org2); !reflect.DeepEqual(got, []int64{u1, u2}) {
			t.Errorf("organization_id <> 2: %v", got)
		}
		// An organization's users, as the organizations resource lists them.
		links, err := s.Linkage(ctx, users, 1, "organization_id", []any{int64(1), org2})
		if want := [][2]any{{u1, int64(1)}, {u2, int64(1)}}; err != nil || !reflect.DeepEqual(links, want) {
			t.Errorf("Linkage by organization = %v, %v; want %v", links, err, want)
		}
		if _, err := s.Linkage(ctx, storagetest.Table(t, s, "regions"), 0, "organization_id", []any{int64(1)}); err == nil {
			t.Error("Linkage by organization_id on regions accepted")
		}
		// Writes still never take it from a row.
		if _, err := s.Insert(ctx, users, 1, storage.Row{"organization_id": org2, "username": "x", "email": "x",
			"first_name": "F", "last_name": "L"}); err == nil {
			t.Error("insert with organization_id accepted")
		}
	})
}

func TestEmpty(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		contacts := storagetest.Table(t, s, "contacts")
		rows := []storage.Row{
			{"first_name": nil, "emails": nil},
			{"first_name": "", "emails": json.RawMessage(`[]`)},
			{"first_name": " ", "emails": json.RawMessage(`[ ]`)},
			{"first_name": "x", "emails": json.RawMessage(`{}`)},
			{"first_name": "y", "emails": json.RawMessage(" {\n} ")},
			{"first_name": "z", "emails": json.RawMessage(`[{"email":"a@b"}]`)},
			{"first_name": "w", "emails": json.RawMessage(`""`)},
			{"first_name": "v", "emails": json.RawMessage(`{"a":[]}`)},
			{"first_name": "u", "emails": json.RawMessage(`0`)},
		}
		var ids []int64
		for _, r := range rows {
			r["last_name"] = "L"
			ids = append(ids, insert(t, s, "contacts", 1, r))
		}
		pick := func(is ...int) []int64 {
			out := []int64{}
			for _, i := range is {
				out = append(out, ids[i])
			}
			return out
		}
		for _, tc := range []struct {
			col  string
			op   storage.Op
			want []int64
		}{
			{"first_name", storage.Empty, pick(0, 1)},
			{"first_name", storage.NotEmpty, pick(2, 3, 4, 5, 6, 7, 8)},
			{"emails", storage.Empty, pick(0, 1, 2, 3, 4)},
			{"emails", storage.NotEmpty, pick(5, 6, 7, 8)},
			{"birthday", storage.Empty, pick(0, 1, 2, 3, 4, 5, 6, 7, 8)},
			{"birthday", storage.NotEmpty, pick()},
			{"id", storage.NotEmpty, pick(0, 1, 2, 3, 4, 5, 6, 7, 8)},
		} {
			got := keys(t, s, storage.Query{Table: contacts, Org: 1, Where: []storage.Cond{{Column: tc.col, Op: tc.op}}})
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("%s op %d: got %v, want %v", tc.col, tc.op, got, tc.want)
			}
		}
	})
}

// TestDeleteReferencedRows checks the ON DELETE actions: to-one references
// become NULL, links go with either end.
func TestDeleteReferencedRows(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		ctx := context.Background()
		accounts, contacts, users, units := storagetest.Table(t, s, "accounts"), storagetest.Table(t, s, "contacts"), storagetest.Table(t, s, "users"), storagetest.Table(t, s, "businessunits")
		ac, ur := joinTable(t, s, "account_contacts"), joinTable(t, s, "user_userroles")
		top := insert(t, s, "businessunits", 1, storage.Row{"name": "top"})
		sub := insert(t, s, "businessunits", 1, storage.Row{"name": "sub", "owner_id": top})
		u := user(t, s, 1, "u", storage.Row{"owner_id": top})
		boss := insert(t, s, "contacts", 1, storage.Row{"last_name": "boss", "owner_id": u, "assigned_to_id": u})
		c := insert(t, s, "contacts", 1, storage.Row{"last_name": "c", "reports_to_id": boss})
		a := insert(t, s, "accounts", 1, storage.Row{"name": "a", "owner_id": u, "default_contact_id": boss})
		b := insert(t, s, "accounts", 1, storage.Row{"name": "b", "referred_by_id": a, "default_contact_id": c})
		if err := s.Link(ctx, ac, [][2]any{{a, boss}, {a, c}, {b, c}}); err != nil {
			t.Fatal(err)
		}
		if err := s.Link(ctx, ur, [][2]any{{u, "ROLE_USER"}}); err != nil {
			t.Fatal(err)
		}
		get := func(tbl *storage.Table, key int64) storage.Row {
			t.Helper()
			row, err := s.Get(ctx, tbl, 1, key)
			if err != nil {
				t.Fatalf("Get(%s, %d): %v", tbl.Name, key, err)
			}
			return row
		}
		expect := func(what string, got any, want any) {
			t.Helper()
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s = %#v, want %#v", what, got, want)
			}
		}

		// A user: owned contacts and accounts lose their owner, roles go.
		if err := s.Delete(ctx, users, 1, u); err != nil {
			t.Fatalf("delete user: %v", err)
		}
		expect("boss owner", get(contacts, boss)["owner_id"], nil)
		expect("boss assignee", get(contacts, boss)["assigned_to_id"], nil)
		expect("account owner", get(accounts, a)["owner_id"], nil)
		if got, err := s.Pairs(ctx, ur, "user_id", []any{u}); err != nil || len(got) != 0 {
			t.Errorf("roles of the deleted user: %v, %v", got, err)
		}
		// A contact: its links go, references to it become NULL.
		if err := s.Delete(ctx, contacts, 1, boss); err != nil {
			t.Fatalf("delete contact: %v", err)
		}
		expect("reports_to", get(contacts, c)["reports_to_id"], nil)
		expect("default contact", get(accounts, a)["default_contact_id"], nil)
		got, err := s.Pairs(ctx, ac, "account_id", []any{a, b})
		expect("links after deleting a contact", got, [][2]any{{c, a}, {c, b}})
		if err != nil {
			t.Fatal(err)
		}
		// An account: its links go, the accounts it referred lose the reference.
		if err := s.Delete(ctx, accounts, 1, a); err != nil {
			t.Fatalf("delete account: %v", err)
		}
		expect("referred_by", get(accounts, b)["referred_by_id"], nil)
		expect("b's default contact", get(accounts, b)["default_contact_id"], c)
		got, _ = s.Pairs(ctx, ac, "contact_id", []any{c})
		expect("links after deleting an account", got, [][2]any{{b, c}})
		// A business unit: child units and users lose their owner.
		u2 := user(t, s, 1, "u2", storage.Row{"owner_id": top})
		if err := s.Delete(ctx, units, 1, top); err != nil {
			t.Fatalf("delete unit: %v", err)
		}
		expect("sub-unit owner", get(units, sub)["owner_id"], nil)
		expect("user's unit", get(users, u2)["owner_id"], nil)
		// Deleting many at once works the same.
		n, err := s.DeleteWhere(ctx, storage.Query{Table: contacts, Org: 1}, 10, nil)
		if err != nil || n != 1 {
			t.Errorf("DeleteWhere(contacts) = %d, %v", n, err)
		}
		expect("b's default contact after DeleteWhere", get(accounts, b)["default_contact_id"], nil)
		if got, _ := s.Pairs(ctx, ac, "account_id", []any{b}); len(got) != 0 {
			t.Errorf("links after DeleteWhere(contacts): %v", got)
		}
		// A reference to a missing row is still refused.
		var fk *storage.ForeignKeyError
		if _, err := s.Insert(ctx, accounts, 1, storage.Row{"name": "x", "owner_id": int64(999)}); !errors.As(err, &fk) {
			t.Errorf("owner 999: %v, want ForeignKeyError", err)
		}
	})
}

// TestRegionsIndex checks that migration 0002 replaced the regions index.
func TestRegionsIndex(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		query := "SELECT indexname FROM pg_indexes WHERE tablename = 'regions' AND indexname LIKE 'regions_country%'"
		if s.Dialect() == "sqlite" {
			query = "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'regions' AND name LIKE 'regions_country%'"
		}
		var got []string
		if err := s.DB().NewRaw(query).Scan(context.Background(), &got); err != nil {
			t.Fatal(err)
		}
		slices.Sort(got)
		if want := []string{"regions_country_code_code_idx"}; !reflect.DeepEqual(got, want) {
			t.Errorf("regions indexes %v, want %v", got, want)
		}
	})
}
