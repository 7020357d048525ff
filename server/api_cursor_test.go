package server_test

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// Cursor paging (issue 18, the JSON:API cursor-pagination profile):
// page[after] and page[before] walk a list by key, and a walk gives the
// records of the same list paged by number, in the same order.

// seedCursorAccounts seeds 37 accounts whose names repeat and whose
// externalId is null for every third, so that sorts meet ties and NULLs.
func seedCursorAccounts(t *testing.T, a *api) {
	t.Helper()
	names := []string{"Delta", "Alpha", "Charlie", "Bravo", "Echo"}
	rows := make([]storage.Row, 37)
	for i := range rows {
		rows[i] = storage.Row{"name": names[i%len(names)]}
		if i%3 != 0 {
			rows[i]["external_id"] = fmt.Sprintf("X-%02d", (i*7)%37)
		}
	}
	seedRows(t, a.store, "accounts", rows...)
}

// walk follows one kind of link (next or prev) from path to the end and
// returns the identifiers in list order (a walk backward is turned round)
// and the pages it took.
func walk(t *testing.T, a *api, path, rel string) (ids []string, pages int) {
	t.Helper()
	var chunks [][]string
	for next := path; next != ""; pages++ {
		if pages > 100 {
			t.Fatalf("walking %s: more than 100 pages", path)
		}
		r := a.do(http.MethodGet, next, jsonAPI, "").want(t, http.StatusOK)
		chunks = append(chunks, dataIDs(t, r))
		if r.value("links/first") == nil {
			t.Fatalf("%s: a cursor page without links/first", next)
		}
		// The profile: prev and next are always there, null at the ends.
		links, _ := r.value("links").(map[string]any)
		for _, name := range []string{"prev", "next"} {
			if v, ok := links[name]; !ok {
				t.Fatalf("%s: links/%s is missing (the cursor profile says null at the end)\n%s", next, name, r.body)
			} else if _, isString := v.(string); v != nil && !isString {
				t.Fatalf("%s: links/%s = %v", next, name, v)
			}
		}
		link, _ := r.value("links/" + rel).(string)
		next = strings.TrimPrefix(link, a.base)
		if link != "" && next == link {
			t.Fatalf("links/%s = %q, not under %s", rel, link, a.base)
		}
	}
	if rel == "prev" {
		slices.Reverse(chunks)
	}
	for _, c := range chunks {
		ids = append(ids, c...)
	}
	return ids, pages
}

func TestCursorWalks(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		seedCursorAccounts(t, a)
		for _, query := range []string{
			"",
			"sort=-externalId,name",
			"sort=name,-id",
			"sort=externalId,-name&filter[name][neq]=Echo",
			"sort=-name,-createdAt&filter[name]=Alpha,Delta,Charlie",
		} {
			t.Run(query, func(t *testing.T) {
				base := "/admin/api/accounts?" + query
				all := allIDs(t, a, base)
				if len(all) < 10 {
					t.Fatalf("only %d accounts to walk", len(all))
				}
				for _, size := range []int{1, 4, 7, len(all), len(all) + 3} {
					forward, pages := walk(t, a, fmt.Sprintf("%s&page[size]=%d&page[after]=", base, size), "next")
					if !slices.Equal(forward, all) {
						t.Errorf("size %d forward: %v\nwant %v", size, forward, all)
					}
					if want := max(1, (len(all)+size-1)/size); pages != want {
						t.Errorf("size %d forward: %d pages, want %d", size, pages, want)
					}
					backward, _ := walk(t, a, fmt.Sprintf("%s&page[size]=%d&page[before]=", base, size), "prev")
					if !slices.Equal(backward, all) {
						t.Errorf("size %d backward: %v\nwant %v", size, backward, all)
					}
				}
				// Turning round mid-walk: the page before the third is the second.
				first := a.do(http.MethodGet, base+"&page[size]=5&page[after]=", jsonAPI, "").want(t, 200)
				second := a.do(http.MethodGet, strings.TrimPrefix(first.value("links/next").(string), a.base), jsonAPI, "").want(t, 200)
				third := a.do(http.MethodGet, strings.TrimPrefix(second.value("links/next").(string), a.base), jsonAPI, "").want(t, 200)
				back := a.do(http.MethodGet, strings.TrimPrefix(third.value("links/prev").(string), a.base), jsonAPI, "").want(t, 200)
				if got := dataIDs(t, back); !slices.Equal(got, all[5:10]) {
					t.Errorf("prev of the third page: %v, want %v", got, all[5:10])
				}
				if prev, ok := first.value("links").(map[string]any)["prev"]; !ok || prev != nil {
					t.Errorf("the first page's links/prev = %v (present %v), want null", prev, ok)
				}
			})
		}
	})
}

// TestCursorLinks: the links of a cursor page keep the request's other
// parameters, and a request by number keeps its number links.
func TestCursorLinks(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		seedCursorAccounts(t, a)
		r := a.do(http.MethodGet, "/admin/api/accounts?sort=name&filter[name][neq]=Echo&page[size]=3&page[after]=", jsonAPI, "").want(t, 200)
		next, _ := r.value("links/next").(string)
		u, err := url.Parse(next)
		if err != nil || u.Path != "/admin/api/accounts" {
			t.Fatalf("links/next = %q", next)
		}
		q := u.Query()
		if q.Get("sort") != "name" || q.Get("filter[name][neq]") != "Echo" || q.Get("page[size]") != "3" || q.Get("page[after]") == "" || q.Has("page[number]") {
			t.Errorf("links/next keeps %v", q)
		}
		if first := r.value("links/first"); first != a.base+"/admin/api/accounts?filter%5Bname%5D%5Bneq%5D=Echo&page%5Bafter%5D=&page%5Bsize%5D=3&sort=name" {
			t.Errorf("links/first = %v", first)
		}
		byNumber := a.do(http.MethodGet, "/admin/api/accounts?page[size]=3", jsonAPI, "").want(t, 200)
		if got := byNumber.value("links/next"); got != a.base+"/admin/api/accounts?page%5Bnumber%5D=2&page%5Bsize%5D=3" {
			t.Errorf("a page by number: links/next = %v", got)
		}
		hidden := a.do(http.MethodGet, "/admin/api/accounts?page[size]=3&page[after]=", map[string]string{"Accept": "application/vnd.api+json", "X-Include": "noHateoas;totalCount"}, "").want(t, 200)
		if hidden.value("links") != nil || hidden.header.Get("X-Include-Total-Count") != "37" {
			t.Errorf("noHateoas: links %v, total %q", hidden.value("links"), hidden.header.Get("X-Include-Total-Count"))
		}
	})
}

var linkHeader = regexp.MustCompile(`<([^>]+)>; rel="(next|prev)"`)

// TestCursorPlainLinkHeader walks the plain format by its Link header.
func TestCursorPlainLinkHeader(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		seedCursorAccounts(t, a)
		all := allIDs(t, a, "/admin/api/accounts?sort=-externalId")
		for _, dir := range []struct{ start, rel string }{{"page[after]=", "next"}, {"page[before]=", "prev"}} {
			var chunks [][]string
			for next, pages := "/admin/api/accounts?sort=-externalId&page[size]=10&"+dir.start, 0; next != ""; pages++ {
				if pages > 10 {
					t.Fatal("more than 10 pages")
				}
				r := a.do(http.MethodGet, next, plain, "").want(t, 200)
				var ids []string
				for _, c := range r.list {
					ids = append(ids, fmt.Sprint(get(c, "id")))
				}
				chunks = append(chunks, ids)
				next = ""
				for _, m := range linkHeader.FindAllStringSubmatch(r.header.Get("Link"), -1) {
					if m[2] == dir.rel {
						next = strings.TrimPrefix(m[1], a.base)
					}
				}
				if pages == 0 && strings.Contains(r.header.Get("Link"), `rel="`+map[string]string{"next": "prev", "prev": "next"}[dir.rel]+`"`) {
					t.Errorf("the first page of a walk %s has Link %q", dir.rel, r.header.Get("Link"))
				}
			}
			if dir.rel == "prev" {
				slices.Reverse(chunks)
			}
			if got := slices.Concat(chunks...); !slices.Equal(got, all) {
				t.Errorf("plain walk %s: %v\nwant %v", dir.rel, got, all)
			}
		}
		if h := a.do(http.MethodGet, "/admin/api/accounts?page[size]=10", plain, "").want(t, 200).header.Get("Link"); h != "" {
			t.Errorf("a plain page by number has Link %q", h)
		}
	})
}

// TestCursorSubresourceAndRelationship walks the regions of a country, as
// records and as identifiers.
func TestCursorSubresourceAndRelationship(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		for _, path := range []string{"/admin/api/countries/US/regions?sort=-name", "/admin/api/countries/US/relationships/regions"} {
			all := allIDs(t, a, path)
			sep := "?"
			if strings.Contains(path, "?") {
				sep = "&"
			}
			forward, pages := walk(t, a, path+sep+"page[size]=9&page[after]=", "next")
			if !slices.Equal(forward, all) || pages < 5 {
				t.Errorf("%s forward in %d pages: %v\nwant %v", path, pages, forward, all)
			}
			backward, _ := walk(t, a, path+sep+"page[size]=9&page[before]=", "prev")
			if !slices.Equal(backward, all) {
				t.Errorf("%s backward: %v\nwant %v", path, backward, all)
			}
		}
	})
}

// TestCursorErrors: every bad cursor request is a 400 naming the parameter,
// in the negotiated format, and the profile's problems carry their type.
func TestCursorErrors(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		seedCursorAccounts(t, a)
		r := a.do(http.MethodGet, "/admin/api/accounts?sort=name&page[size]=2&page[after]=", jsonAPI, "").want(t, 200)
		next := r.value("links/next").(string)
		u, _ := url.Parse(next)
		good := u.Query().Get("page[after]")
		altered := []byte(good)
		altered[len(altered)/2] ^= 1 // still base64url: a letter or digit changed
		if altered[len(altered)/2] == '-'^1 || altered[len(altered)/2] == '_'^1 {
			altered[len(altered)/2] = 'A'
		}
		regionCursor := func() string {
			r := a.do(http.MethodGet, "/admin/api/countries/US/regions?page[size]=2&page[after]=", jsonAPI, "").want(t, 200)
			u, _ := url.Parse(r.value("links/next").(string))
			return u.Query().Get("page[after]")
		}()
		const p = "/admin/api/accounts?"
		cases := []listCase{
			{name: "altered", path: p + "sort=name&page[after]=" + string(altered), status: 400, param: "page[after]"},
			{name: "truncated", path: p + "sort=name&page[after]=" + good[:len(good)-3], status: 400, param: "page[after]"},
			{name: "made up", path: p + "sort=name&page[after]=WzQyXQ", status: 400, param: "page[after]"},
			{name: "not base64", path: p + "sort=name&page[before]=%25%25%25", status: 400, param: "page[before]"},
			{name: "another sort", path: p + "sort=-name&page[after]=" + good, status: 400, param: "page[after]"},
			{name: "no sort", path: p + "page[after]=" + good, status: 400, param: "page[after]"},
			{name: "another list", path: p + "page[after]=" + regionCursor, status: 400, param: "page[after]"},
			{name: "too long", path: p + "page[after]=" + strings.Repeat("A", 3000), status: 400, param: "page[after]"},
			{name: "with page[number]", path: p + "page[number]=2&page[after]=", status: 400, param: "page[number]"},
			{name: "before with page[number]", path: p + "page[number]=1&page[before]=", status: 400, param: "page[number]"},
			{name: "after and before", path: p + "page[after]=&page[before]=", status: 400, param: "page[before]"},
			{name: "size -1", path: p + "page[size]=-1&page[after]=", status: 400, param: "page[size]"},
			{name: "size over the maximum", path: p + "page[size]=1001&page[after]=", status: 400, param: "page[size]"},
			{name: "operation errors page by number only", path: "/admin/api/asyncoperations/1/errors?page[after]=", status: 400, param: "page[after]"},
			{name: "relationship, made up", path: "/admin/api/countries/US/relationships/regions?page[after]=WzQyXQ", status: 400, param: "page[after]"},
		}
		runListCases(t, a, cases)

		over := a.do(http.MethodGet, p+"page[size]=1001&page[after]=", jsonAPI, "").want(t, 400)
		if got := over.value("errors/0/meta/page/maxSize"); got != float64(1000) {
			t.Errorf("meta.page.maxSize = %v, want 1000\n%s", got, over.body)
		}
		if got := over.value("errors/0/links/about"); got != "https://jsonapi.org/profiles/ethanresnick/cursor-pagination/max-size-exceeded" {
			t.Errorf("links.about = %v", got)
		}
		if got := over.value("errors/0/code"); got != "max-size-exceeded" {
			t.Errorf("code = %v", got)
		}
		inPlain := a.do(http.MethodGet, p+"page[size]=1001&page[after]=", plain, "").want(t, 400)
		if got := inPlain.value("0/code"); got != "max-size-exceeded" {
			t.Errorf("plain code = %v\n%s", got, inPlain.body)
		}
		plainAltered := a.do(http.MethodGet, p+"sort=name&page[after]="+string(altered), plain, "").want(t, 400)
		if got := plainAltered.value("0/source"); got != "page[after]" {
			t.Errorf("plain, altered: source = %v\n%s", got, plainAltered.body)
		}
		both := a.do(http.MethodGet, p+"page[after]=&page[before]=", jsonAPI, "").want(t, 400)
		if got := both.value("errors/0/links/about"); got != "https://jsonapi.org/profiles/ethanresnick/cursor-pagination/range-pagination-not-supported" {
			t.Errorf("after and before: links.about = %v", got)
		}
	})
}

// TestCursorStorefront walks the storefront's countries and the regions of
// one, where the language of X-Localization-ID picks the sorted names.
func TestCursorStorefront(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		sf := a.caller("storefront")
		for _, path := range []string{"/api/countries?sort=-name", "/api/countries/US/regions?sort=name", "/api/countries/US/relationships/regions"} {
			all := allIDs(t, sf, path)
			sep := "?"
			if strings.Contains(path, "?") {
				sep = "&"
			}
			forward, _ := walk(t, sf, path+sep+"page[size]=17&page[after]=", "next")
			backward, _ := walk(t, sf, path+sep+"page[size]=17&page[before]=", "prev")
			if !slices.Equal(forward, all) || !slices.Equal(backward, all) {
				t.Errorf("%s: forward %d, backward %d records, want the %d of the list in its order", path, len(forward), len(backward), len(all))
			}
		}
	})
}

// TestCursorDeepPageSeeks: the engine reads a deep cursor page with one
// statement that seeks by key (LIMIT, no OFFSET) and a deep page by number
// with an OFFSET, as the same list's rows.
func TestCursorDeepPageSeeks(t *testing.T) {
	t.Parallel()
	for _, dialect := range storagetest.Dialects() {
		t.Run(dialect, func(t *testing.T) {
			store := storagetest.Open(t, dialect)
			counter := &queryCounter{}
			store.AddStatementHook(counter)
			a := newAPI(t, store)
			rows := make([]storage.Row, 600)
			for i := range rows {
				rows[i] = storage.Row{"name": fmt.Sprintf("Deep %d", i)}
			}
			seedRows(t, store, "accounts", rows...)
			all := allIDs(t, a, "/admin/api/accounts?sort=-id")
			next := "/admin/api/accounts?sort=-id&page[size]=50&page[after]="
			var deep *result
			for range 10 {
				r := a.do(http.MethodGet, next, jsonAPI, "").want(t, 200)
				next = strings.TrimPrefix(r.value("links/next").(string), a.base)
			}
			queries := counter.during(func() { deep = a.do(http.MethodGet, next, jsonAPI, "").want(t, 200) })
			if got := dataIDs(t, deep); !slices.Equal(got, all[500:550]) {
				t.Errorf("the 11th page: %v, want %v", got, all[500:550])
			}
			var reads []string
			for _, q := range queries {
				if strings.Contains(q, `FROM "accounts"`) {
					reads = append(reads, q)
				}
			}
			if len(reads) != 1 || strings.Contains(strings.ToUpper(reads[0]), "OFFSET") || !strings.Contains(reads[0], `"id" < `) {
				t.Errorf("the statements reading the 11th page: %q, want one seeking by id with no OFFSET", reads)
			}
			byNumber := counter.during(func() {
				a.do(http.MethodGet, "/admin/api/accounts?sort=-id&page[size]=50&page[number]=11", jsonAPI, "").want(t, 200)
			})
			if !slices.ContainsFunc(byNumber, func(q string) bool { return strings.Contains(q, "OFFSET") }) {
				t.Errorf("a page by number without OFFSET: %q", byNumber)
			}
		})
	}
}
