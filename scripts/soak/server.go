package main

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"

	"github.com/entityapi/entityapi/scripts/internal/localserver"
)

// startServer builds the binary into dir and starts `entityapi serve --demo`
// on a free loopback port on databaseURL (the embedded SQLite default when it
// is empty), the way users start it, with a token lifetime longer than any
// soak, its profiles on debugAddr and the caller's extra flags; it returns
// once the server is ready.
func startServer(ctx context.Context, dir, databaseURL, debugAddr string, extra []string) (*localserver.Process, error) {
	bin := filepath.Join(dir, "entityapi")
	if err := localserver.Build(ctx, "", "github.com/entityapi/entityapi", bin); err != nil {
		return nil, fmt.Errorf("go build: %w", err)
	}
	addr, err := localserver.FreeAddr()
	if err != nil {
		return nil, err
	}
	args := []string{"serve", "--demo", "--data-dir", filepath.Join(dir, "data"), "--addr", addr, "--token-ttl", "86400", "--debug-addr", debugAddr}
	if databaseURL != "" {
		args = append(args, "--database-url", databaseURL)
	}
	args = append(args, extra...)
	srv, err := localserver.Start("server", bin, args, addr, filepath.Join(dir, "server.log"))
	if err != nil {
		return nil, err
	}
	if err := srv.AwaitReady(ctx, http.DefaultClient); err != nil {
		srv.Stop(true)
		return nil, err
	}
	return srv, nil
}
