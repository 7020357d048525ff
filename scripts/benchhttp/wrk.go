package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// findWrk returns wrk's path or says how to install it.
func findWrk() (string, error) {
	path, err := exec.LookPath("wrk")
	if err != nil {
		return "", errors.New("wrk is missing: install it (apt-get install wrk) and run again")
	}
	return path, nil
}

// request is what wrk sends: one method, the headers, and the paths it goes
// through in turn (one for a fixed target), each with its body (bodies: none,
// one for all, or one per path).
type request struct {
	method  string
	token   string // "" for no Authorization header
	bodies  []string
	targets []string
	// keyed: each request carries an Idempotency-Key of its own (unique
	// across threads, rounds and runs).
	keyed bool
}

// wrkMarker starts the line the script's done function prints.
const wrkMarker = "BENCHHTTP "

// luaScript is the wrk script of r: headers and body, the paths in turn (each
// thread starts at another one), and a done function printing the summary as
// one line of JSON after wrkMarker.
func luaScript(r request) string {
	var b strings.Builder
	fmt.Fprintf(&b, "wrk.method = %s\n", luaString(r.method))
	fmt.Fprintf(&b, "wrk.headers[\"Accept\"] = %s\n", luaString(jsonAPI))
	if r.token != "" {
		fmt.Fprintf(&b, "wrk.headers[\"Authorization\"] = %s\n", luaString("Bearer "+r.token))
	}
	if len(r.bodies) > 0 {
		fmt.Fprintf(&b, "wrk.headers[\"Content-Type\"] = %s\n", luaString(jsonAPI))
		fmt.Fprintf(&b, "wrk.body = %s\n", luaString(r.bodies[0]))
	}
	if r.keyed {
		fmt.Fprintf(&b, "local run = %s\n", luaString(strconv.FormatInt(time.Now().UnixNano(), 36)))
		b.WriteString(`local threads = 0
setup = function(thread)
  threads = threads + 1
  thread:set("id", threads)
end
local n = 0
request = function()
  n = n + 1
  local headers = {}
  for k, v in pairs(wrk.headers) do headers[k] = v end
  headers["Idempotency-Key"] = '"bench-' .. run .. '-' .. (id or 0) .. '-' .. n .. '"'
  return wrk.format(nil, nil, headers, nil)
end
`)
	} else if len(r.targets) > 1 {
		luaList(&b, "paths", r.targets)
		bodies := "nil"
		if len(r.bodies) == len(r.targets) {
			luaList(&b, "bodies", r.bodies)
			bodies = "bodies[i]"
		}
		b.WriteString(`local threads = 0
setup = function(thread)
  threads = threads + 1
  thread:set("first", threads * 7)
end
local n = 0
init = function(args)
  n = first or 0
end
request = function()
  n = n + 1
  local i = n % #paths + 1
  return wrk.format(nil, paths[i], nil, ` + bodies + `)
end
`)
	}
	b.WriteString(`done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('` + wrkMarker + `{"requests":%d,"duration_us":%d,"bytes":%d,"status_errors":%d,"connect_errors":%d,"read_errors":%d,"write_errors":%d,"timeouts":%d,"p50_us":%d,"p99_us":%d}\n',
    summary.requests, summary.duration, summary.bytes, e.status, e.connect, e.read, e.write, e.timeout,
    latency:percentile(50), latency:percentile(99)))
end
`)
	return b.String()
}

// luaList writes "local name = {...}" of these strings.
func luaList(b *strings.Builder, name string, items []string) {
	fmt.Fprintf(b, "local %s = {", name)
	for i, s := range items {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(luaString(s))
	}
	b.WriteString("}\n")
}

// luaString quotes s as a Lua string literal.
func luaString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, c := range []byte(s) {
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20 || c >= 0x7f:
			fmt.Fprintf(&b, "\\%03d", c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// wrkResult is one wrk run, as its done function reports it.
type wrkResult struct {
	Requests      int64 `json:"requests"`
	DurationUS    int64 `json:"duration_us"`
	Bytes         int64 `json:"bytes"`
	StatusErrors  int64 `json:"status_errors"` // answers with a status of 400 or more (wrk counts those)
	ConnectErrors int64 `json:"connect_errors"`
	ReadErrors    int64 `json:"read_errors"`
	WriteErrors   int64 `json:"write_errors"`
	Timeouts      int64 `json:"timeouts"`
	P50US         int64 `json:"p50_us"`
	P99US         int64 `json:"p99_us"`
}

// rate is requests per second.
func (r wrkResult) rate() float64 {
	if r.DurationUS <= 0 {
		return 0
	}
	return float64(r.Requests) / (float64(r.DurationUS) / 1e6)
}

// failures counts the requests that did not get a good answer.
func (r wrkResult) failures() int64 {
	return r.StatusErrors + r.ConnectErrors + r.ReadErrors + r.WriteErrors + r.Timeouts
}

// parseWrk finds the done function's line in wrk's output.
func parseWrk(out []byte) (wrkResult, error) {
	for line := range bytes.SplitSeq(out, []byte("\n")) {
		if rest, ok := bytes.CutPrefix(bytes.TrimSpace(line), []byte(wrkMarker)); ok {
			var r wrkResult
			if err := json.Unmarshal(rest, &r); err != nil {
				return r, fmt.Errorf("wrk summary %q: %w", rest, err)
			}
			return r, nil
		}
	}
	return wrkResult{}, fmt.Errorf("no %q line in wrk's output:\n%s", strings.TrimSpace(wrkMarker), out)
}

// wrkRunner runs wrk with the run's concurrency.
type wrkRunner struct {
	path        string
	dir         string // where the scripts go
	connections int
	threads     int
	scripts     int
}

// run sends r to base for d and returns wrk's summary.
func (w *wrkRunner) run(ctx context.Context, base string, r request, d time.Duration) (wrkResult, error) {
	w.scripts++
	script := filepath.Join(w.dir, "script"+strconv.Itoa(w.scripts)+".lua")
	if err := os.WriteFile(script, []byte(luaScript(r)), 0o600); err != nil {
		return wrkResult{}, err
	}
	defer os.Remove(script)
	seconds := max(1, int(d.Round(time.Second)/time.Second))
	cmd := exec.CommandContext(ctx, w.path, "-c", strconv.Itoa(w.connections), "-t", strconv.Itoa(w.threads),
		"-d", strconv.Itoa(seconds)+"s", "--timeout", "10s", "-s", script, base+r.targets[0])
	out, err := cmd.CombinedOutput()
	if err != nil {
		return wrkResult{}, fmt.Errorf("wrk %s: %w\n%s", r.targets[0], err, out)
	}
	return parseWrk(out)
}
