package batchclient

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/entityapi/entityapi/gen/sdk/go/backoffice"
)

// This file is the HTTP side of `entityapi batch`: a small client of the
// back-office application that gets a token, sends a batch body as a stream,
// and reads operations and their errors. It speaks to the server only through
// its public API, so it works against any entityapi deployment. The token and
// the reads go through the generated Go SDK (gen/sdk/go/backoffice), the
// client a partner would use; the batch itself is sent by hand (submit says
// why). The answers are decoded here (operation.go), not into the SDK's
// models: the client prints the server's timestamps as sent, and reads only
// the members it shows.

// jsonAPIType is the media type of batch requests and of the documents read.
const jsonAPIType = "application/vnd.api+json"

// readTimeout bounds every request but the batch itself, whose upload and
// (with X-Mode: sync) processing may take as long as the server allows.
const readTimeout = 30 * time.Second

// apiClient is one API client (client_credentials) of the back-office
// application at base, such as http://127.0.0.1:8080/admin.
type apiClient struct {
	base, clientID, secret string
	hc                     *http.Client
	sdk                    *backoffice.Client // on hc, with base as its server
	token                  string
}

// authenticate fetches an access token from <base>/oauth2-token.
func (c *apiClient) authenticate(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, readTimeout)
	defer cancel()
	var sent *url.URL
	res, err := c.sdk.CreateTokenWithFormdataBody(ctx, backoffice.TokenRequest{GrantType: "client_credentials",
		ClientId: &c.clientID, ClientSecret: &c.secret}, sentTo(&sent))
	if err != nil {
		return fmt.Errorf("token: %w", err)
	}
	defer res.Body.Close()
	var tok struct {
		AccessToken      string `json:"access_token"`
		Error            string `json:"error"`
		ErrorDescription string `json:"error_description"`
	}
	raw, err := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	if err != nil {
		return fmt.Errorf("token: %w", err)
	}
	if jerr := json.Unmarshal(raw, &tok); jerr != nil || res.StatusCode != http.StatusOK || tok.AccessToken == "" {
		if tok.Error == "invalid_client" {
			return fmt.Errorf("token: %s from %s: %s: %s (check --client-id and --client-secret)", res.Status, sent, tok.Error, tok.ErrorDescription)
		}
		if tok.Error != "" {
			return fmt.Errorf("token: %s from %s: %s: %s", res.Status, sent, tok.Error, tok.ErrorDescription)
		}
		return fmt.Errorf("token: %s from %s (is --url the back-office application, such as http://127.0.0.1:8080/admin?): %.200s",
			res.Status, sent, raw)
	}
	c.token = tok.AccessToken
	return nil
}

// sentTo records the address a request goes to (before any redirect), which
// error messages name.
func sentTo(u **url.URL) backoffice.RequestEditorFn {
	return func(_ context.Context, req *http.Request) error {
		*u = req.URL
		return nil
	}
}

// authorize asks for a JSON:API document with the current token: read when
// the request is made, so that a retry after a renewal carries the new one.
func (c *apiClient) authorize(_ context.Context, req *http.Request) error {
	req.Header.Set("Accept", jsonAPIType)
	req.Header.Set("Authorization", "Bearer "+c.token)
	return nil
}

// submitted is the server's answer to a batch request: an operation to follow
// (202) or the records written by a synchronous batch (200, raw).
type submitted struct {
	operation *operation
	raw       []byte
}

// submit sends body, of size bytes (-1: unknown, sent chunked), as a batch of
// typ. The body is streamed as it is read: a file of any size is never held
// in memory.
//
// It is written by hand, not through the SDK: the SDK has one batch method
// per type (BatchAccountsWithBody, BatchContactsWithBody, ...) and none for
// PATCH /api/{type}, while --type is data the server judges (an unknown type
// is its 404, a type without batch its 405). Going through the SDK would take
// a table from type to method, one more place to keep in step with the
// documents for each entity, and would answer a type outside it from here
// instead of from the server.
func (c *apiClient) submit(ctx context.Context, typ string, body io.Reader, size int64, sync bool) (*submitted, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPatch, c.base+"/api/"+url.PathEscape(typ), body)
	if err != nil {
		return nil, err
	}
	req.ContentLength = size
	req.Header.Set("Content-Type", jsonAPIType)
	_ = c.authorize(ctx, req)
	if sync {
		req.Header.Set("X-Mode", "sync")
	}
	res, err := c.hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("batch: %w", err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, fmt.Errorf("batch: reading the answer: %w", err)
	}
	switch res.StatusCode {
	case http.StatusOK:
		return &submitted{raw: raw}, nil
	case http.StatusAccepted:
		op, err := decodeOperation(raw)
		if err != nil {
			return nil, fmt.Errorf("batch: %s with %w", res.Status, err)
		}
		return &submitted{operation: op, raw: raw}, nil
	}
	what := "batch refused"
	if sync {
		what = "synchronous batch refused, nothing written"
	}
	return nil, newServerError(what, res, raw)
}

// operation reads the operation id.
func (c *apiClient) operation(ctx context.Context, id string) (*operation, error) {
	raw, err := c.get(ctx, func(ctx context.Context, edit ...backoffice.RequestEditorFn) (*http.Response, error) {
		return c.sdk.GetAsyncOperation(ctx, id, nil, edit...)
	})
	if err != nil {
		return nil, err
	}
	return decodeOperation(raw)
}

// errorsPage reads page number (from 1) of the errors of an operation, of
// pageSize errors, and reports whether the server links a next page. The
// request is the one the server's next link names: the same page[size], and
// page[number] from the second page on.
func (c *apiClient) errorsPage(ctx context.Context, id string, pageSize, number int) ([]opError, bool, error) {
	params := &backoffice.ListAsyncOperationErrorsParams{PageSize: &pageSize}
	if number > 1 {
		params.PageNumber = &number
	}
	raw, err := c.get(ctx, func(ctx context.Context, edit ...backoffice.RequestEditorFn) (*http.Response, error) {
		return c.sdk.ListAsyncOperationErrors(ctx, id, params, edit...)
	})
	if err != nil {
		return nil, false, err
	}
	var doc struct {
		Data  []opError `json:"data"`
		Links struct {
			Next string `json:"next"`
		} `json:"links"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, false, fmt.Errorf("errors of operation %s: unexpected answer: %w", id, err)
	}
	return doc.Data, doc.Links.Next != "", nil
}

// maxRateLimited is how many 429 answers in a row one read waits out.
const maxRateLimited = 20

// sdkCall is one call of the SDK, made with the request editors given.
type sdkCall func(ctx context.Context, edit ...backoffice.RequestEditorFn) (*http.Response, error)

// get reads a JSON:API document through call. A 401 gets one new token and
// one more try: a long batch can outlive the token it was sent with. A 429 (a
// server with --rate-limit: polling counts) is waited out as its Retry-After
// says.
func (c *apiClient) get(ctx context.Context, call sdkCall) ([]byte, error) {
	renewed, limited := false, 0
	for {
		raw, res, target, err := c.getOnce(ctx, call)
		if err != nil {
			return nil, err
		}
		switch {
		case res.StatusCode == http.StatusOK:
			return raw, nil
		case res.StatusCode == http.StatusUnauthorized && !renewed:
			renewed = true
			if err := c.authenticate(ctx); err != nil {
				return nil, err
			}
			continue
		case res.StatusCode == http.StatusTooManyRequests && limited < maxRateLimited:
			limited++
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(retryAfter(res.Header.Get("Retry-After"))):
			}
			continue
		}
		return nil, newServerError("GET "+target.String(), res, raw)
	}
}

// retryAfter reads a Retry-After in seconds: at least 1 s, and at most a
// minute, so that a strange answer cannot stall the command for long.
func retryAfter(header string) time.Duration {
	secs, err := strconv.Atoi(strings.TrimSpace(header))
	if err != nil || secs < 1 {
		secs = 1
	}
	return time.Duration(min(secs, 60)) * time.Second
}

// getOnce makes call once, within readTimeout, and returns the answer's body
// and the address it was sent to.
func (c *apiClient) getOnce(ctx context.Context, call sdkCall) ([]byte, *http.Response, *url.URL, error) {
	ctx, cancel := context.WithTimeout(ctx, readTimeout)
	defer cancel()
	var target *url.URL
	res, err := call(ctx, c.authorize, sentTo(&target))
	if err != nil {
		return nil, nil, nil, err
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("GET %s: %w", target, err)
	}
	return raw, res, target, nil
}

// serverError is an answer other than the one expected, with the JSON:API
// errors it carried, so that they can be printed one per line.
type serverError struct {
	what   string
	status string
	errors []docError
	raw    []byte
}

// docError is one error of a JSON:API error document.
type docError struct {
	Status string `json:"status"`
	Title  string `json:"title"`
	Detail string `json:"detail"`
	Source *struct {
		Pointer   string `json:"pointer"`
		Parameter string `json:"parameter"`
	} `json:"source"`
}

func newServerError(what string, res *http.Response, raw []byte) *serverError {
	e := &serverError{what: what, status: res.Status, raw: raw}
	var doc struct {
		Errors []docError `json:"errors"`
	}
	if json.Unmarshal(raw, &doc) == nil {
		e.errors = doc.Errors
	}
	return e
}

func (e *serverError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s", e.what, e.status)
	if len(e.errors) == 0 {
		if s := strings.TrimSpace(string(e.raw)); s != "" {
			fmt.Fprintf(&b, ": %.500s", s)
		}
		return b.String()
	}
	for _, d := range e.errors {
		where := ""
		if d.Source != nil && d.Source.Pointer != "" {
			where = d.Source.Pointer + ": "
		} else if d.Source != nil && d.Source.Parameter != "" {
			where = d.Source.Parameter + ": "
		}
		fmt.Fprintf(&b, "\n  %s%s: %s", where, d.Title, d.Detail)
	}
	return b.String()
}
