package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync/atomic"
	"time"
)

// floorServer is a net/http server on a free loopback port in this process.
type floorServer struct {
	base string
	srv  *http.Server
}

func startFloor(h http.Handler) (*floorServer, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	f := &floorServer{base: "http://" + l.Addr().String(), srv: &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}}
	go func() {
		if err := f.srv.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
			fmt.Printf("benchhttp: floor %s: %v\n", f.base, err)
		}
	}()
	return f, nil
}

func (f *floorServer) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = f.srv.Shutdown(ctx)
}

// bytesHandler writes a captured answer: the HTTP stack's limit for it.
func bytesHandler(contentType string, body []byte) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", contentType)
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(body)
	})
}

// writeHandler is the write floor of a write target t, with events the
// write + event floor (each write also records its change event). It writes
// into turn's database of the moment: a create floor adds its rows there,
// an update floor updates the accounts of that database, which the
// measurement's requests name (system.ids, set with the turn).
func writeHandler(t target, turn *floorTurn, events bool) http.Handler {
	if !creates(t) {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			writeFloor{db: turn.db(), events: events}.update(w, r)
		})
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeFloor{db: turn.db(), events: events}.create(w, r)
	})
}

// creates tells whether the write target t adds a record with each request.
func creates(t target) bool { return t.name == "post" || t.name == "keyed" }

// floorTurn is the database a write floor writes into, changed between
// measurements (growingFloorDBs).
type floorTurn struct{ cur atomic.Pointer[floorDB] }

func newFloorTurn(db *floorDB) *floorTurn {
	t := &floorTurn{}
	t.set(db)
	return t
}

func (t *floorTurn) set(db *floorDB) { t.cur.Store(db) }
func (t *floorTurn) db() *floorDB    { return t.cur.Load() }

// dbHandler is the database floor of a read target t.
func dbHandler(t target, db *floorDB) http.Handler {
	read := readFloor{db}
	switch t.name {
	case "one":
		return http.HandlerFunc(read.country)
	case "list":
		return http.HandlerFunc(read.regions)
	case "filtered":
		return http.HandlerFunc(read.contactsFiltered)
	case "related":
		return http.HandlerFunc(read.contactsByOwner)
	case "search":
		return http.HandlerFunc(read.search)
	case "include":
		return http.HandlerFunc(read.contactsIncluded)
	}
	return nil
}
