package spec

import (
	"errors"
	"fmt"
	"math"
	"slices"
)

// Scenario is a world built in Go: its topics, its processes (one Kafka-Streams-like task each,
// with received and sent topics and application logic) and optionally a fixed script of actions.
// Topics marked External are written by the external producers (plain, stamped by an observer
// of a committed record, corrupt) and are the only topics the delete/recreate faults touch
// (topics nobody sends to, as in the protocol's own simulator).
//
// When Script is non-empty, Run executes exactly those actions in order instead of asking the
// Chooser for a schedule (the Chooser still answers any sub-decision a scripted action leaves
// open), then runs the liveness phase if the settings give it a budget.
type Scenario struct {
	Name      string
	Topics    []TopicSpec
	Processes []ProcessSpec
	Script    []ScriptedAction

	// MetadataBudgetBytes is every engine's metadata budget; 0 means node's default (256 KiB).
	MetadataBudgetBytes int

	// Session, when set, adds session clients and the write and read tiers (SessionSpec).
	Session *SessionSpec
}

// TopicSpec declares a topic: its name, its partition count, and whether external producers
// write to it.
type TopicSpec struct {
	Name       string
	Partitions int
	External   bool
	// DeletionOnly marks an external topic whose only fail-closed fault is its deletion: no
	// corrupt record, truncation (delete-records or retention), recreation or redeclaration is
	// aimed at it or its receivers' declarations (the deletion quarry, sim/world/shape). A scenario adds
	// such a topic so that a deletion finds receivers still holding messages from it (the other
	// faults would have stopped them first) without taking receivers from the other faults; the
	// random scenario's deletion quarry is one.
	DeletionOnly bool
}

// Spares reports whether fault kind k is never aimed at the topic: every kind but its deletion,
// for a deletion-only topic (the deletion quarry, sim/world/shape).
func (s *TopicSpec) Spares(k ActionKind) bool { return s.DeletionOnly && k != ActDeleteTopic }

// ProcessSpec declares one process: a single Kafka-Streams-like task with its own consumer
// group, transactional producer and ordering state.
//
// The process receives partition Task of every received topic that has such a partition (SPEC
// §1.2: a task beyond a topic's width does not receive it). Handler is its application logic; nil
// means Forward: every delivery is forwarded to the sent topics while its hop count is below the
// bound.
type ProcessSpec struct {
	Name     string
	Task     int
	Receives []string
	Sends    []string
	// HopsMax bounds Forward: a delivered record that has travelled this many hops is not
	// forwarded. 0 means Settings.ForwardHopsMax (and 1 if that is 0 too).
	HopsMax int
	// FanoutOne makes Forward send each delivery to one sent topic (chosen by the key) instead
	// of all of them: damped forwarding for wide topologies.
	FanoutOne bool
	Handler   Handler
}

// Handler is application logic: given one delivered record it returns the emissions, each to one
// of the process's sent topics. It must be a deterministic function of its input. The returned
// byte slices are handed to the substrate and must not be modified afterwards.
type Handler func(in Delivered) []Emission

// Delivered is what application logic sees of one delivery.
type Delivered struct {
	Process   string
	Topic     string
	Partition int32
	Position  int64
	Key       []byte
	Value     []byte
	HopsMax   int // the forwarding bound in force
}

// Emission is one record application logic sends: to a sent topic, partitioned by key (the
// default Kafka partitioner's role, done here with a deterministic hash).
type Emission struct {
	Topic string
	Key   []byte
	Value []byte
}

// ScriptedAction is one step of a fixed script. Fields that do not apply to Kind are ignored;
// a field left empty is decided by the Chooser where the action needs it (for example which
// channel to feed when Topic is empty).
type ScriptedAction struct {
	Kind      ActionKind
	Process   string // the process acted on
	Topic     string // feed/produce/delete-records/delete/recreate/redeclare/rewind target
	Partition int32
	// Offset: delete-records "before" offset; rewind target offset.
	Offset int64
	// Calls: commit-crash crashes once the commit sequence has made this many substrate calls
	// (at least 1; more than the sequence has: after its last).
	Calls int
	// Key, Value: produce payload (nil draws from the payload stream).
	Key, Value []byte
	// Causes, when non-nil on a produce, is the exact frontier the record's parsley.causes
	// header expresses (topic names resolve to their current incarnation): a forged or
	// out-of-contract stamp for targeted scenarios. Header, when non-nil, is the raw header
	// value instead.
	Causes []CauseRef
	Header []byte
	// Headers, when non-nil on a produce-corrupt, are the record's parsley.causes header values
	// in order (a nil value is a null one): a chosen run records the corruption it drew here, so
	// the script replays it without drawing. A produce-corrupt without them writes 63 01 02 03.
	Headers [][]byte
	// Observe names the record a stamped producer read (ActProduceStamped).
	Observe CauseRef
	// ObserveIncarnation, when positive, is the incarnation of Observe.Topic the observed record
	// is on, counted from 1 (1: as first created, 2: after one recreation, ...); 0 means the
	// topic's current incarnation. A chosen run can stamp a record of a deleted or replaced
	// incarnation, which the topic name alone no longer resolves to.
	ObserveIncarnation int
	// Add: redeclare adds Topic (true) or removes it (false). Commit: txn-close commits (true)
	// or aborts (false).
	Add    bool
	Commit bool
	// Records is the number of records a txn-abort or txn-open writes; 0 means 1 (hand-written
	// scripts). A recorded script sets it to the count the chosen run drew, and the scripted
	// action then draws that count from the payload stream the same way, so every later payload
	// draw of the replay matches the chosen run's.
	Records int
	// Session carries a session action's parameters (ActSessionWrite, ActSessionRead,
	// ActTokenDamage); a write's target is Topic and Partition.
	Session *SessionAction
}

// CauseRef names a position on a topic-partition by topic name (current incarnation).
type CauseRef struct {
	Topic     string
	Partition int32
	Position  int64
}

// Validate reports the first structural error of the scenario, naming the bad input: duplicate
// or empty names, partitions < 1, a deletion-only topic that is not external, a process receiving
// or sending an unknown topic, an external topic some process sends to, scripted actions naming
// unknown processes or topics.
func (s *Scenario) Validate() error {
	if len(s.Topics) == 0 || len(s.Processes) == 0 {
		return fmt.Errorf("scenario %q: needs at least one topic and one process", s.Name)
	}
	if err := s.validateLimits(); err != nil {
		return err
	}
	topics := make(map[string]int, len(s.Topics))
	for i, t := range s.Topics {
		if t.Name == "" || t.Partitions < 1 {
			return fmt.Errorf("scenario %q: topic %d %q has an empty name or %d partitions", s.Name, i, t.Name, t.Partitions)
		}
		if _, dup := topics[t.Name]; dup {
			return fmt.Errorf("scenario %q: topic %q declared twice", s.Name, t.Name)
		}
		if t.DeletionOnly && !t.External {
			return fmt.Errorf("scenario %q: topic %q is deletion-only but not external (only external topics are deleted)", s.Name, t.Name)
		}
		topics[t.Name] = i
	}
	procs := make(map[string]bool, len(s.Processes))
	for _, p := range s.Processes {
		if err := s.validateProcess(p, topics, procs); err != nil {
			return err
		}
		procs[p.Name] = true
	}
	for i, a := range s.Script {
		if a.Kind >= NumActionKinds {
			return fmt.Errorf("scenario %q: script action %d has unknown kind %d", s.Name, i, a.Kind)
		}
		if a.Process != "" && !procs[a.Process] {
			return fmt.Errorf("scenario %q: script action %d (%s) names unknown process %q", s.Name, i, a.Kind, a.Process)
		}
		if _, ok := topics[a.Topic]; a.Topic != "" && !ok {
			return fmt.Errorf("scenario %q: script action %d (%s) names unknown topic %q", s.Name, i, a.Kind, a.Topic)
		}
		for _, c := range a.Causes {
			if c.Position < 0 || c.Position == math.MaxInt64 || c.Partition < 0 {
				return fmt.Errorf("scenario %q: script action %d (%s) names cause %s/%d@%d: a header carries positions 0..2^63-2 (write an undecodable one as Header)",
					s.Name, i, a.Kind, c.Topic, c.Partition, c.Position)
			}
		}
	}
	return s.validateSession()
}

// validateProcess checks one process declaration against the topics and earlier processes.
func (s *Scenario) validateProcess(p ProcessSpec, topics map[string]int, seen map[string]bool) error {
	if p.Name == "" || seen[p.Name] {
		return fmt.Errorf("scenario %q: process %q has an empty or duplicate name", s.Name, p.Name)
	}
	if p.Task < 0 {
		return fmt.Errorf("scenario %q: process %q has negative task %d", s.Name, p.Name, p.Task)
	}
	for _, r := range p.Receives {
		if _, ok := topics[r]; !ok {
			return fmt.Errorf("scenario %q: process %q receives unknown topic %q", s.Name, p.Name, r)
		}
	}
	for _, w := range p.Sends {
		i, ok := topics[w]
		if !ok {
			return fmt.Errorf("scenario %q: process %q sends to unknown topic %q", s.Name, p.Name, w)
		}
		if s.Topics[i].External {
			return fmt.Errorf("scenario %q: process %q sends to external topic %q", s.Name, p.Name, w)
		}
	}
	if slices.Contains(p.Sends, "") || hasDup(p.Sends) || hasDup(p.Receives) {
		return errors.New("scenario " + s.Name + ": process " + p.Name + " lists a topic twice")
	}
	return nil
}

func hasDup(names []string) bool {
	for i := range names {
		if slices.Contains(names[i+1:], names[i]) {
			return true
		}
	}
	return false
}
