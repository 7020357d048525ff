package localserver

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// adminTimeout bounds one statement on the admin connection: CREATE and DROP
// DATABASE are quick unless the server is unreachable.
const adminTimeout = 30 * time.Second

// Database is a PostgreSQL database made for one run, so that a measurement
// starts from the same empty state every time and leaves nothing behind.
type Database struct {
	Name    string // entityapi_<program>_<random>
	URL     string // the admin URL with this database's name as its path
	Version string // the server's version, e.g. "17.2", for the report
	admin   string
}

// CreateDatabase creates a database named prefix plus random hex on the
// server of admin (a postgres:// URL given by source, the flag or variable
// named in the error when it is not one). Drop removes it.
func CreateDatabase(ctx context.Context, admin, source, prefix string) (*Database, error) {
	u, err := url.Parse(admin)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return nil, fmt.Errorf("%s must be a postgres:// URL", source)
	}
	d := &Database{Name: prefix + randomHex(), admin: admin}
	d.URL = databaseURL(u, d.Name)
	cctx, cancel := context.WithTimeout(ctx, adminTimeout)
	defer cancel()
	conn, err := pgx.Connect(cctx, admin)
	if err != nil {
		return nil, fmt.Errorf("postgres admin connection: %w", err)
	}
	defer conn.Close(context.Background())
	var version string
	if err := conn.QueryRow(cctx, "SHOW server_version").Scan(&version); err != nil {
		return nil, fmt.Errorf("postgres server version: %w", err)
	}
	if fields := strings.Fields(version); len(fields) > 0 {
		d.Version = fields[0] // "17.2 (Debian 17.2-1.pgdg120+1)": the number is enough
	}
	stmt := "CREATE DATABASE " + pgx.Identifier{d.Name}.Sanitize()
	if _, err := conn.Exec(cctx, stmt); err != nil {
		return nil, fmt.Errorf("%s: %w", stmt, err)
	}
	return d, nil
}

// Drop drops the database, closing what still connects to it (WITH FORCE):
// it runs after the server has stopped, or after a failure when it may not
// have. It uses its own context so that it runs after an interrupt too.
func (d *Database) Drop() error {
	ctx, cancel := context.WithTimeout(context.Background(), adminTimeout)
	defer cancel()
	conn, err := pgx.Connect(ctx, d.admin)
	if err != nil {
		return fmt.Errorf("postgres admin connection: %w", err)
	}
	defer conn.Close(context.Background())
	stmt := "DROP DATABASE IF EXISTS " + pgx.Identifier{d.Name}.Sanitize() + " WITH (FORCE)"
	if _, err := conn.Exec(ctx, stmt); err != nil {
		return fmt.Errorf("%s: %w", stmt, err)
	}
	return nil
}

// databaseURL is admin's URL with name as its database, keeping the user,
// host and parameters (sslmode) the admin connection works with.
func databaseURL(admin *url.URL, name string) string {
	u := *admin
	u.Path, u.RawPath = "/"+name, ""
	return u.String()
}

// randomHex makes database names unique among concurrent runs on one server.
func randomHex() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
