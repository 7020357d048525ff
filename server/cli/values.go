package cli

import (
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// The readers of setting values (each setting's set checks and stores its
// value with one of them), and the writers of the defaults the settings take
// from the packages that own them.

// durationText writes a default duration the way the settings table shows
// it and duration reads it back: whole hours as "720h", else whole seconds
// as "60s".
func durationText(d time.Duration) string {
	switch {
	case d%time.Hour == 0:
		return strconv.FormatInt(int64(d/time.Hour), 10) + "h"
	case d%time.Second == 0:
		return strconv.FormatInt(int64(d/time.Second), 10) + "s"
	}
	return d.String()
}

// secondsText writes a default duration as the whole number of seconds
// seconds reads back.
func secondsText(d time.Duration) string {
	return strconv.FormatInt(int64(d/time.Second), 10)
}

// splitList reads a comma-separated setting, ignoring blanks.
func splitList(s string) []string {
	out := []string{}
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

func nonEmpty(v string, into *string) error {
	if strings.TrimSpace(v) == "" {
		return fmt.Errorf("may not be empty")
	}
	*into = v
	return nil
}

func boolean(v string, into *bool) error {
	b, err := strconv.ParseBool(v)
	if err != nil {
		return fmt.Errorf("want true or false")
	}
	*into = b
	return nil
}

func byteCount(v string, into *int64) error {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n <= 0 {
		return fmt.Errorf("want a positive number of bytes")
	}
	*into = n
	return nil
}

// cacheBytes reads a cache's memory: a number of bytes, 0 for none (the
// server's negative).
func cacheBytes(v string, into *int64) error {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return fmt.Errorf("want a number of bytes (0: none)")
	}
	if n == 0 {
		n = -1
	}
	*into = n
	return nil
}

// failureLimit reads a limit of the token endpoint's failure counts: a
// number, 0 for none (auth.Config's negative).
func failureLimit(v string, into *int) error {
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return fmt.Errorf("want a number of failures (0: no limit)")
	}
	if n == 0 {
		n = -1
	}
	*into = n
	return nil
}

// valueCount reads a positive number of values, at most 10,000: a bound on
// what one answer lists, which an operator may lower or raise within reason.
func valueCount(v string, into *int) error {
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > 10000 {
		return fmt.Errorf("want a number from 1 to 10000")
	}
	*into = n
	return nil
}

func duration(v string, into *time.Duration) error {
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return fmt.Errorf("want a positive duration such as 30s or 24h")
	}
	*into = d
	return nil
}

// retention reads how long records are kept: a positive duration, or 0
// for forever.
func retention(v string, into *time.Duration) error {
	if v == "0" {
		*into = 0
		return nil
	}
	return duration(v, into)
}

// maxAge reads a cache lifetime: a duration of whole seconds, at least
// zero; zero (every read revalidated) is kept as a negative value, the
// zero value of the setting being its default.
func maxAge(v string, into *time.Duration) error {
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 || d%time.Second != 0 {
		return fmt.Errorf("want whole seconds, such as 0s, 60s or 1h")
	}
	if d == 0 {
		d = -1
	}
	*into = d
	return nil
}

// seconds reads a duration given as a whole positive number of seconds, the
// unit the values it sets are sent in (a token's expires_in, a CORS max-age),
// unlike duration's "30s".
func seconds(v string, into *time.Duration) error {
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		return fmt.Errorf("want a positive number of seconds")
	}
	*into = time.Duration(n) * time.Second
	return nil
}

func hostPort(v string, into *string) error {
	if _, port, err := net.SplitHostPort(v); err != nil {
		return fmt.Errorf("want HOST:PORT, such as 127.0.0.1:8080 or :8080")
	} else if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return fmt.Errorf("the port must be a number from 0 to 65535")
	}
	*into = v
	return nil
}

// absoluteURL accepts "" (not set) or an absolute http(s) URL.
func absoluteURL(v string, into *string) error {
	if v != "" {
		u, err := url.Parse(v)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
			return fmt.Errorf("want an absolute http:// or https:// URL without a query")
		}
	}
	*into = v
	return nil
}

// basePath accepts "" or a path that starts with a slash; a trailing slash goes.
func basePath(v string, into *string) error {
	v = strings.TrimSuffix(v, "/")
	if v != "" && (!strings.HasPrefix(v, "/") || strings.ContainsAny(v, "?#:* ")) {
		return fmt.Errorf("want a path such as /admin, or nothing")
	}
	*into = v
	return nil
}

// keyCount reads the most live Idempotency-Keys of one caller: from 1 to
// 10,000,000 (each key holds an answer of up to 4 MiB in the database).
func keyCount(v string, into *int) error {
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > 10_000_000 {
		return fmt.Errorf("want a number from 1 to 10000000")
	}
	*into = n
	return nil
}
