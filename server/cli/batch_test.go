package cli

// The batch client is a command of its own, in server/cli/batchclient; what
// is tested here is that the command line reaches it as a client of a
// running server, and that its defaults are the server's.

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/entityapi/entityapi/server/cli/batchclient"
)

// TestBatchClientOpensNoDatabase runs `entityapi batch status` through run
// with a database URL that cannot be opened: the command must get as far as
// the server (here: none), because it must never touch the database.
func TestBatchClientOpensNoDatabase(t *testing.T) {
	t.Setenv("ENTITYAPI_DATABASE_URL", "postgres://nobody@127.0.0.1:1/nothing?connect_timeout=1")
	err := run(context.Background(), []string{"batch", "status", "1", "--url", "http://127.0.0.1:1/admin",
		"--client-id", "x", "--client-secret", "y"}, io.Discard, io.Discard)
	if err == nil || !strings.HasPrefix(err.Error(), "token: Post") {
		t.Fatalf("run batch status: %v, want the token request to fail, not the database", err)
	}
	if batchclient.ExitCode(err) != batchclient.ExitRefused {
		t.Errorf("exit code %d, want %d", batchclient.ExitCode(err), batchclient.ExitRefused)
	}
}

// TestBatchClientDefaultURL: the batch client's default --url is the back
// office of a server started with the default settings.
func TestBatchClientDefaultURL(t *testing.T) {
	c, err := parseWith("serve", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := "http://" + c.addr + c.backofficeBase; batchclient.DefaultURL != want {
		t.Errorf("batchclient.DefaultURL = %q, the default --addr and --backoffice-base make %q", batchclient.DefaultURL, want)
	}
}
