// Package genfile runs a command that rewrites one generated Go file in
// place, as the steps of make generate after oapi-codegen do: one argument,
// the file; the rewritten text replaces it, or the command fails (exit 1)
// naming the file and leaves it as it was.
package genfile

import (
	"fmt"
	"os"
)

// Main runs rewrite on the file named by the command's one argument; name is
// the command's, for its messages.
func Main(name string, rewrite func(src []byte) ([]byte, error)) {
	if len(os.Args) != 2 {
		fmt.Fprintf(os.Stderr, "usage: %s <server.gen.go>\n", name)
		os.Exit(2)
	}
	if err := Rewrite(os.Args[1], rewrite); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		os.Exit(1)
	}
}

// Rewrite replaces the file at path with rewrite's answer for its text.
func Rewrite(path string, rewrite func(src []byte) ([]byte, error)) error {
	src, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	out, err := rewrite(src)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return os.WriteFile(path, out, 0o644)
}
