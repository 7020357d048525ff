package openapi

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"
)

// TestObjectsAreNamedSchemas (issue 31): every object a document describes, and every
// allOf that merges schemas, is a component schema of its own, referenced with $ref,
// never written inline inside another schema or a media type. Generators name their
// types after component schemas: oapi-codegen makes an inline object an anonymous Go
// struct, which a partner cannot write as a composite literal (only fill field by
// field, `doc.Data.Type = ...`), and openapi-typescript a type with no name to import.
// A request or response document's data, a resource object's attributes, relationships
// and meta, and an error's source are each named (AccountCreateResource,
// AccountCreateAttributes, AccountRelationships, ErrorSource...).
func TestObjectsAreNamedSchemas(t *testing.T) {
	eachDocumentJSON(t, func(t *testing.T, js []byte) {
		var tree struct {
			Paths      map[string]map[string]any `json:"paths"`
			Components struct {
				Schemas map[string]map[string]any `json:"schemas"`
			} `json:"components"`
		}
		if err := json.Unmarshal(js, &tree); err != nil {
			t.Fatal(err)
		}
		var problems []string
		for name, s := range tree.Components.Schemas {
			inlineObjects(s, "#/components/schemas/"+name, false, &problems)
		}
		for path, item := range tree.Paths {
			for method, op := range item {
				mediaTypeSchemas(op, fmt.Sprintf("%s %s", strings.ToUpper(method), path), &problems)
			}
		}
		sort.Strings(problems)
		for _, p := range problems {
			t.Error(p)
		}
	})
}

// mediaTypeSchemas checks the schema of each media type of an operation's request
// body and responses: under `content`, every schema is nested.
func mediaTypeSchemas(node any, where string, problems *[]string) {
	switch n := node.(type) {
	case map[string]any:
		for k, v := range n {
			if k == "content" {
				if media, ok := v.(map[string]any); ok {
					for mt, m := range media {
						if mm, ok := m.(map[string]any); ok && mm["schema"] != nil {
							inlineObjects(mm["schema"], where+" "+mt, true, problems)
						}
					}
				}
				continue
			}
			if k != "example" && k != "examples" {
				mediaTypeSchemas(v, where, problems)
			}
		}
	case []any:
		for _, v := range n {
			mediaTypeSchemas(v, where, problems)
		}
	}
}

// inlineObjects records each schema at or below pointer, nested when it is not a
// component schema itself, that has properties or merges several schemas with allOf;
// a $ref ends the walk (what it names is checked as a component).
func inlineObjects(node any, pointer string, nested bool, problems *[]string) {
	s, ok := node.(map[string]any)
	if !ok {
		return
	}
	if _, ref := s["$ref"]; ref {
		return
	}
	if all, _ := s["allOf"].([]any); nested && (s["properties"] != nil || len(all) > 1) {
		*problems = append(*problems, pointer+": an inline object; make it a component schema and $ref it")
	}
	if props, ok := s["properties"].(map[string]any); ok {
		for k, v := range props {
			inlineObjects(v, pointer+"/properties/"+k, true, problems)
		}
	}
	for _, k := range []string{"items", "additionalProperties", "not"} {
		inlineObjects(s[k], pointer+"/"+k, true, problems)
	}
	for _, k := range []string{"allOf", "anyOf", "oneOf"} {
		list, _ := s[k].([]any)
		for i, v := range list {
			// The members of a component's allOf make that one named type.
			inlineObjects(v, fmt.Sprintf("%s/%s/%d", pointer, k, i), nested || k != "allOf", problems)
		}
	}
}
