package server

import (
	"fmt"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/entityapi/entityapi/server/engine"
	"github.com/entityapi/entityapi/server/jsonapi"
	"github.com/entityapi/entityapi/server/problem"
)

// negotiation is the outcome of reading Accept and Content-Type (docs/decisions.md §3).
type negotiation struct {
	format engine.Format
	// errorsJSONAPI: the request named the JSON:API media type somewhere, so even a
	// 406 or 415 answers with a JSON:API error document.
	errorsJSONAPI bool
	problem       *problem.Problem // 406 or 415, nil when the request is acceptable
}

// errorsInJSONAPI tells whether the request's errors are answered with a
// JSON:API error document (else the plain format's list): a JSON:API request,
// or one refused for its media types that named JSON:API somewhere
// (docs/decisions.md §3). It is also what makes a refused update JSON:API's
// 403 rather than a 405 (unmatched, docs/decisions.md §17), so a PATCH without
// a body is a JSON:API request when its Accept asks for JSON:API.
func (n negotiation) errorsInJSONAPI() bool {
	return n.format == engine.JSONAPI || (n.problem != nil && n.errorsJSONAPI)
}

// mediaRange is one entry of an Accept header.
type mediaRange struct {
	typ string
	// extraParams: parameters other than q and JSON:API 1.1's ext and
	// profile; a JSON:API instance with one is never usable.
	extraParams bool
	ext         string // the ext parameter's value, unquoted: the extensions asked for
	q           float64
}

// plainJSONAPI tells whether a JSON:API instance of Accept asks for no
// extension and no other parameter: any profile is ignored, as JSON:API
// 1.1 says of profiles a server does not recognize (the server applies the
// cursor profile whatever Accept says).
func (m mediaRange) plainJSONAPI() bool { return !m.extraParams && len(extensions(m.ext)) == 0 }

// extensions splits an ext parameter's value, a space-separated list of
// URIs; empty when it names none.
func extensions(ext string) []string { return strings.Fields(ext) }

// jsonAPIParams sorts the parameters of a JSON:API media type in a
// Content-Type: the extensions its ext names, and whether it has a
// parameter other than ext and profile (JSON:API 1.1: 415 for those).
// A profile is ignored: the server applies none a request asks for.
func jsonAPIParams(params map[string]string) (exts []string, other bool) {
	for name, value := range params {
		switch name {
		case "ext":
			exts = extensions(value)
		case "profile":
		default:
			other = true
		}
	}
	return exts, other
}

func parseAccept(values []string) []mediaRange {
	var out []mediaRange
	for _, v := range values {
		for _, part := range strings.Split(v, ",") {
			part = strings.TrimSpace(part)
			if part == "" {
				continue
			}
			fields := strings.Split(part, ";")
			mr := mediaRange{typ: strings.ToLower(strings.TrimSpace(fields[0])), q: 1}
			for _, p := range fields[1:] {
				name, value, _ := strings.Cut(strings.TrimSpace(p), "=")
				name, value = strings.ToLower(strings.TrimSpace(name)), strings.Trim(strings.TrimSpace(value), `"`)
				switch name {
				case "q":
					if q, err := strconv.ParseFloat(value, 64); err == nil {
						mr.q = q
					}
				case "ext":
					mr.ext = value
				case "profile":
				default:
					mr.extraParams = true
				}
			}
			out = append(out, mr)
		}
	}
	return out
}

// accepts tells whether any acceptable (q > 0) range names one of the types.
func accepts(ranges []mediaRange, types ...string) bool {
	for _, r := range ranges {
		if r.q <= 0 {
			continue
		}
		for _, t := range types {
			if r.typ == t && !(t == jsonapi.MediaType && !r.plainJSONAPI()) {
				return true
			}
		}
	}
	return false
}

// negotiate chooses the response format and rejects unacceptable media types. It
// does not use Gin's NegotiateFormat, which ignores q-values. A JSON:API
// media type may carry JSON:API 1.1's profile parameter, which is ignored;
// ext, which names no extension these addresses support (415 in
// Content-Type; in Accept the instance is unusable, 406 when all are); any
// other parameter is the same as an unsupported ext (docs/decisions.md §3).
func negotiate(r *http.Request) negotiation {
	acceptValues := r.Header.Values("Accept")
	ranges := parseAccept(acceptValues)
	ct := r.Header.Get("Content-Type")
	ctType, ctParams, ctErr := mime.ParseMediaType(ct)
	ctJSONAPI := ct != "" && ctErr == nil && ctType == jsonapi.MediaType
	var namedInAccept, cleanInAccept bool
	for _, m := range ranges {
		if m.typ == jsonapi.MediaType {
			namedInAccept = true
			if m.plainJSONAPI() && m.q > 0 {
				cleanInAccept = true
			}
		}
	}
	n := negotiation{errorsJSONAPI: namedInAccept || strings.Contains(strings.ToLower(ct), jsonapi.MediaType)}
	hasBody := r.ContentLength > 0 || len(r.TransferEncoding) > 0
	ctExts, ctOther := jsonAPIParams(ctParams)
	switch {
	case ctJSONAPI && (ctOther || len(ctExts) > 0):
		n.format = engine.JSONAPI
		n.problem = problem.UnsupportedMediaType(`The "Content-Type" request header should contain JSON:API media type without any parameters.`)
	case namedInAccept && !cleanInAccept:
		n.format = engine.JSONAPI
		n.problem = problem.NotAcceptable(`The "Accept" request header should contains at least one instance of JSON:API media type without any parameters.`)
	case cleanInAccept || ctJSONAPI:
		n.format = engine.JSONAPI
		if len(acceptValues) > 0 && !accepts(ranges, jsonapi.MediaType, jsonapi.PlainMediaType, "application/*", "*/*") {
			n.problem = problem.NotAcceptable(`The "Accept" request header does not accept JSON:API content type.`)
		} else if hasBody && !ctJSONAPI {
			n.problem = problem.UnsupportedMediaType(`The "Content-Type" request header must be "application/vnd.api+json" for a JSON:API request with a body.`)
		}
	default:
		n.format = engine.Plain
		if len(acceptValues) > 0 && !accepts(ranges, jsonapi.PlainMediaType, "application/*", "*/*") {
			n.problem = problem.NotAcceptable("Only JSON representation of the requested resource is supported.")
		} else if hasBody && (ctErr != nil || ctType != jsonapi.PlainMediaType || !onlyCharset(ctParams)) {
			n.problem = problem.UnsupportedMediaType(plainContentType(ctType, ctErr))
		}
	}
	return n
}

// plainContentType is the detail of a body whose Content-Type is neither
// format's: Oro's sentence, then the two media types the API reads and what
// each means (issue 31), naming the type that was sent when it can be read.
func plainContentType(sent string, err error) string {
	detail := `The "Content-Type" request header must be "application/json" if specified.`
	if err == nil && sent != "" && len(sent) <= 100 {
		detail += fmt.Sprintf(" %q is not read here.", sent)
	}
	return detail + ` Send the body as JSON with Content-Type "application/json" (the plain format) or ` +
		`"application/vnd.api+json" (a JSON:API document); forms and other encodings are not accepted.`
}

func onlyCharset(params map[string]string) bool {
	for k := range params {
		if k != "charset" {
			return false
		}
	}
	return true
}

// negotiateAtomic is negotiate for POST /api/operations, the one address whose
// JSON:API media type carries a parameter (docs/decisions.md §0): the body must be
// application/vnd.api+json with ext="https://jsonapi.org/ext/atomic" and
// nothing else but a profile, which is ignored (415 otherwise), and Accept,
// when it names JSON:API, must name it with that ext or without ext (a
// profile is ignored there too; 406 otherwise); a wildcard is
// fine, but a plain-only Accept is a 406: there is no plain format here.
// Every answer is JSON:API.
func negotiateAtomic(r *http.Request) negotiation {
	n := negotiation{format: engine.JSONAPI, errorsJSONAPI: true}
	ctType, ctParams, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	exts, other := jsonAPIParams(ctParams)
	if err != nil || ctType != jsonapi.MediaType || other || !onlyAtomic(exts) {
		n.problem = problem.UnsupportedMediaType(`The "Content-Type" request header must be "` + jsonapi.AtomicMediaType + `".`)
		return n
	}
	values := r.Header.Values("Accept")
	if len(values) == 0 {
		return n
	}
	for _, v := range values {
		for _, part := range strings.Split(v, ",") {
			if acceptsAtomic(strings.TrimSpace(part)) {
				return n
			}
		}
	}
	n.problem = problem.NotAcceptable(`The "Accept" request header should list the JSON:API media type without parameters or with ext="` + jsonapi.AtomicExtension + `" only.`)
	return n
}

// acceptsAtomic tells whether one Accept range (q above 0) takes the answer of
// an atomic request: a wildcard, or the JSON:API media type without
// parameters but q or with the atomic ext alone.
func acceptsAtomic(part string) bool {
	typ, params, err := mime.ParseMediaType(part)
	if err != nil {
		return false
	}
	if q, ok := params["q"]; ok {
		if v, err := strconv.ParseFloat(q, 64); err != nil || v <= 0 {
			return false
		}
		delete(params, "q")
	}
	switch typ {
	case "*/*", "application/*":
		return true
	case jsonapi.MediaType:
		exts, other := jsonAPIParams(params)
		return !other && (len(exts) == 0 || onlyAtomic(exts))
	}
	return false
}

// onlyAtomic tells whether an ext list names the atomic extension and no
// other: the one extension /operations supports.
func onlyAtomic(exts []string) bool {
	return len(exts) == 1 && exts[0] == jsonapi.AtomicExtension
}
