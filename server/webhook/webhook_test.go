package webhook

import (
	"context"
	"net/netip"
	"testing"
)

// TestSign: the Standard Webhooks specification's own example.
func TestSign(t *testing.T) {
	got, err := Sign("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, []byte(`{"test": 2432232314}`))
	if err != nil {
		t.Fatal(err)
	}
	if want := "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="; got != want {
		t.Errorf("Sign = %s, want %s", got, want)
	}
}

func TestGuardAddresses(t *testing.T) {
	g := &Guard{}
	for _, c := range []struct {
		addr    string
		blocked bool
	}{
		{"127.0.0.1", true}, {"10.0.0.1", true}, {"172.16.5.4", true}, {"192.168.1.1", true},
		{"169.254.169.254", true}, {"100.64.0.1", true}, {"0.0.0.0", true}, {"::1", true},
		{"fd00::1", true}, {"fe80::1", true}, {"::ffff:10.0.0.1", true}, {"::", true},
		{"93.184.216.34", false}, {"2606:2800:220:1:248:1893:25c8:1946", false}, {"::ffff:93.184.216.34", false},
	} {
		if got := g.checkAddr(netip.MustParseAddr(c.addr)) != nil; got != c.blocked {
			t.Errorf("%s blocked = %v, want %v", c.addr, got, c.blocked)
		}
	}
	if (&Guard{AllowPrivate: true}).checkAddr(netip.MustParseAddr("127.0.0.1")) != nil {
		t.Error("AllowPrivate still blocks loopback")
	}
}

func TestCheckURL(t *testing.T) {
	public := func(context.Context, string) ([]netip.Addr, error) {
		return []netip.Addr{netip.MustParseAddr("93.184.216.34")}, nil
	}
	private := func(context.Context, string) ([]netip.Addr, error) {
		return []netip.Addr{netip.MustParseAddr("93.184.216.34"), netip.MustParseAddr("10.0.0.8")}, nil
	}
	ctx := context.Background()
	for _, c := range []struct {
		url     string
		g       Guard
		refused bool
	}{
		{"https://hooks.example.com/in", Guard{Resolve: public}, false},
		{"https://hooks.example.com/in", Guard{Resolve: private}, true},
		{"http://hooks.example.com/in", Guard{Resolve: public}, true},
		{"http://hooks.example.com/in", Guard{Resolve: public, AllowHTTP: true}, false},
		{"https://user:pw@hooks.example.com/", Guard{Resolve: public}, true},
		{"ftp://hooks.example.com/", Guard{Resolve: public}, true},
		{"hooks.example.com", Guard{Resolve: public}, true},
		{"https://127.0.0.1:8443/", Guard{}, true},
		{"https://127.0.0.1:8443/", Guard{AllowPrivate: true}, false},
		{"https://LOCALHOST/", Guard{}, true},
		{"https://[fe80::1]/", Guard{}, true},
	} {
		if got := c.g.CheckURL(ctx, c.url) != ""; got != c.refused {
			t.Errorf("%s with %+v: refused = %v, want %v", c.url, c.g, got, c.refused)
		}
	}
}
