// Package vclock is a run's virtual clock: an integer count of microseconds that only the world's
// actions move. Each action costs a duration drawn from the durations stream within
// Settings.DurationMicros of its kind, plus the engine work it caused (work units /
// Settings.WorkUnitsPerMicro), so work proportional to buffer depth shows in virtual latency.
// Nothing reads the wall clock.
package vclock

import (
	"math/rand/v2"

	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/swarm"
)

// DefaultWorkUnitsPerMicro is the engine work units charged per virtual microsecond when the
// settings leave WorkUnitsPerMicro at zero.
const DefaultWorkUnitsPerMicro = 8

// Clock is a run's virtual clock. The zero value stands at 0 and must not be advanced; New makes
// one that can.
type Clock struct {
	nowMicros         int64
	durations         *rand.Rand
	ranges            *[spec.NumActionKinds]swarm.Range
	workUnitsPerMicro int64
	// workCarry keeps the remainder of work units not yet worth a microsecond, so many small
	// actions add up exactly.
	workCarry uint64
}

// New returns a clock at 0 that draws action durations from durations within set's ranges and
// charges engine work at set's rate.
func New(set *swarm.Settings, durations *rand.Rand) Clock {
	w := set.WorkUnitsPerMicro
	if w <= 0 {
		w = DefaultWorkUnitsPerMicro
	}
	return Clock{durations: durations, ranges: &set.DurationMicros, workUnitsPerMicro: w}
}

// DrawFrom makes c draw its durations from durations from now on: a copy of a run's world that
// goes on on its own (the restart check's fork) draws from its own copy of the stream.
func (c *Clock) DrawFrom(durations *rand.Rand) { c.durations = durations }

// Now returns the virtual time in microseconds.
func (c *Clock) Now() int64 { return c.nowMicros }

// Advance moves the clock by a duration drawn for action kind k and returns the new time.
func (c *Clock) Advance(k spec.ActionKind) int64 {
	r := c.ranges[k]
	d := r.Min
	if r.Max > r.Min {
		d += c.durations.Int64N(r.Max - r.Min + 1)
	}
	c.nowMicros += max(d, 0)
	return c.nowMicros
}

// ChargeWork moves the clock by engine work units.
func (c *Clock) ChargeWork(units uint64) {
	units += c.workCarry
	c.nowMicros += int64(units / uint64(c.workUnitsPerMicro))
	c.workCarry = units % uint64(c.workUnitsPerMicro)
}
