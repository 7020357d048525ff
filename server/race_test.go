//go:build race

package server_test

// raceEnabled tells tests that count allocations that the race detector is
// on: it allocates on its own, so their bounds do not hold.
const raceEnabled = true
