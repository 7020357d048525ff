package jsonapi_test

import (
	"encoding/json"
	"testing"

	"github.com/entityapi/entityapi/server/jsonapi"
)

// TestPlainString: a JSON string without escapes is its bytes, as
// encoding/json decodes it; anything else is left to encoding/json.
func TestPlainString(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		raw    string
		want   string
		isFast bool
	}{
		{`"Umbrella"`, "Umbrella", true},
		{`""`, "", true},
		{`"Zürich"`, "Zürich", true},
		{`"a\"b"`, "", false},    // an escape: encoding/json reads it
		{`"a\u0041"`, "", false}, // likewise
		{`"` + "\xff" + `"`, "", false},
		{`"unterminated`, "", false},
		{`12`, "", false},
		{`null`, "", false},
		{`"`, "", false},
		{``, "", false},
	} {
		got, ok := jsonapi.PlainString([]byte(tc.raw))
		if ok != tc.isFast || got != tc.want {
			t.Errorf("PlainString(%q) = %q, %v; want %q, %v", tc.raw, got, ok, tc.want, tc.isFast)
		}
		if ok {
			var decoded string
			if err := json.Unmarshal([]byte(tc.raw), &decoded); err != nil || decoded != got {
				t.Errorf("PlainString(%q) = %q, encoding/json reads %q (%v)", tc.raw, got, decoded, err)
			}
		}
	}
}
