package localserver

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
)

// Demo is this module's server, built and serving its demo data on a free
// port, on SQLite in a scratch directory or on a PostgreSQL database made
// for the run: what a measurement program (batchload, cursorwalk) drives.
type Demo struct {
	*Process
	Database string // "sqlite", or the scheme of the database URL
	tmp      string
	db       *Database
}

// StartDemo builds the module and starts it with --demo, ready and
// answering. program names the scratch directory and database; databaseURL,
// when set, is the database to serve (else SQLite in the scratch
// directory); pgAdmin, when set, is a PostgreSQL admin URL on which a fresh
// database is made (and dropped by Stop) instead. extra are more serve flags.
func StartDemo(ctx context.Context, program, databaseURL, pgAdmin string, extra ...string) (d *Demo, err error) {
	d = &Demo{Database: "sqlite"}
	if d.tmp, err = os.MkdirTemp("", program+"-"); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			err = errors.Join(err, d.Stop(true))
			d = nil
		}
	}()
	if pgAdmin != "" {
		if d.db, err = CreateDatabase(ctx, pgAdmin, "-postgres-admin", "entityapi_"+program+"_"); err != nil {
			return d, err
		}
		databaseURL = d.db.URL
	}
	if databaseURL != "" {
		d.Database = strings.SplitN(databaseURL, ":", 2)[0]
	}
	bin := filepath.Join(d.tmp, "entityapi")
	if err := Build(ctx, "", "github.com/entityapi/entityapi", bin); err != nil {
		return d, fmt.Errorf("go build: %w", err)
	}
	addr, err := FreeAddr()
	if err != nil {
		return d, err
	}
	args := []string{"serve", "--demo", "--data-dir", filepath.Join(d.tmp, "data"), "--addr", addr, "--token-ttl", "86400"}
	if databaseURL != "" {
		args = append(args, "--database-url", databaseURL)
	}
	if d.Process, err = Start("server", bin, append(args, extra...), addr, filepath.Join(d.tmp, "server.log")); err != nil {
		return d, err
	}
	return d, d.AwaitReady(ctx, http.DefaultClient)
}

// Stop stops the server (showing its log's end when failed), drops the
// database made for it and removes the scratch directory.
func (d *Demo) Stop(failed bool) error {
	if d.Process != nil {
		d.Process.Stop(failed)
	}
	var err error
	if d.db != nil {
		err = d.db.Drop()
	}
	return errors.Join(err, os.RemoveAll(d.tmp))
}
