package world

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/parsleysim/parsleysim/node"
	"github.com/parsleysim/parsleysim/sim/explore"
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/state"
)

// TestEngineEncodingMatchesSnapshot checks that the explorer's direct encoding of an engine
// (node.Engine.AppendCanonical) and of a committed state are byte for byte the encoding of the
// engine's Snapshot as the state accessors report it (snapshotEncoding), over every engine and
// committed state of the first
// states of explorations with holds, crashes and DROP_HELD.
func TestEngineEncodingMatchesSnapshot(t *testing.T) {
	checked, holds := 0, 0
	for _, c := range []struct {
		scn    *spec.Scenario
		budget string
		sab    node.Sabotage
	}{
		{chainScope(), "msgs=2", node.SabotageNone},
		{chainScope(), "msgs=1,crash=1,delete=1", node.SabotageNone},
		{chainScope(), "msgs=2,crash=1", node.SabotageDropHeld},
		{pairScope(), "msgs=2,crash=1,recreate=1", node.SabotageNone},
		{chainScope(), "msgs=1,stop=1,redeclare=1", node.SabotageNone},
	} {
		check := func(w *World, _ explore.HashKey, _ []byte, _ explore.Hasher) {
			for _, p := range w.procs {
				if p.committed != nil {
					want := snapshotEncoding(nil, w, p.committed)
					if got := p.committed.AppendCanonical(nil, testEncoder{w}); !bytes.Equal(got, want) {
						t.Fatalf("committed state of %s: direct encoding differs from the accessors'", p.spec.Name)
					}
				}
				if p.eng == nil {
					continue
				}
				e := p.eng.View()
				snap := e.Snapshot()
				holds += snap.HeldCount()
				want := snapshotEncoding(nil, w, snap)
				if got := e.AppendCanonical(nil, testEncoder{w}); !bytes.Equal(got, want) {
					t.Fatalf("engine of %s: direct encoding differs from its snapshot's", p.spec.Name)
				}
				checked++
			}
		}
		visitStates(c.scn, exploreOptions{Budget: mustBudget(t, c.budget), Sabotage: c.sab}, 1200, check)
	}
	if checked < 3000 || holds == 0 {
		t.Fatalf("checked only %d engines (%d holds)", checked, holds)
	}
	t.Logf("%d engines, %d holds", checked, holds)
}

// snapshotEncoding is the canonical encoding of an ordering state written through its exported
// accessors (the explorer's encoding before node.State.AppendCanonical).
func snapshotEncoding(b []byte, w *World, st *node.State) []byte {
	b = binary.AppendUvarint(b, uint64(st.Version()))
	for _, bd := range st.Bindings() {
		b = state.AppendString(b, bd.Name)
		b = testEncoder{w}.AppendTopic(b, bd.Topic)
	}
	b = append(b, 0)
	for _, f := range st.FedPositions() {
		b = testEncoder{w}.AppendChannel(b, f.Channel)
		b = binary.AppendVarint(b, int64(f.FedUpTo))
	}
	b = append(b, 0)
	b = w.or.AppendCauses(b, st.Frontier())
	b = w.or.AppendCauses(b, st.DeliveredPast())
	for _, nc := range st.HeldChannels() {
		held := st.Held(nc)
		b = testEncoder{w}.AppendChannel(b, nc)
		b = binary.AppendUvarint(b, uint64(len(held)))
		for i := range held {
			m := &held[i]
			b = binary.AppendVarint(b, int64(m.Position))
			b = state.AppendBytes(b, m.Record.Key)
			b = state.AppendBytes(b, m.Record.Value)
			b = binary.AppendUvarint(b, uint64(len(m.Record.Headers)))
			b = w.or.AppendCauses(b, m.Causes)
		}
	}
	return append(b, 0)
}

// testEncoder names channels and topic IDs as package canon's encoding does: a channel by its
// channel index (+1; 0 for one the world never created), a topic ID by its incarnation index
// (+1; 0 if unknown).
type testEncoder struct{ w *World }

// AppendChannel implements node.CanonicalEncoder.
func (e testEncoder) AppendChannel(b []byte, nc node.Channel) []byte {
	return binary.AppendUvarint(b, uint64(e.w.nodeChan(nc)+1))
}

// AppendTopic implements node.CanonicalEncoder.
func (e testEncoder) AppendTopic(b []byte, id node.TopicID) []byte {
	for i := range e.w.incs {
		if node.TopicID(e.w.incs[i].id) == id {
			return binary.AppendUvarint(b, uint64(i)+1)
		}
	}
	return append(b, 0)
}
