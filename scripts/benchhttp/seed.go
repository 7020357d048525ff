package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// The records the contacts targets read, shaped like seedCRM of
// server/bench_test.go: users (with a role and the one business unit),
// accounts and contacts owned by them in turn, each contact in one to three
// accounts. They go in through the API itself (synchronous batches).
const (
	seedUsers    = 10
	seedAccounts = 50
	seedContacts = 200
	syncBatchMax = 100 // primary items of an X-Mode: sync batch
)

// seedLastNames start with L half of the time, for the filtered target.
var seedLastNames = []string{"Lee", "Miller", "Lopez", "Smith", "Lewis", "Nguyen", "Larsen", "Kim", "Lambert", "Brown"}

// seeded is what seeding made: the ids the write targets use.
type seeded struct {
	accounts []string
}

func seed(ctx context.Context, s *service) (*seeded, error) {
	raw, _, err := s.api(ctx, http.MethodPost, "/admin/api/businessunits",
		[]byte(`{"data":{"type":"businessunits","attributes":{"name":"Sales"}}}`), http.StatusCreated)
	if err != nil {
		return nil, fmt.Errorf("seed business unit: %w", err)
	}
	var bu struct {
		Data struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.Unmarshal(raw, &bu); err != nil {
		return nil, err
	}
	items := make([]string, seedUsers)
	for i := range items {
		n := strconv.Itoa(i + 1)
		items[i] = `{"type":"users","attributes":{"username":"crm` + n + `","email":"crm` + n + `@example.com",` +
			`"firstName":"Crm","lastName":"User` + n + `","enabled":true},"relationships":{` +
			`"owner":{"data":{"type":"businessunits","id":"` + bu.Data.ID + `"}},` +
			`"userRoles":{"data":[{"type":"userroles","id":"ROLE_USER"}]}}}`
	}
	users, err := syncBatch(ctx, s, "users", items)
	if err != nil {
		return nil, err
	}
	items = make([]string, seedAccounts)
	for i := range items {
		items[i] = `{"type":"accounts","attributes":{"name":"Account ` + strconv.Itoa(i+1) + `"},` +
			`"relationships":{"owner":{"data":{"type":"users","id":"` + users[i%len(users)] + `"}}}}`
	}
	accounts, err := syncBatch(ctx, s, "accounts", items)
	if err != nil {
		return nil, err
	}
	items = make([]string, seedContacts)
	for i := range items {
		n := strconv.Itoa(i + 1)
		var links []string
		for k := 0; k <= i%3; k++ {
			links = append(links, `{"type":"accounts","id":"`+accounts[(i+k*7)%len(accounts)]+`"}`)
		}
		items[i] = `{"type":"contacts","attributes":{"firstName":"First` + n + `","lastName":"` +
			seedLastNames[i%len(seedLastNames)] + " " + n + `","primaryEmail":"contact` + n + `@example.com",` +
			`"jobTitle":"Buyer"},"relationships":{"owner":{"data":{"type":"users","id":"` + users[i%len(users)] + `"}},` +
			`"accounts":{"data":[` + strings.Join(links, ",") + `]}}}`
	}
	if _, err := syncBatch(ctx, s, "contacts", items); err != nil {
		return nil, err
	}
	return &seeded{accounts: accounts}, nil
}

// syncBatch sends items in synchronous batches and returns the new ids in order.
func syncBatch(ctx context.Context, s *service, typ string, items []string) ([]string, error) {
	var ids []string
	for start := 0; start < len(items); start += syncBatchMax {
		body := `{"data":[` + strings.Join(items[start:min(start+syncBatchMax, len(items))], ",") + `]}`
		raw, _, err := s.api(ctx, http.MethodPatch, "/admin/api/"+typ, []byte(body), http.StatusOK, "X-Mode", "sync")
		if err != nil {
			return nil, fmt.Errorf("seed %s: %w", typ, err)
		}
		var doc struct {
			Data []struct {
				ID string `json:"id"`
			} `json:"data"`
		}
		if err := json.Unmarshal(raw, &doc); err != nil {
			return nil, fmt.Errorf("seed %s: %w", typ, err)
		}
		for _, d := range doc.Data {
			ids = append(ids, d.ID)
		}
	}
	if len(ids) != len(items) {
		return nil, fmt.Errorf("seed %s: %d ids for %d items", typ, len(ids), len(items))
	}
	return ids, nil
}
