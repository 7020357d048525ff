package authstore_test

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/authstore"
	"github.com/entityapi/entityapi/storage/secret"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// newUser stores an enabled user of org with a password and roles.
func newUser(t *testing.T, s *storage.Store, org int64, username, email string, roles ...string) *storage.User {
	t.Helper()
	hash, err := secret.Hash("pw-" + username)
	if err != nil {
		t.Fatal(err)
	}
	u := &storage.User{OrganizationID: org, Username: username, Email: email, FirstName: "F", LastName: "L",
		Enabled: true, PasswordHash: &hash}
	if err := authstore.New(s).CreateUser(context.Background(), u, roles); err != nil {
		t.Fatalf("CreateUser(%s): %v", username, err)
	}
	return u
}

func TestCreateOrganization(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		a := authstore.New(s)
		ctx := context.Background()
		before := time.Now()
		o, err := a.CreateOrganization(ctx, "Second")
		if err != nil {
			t.Fatal(err)
		}
		if o.ID < 2 || !o.Enabled || o.Name != "Second" {
			t.Errorf("CreateOrganization = %+v", o)
		}
		got, err := a.OrganizationByName(ctx, "Second")
		if err != nil || got.ID != o.ID || !got.Enabled {
			t.Fatalf("OrganizationByName(Second) = %+v, %v", got, err)
		}
		storagetest.CheckStamp(t, got.CreatedAt, before)
		tests := []struct {
			name string
			run  func() error
			want func(error) bool
		}{
			{"duplicate name", func() error { _, err := a.CreateOrganization(ctx, "Main"); return err }, isUnique("name")},
			{"unknown name", func() error { _, err := a.OrganizationByName(ctx, "Nope"); return err }, isNotFound},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				if err := tc.run(); !tc.want(err) {
					t.Errorf("error = %v", err)
				}
			})
		}
	})
}

func TestCreateUser(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		a := authstore.New(s)
		ctx := context.Background()
		u := newUser(t, s, 1, "alice", "alice@example.com", "ROLE_USER", "ROLE_ADMINISTRATOR")
		if u.ID == 0 {
			t.Fatal("CreateUser left ID 0")
		}
		got, err := a.UserByID(ctx, u.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Username != "alice" || got.Email != "alice@example.com" || !got.Enabled || got.Demo ||
			got.PasswordHash == nil || !secret.Verify(*got.PasswordHash, "pw-alice") || got.CreatedAt.Location() != time.UTC {
			t.Errorf("UserByID = %+v", got)
		}
		roles, err := a.UserRoles(ctx, u.ID)
		if err != nil || !reflect.DeepEqual(roles, []string{"ROLE_ADMINISTRATOR", "ROLE_USER"}) {
			t.Errorf("UserRoles = %v, %v; want sorted", roles, err)
		}
		bob := newUser(t, s, 1, "bob", "bob@example.com")
		if roles, err := a.UserRoles(ctx, bob.ID); err != nil || roles == nil || len(roles) != 0 {
			t.Errorf("UserRoles(no roles) = %#v, %v; want empty", roles, err)
		}

		tests := []struct {
			name  string
			user  storage.User
			roles []string
			want  func(error) bool
		}{
			{"taken username", storage.User{OrganizationID: 1, Username: "alice", Email: "other@example.com"}, nil, isUnique("username")},
			{"taken email", storage.User{OrganizationID: 1, Username: "carol", Email: "alice@example.com"}, nil, isUnique("email")},
			{"unknown role", storage.User{OrganizationID: 1, Username: "dave", Email: "dave@example.com"}, []string{"ROLE_NOPE"}, isForeignKey},
			{"unknown organization", storage.User{OrganizationID: 999, Username: "erin", Email: "erin@example.com"}, nil, isForeignKey},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				u := tc.user
				if err := a.CreateUser(ctx, &u, tc.roles); !tc.want(err) {
					t.Fatalf("CreateUser error = %v", err)
				}
				// The transaction left nothing behind.
				if got, err := a.UserByLogin(ctx, u.Email); tc.name != "taken email" && !errors.Is(err, storage.ErrNotFound) {
					t.Errorf("after the failure, UserByLogin(%s) = %+v, %v", u.Email, got, err)
				}
			})
		}
		if _, err := a.UserByID(ctx, 99999); !errors.Is(err, storage.ErrNotFound) {
			t.Errorf("UserByID(missing) error = %v", err)
		}
	})
}

func TestUserByLogin(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		a := authstore.New(s)
		ctx := context.Background()
		alice := newUser(t, s, 1, "alice", "Alice@Example.com")
		tricky := newUser(t, s, 1, "bob@example.com", "robert@example.com")
		bob := newUser(t, s, 1, "bob", "bob@example.com")
		upper := newUser(t, s, 1, "carol", "CAROL@example.com")
		lower := newUser(t, s, 1, "carol2", "carol@example.com")
		tests := []struct {
			login string
			want  int64 // 0: ErrNotFound
		}{
			{"alice", alice.ID},
			{"Alice@Example.com", alice.ID},
			{"alice@example.com", alice.ID},
			{"ALICE", 0},
			{"bob@example.com", tricky.ID},
			{"bob", bob.ID},
			{"CAROL@example.com", upper.ID},
			{"carol@example.com", lower.ID},
			{"Carol@example.com", 0},
			{"nobody", 0},
			{"", 0},
		}
		for _, tc := range tests {
			t.Run(tc.login, func(t *testing.T) {
				u, err := a.UserByLogin(ctx, tc.login)
				switch {
				case tc.want == 0 && !errors.Is(err, storage.ErrNotFound):
					t.Errorf("UserByLogin = %+v, %v; want ErrNotFound", u, err)
				case tc.want != 0 && (err != nil || u.ID != tc.want):
					t.Errorf("UserByLogin = %+v, %v; want user %d", u, err, tc.want)
				}
			})
		}
	})
}

func TestUsersDemoColumn(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		ctx := context.Background()
		users := storagetest.Table(t, s, "users")
		if users.Columns["demo"] != storage.KindBool {
			t.Fatalf("users.demo kind = %v", users.Columns["demo"])
		}
		id, err := s.Insert(ctx, users, 1, storage.Row{"username": "g", "email": "g@example.com", "first_name": "G",
			"last_name": "H", "enabled": true})
		if err != nil {
			t.Fatal(err)
		}
		row, err := s.Get(ctx, users, 1, id)
		if err != nil || row["demo"] != false {
			t.Errorf("a user inserted without demo: %v, %v; want demo false", row["demo"], err)
		}
	})
}

func isNotFound(err error) bool   { return errors.Is(err, storage.ErrNotFound) }
func isForeignKey(err error) bool { var fk *storage.ForeignKeyError; return errors.As(err, &fk) }

// isUnique matches a *UniqueError naming exactly the columns.
func isUnique(columns ...string) func(error) bool {
	return func(err error) bool {
		var ue *storage.UniqueError
		return errors.As(err, &ue) && reflect.DeepEqual(ue.Columns, columns)
	}
}
