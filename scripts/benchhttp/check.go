package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"
)

// checkFloor proves, before anything is measured, that each floor of t
// answers the service's document (see compare.go): reads on the same rows,
// a POST and a PATCH with the same body. The service through the pooler is
// held to the same document, so that a row through PgBouncer cannot be fast
// by failing.
func checkFloor(ctx context.Context, t target, svc *service, systems []system, seeds *seeded) error {
	for _, s := range systems {
		if s.name != sysDB && s.name != sysWrite && s.name != sysBytes && s.name != sysPooled {
			continue
		}
		n := normalization{replace: hostReplacements(svc.base, s.base)}
		var want, got []byte
		var err error
		switch t.name {
		case "post", "keyed":
			if want, err = send(ctx, http.MethodPost, svc.base+t.uri, svc.token, postBody, http.StatusCreated); err != nil {
				return err
			}
			if got, err = send(ctx, http.MethodPost, s.base+t.uri, s.token, postBody, http.StatusCreated); err != nil {
				return err
			}
			n.drop = map[string]bool{"createdAt": true, "updatedAt": true}
			n.ids = map[string]bool{}
			for _, doc := range [][]byte{want, got} {
				id, err := dataID(doc)
				if err != nil {
					return err
				}
				n.ids[id] = true
				n.replace = append(n.replace, "/accounts/"+id, "/accounts/ID")
			}
		case "patch":
			id := seeds.accounts[0]
			if want, err = send(ctx, http.MethodPatch, svc.base+t.uri+id, svc.token, patchBody(id), http.StatusOK); err != nil {
				return err
			}
			if got, err = send(ctx, http.MethodPatch, s.base+t.uri+id, s.token, patchBody(id), http.StatusOK); err != nil {
				return err
			}
			n.drop = map[string]bool{"updatedAt": true}
		default:
			if want, err = send(ctx, http.MethodGet, svc.base+t.uri, svc.token, "", http.StatusOK); err != nil {
				return err
			}
			if got, err = send(ctx, http.MethodGet, s.base+t.uri, s.token, "", http.StatusOK); err != nil {
				return err
			}
		}
		diff, err := compareDocuments(want, got, n)
		if err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
		if diff != "" {
			return fmt.Errorf("%s: %s", s.name, diff)
		}
	}
	return nil
}

func dataID(doc []byte) (string, error) {
	var d struct {
		Data struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.Unmarshal(doc, &d); err != nil || d.Data.ID == "" {
		return "", fmt.Errorf("no data/id in %.200s", doc)
	}
	return d.Data.ID, nil
}

var checkClient = &http.Client{Timeout: time.Minute}

// send makes one JSON:API request as wrk makes it and returns the body; it
// fails unless the status is want.
func send(ctx context.Context, method, url, token, body string, want int) ([]byte, error) {
	var r io.Reader
	if body != "" {
		r = bytes.NewReader([]byte(body))
	}
	req, err := http.NewRequestWithContext(ctx, method, url, r)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", jsonAPI)
	req.Header.Set("Authorization", "Bearer "+token)
	if body != "" {
		req.Header.Set("Content-Type", jsonAPI)
	}
	res, err := checkClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, err
	}
	if res.StatusCode != want {
		return nil, fmt.Errorf("%s %s: status %d (want %d): %.1000s", method, url, res.StatusCode, want, raw)
	}
	return raw, nil
}
