package spec

import (
	"fmt"
	"slices"
)

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

// TokenDamage is how the simulator damages a token in flight. Every kind leaves bytes the strict
// decode refuses, so the simulator knows exactly which requests carried a damaged token.
type TokenDamage uint8

// The kinds of damage.
const (
	TokenIntact     TokenDamage = iota // no damage
	TokenTruncated                     // about half of the bytes after the version byte cut off
	TokenTrailing                      // one byte appended
	TokenBadVersion                    // the version byte overwritten with 0x63
	NumTokenDamages                    // the number of kinds above (not a damage)
)

// String names the damage ("truncated", "trailing-byte", "bad-version"; "intact").
func (d TokenDamage) String() string {
	switch d {
	case TokenTruncated:
		return "truncated"
	case TokenTrailing:
		return "trailing-byte"
	case TokenBadVersion:
		return "bad-version"
	}
	return "intact"
}
