package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The committed bundles and the operations left out of generation follow from the
// documents in openapi/: bundling them again gives the same bytes, and the lists
// are the ones written here by hand (the token endpoint, the atomic operations
// request, and the batch operation of each resource the back-office documents mark
// batch: true), so a marker lost or
// added in a document fails this test.
func TestBundleApplications(t *testing.T) {
	want := map[string][]string{
		"backoffice": {"batchAccounts", "batchBusinessUnits", "batchContacts", "batchTaxJurisdictions",
			"batchUsers", "batchWeightUnits", "createToken", "runAtomicOperations"},
		"storefront": {"createToken"},
	}
	for app, byHand := range want {
		t.Run(app, func(t *testing.T) {
			b, err := bundle(filepath.Join("..", "..", "openapi", app, "root.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(b.byHand, byHand) {
				t.Errorf("served by hand: %v, want %v", b.byHand, byHand)
			}
			for file, doc := range map[string][]byte{app + ".yaml": b.public, app + ".codegen.yaml": b.codegen} {
				got, err := yamlDocument(doc)
				if err != nil {
					t.Fatal(err)
				}
				committed, err := os.ReadFile(filepath.Join("..", "..", "openapi", "bundled", file))
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, committed) {
					t.Errorf("openapi/bundled/%s differs from the bundle of openapi/%s: run make generate", file, app)
				}
			}
		})
	}
}

// tokenDocument is a shared token endpoint outside the application's folder, as
// openapi/components/oauth.yaml is; marker is its operation's x-entityapi.
func tokenDocument(marker string) string {
	return `openapi: 3.0.3
info: {title: token, version: 1.0.0}
paths:
  /oauth2-token:
    post:
      operationId: createToken
      ` + marker + `
      responses:
        '200': {description: A token.}
`
}

const rootDocument = `openapi: 3.0.3
info: {title: app, version: 1.0.0}
servers: [{url: /}]
paths:
  /oauth2-token:
    $ref: '../shared/token.yaml#/paths/~1oauth2-token'
`

// thingsDocument is a per-entity document of a resource whose x-entityapi says
// batch (true or false), with a PATCH on its collection.
func thingsDocument(batch string) string {
	return `openapi: 3.0.3
info: {title: things, version: 1.0.0}
paths:
  /api/things:
    get:
      operationId: listThings
      responses:
        '200': {description: Things., content: {application/json: {schema: {$ref: '#/components/schemas/Thing'}}}}
    patch:
      operationId: batchThings
      responses:
        '202': {description: Accepted.}
  /api/things/{id}:
    get:
      operationId: getThing
      parameters: [{name: id, in: path, required: true, schema: {type: string}}]
      responses:
        '200': {description: A thing.}
components:
  schemas:
    Thing:
      type: object
      x-entityapi: {table: things, id: {column: id, kind: integer}, batch: ` + batch + `}
      properties:
        type: {type: string, enum: [things]}
        id: {type: string}
`
}

// writeApp writes an application's folder (app/) and a shared one (shared/) and
// returns the path of its root document.
func writeApp(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		file := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "app", "root.yaml")
}

func TestBundleDerivesPathsAndServedByHand(t *testing.T) {
	root := writeApp(t, map[string]string{
		"app/root.yaml":         rootDocument,
		"app/things.yaml":       thingsDocument("true"),
		"app/oapi-codegen.yaml": "package: app\n", // no openapi member: not a per-entity document
		"shared/token.yaml":     tokenDocument("x-entityapi: {servedBy: auth}"),
	})
	b, err := bundle(root)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"batchThings", "createToken"}; !slices.Equal(b.byHand, want) {
		t.Errorf("served by hand: %v, want %v", b.byHand, want)
	}
	for _, doc := range [][]byte{b.public, b.codegen} {
		for _, path := range []string{`"/api/things"`, `"/api/things/{id}"`, `"/oauth2-token"`, `"getThing"`} {
			if !bytes.Contains(doc, []byte(path)) {
				t.Errorf("%s is missing from the bundle:\n%s", path, doc)
			}
		}
		if bytes.Contains(doc, []byte("servedBy")) {
			t.Errorf("the operation's marker leaked into the bundle:\n%s", doc)
		}
	}
}

func TestBundleRefuses(t *testing.T) {
	for name, c := range map[string]struct {
		things, marker, extra, want string
	}{
		"unknown server":          {"true", "x-entityapi: {servedBy: engine}", "", `unknown servedBy "engine"`},
		"unknown marker member":   {"true", "x-entityapi: {generate: false}", "", `unknown field "generate"`},
		"batch PATCH of no batch": {"false", "", "", "has no batch: true"},
		"path in two documents":   {"true", "", thingsDocument("true"), "/api/things is in both"},
	} {
		t.Run(name, func(t *testing.T) {
			files := map[string]string{
				"app/root.yaml":     rootDocument,
				"app/things.yaml":   thingsDocument(c.things),
				"shared/token.yaml": tokenDocument(c.marker),
			}
			if c.extra != "" {
				files["app/zthings.yaml"] = c.extra
			}
			_, err := bundle(writeApp(t, files))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one saying %q", err, c.want)
			}
		})
	}
}

// A tag a per-entity document declares is added after the root's own, unless
// the root declares it (the root's description wins); two documents declaring
// the same tag is an error.
func TestBundleEntityTags(t *testing.T) {
	root := rootDocument + "tags: [{name: things, description: Root things.}]\n"
	withTags := func(doc, tags string) string {
		return strings.Replace(doc, "paths:\n", "tags: "+tags+"\npaths:\n", 1)
	}
	b, err := bundle(writeApp(t, map[string]string{
		"app/root.yaml":     root,
		"app/things.yaml":   withTags(thingsDocument("true"), "[{name: things, description: File things.}, {name: widgets, description: Widgets.}]"),
		"shared/token.yaml": tokenDocument(""),
	}))
	if err != nil {
		t.Fatal(err)
	}
	want := `"tags":[{"description":"Root things.","name":"things"},{"description":"Widgets.","name":"widgets"}]`
	if !bytes.Contains(b.public, []byte(want)) {
		t.Errorf("tags of the bundle, want %s:\n%s", want, b.public)
	}
	gadgets := strings.NewReplacer("things", "gadgets", "Thing", "Gadget").Replace(thingsDocument("true"))
	_, err = bundle(writeApp(t, map[string]string{
		"app/root.yaml":     rootDocument,
		"app/things.yaml":   withTags(thingsDocument("true"), "[{name: widgets}]"),
		"app/gadgets.yaml":  withTags(gadgets, "[{name: widgets}]"),
		"shared/token.yaml": tokenDocument(""),
	}))
	if want := `tag "widgets" is declared in both gadgets.yaml and things.yaml`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want one saying %q", err, want)
	}
}
