package server_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/entityapi/entityapi/server"
	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/jobs"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// batchUser is one user of a batch body with the given password attribute
// (raw JSON, "" for none).
func batchUser(name, password string) string {
	attrs := fmt.Sprintf(`"username":%q,"email":"%s@batch.example","firstName":"Batch","lastName":%q`, name, name, name)
	if password != "" {
		attrs += `,"password":` + password
	}
	return `{"type":"users","attributes":{` + attrs + `}}`
}

// TestBatchPasswordsNeverStaged: the staged items of an asynchronous batch of
// users hold no password in plain text (read straight from the database while
// no worker runs); once a worker has run the chunk, the users log in with
// their passwords (hashed once, before staging), and the passwords the rules
// refuse are per-item errors pointing into the original request.
func TestBatchPasswordsNeverStaged(t *testing.T) {
	t.Parallel()
	good := []string{"first-secret-password", "second-secret-pässword"}
	tooShort, tooManyBytes := "Sh0rt!", strings.Repeat("é", 40) // 40 characters, 80 bytes: over bcrypt's 72
	escaped := "third-secret-password"
	for _, dialect := range storagetest.Dialects() {
		t.Run(dialect, func(t *testing.T) {
			store := storagetest.Open(t, dialect)
			a := newAPIWith(t, store, func(c *server.Config) { c.Jobs.NoWorkers = true })
			body := `{"data":[` + strings.Join([]string{
				batchUser("batch-one", fmt.Sprintf("%q", good[0])),
				batchUser("batch-two", fmt.Sprintf("%q", good[1])),
				batchUser("batch-short", fmt.Sprintf("%q", tooShort)),
				batchUser("batch-long", fmt.Sprintf("%q", tooManyBytes)),
				// the attribute's name escaped, so that no byte search finds it
				strings.Replace(batchUser("batch-three", fmt.Sprintf("%q", escaped)), `"password"`, `"pass\u0077ord"`, 1),
			}, ",") + `]}`
			r := a.do(http.MethodPatch, "/admin/api/users", jsonAPI, body).want(t, 202)
			id, _ := get(r.doc, "data/id").(string)

			var staged []string
			if err := store.DB().NewSelect().Table("async_operation_chunks").Column("items").
				Where("operation_id = ?", id).Scan(context.Background(), &staged); err != nil {
				t.Fatal(err)
			}
			if len(staged) != 1 {
				t.Fatalf("%d staged chunks, want 1", len(staged))
			}
			for _, secret := range append(good, tooShort, tooManyBytes, escaped) {
				if strings.Contains(staged[0], secret) {
					t.Errorf("a staged item holds the password %q in plain text:\n%s", secret, staged[0])
				}
			}

			runWorkers(t, store)
			done := a.awaitOperation(t, id)
			checkValues(t, done, map[string]any{"data/attributes/status": "success",
				"data/attributes/summary/writeCount": 3.0, "data/attributes/summary/errorCount": 2.0})
			errs := a.do(http.MethodGet, "/admin/api/asyncoperations/"+id+"/errors", jsonAPI, "").want(t, 200)
			checkValues(t, errs, map[string]any{
				"data/0/attributes/source/pointer": "/data/2/attributes/password", "data/0/attributes/title": "length constraint",
				"data/0/attributes/detail":         "This value is too short. It should have 8 characters or more.",
				"data/1/attributes/source/pointer": "/data/3/attributes/password", "data/1/attributes/title": "length constraint",
				"data/1/attributes/detail": "This value is too long. It should have 72 bytes or less.",
			})
			for user, password := range map[string]string{"batch-one": good[0], "batch-two": good[1], "batch-three": escaped} {
				if status := passwordGrant(t, a, user, password); status != 200 {
					t.Errorf("password grant of %s: %d, want 200", user, status)
				}
			}
			if status := passwordGrant(t, a, "batch-one", good[1]); status == 200 {
				t.Errorf("password grant of batch-one with another's password: 200")
			}
		})
	}
}

// runWorkers starts a second server on store whose workers process what is
// queued, as another process of a deployment would.
func runWorkers(t *testing.T, store *storage.Store) {
	t.Helper()
	srv, err := server.New(server.Config{BackofficeBase: "/admin", Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Jobs: jobs.Config{Workers: 2, PollEvery: 100 * time.Millisecond, RescueAfter: 5 * time.Second}}, store)
	if err != nil {
		t.Fatalf("server.New: %v", err)
	}
	t.Cleanup(srv.Close)
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
}

// passwordGrant asks for a token with a user's password and returns the status.
func passwordGrant(t *testing.T, a *api, username, password string) int {
	t.Helper()
	body := fmt.Sprintf(`{"grant_type":"password","client_id":"test-admin","client_secret":"test-admin-secret","username":%q,"password":%q}`,
		username, password)
	res, err := http.Post(a.base+"/admin/oauth2-token", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	_, _ = io.Copy(io.Discard, res.Body)
	return res.StatusCode
}

// TestBatchPasswordsSync: a synchronous batch checks and hashes its passwords
// as the asynchronous one does: a refused password is the request's error
// with its pointer and nothing is written; a written user logs in.
func TestBatchPasswordsSync(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		refused := a.do(http.MethodPatch, "/admin/api/users", syncMode, `{"data":[`+
			batchUser("sync-one", `"sync-secret-password"`)+","+batchUser("sync-short", `"Sh0rt!"`)+`]}`).want(t, 400)
		checkValues(t, refused, map[string]any{"errors/0/source/pointer": "/data/1/attributes/password",
			"errors/0/title": "length constraint"})
		a.do(http.MethodPatch, "/admin/api/users", syncMode, `{"data":[`+batchUser("sync-one", `"sync-secret-password"`)+`]}`).want(t, 200)
		if status := passwordGrant(t, a, "sync-one", "sync-secret-password"); status != 200 {
			t.Errorf("password grant of sync-one: %d, want 200", status)
		}
	})
}
