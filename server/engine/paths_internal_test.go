package engine

import (
	"testing"

	"github.com/entityapi/entityapi/server/resource"
)

// TestPathHopsHideWhatTheCallerMayNotRead: a path through a type whose
// records only some roles may read (x-entityapi readers) is unknown to the
// other callers, so that a filter or a sort on it is refused as any
// unknown one is, and never tells whether a hidden record matched.
func TestPathHopsHideWhatTheCallerMayNotRead(t *testing.T) {
	events := &resource.Resource{Type: "events", Readers: []string{roleAdministrator, roleIntegration}}
	rel := &resource.Relationship{Name: "lastEvent", Target: "events", Column: "last_event_id"}
	path := &resource.Path{Name: "lastEvent.action", Hops: []*resource.Relationship{rel},
		Targets: []*resource.Resource{events}, Field: &resource.Attribute{Name: "action", Filter: []string{"eq"}}}
	e := &Engine{}
	for _, tc := range []struct {
		roles []string
		ok    bool
	}{
		{[]string{roleUser}, false},
		{[]string{roleManager}, false},
		{nil, false},
		{[]string{roleAdministrator}, true},
		{[]string{roleUser, roleIntegration}, true},
	} {
		hops, ok := e.pathHops(&call{roles: tc.roles}, path)
		if ok != tc.ok {
			t.Errorf("roles %v: path known %v, want %v", tc.roles, ok, tc.ok)
			continue
		}
		if ok && (len(hops) != 1 || hops[0].Column != "last_event_id" || hops[0].Back != "" || hops[0].Through != nil) {
			t.Errorf("roles %v: hops %+v, want one to-one hop by last_event_id", tc.roles, hops)
		}
	}
}
