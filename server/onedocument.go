package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/entityapi/entityapi/server/problem"
)

// oneDocument is nil when body holds one JSON value and nothing after it but
// white space, or nothing at all (an absent body is the validator's to
// report); otherwise it is the malformed-JSON problem at the first wrong byte,
// worded as the batch splitter words it.
func oneDocument(body []byte) *problem.Problem {
	if len(bytes.TrimSpace(body)) == 0 || json.Valid(body) {
		return nil
	}
	var raw json.RawMessage
	var se *json.SyntaxError
	if err := json.Unmarshal(body, &raw); errors.As(err, &se) {
		off := se.Offset - 1 // Offset counts the bytes read, the wrong one included
		if se.Error() == "unexpected end of JSON input" {
			off = int64(len(body))
		}
		return malformedAt(body, off, se.Error())
	}
	return problem.MalformedJSON("Invalid json message received.")
}

// malformedAt is the malformed-JSON problem at a zero-based offset of body:
// "Parsing error in [line:column]", as Oro words it, and the reason.
func malformedAt(body []byte, off int64, reason string) *problem.Problem {
	off = min(max(off, 0), int64(len(body)))
	before := body[:off]
	line := bytes.Count(before, []byte{'\n'}) + 1
	col := int(off) - bytes.LastIndexByte(before, '\n')
	reason = strings.TrimSuffix(reason, ".")
	if reason != "" {
		reason = strings.ToUpper(reason[:1]) + reason[1:] + "."
	}
	return problem.MalformedJSON(fmt.Sprintf("Invalid json message received. Parsing error in [%d:%d]. %s", line, col, reason))
}
