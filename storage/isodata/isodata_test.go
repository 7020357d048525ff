package isodata

import (
	"strings"
	"testing"
)

// The expected names below are what iso-codes 4.15 ships. Note that ISO
// 3166-2 lists subdivisions under their local name, so the "English" name of
// DE-BY is "Bayern", not "Bavaria".

func TestLanguages(t *testing.T) {
	got := strings.Join(Languages(), ",")
	if got != "en,de,fr,es" {
		t.Fatalf("Languages() = %s, want en,de,fr,es", got)
	}
}

func TestCountries(t *testing.T) {
	countries, err := Countries()
	if err != nil {
		t.Fatal(err)
	}
	if len(countries) < 249 {
		t.Errorf("got %d countries, want at least 249", len(countries))
	}
	byCode := make(map[string]Country)
	for _, c := range countries {
		if _, dup := byCode[c.Code]; dup {
			t.Errorf("duplicate country code %q", c.Code)
		}
		byCode[c.Code] = c
		if len(c.Code) != 2 || len(c.ISO3) != 3 {
			t.Errorf("country %q: bad code lengths (iso3 %q)", c.Code, c.ISO3)
		}
		checkNames(t, c.Code, c.Names)
	}

	tests := []struct {
		code, iso3, en, de string
	}{
		{"US", "USA", "United States", "Vereinigte Staaten"},
		{"DE", "DEU", "Germany", "Deutschland"},
		{"TW", "TWN", "Taiwan", "Taiwan"}, // common_name preferred over "Taiwan, Province of China"
	}
	for _, tt := range tests {
		t.Run(tt.code, func(t *testing.T) {
			c, ok := byCode[tt.code]
			if !ok {
				t.Fatalf("country %s missing", tt.code)
			}
			if c.ISO3 != tt.iso3 || c.Names["en"] != tt.en || c.Names["de"] != tt.de {
				t.Errorf("got %s/%q/%q, want %s/%q/%q", c.ISO3, c.Names["en"], c.Names["de"], tt.iso3, tt.en, tt.de)
			}
		})
	}
}

func TestRegions(t *testing.T) {
	countries, err := Countries()
	if err != nil {
		t.Fatal(err)
	}
	known := make(map[string]bool)
	for _, c := range countries {
		known[c.Code] = true
	}
	regions, err := Regions()
	if err != nil {
		t.Fatal(err)
	}
	if len(regions) < 3000 {
		t.Errorf("got %d regions, want at least 3000", len(regions))
	}
	byCode := make(map[string]Region)
	for _, r := range regions {
		if _, dup := byCode[r.Code]; dup {
			t.Errorf("duplicate region code %q", r.Code)
		}
		byCode[r.Code] = r
		if !known[r.Country] {
			t.Errorf("region %q: unknown country %q", r.Code, r.Country)
		}
		checkNames(t, r.Code, r.Names)
	}

	tests := []struct {
		code, country, sub, en, de string
	}{
		{"US-NY", "US", "NY", "New York", "New York"},
		{"DE-BY", "DE", "BY", "Bayern", "Bayern"},
	}
	for _, tt := range tests {
		t.Run(tt.code, func(t *testing.T) {
			r, ok := byCode[tt.code]
			if !ok {
				t.Fatalf("region %s missing", tt.code)
			}
			if r.Country != tt.country || r.SubCode != tt.sub || r.Names["en"] != tt.en || r.Names["de"] != tt.de {
				t.Errorf("got %s/%s/%q/%q, want %s/%s/%q/%q",
					r.Country, r.SubCode, r.Names["en"], r.Names["de"], tt.country, tt.sub, tt.en, tt.de)
			}
		})
	}
}

// TestParseRowsErrors checks that malformed files produce errors, not panics.
func TestParseRowsErrors(t *testing.T) {
	header := []string{"code", "name"}
	tests := []struct {
		name, data string
	}{
		{"empty", ""},
		{"wrong header", "code\tlabel\nAA\tx\n"},
		{"too few fields", "code\tname\nAA\n"},
		{"too many fields", "code\tname\nAA\tx\ty\n"},
		{"empty field", "code\tname\nAA\t\n"},
		{"unsorted", "code\tname\nBB\tx\nAA\ty\n"},
		{"duplicate", "code\tname\nAA\tx\nAA\ty\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := parseRows("test.tsv", []byte(tt.data), header); err == nil {
				t.Error("expected an error")
			}
		})
	}
	if rows, err := parseRows("test.tsv", []byte("code\tname\nAA\tx\n"), header); err != nil || len(rows) != 1 {
		t.Errorf("valid input: rows %v, err %v", rows, err)
	}
}

func checkNames(t *testing.T, code string, n Names) {
	t.Helper()
	for _, lang := range Languages() {
		if strings.TrimSpace(n[lang]) == "" {
			t.Errorf("%s: empty %s name", code, lang)
		}
	}
}
