package webhook

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"reflect"
	"strings"
	"syscall"
	"testing"
)

// everyMetadataAddr is every address of metadataAddrs, written out so that
// a change of the list is a change of this test too.
var everyMetadataAddr = []string{
	"169.254.169.254", "169.254.170.2", "169.254.170.23", "169.254.169.253", "169.254.169.123",
	"169.254.0.23", "100.100.100.200", "168.63.129.16",
	"fd00:ec2::254", "fd00:ec2::23", "fd00:ec2::253", "fd00:ec2::123", "fd20:ce::254", "fe80::a9fe:a9fe",
}

func TestMetadataListIsTheTests(t *testing.T) {
	if len(everyMetadataAddr) != len(metadataAddrs) {
		t.Fatalf("the test lists %d metadata addresses, metadataAddrs %d", len(everyMetadataAddr), len(metadataAddrs))
	}
	for _, s := range everyMetadataAddr {
		if _, ok := metadataAddrs[netip.MustParseAddr(s)]; !ok {
			t.Errorf("%s is not in metadataAddrs", s)
		}
	}
}

// TestGuardMetadata: every metadata address, and every way of writing one,
// is refused with AllowPrivate; only an Allow entry that is the address
// alone lets it through, and a range in Allow lets private addresses
// through without opening the metadata addresses inside it.
func TestGuardMetadata(t *testing.T) {
	allowPrivate := Guard{AllowPrivate: true}
	for _, s := range everyMetadataAddr {
		a := netip.MustParseAddr(s)
		if err := allowPrivate.checkAddr(a); !errors.Is(err, errMetadata) {
			t.Errorf("%s with AllowPrivate: %v, want errMetadata", s, err)
		}
		named := Guard{AllowPrivate: true, Allow: []netip.Prefix{netip.PrefixFrom(a, a.BitLen())}}
		if err := named.checkAddr(a); err != nil {
			t.Errorf("%s named in Allow: %v", s, err)
		}
		if err := (&Guard{}).checkAddr(a); !errors.Is(err, errMetadata) {
			t.Errorf("%s without AllowPrivate: %v, want errMetadata", s, err)
		}
	}
	for _, c := range []struct {
		name, addr string
		g          Guard
		want       error
	}{
		{"IPv4-mapped", "::ffff:169.254.169.254", allowPrivate, errMetadata},
		{"IPv4-mapped, hex", "::ffff:a9fe:a9fe", allowPrivate, errMetadata},
		{"IPv4-compatible", "::169.254.169.254", allowPrivate, errMetadata},
		{"IPv4-translated", "::ffff:0:a9fe:a9fe", allowPrivate, errMetadata},
		{"NAT64", "64:ff9b::169.254.169.254", allowPrivate, errMetadata},
		{"NAT64, local use", "64:ff9b:1::a9fe:a9fe", allowPrivate, errMetadata},
		{"6to4", "2002:a9fe:a9fe::1", allowPrivate, errMetadata},
		{"6to4 of Alibaba's", "2002:6464:64c8::", allowPrivate, errMetadata},
		{"zone", "fe80::a9fe:a9fe%eth0", allowPrivate, errMetadata},
		{"mapped Azure WireServer", "::ffff:168.63.129.16", Guard{}, errMetadata},
		{"a neighbour of the metadata address", "169.254.169.250", allowPrivate, nil},
		{"named, written mapped", "::ffff:169.254.169.254",
			Guard{AllowPrivate: true, Allow: mustAllow(t, "169.254.169.254")}, nil},
		{"named as a /32", "169.254.169.254", Guard{AllowPrivate: true, Allow: mustAllow(t, "169.254.169.254/32")}, nil},
		{"named as a mapped /128", "169.254.169.254", Guard{AllowPrivate: true, Allow: mustAllow(t, "::ffff:169.254.169.254/128")}, nil},
		{"inside an allowed range", "169.254.169.254", Guard{AllowPrivate: true, Allow: mustAllow(t, "169.254.0.0/16")}, errMetadata},
		{"inside an allowed IPv6 range", "fd00:ec2::254", Guard{Allow: mustAllow(t, "fd00:ec2::/32")}, errMetadata},
		{"another one named", "169.254.170.2", Guard{AllowPrivate: true, Allow: mustAllow(t, "169.254.169.254")}, errMetadata},
		{"named, without AllowPrivate", "169.254.169.254", Guard{Allow: mustAllow(t, "169.254.169.254")}, nil},
		{"private, in an allowed range", "10.1.2.3", Guard{Allow: mustAllow(t, "10.1.0.0/16")}, nil},
		{"private, outside the allowed range", "10.2.0.1", Guard{Allow: mustAllow(t, "10.1.0.0/16")}, errBlocked},
		{"link-local with a zone", "fe80::1%eth0", Guard{}, errBlocked},
	} {
		if err := c.g.checkAddr(netip.MustParseAddr(c.addr)); !errors.Is(err, c.want) || (c.want == nil) != (err == nil) {
			t.Errorf("%s (%s): %v, want %v", c.name, c.addr, err, c.want)
		}
	}
}

func mustAllow(t *testing.T, entries ...string) []netip.Prefix {
	t.Helper()
	p, err := ParseAllowed(entries)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestParseAllowed(t *testing.T) {
	got, err := ParseAllowed([]string{" 169.254.169.254 ", "10.1.2.3/16", "::ffff:100.100.100.200", "fd00:ec2::254", ""})
	want := []netip.Prefix{netip.MustParsePrefix("169.254.169.254/32"), netip.MustParsePrefix("10.1.0.0/16"),
		netip.MustParsePrefix("100.100.100.200/32"), netip.MustParsePrefix("fd00:ec2::254/128")}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("ParseAllowed = %v, %v; want %v", got, err, want)
	}
	for _, bad := range []string{"metadata.google.internal", "169.254.169.254/33", "fe80::1%eth0", "2852039166", "10.0.0.0/"} {
		if _, err := ParseAllowed([]string{bad}); err == nil || !strings.Contains(err.Error(), bad) {
			t.Errorf("ParseAllowed(%q): %v, want an error naming it", bad, err)
		}
	}
}

// TestCheckURLMetadata: a create or change naming a metadata address, in
// any form, or a name that resolves to one, is refused with AllowPrivate,
// and accepted when Allow names the address.
func TestCheckURLMetadata(t *testing.T) {
	resolveTo := func(addr string) func(context.Context, string) ([]netip.Addr, error) {
		return func(context.Context, string) ([]netip.Addr, error) {
			return []netip.Addr{netip.MustParseAddr("203.0.113.7"), netip.MustParseAddr(addr)}, nil
		}
	}
	allowPrivate := Guard{AllowPrivate: true}
	named := Guard{AllowPrivate: true, Allow: mustAllow(t, "169.254.169.254")}
	ctx := context.Background()
	for _, c := range []struct {
		url    string
		g      Guard
		detail string // in the refusal; "" for none
	}{
		{"https://169.254.169.254/latest/meta-data/", allowPrivate, "The URL names a cloud metadata address."},
		{"https://[::ffff:169.254.169.254]/", allowPrivate, "cloud metadata address"},
		{"https://[fd00:ec2::254]/", allowPrivate, "cloud metadata address"},
		{"https://[fe80::a9fe:a9fe%25eth0]/", allowPrivate, "cloud metadata address"},
		{"https://100.100.100.200/", allowPrivate, "cloud metadata address"},
		{"https://metadata.google.internal/computeMetadata/v1/", Guard{AllowPrivate: true, Resolve: resolveTo("169.254.169.254")},
			"The URL's host metadata.google.internal resolves to a cloud metadata address."},
		{"https://ecs.example/", Guard{AllowPrivate: true, Resolve: resolveTo("::ffff:169.254.170.2")}, "cloud metadata address"},
		{"https://2852039166/", allowPrivate, "usual form"},
		{"https://0xA9FEA9FE/", allowPrivate, "usual form"},
		{"https://0251.0376.0251.0376/", allowPrivate, "usual form"},
		{"https://169.254.43518/", allowPrivate, "usual form"},
		{"https://169.254.169.254./", allowPrivate, "usual form"},
		{"https://[fe80::1%25eth0]/", Guard{}, "link-local"},
		{"https://169.254.169.254/latest/meta-data/", named, ""},
		{"https://metadata.google.internal/", Guard{AllowPrivate: true, Allow: named.Allow, Resolve: resolveTo("169.254.169.254")}, ""},
		{"https://100.100.100.200/", named, "cloud metadata address"},
		{"https://10.0.0.8/", allowPrivate, ""},
		{"https://hooks.example.com/", Guard{Resolve: resolveTo("203.0.113.8")}, ""},
	} {
		got := c.g.CheckURL(ctx, c.url)
		if (got == "") != (c.detail == "") || !strings.Contains(got, c.detail) {
			t.Errorf("%s: %q, want %q", c.url, got, c.detail)
		}
	}
}

// TestDialChecksWhatItConnectsTo: at delivery the dialer resolves the host
// again and checks every address before it connects, so a name that now
// resolves to a metadata address (DNS rebinding) is refused with
// AllowPrivate, and reaches the connect when Allow names the address.
func TestDialChecksWhatItConnectsTo(t *testing.T) {
	errReached := errors.New("reached the connect")
	rebound := func(context.Context, string) ([]netip.Addr, error) {
		return []netip.Addr{netip.MustParseAddr("::ffff:169.254.169.254")}, nil
	}
	for _, c := range []struct {
		name    string
		g       Guard
		address string
		want    error
	}{
		{"rebound name", Guard{AllowPrivate: true, Resolve: rebound}, "hooks.example.com:443", errMetadata},
		{"literal", Guard{AllowPrivate: true}, "169.254.169.254:80", errMetadata},
		{"rebound name, named in Allow", Guard{AllowPrivate: true, Resolve: rebound, Allow: mustAllow(t, "169.254.169.254")},
			"hooks.example.com:443", errReached},
	} {
		t.Run(c.name, func(t *testing.T) {
			var connects []string
			d := &net.Dialer{Control: func(network, address string, raw syscall.RawConn) error {
				if err := c.g.control(network, address, raw); err != nil {
					return err
				}
				connects = append(connects, address)
				return errReached
			}}
			conn, err := c.g.dial(d)(context.Background(), "tcp", c.address)
			if conn != nil {
				conn.Close()
			}
			if !errors.Is(err, c.want) {
				t.Fatalf("dial: %v, want %v", err, c.want)
			}
			if wantConnects := c.want == errReached; (len(connects) == 1) != wantConnects {
				t.Errorf("connects %v", connects)
			}
		})
	}
	// The dialer's own check refuses the address whatever led to it.
	if err := (&Guard{AllowPrivate: true}).control("tcp6", "[fd00:ec2::254]:80", nil); !errors.Is(err, errMetadata) {
		t.Errorf("control: %v, want errMetadata", err)
	}
}
