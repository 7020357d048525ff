package check

import (
	"bytes"
	"encoding/json"
	"sort"
	"strconv"
	"strings"

	"github.com/entityapi/entityapi/server/problem"
)

// jsonNUL is how a NUL character can appear in a JSON text: JSON forbids it
// raw inside a string, and the escape's digits have no case.
var jsonNUL = []byte(`\u0000`)

// RefuseNUL answers a body holding a string with a NUL character: no column
// can hold it (PostgreSQL text refuses it; SQLite would store a value no
// filter can name) and Bun refuses to write it into SQL, which was a 500. The
// pointer leads to the first such string (in member order), in either format.
// A body without the escape costs one scan and no decoding.
func RefuseNUL(body []byte) *problem.Problem {
	if !bytes.Contains(body, jsonNUL) {
		return nil
	}
	var v any
	if json.Unmarshal(body, &v) != nil {
		return nil // not JSON: the schema check reports it
	}
	return nulProblem(v, "")
}

// nulProblem walks a decoded JSON value below the pointer at. A value
// without a NUL (nearly every one) is walked once, building no pointer.
func nulProblem(v any, at string) *problem.Problem {
	if !hasNUL(v) {
		return nil
	}
	return nulAt(v, at)
}

// hasNUL tells whether a string of v holds a NUL character.
func hasNUL(v any) bool {
	switch x := v.(type) {
	case string:
		return strings.IndexByte(x, 0) >= 0
	case []any:
		for _, item := range x {
			if hasNUL(item) {
				return true
			}
		}
	case map[string]any:
		for _, item := range x {
			if hasNUL(item) {
				return true
			}
		}
	}
	return false
}

// nulAt is nulProblem's walk: the first string with a NUL, in member order.
func nulAt(v any, at string) *problem.Problem {
	switch x := v.(type) {
	case string:
		if strings.IndexByte(x, 0) >= 0 {
			return problem.Constraint("value constraint", "This value should not contain the NUL character (\\u0000).", at)
		}
	case []any:
		for i, item := range x {
			if p := nulAt(item, at+"/"+strconv.Itoa(i)); p != nil {
				return p
			}
		}
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if p := nulAt(x[k], at+"/"+escapePointer(k)); p != nil {
				return p
			}
		}
	}
	return nil
}
