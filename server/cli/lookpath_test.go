package cli

import (
	"os"
	"os/exec"
	"testing"
)

// needCommand returns the path of an outside command a test runs. Without it
// the test is skipped on a developer's machine, naming the command, and fails
// in CI (CI=true), whose machine must have it: a skipped test there would
// pass without testing anything.
func needCommand(t *testing.T, name, why string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err == nil {
		return path
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s is not installed (%s), and CI must have it", name, why)
	}
	t.Skipf("%s is not installed (%s)", name, why)
	return ""
}
