package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/entityapi/entityapi/server/auth"
	"github.com/entityapi/entityapi/server/engine"
	"github.com/entityapi/entityapi/server/identity"
	"github.com/entityapi/entityapi/server/jsonapi"
	"github.com/entityapi/entityapi/server/jsonguard"
	"github.com/entityapi/entityapi/server/problem"
	"github.com/entityapi/entityapi/storage"
)

// bodyKey keeps the request body, read once (readBody), on the Gin context.
const bodyKey = "entityapi.body"

// principalOf is the authenticated caller of a request, nil before (or
// outside) authentication.
func principalOf(c *gin.Context) *identity.Principal {
	if r := requestOf(c); r != nil {
		return r.Principal
	}
	return nil
}

// authenticate requires a valid token of this application: from the
// Authorization header, or (RFC 6750) a root access_token member of a JSON:API
// body of a single-resource request; never from the query string. It also checks
// the caller's roles against the route (403).
func (a *application) authenticate(c *gin.Context) {
	r := requestOf(c)
	if r == nil {
		c.Next()
		return
	}
	rt := r.Route
	token, err := a.bearer(c, r)
	if err != nil {
		a.abort(c, err)
		return
	}
	if token == "" {
		if a.storefront != nil {
			types := rt.Searches() // a search is a guest's when every type it spans is
			if types == nil {
				types = []string{rt.Resource().Type}
			}
			if guest := a.storefront.Guest(c.Request.Method, types...); guest != nil {
				r.Principal = guest
				c.Next()
				return
			}
		}
		a.metrics.authFailure("missing_token")
		a.unauthenticated(c, missingTokenReason(c.Request))
		return
	}
	p, err := a.auth.Authenticate(c.Request.Context(), token, a.audience)
	var ae *auth.Error
	if errors.As(err, &ae) {
		a.metrics.authFailure(ae.Code())
		a.unauthenticated(c, ae.Reason)
		return
	}
	if err != nil {
		a.abort(c, err)
		return
	}
	r.Principal = p
	// Who writes, for the audit history (storage/audit.go): the engine's
	// request, and for a batch the request's context, which its pipeline
	// writes with (the others' writes go through the engine's).
	actor := storage.Actor{Org: p.Org, Client: p.ClientID, User: p.UserID, Request: c.GetString(requestIDKey)}
	r.Ctx = storage.WithActor(r.Ctx, actor)
	if rt.IsBatch() {
		c.Request = c.Request.WithContext(storage.WithActor(c.Request.Context(), actor))
	}
	if a.replicated {
		// Who reads and writes, for the read replica's fences
		// (storage/replica.go); the request's context too, for what
		// reads it rather than the engine's request (the batch pipeline).
		r.Ctx = storage.WithPrincipal(r.Ctx, p.Key())
		c.Request = c.Request.WithContext(storage.WithPrincipal(c.Request.Context(), p.Key()))
	}
	if a.roles && !rt.Allows(p.Roles) {
		a.abort(c, engine.Denied())
		return
	}
	c.Next()
}

// missingTokenReason says why no token was found and how to send one
// (issue 31): Oro's "The access token is missing." and then the fix for
// what the request did send, an Authorization header without the Bearer
// scheme (a bare token, Basic credentials) or a token in the query string.
func missingTokenReason(r *http.Request) string {
	const missing = "The access token is missing."
	const how = "Send it as Authorization: Bearer <token> (a token comes from POST /oauth2-token)."
	if h := r.Header.Get("Authorization"); h != "" {
		scheme, _, hasScheme := strings.Cut(strings.TrimSpace(h), " ")
		if strings.EqualFold(scheme, "Bearer") {
			return missing + " The Authorization header names the Bearer scheme but no token after it. " + how
		}
		if !hasScheme {
			return missing + ` The Authorization header holds no scheme: write "Bearer " before the token. ` + how
		}
		if len(scheme) > 20 {
			scheme = scheme[:20] + "…"
		}
		return fmt.Sprintf("%s The Authorization header uses the %q scheme; this API takes only Bearer tokens. %s", missing, scheme, how)
	}
	if r.URL.Query().Has("access_token") {
		return missing + " A token in the query string is never read (it would be logged and cached along the way). " + how
	}
	return missing + " " + how
}

func (a *application) unauthenticated(c *gin.Context, reason string) {
	c.Header("WWW-Authenticate", `Bearer realm="entityapi"`)
	a.abort(c, &problem.Problem{Kind: problem.Unauthenticated, Title: "authentication exception", Detail: reason})
}

// bearer finds the token of a request.
func (a *application) bearer(c *gin.Context, r *engine.Request) (string, error) {
	if h := c.GetHeader("Authorization"); h != "" {
		scheme, token, _ := strings.Cut(h, " ")
		if !strings.EqualFold(scheme, "Bearer") {
			return "", nil
		}
		return strings.TrimSpace(token), nil
	}
	if r.Route.Operation().Operation.RequestBody == nil || r.Format != engine.JSONAPI || r.Route.IsBatch() {
		return "", nil
	}
	body, err := a.readBody(c)
	if err != nil {
		return "", err
	}
	var doc struct {
		AccessToken string `json:"access_token"`
	}
	_ = json.Unmarshal(body, &doc)
	return doc.AccessToken, nil
}

// readBody reads the request body once, within --max-body, and keeps it for
// the validator and the generated handler. It lets through exactly one JSON
// document: valid UTF-8, nested at most jsonguard.MaxDepth deep (checked while
// reading, before any decoder walks it) and followed by nothing but white space.
// The decoders after it (kin-openapi's, the generated handlers') read the first
// document of a stream and ignore what follows, so this is where a second
// document or trailing bytes are refused. A JSON:API document (atomic
// operations included) is kept without its @-members, which JSON:API 1.1
// says to ignore (jsonapi.WithoutAtMembers): every reader after this one,
// the schema check first, sees it as if they had not been sent. A plain
// body is kept as sent (an "@x" there is an unknown field).
func (a *application) readBody(c *gin.Context) ([]byte, error) {
	if v, ok := c.Get(bodyKey); ok {
		return v.([]byte), nil
	}
	if c.Request.Body == nil {
		return nil, nil
	}
	body, err := io.ReadAll(jsonguard.NewReader(http.MaxBytesReader(c.Writer, c.Request.Body, a.cfg.MaxBody)))
	var tooLarge *http.MaxBytesError
	var refused *jsonguard.Error
	switch {
	case errors.As(err, &tooLarge):
		return nil, problem.BodyTooLarge(a.cfg.MaxBody)
	case errors.As(err, &refused):
		return nil, malformedAt(body, refused.Offset, refused.Reason)
	case err != nil:
		return nil, problem.MalformedJSON("The request body could not be read.")
	}
	if p := oneDocument(body); p != nil {
		return nil, p
	}
	if r := requestOf(c); r != nil && r.Format == engine.JSONAPI {
		body = jsonapi.WithoutAtMembers(body)
	}
	c.Set(bodyKey, body)
	c.Request.Body = io.NopCloser(bytes.NewReader(body))
	return body, nil
}
