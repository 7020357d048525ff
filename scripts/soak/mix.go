package main

import (
	"context"
	"strconv"
	"time"
)

// The kinds of request in the soak's mix, as the report names them.
const (
	kindCountry  = "GET country"
	kindRegions  = "GET regions (10)"
	kindFiltered = "GET contacts filtered (20)"
	kindInclude  = "GET contacts include (50)"
	kindCreate   = "POST account"
	kindUpdate   = "PATCH account"
	kindDelete   = "DELETE account"
	kindBatch    = "PATCH batch (202)"
	kindPoll     = "GET asyncoperation"
	kindBatchEnd = "batch to success"
)

// mixKinds are the kinds of the timed mix, the order of the report's rows.
var mixKinds = []string{kindCountry, kindRegions, kindFiltered, kindInclude, kindCreate, kindUpdate, kindDelete}

// batchKinds are the kinds of the background batches, reported apart from
// the mix because they are not part of the arrival rate.
var batchKinds = []string{kindBatch, kindPoll, kindBatchEnd}

// weight is a kind's share of the mix, in requests out of 100: mostly reads
// (the four read targets of issue 16), some writes. Creates outnumber
// deletes slightly so that updates and deletes always find an account the
// soak made, and the table grows slowly, as a live one does.
type weight struct {
	kind string
	n    int
}

var mixWeights = []weight{
	{kindCountry, 30}, {kindRegions, 25}, {kindFiltered, 15}, {kindInclude, 5},
	{kindCreate, 9}, {kindUpdate, 8}, {kindDelete, 8},
}

// mixCycle spreads the weights over one cycle as evenly as possible (smooth
// weighted round robin), so that any stretch of the soak has the mix's
// proportions rather than runs of one kind.
func mixCycle(ws []weight) []string {
	total := 0
	for _, w := range ws {
		total += w.n
	}
	current := make([]int, len(ws))
	cycle := make([]string, 0, total)
	for range total {
		best := 0
		for i, w := range ws {
			current[i] += w.n
			if current[i] > current[best] {
				best = i
			}
		}
		current[best] -= total
		cycle = append(cycle, ws[best].kind)
	}
	return cycle
}

// Values the reads rotate through: countries with ten regions or more, and
// initials of the seeded contacts' last names.
var (
	countries = []string{"DE", "US", "FR", "JP", "BR", "IN", "CA", "IT"}
	initials  = []string{"L", "M", "S", "B", "N", "K"}
)

// send makes request seq of the mix and records its latency from started
// (its due time in the soak, its start in the closed loop).
func (c *client) send(ctx context.Context, cycle []string, seq int64, started time.Time) {
	kind := cycle[seq%int64(len(cycle))]
	pick := func(vs []string) string { return vs[(seq/int64(len(cycle)))%int64(len(vs))] }
	var err error
	switch kind {
	case kindCountry:
		err = c.get(ctx, "/admin/api/countries/"+pick(countries))
	case kindRegions:
		err = c.get(ctx, "/admin/api/regions?filter[country]="+pick(countries)+"&page[size]=10")
	case kindFiltered:
		err = c.get(ctx, "/admin/api/contacts?filter[lastName][starts_with]="+pick(initials)+
			"&sort=-createdAt,lastName&page[size]=20")
	case kindInclude:
		err = c.get(ctx, "/admin/api/contacts?include=accounts,owner&page[size]=50")
	case kindUpdate, kindDelete:
		id, ok := c.pool.take()
		if !ok { // nothing of ours to change yet: create one instead
			kind = kindCreate
			err = c.create(ctx)
			break
		}
		if kind == kindUpdate {
			err = c.update(ctx, id, seq)
			c.pool.put(id)
		} else {
			err = c.remove(ctx, id)
		}
	case kindCreate:
		err = c.create(ctx)
	}
	d := time.Since(started)
	c.rec.add(kind, d, err)
	if tl := c.timeline; tl != nil {
		tl.add(kind, started.Add(d), d)
	}
}

func (c *client) get(ctx context.Context, path string) error {
	return c.do(ctx, "GET", path, "", 200, nil)
}

// create makes an account of a name and external id unique in the run (the
// external id must be unique in the organization) and offers it to the pool.
func (c *client) create(ctx context.Context) error {
	n := strconv.FormatInt(c.names.Add(1), 10)
	var doc struct {
		Data struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	err := c.do(ctx, "POST", "/admin/api/accounts",
		`{"data":{"type":"accounts","attributes":{"name":"Soak `+n+`","externalId":"SOAK-`+n+`"}}}`, 201, &doc)
	if err == nil {
		c.pool.put(doc.Data.ID)
	}
	return err
}

func (c *client) update(ctx context.Context, id string, seq int64) error {
	return c.do(ctx, "PATCH", "/admin/api/accounts/"+id,
		`{"data":{"type":"accounts","id":"`+id+`","attributes":{"name":"Soak renamed `+strconv.FormatInt(seq, 10)+`"}}}`, 200, nil)
}

func (c *client) remove(ctx context.Context, id string) error {
	return c.do(ctx, "DELETE", "/admin/api/accounts/"+id, "", 204, nil)
}
