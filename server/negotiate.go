package server

import (
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/entityapi/entityapi/server/engine"
	"github.com/entityapi/entityapi/server/jsonapi"
	"github.com/entityapi/entityapi/server/problem"
)

// negotiation is the outcome of reading Accept and Content-Type (DESIGN.md §3).
type negotiation struct {
	format engine.Format
	// errorsJSONAPI: the request named the JSON:API media type somewhere, so even a
	// 406 or 415 answers with a JSON:API error document.
	errorsJSONAPI bool
	problem       *problem.Problem // 406 or 415, nil when the request is acceptable
}

// mediaRange is one entry of an Accept header.
type mediaRange struct {
	typ         string
	extraParams bool // parameters other than q
	q           float64
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
				if strings.EqualFold(strings.TrimSpace(name), "q") {
					if q, err := strconv.ParseFloat(strings.TrimSpace(value), 64); err == nil {
						mr.q = q
					}
					continue
				}
				mr.extraParams = true
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
			if r.typ == t && !(t == jsonapi.MediaType && r.extraParams) {
				return true
			}
		}
	}
	return false
}

// negotiate chooses the response format and rejects unacceptable media types. It
// does not use Gin's NegotiateFormat, which ignores q-values.
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
			if !m.extraParams && m.q > 0 {
				cleanInAccept = true
			}
		}
	}
	n := negotiation{errorsJSONAPI: namedInAccept || strings.Contains(strings.ToLower(ct), jsonapi.MediaType)}
	hasBody := r.ContentLength > 0 || len(r.TransferEncoding) > 0
	switch {
	case ctJSONAPI && len(ctParams) > 0:
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
			n.problem = problem.UnsupportedMediaType(`The "Content-Type" request header must be "application/json" if specified.`)
		}
	}
	return n
}

func onlyCharset(params map[string]string) bool {
	for k := range params {
		if k != "charset" {
			return false
		}
	}
	return true
}
