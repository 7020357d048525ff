package secret

import (
	"testing"

	"golang.org/x/crypto/bcrypt"
)

// TestCostIn: the minimum in a test binary, the default in any other.
func TestCostIn(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		testBinary bool
		want       int
	}{{true, bcrypt.MinCost}, {false, bcrypt.DefaultCost}} {
		if got := costIn(tc.testBinary); got != tc.want {
			t.Errorf("costIn(%v) = %d, want %d", tc.testBinary, got, tc.want)
		}
	}
}
