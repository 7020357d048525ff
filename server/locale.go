package server

import (
	"github.com/gin-gonic/gin"
)

// localeHeaders checks X-Localization-ID and X-Currency on a storefront
// request (server/storefront), keeps the language for the engine, and names
// what applies in Content-Language and X-Currency (oro-behaviour §12.2).
func (a *application) localeHeaders(c *gin.Context) {
	r := requestOf(c)
	if r == nil {
		c.Next()
		return
	}
	loc, p := a.storefront.Locale(c.Request.Header.Values("X-Localization-ID"), c.Request.Header.Values("X-Currency"))
	if p != nil {
		a.abort(c, p)
		return
	}
	r.Lang = loc.Language
	r.Currency = loc.Currency
	c.Header("Content-Language", loc.ContentLanguage)
	c.Header("X-Currency", loc.Currency)
	c.Next()
}
