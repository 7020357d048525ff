package storagetest

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/authstore"
)

// fatalTB records the first Fatalf and stops the calling goroutine, as
// testing.T does, so that the helpers' failures can be checked.
type fatalTB struct {
	testing.TB
	msg string
}

func (f *fatalTB) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// fatal runs fn with a fatalTB and returns the Fatalf message ("" if none).
func fatal(t *testing.T, fn func(tb testing.TB)) string {
	f := &fatalTB{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn(f)
	}()
	<-done
	return f.msg
}

func TestDialects(t *testing.T) {
	t.Setenv(EnvURL, "")
	if got := Dialects(); !reflect.DeepEqual(got, []string{"sqlite"}) {
		t.Errorf("Dialects() without %s = %v", EnvURL, got)
	}
	t.Setenv(EnvURL, "postgres://x@127.0.0.1:1/db")
	if got := Dialects(); !reflect.DeepEqual(got, []string{"sqlite", "postgres"}) {
		t.Errorf("Dialects() with %s = %v", EnvURL, got)
	}
}

func TestFailsInsteadOfSkipping(t *testing.T) {
	tests := []struct {
		name, ci, url, dialect, want string
	}{
		{"CI without PostgreSQL", "true", "", "sqlite", "CI must set TEST_DATABASE_URL"},
		{"unreachable server", "", "postgres://postgres@127.0.0.1:1/postgres?sslmode=disable", "postgres", "unreachable"},
		{"not a URL", "", "host=localhost dbname=x", "postgres", "must be a postgres:// URL"},
		{"postgres without server", "", "", "postgres", "not set"},
		{"unknown dialect", "", "", "mysql", "unknown dialect"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("CI", tc.ci)
			t.Setenv(EnvURL, tc.url)
			msg := fatal(t, func(tb testing.TB) { Open(tb, tc.dialect) })
			if !strings.Contains(msg, tc.want) {
				t.Errorf("Fatalf message %q, want it to contain %q", msg, tc.want)
			}
		})
	}
}

func TestOpenSQLite(t *testing.T) {
	t.Setenv("CI", "")
	s := Open(t, "sqlite")
	if s.Dialect() != "sqlite" {
		t.Errorf("Dialect() = %q", s.Dialect())
	}
	if _, ok := s.Table("countries"); !ok {
		t.Error("store has no countries table")
	}
}

// TestMain runs the tests under Main, as the packages that use storagetest
// do, so that Open copies the templates of template.go.
func TestMain(m *testing.M) { Main(m) }

// TestTemplateCopies: under Main, the stores of a dialect are copies of one
// template made once: each migrated, each its own database.
func TestTemplateCopies(t *testing.T) {
	t.Setenv("CI", "")
	ctx := context.Background()
	for _, d := range Dialects() {
		t.Run(d, func(t *testing.T) {
			first, second := Open(t, d), Open(t, d)
			for _, s := range []*storage.Store{first, second} {
				if _, ok := s.Table("countries"); !ok {
					t.Fatal("a copy has no countries table")
				}
			}
			if _, err := authstore.New(first).CreateOrganization(ctx, "Only in the first"); err != nil {
				t.Fatal(err)
			}
			if org, err := authstore.New(second).OrganizationByName(ctx, "Only in the first"); err == nil {
				t.Errorf("the second copy has the first's organization %d", org.ID)
			}
			key := templateKey(d)
			templates.Lock()
			tp := templates.byKey[key]
			templates.Unlock()
			if tp == nil || !tp.made || tp.remove == nil {
				t.Errorf("the template of %q is %+v, want one made, with its removal", key, tp)
			}
		})
	}
}

// TestTemplateRetriesAfterAFailure: a template that could not be made (an
// unreachable server) is not remembered: the next Open tries again.
func TestTemplateRetriesAfterAFailure(t *testing.T) {
	t.Setenv("CI", "")
	t.Setenv(EnvURL, "postgres://postgres@127.0.0.1:1/postgres?sslmode=disable")
	for range 2 {
		msg := fatal(t, func(tb testing.TB) { Open(tb, "postgres") })
		if !strings.Contains(msg, "unreachable") {
			t.Errorf("Fatalf message %q, want it to contain unreachable", msg)
		}
	}
	templates.Lock()
	tp := templates.byKey[templateKey("postgres")]
	templates.Unlock()
	if tp == nil || tp.made || tp.remove != nil {
		t.Errorf("the failed template is %+v, want one not made", tp)
	}
}

// TestThroughThePooler: with TEST_DATABASE_POOLER_URL the stores reach their
// server through the pooler, with storage.PoolerTransaction: the server
// answers on its own port, not the pooler's. make test-pooler requires it
// to pass, so that a pooled run that went direct cannot pass unnoticed.
func TestThroughThePooler(t *testing.T) {
	pooler := os.Getenv(EnvPoolerURL)
	if pooler == "" {
		t.Skip("no pooler: TEST_DATABASE_POOLER_URL is not set")
	}
	s := Open(t, "postgres")
	if s.Pooler() != storage.PoolerTransaction {
		t.Errorf("the store's pooler is %q, want %q", s.Pooler(), storage.PoolerTransaction)
	}
	u, err := url.Parse(pooler)
	if err != nil {
		t.Fatal(err)
	}
	var serverPort int
	if err := s.DB().QueryRowContext(context.Background(), "SELECT inet_server_port()").Scan(&serverPort); err != nil {
		t.Fatal(err)
	}
	if strconv.Itoa(serverPort) == u.Port() {
		t.Errorf("the server answers on the pooler's port %d: the store went direct", serverPort)
	}
}
