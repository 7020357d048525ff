package localserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
)

// The demo back-office client (README, "Two commands on a fresh machine"):
// `serve --demo` creates it, and it acts as the administrator.
const (
	demoClientID = "demo-backoffice"
	demoSecret   = "demo-backoffice-secret"
)

// Token trades the demo client's credentials for an access token at base.
func Token(ctx context.Context, client *http.Client, base string) (string, error) {
	return ClientToken(ctx, client, base+"/admin/oauth2-token", demoClientID, demoSecret)
}

// ClientToken trades a client's credentials for an access token at the
// token endpoint tokenURL (grant client_credentials): the back office's
// /admin/oauth2-token or the storefront's /oauth2-token.
func ClientToken(ctx context.Context, client *http.Client, tokenURL, id, secret string) (string, error) {
	body, err := json.Marshal(map[string]string{"grant_type": "client_credentials", "client_id": id, "client_secret": secret})
	if err != nil {
		return "", err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, tokenURL, bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := client.Do(req)
	if err != nil {
		return "", fmt.Errorf("token: %w", err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		return "", fmt.Errorf("token: %w", err)
	}
	if res.StatusCode != http.StatusOK {
		return "", fmt.Errorf("token: %s %s: status %d (want %d): %.1000s", req.Method, req.URL.Path, res.StatusCode, http.StatusOK, raw)
	}
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	if err := json.Unmarshal(raw, &tok); err != nil || tok.AccessToken == "" {
		return "", fmt.Errorf("token: no access_token in %.1000s", raw)
	}
	return tok.AccessToken, nil
}

// Operation is the part of an asyncoperations resource that says how a batch
// ended: every program polls one until it does.
type Operation struct {
	Data struct {
		ID         string `json:"id"`
		Attributes struct {
			Status   string   `json:"status"`
			Progress *float64 `json:"progress"`
			Summary  *struct {
				ReadCount  int `json:"readCount"`
				WriteCount int `json:"writeCount"`
				ErrorCount int `json:"errorCount"`
			} `json:"summary"`
		} `json:"attributes"`
	} `json:"data"`
}

// Ended says whether the operation has ended, and with an error unless it
// ended success with all n items read and written and none failed: a batch
// that lost items is a failed measurement, however fast.
func (op *Operation) Ended(n int) (bool, error) {
	a := op.Data.Attributes
	switch a.Status {
	case "success":
		if s := a.Summary; s == nil || s.ReadCount != n || s.WriteCount != n || s.ErrorCount != 0 {
			return true, fmt.Errorf("operation %s ended success with summary %+v, want %d read and written", op.Data.ID, s, n)
		}
		return true, nil
	case "failed", "cancelled":
		return true, fmt.Errorf("operation %s ended %s", op.Data.ID, a.Status)
	}
	return false, nil
}
