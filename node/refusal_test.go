package node

import "testing"

// A refusal renders each part that applies: its channel (as Error writes it, or as a host names
// it through Describe), its position, its detail.
func TestRefusalRendersThePartsThatApply(t *testing.T) {
	ch := Channel{Topic: TopicID{15: 1}, Partition: 2}
	for _, c := range []struct {
		r               Refusal
		error, describe string
	}{
		{Refusal{Reason: ReasonOutOfOrderFeed, Channel: ch, Position: 7, Detail: "d"},
			"OUT_OF_ORDER_FEED on " + ch.String() + "@7: d", "OUT_OF_ORDER_FEED on orders/2@7: d"},
		{Refusal{Reason: ReasonChannelIdentityChanged, Channel: ch, Position: noPosition},
			"CHANNEL_IDENTITY_CHANGED on " + ch.String(), "CHANNEL_IDENTITY_CHANGED on orders/2"},
		{Refusal{Reason: ReasonUnknownOrderingStateFormat, Position: 3, Detail: "d"},
			"UNKNOWN_ORDERING_STATE_FORMAT at position 3: d", "UNKNOWN_ORDERING_STATE_FORMAT at position 3: d"},
	} {
		name := "orders/2"
		if c.r.Channel == (Channel{}) {
			name = ""
		}
		if got := c.r.Error(); got != c.error {
			t.Errorf("Error() = %q, want %q", got, c.error)
		}
		if got := c.r.Describe(name); got != c.describe {
			t.Errorf("Describe(%q) = %q, want %q", name, got, c.describe)
		}
	}
}
