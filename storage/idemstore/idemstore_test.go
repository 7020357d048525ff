package idemstore_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/idemstore"
	"github.com/entityapi/entityapi/storage/storagetest"
)

const ttl = time.Hour

func key(owner, k, fp string) idemstore.Key {
	return idemstore.Key{Owner: owner, Key: k, Org: 1, Fingerprint: fp}
}

// find reads k at now and fails on an error.
func find(t *testing.T, s *storage.Store, k idemstore.Key, now time.Time) (idemstore.Found, *idemstore.Answer) {
	t.Helper()
	f, a, err := idemstore.Find(context.Background(), s.Conn, k, now)
	if err != nil {
		t.Fatal(err)
	}
	return f, a
}

// keep holds k and keeps a in one transaction, as a keyed write does.
func keep(s *storage.Store, k idemstore.Key, a idemstore.Answer, now time.Time) error {
	return s.Conn.Tx(context.Background(), func(tx *storage.Conn) error {
		held, err := idemstore.Hold(context.Background(), tx, k)
		if err != nil {
			return err
		}
		if !held {
			return errors.New("not held")
		}
		return idemstore.Keep(context.Background(), tx, k, a, now, ttl)
	})
}

// TestKeptAnswers: a kept answer is found for its request and a mismatch
// for another (and Kept says it is there); keys are their owner's; an expired key is none, replaced by
// the next answer and deleted by the housekeeping; a live one is not
// replaced.
func TestKeptAnswers(t *testing.T) {
	for _, dialect := range storagetest.Dialects() {
		t.Run(dialect, func(t *testing.T) {
			s := storagetest.Open(t, dialect)
			now := time.Now()
			k := key("owner-a", "k1", "fp1")
			if f, _ := find(t, s, k, now); f != idemstore.None {
				t.Fatalf("a new key: %v", f)
			}
			want := idemstore.Answer{Status: 201, Headers: `{"Location":["/x/1"]}`, Body: `{"data":{}}`}
			if err := keep(s, k, want, now); err != nil {
				t.Fatal(err)
			}
			if f, got := find(t, s, k, now); f != idemstore.Replay || got == nil || *got != want {
				t.Fatalf("an answered key: %v %+v", f, got)
			}
			if f, _ := find(t, s, key("owner-a", "k1", "fp2"), now); f != idemstore.Mismatch {
				t.Fatalf("an answered key with another request: %v", f)
			}
			if f, _ := find(t, s, key("owner-b", "k1", "fp1"), now); f != idemstore.None {
				t.Fatalf("another owner's key of the same text: %v", f)
			}
			// Kept, whatever the request: an upload's retry asks before
			// reading its body.
			for _, c := range []struct {
				owner, key string
				at         time.Time
				want       bool
			}{{"owner-a", "k1", now, true}, {"owner-b", "k1", now, false}, {"owner-a", "k9", now, false},
				{"owner-a", "k1", now.Add(ttl + time.Second), false}} {
				if got, err := idemstore.Kept(context.Background(), s.Conn, c.owner, c.key, c.at); err != nil || got != c.want {
					t.Errorf("Kept(%s, %s) = %v, %v; want %v", c.owner, c.key, got, err, c.want)
				}
			}
			if err := keep(s, key("owner-a", "k1", "fp3"), want, now); !errors.Is(err, idemstore.ErrTaken) {
				t.Fatalf("a second answer for a live key: %v", err)
			}
			// Expired: none, and the next answer replaces it.
			later := now.Add(ttl + time.Second)
			if f, _ := find(t, s, k, later); f != idemstore.None {
				t.Fatalf("an expired key: %v", f)
			}
			if err := keep(s, key("owner-a", "k1", "fp-other"), want, later); err != nil {
				t.Fatalf("an answer for an expired key: %v", err)
			}
			if err := keep(s, key("owner-b", "k2", "fp"), want, now); err != nil {
				t.Fatal(err)
			}
			n, err := idemstore.DeleteExpired(context.Background(), s.Conn, later)
			if err != nil || n != 1 { // owner-b's k2; owner-a's k1 was answered again at later
				t.Fatalf("DeleteExpired: %d, %v", n, err)
			}
		})
	}
}

// TestRefusalKeptAlone: a refusal is kept in a transaction of its own,
// unless a request answered the key meanwhile.
func TestRefusalKeptAlone(t *testing.T) {
	for _, dialect := range storagetest.Dialects() {
		t.Run(dialect, func(t *testing.T) {
			s := storagetest.Open(t, dialect)
			now := time.Now()
			k := key("o", "refused", "fp")
			kept, err := idemstore.KeepAlone(context.Background(), s.Conn, k, idemstore.Answer{Status: 404, Headers: "{}", Body: "no"}, now, ttl)
			if err != nil || !kept {
				t.Fatalf("KeepAlone: %v, %v", kept, err)
			}
			kept, err = idemstore.KeepAlone(context.Background(), s.Conn, k, idemstore.Answer{Status: 400, Headers: "{}", Body: "other"}, now, ttl)
			if err != nil || kept {
				t.Fatalf("KeepAlone over a kept answer: %v, %v", kept, err)
			}
			if _, a := find(t, s, k, now); a == nil || a.Body != "no" {
				t.Fatalf("the first refusal was replaced: %+v", a)
			}
		})
	}
}

// TestCount: a caller's live keys are counted up to the bound asked;
// expired ones do not count.
func TestCount(t *testing.T) {
	for _, dialect := range storagetest.Dialects() {
		t.Run(dialect, func(t *testing.T) {
			s := storagetest.Open(t, dialect)
			now := time.Now()
			for _, k := range []string{"a", "b", "c"} {
				if err := keep(s, key("o", k, "fp"), idemstore.Answer{Status: 201, Headers: "{}", Body: ""}, now); err != nil {
					t.Fatal(err)
				}
			}
			for _, tc := range []struct {
				at   time.Time
				max  int
				want int
			}{{now, 10, 3}, {now, 2, 2}, {now.Add(ttl + time.Second), 10, 0}} {
				n, err := idemstore.Owned(context.Background(), s.Conn, "o", tc.at, tc.max)
				if err != nil || n != tc.want {
					t.Errorf("Owned(max %d): %d, %v; want %d", tc.max, n, err, tc.want)
				}
			}
		})
	}
}

// TestHoldWhileRunning: while one transaction holds a key, another cannot
// (at once, without waiting); once it ends, the key is free again. On SQLite
// the write transaction is the database's only writer, so no second one runs
// beside it: every hold succeeds, and the server keeps two requests of one
// key apart in its process (server's TestIdempotencyKeyWhileTheFirstRuns).
func TestHoldWhileRunning(t *testing.T) {
	for _, dialect := range storagetest.Dialects() {
		t.Run(dialect, func(t *testing.T) {
			s := storagetest.Open(t, dialect)
			k := key("o", "running", "fp")
			if dialect == "sqlite" {
				for range 2 {
					if err := s.Conn.Tx(context.Background(), func(tx *storage.Conn) error {
						held, err := idemstore.Hold(context.Background(), tx, k)
						if err == nil && !held {
							t.Error("a SQLite write transaction did not hold its key")
						}
						return err
					}); err != nil {
						t.Fatal(err)
					}
				}
				if _, err := idemstore.Hold(context.Background(), s.Conn, k); err == nil {
					t.Error("a hold outside a transaction was taken")
				}
				return
			}
			holding, release := make(chan struct{}), make(chan struct{})
			var wg sync.WaitGroup
			wg.Add(1)
			go func() {
				defer wg.Done()
				_ = s.Conn.Tx(context.Background(), func(tx *storage.Conn) error {
					if held, err := idemstore.Hold(context.Background(), tx, k); err != nil || !held {
						t.Errorf("the first hold: %v, %v", held, err)
					}
					close(holding)
					<-release
					return nil
				})
			}()
			<-holding
			tryHold := func() bool {
				var held bool
				if err := s.Conn.Tx(context.Background(), func(tx *storage.Conn) error {
					var err error
					held, err = idemstore.Hold(context.Background(), tx, k)
					return err
				}); err != nil {
					t.Fatal(err)
				}
				return held
			}
			if tryHold() {
				t.Fatal("a second transaction held the key the first holds")
			}
			if err := s.Conn.Tx(context.Background(), func(tx *storage.Conn) error {
				held, err := idemstore.Hold(context.Background(), tx, key("o", "other", "fp"))
				if err == nil && !held {
					t.Error("another key was held too")
				}
				return err
			}); err != nil {
				t.Fatal(err)
			}
			close(release)
			wg.Wait()
			if !tryHold() {
				t.Fatal("the key stayed held after its transaction")
			}
		})
	}
}
