package main

import (
	"flag"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/entityapi/entityapi/server"
)

// edgeFlags are the settings of CORS and rate limiting (README "CORS and rate
// limits"): registered by parse before the flags are read, checked after.
type edgeFlags struct {
	corsOrigins                      listFlag
	corsMaxAge, rateLimit, rateBurst *string
}

func addEdgeFlags(fs *flag.FlagSet) *edgeFlags {
	e := &edgeFlags{corsOrigins: listFlag{values: splitList(env("CORS_ORIGIN", ""))}}
	fs.Var(&e.corsOrigins, "cors-origin", "an origin whose scripts may call the APIs, such as https://shop.example.com, or * for any; repeatable (ENTITYAPI_CORS_ORIGIN, comma-separated; default: none, no CORS headers)")
	e.corsMaxAge = fs.String("cors-max-age", env("CORS_MAX_AGE", "600"), "seconds a browser may cache a CORS preflight answer (ENTITYAPI_CORS_MAX_AGE)")
	e.rateLimit = fs.String("rate-limit", env("RATE_LIMIT", ""), "requests per second each client may send to the APIs, counted per process, such as 10 or 0.5 (ENTITYAPI_RATE_LIMIT; default: no limit)")
	e.rateBurst = fs.String("rate-burst", env("RATE_BURST", ""), "requests a client may send at once after a quiet spell (ENTITYAPI_RATE_BURST; default: twice --rate-limit, at least 1)")
	return e
}

// apply checks the settings and fills c with them.
func (e *edgeFlags) apply(c *config) error {
	for _, o := range e.corsOrigins.values {
		if _, err := server.NormalizeOrigin(o); err != nil {
			return fmt.Errorf("--cors-origin %q: want scheme://host[:port] such as https://shop.example.com, or *", o)
		}
	}
	c.cors.Origins = e.corsOrigins.values
	secs, err := strconv.Atoi(*e.corsMaxAge)
	if err != nil || secs <= 0 {
		return fmt.Errorf("--cors-max-age %q: want a positive number of seconds", *e.corsMaxAge)
	}
	c.cors.MaxAge = time.Duration(secs) * time.Second
	if *e.rateLimit != "" {
		r, err := strconv.ParseFloat(*e.rateLimit, 64)
		if err != nil || r < 0 || math.IsInf(r, 0) || math.IsNaN(r) {
			return fmt.Errorf("--rate-limit %q: want requests per second, such as 10 or 0.5 (0: no limit)", *e.rateLimit)
		}
		c.rateLimit.PerSecond = r
	}
	if *e.rateBurst != "" {
		b, err := strconv.Atoi(*e.rateBurst)
		if err != nil || b <= 0 {
			return fmt.Errorf("--rate-burst %q: want a positive number of requests", *e.rateBurst)
		}
		if c.rateLimit.PerSecond == 0 {
			return fmt.Errorf("--rate-burst %q: only with --rate-limit", *e.rateBurst)
		}
		c.rateLimit.Burst = b
	}
	return nil
}

// listFlag is a repeatable flag whose values may also be comma-separated; the
// first use replaces the default taken from the environment.
type listFlag struct {
	values []string
	set    bool
}

func (l *listFlag) String() string { return strings.Join(l.values, ",") }

func (l *listFlag) Set(v string) error {
	if !l.set {
		l.values, l.set = nil, true
	}
	l.values = append(l.values, splitList(v)...)
	return nil
}
