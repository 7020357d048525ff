package server_test

import (
	"testing"

	"github.com/entityapi/entityapi/storage/storagetest"
)

// TestContentLength: an answer whose body is known whole before it is
// written carries a Content-Length, so that net/http does not send it in
// chunked encoding (a write more and chunk framing on every keep-alive
// answer over 2 kB: the lists of the speed table were all chunked); a
// document longer than one piece is still streamed as it is rendered.
func TestContentLength(t *testing.T) {
	t.Parallel()
	for _, dialect := range storagetest.Dialects() {
		t.Run(dialect, func(t *testing.T) {
			t.Parallel()
			a := newAPI(t, storagetest.Open(t, dialect))
			for _, tc := range []struct {
				name, path string
				headers    map[string]string
				status     int
				streamed   bool
			}{
				{name: "one country", path: "/admin/api/countries/US", status: 200},
				{name: "10 regions (over 2 kB)", path: "/admin/api/regions?page[size]=10", status: 200},
				{name: "100 regions, plain", path: "/admin/api/regions?page[size]=100", headers: plain, status: 200},
				{name: "an error", path: "/admin/api/countries/XX", status: 404},
				{name: "every region (over one piece)", path: "/admin/api/regions?page[size]=-1", status: 200, streamed: true},
			} {
				h := tc.headers
				if h == nil {
					h = jsonAPI
				}
				r := a.do("GET", tc.path, h, "").want(t, tc.status)
				switch {
				case tc.streamed && r.length != -1:
					t.Errorf("%s: %d bytes with Content-Length %d, want it streamed", tc.name, len(r.body), r.length)
				case !tc.streamed && r.length != int64(len(r.body)):
					t.Errorf("%s: %d bytes with Content-Length %d", tc.name, len(r.body), r.length)
				}
				if !tc.streamed && tc.status == 200 && len(r.body) <= 2048 && tc.name != "one country" {
					t.Errorf("%s: only %d bytes: the case does not test chunking", tc.name, len(r.body))
				}
			}
		})
	}
}
