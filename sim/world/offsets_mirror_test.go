package world

import (
	"testing"

	"github.com/parsleysim/parsleysim/sim/choose"
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/swarm"
	"github.com/parsleysim/parsleysim/sim/trace"
)

// mirrorCheck is a trace sink that holds every live channel's offsets mirror (channel.offs) to
// the model's own answer at each event of a run.
type mirrorCheck struct {
	t    *testing.T
	w    *World
	name string
	bad  bool
}

func (m *mirrorCheck) Record(ev *trace.Event) {
	if m.bad || m.w == nil {
		return
	}
	for c := range m.w.chans {
		ch := &m.w.chans[c]
		if !m.w.incs[ch.inc].alive {
			continue
		}
		want, err := m.w.sub.ListOffsets(ch.tp)
		if err != nil {
			m.t.Fatalf("%s: step %d: %v", m.name, m.w.step, err)
		}
		if ch.offs != want {
			m.bad = true
			m.t.Errorf("%s: step %d (%s, event %s): channel %s mirrors %+v, the model says %+v",
				m.name, m.w.step, m.w.action, ev.Kind, m.w.chanName(int32(c)), ch.offs, want)
			return
		}
	}
}

// TestOffsetsMirrorTheModel: at every event of honest and sabotaged runs, with and without
// session clients, each live channel's offsets mirror is what the model answers, so
// World.offsets answering from it reads what the substrate would. It fails when an operation
// that moves a log (a produce inside a transaction, a truncation, retention, a fence) leaves
// the mirror behind.
func TestOffsetsMirrorTheModel(t *testing.T) {
	modes := []spec.HostSabotage{spec.HostHonest}
	for _, m := range spec.SabotageModes() {
		if m.Tier != spec.TierEngine {
			modes = append(modes, m.Host)
		}
	}
	for _, scn := range []func() *spec.Scenario{diamondScenario, func() *spec.Scenario { return shop() }} {
		for _, mode := range modes {
			seeds := uint64(8)
			if mode == spec.HostHonest {
				seeds = 150
			}
			for seed := uint64(1); seed <= seeds; seed++ {
				s := scn()
				chk := &mirrorCheck{t: t, name: s.Name + "/" + mode.String()}
				set := swarm.ExpandSettings(seed)
				opts := RunOptions{HostSabotage: mode, Sinks: []trace.Sink{chk}}
				w := newWorld(s, &set, choose.NewRandom(seed), &opts)
				chk.w = w
				w.run()
				if chk.bad {
					return
				}
			}
		}
	}
}
