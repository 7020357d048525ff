package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/oasdiff/oasdiff/checker"
)

// base is a tiny released document: a list with an optional filter and a create.
const base = `openapi: 3.0.3
info: {title: t, version: 1.0.0}
paths:
  /accounts:
    get:
      operationId: listAccounts
      parameters:
        - {name: filter, in: query, required: false, schema: {type: string}}
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema: {type: object, properties: {id: {type: string}}}
    post:
      operationId: createAccount
      requestBody:
        content:
          application/json:
            schema: {type: object, required: [name], properties: {name: {type: string}}}
      responses:
        '201': {description: created}
  /accounts/{id}:
    delete:
      operationId: deleteAccount
      parameters:
        - {name: id, in: path, required: true, schema: {type: string}}
      responses:
        '204': {description: deleted}
`

// edit returns base with old replaced by new, failing when old is absent.
func edit(t *testing.T, old, new string) string {
	t.Helper()
	if !strings.Contains(base, old) {
		t.Fatalf("base has no %q", old)
	}
	return strings.Replace(base, old, new, 1)
}

func TestBreakingChanges(t *testing.T) {
	for _, tc := range []struct {
		name     string
		revision func(t *testing.T) string
		want     []string // ids of the ERR changes; none means compatible
	}{
		{name: "unchanged", revision: func(*testing.T) string { return base }},
		{name: "removed operation", want: []string{"api-removed-without-deprecation"},
			revision: func(t *testing.T) string {
				return edit(t, base[strings.Index(base, "    post:"):strings.Index(base, "  /accounts/{id}:")], "")
			}},
		{name: "removed path", want: []string{"api-path-removed-without-deprecation"},
			revision: func(t *testing.T) string { return base[:strings.Index(base, "  /accounts/{id}:")] }},
		{name: "new required query parameter", want: []string{"new-required-request-parameter"},
			revision: func(t *testing.T) string {
				return edit(t, "        - {name: filter", "        - {name: tenant, in: query, required: true, schema: {type: string}}\n        - {name: filter")
			}},
		{name: "optional parameter made required", want: []string{"request-parameter-became-required"},
			revision: func(t *testing.T) string {
				return edit(t, "in: query, required: false", "in: query, required: true")
			}},
		{name: "added optional request field",
			revision: func(t *testing.T) string {
				return edit(t, "properties: {name: {type: string}}", "properties: {name: {type: string}, note: {type: string}}")
			}},
		{name: "added response field",
			revision: func(t *testing.T) string {
				return edit(t, "properties: {id: {type: string}}", "properties: {id: {type: string}, name: {type: string}}")
			}},
		{name: "added operation",
			revision: func(t *testing.T) string {
				return edit(t, "  /accounts/{id}:\n", "  /accounts/{id}:\n    get:\n      operationId: getAccount\n      parameters:\n        - {name: id, in: path, required: true, schema: {type: string}}\n      responses:\n        '200': {description: ok}\n")
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			changes, _, _, err := compare([]byte(base), "released.yaml", []byte(tc.revision(t)), "bundled.yaml")
			if err != nil {
				t.Fatal(err)
			}
			breaking, _ := split(changes)
			var got []string
			for _, c := range breaking {
				got = append(got, c.GetId())
			}
			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Errorf("breaking changes %v, want %v", got, tc.want)
			}
		})
	}
}

func TestJudge(t *testing.T) {
	for _, tc := range []struct {
		base, revision string
		breaking       int
		want           verdict
	}{
		{"1.0.0", "1.0.0", 0, pass},
		{"1.0.0", "1.1.0", 0, pass},
		{"1.0.0", "1.0.0", 2, breakingChange},
		{"1.0.0", "1.4.0", 1, breakingChange}, // a minor bump does not carry a breaking change
		{"1.0.0", "2.0.0", 1, releaseNeeded},  // a new major: the released copy must follow
		{"1.0.0", "2.0.0", 0, releaseNeeded},
		{"2.0.0", "1.9.0", 0, badVersion},
		{"1.0.0", "v1", 0, badVersion},
	} {
		if got := judge(tc.base, tc.revision, tc.breaking); got != tc.want {
			t.Errorf("judge(%s, %s, %d) = %d, want %d", tc.base, tc.revision, tc.breaking, got, tc.want)
		}
	}
}

// TestGate runs the whole check on files: a removed operation fails and is listed;
// the same change with a new major passes only once the released copy is updated.
func TestGate(t *testing.T) {
	dir := t.TempDir()
	released, bundled := filepath.Join(dir, "released.yaml"), filepath.Join(dir, "bundled.yaml")
	write := func(name, text string) {
		if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	removed := strings.Replace(base, base[strings.Index(base, "  /accounts/{id}:"):], "", 1)
	v2 := strings.Replace(removed, "version: 1.0.0", "version: 2.0.0", 1)
	for _, tc := range []struct {
		name, released, bundled string
		ok                      bool
		output                  string
	}{
		{"same document", base, base, true, "no breaking change"},
		{"removed path, same major", base, removed, false, "ERR  DELETE /accounts/{id}: api path removed without deprecation [api-path-removed-without-deprecation]"},
		{"removed path, new major, released copy old", base, v2, false, "make release-docs"},
		{"removed path, new major, released copy updated", v2, v2, true, "no breaking change"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			write(released, tc.released)
			write(bundled, tc.bundled)
			var out strings.Builder
			ok, err := gate(&out, "app", released, bundled)
			if err != nil {
				t.Fatal(err)
			}
			if ok != tc.ok || !strings.Contains(out.String(), tc.output) {
				t.Errorf("gate = %v, want %v, output containing %q:\n%s", ok, tc.ok, tc.output, out.String())
			}
		})
	}
	t.Run("no released copy", func(t *testing.T) {
		var out strings.Builder
		ok, err := gate(&out, "app", filepath.Join(dir, "missing.yaml"), bundled)
		if err != nil || ok || !strings.Contains(out.String(), "make release-docs") {
			t.Errorf("gate = %v, %v, want a failure asking for make release-docs:\n%s", ok, err, out.String())
		}
	})
}

// nullableRef is a released document whose response and request write "an identifier
// or null" the way 1.0.0 did: {type: object, nullable: true, allOf: [$ref]}.
const nullableRef = `openapi: 3.0.3
info: {title: t, version: 1.0.0}
paths:
  /accounts/{id}/relationships/owner:
    patch:
      operationId: updateOwner
      parameters:
        - {name: id, in: path, required: true, schema: {type: string}}
      requestBody:
        content:
          application/json:
            schema: {type: object, properties: {data: {type: object, nullable: true, allOf: [{$ref: '#/components/schemas/Id'}]}}}
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema: {type: object, properties: {data: {type: object, nullable: true, allOf: [{$ref: '#/components/schemas/Id'}]}}}
components:
  schemas:
    Id: {type: object, required: [type, id], properties: {type: {type: string}, id: {type: string}}}
`

// TestNullableRefCorrection: the 1.0.1 correction of the documents, anyOf [$ref,
// JsonNull] in place of a nullable allOf (which OpenAPI 3.0.3 does not let admit null),
// is rated compatible, so it needs no new major and no exception in the gate.
func TestNullableRefCorrection(t *testing.T) {
	old := "{type: object, nullable: true, allOf: [{$ref: '#/components/schemas/Id'}]}"
	revision := strings.ReplaceAll(nullableRef, old, "{anyOf: [{$ref: '#/components/schemas/Id'}, {$ref: '#/components/schemas/JsonNull'}]}")
	revision = strings.Replace(revision, "version: 1.0.0", "version: 1.0.1", 1) +
		"    JsonNull: {type: object, nullable: true, enum: [null]}\n"
	if strings.Count(nullableRef, old) != 2 || strings.Contains(revision, "allOf") {
		t.Fatal("the fixture did not change as meant")
	}
	changes, _, _, err := compare([]byte(nullableRef), "released.yaml", []byte(revision), "bundled.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(changes) == 0 {
		t.Fatal("oasdiff saw no change at all")
	}
	if breaking, _ := split(changes); len(breaking) > 0 {
		l := checker.NewDefaultLocalizer()
		for _, c := range breaking {
			t.Errorf("rated breaking: %s", describe(c, l))
		}
	}
}
