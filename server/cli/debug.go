package cli

import (
	"net/http"
	"net/http/pprof"
	"time"
)

// debugServer serves Go's runtime profiles on --debug-addr, an address of
// their own, so that an operator can take a heap or CPU profile of a
// running process (docs/production.md, "Profiles") without exposing them on
// the public address: a profile shows the process's internals, and a CPU
// profile holds a request for as long as it asks (?seconds=N, up to the
// write timeout below).
func debugServer(addr string) *http.Server {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return &http.Server{Addr: addr, Handler: mux, ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout: 30 * time.Second, WriteTimeout: 5 * time.Minute, IdleTimeout: 120 * time.Second}
}
