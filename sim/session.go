package sim

import (
	"fmt"
	"slices"

	"github.com/parsleysim/parsleysim/node"
	"github.com/parsleysim/parsleysim/node/session"
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
// The tiers compute tokens and recorded pasts; the oracle keeps the ground truth beside them (the
// true past of every served projection, every session and every write) and the session checks
// (check_session.go) judge the tiers against it, never against what the tiers computed.

// SessionSpec declares a scenario's session clients and tiers.
type SessionSpec struct {
	// Clients is the number of session clients (at least 1).
	Clients int
	// Writes are the topics the write tier writes to; each must be an External topic.
	Writes []string
	// Models are the read models the read tier serves.
	Models []ReadModelSpec
	// TxnPct is the share of writes the write tier makes with its transactional producer, and
	// AbortPct the share of those whose transaction aborts (a failed write: the token is unchanged).
	TxnPct, AbortPct int
	// TokenEntriesMax and TokenBytesMax bound an inbound token (0: DefaultTokenEntriesMax and
	// DefaultTokenBytesMax). A token beyond them is refused like an undecodable one.
	TokenEntriesMax, TokenBytesMax int
	// Patience is how many unanswered reads in a row a client waits before it gives its session
	// up and starts a new one (0: DefaultSessionPatience).
	Patience int
	// HeldReadWeight, above 1, makes a read that many times likelier to pick a read model one of
	// whose running projectors holds records back (fed and kept through a drain) than another:
	// reads aimed at projections catching up with their inputs, the moments a recorded past is
	// easiest to get wrong. 0 or 1: every model equally likely.
	HeldReadWeight int
	// BrowseReadWeight, above 1, makes a client with no read owed (its last write is followed by
	// a served read) that many times likelier to make the next read than a client owing one:
	// clients browse the read models freely while a client the tier answered "retry" polls at the
	// base rate. 0 or 1: every client equally likely.
	BrowseReadWeight int
}

// ReadModelSpec declares one read model: per partition of the collection, the processes whose
// committed deliveries project it (its replicas, which lag each other as the schedule has it).
// A model with one partition is a single-partition read; more are a collection read gated on the
// meet of the partitions' recorded pasts.
type ReadModelSpec struct {
	Name       string
	Partitions [][]string
	// OwnCoordinatesOnly makes the projector record only each delivery's own coordinate (a
	// projector behind the handler seam, where the header is hidden, SPEC §5.3): it can never
	// cover a token naming a channel it does not deliver.
	OwnCoordinatesOnly bool
}

// SessionAction carries the parameters of a scripted or recorded session action (ActSessionWrite,
// ActSessionRead, ActTokenDamage). The write target is the action's Topic and Partition.
type SessionAction struct {
	Client  int
	Model   string      // read: the model read
	Replica int         // read: the replica tried first, per partition (modulo the replica count)
	Txn     bool        // write: through the transactional producer
	Commit  bool        // write with Txn: the transaction commits (false: it aborts)
	Damage  TokenDamage // token-damage: how the token in flight is damaged
}

// Defaults of SessionSpec.
const (
	DefaultTokenEntriesMax = 64
	DefaultTokenBytesMax   = 4096
	DefaultSessionPatience = 5
)

// validateSession checks the session declaration against the topics and processes.
func (s *Scenario) validateSession() error {
	ss := s.Session
	if ss == nil {
		return nil
	}
	if ss.Clients < 1 || len(ss.Writes) == 0 || len(ss.Models) == 0 {
		return fmt.Errorf("scenario %q: sessions need at least one client, written topic and read model", s.Name)
	}
	if ss.TxnPct < 0 || ss.TxnPct > 100 || ss.AbortPct < 0 || ss.AbortPct > 100 || ss.Patience < 0 ||
		ss.HeldReadWeight < 0 || ss.BrowseReadWeight < 0 {
		return fmt.Errorf("scenario %q: session percentages must lie in 0..100 and patience and read weights be >= 0", s.Name)
	}
	for _, name := range ss.Writes {
		i := slices.IndexFunc(s.Topics, func(t TopicSpec) bool { return t.Name == name })
		if i < 0 || !s.Topics[i].External {
			return fmt.Errorf("scenario %q: session write topic %q is not an external topic", s.Name, name)
		}
	}
	seen := map[string]bool{}
	for _, m := range ss.Models {
		if m.Name == "" || seen[m.Name] || len(m.Partitions) == 0 {
			return fmt.Errorf("scenario %q: read model %q has an empty or duplicate name or no partitions", s.Name, m.Name)
		}
		seen[m.Name] = true
		for _, replicas := range m.Partitions {
			if len(replicas) == 0 {
				return fmt.Errorf("scenario %q: read model %q has a partition without replicas", s.Name, m.Name)
			}
			for _, r := range replicas {
				if !slices.ContainsFunc(s.Processes, func(p ProcessSpec) bool { return p.Name == r }) {
					return fmt.Errorf("scenario %q: read model %q names unknown process %q", s.Name, m.Name, r)
				}
			}
		}
	}
	return nil
}

// sessionWorld is the run's session clients, tiers and projections, with the oracle's truth
// beside them. Everything is plain data in slices indexed by client, model and process, so a
// world hash can fold it in order.
type sessionWorld struct {
	w           *world
	spec        *SessionSpec
	mode        HostSabotage // the tier sabotage in force (HostHonest: honest tiers)
	writes      []int        // topic indexes the write tier writes, sorted
	clients     []sessionClient
	models      []readModel
	projections []*projection // by process index; nil for a process that projects nothing
	txn         substrate.TxnProducer
	nextSession int // the next session number handed out
	ops         int // operations performed (each write and read is one)
	entriesMax  int
	bytesMax    int
	patience    int
}

// sessionClient is one client: the token it holds and, for the oracle, what its current session
// truly wrote and observed.
type sessionClient struct {
	session int    // the current session's number
	token   []byte // the token the client holds, as the last tier minted it
	// damage, when not TokenIntact, is how the simulator will damage the token in flight on the
	// client's next request (the client does not know).
	damage  TokenDamage
	waiting int // reads in a row the read tier did not answer
	// reading is set by a write and cleared by a served read (or a new session): a client
	// alternates, reading after each write before it writes again.
	reading bool

	// Oracle: the session's true causal past (what a write it makes truly follows), its
	// committed acknowledged writes, and the rows every served read reflected.
	truth  node.Causes
	writes []sessionWriteOp
	reads  []sessionReadOp
}

// sessionWriteOp is a committed, acknowledged write of a session.
type sessionWriteOp struct {
	op  int
	uid uint64
}

// sessionReadOp is a served read: the rows (own coordinates) it reflected.
type sessionReadOp struct {
	op    int
	model string
	rows  node.Causes
}

// readModel is one read model with its replicas resolved to process indexes.
type readModel struct {
	spec       *ReadModelSpec
	partitions [][]int
}

// newSessionWorld builds the session actors of the scenario, or returns nil when it has none.
func newSessionWorld(w *world) *sessionWorld {
	spec := w.scn.Session
	if spec == nil {
		return nil
	}
	s := &sessionWorld{w: w, spec: spec, mode: w.opts.HostSabotage,
		writes: w.sortedTopicsOf(spec.Writes), projections: make([]*projection, len(w.procs)),
		entriesMax: orDefault(spec.TokenEntriesMax, DefaultTokenEntriesMax),
		bytesMax:   orDefault(spec.TokenBytesMax, DefaultTokenBytesMax),
		patience:   orDefault(spec.Patience, DefaultSessionPatience)}
	for i := range spec.Models {
		m := readModel{spec: &spec.Models[i]}
		for _, replicas := range m.spec.Partitions {
			var idx []int
			for _, name := range replicas {
				p := w.procByName(name)
				idx = append(idx, p.idx)
				if s.projections[p.idx] == nil {
					s.projections[p.idx] = &projection{ownOnly: m.spec.OwnCoordinatesOnly}
				}
			}
			m.partitions = append(m.partitions, idx)
		}
		s.models = append(s.models, m)
	}
	s.clients = make([]sessionClient, spec.Clients)
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

// newSession gives client c a fresh session: the empty token and an empty true past.
func (s *sessionWorld) newSession(c int) {
	cl := &s.clients[c]
	cl.session = s.nextSession
	s.nextSession++
	cl.token = session.None().Encode()
	cl.damage, cl.waiting, cl.reading = TokenIntact, 0, false
	cl.truth, cl.writes, cl.reads = node.Causes{}, nil, nil
}

// count adds n to the session counter name in the run's stats.
func (s *sessionWorld) count(name string) {
	st := &s.w.stats
	if st.Session == nil {
		st.Session = make(map[string]int)
	}
	st.Session[name]++
}
