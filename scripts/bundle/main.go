// Command bundle turns the per-entity OpenAPI files of one application into the two
// single documents the rest of the build uses:
//
//   - the code-generation input, which keeps the x-go-* hints that make oapi-codegen
//     hand our generic JSON:API document type to the handlers, and
//   - the public document, with every x-go-* key removed, which is committed, served
//     at /{base}/api/openapi.yaml, linted and used to generate SDKs.
//
// The root file holds what belongs to no entity; every path of every per-entity
// document beside it is added to it (paths.go). On standard output the command
// prints, comma-separated, the ids of the operations served by hand-written
// handlers, which code generation leaves out (byhand.go): the per-entity documents
// say which they are, so no list is kept in step by hand.
//
// Component names are kept as written in the source files (Country, not
// countries_Country), so the generated Go names and the public schema names stay
// stable; two files defining the same component name is an error.
//
// Usage: go run ./scripts/bundle -root openapi/backoffice/root.yaml \
//
//	-public openapi/bundled/backoffice.yaml -codegen openapi/bundled/backoffice.codegen.yaml
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/entityapi/entityapi/server/resource"
	"github.com/getkin/kin-openapi/openapi3"
	"github.com/oasdiff/yaml"
)

func main() {
	root := flag.String("root", "", "root OpenAPI file of the application")
	public := flag.String("public", "", "where to write the public document (YAML)")
	codegen := flag.String("codegen", "", "where to write the code-generation input (YAML)")
	flag.Parse()
	if *root == "" || *public == "" || *codegen == "" {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(*root, *public, *codegen); err != nil {
		fmt.Fprintln(os.Stderr, "bundle:", err)
		os.Exit(1)
	}
}

func run(root, public, codegen string) error {
	b, err := bundle(root)
	if err != nil {
		return err
	}
	if err := writeYAML(codegen, b.codegen); err != nil {
		return err
	}
	if err := writeYAML(public, b.public); err != nil {
		return err
	}
	fmt.Println(strings.Join(b.byHand, ","))
	return nil
}

// bundled is what bundle makes of one application: both documents (JSON) and the
// ids of the operations served by hand.
type bundled struct {
	public, codegen []byte
	byHand          []string
}

func bundle(root string) (*bundled, error) {
	ctx := context.Background()
	data, err := rootWithEntityPaths(root)
	if err != nil {
		return nil, err
	}
	loader := openapi3.NewLoader()
	loader.IsExternalRefsAllowed = true
	doc, err := loader.LoadFromDataWithPath(data, &url.URL{Path: filepath.ToSlash(root)})
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", root, err)
	}
	names := map[string]string{} // component name -> the ref it was first taken for
	var clash error
	doc.InternalizeRefs(ctx, func(d *openapi3.T, ref openapi3.ComponentRef) string {
		name := path.Base(ref.RefPath().Fragment)
		source := ref.RefPath().Path + "#" + ref.RefPath().Fragment
		if prev, ok := names[name]; ok && prev != source && clash == nil {
			clash = fmt.Errorf("component %q is defined twice: %s and %s", name, prev, source)
		}
		names[name] = source
		return name
	})
	if clash != nil {
		return nil, clash
	}
	if err := doc.Validate(ctx); err != nil {
		return nil, fmt.Errorf("validate: %w", err)
	}
	reg, err := resource.Load(doc)
	if err != nil {
		return nil, err
	}
	b := &bundled{}
	if b.byHand, err = servedByHand(doc, reg); err != nil {
		return nil, err
	}
	raw, err := doc.MarshalJSON()
	if err != nil {
		return nil, err
	}
	var tree any
	if err := json.Unmarshal(raw, &tree); err != nil {
		return nil, err
	}
	pointerNullables(tree)
	if b.codegen, err = json.Marshal(tree); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(raw, &tree); err != nil {
		return nil, err
	}
	stripGoHints(tree)
	if b.public, err = json.Marshal(tree); err != nil {
		return nil, err
	}
	return b, nil
}

// jsonNull is the shared schema that admits JSON null and nothing else
// (openapi/components/jsonapi.yaml).
const jsonNull = "#/components/schemas/JsonNull"

// pointerNullables rewrites, in the code-generation input only, each "a referenced
// schema or null" (`anyOf: [{$ref: X}, {$ref: JsonNull}]`, the OpenAPI 3.0.3 form
// that admits null, which the public document keeps) into
// `{type: object, nullable: true, allOf: [{$ref: X}]}`: oapi-codegen reads an anyOf
// as a union type, but this form as a pointer to X, the type the handlers use.
func pointerNullables(node any) {
	switch n := node.(type) {
	case map[string]any:
		if ref, ok := nullableRef(n); ok {
			delete(n, "anyOf")
			n["type"], n["nullable"], n["allOf"] = "object", true, []any{ref}
		}
		for _, v := range n {
			pointerNullables(v)
		}
	case []any:
		for _, v := range n {
			pointerNullables(v)
		}
	}
}

// nullableRef returns X of a schema that is `anyOf: [{$ref: X}, {$ref: JsonNull}]`.
func nullableRef(schema map[string]any) (any, bool) {
	branches, ok := schema["anyOf"].([]any)
	if !ok || len(branches) != 2 || schema["type"] != nil {
		return nil, false
	}
	second, ok := branches[1].(map[string]any)
	if !ok || second["$ref"] != jsonNull {
		return nil, false
	}
	first, ok := branches[0].(map[string]any)
	if _, isRef := first["$ref"]; !ok || !isRef {
		return nil, false
	}
	return first, true
}

// stripGoHints removes every x-go-* member: they only steer oapi-codegen and mean
// nothing to readers of the public document or to SDK generators.
func stripGoHints(node any) {
	switch n := node.(type) {
	case map[string]any:
		for k, v := range n {
			if strings.HasPrefix(k, "x-go-") {
				delete(n, k)
				continue
			}
			stripGoHints(v)
		}
	case []any:
		for _, v := range n {
			stripGoHints(v)
		}
	}
}

func writeYAML(file string, jsonDoc []byte) error {
	out, err := yamlDocument(jsonDoc)
	if err != nil {
		return err
	}
	return os.WriteFile(file, out, 0o644)
}

// yamlDocument is the committed form of a bundled document.
func yamlDocument(jsonDoc []byte) ([]byte, error) {
	out, err := yaml.JSONToYAML(jsonDoc)
	if err != nil {
		return nil, err
	}
	header := "# Generated by scripts/bundle from openapi/; do not edit.\n"
	return append([]byte(header), out...), nil
}
