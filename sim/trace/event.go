package trace

import "github.com/parsleysim/parsleysim/sim/spec"

// Event is one entry of a run's trace: what the step did, when in virtual time, to whom. Every
// step appends events; each is folded into the run's running hash in a canonical encoding, so the
// same seed gives the same hash on every machine, GOMAXPROCS and -race.
//
// Fields that do not apply are zero (Process -1 when not about a process; Msg 0 when not about a
// message). Detail is a short human-readable rendering of anything else (a refusal reason and
// channel, a blocker list, a fault's target).
type Event struct {
	Step       int             `json:"step"`
	TimeMicros int64           `json:"time_us"`
	Action     spec.ActionKind `json:"-"`
	ActionName string          `json:"action"`
	Kind       string          `json:"kind"` // what happened: "fed", "held", "delivered", "sent", "committed", "refused", ...
	Process    int             `json:"process"`
	Topic      string          `json:"topic,omitempty"` // topic name
	Incarn     int             `json:"incarnation,omitempty"`
	Partition  int32           `json:"partition,omitempty"`
	Position   int64           `json:"position,omitempty"`
	Msg        uint64          `json:"msg,omitempty"` // the oracle's uid of the record
	Detail     string          `json:"detail,omitempty"`
}

// Sink receives every event of a run in order. The trace writer (JSON lines), the readable
// timeline (-v), the running hash and the space-time diagram are all sinks.
type Sink interface {
	Record(ev *Event)
}
