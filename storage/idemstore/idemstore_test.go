package idemstore_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/idemstore"
	"github.com/entityapi/entityapi/storage/storagetest"
)

var lim = idemstore.Limits{Lock: time.Minute, TTL: time.Hour, MaxOwned: 100}

func key(owner, k, fp string) idemstore.Key {
	return idemstore.Key{Owner: owner, Key: k, Org: 1, Fingerprint: fp}
}

// claim claims and fails on an error.
func claim(t *testing.T, s *storage.Store, k idemstore.Key, token string, now time.Time, l idemstore.Limits) (idemstore.Outcome, *idemstore.Answer) {
	t.Helper()
	r, err := idemstore.ClaimKey(context.Background(), s.Conn, k, token, now, l)
	if err != nil {
		t.Fatal(err)
	}
	return r.Outcome, r.Answer
}

// complete stores an answer in a transaction of its own, as the write's.
func complete(s *storage.Store, cl idemstore.Claim, a idemstore.Answer) error {
	return s.Conn.Tx(context.Background(), func(tx *storage.Conn) error { return idemstore.Complete(context.Background(), tx, cl, a) })
}

// TestClaimLifecycle: a key is claimed, seen running, answered and
// replayed; another request with it is a mismatch in every state; a
// refusal's claim is released; a key expires with its lifetime.
func TestClaimLifecycle(t *testing.T) {
	for _, dialect := range storagetest.Dialects() {
		t.Run(dialect, func(t *testing.T) {
			s := storagetest.Open(t, dialect)
			now := time.Now()
			k := key("owner-a", "k1", "fp1")
			if o, _ := claim(t, s, k, "t1", now, lim); o != idemstore.Claimed {
				t.Fatalf("a new key: %v", o)
			}
			if o, _ := claim(t, s, k, "t2", now, lim); o != idemstore.InProgress {
				t.Fatalf("a running key: %v", o)
			}
			if o, _ := claim(t, s, key("owner-a", "k1", "fp2"), "t3", now, lim); o != idemstore.Mismatch {
				t.Fatalf("a running key with another request: %v", o)
			}
			if o, _ := claim(t, s, key("owner-b", "k1", "fp2"), "t4", now, lim); o != idemstore.Claimed {
				t.Fatalf("another owner's key of the same text: %v", o)
			}
			want := idemstore.Answer{Status: 201, Headers: `{"Location":["/x/1"]}`, Body: `{"data":{}}`}
			if err := complete(s, idemstore.Claim{Key: k, Token: "t2"}, want); !errors.Is(err, idemstore.ErrLost) {
				t.Fatalf("an answer under another request's token: %v", err)
			}
			if err := complete(s, idemstore.Claim{Key: k, Token: "t1"}, want); err != nil {
				t.Fatal(err)
			}
			o, got := claim(t, s, k, "t5", now, lim)
			if o != idemstore.Replay || got == nil || *got != want {
				t.Fatalf("an answered key: %v %+v", o, got)
			}
			if o, _ := claim(t, s, key("owner-a", "k1", "fp2"), "t6", now, lim); o != idemstore.Mismatch {
				t.Fatalf("an answered key with another request: %v", o)
			}
			// Released: the next request runs.
			r := key("owner-a", "refused", "fp")
			claim(t, s, r, "t7", now, lim)
			if err := idemstore.Release(context.Background(), s.Conn, idemstore.Claim{Key: r, Token: "t7"}); err != nil {
				t.Fatal(err)
			}
			if o, _ := claim(t, s, r, "t8", now, lim); o != idemstore.Claimed {
				t.Fatalf("a released key: %v", o)
			}
			// Expired: a new key, whatever request it was sent with.
			later := now.Add(lim.TTL + time.Second)
			if o, _ := claim(t, s, key("owner-a", "k1", "fp-other"), "t9", later, lim); o != idemstore.Claimed {
				t.Fatalf("an expired key: %v", o)
			}
			n, err := idemstore.DeleteExpired(context.Background(), s.Conn, later)
			if err != nil || n != 2 { // owner-b's k1 and owner-a's refused; k1 was claimed again at later
				t.Fatalf("DeleteExpired: %d, %v", n, err)
			}
		})
	}
}

// TestAbandonedClaim: a claim whose request's process went away (its hold
// ran out unanswered) is claimed again by a retry; the first request, if it
// still runs, cannot store its answer.
func TestAbandonedClaim(t *testing.T) {
	for _, dialect := range storagetest.Dialects() {
		t.Run(dialect, func(t *testing.T) {
			s := storagetest.Open(t, dialect)
			now := time.Now()
			k := key("owner", "k", "fp")
			claim(t, s, k, "first", now, lim)
			if o, _ := claim(t, s, k, "retry", now.Add(lim.Lock-time.Second), lim); o != idemstore.InProgress {
				t.Fatalf("within the hold: %v", o)
			}
			if o, _ := claim(t, s, k, "retry", now.Add(lim.Lock+time.Second), lim); o != idemstore.Claimed {
				t.Fatalf("after the hold: %v", o)
			}
			if err := complete(s, idemstore.Claim{Key: k, Token: "first"}, idemstore.Answer{Status: 201}); !errors.Is(err, idemstore.ErrLost) {
				t.Fatalf("the first request's late answer: %v", err)
			}
			if err := complete(s, idemstore.Claim{Key: k, Token: "retry"}, idemstore.Answer{Status: 201, Body: "retry"}); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestClaimBounds: a caller's live keys are bounded; expired ones do not
// count.
func TestClaimBounds(t *testing.T) {
	for _, dialect := range storagetest.Dialects() {
		t.Run(dialect, func(t *testing.T) {
			s := storagetest.Open(t, dialect)
			now := time.Now()
			l := lim
			l.MaxOwned = 2
			claim(t, s, key("o", "a", "fp"), "1", now, l)
			claim(t, s, key("o", "b", "fp"), "2", now, l)
			if o, _ := claim(t, s, key("o", "c", "fp"), "3", now, l); o != idemstore.TooMany {
				t.Fatalf("a third key: %v", o)
			}
			if o, _ := claim(t, s, key("o", "a", "fp"), "4", now, l); o != idemstore.InProgress {
				t.Fatalf("a held key again: %v", o)
			}
			if o, _ := claim(t, s, key("o", "c", "fp"), "5", now.Add(l.TTL+time.Second), l); o != idemstore.Claimed {
				t.Fatalf("a third key once the others expired: %v", o)
			}
		})
	}
}

// TestConcurrentClaims: of many requests claiming one new key at once, from
// connections of their own, exactly one holds it.
func TestConcurrentClaims(t *testing.T) {
	for _, dialect := range storagetest.Dialects() {
		t.Run(dialect, func(t *testing.T) {
			s := storagetest.Open(t, dialect)
			now := time.Now()
			const n = 16
			var (
				wg      sync.WaitGroup
				mu      sync.Mutex
				claimed int
				errs    []error
			)
			for i := range n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					r, err := idemstore.ClaimKey(context.Background(), s.Conn, key("o", "same", "fp"), fmt.Sprint(i), now, lim)
					o := r.Outcome
					mu.Lock()
					defer mu.Unlock()
					switch {
					case err != nil:
						errs = append(errs, err)
					case o == idemstore.Claimed:
						claimed++
					case o != idemstore.InProgress:
						errs = append(errs, fmt.Errorf("outcome %v", o))
					}
				}()
			}
			wg.Wait()
			if claimed != 1 || len(errs) > 0 {
				t.Fatalf("%d of %d claims held the key; errors %v", claimed, n, errs)
			}
		})
	}
}
