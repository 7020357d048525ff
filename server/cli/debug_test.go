package cli

import (
	"net/http"
	"strings"
	"testing"
)

// TestDebugAddr: --debug-addr serves Go's profiles on its own address, and
// the public address never does.
func TestDebugAddr(t *testing.T) {
	addr, debugAddr := freeAddr(t), freeAddr(t)
	serveInProcess(t, "--addr", addr, "--debug-addr", debugAddr)
	if status, _ := getRetrying(t, "http://"+addr+"/healthz"); status != http.StatusOK {
		t.Fatalf("/healthz on --addr: %d", status)
	}
	if status, _ := getRetrying(t, "http://"+addr+"/debug/pprof/heap"); status != http.StatusNotFound {
		t.Errorf("/debug/pprof/heap on --addr: %d, want 404", status)
	}
	status, body := getRetrying(t, "http://"+debugAddr+"/debug/pprof/heap?debug=1")
	if status != http.StatusOK || !strings.Contains(body, "heap profile:") {
		t.Errorf("/debug/pprof/heap on --debug-addr: %d\n%.300s", status, body)
	}
	if status, body := getRetrying(t, "http://"+debugAddr+"/debug/pprof/"); status != http.StatusOK || !strings.Contains(body, "goroutine") {
		t.Errorf("/debug/pprof/ on --debug-addr: %d\n%.300s", status, body)
	}
}
