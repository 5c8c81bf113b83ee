package explore

import (
	"github.com/parsleysim/parsleysim/sim/explore/budget"
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/swarm"
)

// spent is how much of each budget a path has used: part of the explored state (two worlds alike
// with different budgets left are different states), hashed with the world.
type spent [spec.NumActionKinds]uint8

// Append appends the spent counts to a hash encoding.
func (s *spent) Append(b []byte) []byte { return append(b, s[:]...) }

// Charge records one action of kind k against b and reports whether that used k's budget up, so
// the world's settings must switch k off from here on (a free kind is never charged).
func (s *spent) Charge(b budget.Budget, k spec.ActionKind) bool {
	lim := b.Limit(k)
	if lim < 0 {
		return false
	}
	s[k]++
	return int(s[k]) >= lim
}

// settingsOff makes the settings of worlds that ran out of a budget: a copy of their settings
// with the kind off, made once per (settings, kind) and shared by every world that runs out of
// that kind's budget from those settings (settings are never changed in place, so a pointer names
// them). The zero value is ready; it belongs to one search.
type settingsOff struct {
	made map[offKey]*swarm.Settings
}

// offKey keys settingsOff.made: settings and the kind switched off in them.
type offKey struct {
	from *swarm.Settings
	kind spec.ActionKind
}

// Without returns set with kind k off.
func (o *settingsOff) Without(set *swarm.Settings, k spec.ActionKind) *swarm.Settings {
	key := offKey{set, k}
	if off, ok := o.made[key]; ok {
		return off
	}
	off := *set
	off.Weights[k] = 0
	if o.made == nil {
		o.made = make(map[offKey]*swarm.Settings)
	}
	o.made[key] = &off
	return &off
}
