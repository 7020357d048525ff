package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
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

// eventHandler is the write + event floor of a write target t: the write
// floor also recording each write's change event.
func eventHandler(t target, db *floorDB) http.Handler {
	f := writeFloor{db: db, events: true}
	if t.name == "post" || t.name == "keyed" {
		return http.HandlerFunc(f.create)
	}
	return http.HandlerFunc(f.update)
}

// dbHandler is the database floor (read targets) or write floor of t.
func dbHandler(t target, db *floorDB) http.Handler {
	read, write := readFloor{db}, writeFloor{db: db}
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
	case "post", "keyed":
		return http.HandlerFunc(write.create)
	case "patch":
		return http.HandlerFunc(write.update)
	}
	return nil
}
