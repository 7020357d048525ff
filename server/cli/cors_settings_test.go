package cli

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/entityapi/entityapi/server"
)

// TestEdgeFlags: the CORS and rate-limit settings come from flags and
// ENTITYAPI_* variables (flags win, and --cors-origin repeats), and a bad value
// stops the start with one line naming the flag.
func TestEdgeFlags(t *testing.T) {
	cases := []struct {
		name string
		env  map[string]string
		args []string
		cors server.CORSConfig
		rate server.RateLimitConfig
		err  string // a part of the error; "" for none
	}{
		{name: "defaults", cors: server.CORSConfig{MaxAge: 600 * time.Second}, rate: server.RateLimitConfig{ShareEvery: server.DefaultRateShareEvery}},
		{name: "origins from the environment", env: map[string]string{"CORS_ORIGIN": "https://a.example, https://b.example:8443"},
			cors: server.CORSConfig{Origins: []string{"https://a.example", "https://b.example:8443"}, MaxAge: 600 * time.Second},
			rate: server.RateLimitConfig{ShareEvery: server.DefaultRateShareEvery}},
		{name: "flags replace the environment and repeat", env: map[string]string{"CORS_ORIGIN": "https://a.example"},
			args: []string{"--cors-origin", "https://c.example", "--cors-origin=*", "--cors-max-age", "30"},
			cors: server.CORSConfig{Origins: []string{"https://c.example", "*"}, MaxAge: 30 * time.Second},
			rate: server.RateLimitConfig{ShareEvery: server.DefaultRateShareEvery}},
		{name: "an origin without a scheme", args: []string{"--cors-origin", "shop.example.com"}, err: `--cors-origin "shop.example.com"`},
		{name: "an origin with a path", args: []string{"--cors-origin", "https://shop.example.com/app"}, err: "--cors-origin"},
		{name: "no max age", args: []string{"--cors-max-age", "0"}, err: `--cors-max-age "0"`},
		{name: "rate and burst", args: []string{"--rate-limit", "0.5", "--rate-burst", "3"},
			cors: server.CORSConfig{MaxAge: 600 * time.Second}, rate: server.RateLimitConfig{PerSecond: 0.5, Burst: 3, ShareEvery: server.DefaultRateShareEvery}},
		{name: "rate from the environment", env: map[string]string{"RATE_LIMIT": "10"},
			cors: server.CORSConfig{MaxAge: 600 * time.Second}, rate: server.RateLimitConfig{PerSecond: 10, ShareEvery: server.DefaultRateShareEvery}},
		{name: "shares every 5 s", args: []string{"--rate-limit", "10", "--rate-limit-share", "5"},
			cors: server.CORSConfig{MaxAge: 600 * time.Second}, rate: server.RateLimitConfig{PerSecond: 10, ShareEvery: 5 * time.Second}},
		{name: "shares never", args: []string{"--rate-limit", "10", "--rate-limit-share", "0"}, err: `--rate-limit-share "0"`},
		{name: "a negative rate", args: []string{"--rate-limit", "-1"}, err: `--rate-limit "-1"`},
		{name: "an infinite rate", args: []string{"--rate-limit", "Inf"}, err: `--rate-limit "Inf"`},
		{name: "a burst of nothing", args: []string{"--rate-limit", "1", "--rate-burst", "0"}, err: `--rate-burst "0"`},
		{name: "a burst without a rate", args: []string{"--rate-burst", "5"}, err: "only with --rate-limit"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			env := map[string]string{}
			for name, v := range tc.env {
				env["ENTITYAPI_"+name] = v
			}
			c, err := parseWith("serve", tc.args, env)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || strings.Contains(err.Error(), "\n") {
					t.Fatalf("error %v, want one line with %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(c.cors.Origins, tc.cors.Origins) || c.cors.MaxAge != tc.cors.MaxAge || c.rateLimit != tc.rate {
				t.Errorf("got %+v %+v, want %+v %+v", c.cors, c.rateLimit, tc.cors, tc.rate)
			}
		})
	}
}
