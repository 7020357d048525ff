package postgres

import (
	"context"
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"
)

// Unavailable recognizes the errors of a server that cannot be reached or
// cannot work now: the connection could not be made or was cut, or the
// server (or a pooler in front of it) refused the work for its own state.
// The statement did not happen, or its transaction rolled back: what the
// client sent may be sent again.
//
// A cancelled or expired context is not the server's condition: pgx reports
// it as safe to retry, but it is the caller's own deadline.
func (d *DB) Unavailable(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return unavailableState(pe.Code, pe.Message)
	}
	var ce *pgconn.ConnectError
	var ne net.Error
	switch {
	case errors.As(err, &ce), errors.As(err, &ne),
		errors.Is(err, pgconn.ErrConnClosed), errors.Is(err, driver.ErrBadConn),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE),
		pgconn.SafeToRetry(err):
		return true
	}
	// pgx's own "conn closed" and "conn busy" errors are unexported.
	msg := err.Error()
	return strings.HasSuffix(msg, "conn closed") || strings.Contains(msg, "closed pool")
}

// unavailableState reads a SQLSTATE (and, for PgBouncer's errors, which
// carry a generic code, the message) as the server's condition.
func unavailableState(code, msg string) bool {
	switch {
	case strings.HasPrefix(code, "08"): // connection exception
		return true
	case code == "57P01", code == "57P02", code == "57P03": // admin or crash shutdown, cannot connect now
		return true
	case code == "53300", code == "53400": // too many connections, configuration limit
		return true
	case code == "25006": // read-only transaction: a primary that became a replica
		return true
	}
	// PgBouncer answers its own conditions with 08P01 (already above) or
	// XX000 and a message of its own.
	for _, m := range []string{"server conn crashed", "no more connections allowed", "pgbouncer cannot connect to server",
		"query_wait_timeout", "server login retry", "database is paused", "server shutting down"} {
		if strings.Contains(msg, m) {
			return true
		}
	}
	return false
}
