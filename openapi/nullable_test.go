package openapi

import (
	"encoding/json"
	"fmt"
	"sort"
	"testing"
)

// TestNullableOnlyWidensAType: under OpenAPI 3.0.3 `nullable: true` only adds null to
// the `type` of its own schema, so next to allOf, anyOf, oneOf or without a type it
// admits no null at all, whatever kin-openapi accepts. 1.0.0 wrote an empty to-one
// relationship as {type: object, nullable: true, allOf: [$ref]}, and outside validators
// (Prism) refused every `"data": null` the server sent; "a schema or null" is written
// anyOf: [$ref, JsonNull].
func TestNullableOnlyWidensAType(t *testing.T) {
	eachDocumentJSON(t, func(t *testing.T, js []byte) {
		var tree any
		if err := json.Unmarshal(js, &tree); err != nil {
			t.Fatal(err)
		}
		var problems []string
		walkNullable(tree, "#", &problems)
		sort.Strings(problems)
		for _, p := range problems {
			t.Error(p)
		}
	})
}

// walkNullable records each schema under pointer whose nullable admits no null.
func walkNullable(node any, pointer string, problems *[]string) {
	switch n := node.(type) {
	case map[string]any:
		if n["nullable"] == true {
			for _, k := range []string{"allOf", "anyOf", "oneOf", "$ref"} {
				if _, ok := n[k]; ok {
					*problems = append(*problems, fmt.Sprintf("%s: nullable next to %s admits no null; write anyOf: [$ref, JsonNull]", pointer, k))
				}
			}
			if _, ok := n["type"]; !ok {
				*problems = append(*problems, pointer+": nullable without a type admits no null")
			}
		}
		for k, v := range n {
			walkNullable(v, pointer+"/"+k, problems)
		}
	case []any:
		for i, v := range n {
			walkNullable(v, fmt.Sprintf("%s/%d", pointer, i), problems)
		}
	}
}
