package server

import (
	"sort"
	"strings"
)

// A request that no route takes is answered 404 with the address the client
// most likely meant (issue 31): the API prefix left out (/admin/accounts),
// a singular or a typo (/admin/api/account), or the other application's
// resource (/api/accounts is the back office's, at /admin/api/accounts).
// Every candidate is checked against the documented paths, so a suggestion
// always names an address that exists. The work is bounded: a long path or
// one of many segments gets no suggestion, and each candidate costs one walk
// of the documented paths.

// Bounds of the paths a suggestion is looked for.
const (
	suggestMaxPath     = 256
	suggestMaxSegments = 6
	suggestMaxDistance = 2 // edits between a typed name and a resource's
)

// suggestion is an address that exists and the application it is in.
type suggestion struct {
	path string
	app  *application
}

// suggestAddress finds the documented address that path most likely meant,
// trying the application whose prefix the path has first; ok is false when
// nothing close exists.
func suggestAddress(path string, apps []*application) (s suggestion, ok bool) {
	if len(path) > suggestMaxPath {
		return s, false
	}
	segs := strings.Split(strings.Trim(path, "/"), "/")
	if len(segs) > suggestMaxSegments || segs[0] == "" {
		return s, false
	}
	for _, target := range byPrefix(path, apps) {
		for _, rest := range withoutBases(segs, apps) {
			for _, candidate := range corrections(rest, target.routes.Collections()) {
				full := target.base + "/" + strings.Join(candidate, "/")
				if full != path && target.routes.Allowed(full) != nil {
					return suggestion{path: full, app: target}, true
				}
			}
		}
	}
	return s, false
}

// byPrefix orders the applications by how well their base path prefixes
// path: the longest matching base first (an empty base matches every path,
// last of the matching ones), then those that do not match at all.
func byPrefix(path string, apps []*application) []*application {
	var matching, rest []*application
	for _, a := range apps {
		if a.base == "" || path == a.base || strings.HasPrefix(path, a.base+"/") {
			matching = append(matching, a)
		} else {
			rest = append(rest, a)
		}
	}
	sort.SliceStable(matching, func(i, j int) bool { return len(matching[i].base) > len(matching[j].base) })
	return append(matching, rest...)
}

// withoutBases is segs with each application's base path taken off where
// segs starts with it, and segs itself: the part after the prefix.
func withoutBases(segs []string, apps []*application) [][]string {
	out := [][]string{segs}
	for _, a := range apps {
		base := strings.Split(strings.Trim(a.base, "/"), "/")
		if a.base == "" || len(segs) <= len(base) {
			continue
		}
		if strings.Join(segs[:len(base)], "/") == strings.Join(base, "/") {
			out = append(out, segs[len(base):])
		}
	}
	return out
}

// corrections are the paths (after an application's base) that rest may
// have meant: with the "api" segment added when it is missing, and the
// resource name as written, singular made plural (or the other way) and
// the closest of collections within a few edits.
func corrections(rest []string, collections []string) [][]string {
	if rest[0] != "api" {
		rest = append([]string{"api"}, rest...)
	}
	if len(rest) < 2 {
		return [][]string{rest}
	}
	name := rest[1]
	lower := strings.ToLower(name)
	names := []string{name, lower, lower + "s", strings.TrimSuffix(lower, "s")}
	if near := closest(lower, collections); near != "" {
		names = append(names, near)
	}
	out := make([][]string, 0, len(names))
	for _, n := range names {
		c := append([]string{"api", n}, rest[2:]...)
		out = append(out, c)
	}
	return out
}

// closest is the name of names nearest to s by edit distance, if it is
// within suggestMaxDistance edits and s is long enough for that to mean
// something ("" otherwise).
func closest(s string, names []string) string {
	if len(s) < 4 || len(s) > 64 {
		return ""
	}
	best, bestDistance := "", suggestMaxDistance+1
	for _, n := range names {
		if d := editDistance(s, strings.ToLower(n)); d < bestDistance {
			best, bestDistance = n, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance of a and b, in bytes (resource
// names are ASCII).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// notFoundDetail words the 404 of an address no route takes.
func notFoundDetail(path string, apps []*application) string {
	const lead = "No resource exists at this address."
	s, ok := suggestAddress(path, apps)
	if !ok {
		return lead + " " + apiPrefixes(apps)
	}
	detail := lead + " Did you mean " + s.path + "?"
	if home := byPrefix(path, apps); len(home) > 0 && home[0] != s.app {
		detail += " It is " + s.app.title() + "'s resource: " + s.app.tokenHint() + "."
	}
	return detail
}

// apiPrefixes says where each application's resources and documents are.
func apiPrefixes(apps []*application) string {
	parts := make([]string, 0, len(apps))
	for _, a := range apps {
		parts = append(parts, a.title()+"'s resources are under "+a.base+"/api/ (its document: "+a.base+"/api/openapi.yaml)")
	}
	return strings.Join(parts, "; ") + "."
}

// title names the application in a sentence.
func (a *application) title() string {
	if a.storefront != nil {
		return "the storefront"
	}
	return "the back office"
}

// tokenHint says which token an application's resources take.
func (a *application) tokenHint() string {
	if a.storefront != nil {
		return "read it with a storefront client's token, or as a guest where guests may"
	}
	return "it takes a token of a back-office client (POST " + a.base + "/oauth2-token)"
}
