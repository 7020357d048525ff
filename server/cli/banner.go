package cli

import (
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"
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
// APIs, their documents and docs pages are, and in demo mode how to get a
// token: a command to paste into a shell as it is (TestServeBanner runs it).
func writeBanner(w io.Writer, base string, cfg *config) {
	var b strings.Builder
	app := func(name, prefix, note string) {
		fmt.Fprintf(&b, "  %-16s %s%s/api/countries%s\n", name+":", base, prefix, note)
		fmt.Fprintf(&b, "  %-16s %s%s/api/openapi.yaml\n", "OpenAPI:", base, prefix)
		fmt.Fprintf(&b, "  %-16s %s%s/api/doc\n", "docs page:", base, prefix)
	}
	b.WriteString("\n")
	app("back-office API", cfg.backofficeBase, "")
	app("storefront API", cfg.storefrontBase, " (guests welcome)")
	if cfg.demo {
		fmt.Fprintf(&b, `
  demo clients (secret = id + "-secret"): demo-backoffice (admin), demo-manager, demo-viewer,
  demo-other (organization Other), demo-storefront
  get a token:
    curl -s -H 'Content-Type: application/json' \
      -d '{"grant_type":"client_credentials","client_id":"demo-backoffice","client_secret":"demo-backoffice-secret"}' \
      %s%s/oauth2-token
`, base, cfg.backofficeBase)
	}
	b.WriteString("\n")
	_, _ = io.WriteString(w, b.String())
}
