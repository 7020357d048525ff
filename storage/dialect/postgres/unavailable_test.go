package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// TestUnavailable: the server's own conditions read as unavailable, the
// request's faults and the caller's own deadline do not.
func TestUnavailable(t *testing.T) {
	t.Parallel()
	d := &DB{}
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"shutting down", &pgconn.PgError{Code: "57P01", Message: "terminating connection due to administrator command"}, true},
		{"starting up", &pgconn.PgError{Code: "57P03", Message: "the database system is starting up"}, true},
		{"connection failure", &pgconn.PgError{Code: "08006"}, true},
		{"too many connections", &pgconn.PgError{Code: "53300"}, true},
		{"read-only after a failover", &pgconn.PgError{Code: "25006"}, true},
		{"pgbouncer lost its server", &pgconn.PgError{Code: "XX000", Message: "server conn crashed?"}, true},
		{"refused", fmt.Errorf("query: %w", syscall.ECONNREFUSED), true},
		{"cut", fmt.Errorf("read: %w", io.ErrUnexpectedEOF), true},
		{"pool closed", errors.New("closed pool"), true},
		{"unique violation", &pgconn.PgError{Code: "23505"}, false},
		{"syntax", &pgconn.PgError{Code: "42601"}, false},
		{"statement timeout", &pgconn.PgError{Code: "57014"}, false},
		{"the caller's deadline", fmt.Errorf("query: %w", context.DeadlineExceeded), false},
		{"the caller left", context.Canceled, false},
		{"nothing", nil, false},
	}
	for _, tt := range tests {
		if got := d.Unavailable(tt.err); got != tt.want {
			t.Errorf("%s: Unavailable(%v) = %v, want %v", tt.name, tt.err, got, tt.want)
		}
	}
}
