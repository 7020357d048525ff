package server_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"testing"

	"github.com/entityapi/entityapi/gen/sdk/go/backoffice"
	"github.com/entityapi/entityapi/gen/sdk/go/storefront"
)

// The SDK tests (issue 8) drive a real server with the Go clients that `make sdk`
// generates from the public documents (gen/sdk/go/...), the way a partner's program
// would. Their HTTP traffic goes through sdkDoer, so every response the SDK decodes has
// first been validated against the document and counted by the contract helper, the
// token endpoint's included (the harness's own token helper bypasses it).

// sdkDoer is the HTTP doer given to the generated clients (WithHTTPClient): it sends
// the request and validates the response against the public documents before the
// SDK reads it.
type sdkDoer struct{ t *testing.T }

func (d sdkDoer) Do(req *http.Request) (*http.Response, error) {
	d.t.Helper()
	var body []byte
	if req.Body != nil {
		var err error
		if body, err = io.ReadAll(req.Body); err != nil {
			return nil, err
		}
		_ = req.Body.Close()
		req.Body = io.NopCloser(bytes.NewReader(body))
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	raw, err := io.ReadAll(res.Body)
	_ = res.Body.Close()
	if err != nil {
		return nil, err
	}
	k, err := contractOnce()
	if err != nil {
		d.t.Fatalf("loading the contract: %v", err)
	}
	k.check(d.t, req, body, res, raw)
	res.Body = io.NopCloser(bytes.NewReader(raw))
	return res, nil
}

// jsonAPIHeaders is the request editor every partner needs: without it the generated
// clients send no Accept header (and application/json for the plain-format body
// variants), and the server answers in the plain format, which the JSON:API fields of
// the typed responses then miss.
func jsonAPIHeaders(_ context.Context, req *http.Request) error {
	req.Header.Set("Accept", "application/vnd.api+json")
	if req.Body != nil {
		req.Header.Set("Content-Type", "application/vnd.api+json")
	}
	return nil
}

// bearer is the request editor that sends an access token.
func bearer(token string) func(context.Context, *http.Request) error {
	return func(_ context.Context, req *http.Request) error {
		req.Header.Set("Authorization", "Bearer "+token)
		return nil
	}
}

// sdkBackoffice returns a back-office SDK client acting as one of testPrincipals. Its
// token comes from the SDK's own createToken operation, sent without the JSON:API
// editor: the token endpoint takes application/json or a form.
func sdkBackoffice(t *testing.T, a *api, principal string) *backoffice.ClientWithResponses {
	t.Helper()
	server := a.base + "/admin" // servers[0].url of the back-office document
	anonymous, err := backoffice.NewClientWithResponses(server, backoffice.WithHTTPClient(sdkDoer{t}))
	if err != nil {
		t.Fatal(err)
	}
	p := principalNamed(t, principal)
	secret := p.client + "-secret"
	res, err := anonymous.CreateTokenWithResponse(context.Background(), backoffice.TokenRequest{
		GrantType: "client_credentials", ClientId: &p.client, ClientSecret: &secret})
	if err != nil {
		t.Fatalf("createToken: %v", err)
	}
	if res.JSON200 == nil || res.JSON200.AccessToken == "" || res.JSON200.TokenType != backoffice.Bearer {
		t.Fatalf("createToken: status %d, want 200 with a bearer token\n%s", res.StatusCode(), res.Body)
	}
	c, err := backoffice.NewClientWithResponses(server, backoffice.WithHTTPClient(sdkDoer{t}),
		backoffice.WithRequestEditorFn(jsonAPIHeaders), backoffice.WithRequestEditorFn(bearer(res.JSON200.AccessToken)))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// sdkStorefront is sdkBackoffice for the storefront document and a storefront client;
// an empty principal gives a guest client without a token.
func sdkStorefront(t *testing.T, a *api, principal string) *storefront.ClientWithResponses {
	t.Helper()
	server := a.base // servers[0].url of the storefront document is "/"
	opts := []storefront.ClientOption{storefront.WithHTTPClient(sdkDoer{t}), storefront.WithRequestEditorFn(jsonAPIHeaders)}
	if principal != "" {
		anonymous, err := storefront.NewClientWithResponses(server, storefront.WithHTTPClient(sdkDoer{t}))
		if err != nil {
			t.Fatal(err)
		}
		p := principalNamed(t, principal)
		secret := p.client + "-secret"
		res, err := anonymous.CreateTokenWithFormdataBodyWithResponse(context.Background(), storefront.TokenRequest{
			GrantType: "client_credentials", ClientId: &p.client, ClientSecret: &secret})
		if err != nil {
			t.Fatalf("createToken: %v", err)
		}
		if res.JSON200 == nil || res.JSON200.AccessToken == "" || res.JSON200.ExpiresIn <= 0 {
			t.Fatalf("createToken: status %d, want 200 with a token\n%s", res.StatusCode(), res.Body)
		}
		opts = append(opts, storefront.WithRequestEditorFn(bearer(res.JSON200.AccessToken)))
	}
	c, err := storefront.NewClientWithResponses(server, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// ptr returns a pointer to v: the generated types take optional values by pointer.
func ptr[T any](v T) *T { return &v }

// sdkOK fails the test when the SDK could not send a request or decode its answer (the
// typed response is nil then).
func sdkOK(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
