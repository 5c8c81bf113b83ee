package spec

import "fmt"

// Criterion names the property a violation breaks. The names are fixed: they
// appear in JSON output, replay files and catch-rate tables.
type Criterion string

// The criteria the oracle checks.
const (
	CritS1                  Criterion = "S1"                   // causal order, at delivery and over the lifetime
	CritS2                  Criterion = "S2"                   // no duplicate delivery in committed history
	CritS3                  Criterion = "S3"                   // per-channel FIFO
	CritS7                  Criterion = "S7"                   // no committed step read an undecodable header
	CritS8                  Criterion = "S8"                   // below log start fails closed; every committed record in the read range was fed
	CritS9                  Criterion = "S9"                   // no delivery past a held message on a deleted channel
	CritRecreation          Criterion = "RECREATION"           // no commit while receiving a dead incarnation
	CritStruct12            Criterion = "STRUCT12"             // no pair above the last assigned position (unless learned)
	CritStruct14            Criterion = "STRUCT14"             // no pair for the own channel at or above the own position
	CritStruct15            Criterion = "STRUCT15"             // every true cause expressed
	CritOverexpression      Criterion = "OVEREXPRESSION"       // nothing expressed beyond what was delivered or seen
	CritOverRefusal         Criterion = "OVER_REFUSAL"         // every refusal has an injected cause
	CritHost                Criterion = "HOST"                 // host obligations H1–H6
	CritLiveness            Criterion = "LIVENESS"             // every owed fed message delivered at quiescence
	CritRestartInvisibility Criterion = "RESTART_INVISIBILITY" // a clean restart changes no delivery sequence
	CritReference           Criterion = "REFERENCE"            // the engine agrees with the reference node at every call
)

// Violation is one broken property: the criterion, the scheduler step at which it was found, the
// process (-1 when not about one), and a detail naming the messages (uid, channel, position).
type Violation struct {
	Criterion Criterion `json:"criterion"`
	Step      int       `json:"step"`
	Process   int       `json:"process"`
	Detail    string    `json:"detail"`
	Msgs      []uint64  `json:"msgs,omitempty"` // uids of the messages involved, in the order Detail names them
}

// String renders the violation on one line.
func (v Violation) String() string {
	return fmt.Sprintf("%s at step %d, process %d: %s", v.Criterion, v.Step, v.Process, v.Detail)
}

// The session criteria (SPEC §5.4).
const (
	CritSessionRYW      Criterion = "SESSION_RYW"
	CritSessionMR       Criterion = "SESSION_MR"
	CritSessionWFR      Criterion = "SESSION_WFR"
	CritSessionCoverage Criterion = "SESSION_COVERAGE"
	CritSessionToken    Criterion = "SESSION_TOKEN"
	CritSessionDamaged  Criterion = "SESSION_DAMAGED"
)
