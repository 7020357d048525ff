package server_test

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/entityapi/entityapi/server"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// nginxConf is a caching proxy as an operator puts one in front of the
// storefront (docs/storefront.md, "HTTP caches"): it keeps what the answers'
// Cache-Control allows, one entry per Vary, keyed by the host and the
// address, and revalidates expired ones with their ETag.
const nginxConf = `daemon off;
master_process off;
worker_processes 1;
pid %[1]s/nginx.pid;
error_log %[1]s/error.log;
events { worker_connections 64; }
http {
    access_log off;
    client_body_temp_path %[1]s/body;
    proxy_temp_path %[1]s/proxy;
    fastcgi_temp_path %[1]s/fastcgi;
    uwsgi_temp_path %[1]s/uwsgi;
    scgi_temp_path %[1]s/scgi;
    proxy_cache_path %[1]s/cache keys_zone=api:1m;
    server {
        listen 127.0.0.1:%[2]d;
        location / {
            proxy_pass %[3]s;
            proxy_set_header Host $http_host;
            proxy_cache api;
            proxy_cache_key $scheme$http_host$request_uri;
            proxy_cache_revalidate on;
            add_header X-Cache-Status $upstream_cache_status always;
        }
    }
}
`

// startNginx runs nginx as a caching proxy in front of upstream and returns
// its base address; it stops with the test. Without nginx the test fails
// in CI (.ci/run installs it) and is skipped elsewhere.
func startNginx(t *testing.T, upstream string) string {
	t.Helper()
	bin, err := exec.LookPath("nginx")
	if err != nil {
		bin, err = exec.LookPath("/usr/sbin/nginx")
	}
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("nginx is not installed; CI installs it (.ci/run)")
		}
		t.Skip("nginx is not installed (apt-get install nginx-light); CI runs this test")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	_ = l.Close()
	dir := t.TempDir()
	conf := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(conf, []byte(fmt.Sprintf(nginxConf, dir, port, upstream)), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-p", dir, "-c", conf)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	for deadline := time.Now().Add(10 * time.Second); ; {
		if c, err := net.Dial("tcp", base[len("http://"):]); err == nil {
			_ = c.Close()
			return base
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(filepath.Join(dir, "error.log"))
			t.Fatalf("nginx did not listen: %s%s", stderr.String(), log)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// proxied is one answer through the proxy.
type proxied struct {
	status int
	header http.Header
	body   string
}

// cached tells whether the proxy answered from its cache.
func (p proxied) cached() bool { return p.header.Get("X-Cache-Status") == "HIT" }

func getThrough(t *testing.T, base, path string, headers map[string]string) proxied {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, base+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "application/vnd.api+json")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return proxied{res.StatusCode, res.Header, string(body)}
}

// TestCachingProxy: nginx in front of the storefront serves a guest's
// second read from its cache, keeps a read in another localization apart,
// revalidates an expired read with its ETag, and never keeps an
// authenticated read nor answers one with a guest's.
func TestCachingProxy(t *testing.T) {
	t.Parallel()
	for _, dialect := range storagetest.Dialects() {
		t.Run(dialect, func(t *testing.T) {
			t.Parallel()
			// An hour: the HITs below do not depend on how fast the
			// machine is.
			store := storagetest.Open(t, dialect)
			a := newAPIWith(t, store, func(c *server.Config) { c.GuestMaxAge = time.Hour })
			proxy := startNginx(t, a.base)
			const path = "/api/countries/DE"

			first := getThrough(t, proxy, path, nil)
			second := getThrough(t, proxy, path, nil)
			if first.status != 200 || first.cached() || !second.cached() || second.body != first.body {
				t.Fatalf("a guest's reads: %d %s then %d %s", first.status, first.header.Get("X-Cache-Status"), second.status, second.header.Get("X-Cache-Status"))
			}
			if second.header.Get("X-Request-ID") != first.header.Get("X-Request-ID") {
				t.Errorf("the cached read was answered by the server again")
			}

			de := map[string]string{"X-Localization-ID": "2"}
			german := getThrough(t, proxy, path, de)
			if german.status != 200 || german.cached() || german.body == first.body || german.header.Get("Content-Language") != "de-DE" {
				t.Errorf("a German read after an English one: %d %s %q", german.status, german.header.Get("X-Cache-Status"), german.header.Get("Content-Language"))
			}
			if again := getThrough(t, proxy, path, de); !again.cached() || again.body != german.body {
				t.Errorf("the German read again: %s", again.header.Get("X-Cache-Status"))
			}
			if english := getThrough(t, proxy, path, nil); english.body != first.body {
				t.Errorf("the English read after the German one got another answer")
			}

			token := map[string]string{"Authorization": "Bearer " + a.token("storefront")}
			var ids []string
			for i := 0; i < 2; i++ {
				r := getThrough(t, proxy, path, token)
				if r.status != 200 || r.cached() || r.header.Get("Cache-Control") != "private, no-cache" {
					t.Errorf("an authenticated read: %d %s %q", r.status, r.header.Get("X-Cache-Status"), r.header.Get("Cache-Control"))
				}
				ids = append(ids, r.header.Get("X-Request-ID"))
			}
			if ids[0] == ids[1] || ids[0] == first.header.Get("X-Request-ID") {
				t.Errorf("an authenticated read was answered from the cache")
			}

			// Past its max-age (a second, on a server of its own) the
			// proxy asks again with the ETag: a 304 refreshes what it keeps.
			short := startAPI(t, store, func(c *server.Config) { c.GuestMaxAge = time.Second })
			shortProxy := startNginx(t, short.base)
			kept := getThrough(t, shortProxy, path, nil)
			time.Sleep(2100 * time.Millisecond)
			if r := getThrough(t, shortProxy, path, nil); r.header.Get("X-Cache-Status") != "REVALIDATED" || r.body != kept.body {
				t.Errorf("an expired guest's read: %s", r.header.Get("X-Cache-Status"))
			}
		})
	}
}
