// Package problem is entityapi's one vocabulary of client-visible errors. Every
// error the API answers with is a *Problem (or a List of them); its Kind alone
// decides the HTTP status, through the one table below, so no handler picks a
// status of its own. Anything that is not a Problem is an internal error: it is
// logged and answered with a 500 that reveals nothing.
package problem

import (
	"errors"
	"net/http"
	"strings"
)

// Kind classifies a problem; the table maps it to an HTTP status.
type Kind int

// The kinds of problems.
const (
	Invalid Kind = iota // the request breaks a rule: 400
	Unauthenticated
	Denied
	NotFoundKind
	MethodNotAllowed
	NotAcceptableKind
	ConflictKind
	TooLarge
	UnsupportedMedia
	TooManyRequests
	Internal
	Unavailable
	PreconditionKind
	Unprocessable // a well-formed request that cannot be served as sent: 422
)

var statuses = [...]int{
	Invalid:           http.StatusBadRequest,
	Unauthenticated:   http.StatusUnauthorized,
	Denied:            http.StatusForbidden,
	NotFoundKind:      http.StatusNotFound,
	MethodNotAllowed:  http.StatusMethodNotAllowed,
	NotAcceptableKind: http.StatusNotAcceptable,
	ConflictKind:      http.StatusConflict,
	TooLarge:          http.StatusRequestEntityTooLarge,
	UnsupportedMedia:  http.StatusUnsupportedMediaType,
	TooManyRequests:   http.StatusTooManyRequests,
	Internal:          http.StatusInternalServerError,
	Unavailable:       http.StatusServiceUnavailable,
	PreconditionKind:  http.StatusPreconditionFailed,
	Unprocessable:     http.StatusUnprocessableEntity,
}

// Status is the HTTP status of a kind.
func (k Kind) Status() int { return statuses[k] }

// Problem is one client-visible error. At most one of Pointer, Parameter and
// Header says where it is.
type Problem struct {
	Kind      Kind
	Title     string
	Detail    string
	Pointer   string // JSON Pointer into the request body
	Parameter string // query parameter
	Header    string // request header
	// Code, About and Type name a problem a published profile defines (the
	// cursor-pagination profile's max-size-exceeded, say): a short code, the
	// address of its definition (links.about, as before JSON:API 1.1), and
	// its type URI (links.type, JSON:API 1.1, where the profile requires
	// it); "" for the others.
	Code, About, Type string
	// Meta is what a client needs to act on the problem beyond its detail
	// (the largest page size, as {"page": {"maxSize": 1000}}); nil for most.
	Meta map[string]any
}

func (p *Problem) Error() string {
	var b strings.Builder
	b.WriteString(p.Title)
	if p.Detail != "" {
		b.WriteString(": ")
		b.WriteString(p.Detail)
	}
	return b.String()
}

// List is several problems found in one request.
type List []*Problem

func (l List) Error() string {
	parts := make([]string, len(l))
	for i, p := range l {
		parts[i] = p.Error()
	}
	return strings.Join(parts, "; ")
}

// From extracts the problems of err; ok is false for an internal error.
func From(err error) (List, bool) {
	if err == nil {
		return nil, false // errors.As would say so too, after two allocations
	}
	var l List
	if errors.As(err, &l) && len(l) > 0 {
		return l, true
	}
	var p *Problem
	if errors.As(err, &p) {
		return List{p}, true
	}
	return nil, false
}

// Status is the status of a response carrying these problems (oro-behaviour
// §6.2): the highest hundred wins; one distinct code in it is used as is; several
// including 409 give 409; otherwise the hundred's base code.
func (l List) Status() int {
	top := 0
	for _, p := range l {
		if h := p.Kind.Status() / 100; h > top {
			top = h
		}
	}
	codes := map[int]bool{}
	for _, p := range l {
		if s := p.Kind.Status(); s/100 == top {
			codes[s] = true
		}
	}
	if len(codes) == 1 {
		for s := range codes {
			return s
		}
	}
	if codes[http.StatusConflict] {
		return http.StatusConflict
	}
	return top * 100
}
