package refnode_test

import (
	"testing"

	"github.com/parsleysim/parsleysim/node"
	"github.com/parsleysim/parsleysim/sim/oracle/refnode"
)

// TestModelRefusesCorruptState starts the engine and the model from the same committed rows,
// corrupt in each way SPEC §2.5 and §7.1 name (the engine's state is built by applying deltas,
// which do not validate values; the model's from the rows): both refuse with
// UNKNOWN_ORDERING_STATE_FORMAT, and both accept the uncorrupted rows.
func TestModelRefusesCorruptState(t *testing.T) {
	c := node.Channel{Topic: topics[0][0], Partition: 0}
	rc := refChannel(c)
	zero := node.Channel{Partition: 0}
	msg := node.HeldMessage{Channel: c, Position: 4, Record: node.Record{Value: []byte("v")}}
	hold := &refnode.Message{Channel: rc, Position: 4, Record: refnode.Record{Value: []byte("v")}}
	base := func() refnode.State {
		return refnode.State{Version: 1, Bindings: []refnode.Binding{{Name: "a", Topic: refnode.TopicID(c.Topic)}},
			Fed: refnode.PositionsOf(refnode.Entry{Channel: rc, Position: 5}), Held: []refnode.Buffer{{Channel: rc, Messages: []*refnode.Message{hold}}},
			Frontier: refnode.PositionsOf(refnode.Entry{Channel: rc, Position: 3})}
	}
	baseDelta := node.Delta{SetVersion: true, Bindings: []node.Binding{{Name: "a", Topic: c.Topic}},
		Fed: []node.FedPosition{{Channel: c, FedUpTo: 5}}, NewHolds: []node.HeldMessage{msg},
		Frontier: []node.Cause{{Channel: c, Position: 3}}}
	cases := []struct {
		name    string
		deltas  []node.Delta // applied after baseDelta
		corrupt func(s *refnode.State)
		ok      bool
	}{
		{name: "valid", ok: true},
		{name: "deleted marker in the frontier",
			deltas:  []node.Delta{{Frontier: []node.Cause{{Channel: c, Position: node.MaxOffset}}}},
			corrupt: func(s *refnode.State) { s.Frontier.Set(rc, refnode.End) }},
		{name: "negative delivered past",
			deltas:  []node.Delta{{Past: []node.Cause{{Channel: c, Position: -2}}}},
			corrupt: func(s *refnode.State) { s.Past.Set(rc, -2) }},
		{name: "negative fedUpTo elsewhere",
			deltas:  []node.Delta{{Fed: []node.FedPosition{{Channel: node.Channel{Topic: topics[1][0]}, FedUpTo: -1}}}},
			corrupt: func(s *refnode.State) { s.Fed.Set(refnode.Channel{Topic: refnode.TopicID(topics[1][0])}, -1) }},
		{name: "zero topic ID in fedUpTo",
			deltas:  []node.Delta{{Fed: []node.FedPosition{{Channel: zero, FedUpTo: 1}}}},
			corrupt: func(s *refnode.State) { s.Fed.Set(refChannel(zero), 1) }},
		{name: "hold above fedUpTo",
			deltas:  []node.Delta{{Fed: []node.FedPosition{{Channel: c, FedUpTo: 3}}}},
			corrupt: func(s *refnode.State) { s.Fed.Set(rc, 3) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			st := &node.State{}
			for _, d := range append([]node.Delta{baseDelta}, tc.deltas...) {
				if err := st.Apply(d); err != nil {
					t.Fatalf("building the engine's state: %v", err)
				}
			}
			ref := base()
			if tc.corrupt != nil {
				tc.corrupt(&ref)
			}
			init := node.Init{Received: []node.Channel{c}, Bindings: []node.Binding{{Name: "a", Topic: c.Topic}}}
			_, eerr := node.Start(st, init, node.Options{})
			_, rerr := refnode.Start(&ref, refInit(init, 0))
			if !sameRefusal(eerr, rerr) {
				t.Fatalf("engine %v, model %v", eerr, rerr)
			}
			if tc.ok != (rerr == nil) || (rerr != nil && rerr.Reason != refnode.UnknownOrderingStateFormat) {
				t.Fatalf("want ok=%v, got %v", tc.ok, rerr)
			}
		})
	}
	noVersion := base()
	noVersion.Version = 0
	if _, r := refnode.Start(&noVersion, refnode.Init{Received: []refnode.Channel{rc}}); r == nil || r.Reason != refnode.UnknownOrderingStateFormat {
		t.Fatalf("state without its version entry: %v", r)
	}
}
