package cli

import (
	"errors"
	"fmt"
	"io"
	"net"
	"regexp"
	"strings"
	"syscall"

	"github.com/entityapi/entityapi/storage/authstore"
)

// listen takes the address of a setting (flag names it in the error) before
// anything is announced, so that a busy port is one clear line and no banner.
func listen(addr, flag string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if errors.Is(err, syscall.EADDRINUSE) {
		return nil, fmt.Errorf("cannot listen on %s: the address is already in use (another entityapi?); %s or ENTITYAPI_%s chooses another",
			addr, flag, strings.ToUpper(strings.ReplaceAll(strings.TrimPrefix(flag, "--"), "-", "_")))
	}
	if err != nil {
		return nil, fmt.Errorf("cannot listen on %s (%s): %w", addr, flag, err)
	}
	return ln, nil
}

// bannerBase is the address the banner names: --public-url, else the one
// listened on (a wildcard host is reached on the loopback address).
func bannerBase(publicURL string, addr net.Addr) string {
	if publicURL != "" {
		return strings.TrimSuffix(publicURL, "/")
	}
	host, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		return "http://" + addr.String()
	}
	if ip := net.ParseIP(host); ip == nil || ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port)
}

// writeBanner tells a person who just started `entityapi serve` where the
// APIs, their documents and docs pages are, and what to paste into a shell
// to try them: `export BASE=...` as the README's examples use it, and in
// demo mode the demo clients and `export TOKEN=...` (TestServeBanner runs
// those lines in bash, TestBannerContent reads the rest). serve writes it
// after its start-up log lines, so that it is the last thing on the screen
// until the first request.
func writeBanner(w io.Writer, base string, cfg *config) {
	var b strings.Builder
	app := func(name, prefix, note string) {
		fmt.Fprintf(&b, "  %-17s %s%s/api/countries%s\n", name+":", base, prefix, note)
		fmt.Fprintf(&b, "    %-15s %s%s/api/openapi.yaml\n", "OpenAPI:", base, prefix)
		fmt.Fprintf(&b, "    %-15s %s%s/api/doc\n", "docs page:", base, prefix)
	}
	b.WriteString("\n")
	app("back-office API", cfg.backofficeBase, "")
	app("storefront API", cfg.storefrontBase, " (guests welcome)")
	fmt.Fprintf(&b, "  %-17s %s/\n", "both docs pages:", base)
	apiBase := base + cfg.backofficeBase + "/api"
	if !cfg.demo {
		fmt.Fprintf(&b, "\n  for the README's examples, paste into a shell:\n    export BASE=%s\n", shellWord(apiBase))
		b.WriteString("  and a token of a client that `entityapi client create` made (docs/tokens.md) in TOKEN\n\n")
		_, _ = io.WriteString(w, b.String())
		return
	}
	b.WriteString("\n  demo clients (the secret of each is its id followed by \"-secret\"):\n")
	var admin authstore.DemoClientInfo
	for _, c := range authstore.DemoClients() {
		fmt.Fprintf(&b, "    %-18s %s\n", c.ID, strings.TrimPrefix(c.Name, "Demo "))
		if c.ID == "demo-backoffice" {
			admin = c
		}
	}
	grant := fmt.Sprintf(`{"grant_type":"client_credentials","client_id":"%s","client_secret":"%s"}`, admin.ID, admin.Secret)
	fmt.Fprintf(&b, `
  for the README's examples, paste into a shell (a token of %s):
    export BASE=%s
    export TOKEN=$(curl -sS -H 'Content-Type: application/json' \
      -d '%s' \
      "${BASE%%/api}/oauth2-token" | sed -n 's/.*"access_token":"\([^"]*\)".*/\1/p')
    curl -g -H "Authorization: Bearer $TOKEN" "$BASE/regions?filter[country]=DE&page[size]=3"
  (curl -g sends [ and ] as they are, rather than reading them as a pattern of URLs)

`, admin.ID, shellWord(apiBase), grant)
	_, _ = io.WriteString(w, b.String())
}

// plainWord matches a word a shell reads as it is.
var plainWord = regexp.MustCompile(`^[A-Za-z0-9._~:/@%+,=-]+$`)

// shellWord quotes s for a POSIX shell when it needs quoting.
func shellWord(s string) string {
	if plainWord.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
