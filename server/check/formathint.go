package check

import (
	"bytes"
	"encoding/json"

	"github.com/entityapi/entityapi/server/problem"
)

// The commonest body mistake is the format, not the fields: a JSON:API
// document sent as application/json (the plain format reads its "data" as
// an unknown field), or a plain body sent as application/vnd.api+json (no
// "data" at all). Each is answered with the problem the schema finds, worded
// with the fix (issue 31): which Content-Type the body needs, or which shape
// the Content-Type needs. Oro's first sentence is kept where clients may
// match on it.

// plainGotDocument is the detail for a JSON:API document sent as plain JSON.
const plainGotDocument = `This form should not contain extra fields: "data". ` +
	`The body is a JSON:API document, but its Content-Type is application/json, the plain format, ` +
	`whose body is the record's fields themselves. Send Content-Type: application/vnd.api+json ` +
	`(and Accept: application/vnd.api+json), or send the fields without the "data" wrapper.`

// documentGotPlain is the detail for a plain body sent as JSON:API.
const documentGotPlain = `The primary data object should exist. ` +
	`A JSON:API document holds the record in "data" ({"data":{"type":...,"attributes":{...}}}); ` +
	`to send the record's fields at the top level, send Content-Type: application/json (the plain format).`

// FormatHint returns the problem of a body in the other format than its
// Content-Type says (see above), or nil when the body is not such a case.
// It is asked only after the schema refused the body, so a correct request
// never pays for it.
func FormatHint(body []byte, jsonAPI bool) *problem.Problem {
	var top map[string]json.RawMessage
	if json.Unmarshal(body, &top) != nil {
		return nil // not an object: the schema's own problem says so
	}
	data, hasData := top["data"]
	if !jsonAPI {
		if !hasData || !isStructured(data) {
			return nil
		}
		return problem.Constraint("extra fields constraint", plainGotDocument, "")
	}
	if hasData || len(top) == 0 {
		return nil
	}
	if _, atomic := top["atomic:operations"]; atomic {
		return nil
	}
	return problem.RequestData(documentGotPlain, "/data")
}

// isStructured tells whether a raw JSON value is an object or an array, as a
// JSON:API document's primary data is.
func isStructured(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && (raw[0] == '{' || raw[0] == '[')
}
