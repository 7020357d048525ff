package main

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/entityapi/entityapi/scripts/internal/localserver"
)

const pollEvery = 250 * time.Millisecond

// Seeded records: the contacts the two contact reads return, as in the
// benchmarks' seedCRM (server/bench_test.go): each contact in one to three
// accounts, last names starting with L half of the time.
const (
	seedAccounts = 50
	seedContacts = 200
)

var lastNames = []string{"Lee", "Miller", "Lopez", "Smith", "Lewis", "Nguyen", "Larsen", "Kim", "Lambert", "Brown"}

// seed adds the accounts and contacts the reads need through the API (the
// demo data has two contacts), in synchronous batches of at most 100 items.
func (c *client) seed(ctx context.Context) error {
	items := make([]string, seedAccounts)
	for i := range items {
		n := strconv.Itoa(i + 1)
		items[i] = `{"type":"accounts","attributes":{"name":"Seed account ` + n + `","externalId":"SOAK-SEED-` + n + `"}}`
	}
	accounts, err := c.syncBatch(ctx, "accounts", items)
	if err != nil {
		return err
	}
	for from := 0; from < seedContacts; from += 100 {
		items = items[:0]
		for i := from; i < min(from+100, seedContacts); i++ {
			var links []string
			for k := 0; k <= i%3; k++ {
				links = append(links, `{"type":"accounts","id":"`+accounts[(i+k*7)%len(accounts)]+`"}`)
			}
			n := strconv.Itoa(i + 1)
			items = append(items, `{"type":"contacts","attributes":{"firstName":"First`+n+`","lastName":"`+
				lastNames[i%len(lastNames)]+` `+n+`","primaryEmail":"contact`+n+`@example.com","jobTitle":"Buyer"},`+
				`"relationships":{"accounts":{"data":[`+strings.Join(links, ",")+`]}}}`)
		}
		if _, err := c.syncBatch(ctx, "contacts", items); err != nil {
			return err
		}
	}
	return nil
}

// syncBatch sends items in one X-Mode: sync batch and returns the new ids in
// request order.
func (c *client) syncBatch(ctx context.Context, typ string, items []string) ([]string, error) {
	var doc struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	header := http.Header{"X-Mode": {"sync"}}
	if err := c.doHeader(ctx, "PATCH", "/admin/api/"+typ, `{"data":[`+strings.Join(items, ",")+`]}`, header, 200, &doc); err != nil {
		return nil, fmt.Errorf("seeding %s: %w", typ, err)
	}
	ids := make([]string, len(doc.Data))
	for i, d := range doc.Data {
		ids[i] = d.ID
	}
	return ids, nil
}

// batchEvery starts an asynchronous batch of size accounts every interval
// until ctx ends, and waits for the batches it started.
func (c *client) batchEvery(ctx context.Context, interval time.Duration, size int) {
	var wg sync.WaitGroup
	defer wg.Wait()
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for n := 1; ; n++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.batch(n, size)
		}()
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// batch sends batch n of size accounts, polls its operation until it ends,
// and records a failure unless it ends success with every item written. It
// runs to its end even after the soak's time is up: an operation left
// running would be a failure nobody saw.
func (c *client) batch(n, size int) {
	ctx := context.Background()
	start := time.Now()
	var b strings.Builder
	b.WriteString(`{"data":[`)
	for i := range size {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"type":"accounts","attributes":{"name":"Soak batch %d item %d"}}`, n, i)
	}
	b.WriteString(`]}`)
	var op localserver.Operation
	err := c.do(ctx, "PATCH", "/admin/api/accounts", b.String(), 202, &op)
	c.rec.add(kindBatch, time.Since(start), err)
	if err != nil {
		return
	}
	for {
		time.Sleep(pollEvery)
		polled := time.Now()
		err := c.do(ctx, "GET", "/admin/api/asyncoperations/"+op.Data.ID, "", 200, &op)
		c.rec.add(kindPoll, time.Since(polled), err)
		if err != nil {
			return
		}
		if ended, err := op.Ended(size); ended {
			if err != nil {
				c.rec.fail(kindBatchEnd, err)
			} else {
				c.rec.add(kindBatchEnd, time.Since(start), nil)
			}
			return
		}
		if time.Since(start) > 10*time.Minute {
			c.rec.fail(kindBatchEnd, fmt.Errorf("operation %s still %s after 10 minutes", op.Data.ID, op.Data.Attributes.Status))
			return
		}
	}
}
