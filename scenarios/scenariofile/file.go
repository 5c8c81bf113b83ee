package scenariofile

import (
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/swarm"
)

// Scenario files: a human-writable text form of a scripted scenario (topics, processes, a
// script of actions, expectations, and the recorded story of the run), in the spirit of
// cockroachdb/datadriven and etcd-io/raft's testdata. FORMAT.md beside this file is the
// reference; this file holds the parsed form.

// File is a parsed scenario file.
type File struct {
	Path     string
	Comments []string // the opening "#" lines, without the "#", telling the story
	Scenario *spec.Scenario
	Settings FileSettings
	// ActionLines[i] is the line of script action i.
	ActionLines []int
	Expects     []Expect
	// Story is the recorded story after the "----" line (nil when the file has none); StoryLine
	// is the line of the "----" separator (0 when absent).
	Story     []string
	StoryLine int
	// Body is the file's text up to (not including) the "----" line, kept for rewriting.
	Body string
}

// FileSettings are the run knobs a file may set on its "settings" line. Every field has a
// default (DefaultFileSettings), so most files need no settings line.
type FileSettings struct {
	Seed uint64 // the run seed: topic IDs (so drain order between channels), payloads of unlabelled records
	// Swarm, when non-zero, takes every setting from swarm.ExpandSettings(Swarm) before the
	// overrides below (what the shrinker writes so a reproduction keeps its seed's settings).
	Swarm            uint64
	LivenessStepsMax int   // the final phase's action budget; 0 switches it off
	StepMicros       int64 // every action's virtual duration
	RetentionMicros  int64 // time retention of external topics (0 = infinite)
	RetentionRecords int   // size retention of external topics in records (0 = infinite)
	HopsMax          int   // forwarding bound of processes without their own hops=
	BudgetBytes      int   // every engine's metadata budget (0 = node's default)
	// Given lists the keys the settings line set (the rest are defaults).
	Given map[string]bool
}

// DefaultFileSettings are the settings of a file without a settings line.
func DefaultFileSettings() FileSettings {
	return FileSettings{Seed: 1, LivenessStepsMax: 1000, StepMicros: 100, HopsMax: 8}
}

// Sim returns the swarm.Settings these file settings describe. Without Swarm every field applies;
// with Swarm the seed's expanded settings stand except the fields the file's settings line gave
// (Given). Weights and SafetySteps are zero: a scripted run schedules nothing.
func (fs FileSettings) Sim() swarm.Settings {
	var set swarm.Settings
	if fs.Swarm != 0 {
		set = swarm.ExpandSettings(fs.Swarm)
		set.Weights = [len(set.Weights)]uint32{}
		set.RestartCheck = swarm.RestartCheck{} // a file asks for restart checks where it wants them (expect restart-invisible)
	}
	set.Seed, set.SafetySteps = fs.Seed, 0
	apply := func(key string) bool { return fs.Swarm == 0 || fs.Given[key] }
	if apply("liveness") {
		set.LivenessStepsMax = fs.LivenessStepsMax
	}
	if apply("step-us") {
		for k := range set.DurationMicros {
			set.DurationMicros[k] = swarm.Range{Min: fs.StepMicros, Max: fs.StepMicros}
		}
	}
	if apply("retention-us") {
		set.RetentionMicros = fs.RetentionMicros
	}
	if apply("retention-records") {
		set.RetentionRecords = fs.RetentionRecords
	}
	if apply("hops") {
		set.ForwardHopsMax = fs.HopsMax
	}
	return set
}

// ExpectKind names what an expectation asserts.
type ExpectKind string

// The expectation kinds (FORMAT.md "Expectations").
const (
	ExpectDelivered        ExpectKind = "delivered"
	ExpectHeld             ExpectKind = "held"
	ExpectState            ExpectKind = "state"
	ExpectCauses           ExpectKind = "causes"
	ExpectRecord           ExpectKind = "record"
	ExpectVerdict          ExpectKind = "verdict"
	ExpectRestartInvisible ExpectKind = "restart-invisible"
)

// Expect is one "expect" line: checked right after the script action it follows (After; -1
// before any), like a datadriven directive's output, or at the end of the run (End) when it
// stands after the "liveness" line or asserts the verdict.
type Expect struct {
	Line  int
	Text  string // the line as written
	Kind  ExpectKind
	After int
	End   bool

	Process string // delivered, held, state, restart-invisible
	Refs    []Ref  // delivered: the exact sequence (empty: none)
	Record  Ref    // causes, record: the record; held: the head

	// held: None asserts nothing is held; otherwise the head's count (0: not asserted) and, when
	// BlockersGiven, its exact blockers in the rendered form (empty: deliverable).
	None          bool
	Count         int
	BlockersGiven bool
	Blockers      []string

	State  string // state: running, down or refused
	Reason string // state refused: the reason (empty: any)

	Causes []string // causes: the header's pairs as "chan@pos" (empty: none)

	Key, Value *string // record: the key, the value's label
	TSMicros   *int64  // record: the timestamp

	Verdict  string   // verdict: pass or violation
	Criteria []string // verdict violation: the criteria that must appear (empty: any)
}

// Ref names a record: by label (the value a script gave it), by coordinate
// (topic[#incarnation]/partition@offset), by both (coordinate:label), or by topic and label
// (topic:label).
type Ref struct {
	Text     string
	Label    string // "" when not given
	Topic    string // "" when not given
	Coord    bool   // Incarnation, Partition and Position are given
	Incarn   int
	Part     int32
	Position int64
}
