//go:build !race

package world

// raceEnabled: see race_on_test.go.
const raceEnabled = false
