package jsonapi

import (
	"net/url"
	"testing"
	"time"
)

// TestRelationshipLinksFromOwner: the links a relationship writes from its
// owner's address are the bytes of the joined addresses written as JSON
// strings, also when the address needs escaping (a quote, a control
// character, non-ASCII text, invalid UTF-8 at the end of the owner's part).
func TestRelationshipLinksFromOwner(t *testing.T) {
	for _, owner := range []string{
		"http://x/api/contacts/1",
		`http://x"y/api/contacts/1`,
		"http://x\n/api/contacts/é\u2028",
		"http://x/api/contacts/\xe2\x82",
	} {
		for _, flags := range [][2]bool{{true, true}, {true, false}, {false, true}, {false, false}} {
			rel := RelationshipObject{Name: "accounts", ToMany: true, Owner: owner, HasSelf: flags[0], HasRelated: flags[1]}
			want := []byte(`{"data":[]`)
			if flags[0] || flags[1] {
				l := &Links{}
				if flags[0] {
					l.Self = owner + "/relationships/accounts"
				}
				if flags[1] {
					l.Related = owner + "/accounts"
				}
				want = append(append(want, `,"links":`...), appendLinks(nil, l)...)
			}
			want = append(want, '}')
			if got := rel.appendJSON(nil, nil); string(got) != string(want) {
				t.Errorf("owner %q, self %v, related %v:\n got %s\nwant %s", owner, flags[0], flags[1], got, want)
			}
		}
	}
}

// TestDateTimeValue: a time.Time is written in DateTimeLayout, in UTC, whole
// seconds, as the string the engine used to format for it.
func TestDateTimeValue(t *testing.T) {
	at := time.Date(2026, 3, 4, 5, 6, 7, 890, time.FixedZone("X", 3600))
	want := AppendString(nil, at.UTC().Format(DateTimeLayout))
	if got := AppendValue(nil, at); string(got) != string(want) || string(got) != `"2026-03-04T04:06:07Z"` {
		t.Errorf("AppendValue(%v) = %s, want %s", at, got, want)
	}
}

// TestAddressFromCollection: a resource object given its collection's
// address (Collection) instead of its own (Self) writes the same bytes as
// one given Self = Collection/ID (ID path-escaped), and so do the links of
// its relationships left without an Owner.
func TestAddressFromCollection(t *testing.T) {
	for _, id := range []string{"DE-BY", "42", "a b/c?d#e", "é ", `x"y\z`, "\xe2\x82"} {
		for _, collection := range []string{"http://x/api/regions", "http://x\"q/api/regions"} {
			self := collection + "/" + url.PathEscape(id)
			rels := func(owner string) []RelationshipObject {
				return []RelationshipObject{
					{Name: "country", Data: []Identifier{{Type: "countries", ID: "DE"}}, Owner: owner, HasSelf: true, HasRelated: true},
					{Name: "cities", ToMany: true, Owner: owner, HasRelated: true},
				}
			}
			want := (&ResourceObject{Type: "regions", ID: id, Self: self, Relationships: rels(self)}).AppendJSON(nil)
			got := (&ResourceObject{Type: "regions", ID: id, Collection: collection, Relationships: rels("")}).AppendJSON(nil)
			if string(got) != string(want) {
				t.Errorf("id %q in %q:\n got %s\nwant %s", id, collection, got, want)
			}
		}
	}
}
