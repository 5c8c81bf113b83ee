package node

import (
	"fmt"
	"strings"
)

// Sabotage selects one deliberate fault of the engine. Sabotage modes exist only to prove that
// the simulator's checkers bite: each changes exactly one rule, and only Options.Sabotage switches
// one on. The zero value, SabotageNone, is the honest engine.
type Sabotage uint8

// The sabotage modes, each changing exactly one rule.
const (
	// SabotageNone is the honest engine.
	SabotageNone Sabotage = iota
	// SabotageIgnoreCauses makes every buffer head deliverable, whatever Decide says (S1).
	SabotageIgnoreCauses
	// SabotageNoFIFO makes drain offer every held message, not only heads, so a later message
	// whose causes are met overtakes a blocked head (S3).
	SabotageNoFIFO
	// SabotageRedeliverRefeeds holds a replay at or below the session floor (inserted in position
	// order unless already held) instead of dropping it, so it is delivered again (S2).
	SabotageRedeliverRefeeds
	// SabotageUndecodableAsAbsent treats an undecodable or duplicated parsley.causes header as no
	// causes instead of refusing (S7, S1).
	SabotageUndecodableAsAbsent
	// SabotageSkipReceiptMerge does not merge carried causes into the frontier at receipt; only
	// delivery merges them (Struct 15).
	SabotageSkipReceiptMerge
	// SabotageDropHeld leaves holds out of the committed state (Commit and Snapshot), so a restart
	// loses them (L1).
	SabotageDropHeld
	// SabotageIgnoreRemovedChannels makes initialisation discard the holds of a channel removed
	// from the received set instead of refusing (L1).
	SabotageIgnoreRemovedChannels
	// SabotageSilentDrop drops the record at position 3 of any channel as if it were a duplicate
	// (L1).
	SabotageSilentDrop
	// SabotageOverexpress makes stamps also carry fedUpTo coverage, received but undelivered
	// positions included (over-expression bound).
	SabotageOverexpress
	// SabotageIgnoreRecreation makes the identity report not refuse a recreated received topic
	// (recreation check).
	SabotageIgnoreRecreation
	// SabotageDeliverPastDeadHolds makes the identity report mark a deleted received channel with
	// the marker even while messages from it are held, and carry on (S9).
	SabotageDeliverPastDeadHolds
	// SabotageTreatCoveredFeedAsReplay makes the COVERED_POSITION_FED guard drop the record as a
	// duplicate instead of refusing.
	SabotageTreatCoveredFeedAsReplay

	sabotageCount
)

// sabotageNames are the documented names, indexed by mode.
var sabotageNames = [sabotageCount]string{
	SabotageNone:                     "NONE",
	SabotageIgnoreCauses:             "IGNORE_CAUSES",
	SabotageNoFIFO:                   "NO_FIFO",
	SabotageRedeliverRefeeds:         "REDELIVER_REFEEDS",
	SabotageUndecodableAsAbsent:      "UNDECODABLE_AS_ABSENT",
	SabotageSkipReceiptMerge:         "SKIP_RECEIPT_MERGE",
	SabotageDropHeld:                 "DROP_HELD",
	SabotageIgnoreRemovedChannels:    "IGNORE_REMOVED_CHANNELS",
	SabotageSilentDrop:               "SILENT_DROP",
	SabotageOverexpress:              "OVEREXPRESS",
	SabotageIgnoreRecreation:         "IGNORE_RECREATION",
	SabotageDeliverPastDeadHolds:     "DELIVER_PAST_DEAD_HOLDS",
	SabotageTreatCoveredFeedAsReplay: "TREAT_COVERED_FEED_AS_REPLAY",
}

// String returns the mode's documented name, "NONE" for the honest engine.
func (s Sabotage) String() string {
	if s < sabotageCount {
		return sabotageNames[s]
	}
	return fmt.Sprintf("Sabotage(%d)", uint8(s))
}

// parseSabotage returns the mode with the given name ("NONE" or "" for the honest engine). An
// unknown name is an error that names it and lists the valid names.
func parseSabotage(name string) (Sabotage, error) {
	if name == "" {
		return SabotageNone, nil
	}
	for s := SabotageNone; s < sabotageCount; s++ {
		if sabotageNames[s] == name {
			return s, nil
		}
	}
	return SabotageNone, fmt.Errorf("node: unknown sabotage mode %q (valid: %s)", name, strings.Join(sabotageNames[:], ", "))
}

// SabotageModes returns every sabotage mode (not SabotageNone), in a fixed order.
func SabotageModes() []Sabotage {
	modes := make([]Sabotage, 0, sabotageCount-1)
	for s := SabotageNone + 1; s < sabotageCount; s++ {
		modes = append(modes, s)
	}
	return modes
}
