package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestMakeRunSaysItBuilds: `make run` says it is building before it
// compiles (a newcomer's first build takes minutes, and `go run` showed
// nothing meanwhile), then builds, then serves the demo.
func TestMakeRunSaysItBuilds(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		if os.Getenv("CI") == "true" { // as server/cli's needCommand: CI must have it
			t.Fatal("make is not installed, and CI must have it")
		}
		t.Skip("make is not installed")
	}
	out, err := exec.Command("make", "--no-print-directory", "-n", "run").Output()
	if err != nil {
		t.Fatalf("make -n run: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	step := func(want func(string) bool) int {
		for i, l := range lines {
			if want(l) {
				return i
			}
		}
		return -1
	}
	says := step(func(l string) bool { return strings.HasPrefix(l, "echo ") && strings.Contains(l, "building") })
	builds := step(func(l string) bool {
		return !strings.HasPrefix(l, "echo ") && (strings.Contains(l, " build ") || strings.Contains(l, " run "))
	})
	serves := step(func(l string) bool { return strings.Contains(l, "serve --demo") && !strings.HasPrefix(l, "echo ") })
	if says != 0 || builds <= says || serves <= builds {
		t.Errorf("make run's steps: says it builds at %d, builds at %d, serves at %d; want 0 and in that order:\n%s", says, builds, serves, out)
	}
}
