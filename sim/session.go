package sim

import (
	"github.com/parsleysim/parsleysim/node/session"
	"github.com/parsleysim/parsleysim/sim/oracle"
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/substrate"
)

// Session clients and tiers as simulated actors (SPEC §5: docs/PROTOCOL.md).
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

// sessionWorld is the run's session clients, tiers and projections, with the oracle's truth
// beside them. Everything is plain data in slices indexed by client, model and process, so a
// world hash can fold it in order.
type sessionWorld struct {
	w           *world
	spec        *spec.SessionSpec
	mode        spec.HostSabotage // the tier sabotage in force (HostHonest: honest tiers)
	writes      []int             // topic indexes the write tier writes, sorted
	clients     []sessionClient
	models      []readModel
	projections []*projection // by process index; nil for a process that projects nothing
	txn         substrate.TxnProducer
	nextSession int // the next session number handed out
	ops         int // operations performed (each write and read is one)
	entriesMax  int
	bytesMax    int
	patience    int
	// truth is the oracle's truth of the sessions, which the tiers hand their events.
	truth oracle.Sessions
}

// sessionClient is one client: the token it holds.
type sessionClient struct {
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

// newSessionWorld builds the session actors of the scenario, or returns nil when it has none.
func newSessionWorld(w *world) *sessionWorld {
	ss := w.scn.Session
	if ss == nil {
		return nil
	}
	s := &sessionWorld{w: w, spec: ss, mode: w.opts.HostSabotage,
		writes: w.sortedTopicsOf(ss.Writes), projections: make([]*projection, len(w.procs)),
		entriesMax: orDefault(ss.TokenEntriesMax, spec.DefaultTokenEntriesMax),
		bytesMax:   orDefault(ss.TokenBytesMax, spec.DefaultTokenBytesMax),
		patience:   orDefault(ss.Patience, spec.DefaultSessionPatience),
		truth:      oracle.NewSessions(ss.Clients, len(w.procs))}
	for i := range ss.Models {
		m := readModel{spec: &ss.Models[i]}
		for _, replicas := range m.spec.Partitions {
			var idx []int
			for _, name := range replicas {
				p := w.procByName(name)
				idx = append(idx, p.idx)
				if s.projections[p.idx] == nil {
					s.projections[p.idx] = &projection{ownOnly: m.spec.OwnCoordinatesOnly}
					s.truth.AddProjector(p.idx, p.spec.Name)
				}
			}
			m.partitions = append(m.partitions, idx)
		}
		s.models = append(s.models, m)
	}
	s.clients = make([]sessionClient, ss.Clients)
	for i := range s.clients {
		s.newSession(i)
	}
	txn, err := w.sub.InitTransactions("session-write-tier")
	must(err)
	s.txn = txn
	return s
}

func orDefault(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}

// newSession gives client c a fresh session: the empty token, and for the oracle a session
// that has written and observed nothing.
func (s *sessionWorld) newSession(c int) {
	cl := &s.clients[c]
	cl.session = s.nextSession
	s.nextSession++
	cl.token = session.None().Encode()
	cl.damage, cl.waiting, cl.reading = spec.TokenIntact, 0, false
	s.w.or.OnSessionStarted(&s.truth, c, cl.session)
}

// count adds n to the session counter name in the run's stats.
func (s *sessionWorld) count(name string) {
	st := &s.w.stats
	if st.Session == nil {
		st.Session = make(map[string]int)
	}
	st.Session[name]++
}
