package server

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"hash"
	"io"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/entityapi/entityapi/server/batch"
	"github.com/entityapi/entityapi/server/engine"
	"github.com/entityapi/entityapi/server/problem"
	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/idemstore"
)

// keyedWrite is one write sent with an Idempotency-Key (idempotency.go): its
// key, its answer recorded until the transaction that holds the key keeps
// it, and what that transaction found. runKeyed drives it for the writes
// whose body the edge reads; a batch upload's pipeline drives it through
// batch.Keyed, in the transaction that publishes its operation.
type keyedWrite struct {
	a         *application
	k         idemstore.Key
	now       time.Time
	requestID string
	count     bool // count the caller's keys (ownedKeys.mustCount)
	rec       *answerRecorder
	// digest, for an upload, hashes its body as the pipeline reads it;
	// claim completes the fingerprint from it.
	digest hash.Hash

	found   idemstore.Found
	kept    *idemstore.Answer
	tooMany bool
	tooBig  bool
}

// keyedUploadKey holds, in a Gin context, the keyedWrite of a keyed batch
// upload, for batchRequest.
const keyedUploadKey = "entityapi.keyedUpload"

var _ batch.Keyed = (*keyedWrite)(nil)

func (a *application) newKeyedWrite(c *gin.Context, k idemstore.Key, now time.Time) *keyedWrite {
	return &keyedWrite{a: a, k: k, now: now, requestID: c.GetString(requestIDKey),
		count: a.owned.mustCount(k.Owner, now, a.cfg.Idempotency.MaxKeys),
		rec:   &answerRecorder{ResponseWriter: c.Writer}}
}

// claim holds the key in tx and finds it unanswered (errKeyHeld, errKept
// otherwise), within the caller's bound of keys.
func (w *keyedWrite) claim(ctx context.Context, tx *storage.Conn) error {
	if w.digest != nil {
		w.k.Fingerprint, w.digest = hex.EncodeToString(w.digest.Sum(nil)), nil
	}
	held, err := idemstore.Hold(ctx, tx, w.k)
	if err != nil || !held {
		return cmp.Or(err, errKeyHeld)
	}
	// Answered already? (A retry is rare beside first requests, so the key
	// is read here only, holding it, not before as well.)
	if w.found, w.kept, err = idemstore.Find(ctx, tx, w.k, w.now); err != nil || w.found != idemstore.None {
		return cmp.Or(err, errKept)
	}
	if w.count {
		max := w.a.cfg.Idempotency.MaxKeys
		n, err := idemstore.Owned(ctx, tx, w.k.Owner, w.now, max)
		if err != nil {
			return err
		}
		w.a.owned.counted(w.k.Owner, w.now, n)
		if w.tooMany = n >= max; w.tooMany {
			return errAnswerNotKept
		}
	}
	return nil
}

// keep keeps the recorded answer in tx when it is a success no larger than
// the bound; else errAnswerNotKept, which rolls the write back. An answer
// that shows a secret (r.ShowsSecret: a webhook's) is kept sealed with the
// key-encryption key, as the secret itself is (without one, both are kept
// as they are).
func (w *keyedWrite) keep(ctx context.Context, tx *storage.Conn, r *engine.Request) error {
	if !w.rec.success() {
		return errAnswerNotKept
	}
	if w.tooBig = w.rec.body.Len() > w.a.cfg.Idempotency.MaxAnswer; w.tooBig {
		return errAnswerNotKept
	}
	ans := w.rec.answer(w.requestID)
	if r != nil && r.ShowsSecret {
		if kek := w.a.cfg.Auth.KeyEncryption; kek != nil {
			sealed, err := kek.Seal(w.aad(), ans.Body)
			if err != nil {
				return err
			}
			ans.Body = sealed
		}
	}
	return idemstore.Keep(ctx, tx, w.k, ans, w.now, w.a.cfg.Idempotency.TTL)
}

// name is the key as work outside the store's transaction names it
// (engine.Request.Keyed): its owner and text, hashed.
func (w *keyedWrite) name() string {
	sum := sha256.Sum256([]byte(w.k.Owner + "|" + w.k.Key))
	return hex.EncodeToString(sum[:16])
}

// aad binds a sealed answer to its key.
func (w *keyedWrite) aad() string { return "idempotency-answer/" + w.k.Owner + "/" + w.k.Key }

// finish answers once the keyed write's transaction is over, err being what
// it returned: the recorded answer when it committed, else what the key's
// claim found, or the refusal (kept by itself when keepRefusals and it is
// the request's answer for a retry too), or err.
func (w *keyedWrite) finish(c *gin.Context, err error, keepRefusals bool) {
	a, rec := w.a, w.rec
	switch {
	case err == nil:
		a.owned.added(w.k.Owner)
		rec.send()
	case errors.Is(err, errKeyHeld):
		rec.discard()
		a.inProgress(c)
	case errors.Is(err, errKept):
		rec.discard()
		w.answerKept(c)
	case w.tooMany:
		rec.discard()
		a.abort(c, problem.IdempotencyKeysExhausted(a.cfg.Idempotency.MaxKeys))
	case w.tooBig:
		rec.discard()
		writeProblems(c, problem.List{problem.IdempotencyAnswerTooLarge(a.cfg.Idempotency.MaxAnswer)})
	case errors.Is(err, errAnswerNotKept) && keepRefusals && rec.keepable():
		// Refused: nothing was written, and the refusal is the request's
		// answer, for a retry too.
		if _, err := idemstore.KeepAlone(context.WithoutCancel(c.Request.Context()), a.engine.Store().Conn, w.k,
			rec.answer(w.requestID), w.now, a.cfg.Idempotency.TTL); err != nil {
			a.log.Warn("idempotency: keep a refusal", "request_id", w.requestID, "error", err.Error())
		}
		rec.send()
	case errors.Is(err, errAnswerNotKept):
		rec.send()
	default:
		// The commit (or the keeping of the answer) failed: nothing was
		// written, and the recorded answer is not the request's.
		rec.discard()
		a.writeError(c, err)
	}
}

// answerKept answers a key found answered: the kept answer (opened, when it
// was sealed), or 422 when it answered another request.
func (w *keyedWrite) answerKept(c *gin.Context) {
	if w.found == idemstore.Replay && w.kept != nil {
		if kek := w.a.cfg.Auth.KeyEncryption; kek != nil {
			body, err := kek.Open(w.aad(), w.kept.Body)
			if err != nil {
				w.a.abort(c, err)
				return
			}
			w.kept.Body = body
		}
	}
	w.a.answerFound(c, w.found, w.kept)
}

// Body is what the pipeline reads of an upload: its body, hashed into the
// request's fingerprint as it is read (batch.Keyed).
func (w *keyedWrite) Body(r io.Reader) io.Reader {
	if w.digest == nil {
		return r
	}
	return io.TeeReader(r, w.digest)
}

// Kept tells whether the key has a kept answer (batch.Keyed).
func (w *keyedWrite) Kept(ctx context.Context) (bool, error) {
	return idemstore.Kept(ctx, w.a.engine.Store().Conn, w.k.Owner, w.k.Key, w.now)
}

// Claim holds the key in tx, the upload read whole (batch.Keyed).
func (w *keyedWrite) Claim(ctx context.Context, tx *storage.Conn) error { return w.claim(ctx, tx) }

// Keep keeps the answer the pipeline wrote, in tx (batch.Keyed).
func (w *keyedWrite) Keep(ctx context.Context, tx *storage.Conn) error { return w.keep(ctx, tx, nil) }
