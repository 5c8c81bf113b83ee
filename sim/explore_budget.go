package sim

import (
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/swarm"
)

// spent is how much of each budget a path has used; part of the explored state.
type spent [spec.NumActionKinds]uint8

// append appends the spent counts to a hash encoding.
func (s *spent) append(b []byte) []byte { return append(b, s[:]...) }

// charge records one action of kind k in child state t (whose world has a private settings copy
// when a budget runs out, so the kind is off from then on).
func (x *explorer) charge(t *exState, k spec.ActionKind) {
	lim := x.opts.Budget.Limit(k)
	if lim < 0 {
		return
	}
	t.spent[k]++
	if int(t.spent[k]) >= lim {
		t.w.SetSettings(x.settingsWithout(t.w.Settings(), k))
	}
}

// settingsWithout returns a copy of set with kind k off, made once per (set, k) and shared by
// every world that runs out of k's budget from set (settings are never changed in place).
func (x *explorer) settingsWithout(set *swarm.Settings, k spec.ActionKind) *swarm.Settings {
	key := settingsOff{set, k}
	if off, ok := x.offSettings[key]; ok {
		return off
	}
	off := *set
	off.Weights[k] = 0
	if x.offSettings == nil {
		x.offSettings = make(map[settingsOff]*swarm.Settings)
	}
	x.offSettings[key] = &off
	return &off
}

// settingsOff keys explorer.offSettings: settings and the kind switched off in them.
type settingsOff struct {
	from *swarm.Settings
	kind spec.ActionKind
}
