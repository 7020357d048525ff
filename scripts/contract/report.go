package main

import (
	"encoding/json"
	"fmt"
	"strings"
)

// result is what one newman run found: its counts, and one line per failed
// assertion or test script error.
type result struct {
	Requests, Assertions int
	Failures             []string
}

// Summary is the run's one-line account.
func (r *result) Summary() string {
	return fmt.Sprintf("%d requests, %d assertions, %d failed", r.Requests, r.Assertions, len(r.Failures))
}

// newmanReport is the part of newman's JSON report (its json reporter) that
// says what failed and on which request.
type newmanReport struct {
	Run struct {
		Stats struct {
			Requests   struct{ Total int } `json:"requests"`
			Assertions struct{ Total int } `json:"assertions"`
		} `json:"stats"`
		Failures []struct {
			Error struct {
				Name    string `json:"name"`
				Test    string `json:"test"`
				Message string `json:"message"`
			} `json:"error"`
			At     string `json:"at"`
			Source struct {
				ID   string `json:"id"`
				Name string `json:"name"`
			} `json:"source"`
		} `json:"failures"`
		Executions []struct {
			Item    struct{ ID string } `json:"item"`
			Request struct {
				Method string `json:"method"`
				URL    struct {
					Path  []string `json:"path"`
					Query []struct {
						Key      string `json:"key"`
						Value    string `json:"value"`
						Disabled bool   `json:"disabled"`
					} `json:"query"`
				} `json:"url"`
			} `json:"request"`
			Response struct {
				Code int `json:"code"`
				// Stream is the answer's body, a Node Buffer as JSON:
				// {"type": "Buffer", "data": [123, 34, ...]}.
				Stream struct {
					Data []int `json:"data"`
				} `json:"stream"`
			} `json:"response"`
		} `json:"executions"`
	} `json:"run"`
}

// bodyShown bounds how much of a failed request's answer a failure line
// shows: enough for an error document's first error.
const bodyShown = 300

// readReport reads newman's JSON report. Each failure names the request as
// sent and its answer's status and start, since the assertion alone ("Status
// code is 2xx") does not say what went wrong; a test script that did not
// run (a SyntaxError) is a failure too.
func readReport(raw []byte) (*result, error) {
	var rep newmanReport
	if err := json.Unmarshal(raw, &rep); err != nil {
		return nil, fmt.Errorf("newman's report: %w", err)
	}
	r := &result{Requests: rep.Run.Stats.Requests.Total, Assertions: rep.Run.Stats.Assertions.Total}
	sent := map[string]string{}
	for _, ex := range rep.Run.Executions {
		var q []string
		for _, p := range ex.Request.URL.Query {
			if !p.Disabled {
				q = append(q, p.Key+"="+p.Value)
			}
		}
		line := ex.Request.Method + " /" + strings.Join(ex.Request.URL.Path, "/")
		if len(q) > 0 {
			line += "?" + strings.Join(q, "&")
		}
		body := make([]byte, 0, min(len(ex.Response.Stream.Data), bodyShown)+3)
		for _, b := range ex.Response.Stream.Data[:min(len(ex.Response.Stream.Data), bodyShown)] {
			body = append(body, byte(b))
		}
		if len(ex.Response.Stream.Data) > bodyShown {
			body = append(body, "..."...)
		}
		sent[ex.Item.ID] = fmt.Sprintf("%s -> %d %s", line, ex.Response.Code, body)
	}
	for _, f := range rep.Run.Failures {
		what := f.Error.Test
		if f.Error.Name != "AssertionError" || what == "" {
			what = fmt.Sprintf("%s (%s)", f.Source.Name, f.At)
		}
		r.Failures = append(r.Failures, fmt.Sprintf("%s: %s: %s\n    %s", what, f.Error.Name, f.Error.Message, sent[f.Source.ID]))
	}
	return r, nil
}
