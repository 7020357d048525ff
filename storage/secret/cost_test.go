package secret_test

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"golang.org/x/crypto/bcrypt"

	"github.com/entityapi/entityapi/storage/secret"
)

// TestTestsHashAtMinimumCost: a test binary hashes at bcrypt's minimum, so
// that the suites' thousands of hashes and checks cost little.
func TestTestsHashAtMinimumCost(t *testing.T) {
	t.Parallel()
	hash, err := secret.Hash("a password")
	if err != nil {
		t.Fatal(err)
	}
	if cost, err := bcrypt.Cost([]byte(hash)); err != nil || cost != bcrypt.MinCost || secret.Cost() != bcrypt.MinCost {
		t.Errorf("in a test binary: hash cost %d (%v), Cost() %d; want %d", cost, err, secret.Cost(), bcrypt.MinCost)
	}
}

// TestBinaryHashesAtDefaultCost: an ordinary binary, as the service is built,
// hashes at bcrypt's default cost; the minimum is for test binaries only.
func TestBinaryHashesAtDefaultCost(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "run", "./testdata/cost").CombinedOutput()
	if err != nil {
		t.Fatalf("go run ./testdata/cost: %v\n%s", err, out)
	}
	want := fmt.Sprintf("%d %d", bcrypt.DefaultCost, bcrypt.DefaultCost)
	if got := strings.TrimSpace(string(out)); got != want {
		t.Errorf("a binary's Cost() and hash cost = %q, want %q", got, want)
	}
}
