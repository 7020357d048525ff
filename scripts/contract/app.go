package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"

	"github.com/entityapi/entityapi/scripts/internal/localserver"
)

// application is what the contract run needs of one application: where its
// document and token endpoint are, the demo client whose token the tests
// carry, and its Portman configuration (beside this file).
type application struct {
	name     string
	base     string // its path prefix (--backoffice-base, --storefront-base)
	client   string // the demo client (storage/authstore/demo.go)
	portman  string // the Portman configuration, relative to the repository
	document string // the served document, under base
}

var applications = map[string]application{
	"backoffice": {name: "backoffice", base: "/admin", client: "demo-backoffice",
		portman: "scripts/contract/backoffice.portman.yaml", document: "/api/openapi.json"},
	"storefront": {name: "storefront", base: "", client: "demo-storefront",
		portman: "scripts/contract/storefront.portman.yaml", document: "/api/openapi.json"},
}

// test fetches the application's document from the server at root, has
// Portman write its contract tests and newman run them, keeping every file
// in dir.
func (app application) test(ctx context.Context, t tools, root, dir string) (*result, error) {
	doc, err := fetch(ctx, root+app.base+app.document)
	if err != nil {
		return nil, err
	}
	docPath := filepath.Join(dir, app.name+".openapi.json")
	if err := os.WriteFile(docPath, doc, 0o644); err != nil {
		return nil, err
	}
	config, err := filepath.Abs(app.portman)
	if err != nil {
		return nil, err
	}
	collection := filepath.Join(dir, app.name+".postman.json")
	if err := t.portman(ctx, dir, app.name, docPath, root+app.base, config, collection); err != nil {
		return nil, err
	}
	written, err := os.ReadFile(collection)
	if err != nil {
		return nil, err
	}
	if err := checkCollection(written); err != nil {
		return nil, fmt.Errorf("%s: %w", collection, err)
	}
	token, err := localserver.ClientToken(ctx, http.DefaultClient, root+app.base+"/oauth2-token", app.client, app.client+"-secret")
	if err != nil {
		return nil, err
	}
	report := filepath.Join(dir, app.name+".newman.json")
	if err := t.newman(ctx, dir, app.name, collection, token, report); err != nil {
		return nil, err
	}
	raw, err := os.ReadFile(report)
	if err != nil {
		return nil, fmt.Errorf("newman wrote no report: %w", err)
	}
	return readReport(raw)
}

// fetch GETs url and returns its body, failing on any status but 200.
func fetch(ctx context.Context, url string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, err
	}
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: status %d: %.500s", url, res.StatusCode, body)
	}
	return body, nil
}
