// Package tiers simulates the session actors of a run (SPEC §5: docs/PROTOCOL.md): the session
// clients, the write tier, the read tier serving read models, and the projections Parsley
// processes feed.
//
// A session client holds a CausalPast token (as encoded bytes) and alternates writes and reads.
// The write tier validates and bounds the inbound token, produces the record with the token's
// pairs as its parsley.causes, and merges into the token only the coordinate the broker
// acknowledged (for a transactional write, only after the commit). The read tier serves read
// models: projections fed by Parsley processes, each row recording the delivered message's own
// coordinate plus its carried causes. It serves only when the recorded past covers the token,
// otherwise it redirects to a caught-up replica or answers "retry" (the client's bounded wait:
// after Patience unanswered reads it gives the session up and starts a new one). A collection
// spanning partitions gates on the meet of the partitions' recorded pasts.
//
// The tiers compute tokens and recorded pasts; the oracle keeps the ground truth beside them
// (oracle.Sessions: the true past of every served projection, every session and every write),
// fed by the session events the tiers hand it, and its session checkers judge the tiers against
// it, never against what the tiers computed.
//
// The actors reach the world they run in through Host (the chooser, the clock and the trace, the
// channels and the processes), the oracle and the substrate, which New and Clone are given; they
// name topics and processes by their indexes in the scenario and channels by the world's channel
// index, as the oracle does. Their part of the world's canonical state is AppendCanonical.
package tiers

import (
	"fmt"
	"slices"

	"github.com/parsleysim/parsleysim/node"
	"github.com/parsleysim/parsleysim/node/session"
	"github.com/parsleysim/parsleysim/sim/choose"
	"github.com/parsleysim/parsleysim/sim/oracle"
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/substrate"
)

// Host is the world the session actors run in, as they reach it.
type Host interface {
	// Choose picks one of len(weights) options by the run's chooser under label.
	Choose(label string, weights []uint32) int
	// ChooseFrom is Choose over the list o stands for.
	ChooseFrom(label string, o choose.Options) int
	// Record appends an action the scheduler chose to the run's recorded script.
	Record(a spec.ScriptedAction)

	// At dates an event: the step and the virtual time now.
	At() oracle.At
	// Tracing reports whether the run is traced; the actors build an event's detail only then.
	Tracing() bool
	// Emit traces an event about process proc (-1: none).
	Emit(kind string, proc int, detail string)
	// EmitChan traces an event about position pos (and message uid) of channel ch.
	EmitChan(kind string, ch int32, pos int64, uid uint64, detail string)
	// Count adds one to the run's session counter name (spec.Stats.Session).
	Count(name string)

	// LiveChannel returns the channel of partition part of topic t's live incarnation, or -1
	// when t is deleted or has no such partition.
	LiveChannel(t, part int) int32
	// HighWatermark returns the substrate's high watermark of live channel ch.
	HighWatermark(ch int32) int64
	// Payload draws a record's key and value from the run's payload stream.
	Payload() (key, value []byte)
	// Produced tells the world the write tier produced message uid at position pos of channel
	// ch, committed (a plain write, or a transaction's commit) or not (an aborted transaction),
	// after the oracle heard of it: the world's produce count, its committed records stamped
	// producers observe, the channel's offsets and the trace follow.
	Produced(ch int32, pos int64, uid uint64, committed bool)

	// HoldsBack reports whether process p runs and holds a record back: one fed before its
	// latest drain and still undelivered.
	HoldsBack(p int) bool
	// Frontier returns process p's engine's frontier.
	Frontier(p int) node.Causes
}

// Actors is the run's session clients, tiers and projections, with the oracle's truth beside
// them. Everything is plain data in slices indexed by client, model and process, so a world hash
// can fold it in order.
type Actors struct {
	host        Host
	or          *oracle.Oracle
	sub         substrate.Substrate
	scn         *spec.Scenario
	spec        *spec.SessionSpec
	mode        spec.HostSabotage // the tier sabotage in force (HostHonest: honest tiers)
	writes      []int             // topic indexes the write tier writes, sorted
	clients     []client
	models      []readModel
	projections []*projection // by process index; nil for a process that projects nothing
	txn         substrate.TxnProducer
	nextSession int // the next session number handed out
	ops         int // operations performed (each write and read is one)
	entriesMax  int
	bytesMax    int
	patience    int
	weights     choose.Weights // scratch weights of the actors' choices
	// truth is the oracle's truth of the sessions, which the tiers hand their events.
	truth oracle.Sessions
}

// client is one session client: the token it holds.
type client struct {
	session int    // the current session's number
	token   []byte // the token the client holds, as the last tier minted it
	// damage, when not TokenIntact, is how the simulator will damage the token in flight on the
	// client's next request (the client does not know).
	damage  spec.TokenDamage
	waiting int // reads in a row the read tier did not answer
	// reading is set by a write and cleared by a served read (or a new session): a client
	// alternates, reading after each write before it writes again.
	reading bool
}

// readModel is one read model with its replicas resolved to process indexes.
type readModel struct {
	spec       *spec.ReadModelSpec
	partitions [][]int
}

// New builds the session actors of scenario scn (validated) under tier sabotage mode, or returns
// nil when it has none. Their write tier registers its transactional producer with sub.
func New(scn *spec.Scenario, mode spec.HostSabotage, or *oracle.Oracle, sub substrate.Substrate, h Host) (*Actors, error) {
	ss := scn.Session
	if ss == nil {
		return nil, nil
	}
	s := &Actors{host: h, or: or, sub: sub, scn: scn, spec: ss, mode: mode,
		writes: topicsOf(scn, ss.Writes), projections: make([]*projection, len(scn.Processes)),
		entriesMax: orDefault(ss.TokenEntriesMax, spec.DefaultTokenEntriesMax),
		bytesMax:   orDefault(ss.TokenBytesMax, spec.DefaultTokenBytesMax),
		patience:   orDefault(ss.Patience, spec.DefaultSessionPatience),
		truth:      oracle.NewSessions(ss.Clients, len(scn.Processes))}
	for i := range ss.Models {
		m := readModel{spec: &ss.Models[i]}
		for _, replicas := range m.spec.Partitions {
			var idx []int
			for _, name := range replicas {
				p := processIndex(scn, name)
				if p < 0 {
					return nil, fmt.Errorf("tiers: read model %q names %q, which is no process of the scenario", m.spec.Name, name)
				}
				idx = append(idx, p)
				if s.projections[p] == nil {
					s.projections[p] = &projection{ownOnly: m.spec.OwnCoordinatesOnly}
					s.truth.AddProjector(p, name)
				}
			}
			m.partitions = append(m.partitions, idx)
		}
		s.models = append(s.models, m)
	}
	s.clients = make([]client, ss.Clients)
	for i := range s.clients {
		s.newSession(i)
	}
	txn, err := sub.InitTransactions("session-write-tier")
	if err != nil {
		return nil, fmt.Errorf("tiers: the write tier's transactional producer: %w", err)
	}
	s.txn = txn
	return s, nil
}

// topicsOf returns the indexes of the scenario's topics named (unknown names dropped), sorted.
func topicsOf(scn *spec.Scenario, names []string) []int {
	out := make([]int, 0, len(names))
	for _, n := range names {
		if t := slices.IndexFunc(scn.Topics, func(ts spec.TopicSpec) bool { return ts.Name == n }); t >= 0 {
			out = append(out, t)
		}
	}
	slices.Sort(out)
	return out
}

// processIndex returns the index of the named process in the scenario, or -1.
func processIndex(scn *spec.Scenario, name string) int {
	for i := range scn.Processes {
		if scn.Processes[i].Name == name {
			return i
		}
	}
	return -1
}

func orDefault(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}

// newSession gives client c a fresh session: the empty token, and for the oracle a session
// that has written and observed nothing.
func (s *Actors) newSession(c int) {
	cl := &s.clients[c]
	cl.session = s.nextSession
	s.nextSession++
	cl.token = session.None().Encode()
	cl.damage, cl.waiting, cl.reading = spec.TokenIntact, 0, false
	s.or.OnSessionStarted(&s.truth, c, cl.session)
}

// must panics on an unexpected substrate error: the write tier only makes calls that are valid.
func must(err error) {
	if err != nil {
		panic(fmt.Sprintf("tiers: unexpected substrate error: %v", err))
	}
}
