//go:build !race

package server_test

// raceEnabled: see race_test.go.
const raceEnabled = false
