//go:build race

package world

// raceEnabled says the tests run under the race detector, which makes the explorer about ten
// times slower: tests that exercise goroutines keep to their smaller cases, and sequential
// exploration tests that the plain run already covers skip.
const raceEnabled = true
