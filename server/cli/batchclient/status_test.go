package batchclient

// `entityapi batch status` and `entityapi batch errors` against a real server,
// and the promise that no batch command opens the database.

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/entityapi/entityapi/storage/storagetest"
)

// submitted reads the operation id from what `batch submit` printed.
var submittedID = regexp.MustCompile(`(?m)^operation (\d+) (success|failed|cancelled) after`)

func TestBatchClientStatusAndErrors(t *testing.T) {
	// 30 accounts, 25 of them without a name: 25 errors, more than two pages
	// of 10, so `batch errors --page-size 10` must follow the next links.
	blank := make([]int, 25)
	for i := range blank {
		blank[i] = i + 5
	}
	for _, dialect := range storagetest.Dialects() {
		t.Run(dialect, func(t *testing.T) {
			b := setupBatch(t, dialect)
			b.file(t, "errors.json", accounts(30, "errs", blank...))
			sub := b.run(t, false, nil, "", append(append([]string{"submit"}, creds...),
				"--type", "accounts", "--file", "$DIR/errors.json", "--max-errors", "3")...)
			if sub.code != ExitItemErrors {
				t.Fatalf("submit: exit code %d, want %d\n%s%s", sub.code, ExitItemErrors, sub.stdout, sub.stderr)
			}
			if n := strings.Count(sub.stdout, "not blank constraint"); n != 3 {
				t.Errorf("submit --max-errors 3 printed %d errors:\n%s", n, sub.stdout)
			}
			m := submittedID.FindStringSubmatch(sub.stdout)
			if m == nil {
				t.Fatalf("no operation id in:\n%s", sub.stdout)
			}
			id := m[1]

			status := b.run(t, false, nil, "", append(append([]string{"status"}, creds...), id)...)
			expectOutput(t, "status", status.stdout, []string{
				"operation " + id + " (accounts): success, progress 100.00%",
				"30 read, 5 written (5 created, 0 updated), item errors: 25",
			}, nil)
			if status.code != ExitOK {
				t.Errorf("status: exit code %d, want 0\n%s", status.code, status.stderr)
			}

			// The ID may come before the flags too.
			errs := b.run(t, false, nil, "", append([]string{"errors", id, "--page-size", "10"}, creds...)...)
			if errs.code != ExitOK {
				t.Fatalf("errors: exit code %d, want 0\n%s", errs.code, errs.stderr)
			}
			lines := strings.Split(strings.TrimSpace(errs.stdout), "\n")
			if len(lines) != 25 {
				t.Fatalf("errors printed %d lines, want 25:\n%s", len(lines), errs.stdout)
			}
			for i, line := range lines {
				pointer := fmt.Sprintf("  /data/%d/attributes/name  not blank constraint", i+5)
				if !strings.Contains(line, pointer) || !strings.HasPrefix(strings.TrimSpace(line), id+"-1-") {
					t.Errorf("error %d: %q, want operation %s's error at %q", i, line, id, pointer)
				}
			}

			// A batch can outlive its token: a 401 while following it
			// fetches a new one.
			expired, err := newAPIClient(&options{url: b.url, clientID: b.clientID, secret: b.secret}, &http.Client{})
			if err != nil {
				t.Fatal(err)
			}
			expired.token = "expired"
			if op, err := expired.operation(context.Background(), id); err != nil || op.Status != "success" {
				t.Errorf("reading the operation with an expired token: %+v, %v; want it read with a new token", op, err)
			}

			for _, tt := range []struct {
				name string
				args []string
				want string
			}{
				{"unknown operation", []string{"status", "999999"}, "404 Not Found"},
				{"errors of an unknown operation", []string{"errors", "999999"}, "404 Not Found"},
				{"no id", []string{"status"}, "usage: entityapi batch status ID"},
				{"page size out of range", []string{"errors", id, "--page-size", "0"}, "usage: entityapi batch errors ID"},
				{"unknown subcommand", []string{"remove", id}, "usage: entityapi batch COMMAND"},
			} {
				t.Run(tt.name, func(t *testing.T) {
					got := b.run(t, false, nil, "", append(append([]string(nil), tt.args...), creds...)...)
					if got.code != ExitRefused || !strings.Contains(got.stderr, tt.want) {
						t.Errorf("exit code %d, stderr %q; want %d and %q", got.code, got.stderr, ExitRefused, tt.want)
					}
				})
			}
		})
	}
}

// TestBatchClientHelpHidesSecret: -h lists the flags without printing the
// credentials the environment holds (they were once the flags' defaults).
func TestBatchClientHelpHidesSecret(t *testing.T) {
	for _, sub := range []string{"submit", "status", "errors"} {
		var stdout, stderr bytes.Buffer
		env := map[string]string{"ENTITYAPI_CLIENT_SECRET": "s3cret-from-env", "ENTITYAPI_CLIENT_ID": "id-from-env"}
		err := run(context.Background(), []string{sub, "-h"}, runEnv{stdout: &stdout, stderr: &stderr,
			getenv: func(k string) string { return env[k] }, hc: &http.Client{}})
		if err != nil {
			t.Errorf("batch %s -h: %v", sub, err)
		}
		out := stdout.String() + stderr.String()
		if !strings.Contains(out, "-client-secret") || strings.Contains(out, "s3cret-from-env") || strings.Contains(out, "id-from-env") {
			t.Errorf("batch %s -h printed:\n%s", sub, out)
		}
	}
}
