// Command isocodes converts Debian's iso-codes data (ISO 3166-1 countries and
// ISO 3166-2 subdivisions, plus their gettext translations) into the small TSV
// files under storage/isodata that the service embeds and loads at database
// migration time.
//
// It exists so that a fresh machine needs nothing installed: the generated
// files are committed, and this program is only rerun when iso-codes is
// updated. Run it from the repository root on a machine with the iso-codes
// package installed:
//
//	go run ./scripts/isocodes
//	go run ./scripts/isocodes -src /usr/share/iso-codes/json -locales /usr/share/locale -out storage/isodata
//
// Output is deterministic (rows sorted by code) so regenerating with the same
// iso-codes version produces no diff. The gettext .mo parser is written out
// below (see parseMO); golang.org/x/text gives the currency symbols.
package main

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/text/currency"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// languages are the translation columns, in output order after "en".
var languages = []string{"de", "fr", "es"}

type country struct {
	Alpha2     string `json:"alpha_2"`
	Alpha3     string `json:"alpha_3"`
	Name       string `json:"name"`
	CommonName string `json:"common_name"`
}

type subdivision struct {
	Code string `json:"code"`
	Name string `json:"name"`
}

func main() {
	src := flag.String("src", "/usr/share/iso-codes/json", "directory holding iso_3166-1.json and iso_3166-2.json")
	locales := flag.String("locales", "/usr/share/locale", "gettext locale directory holding <lang>/LC_MESSAGES/iso_3166-*.mo")
	out := flag.String("out", "storage/isodata", "output directory")
	version := flag.String("version", packageVersion(), "iso-codes version recorded in the licence note")
	flag.Parse()
	log.SetFlags(0)

	var c1 struct {
		Countries []country `json:"3166-1"`
	}
	var c2 struct {
		Subdivisions []subdivision `json:"3166-2"`
	}
	must(readJSON(filepath.Join(*src, "iso_3166-1.json"), &c1))
	must(readJSON(filepath.Join(*src, "iso_3166-2.json"), &c2))
	cat1 := loadCatalogs(*locales, "iso_3166-1")
	cat2 := loadCatalogs(*locales, "iso_3166-2")

	known := make(map[string]bool)
	countryRows := [][]string{{"code", "iso3", "name_en", "name_de", "name_fr", "name_es"}}
	sort.Slice(c1.Countries, func(i, j int) bool { return c1.Countries[i].Alpha2 < c1.Countries[j].Alpha2 })
	for _, c := range c1.Countries {
		en := c.Name
		if c.CommonName != "" {
			en = c.CommonName
		}
		row := []string{c.Alpha2, c.Alpha3, en}
		for _, lang := range languages {
			row = append(row, translate(cat1[lang], en, c.Name))
		}
		known[c.Alpha2] = true
		countryRows = append(countryRows, row)
	}

	regionRows := [][]string{{"code", "country", "subcode", "name_en", "name_de", "name_fr", "name_es"}}
	sort.Slice(c2.Subdivisions, func(i, j int) bool { return c2.Subdivisions[i].Code < c2.Subdivisions[j].Code })
	for _, s := range c2.Subdivisions {
		cc, sub, ok := strings.Cut(s.Code, "-")
		if !ok || !known[cc] {
			log.Printf("dropping subdivision %q: country %q not in ISO 3166-1", s.Code, cc)
			continue
		}
		row := []string{s.Code, cc, sub, s.Name}
		for _, lang := range languages {
			row = append(row, translate(cat2[lang], s.Name))
		}
		regionRows = append(regionRows, row)
	}

	var c4217 struct {
		Currencies []struct {
			Alpha3 string `json:"alpha_3"`
			Name   string `json:"name"`
		} `json:"4217"`
	}
	must(readJSON(filepath.Join(*src, "iso_4217.json"), &c4217))
	sort.Slice(c4217.Currencies, func(i, j int) bool { return c4217.Currencies[i].Alpha3 < c4217.Currencies[j].Alpha3 })
	currencyRows := [][]string{{"code", "name", "symbol"}}
	english := message.NewPrinter(language.English)
	for _, c := range c4217.Currencies {
		// iso-codes has no symbols: CLDR's English symbol (x/text), else the code.
		symbol := c.Alpha3
		if u, err := currency.ParseISO(c.Alpha3); err == nil {
			symbol = english.Sprint(currency.Symbol(u))
		}
		currencyRows = append(currencyRows, []string{c.Alpha3, c.Name, symbol})
	}

	must(writeTSV(filepath.Join(*out, "currencies.tsv"), currencyRows))
	must(writeTSV(filepath.Join(*out, "countries.tsv"), countryRows))
	must(writeTSV(filepath.Join(*out, "regions.tsv"), regionRows))
	must(os.WriteFile(filepath.Join(*out, "LICENSE-iso-codes.txt"), []byte(licenceNote(*version)), 0o644))
	log.Printf("wrote %d countries, %d regions and %d currencies to %s (iso-codes %s)",
		len(countryRows)-1, len(regionRows)-1, len(currencyRows)-1, *out, *version)
}

// translate returns the catalog translation of the first key that has one,
// falling back to the first key itself (the English text).
func translate(cat map[string]string, keys ...string) string {
	for _, k := range keys {
		if t := cat[k]; t != "" {
			return t
		}
	}
	return keys[0]
}

// loadCatalogs reads <dir>/<lang>/LC_MESSAGES/<domain>.mo for every language.
// A missing catalog is fatal: silently emitting English would look like a
// successful translation.
func loadCatalogs(dir, domain string) map[string]map[string]string {
	cats := make(map[string]map[string]string)
	for _, lang := range languages {
		path := filepath.Join(dir, lang, "LC_MESSAGES", domain+".mo")
		data, err := os.ReadFile(path)
		must(err)
		cat, err := parseMO(data)
		if err != nil {
			log.Fatalf("%s: %v", path, err)
		}
		cats[lang] = cat
	}
	return cats
}

func readJSON(path string, v any) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// writeTSV writes rows as tab-separated UTF-8 lines. Tabs, carriage returns
// and newlines inside fields become spaces so every row stays one line.
func writeTSV(path string, rows [][]string) error {
	clean := strings.NewReplacer("\t", " ", "\r", " ", "\n", " ")
	var b strings.Builder
	for _, row := range rows {
		for i, f := range row {
			if i > 0 {
				b.WriteByte('\t')
			}
			b.WriteString(strings.TrimSpace(clean.Replace(f)))
		}
		b.WriteByte('\n')
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// packageVersion asks dpkg which iso-codes version is installed, so the
// licence note records exactly what the files were generated from.
func packageVersion() string {
	out, err := exec.Command("dpkg-query", "-W", "-f=${Version}", "iso-codes").Output()
	if v := strings.TrimSpace(string(out)); err == nil && v != "" {
		return v
	}
	return "unknown"
}

func licenceNote(version string) string {
	return `countries.tsv, regions.tsv and currencies.tsv are derived from the iso-codes package
(Debian package version ` + version + `), upstream:
https://salsa.debian.org/iso-codes-team/iso-codes

Sources: iso_3166-1.json, iso_3166-2.json, iso_4217.json and the de/fr/es
gettext translations iso_3166-1.mo and iso_3166-2.mo. The currency symbols
come from the Unicode CLDR data of golang.org/x/text (Unicode licence).

iso-codes is licensed under the GNU Lesser General Public License,
version 2.1 or (at your option) any later version (LGPL-2.1-or-later).
See /usr/share/doc/iso-codes/copyright on a Debian system or
https://www.gnu.org/licenses/old-licenses/lgpl-2.1.html.

These files are generated by scripts/isocodes (go run ./scripts/isocodes)
and must not be edited by hand.
`
}

func must(err error) {
	if err != nil {
		log.Fatal(err)
	}
}

// parseMO decodes a GNU gettext binary catalog into msgid -> msgstr. The
// format is a header of 32-bit words in either byte order (detected from the
// magic 0x950412de): magic, revision, string count N, offset of the original
// strings table, offset of the translations table. Each table holds N
// (length, offset) pairs pointing at the strings. Entries with a message
// context ("ctxt\x04id") are skipped, as is the header entry (empty msgid);
// for plural entries only the singular forms are kept.
func parseMO(data []byte) (map[string]string, error) {
	if len(data) < 20 {
		return nil, errors.New("mo: file too short")
	}
	var bo binary.ByteOrder
	switch {
	case binary.LittleEndian.Uint32(data) == 0x950412de:
		bo = binary.LittleEndian
	case binary.BigEndian.Uint32(data) == 0x950412de:
		bo = binary.BigEndian
	default:
		return nil, errors.New("mo: bad magic number")
	}
	if major := bo.Uint32(data[4:]) >> 16; major > 1 {
		return nil, fmt.Errorf("mo: unsupported revision %d", major)
	}
	n, origTab, transTab := bo.Uint32(data[8:]), bo.Uint32(data[12:]), bo.Uint32(data[16:])
	str := func(table, i uint32) (string, error) {
		pos := uint64(table) + 8*uint64(i)
		if pos+8 > uint64(len(data)) {
			return "", fmt.Errorf("mo: table entry %d out of range", i)
		}
		length, off := uint64(bo.Uint32(data[pos:])), uint64(bo.Uint32(data[pos+4:]))
		if off+length > uint64(len(data)) {
			return "", fmt.Errorf("mo: string %d out of range", i)
		}
		s, _, _ := strings.Cut(string(data[off:off+length]), "\x00")
		return s, nil
	}
	cat := make(map[string]string, n)
	for i := uint32(0); i < n; i++ {
		id, err := str(origTab, i)
		if err != nil {
			return nil, err
		}
		msg, err := str(transTab, i)
		if err != nil {
			return nil, err
		}
		if id == "" || msg == "" || strings.Contains(id, "\x04") {
			continue
		}
		cat[id] = msg
	}
	return cat, nil
}
