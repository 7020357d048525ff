package storefront

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/entityapi/entityapi/server/identity"
	"github.com/entityapi/entityapi/server/problem"
	"github.com/entityapi/entityapi/server/resource"
	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/authstore"
)

// Package storefront holds what only the storefront application has
// (docs/decisions.md §3, §4, §10): guests without a token on the whitelisted
// resources, and what the X-Localization-ID and X-Currency request headers
// may name, echoed as Content-Language and X-Currency. The HTTP edge
// (package server) reads the headers and asks; this package answers from the
// storefront's settings and the localizations table.

// Defaults of the storefront settings.
var (
	DefaultGuestResources = []string{"countries", "regions", "localizations", "currencies"}
	DefaultCurrencies     = []string{"USD", "EUR", "GBP"}
)

// localization is one row of the localizations table.
type localization struct {
	id               int64
	language, locale string // "de" and "de_DE"
}

// Settings are the storefront's: who may read without a token and which
// currencies X-Currency may name.
type Settings struct {
	// GuestResources are the types readable without a token (nil:
	// DefaultGuestResources).
	GuestResources []string
	// Currencies are the enabled X-Currency codes (nil: DefaultCurrencies);
	// DefaultCurrency applies without the header ("": the first).
	Currencies      []string
	DefaultCurrency string
}

// Storefront is the storefront's guests and locales, loaded once at start.
type Storefront struct {
	guests  map[string]bool
	locales *locales
}

// Load reads the localizations, checks the configured currencies against
// the ISO 4217 table and the guest resources against the storefront's
// resources (reg): a mistake in the settings fails at start.
func Load(ctx context.Context, store *storage.Store, reg *resource.Registry, s Settings) (*Storefront, error) {
	l, err := loadLocales(ctx, store, s)
	if err != nil {
		return nil, err
	}
	guests := s.GuestResources
	if guests == nil {
		guests = DefaultGuestResources
	}
	sf := &Storefront{guests: map[string]bool{}, locales: l}
	for _, typ := range guests {
		if _, ok := reg.Get(typ); !ok {
			return nil, fmt.Errorf("storefront: guest resource %q is not a storefront resource", typ)
		}
		sf.guests[typ] = true
	}
	return sf, nil
}

// Guest is the caller of a request without a token, when a guest may make
// it (a read of whitelisted types: a search's are every type it spans);
// nil when it may not.
func (s *Storefront) Guest(method string, types ...string) *identity.Principal {
	if len(types) == 0 || (method != http.MethodGet && method != http.MethodHead) {
		return nil
	}
	for _, typ := range types {
		if !s.guests[typ] {
			return nil
		}
	}
	return &identity.Principal{App: authstore.AppStorefront}
}

// Guests are the types readable without a token, sorted.
func (s *Storefront) Guests() []string { return slices.Sorted(maps.Keys(s.guests)) }

// Currencies are the enabled currency codes, sorted: the only records of
// the currencies resource the storefront shows.
func (s *Storefront) Currencies() []string { return slices.Clone(s.locales.currencies) }

// Locale is what a storefront request's headers chose.
type Locale struct {
	Language        string // the language of localized values, such as "de"
	ContentLanguage string // the Content-Language to answer with, such as "de-DE"
	Currency        string // the X-Currency to answer with
}

// Locale reads the values of a request's X-Localization-ID and X-Currency
// headers (oro-behaviour §12.2): the first value of each counts, an absent
// header is the default; an unknown or malformed value is a 400 naming the
// header and the values it may take.
func (s *Storefront) Locale(localizationID, currency []string) (Locale, *problem.Problem) {
	l := s.locales
	loc := l.fallback
	if len(localizationID) > 0 {
		v := strings.TrimSpace(localizationID[0])
		id, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return Locale{}, problem.HeaderValue("X-Localization-ID", `Expected integer value. Given "`+v+`". Header: X-Localization-ID.`)
		}
		found, ok := l.localizations[id]
		if !ok {
			return Locale{}, problem.HeaderValue("X-Localization-ID",
				`The value "`+v+`" is unknown localization ID. Available values: `+l.ids+`. Header: X-Localization-ID.`)
		}
		loc = found
	}
	code := l.currency
	if len(currency) > 0 {
		v := strings.TrimSpace(currency[0])
		if !slices.Contains(l.currencies, v) {
			return Locale{}, problem.HeaderValue("X-Currency",
				`The value "`+v+`" is unknown currency code. Available values: `+strings.Join(l.currencies, ", ")+`. Header: X-Currency.`)
		}
		code = v
	}
	return Locale{Language: loc.language, ContentLanguage: strings.ReplaceAll(loc.locale, "_", "-"), Currency: code}, nil
}

// locales is what the storefront headers may name.
type locales struct {
	localizations map[int64]localization
	ids           string // "1, 2, 3, 4", for messages
	fallback      localization
	currencies    []string // enabled, sorted
	currency      string   // the default
}

// loadLocales reads the localizations and checks the configured currencies
// against the ISO 4217 table.
func loadLocales(ctx context.Context, store *storage.Store, cfg Settings) (*locales, error) {
	t, ok := store.Table("localizations")
	if !ok {
		return nil, fmt.Errorf("storefront: no localizations table")
	}
	rows, err := store.Find(ctx, storage.Query{Table: t, OrderBy: []storage.Order{{Column: "id"}}})
	if err != nil {
		return nil, fmt.Errorf("storefront: localizations: %w", err)
	}
	l := &locales{localizations: map[int64]localization{}}
	var ids []string
	for _, row := range rows {
		id, _ := row["id"].(int64)
		lang, _ := row["language_code"].(string)
		locale, _ := row["formatting_code"].(string)
		l.localizations[id] = localization{id: id, language: lang, locale: locale}
		ids = append(ids, strconv.FormatInt(id, 10))
		if len(ids) == 1 {
			l.fallback = l.localizations[id]
		}
	}
	if len(ids) == 0 {
		return nil, fmt.Errorf("storefront: the localizations table is empty")
	}
	l.ids = strings.Join(ids, ", ")

	l.currencies = slices.Clone(cfg.Currencies)
	if len(l.currencies) == 0 {
		l.currencies = slices.Clone(DefaultCurrencies)
	}
	l.currency = cfg.DefaultCurrency
	if l.currency == "" {
		l.currency = l.currencies[0]
	}
	if !slices.Contains(l.currencies, l.currency) {
		return nil, fmt.Errorf("storefront: the default currency %s is not among the enabled ones (%s)", l.currency, strings.Join(l.currencies, ", "))
	}
	slices.Sort(l.currencies)
	ct, ok := store.Table("currencies")
	if !ok {
		return nil, fmt.Errorf("storefront: no currencies table")
	}
	keys := make([]any, len(l.currencies))
	for i, c := range l.currencies {
		keys[i] = c
	}
	found, err := store.Find(ctx, storage.Query{Table: ct, Where: []storage.Cond{{Column: "code", Op: storage.Eq, Values: keys}}})
	if err != nil {
		return nil, fmt.Errorf("storefront: currencies: %w", err)
	}
	if len(found) != len(l.currencies) {
		return nil, fmt.Errorf("storefront: the currencies %s are not all ISO 4217 codes", strings.Join(l.currencies, ", "))
	}
	return l, nil
}
