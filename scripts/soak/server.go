package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// readyAfter bounds the wait for migrations and demo data on a fresh database.
const readyAfter = 3 * time.Minute

// server is a running `entityapi serve --demo`, built from this checkout the
// way users start it (the approach of scripts/batchload).
type server struct {
	cmd     *exec.Cmd
	exited  chan error
	logPath string
	base    string
}

// startServer builds the binary into dir and starts it on a free loopback
// port on databaseURL, with demo data and a token lifetime longer than any soak.
func startServer(ctx context.Context, dir, databaseURL string) (*server, error) {
	bin := filepath.Join(dir, "entityapi")
	build := exec.CommandContext(ctx, goCommand(), "build", "-o", bin, "github.com/entityapi/entityapi")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return nil, fmt.Errorf("go build: %w", err)
	}
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	s := &server{exited: make(chan error, 1), logPath: filepath.Join(dir, "server.log"), base: "http://" + addr}
	logFile, err := os.Create(s.logPath)
	if err != nil {
		return nil, err
	}
	defer logFile.Close() // the child has its own descriptor
	s.cmd = exec.Command(bin, "serve", "--demo", "--data-dir", filepath.Join(dir, "data"), "--addr", addr,
		"--database-url", databaseURL, "--token-ttl", "86400")
	s.cmd.Stdout, s.cmd.Stderr = logFile, logFile
	if err := s.cmd.Start(); err != nil {
		return nil, err
	}
	go func() { s.exited <- s.cmd.Wait() }()
	if err := s.awaitReady(ctx); err != nil {
		s.stop(true)
		return nil, err
	}
	return s, nil
}

func (s *server) pid() int { return s.cmd.Process.Pid }

// awaitReady waits for /readyz to answer 200.
func (s *server) awaitReady(ctx context.Context) error {
	deadline := time.Now().Add(readyAfter)
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.base+"/readyz", nil)
		if res, err := http.DefaultClient.Do(req); err == nil {
			_, _ = io.Copy(io.Discard, res.Body)
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case err := <-s.exited:
			s.exited <- err
			return fmt.Errorf("the server exited: %v", err)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the server was not ready after %s", readyAfter)
		}
	}
}

// stop ends the server with SIGTERM (SIGKILL after 20 s) and, after a
// failure, prints the end of its log.
func (s *server) stop(failed bool) {
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
	case <-time.After(20 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.exited
	}
	if !failed {
		return
	}
	raw, err := os.ReadFile(s.logPath)
	if err != nil {
		return
	}
	if len(raw) > 4000 {
		raw = raw[len(raw)-4000:]
	}
	fmt.Fprintf(os.Stderr, "--- end of the server log ---\n%s\n", raw)
}

func goCommand() string {
	if g := os.Getenv("GO"); g != "" {
		return g
	}
	return "go"
}

// freeAddr finds a free loopback port.
func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// throwawayDatabase creates a database of a random name on admin's server and
// returns its URL, a function that drops it, and the server's version.
func throwawayDatabase(ctx context.Context, admin string) (dbURL string, drop func() error, version string, err error) {
	u, err := url.Parse(admin)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return "", nil, "", errors.New("TEST_DATABASE_URL must be a postgres:// URL")
	}
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	name := "entityapi_soak_" + hex.EncodeToString(b)
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(cctx, admin)
	if err != nil {
		return "", nil, "", fmt.Errorf("postgres admin connection: %w", err)
	}
	defer conn.Close(context.Background())
	if err := conn.QueryRow(cctx, "SHOW server_version").Scan(&version); err != nil {
		return "", nil, "", err
	}
	if _, err := conn.Exec(cctx, "CREATE DATABASE "+name); err != nil {
		return "", nil, "", fmt.Errorf("CREATE DATABASE %s: %w", name, err)
	}
	drop = func() error { return adminExec(admin, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)") }
	u.Path = "/" + name
	return u.String(), drop, strings.Fields(version)[0], nil
}

func adminExec(admin, stmt string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		return fmt.Errorf("postgres admin connection: %w", err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, stmt); err != nil {
		return fmt.Errorf("%s: %w", stmt, err)
	}
	return nil
}
