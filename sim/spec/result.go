package spec

import "slices"

// Result is the outcome of a run.
type Result struct {
	Seed       uint64
	Verdict    string // "pass" or "violation"
	Violations []Violation
	Stats      Stats
	Steps      int
	Choices    []int // every answer the Chooser gave, in order (for replay and shrinking)
	// Deliveries lists, per process, the uids of its committed first deliveries in delivery
	// order (the metamorphic restart check compares them).
	Deliveries [][]uint64 `json:"-"`
	// Script is the safety phase as a script, when the run was asked to record it
	// (sim.RunOptions.RecordScript).
	Script []ScriptedAction `json:"-"`
}

// Stats are what a run exercised: counts of what happened (committed deliveries, holds, holds
// released in a later action, refusals by reason, crashes, rollbacks, recreations, truncations,
// aborted transactions, ...) and the virtual-time figures: hold and end-to-end latency and
// deliveries per virtual second.
type Stats struct {
	Actions      [NumActionKinds]int `json:"-"`
	Deliveries   int                 `json:"deliveries"`
	Holds        int                 `json:"holds"`
	HeldReleased int                 `json:"held_then_released"` // delivered after surviving a drain (or a restart) held back
	Duplicates   int                 `json:"duplicates_dropped"`
	Sent         int                 `json:"sent"`
	Produced     int                 `json:"produced"`
	Corrupt      int                 `json:"corrupt_produced"`
	Commits      int                 `json:"commits"`
	Starts       int                 `json:"starts"`
	Stops        int                 `json:"stops"`
	Crashes      int                 `json:"crashes"`
	Rollbacks    int                 `json:"rollbacks"`
	Rewinds      int                 `json:"rewinds"`
	Truncations  int                 `json:"truncations"`
	Retentions   int                 `json:"retention_sweeps"`
	Deletions    int                 `json:"topic_deletions"`
	Recreations  int                 `json:"recreations"`
	Redeclares   int                 `json:"redeclarations"`
	Migrations   int                 `json:"migrations"`
	Zombies      int                 `json:"zombies_fenced"`
	AbortedTxns  int                 `json:"aborted_txns"`
	OpenTxns     int                 `json:"open_txns"`
	// RestartChecks counts the RESTART_INVISIBILITY checks the run made (sim/world/check_restart.go): 1
	// when its settings asked for one and the drawn process was restartable from the drawn point.
	RestartChecks int `json:"restart_checks"`
	// CommitCrashes counts the crashes inside a commit sequence (sim/world/host_commit.go).
	CommitCrashes int `json:"commit_crashes"`

	// CorruptDecodable counts the corrupt records whose headers the reference decoder reads:
	// near misses, which are forged records judged by what they say.
	CorruptDecodable int `json:"corrupt_decodable"`
	// Refusals counts refusals by reason name.
	Refusals map[string]int `json:"refusals"`
	// Session counts the session actors' work by name (writes, writes_aborted, reads,
	// reads_served, reads_redirected, reads_retry, token_refused, sessions_abandoned,
	// tokens_damaged, damaged_sent); nil without sessions.
	Session map[string]int `json:"session,omitempty"`

	SafetySteps   int   `json:"safety_steps"`
	LivenessSteps int   `json:"liveness_steps"`
	EndMicros     int64 `json:"end_us"`
	// DeliveriesPerVirtualSecond is committed deliveries per second of virtual time.
	DeliveriesPerVirtualSecond float64      `json:"deliveries_per_virtual_s"`
	HoldLatency                LatencyStats `json:"hold_latency"`
	EndToEndLatency            LatencyStats `json:"end_to_end_latency"`
}

// RefusalReasons returns the refusal reasons seen, sorted (for printing).
func (s *Stats) RefusalReasons() []string {
	out := make([]string, 0, len(s.Refusals))
	for r := range s.Refusals {
		out = append(out, r)
	}
	slices.Sort(out)
	return out
}

// LatencyStats summarises a latency distribution in virtual microseconds (nearest-rank
// percentiles).
type LatencyStats struct {
	Count      int   `json:"count"`
	MeanMicros int64 `json:"mean_us"`
	P50Micros  int64 `json:"p50_us"`
	P99Micros  int64 `json:"p99_us"`
	MaxMicros  int64 `json:"max_us"`
}
