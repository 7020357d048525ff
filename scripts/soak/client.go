package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/entityapi/entityapi/scripts/internal/localserver"
)

const jsonAPI = "application/vnd.api+json"

// client sends the soak's requests to one server with one token and records
// them; its connections are kept alive and pooled, one per worker, as a real
// client's would be.
type client struct {
	base  string
	token string
	http  *http.Client
	rec   *recorder
	pool  *accountPool
	// timeline, during the soak, keeps the mix's latencies by window.
	timeline *timeline
	names    atomic.Int64 // numbers the accounts the soak creates
}

func newClient(base string, conns int) *client {
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.MaxIdleConns = conns
	transport.MaxIdleConnsPerHost = conns
	return &client{
		base: base,
		http: &http.Client{Transport: transport, Timeout: time.Minute},
		rec:  newRecorder(),
		pool: &accountPool{},
	}
}

// do sends a request and reads the whole answer (its transfer is part of the
// latency). It fails unless the status is want, quoting the start of the
// body; with out it decodes the body into it.
func (c *client) do(ctx context.Context, method, path, body string, want int, out any) error {
	return c.doHeader(ctx, method, path, body, nil, want, out)
}

func (c *client) doHeader(ctx context.Context, method, path, body string, header http.Header, want int, out any) error {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return err
	}
	for k, v := range header {
		req.Header[k] = v
	}
	req.Header.Set("Accept", jsonAPI)
	if body != "" {
		req.Header.Set("Content-Type", jsonAPI)
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	res, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer res.Body.Close()
	if out == nil && res.StatusCode == want {
		_, err = io.Copy(io.Discard, res.Body)
		return err
	}
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		return fmt.Errorf("%s %s: reading the answer: %w", method, path, err)
	}
	if res.StatusCode != want {
		return fmt.Errorf("%s %s: status %d (want %d): %.600s", method, path, res.StatusCode, want, raw)
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	return nil
}

// fetchToken trades the demo back-office client's credentials (README,
// "Two commands on a fresh machine") for a token.
func (c *client) fetchToken(ctx context.Context) (err error) {
	c.token, err = localserver.Token(ctx, c.http, c.base)
	return err
}

// accountPool holds the ids of accounts the soak created and may change.
// An id is taken out while a request works on it, so that an update never
// races a delete of the same account (which would be a 404 of our making).
type accountPool struct {
	mu  sync.Mutex
	ids []string
}

func (p *accountPool) put(id string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.ids = append(p.ids, id)
}

// take removes and returns the oldest id, or false when there is none.
func (p *accountPool) take() (string, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.ids) == 0 {
		return "", false
	}
	id := p.ids[0]
	p.ids = p.ids[1:]
	return id, true
}

// accounts is how many accounts the organization holds, from the total the
// server counts on request (X-Include: totalCount): the report shows how much
// the table grew under the soak.
func (c *client) accounts(ctx context.Context) (int64, error) {
	req, err := http.NewRequestWithContext(ctx, "GET", c.base+"/admin/api/accounts?page[size]=1", nil)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Accept", jsonAPI)
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("X-Include", "totalCount")
	res, err := c.http.Do(req)
	if err != nil {
		return 0, fmt.Errorf("counting accounts: %w", err)
	}
	defer res.Body.Close()
	_, _ = io.Copy(io.Discard, res.Body)
	if res.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("counting accounts: status %d", res.StatusCode)
	}
	n, err := strconv.ParseInt(res.Header.Get("X-Include-Total-Count"), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("counting accounts: X-Include-Total-Count: %w", err)
	}
	return n, nil
}
