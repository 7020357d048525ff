package auth

import (
	"context"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/entityapi/entityapi/storage/authstore"
)

// throttle bounds the guessing of client secrets and passwords at the token
// endpoint (issue 15). Failed checks of one credential (a client's secret,
// a user's password) are counted per address and across all addresses:
//
//   - from one address, MaxFailures failures within FailureWindow refuse
//     that credential from that address until the window ends;
//   - from all addresses together, MaxGlobalFailures refuse it everywhere,
//     so a guess spread over many addresses still runs into a bound.
//
// A 429 refuses only what crossed a limit: another client or user from the
// same address, or the same one from another address (below the global
// limit), goes on, so a guesser cannot lock anybody out of addresses it does
// not control. The right credential forgets its count from that address
// (the typos of a user who then logs in are not held against them); the
// global count stays, or a user's regular logins would reopen the door to a
// distributed guess.
//
// The counts live where authstore.Store.FailureCounter keeps them: shared in
// the database with PostgreSQL, in the process with SQLite.
type throttle struct {
	counts        authstore.FailureCounter
	local, global int // limits per address and across addresses; <= 0: none
	window        time.Duration
}

// maxSubjectBytes bounds the part of a client id or user name that names a
// count: no real one is longer, and the key is hashed anyway.
const maxSubjectBytes = 256

func newThrottle(cfg Config, counts authstore.FailureCounter) *throttle {
	return &throttle{counts: counts, local: cfg.MaxFailures, global: cfg.MaxGlobalFailures, window: cfg.FailureWindow}
}

// credential names the counts of one credential tried from one address.
type credential struct {
	local, global string
}

// clientCredential names the counts of a client's secret.
func clientCredential(clientID, addr string) credential {
	return newCredential("client", clientID, addr)
}

// userCredential names the counts of a user's password: by the user's id
// when the login names one (so its user name and its email share one
// count), else by the login as given, lower-cased.
func userCredential(user *authstore.User, login, addr string) credential {
	if user != nil {
		return newCredential("user", strconv.FormatInt(user.ID, 10), addr)
	}
	return newCredential("login", strings.ToLower(login), addr)
}

func newCredential(kind, name, addr string) credential {
	if len(name) > maxSubjectBytes {
		name = name[:maxSubjectBytes]
	}
	global := "token " + kind + "\x00" + name
	return credential{local: global + "\x00" + addressKey(addr), global: global}
}

// addressKey is the address a count is kept for. An IPv6 host commonly
// holds a whole /64, so the /64 counts as one address.
func addressKey(addr string) string {
	ip, err := netip.ParseAddr(addr)
	if err != nil {
		return addr
	}
	if ip = ip.Unmap(); ip.Is6() {
		ip = netip.PrefixFrom(ip, 64).Masked().Addr()
	}
	return ip.String()
}

// admit decides whether cred may be checked now: it returns how long to wait
// (> 0: answer 429) or counts the attempt against the address, atomically,
// so that concurrent attempts from one address never pass its limit. The
// caller then reports the check's result with failed or succeeded.
func (t *throttle) admit(ctx context.Context, now time.Time, cred credential) (time.Duration, error) {
	if t.global > 0 {
		c, err := t.counts.Peek(ctx, cred.global, now)
		if err != nil {
			return 0, err
		}
		if c.N >= t.global {
			return c.Ends.Sub(now), nil
		}
	}
	if t.local > 0 {
		c, err := t.counts.Add(ctx, cred.local, now, t.window, t.local+1)
		if err != nil {
			return 0, err
		}
		if c.N > t.local {
			return c.Ends.Sub(now), nil
		}
	}
	return 0, nil
}

// failed counts a wrong credential across addresses; admit counted it
// against the address already.
func (t *throttle) failed(ctx context.Context, now time.Time, cred credential) error {
	if t.global <= 0 {
		return nil
	}
	_, err := t.counts.Add(ctx, cred.global, now, t.window, t.global)
	return err
}

// succeeded forgets the address's count of a credential that was right.
func (t *throttle) succeeded(ctx context.Context, cred credential) error {
	if t.local <= 0 {
		return nil
	}
	return t.counts.Forget(ctx, cred.local)
}
