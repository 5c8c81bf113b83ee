package node

import "fmt"

// Reason names why a process failed closed (SPEC §7.1). The set is fixed; the strings are the
// reason names the project documents, so traces and reports can print them unchanged.
type Reason string

// The refusal reasons the engine raises, plus POSITIONS_DISCARDED_UNREAD, which only the host
// raises (the engine has no view of the substrate's log start).
const (
	ReasonUndecodableMetadata              Reason = "UNDECODABLE_METADATA"
	ReasonMetadataBudgetExceeded           Reason = "METADATA_BUDGET_EXCEEDED"
	ReasonOutOfOrderFeed                   Reason = "OUT_OF_ORDER_FEED"
	ReasonCoveredPositionFed               Reason = "COVERED_POSITION_FED"
	ReasonChannelRemovedWithHeldMessages   Reason = "CHANNEL_REMOVED_WITH_HELD_MESSAGES"
	ReasonChannelIdentityChanged           Reason = "CHANNEL_IDENTITY_CHANGED"
	ReasonChannelDeletedWithUndelivered    Reason = "CHANNEL_DELETED_WITH_UNDELIVERED_MESSAGES"
	ReasonUnknownOrderingStateFormat       Reason = "UNKNOWN_ORDERING_STATE_FORMAT"
	ReasonReservedHeaderUsed               Reason = "RESERVED_HEADER_USED"
	ReasonEmissionToUndeclaredChannel      Reason = "EMISSION_TO_UNDECLARED_CHANNEL"
	ReasonPositionsDiscardedUnread         Reason = "POSITIONS_DISCARDED_UNREAD"
	ReasonOrderingStateLost                Reason = "ORDERING_STATE_LOST"
	ReasonTaskWidthChanged                 Reason = "TASK_WIDTH_CHANGED"
	ReasonSubstrateMisconfigured           Reason = "SUBSTRATE_MISCONFIGURED"
	ReasonHandlerReturnedNullEffects       Reason = "HANDLER_RETURNED_NULL_EFFECTS"
	ReasonStateAccessToUndeclaredStore     Reason = "STATE_ACCESS_TO_UNDECLARED_STORE"
	ReasonApplicationPayloadUndecodable    Reason = "APPLICATION_PAYLOAD_UNDECODABLE"
	ReasonApplicationPayloadUnserializable Reason = "APPLICATION_PAYLOAD_UNSERIALIZABLE"
)

// noPosition is the Refusal.Position of a refusal that is not about a position.
const noPosition Offset = -1

// Refusal is a fail-closed stop: the reason, the offending channel (zero when the refusal is not
// about a channel) and position (-1 when not about a position), and a detail naming the bad
// input. The engine returns it as an error and, once it has refused, delivers nothing more in
// that execution (SPEC §7.1).
type Refusal struct {
	Reason   Reason
	Channel  Channel
	Position Offset
	Detail   string
}

// Error renders the refusal as "REASON on channel@position: detail", omitting the parts that do
// not apply.
func (r *Refusal) Error() string {
	channel := ""
	if r.Channel != (Channel{}) {
		channel = r.Channel.String()
	}
	return r.Describe(channel)
}

// Describe renders the refusal as Error does with its channel written as channel ("" when the
// refusal is not about one): a host names a channel its own way (by its topic's name, not its ID).
func (r *Refusal) Describe(channel string) string {
	s := string(r.Reason)
	if channel != "" {
		s += " on " + channel
		if r.Position >= 0 {
			s += fmt.Sprintf("@%d", r.Position)
		}
	} else if r.Position >= 0 {
		s += fmt.Sprintf(" at position %d", r.Position)
	}
	if r.Detail != "" {
		s += ": " + r.Detail
	}
	return s
}

// refuse builds a refusal with a formatted detail.
func refuse(reason Reason, ch Channel, pos Offset, format string, args ...any) *Refusal {
	return &Refusal{Reason: reason, Channel: ch, Position: pos, Detail: fmt.Sprintf(format, args...)}
}

// formatRefusal is the refusal of an unreadable committed ordering state or delta.
func formatRefusal(format string, args ...any) *Refusal {
	return refuse(ReasonUnknownOrderingStateFormat, Channel{}, noPosition, format, args...)
}
