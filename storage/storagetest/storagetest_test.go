package storagetest

import (
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"testing"
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
