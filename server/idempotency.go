package server

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"hash"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/entityapi/entityapi/server/engine"
	"github.com/entityapi/entityapi/server/identity"
	"github.com/entityapi/entityapi/server/problem"
	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/idemstore"
)

// Idempotency-Key (draft-ietf-httpapi-idempotency-key-header; docs/writes.md,
// "Safe retries"; docs/decisions.md §21): a client that cannot know whether
// its write was done (a timeout, a dropped connection) sends it again with
// the same key and gets the first answer, with nothing written twice.
//
// A keyed write whose key has no kept answer runs in one transaction of the
// store (engine.Request.Tx), which first holds the key (storage/idemstore:
// an advisory lock on PostgreSQL; in this process, the running set), so
// that a retry while it runs, from any process, is answered 409 at once.
// Its answer is recorded instead of sent, and a 2xx answer is written into
// idempotency_keys in that same transaction: the write and its answer
// commit together or not at all, whatever happens to the process between
// the write and the answer. A refused request (4xx) writes nothing and its
// refusal is kept in a transaction of its own, which a retry gets too; a
// 409, a 429 or a 5xx keeps nothing, and a retry runs again.

// IdempotencyConfig bounds the keys of Idempotency-Key.
type IdempotencyConfig struct {
	// TTL is how long a key lives (--idempotency-ttl; zero:
	// DefaultIdempotencyTTL).
	TTL time.Duration
	// MaxKeys is the most live keys one caller holds (--idempotency-max-keys;
	// zero: DefaultIdempotencyMaxKeys).
	MaxKeys int
	// MaxAnswer is the largest answer a key keeps, in bytes (zero:
	// DefaultIdempotencyMaxAnswer): a keyed write whose answer is larger
	// is rolled back (422), so that no key holds more in the database.
	MaxAnswer int
}

// The defaults of IdempotencyConfig's zero values.
const (
	DefaultIdempotencyTTL       = 24 * time.Hour
	DefaultIdempotencyMaxKeys   = 10_000
	DefaultIdempotencyMaxAnswer = 4 << 20
)

const (
	// maxIdempotencyKey is the longest key, in characters.
	maxIdempotencyKey = 255
	// inProgressRetryAfter is the Retry-After of a 409 for a running key.
	inProgressRetryAfter = 1
)

// keptHeaders are the headers of an answer that a replay sends again: those
// the operation wrote. The others (X-Request-ID, Vary, CORS, rate limits)
// are the retry's own, written again by the middleware that serves it.
var keptHeaders = []string{"Content-Type", "Location", "Content-Location", "ETag", "Last-Modified", "Retry-After"}

// Why a keyed write's transaction ends without keeping its answer: the
// answer is not a 2xx (errAnswerNotKept, rolling back whatever the refused
// request may have written), another transaction holds the key
// (errKeyHeld), or the key has a kept answer (errKept: a replay, or 422).
var (
	errAnswerNotKept = errors.New("server: the answer of a keyed write is not a success")
	errKeyHeld       = errors.New("server: another request holds the key")
	errKept          = errors.New("server: the key was answered meanwhile")
)

// idempotent is the last middleware of the back office: a write that sends
// Idempotency-Key runs as described above. Reads ignore the header (they are
// idempotent already); a write whose operation does not declare it is a 400,
// so that no client believes a write safe to retry that is not.
func (a *application) idempotent(c *gin.Context) {
	values, sent := c.Request.Header["Idempotency-Key"]
	r := requestOf(c)
	if !sent || r == nil || r.Principal == nil {
		c.Next()
		return
	}
	switch c.Request.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		c.Next()
		return
	}
	if !takesIdempotencyKey(r.Route) {
		a.abort(c, problem.IdempotencyKeyNotTaken())
		return
	}
	key, err := parseIdempotencyKey(values)
	if err != nil {
		a.abort(c, err)
		return
	}
	k := idemstore.Key{Owner: a.keyOwner(r.Principal), Key: key, Org: r.Principal.Org}
	digest := fingerprintHash(c.Request, r.Format)
	// An upload is not read here: the pipeline hashes it as it streams,
	// and keeps its answer in its own transaction (batchRequest).
	upload := r.Route.IsBatch()
	if !upload {
		body, err := a.readBody(c)
		if err != nil {
			a.abort(c, err)
			return
		}
		digest.Write(body)
		k.Fingerprint = hex.EncodeToString(digest.Sum(nil))
	}
	// Two requests of one key in this process: the second is answered at
	// once, without a transaction (on SQLite it would wait for the one
	// writer the first holds).
	running := k.Owner + "\x00" + k.Key
	if _, busy := a.running.LoadOrStore(running, struct{}{}); busy {
		a.inProgress(c)
		return
	}
	defer a.running.Delete(running)
	if upload {
		w := a.newKeyedWrite(c, k, time.Now())
		w.digest = digest
		c.Set(keyedUploadKey, w)
		c.Next()
		return
	}
	a.runKeyed(c, r, k, time.Now())
}

// answerFound answers a key found answered (the kept answer, or 422 for
// another request) and tells whether it did.
func (a *application) answerFound(c *gin.Context, found idemstore.Found, kept *idemstore.Answer) bool {
	switch found {
	case idemstore.Replay:
		replay(c, kept)
		c.Abort()
		return true
	case idemstore.Mismatch:
		a.abort(c, problem.IdempotencyKeyReused())
		return true
	}
	return false
}

// inProgress answers a retry while the key's first request runs.
func (a *application) inProgress(c *gin.Context) {
	c.Header("Retry-After", strconv.Itoa(inProgressRetryAfter))
	a.abort(c, problem.IdempotencyKeyInProgress())
}

// runKeyed runs a keyed write in one transaction that holds its key, and
// keeps its answer (see the top of this file).
func (a *application) runKeyed(c *gin.Context, r *engine.Request, k idemstore.Key, now time.Time) {
	w := a.newKeyedWrite(c, k, now)
	err := a.engine.Store().Conn.Tx(r.Ctx, func(tx *storage.Conn) error {
		if err := w.claim(r.Ctx, tx); err != nil {
			return err
		}
		c.Writer, r.Tx, r.Keyed, r.KeyedRequest = w.rec, tx, w.name(), k.Fingerprint
		defer func() { c.Writer, r.Tx, r.Keyed, r.KeyedRequest = w.rec.ResponseWriter, nil, "", "" }()
		c.Next()
		if a.keyedHold != nil {
			if h := a.keyedHold.Load(); h != nil {
				h.Written <- struct{}{}
				<-h.Release
			}
		}
		return w.keep(r.Ctx, tx, r)
	})
	w.finish(c, err, true)
}

// KeyedHold, set by a test (export_test.go), stops each keyed write inside
// its transaction, its answer recorded and not yet kept: it says so on
// Written, then waits for Release. Timing alone cannot order a retry while
// the first request runs, nor a process's end between its write and its
// answer.
type KeyedHold struct {
	Written chan struct{}
	Release chan struct{}
}

// ownedKeys estimates, per caller, how many live keys it holds, so that a
// keyed write counts them in the database (a cost in proportion to the count)
// only when the caller may be at its bound: when the estimate (the last
// count, plus the keys this process gave it since) is one short of the
// bound, or older than ownedRecount, or there is none. Other processes'
// keys are seen at the next count: together the processes may let a caller
// pass its bound by what they give it in ownedRecount.
type ownedKeys struct {
	mu sync.Mutex
	m  map[string]ownedEstimate
}

type ownedEstimate struct {
	n  int
	at time.Time // of the last count
}

const (
	// ownedRecount is how old an estimate may be before a keyed write counts again.
	ownedRecount = 10 * time.Second
	// maxOwners bounds the estimates kept; past it they start again.
	maxOwners = 4096
)

// mustCount tells whether a keyed write of owner's at now counts its keys.
func (o *ownedKeys) mustCount(owner string, now time.Time, max int) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	e, ok := o.m[owner]
	return !ok || now.Sub(e.at) > ownedRecount || e.n+1 >= max
}

// counted records a count of owner's keys at now.
func (o *ownedKeys) counted(owner string, now time.Time, n int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.m == nil || len(o.m) >= maxOwners {
		o.m = make(map[string]ownedEstimate)
	}
	o.m[owner] = ownedEstimate{n: n, at: now}
}

// added records one more key of owner's.
func (o *ownedKeys) added(owner string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if e, ok := o.m[owner]; ok {
		e.n++
		o.m[owner] = e
	}
}

// keyOwner names the caller a key belongs to: the application, the
// organization, the client and the user, as the first half of the SHA-256
// of the four (a client's name may hold any character). Keys of one text sent by two
// callers are two keys.
func (a *application) keyOwner(p *identity.Principal) string {
	sum := sha256.Sum256([]byte(a.base + "\x00" + strconv.FormatInt(p.Org, 10) + "\x00" + p.ClientID + "\x00" + strconv.FormatInt(p.UserID, 10)))
	return hex.EncodeToString(sum[:16]) // 128 bits: no two callers meet
}

// takesIdempotencyKey tells whether the route's operation declares the
// header: the document says which writes are safe to retry with it.
func takesIdempotencyKey(rt *engine.Route) bool {
	if rt == nil || rt.Operation() == nil || rt.Operation().Operation == nil {
		return false
	}
	for _, p := range rt.Operation().Operation.Parameters {
		if p.Value != nil && p.Value.In == "header" && http.CanonicalHeaderKey(p.Value.Name) == "Idempotency-Key" {
			return true
		}
	}
	return false
}

// parseIdempotencyKey reads the header: one line, a String of RFC 8941
// (quoted, with \" and \\ escapes) as the draft writes it, or the key bare,
// as many clients send it; at most maxIdempotencyKey characters of visible
// ASCII.
func parseIdempotencyKey(values []string) (string, error) {
	bad := func(detail string) error { return problem.HeaderValue("Idempotency-Key", detail) }
	if len(values) != 1 {
		return "", bad("Send one Idempotency-Key.")
	}
	v := values[0]
	var key []byte
	if len(v) >= 1 && v[0] == '"' {
		if len(v) < 2 || v[len(v)-1] != '"' {
			return "", bad("The Idempotency-Key is a quoted string without its closing quote.")
		}
		for i := 1; i < len(v)-1; i++ {
			ch := v[i]
			switch {
			case ch == '\\':
				if i+1 >= len(v)-1 || (v[i+1] != '"' && v[i+1] != '\\') {
					return "", bad(`In a quoted Idempotency-Key only \" and \\ are escapes.`)
				}
				i++
				key = append(key, v[i])
			case ch == '"':
				return "", bad(`A quote inside a quoted Idempotency-Key is written \".`)
			case ch < 0x20 || ch > 0x7e:
				return "", bad("The Idempotency-Key holds visible ASCII characters and spaces only.")
			default:
				key = append(key, ch)
			}
		}
	} else {
		for i := 0; i < len(v); i++ {
			if ch := v[i]; ch <= 0x20 || ch > 0x7e || ch == '"' || ch == '\\' {
				return "", bad("A bare Idempotency-Key holds visible ASCII characters only; quote it (\"...\") to send spaces.")
			}
		}
		key = []byte(v)
	}
	switch {
	case len(key) == 0:
		return "", bad("The Idempotency-Key is empty.")
	case len(key) > maxIdempotencyKey:
		return "", bad("The Idempotency-Key is longer than " + strconv.Itoa(maxIdempotencyKey) + " characters.")
	}
	return string(key), nil
}

// fingerprintHash starts the digest of what makes a request the same
// request: its method, its address with the query and the format it speaks,
// to which its body is then written.
func fingerprintHash(hr *http.Request, f engine.Format) hash.Hash {
	h := sha256.New()
	h.Write([]byte(hr.Method + "\x00" + hr.URL.RequestURI() + "\x00" + strconv.Itoa(int(f)) + "\x00"))
	return h
}

// replay sends a kept answer again. An error document names the request
// it answers (meta.requestId, as X-Request-ID does): the retry's own, so
// that the two agree and the retry's log line is the one it names.
func replay(c *gin.Context, a *idemstore.Answer) {
	var h http.Header
	if a.Headers != "" {
		_ = json.Unmarshal([]byte(a.Headers), &h) // written by answer below
	}
	body := a.Body
	if first := h.Get(firstRequestID); first != "" {
		body = strings.Replace(body, `"requestId":"`+first+`"`, `"requestId":"`+c.GetString(requestIDKey)+`"`, 1)
		h.Del(firstRequestID)
	}
	for k, v := range h {
		c.Writer.Header()[k] = v
	}
	c.Writer.WriteHeader(a.Status)
	_, _ = c.Writer.WriteString(body)
}

// firstRequestID keeps, beside a kept answer's headers, the id of the
// request it answered (never sent again as a header).
const firstRequestID = "X-Request-ID"

// answerRecorder holds a keyed write's answer until it is kept: nothing is
// sent before the write and its answer commit.
type answerRecorder struct {
	gin.ResponseWriter
	status int
	body   bytes.Buffer
}

func (w *answerRecorder) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
}

func (w *answerRecorder) WriteHeaderNow() {
	if w.status == 0 {
		w.status = http.StatusOK
	}
}

func (w *answerRecorder) Write(b []byte) (int, error) {
	w.WriteHeaderNow()
	return w.body.Write(b)
}

func (w *answerRecorder) WriteString(s string) (int, error) {
	w.WriteHeaderNow()
	return w.body.WriteString(s)
}

func (w *answerRecorder) Status() int {
	if w.status == 0 {
		return http.StatusOK
	}
	return w.status
}

func (w *answerRecorder) Size() int {
	if w.status == 0 {
		return -1
	}
	return w.body.Len()
}

func (w *answerRecorder) Written() bool { return w.status != 0 }

// Flush sends nothing: the answer waits for its commit.
func (w *answerRecorder) Flush() {}

// Unwrap is the writer underneath, for http.ResponseController (a batch
// upload sets its own deadlines).
func (w *answerRecorder) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// success tells whether the answer is a 2xx, which commits with the write.
func (w *answerRecorder) success() bool { s := w.Status(); return s >= 200 && s < 300 }

// keepable tells whether a refusal is the request's answer for a retry too:
// a client error, but for a conflict of the moment (409), a rate (429), a
// request the client left (499) and a key found to be another request's
// (422: kept, it would take the key from that request).
func (w *answerRecorder) keepable() bool {
	s := w.Status()
	return s >= 400 && s < 500 && s != http.StatusConflict && s != http.StatusTooManyRequests && s != StatusClientClosedRequest &&
		s != http.StatusRequestTimeout && s != http.StatusUnprocessableEntity
}

// answer is what a retry gets: the status, the kept headers and the body,
// and the id of the request it answered (requestID).
func (w *answerRecorder) answer(requestID string) idemstore.Answer {
	kept := http.Header{}
	kept.Set(firstRequestID, requestID)
	for _, k := range keptHeaders {
		if v := w.Header().Values(k); len(v) > 0 {
			kept[k] = v
		}
	}
	h, _ := json.Marshal(kept) // strings only: never fails
	return idemstore.Answer{Status: w.Status(), Headers: string(h), Body: w.body.String()}
}

// discard drops the recorded answer's headers, for an error answered in
// its place.
func (w *answerRecorder) discard() {
	for _, k := range keptHeaders {
		w.Header().Del(k)
	}
	w.body.Reset()
}

// send writes the recorded answer to the client.
func (w *answerRecorder) send() {
	w.ResponseWriter.WriteHeader(w.Status())
	if w.body.Len() > 0 {
		_, _ = w.ResponseWriter.Write(w.body.Bytes())
	}
}
