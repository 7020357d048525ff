package server_test

import (
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The clients of other languages, run on a refused body: each test runs a
// script of scripts/refusedbody that prints what its client read as JSON.

// TestRefusedBodyNodeFetch: Node's fetch (undici), sending a chunked body
// 6 MiB over --max-body and a batch with a 50 MiB item over
// --max-batch-item, reads the 413 document (scripts/refusedbody/fetch.mjs),
// within what the server discards (the route's limit and drainBytes):
// undici fails the request on the reset of a body left unread beyond that
// even when the answer had come. It passed before the discarding too (undici
// reads while it sends): it guards that answering first, discarding and
// closing keep it so. It needs node on PATH; without it the test is skipped
// (CI=true: it fails, as the TypeScript SDK's does).
func TestRefusedBodyNodeFetch(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("node is missing (%v); CI=true: a missing toolchain fails", err)
		}
		t.Skipf("node is missing (%v): Node's fetch is not tried", err)
	}
	script := filepath.Join("..", "scripts", "refusedbody", "fetch.mjs")
	eachAPI(t, func(t *testing.T, a *api) {
		for _, tc := range outsideClientCases {
			out, err := exec.Command(node, script, a.base+"/admin/api/accounts", a.token("admin"), tc.method,
				tc.head, strconv.Itoa(tc.mebibytes), tc.tail).Output()
			checkOutsideClient(t, "Node's fetch, "+tc.name, out, err, tc.detail)
		}
	})
}

// TestRefusedBodyPythonURLLib: Python's urllib, which sends its whole body
// before it reads the answer, reads the 413 document of a body 6 MiB over
// --max-body and of a batch with a 50 MiB item over --max-batch-item, sent
// with a Content-Length and chunked (scripts/refusedbody/urllib_client.py).
// It used to fail with "Connection reset by peer". Without python3 on PATH
// the test is skipped on a developer's machine and fails in CI.
func TestRefusedBodyPythonURLLib(t *testing.T) {
	python, err := exec.LookPath("python3")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("python3 is missing (%v); CI=true: a missing toolchain fails", err)
		}
		t.Skipf("python3 is missing (%v): urllib is not tried", err)
	}
	script := filepath.Join("..", "scripts", "refusedbody", "urllib_client.py")
	eachAPI(t, func(t *testing.T, a *api) {
		for _, tc := range outsideClientCases {
			for _, framing := range []string{"length", "chunked"} {
				out, err := exec.Command(python, script, a.base+"/admin/api/accounts", a.token("admin"), tc.method,
					tc.head, strconv.Itoa(tc.mebibytes), tc.tail, framing).Output()
				checkOutsideClient(t, "urllib, "+tc.name+", "+framing, out, err, tc.detail)
			}
		}
	})
}

// outsideClientCases are the refused requests the clients of other languages
// send: bodies made as they are sent, over the harness's --max-body (64 KiB)
// and the default --max-batch-item (1 MiB).
var outsideClientCases = []struct {
	name, method, head, tail, detail string
	mebibytes                        int
}{
	{name: "6 MiB over --max-body", method: http.MethodPost, mebibytes: 6,
		head: `{"data":{"type":"accounts","attributes":{"name":"`, tail: `"}}}`,
		detail: "The request body is larger than 65536 bytes."},
	{name: "a 50 MiB batch item over --max-batch-item", method: http.MethodPatch, mebibytes: 50,
		head: `{"data":[{"type":"accounts","attributes":{"name":"`, tail: `"}}]}`,
		detail: "The item is larger than 1048576 bytes."},
}

// checkOutsideClient checks what a client script printed: the 413 status and
// a document with detail, not an error.
func checkOutsideClient(t *testing.T, name string, out []byte, err error, detail string) {
	t.Helper()
	if err != nil {
		t.Errorf("%s: %v: %s", name, err, out)
		return
	}
	var got struct {
		Status int    `json:"status"`
		Body   string `json:"body"`
		Error  string `json:"error"`
		Cause  string `json:"cause"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Errorf("%s: %v: %s", name, err, out)
		return
	}
	if got.Status != http.StatusRequestEntityTooLarge || !strings.Contains(got.Body, detail) {
		t.Errorf("%s: read %d %q (error %q, cause %q), want 413 %q", name, got.Status, got.Body, got.Error, got.Cause, detail)
	}
}
