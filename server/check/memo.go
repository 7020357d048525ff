package check

import (
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/getkin/kin-openapi/openapi3"
)

// Whether a request's parameters pass its operation's checks (checkRequest,
// through kin-openapi) depends on the operation and on nothing but what the
// request carries in its query string, its path and its header parameters.
// Clients send the same requests again and again (the next look at a list,
// a poll), and kin-openapi decodes and checks each parameter anew every
// time: on a GET of ten regions, a tenth of the service's own work beyond
// the database (issue 16). An operation therefore remembers the requests that
// passed, keyed by exactly those inputs (checkKey), and passes them again
// without checking. A request that failed is never remembered: it is
// checked every time, and gets every error. Requests with a body (checked
// with it) and parameters the key does not cover (cookies) are always
// checked.
//
// What is remembered is bounded: keys of at most maxPassedKey bytes, at
// most maxPassed of them in the whole process, never forgotten (the
// documents do not change while the process runs). A caller who sends
// endless different valid queries fills the memory once, and is then
// checked as before.
const (
	maxPassed    = 4096
	maxPassedKey = 512
)

// passedCount is the number of remembered requests, over every operation.
var passedCount atomic.Int64

// passedChecks are the requests of one operation that passed its checks.
type passedChecks struct {
	mu   sync.RWMutex
	keys map[string]struct{}
}

// passed tells whether key is a request that passed.
func (p *passedChecks) passed(key string) bool {
	p.mu.RLock()
	_, ok := p.keys[key]
	p.mu.RUnlock()
	return ok
}

// remember records that key passed, within the bounds.
func (p *passedChecks) remember(key string) {
	if passedCount.Load() >= maxPassed {
		return
	}
	key = strings.Clone(key) // not the request's own string, nor what it shares memory with
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.keys[key]; ok {
		return
	}
	if p.keys == nil {
		p.keys = map[string]struct{}{}
	}
	p.keys[key] = struct{}{}
	passedCount.Add(1)
}

// checkKey is everything the outcome of checking r's parameters on op
// depends on, as one string: the raw query string, then each path and
// header parameter the request carries, named and length-prefixed so that
// no two different requests share a key. ok is false when the request must
// be checked every time (a body, a cookie parameter, a key too long).
func (op *Operation) checkKey(r *http.Request, pathParams map[string]string) (key string, ok bool) {
	if op.kin.Operation.RequestBody != nil {
		return "", false
	}
	raw := r.URL.RawQuery
	var b []byte // nil while the query string alone is the key (most requests: no allocation)
	for _, rp := range op.params {
		var values []string
		switch rp.p.In {
		case openapi3.ParameterInQuery:
			continue // in raw
		case openapi3.ParameterInPath:
			v, given := pathParams[rp.p.Name]
			if !given {
				continue
			}
			values = []string{v}
		case openapi3.ParameterInHeader:
			if values = r.Header.Values(rp.p.Name); len(values) == 0 {
				continue
			}
		default:
			return "", false
		}
		if b == nil {
			b = append(make([]byte, 0, len(raw)+64), raw...)
		}
		b = append(b, 0)
		b = append(b, rp.p.In...)
		b = append(b, ' ')
		b = append(b, rp.p.Name...)
		for _, v := range values {
			b = append(strconv.AppendInt(append(b, ' '), int64(len(v)), 10), ':')
			b = append(b, v...)
		}
		if len(b) > maxPassedKey {
			return "", false
		}
	}
	if b == nil {
		return raw, len(raw) <= maxPassedKey
	}
	return string(b), true
}
