package webhook

import (
	"errors"
	"fmt"
	"net/netip"
	"strings"
)

// This file keeps webhooks away from the cloud's metadata services even
// when AllowPrivate lets them reach the private network
// (docs/decisions.md §12): whoever may create a webhook could otherwise
// have the server POST to the address that hands out the instance's
// credentials. Only an operator lets one through, by naming the address
// itself in Guard.Allow (--webhook-allow-addresses).

// metadataAddrs are the addresses where a cloud platform serves the
// instance itself: its metadata and credentials, or its instance-local
// infrastructure. No webhook receiver lives at any of them; each is refused
// whatever AllowPrivate says. The list and why each is on it:
// docs/decisions.md §12 and docs/webhooks.md.
var metadataAddrs = func() map[netip.Addr]string {
	out := map[netip.Addr]string{}
	for s, what := range map[string]string{
		"169.254.169.254": "instance metadata (AWS, Google Cloud, Azure, OpenStack, Oracle Cloud, DigitalOcean, Hetzner, Linode)",
		"169.254.170.2":   "AWS ECS task metadata and credentials",
		"169.254.170.23":  "AWS EKS Pod Identity credentials",
		"169.254.169.253": "AWS DNS resolver",
		"169.254.169.123": "AWS time sync",
		"169.254.0.23":    "Tencent Cloud metadata",
		"100.100.100.200": "Alibaba Cloud metadata",
		"168.63.129.16":   "Azure WireServer (platform agent, extension settings)",
		"fd00:ec2::254":   "AWS instance metadata over IPv6",
		"fd00:ec2::23":    "AWS EKS Pod Identity credentials over IPv6",
		"fd00:ec2::253":   "AWS DNS resolver over IPv6",
		"fd00:ec2::123":   "AWS time sync over IPv6",
		"fd20:ce::254":    "Google Cloud metadata over IPv6",
		"fe80::a9fe:a9fe": "OpenStack metadata over IPv6",
	} {
		out[netip.MustParseAddr(s)] = what
	}
	return out
}()

// embedders are the IPv6 ranges whose addresses carry an IPv4 address that
// a connection to them may reach (through the kernel, a NAT64 gateway or a
// 6to4 relay): a metadata address written in one of them is still one.
// The IPv4-mapped form (::ffff:a.b.c.d) is unmapped before any check.
var embedders = []struct {
	prefix netip.Prefix
	at     int // the byte of the IPv6 address where the IPv4 address starts
}{
	{netip.MustParsePrefix("::/96"), 12},           // IPv4-compatible (deprecated)
	{netip.MustParsePrefix("::ffff:0:0:0/96"), 12}, // IPv4-translated (SIIT)
	{netip.MustParsePrefix("64:ff9b::/96"), 12},    // NAT64, well-known prefix
	{netip.MustParsePrefix("64:ff9b:1::/48"), 12},  // NAT64, local use (its /96 form)
	{netip.MustParsePrefix("2002::/16"), 2},        // 6to4
}

// metadata tells the metadata address a is or carries, if any. a has no
// zone and is unmapped.
func metadata(a netip.Addr) (netip.Addr, bool) {
	if _, ok := metadataAddrs[a]; ok {
		return a, true
	}
	if !a.Is6() {
		return netip.Addr{}, false
	}
	b := a.As16()
	for _, e := range embedders {
		if !e.prefix.Contains(a) {
			continue
		}
		v4 := netip.AddrFrom4([4]byte(b[e.at : e.at+4]))
		if _, ok := metadataAddrs[v4]; ok {
			return v4, true
		}
	}
	return netip.Addr{}, false
}

// errMetadata: the address is a metadata address no setting lets through.
var errMetadata = errors.New("the address is a cloud metadata address, refused unless --webhook-allow-addresses names it")

// ParseAllowed reads the entries of --webhook-allow-addresses: each an IP
// address or a CIDR range (IPv4-mapped forms are read as their IPv4
// address). A range lets its private addresses through; a metadata address
// only passes when an entry is that address alone (Guard.Allow).
func ParseAllowed(entries []string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, e := range entries {
		e = strings.TrimSpace(e)
		if e == "" {
			continue
		}
		var p netip.Prefix
		if strings.Contains(e, "/") {
			pp, err := netip.ParsePrefix(e)
			if err != nil {
				return nil, fmt.Errorf("%q is not an IP address or a CIDR range", e)
			}
			p = pp
		} else {
			a, err := netip.ParseAddr(e)
			if err != nil || a.Zone() != "" {
				return nil, fmt.Errorf("%q is not an IP address or a CIDR range", e)
			}
			p = netip.PrefixFrom(a, a.BitLen())
		}
		if a := p.Addr(); a.Is4In6() && p.Bits() >= 96 {
			p = netip.PrefixFrom(a.Unmap(), p.Bits()-96)
		}
		out = append(out, p.Masked())
	}
	return out, nil
}
