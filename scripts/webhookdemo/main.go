// Command webhookdemo is a small webhook receiver for trying entityapi's
// webhooks (docs/webhooks.md; `make webhook-demo`). It verifies each
// delivery as a Standard Webhooks consumer should: the HMAC-SHA256 of
// "<webhook-id>.<webhook-timestamp>.<body>" under the secret (whsec_ and
// base64 of the key) must be one of the space-separated "v1,<base64>"
// entries of webhook-signature, and the timestamp within five minutes. It
// prints one line per delivery and answers 204, or 401 when the signature
// does not match.
//
// The secret is read from -secret-file at each delivery, so the file can be
// written after the receiver starts (the secret is shown when the webhook is
// created); without it deliveries are printed unchecked.
package main

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:9090", "address to listen on")
	secretFile := flag.String("secret-file", "", "file holding the webhook's secret (whsec_...); empty: do not verify")
	flag.Parse()
	http.HandleFunc("POST /", func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		verdict := verify(*secretFile, r.Header, body)
		var msg struct {
			Type string `json:"type"`
			Data struct {
				ResourceType string `json:"resourceType"`
				ResourceID   string `json:"resourceId"`
			} `json:"data"`
		}
		_ = json.Unmarshal(body, &msg)
		fmt.Printf("%s %s %s/%s signature=%s\n", r.Header.Get("webhook-id"), msg.Type, msg.Data.ResourceType, msg.Data.ResourceID, verdict)
		if verdict == "bad" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
	log.Printf("webhookdemo: listening on http://%s", *addr)
	srv := &http.Server{Addr: *addr, ReadHeaderTimeout: 10 * time.Second}
	log.Fatal(srv.ListenAndServe())
}

// verify says whether the delivery is signed with the secret: ok, bad, or
// unchecked (no secret yet).
func verify(secretFile string, h http.Header, body []byte) string {
	if secretFile == "" {
		return "unchecked"
	}
	raw, err := os.ReadFile(secretFile)
	if err != nil {
		return "unchecked"
	}
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(strings.TrimSpace(string(raw)), "whsec_"))
	if err != nil {
		return "bad"
	}
	ts, err := strconv.ParseInt(h.Get("webhook-timestamp"), 10, 64)
	if err != nil || time.Since(time.Unix(ts, 0)).Abs() > 5*time.Minute {
		return "bad"
	}
	mac := hmac.New(sha256.New, key)
	fmt.Fprintf(mac, "%s.%d.%s", h.Get("webhook-id"), ts, body)
	want := mac.Sum(nil)
	for _, entry := range strings.Fields(h.Get("webhook-signature")) {
		version, sig, ok := strings.Cut(entry, ",")
		got, err := base64.StdEncoding.DecodeString(sig)
		if ok && version == "v1" && err == nil && hmac.Equal(got, want) {
			return "ok"
		}
	}
	return "bad"
}
