package webhook

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"
)

// This file keeps webhooks from reaching inside the network they run in
// (server-side request forgery): a target must be https (http only with
// AllowHTTP) and may not be a loopback, private, link-local, unique-local,
// shared, multicast or cloud metadata address, neither when it is created
// (its literal address, or what its name resolves to) nor when a delivery
// connects: the dialer checks the address it is about to connect to, after
// DNS resolution, so a name that resolves elsewhere later (DNS rebinding)
// is refused too. AllowPrivate lifts the private rule (tests, a receiver on
// the same network) but not the metadata rule (metadata.go); Allow lets
// named addresses and ranges through.

// blocked are the ranges no delivery may reach.
var blocked = func() []netip.Prefix {
	var out []netip.Prefix
	for _, s := range []string{
		"0.0.0.0/8",      // this network
		"10.0.0.0/8",     // private
		"100.64.0.0/10",  // shared address space (carrier-grade NAT)
		"127.0.0.0/8",    // loopback
		"169.254.0.0/16", // link-local
		"172.16.0.0/12",  // private
		"192.0.0.0/24",   // IETF protocol assignments
		"192.168.0.0/16", // private
		"198.18.0.0/15",  // benchmarking
		"224.0.0.0/4",    // multicast
		"240.0.0.0/4",    // reserved, broadcast
		"::/128",         // unspecified
		"::1/128",        // loopback
		"fc00::/7",       // unique local
		"fe80::/10",      // link-local
		"ff00::/8",       // multicast
		"64:ff9b::/96",   // NAT64 of IPv4 addresses, which may be private
	} {
		out = append(out, netip.MustParsePrefix(s))
	}
	return out
}()

// errBlocked: the address is in a refused range.
var errBlocked = errors.New("the address is loopback, private, link-local, unique-local or reserved")

// Guard holds the rules a target URL and each connection must pass.
type Guard struct {
	AllowHTTP    bool // http targets are accepted (https only otherwise)
	AllowPrivate bool // private and loopback addresses are accepted, metadata addresses still not
	// Allow are the addresses and ranges let through whatever the rules
	// above say (--webhook-allow-addresses, read by ParseAllowed). A range
	// lets its private addresses through; a metadata address passes only
	// when an entry is that address alone (docs/decisions.md §12).
	Allow []netip.Prefix
	// Resolve looks a host name up (net.DefaultResolver's LookupNetIP by
	// default); tests replace it.
	Resolve func(ctx context.Context, host string) ([]netip.Addr, error)
}

// checkAddr refuses a metadata address Allow does not name (errMetadata),
// and an address in a blocked range unless AllowPrivate or Allow lets it
// through (errBlocked). The address is checked without its zone (a zone
// would keep netip.Prefix.Contains from matching) and an IPv4-mapped IPv6
// address as the IPv4 one.
func (g *Guard) checkAddr(a netip.Addr) error {
	a = a.WithZone("").Unmap()
	if m, ok := metadata(a); ok && !g.names(m) {
		return errMetadata
	}
	if g.AllowPrivate {
		return nil
	}
	for _, p := range g.Allow {
		if p.Contains(a) {
			return nil
		}
	}
	for _, p := range blocked {
		if p.Contains(a) {
			return errBlocked
		}
	}
	return nil
}

// names tells whether an entry of Allow is the address a alone.
func (g *Guard) names(a netip.Addr) bool {
	for _, p := range g.Allow {
		if p.IsSingleIP() && p.Addr() == a {
			return true
		}
	}
	return false
}

// refusal is the detail of a create or change whose URL's address (or,
// when host is not "", an address host resolves to) checkAddr refused with
// err: it tells a metadata address from the others.
func refusal(host string, err error) string {
	what := "a loopback, private, link-local, unique-local or reserved address"
	if errors.Is(err, errMetadata) {
		what = "a cloud metadata address"
	}
	if host != "" {
		return fmt.Sprintf("The URL's host %s resolves to %s.", host, what)
	}
	return "The URL names " + what + "."
}

// endsInNumber tells whether host's last label is a number (decimal, or hex
// after 0x), as the WHATWG URL standard reads it: such a host is an IPv4
// address in one of its legacy forms (2852039166, 0xA9FEA9FE, 0251.0376.0.1,
// 169.254.43518, a trailing dot), which resolvers read differently. A target
// writes its address in the usual form or uses a name.
func endsInNumber(host string) bool {
	labels := strings.Split(strings.TrimSuffix(host, "."), ".")
	last := labels[len(labels)-1]
	if l := strings.ToLower(last); strings.HasPrefix(l, "0x") {
		return strings.Trim(l[2:], "0123456789abcdef") == ""
	}
	return last != "" && strings.Trim(last, "0123456789") == ""
}

// CheckURL tells what is wrong with a target URL, or "": it must be an
// absolute https (or allowed http) URL with a host, without user
// information, whose literal address or resolved addresses are allowed. A
// name that does not resolve now is accepted: the delivery checks again.
func (g *Guard) CheckURL(ctx context.Context, raw string) string {
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Host == "" || u.Opaque != "" {
		return "This value is not a valid URL."
	}
	switch u.Scheme {
	case "https":
	case "http":
		if !g.AllowHTTP {
			return "The URL must use https."
		}
	default:
		return "The URL must use https."
	}
	if u.User != nil {
		return "The URL may not carry a user name or password."
	}
	if u.Fragment != "" {
		return "The URL may not carry a fragment."
	}
	host := u.Hostname()
	if host == "" {
		return "This value is not a valid URL."
	}
	if a, err := netip.ParseAddr(host); err == nil {
		if err := g.checkAddr(a); err != nil {
			return refusal("", err)
		}
		return ""
	}
	if endsInNumber(host) {
		return "The URL's host must be a name or an IP address in its usual form (such as 203.0.113.7)."
	}
	if strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
		if !g.AllowPrivate {
			return refusal("", errBlocked)
		}
		return ""
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	addrs, err := g.resolve(ctx, host)
	if err != nil {
		return ""
	}
	for _, a := range addrs {
		if err := g.checkAddr(a); err != nil {
			return refusal(host, err)
		}
	}
	return ""
}

func (g *Guard) resolve(ctx context.Context, host string) ([]netip.Addr, error) {
	if g.Resolve != nil {
		return g.Resolve(ctx, host)
	}
	return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
}

// control is the dialer's check of each address it connects to, after DNS
// resolution (net.Dialer.Control).
func (g *Guard) control(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("webhook: dial %s: %w", address, err)
	}
	if err := g.checkAddr(ap.Addr()); err != nil {
		return fmt.Errorf("webhook: dial %s: %w", address, err)
	}
	return nil
}

// dial connects to address (host:port) as a delivery does: the host is
// resolved (Resolve), every address it resolves to is checked, and the
// dialer's Control checks the address once more as it connects.
func (g *Guard) dial(d *net.Dialer) func(ctx context.Context, network, address string) (net.Conn, error) {
	return func(ctx context.Context, network, address string) (net.Conn, error) {
		host, port, err := net.SplitHostPort(address)
		if err != nil {
			return nil, err
		}
		var addrs []netip.Addr
		if a, err := netip.ParseAddr(host); err == nil {
			addrs = []netip.Addr{a}
		} else if addrs, err = g.resolve(ctx, host); err != nil {
			return nil, err
		}
		var errs []error
		for _, a := range addrs {
			if err := g.checkAddr(a); err != nil {
				errs = append(errs, fmt.Errorf("webhook: %s is %s: %w", host, a, err))
				continue
			}
			conn, err := d.DialContext(ctx, network, net.JoinHostPort(a.Unmap().String(), port))
			if err == nil {
				return conn, nil
			}
			errs = append(errs, err)
		}
		if len(errs) == 0 {
			return nil, fmt.Errorf("webhook: %s resolves to no address", host)
		}
		return nil, errors.Join(errs...)
	}
}
