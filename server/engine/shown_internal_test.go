package engine

import (
	"slices"
	"testing"

	"github.com/entityapi/entityapi/server/resource"
	"github.com/entityapi/entityapi/storage"
)

// TestColumnsShown holds the rule of the columns a read asks for: every
// column but the other languages' columns of localized attributes, keeping
// any column something else of the resource uses; and its look-up, which
// falls back on the default language and allocates nothing.
func TestColumnsShown(t *testing.T) {
	name := &resource.Attribute{Name: "name", Column: "name_en",
		Localized: map[string]string{"en": "name_en", "de": "name_de", "fr": "name_fr"}}
	// label is not localized, yet its column is French's name: it stays.
	label := &resource.Attribute{Name: "label", Column: "name_fr"}
	res := &resource.Resource{Type: "things", IDColumn: "id",
		Attributes:    []*resource.Attribute{name, label},
		Relationships: []*resource.Relationship{{Name: "country", Target: "countries", Column: "country_code"}}}
	tbl := &storage.Table{Name: "things", Key: "id",
		Order: []string{"id", "name_en", "name_de", "name_fr", "country_code", "created_at"}}
	for _, tc := range []struct {
		lang string
		want []string
	}{
		{"", []string{"id", "name_en", "name_fr", "country_code", "created_at"}},
		{"en", []string{"id", "name_en", "name_fr", "country_code", "created_at"}},
		{"de", []string{"id", "name_de", "name_fr", "country_code", "created_at"}},
		{"fr", []string{"id", "name_fr", "country_code", "created_at"}},
	} {
		if got := columnsShown(res, tbl, tc.lang); !slices.Equal(got, tc.want) {
			t.Errorf("language %q: %q, want %q", tc.lang, got, tc.want)
		}
	}
	plain := &resource.Resource{Type: "plain", IDColumn: "id", Attributes: []*resource.Attribute{{Name: "code", Column: "code"}}}
	if got := columnsShown(plain, &storage.Table{Order: []string{"id", "code", "created_at"}}, "de"); got != nil {
		t.Errorf("a resource without localized attributes: %q, want nil (every column)", got)
	}

	byDefault, german := []string{"id", "name_en"}, []string{"id", "name_de"}
	e := &Engine{shownCols: shownColumns{"things": {"": byDefault, "de": german}}}
	if got := e.shown(res, "de"); !slices.Equal(got, german) {
		t.Errorf("shown in de: %q", got)
	}
	if got := e.shown(res, "xx"); !slices.Equal(got, byDefault) {
		t.Errorf("shown in a language without columns: %q, want the default %q", got, byDefault)
	}
	if n := testing.AllocsPerRun(100, func() { e.shown(res, "de") }); n != 0 {
		t.Errorf("shown allocates %.0f times", n)
	}
}
