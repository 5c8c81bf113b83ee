package spec

import (
	"fmt"
	"strings"

	"github.com/parsleysim/parsleysim/node"
)

// HostSabotage selects a deliberate fault of the simulated host or of a session tier, like
// node.Sabotage for the engine: it exists only to prove the checkers bite. The zero value is the
// honest host.
type HostSabotage uint8

const (
	// HostHonest is the honest host.
	HostHonest HostSabotage = iota
	// HostResetPastLogStart resets a fetch below the log start to the log start instead of failing
	// closed (auto.offset.reset=earliest), silently skipping unread records.
	HostResetPastLogStart
	// HostStateBeforeCommit writes a step's ordering state to the state store by itself before
	// the step's transaction commits (a state store flushed before the commit), so a crash
	// between the two leaves the state of a step that never committed (sim/world/host_commit.go).
	HostStateBeforeCommit
	// HostStateAfterCommit writes a step's ordering state to the state store by itself after the
	// step's transaction committed, so a crash between the two loses the state of a step that
	// committed.
	HostStateAfterCommit
	// HostOffsetsOutsideTxn commits a step's read positions with a plain offset commit before its
	// transaction instead of sending them into it, so a crash before the transaction commits (or a
	// zombie, whose offset commit no fence stops) skips records the step was fed.
	HostOffsetsOutsideTxn
	// HostZombieIgnoresFence takes a commit its fenced producer refused for done and writes the
	// step's ordering state anyway: a zombie's step reaches the state store.
	HostZombieIgnoresFence
)

// The session tiers' sabotage modes: deliberate faults of the write tier, the read tier and the
// projector that exist only to prove the session checks bite. They are HostSabotage values (the
// tiers belong to the simulated environment around the nodes, as the host does), registered with
// their names in SabotageModes, so --sabotage selects them like the engine's and the host's modes.
const (
	// SessionReadSkipsUnknownChannels makes the read tier use the delivery gate's disposition:
	// a token channel the recorded past never recorded is skipped instead of failing coverage.
	SessionReadSkipsUnknownChannels HostSabotage = iota + 16
	// SessionWriteMergesLogEnd makes the write tier merge the high watermark read after the
	// acknowledgement instead of the acknowledged offset.
	SessionWriteMergesLogEnd
	// SessionWriteMergesBeforeCommit makes the write tier merge a transactional write's offset
	// before its transaction commits (and keep it when the transaction aborts).
	SessionWriteMergesBeforeCommit
	// SessionTokenSalvage makes both tiers salvage a damaged token to the pairs before the damage
	// and use it, instead of refusing it.
	SessionTokenSalvage
	// SessionProjectorRecordsFrontier makes the projector record the engine's frontier snapshot
	// beside each row instead of the row's own coordinate and carried causes.
	SessionProjectorRecordsFrontier
)

// SabotageTier is the part of the system a sabotage mode breaks.
type SabotageTier uint8

// The tiers, in the order SabotageModes lists their modes.
const (
	TierEngine  SabotageTier = iota + 1 // the Parsley engine (node.Sabotage)
	TierHost                            // the simulated host (HostSabotage)
	TierSession                         // a session tier: the write tier, the read tier, the projector (HostSabotage)
)

// SabotageMode is one deliberate fault, by name, with the tier it breaks and the value that
// selects it in RunOptions: Engine for an engine mode, Host for a host or session tier mode.
type SabotageMode struct {
	Name   string
	Tier   SabotageTier
	Engine node.Sabotage
	Host   HostSabotage
}

// sabotageModes is the registry: every sabotage mode of every tier, engine modes in node's order,
// then the host's and the session tiers', each in their documented order.
var sabotageModes = func() []SabotageMode {
	var modes []SabotageMode
	for _, m := range node.SabotageModes() {
		modes = append(modes, SabotageMode{Name: m.String(), Tier: TierEngine, Engine: m})
	}
	for _, m := range []struct {
		name string
		mode HostSabotage
	}{
		{"RESET_PAST_LOG_START", HostResetPastLogStart},
		{"STATE_BEFORE_COMMIT", HostStateBeforeCommit},
		{"STATE_AFTER_COMMIT", HostStateAfterCommit},
		{"OFFSETS_OUTSIDE_TXN", HostOffsetsOutsideTxn},
		{"ZOMBIE_IGNORES_FENCE", HostZombieIgnoresFence},
	} {
		modes = append(modes, SabotageMode{Name: m.name, Tier: TierHost, Host: m.mode})
	}
	for _, m := range []struct {
		name string
		mode HostSabotage
	}{
		{"READ_SKIPS_UNKNOWN_CHANNELS", SessionReadSkipsUnknownChannels},
		{"WRITE_MERGES_LOG_END", SessionWriteMergesLogEnd},
		{"WRITE_MERGES_BEFORE_COMMIT", SessionWriteMergesBeforeCommit},
		{"TOKEN_SALVAGE", SessionTokenSalvage},
		{"PROJECTOR_RECORDS_FRONTIER", SessionProjectorRecordsFrontier},
	} {
		modes = append(modes, SabotageMode{Name: m.name, Tier: TierSession, Host: m.mode})
	}
	return modes
}()

// SabotageModes returns every sabotage mode of every tier: the one list the command line, the
// sweeps, the catch-rate tables and simrun list read. Engine modes come first in node's order,
// then the host's, then the session tiers'.
func SabotageModes() []SabotageMode {
	return append([]SabotageMode(nil), sabotageModes...)
}

// LookupSabotage returns the sabotage mode named name.
func LookupSabotage(name string) (SabotageMode, bool) {
	for _, m := range sabotageModes {
		if m.Name == name {
			return m, true
		}
	}
	return SabotageMode{}, false
}

// String returns the mode's documented name ("RESET_PAST_LOG_START"; "NONE" for the honest host).
func (h HostSabotage) String() string {
	for _, m := range sabotageModes {
		if m.Tier != TierEngine && m.Host == h {
			return m.Name
		}
	}
	return "NONE"
}

// ParseSabotage resolves a sabotage name of any tier (SabotageModes) into the engine and host modes
// it sets: at most one is not honest, and "" and "NONE" are honest. An unknown name is an error
// listing every valid name.
func ParseSabotage(name string) (node.Sabotage, HostSabotage, error) {
	if name == "" || name == "NONE" {
		return node.SabotageNone, HostHonest, nil
	}
	m, ok := LookupSabotage(name)
	if !ok {
		names := []string{"NONE"}
		for _, m := range sabotageModes {
			names = append(names, m.Name)
		}
		return 0, 0, fmt.Errorf("unknown sabotage mode %q (valid: %s)", name, strings.Join(names, ", "))
	}
	return m.Engine, m.Host, nil
}
