package localserver

import (
	"bytes"
	"encoding/json"
	"strconv"
	"testing"
)

// TestWriteAccounts: the streamed body is one JSON:API batch document of n
// accounts named in order, also for none and for a prefix needing escapes.
func TestWriteAccounts(t *testing.T) {
	for _, tc := range []struct {
		n      int
		prefix string
	}{{0, "Walk"}, {1, "Load"}, {3, `Q"uote\d`}, {70000, "Big"}} {
		var buf bytes.Buffer
		if err := WriteAccounts(&buf, tc.n, tc.prefix); err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Data []struct {
				Type       string `json:"type"`
				Attributes struct {
					Name string `json:"name"`
				} `json:"attributes"`
			} `json:"data"`
		}
		if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
			t.Fatalf("n=%d: %v", tc.n, err)
		}
		if len(doc.Data) != tc.n {
			t.Fatalf("n=%d: %d accounts", tc.n, len(doc.Data))
		}
		for i, a := range doc.Data {
			if want := tc.prefix + " " + strconv.Itoa(i); a.Type != "accounts" || a.Attributes.Name != want {
				t.Fatalf("account %d: %+v, want accounts named %q", i, a, want)
			}
		}
	}
}
