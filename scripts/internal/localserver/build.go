// Package localserver is what the measurement programs under scripts/
// (batchload, soak, benchhttp) share to run entityapi the way users do: a
// binary built from the checkout, `entityapi serve` on a free loopback port,
// a throwaway PostgreSQL database, the process's memory read from /proc, the
// demo client's token and the end of an asynchronous operation. One copy
// keeps their figures comparable: a fix to how the server is started, waited
// for or stopped reaches every program at once. Each program keeps its own
// flags, load and report. Linux only (it reads /proc).
package localserver

import (
	"context"
	"net"
	"os"
	"os/exec"
)

// GoCommand is the go tool to build with: $GO when set (make passes its own),
// else go on the PATH.
func GoCommand() string {
	if g := os.Getenv("GO"); g != "" {
		return g
	}
	return "go"
}

// Build runs `go build -o out target` in dir ("" for the current directory),
// its output on stderr so that a compile error shows. The caller wraps the
// error with what it was building.
func Build(ctx context.Context, dir, target, out string) error {
	cmd := exec.CommandContext(ctx, GoCommand(), "build", "-o", out, target)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	return cmd.Run()
}

// FreeAddr finds a free loopback port (host:port) for a server to listen on:
// several programs and engineers share the machine, so no port is fixed.
func FreeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}
