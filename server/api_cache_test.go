package server_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/entityapi/entityapi/server"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// wantCache fails unless r's Cache-Control is want.
func wantCache(t *testing.T, what string, r *result, want string) {
	t.Helper()
	if got := r.header.Get("Cache-Control"); got != want {
		t.Errorf("%s: Cache-Control %q, want %q", what, got, want)
	}
}

// TestCacheHeaders: a storefront guest's read is public for
// --guest-max-age, tagged by its bytes and varied by every header that
// changes it, and revalidates to a 304 with the same headers; an
// authenticated read is private and revalidated; writes and errors are
// kept by no cache.
func TestCacheHeaders(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		first := a.do(http.MethodGet, "/api/countries/DE", guest, "").want(t, 200)
		wantCache(t, "a guest's record", first, "public, max-age=60")
		tag := first.header.Get("ETag")
		if !strings.HasPrefix(tag, `"b`) {
			t.Errorf("a guest's record is tagged %q, want a hash of its bytes", tag)
		}
		vary := strings.Join(first.header.Values("Vary"), ", ")
		for _, h := range []string{"Accept", "Authorization", "X-Include", "X-Localization-ID", "X-Currency"} {
			if !strings.Contains(vary, h) {
				t.Errorf("a guest's answer varies by %q, not by %s", vary, h)
			}
		}
		again := a.do(http.MethodGet, "/api/countries/DE", withHeaders(guest, "If-None-Match", tag), "").want(t, 304)
		wantCache(t, "a guest's revalidation", again, "public, max-age=60")
		if again.header.Get("ETag") != tag || len(again.body) != 0 {
			t.Errorf("the 304 is tagged %q with %d bytes, want %q and none", again.header.Get("ETag"), len(again.body), tag)
		}
		// RFC 9110 §15.4.5: a 304 carries the Vary (and the Cache-Control,
		// ETag) a 200 would have.
		if got := strings.Join(again.header.Values("Vary"), ", "); got != vary {
			t.Errorf("the 304 varies by %q, the 200 by %q", got, vary)
		}
		german := a.do(http.MethodGet, "/api/countries/DE", withHeaders(guest, "X-Localization-ID", "2"), "").want(t, 200)
		if german.header.Get("ETag") == tag {
			t.Errorf("the German answer has the English one's tag %s", tag)
		}
		// A search too is tagged, and revalidates.
		for _, s := range []struct {
			path    string
			headers map[string]string
			cache   string
		}{
			{"/api/search?filter[searchText]=bayern", guest, "public, max-age=60"},
			{"/admin/api/search?filter[searchText]=acme", jsonAPI, "private, no-cache"},
		} {
			found := a.do(http.MethodGet, s.path, s.headers, "").want(t, 200)
			wantCache(t, s.path, found, s.cache)
			tag := found.header.Get("ETag")
			if !strings.HasPrefix(tag, `"b`) {
				t.Errorf("%s is tagged %q", s.path, tag)
			}
			a.do(http.MethodGet, s.path, withHeaders(s.headers, "If-None-Match", tag), "").want(t, 304)
		}
		list := a.do(http.MethodGet, "/api/regions?filter[country]=DE&page[size]=2", guest, "").want(t, 200)
		wantCache(t, "a guest's list", list, "public, max-age=60")
		wantCache(t, "a guest's missing record", a.do(http.MethodGet, "/api/countries/XX", guest, "").want(t, 404), "no-store")
		wantCache(t, "a guest's refused read", a.do(http.MethodGet, "/api/weightunits", guest, "").want(t, 401), "no-store")

		sf := a.caller("storefront")
		wantCache(t, "a storefront client's read", sf.do(http.MethodGet, "/api/countries/DE", map[string]string{"Accept": "application/vnd.api+json"}, "").want(t, 200),
			"private, no-cache")
		id := a.createAccount(t, "Cached Not")
		read := a.do(http.MethodGet, "/admin/api/accounts/"+id, jsonAPI, "").want(t, 200)
		wantCache(t, "a back-office read", read, "private, no-cache")
		if strings.Contains(strings.Join(read.header.Values("Vary"), ","), "X-Localization-ID") {
			t.Errorf("an authenticated read varies as a guest's: %v", read.header.Values("Vary"))
		}
		wantCache(t, "a create", a.do(http.MethodPost, "/admin/api/accounts", jsonAPI, `{"data":{"type":"accounts","attributes":{"name":"Cached Never"}}}`).want(t, 201), "no-store")
		wantCache(t, "an error", a.do(http.MethodGet, "/admin/api/accounts?filter[nothing]=1", jsonAPI, "").want(t, 400), "no-store")
	})
}

// TestGuestMaxAge: --guest-max-age sets the guests' lifetime; 0 keeps their
// answers public but revalidated every time.
func TestGuestMaxAge(t *testing.T) {
	t.Parallel()
	for _, dialect := range storagetest.Dialects() {
		t.Run(dialect, func(t *testing.T) {
			t.Parallel()
			store := storagetest.Open(t, dialect)
			for _, c := range []struct {
				maxAge time.Duration
				want   string
			}{{2 * time.Hour, "public, max-age=7200"}, {-1, "public, no-cache"}} {
				a := startAPI(t, store, func(cfg *server.Config) { cfg.GuestMaxAge = c.maxAge })
				wantCache(t, c.maxAge.String(), a.do(http.MethodGet, "/api/countries", guest, "").want(t, 200), c.want)
			}
		})
	}
}

// TestRecordETagWithInclude: a record read with include is tagged by its
// version and, after its shape, a hash of the answer's bytes, since its
// included records change without its version: a change of an included
// record is a 200 to If-None-Match, never a 304 of the old answer, and the
// tag still names the version for If-Match.
func TestRecordETagWithInclude(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		r := a.do(http.MethodPost, "/admin/api/accounts", jsonAPI, `{"data":{"type":"accounts","attributes":{"name":"Tagged"},
			"relationships":{"contacts":{"data":[{"type":"contacts","id":"c1"}]}}},
			"included":[{"type":"contacts","id":"c1","attributes":{"firstName":"Ina","lastName":"Before"}}]}`).want(t, 201)
		id := r.value("data/id").(string)
		contact := r.value("included/0/id").(string)
		path := "/admin/api/accounts/" + id + "?include=contacts"
		tag := a.do(http.MethodGet, path, jsonAPI, "").want(t, 200).header.Get("ETag")
		plain := a.do(http.MethodGet, "/admin/api/accounts/"+id, jsonAPI, "").want(t, 200).header.Get("ETag")
		if version, _, _ := strings.Cut(plain, "-"); !strings.HasPrefix(tag, version+"-") || len(tag) <= len(plain) {
			t.Errorf("with include the account is tagged %q, without %q: want its version and more", tag, plain)
		}
		a.do(http.MethodGet, path, withHeaders(jsonAPI, "If-None-Match", tag), "").want(t, 304)
		a.do(http.MethodPatch, "/admin/api/contacts/"+contact, jsonAPI,
			`{"data":{"type":"contacts","id":"`+contact+`","attributes":{"lastName":"After"}}}`).want(t, 200)
		changed := a.do(http.MethodGet, path, withHeaders(jsonAPI, "If-None-Match", tag), "").want(t, 200)
		if changed.value("included/0/attributes/lastName") != "After" || changed.header.Get("ETag") == tag {
			t.Errorf("after its included contact changed, the account is tagged %q (was %q): %s", changed.header.Get("ETag"), tag, changed.body)
		}
		// The tag read with include names the version: If-Match takes it.
		a.do(http.MethodPatch, "/admin/api/accounts/"+id, withHeaders(jsonAPI, "If-Match", changed.header.Get("ETag")),
			`{"data":{"type":"accounts","id":"`+id+`","attributes":{"name":"Tagged Again"}}}`).want(t, 200)
	})
}
