package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const thingsSpec = `openapi: 3.0.3
info: {title: things, version: 1.0.0}
paths: {}
components:
  schemas:
    Thing:
      type: object
      x-entityapi: {table: things, id: {column: id, kind: integer}}
      properties:
        type: {type: string, enum: [things]}
        id: {type: string}
        relationships:
          type: object
          properties:
            parts:
              x-through: {table: thing_parts, column: thing_id, target: part_id}
              type: object
              properties:
                data: {type: array, items: {$ref: '#/components/schemas/PartIdentifier'}}
    PartIdentifier:
      type: object
      properties:
        type: {type: string, enum: [things]}
        id: {type: string}
`

// The models are found by their table tags, in any file of the package but its
// tests and generated files; a table with no model, or two, is refused.
func TestRun(t *testing.T) {
	for name, c := range map[string]struct {
		models, want string
	}{
		"found": {models: "type Thing struct {\n\tbun.BaseModel `bun:\"table:things,alias:t\"`\n}\n" +
			"type ThingPart struct {\n\tbun.BaseModel `bun:\"table:thing_parts\"`\n}\n",
			want: "(*Thing)(nil), // things"},
		"no model": {models: "type ThingPart struct {\n\tbun.BaseModel `bun:\"table:thing_parts\"`\n}\n",
			want: "table things (" + "things) has 0 Bun models"},
		"two models": {models: "type Thing struct {\n\tbun.BaseModel `bun:\"table:things\"`\n}\n" +
			"type Other struct {\n\tbun.BaseModel `bun:\"table:things\"`\n}\n",
			want: "has 2 Bun models"},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			pkg := filepath.Join(dir, "storage")
			if err := os.Mkdir(pkg, 0o755); err != nil {
				t.Fatal(err)
			}
			for file, text := range map[string]string{
				filepath.Join(dir, "spec.yaml"):      thingsSpec,
				filepath.Join(pkg, "models.go"):      "package storage\n\n" + c.models,
				filepath.Join(pkg, "models_test.go"): "package storage\n\ntype Fake struct {\n\tbun.BaseModel `bun:\"table:things\"`\n}\n",
			} {
				if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			out := filepath.Join(pkg, "models.gen.go")
			err := run([]string{filepath.Join(dir, "spec.yaml")}, pkg, out)
			if name != "found" {
				if err == nil || !strings.Contains(err.Error(), c.want) {
					t.Fatalf("error %v, want one saying %q", err, c.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			src, _ := os.ReadFile(out)
			for _, want := range []string{c.want, "(*ThingPart)(nil), // thing_parts", "var joinModels"} {
				if !strings.Contains(string(src), want) {
					t.Errorf("models.gen.go lacks %q:\n%s", want, src)
				}
			}
		})
	}
}
