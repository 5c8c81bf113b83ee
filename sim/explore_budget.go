package sim

import "github.com/parsleysim/parsleysim/sim/spec"

// charge records one action of kind k in child state t (whose world gets settings with the kind
// off when its budget runs out, so the kind is off from then on).
func (x *explorer) charge(t *exState, k spec.ActionKind) {
	if t.spent.Charge(x.opts.Budget, k) {
		t.w.SetSettings(x.offSettings.Without(t.w.Settings(), k))
	}
}
