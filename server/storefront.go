package server

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/entityapi/entityapi/server/engine"
	"github.com/entityapi/entityapi/server/identity"
	"github.com/entityapi/entityapi/server/problem"
	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/authstore"
)

// This file holds what only the storefront application has (DESIGN.md §3, §4,
// §10): guests without a token on the whitelisted resources, and the
// X-Localization-ID and X-Currency request headers, echoed as
// Content-Language and X-Currency.

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

// storefrontLocales is what the storefront headers may name.
type storefrontLocales struct {
	localizations map[int64]localization
	ids           string // "1, 2, 3, 4", for messages
	fallback      localization
	currencies    []string // enabled, sorted
	currency      string   // the default
}

// loadStorefrontLocales reads the localizations and checks the configured
// currencies against the ISO 4217 table.
func loadStorefrontLocales(ctx context.Context, store *storage.Store, cfg *Config) (*storefrontLocales, error) {
	t, ok := store.Table("localizations")
	if !ok {
		return nil, fmt.Errorf("storefront: no localizations table")
	}
	rows, err := store.Find(ctx, storage.Query{Table: t, OrderBy: []storage.Order{{Column: "id"}}})
	if err != nil {
		return nil, fmt.Errorf("storefront: localizations: %w", err)
	}
	l := &storefrontLocales{localizations: map[int64]localization{}}
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

// localeHeaders checks X-Localization-ID and X-Currency on a storefront
// request, keeps the language for the engine, and names what applies in
// Content-Language and X-Currency (oro-behaviour §12.2).
func (a *application) localeHeaders(c *gin.Context) {
	r := requestOf(c)
	if r == nil {
		c.Next()
		return
	}
	l := a.locales
	loc := l.fallback
	if values := c.Request.Header.Values("X-Localization-ID"); len(values) > 0 {
		v := strings.TrimSpace(values[0])
		id, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			a.abort(c, problem.HeaderValue("X-Localization-ID", `Expected integer value. Given "`+v+`". Header: X-Localization-ID.`))
			return
		}
		found, ok := l.localizations[id]
		if !ok {
			a.abort(c, problem.HeaderValue("X-Localization-ID",
				`The value "`+v+`" is unknown localization ID. Available values: `+l.ids+`. Header: X-Localization-ID.`))
			return
		}
		loc = found
	}
	currency := l.currency
	if values := c.Request.Header.Values("X-Currency"); len(values) > 0 {
		v := strings.TrimSpace(values[0])
		if !slices.Contains(l.currencies, v) {
			a.abort(c, problem.HeaderValue("X-Currency",
				`The value "`+v+`" is unknown currency code. Available values: `+strings.Join(l.currencies, ", ")+`. Header: X-Currency.`))
			return
		}
		currency = v
	}
	r.Lang = loc.language
	c.Header("Content-Language", strings.ReplaceAll(loc.locale, "_", "-"))
	c.Header("X-Currency", currency)
	c.Next()
}

// guest lets a request without a token through as an anonymous storefront
// visitor when it reads a whitelisted resource; false when it may not.
func (a *application) guest(c *gin.Context, r *engine.Request) bool {
	if !a.guests[r.Route.Resource().Type] || (c.Request.Method != http.MethodGet && c.Request.Method != http.MethodHead) {
		return false
	}
	r.Principal = &identity.Principal{App: authstore.AppStorefront}
	return true
}
