// Package trace holds a run's trace: the Event each step appends, the Sink interface every event
// goes to, and the sinks themselves (the running FNV-1a hash over a canonical encoding, JSON
// lines, the readable timeline, a collector), with the determinism check that runs a seed twice
// and names the first event that differs. The hash is the run's fingerprint: the same seed gives
// the same hash on every machine, GOMAXPROCS and -race.
package trace
