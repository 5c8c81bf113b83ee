package vclock

import (
	"math/rand/v2"
	"testing"

	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/swarm"
)

// TestAdvanceDrawsWithinTheKindsRange: each advance moves the clock by a duration of its own
// kind's range, every value of the range comes up, a kind with a fixed duration moves by exactly
// it, and a negative duration moves nothing.
func TestAdvanceDrawsWithinTheKindsRange(t *testing.T) {
	var set swarm.Settings
	set.DurationMicros[spec.ActFeed] = swarm.Range{Min: 5, Max: 9}
	set.DurationMicros[spec.ActDrain] = swarm.Range{Min: 3, Max: 3}
	set.DurationMicros[spec.ActCrash] = swarm.Range{Min: -4, Max: -4}
	c := New(&set, rand.New(rand.NewPCG(1, 2)))
	seen := map[int64]bool{}
	for range 200 {
		before := c.Now()
		d := c.Advance(spec.ActFeed) - before
		if d < 5 || d > 9 || c.Now() != before+d {
			t.Fatalf("feed advanced %d from %d to %d, want 5..9", d, before, c.Now())
		}
		seen[d] = true
	}
	if len(seen) != 5 {
		t.Fatalf("feed durations seen %v, want every value of 5..9", seen)
	}
	before := c.Now()
	if got := c.Advance(spec.ActDrain); got != before+3 {
		t.Fatalf("drain advanced to %d from %d, want +3", got, before)
	}
	if got := c.Advance(spec.ActCrash); got != before+3 {
		t.Fatalf("a negative duration moved the clock to %d, want %d", got, before+3)
	}
}

// TestChargeWorkCarriesTheRemainder: work units below a microsecond's worth add up exactly, at
// the settings' rate or, when they leave it at zero, at DefaultWorkUnitsPerMicro.
func TestChargeWorkCarriesTheRemainder(t *testing.T) {
	for _, rate := range []int64{0, 5} {
		set := swarm.Settings{WorkUnitsPerMicro: rate}
		c := New(&set, rand.New(rand.NewPCG(1, 2)))
		per := rate
		if per == 0 {
			per = DefaultWorkUnitsPerMicro
		}
		for range 3 * per {
			c.ChargeWork(1)
		}
		if c.Now() != 3 {
			t.Fatalf("rate %d: %d units charged one by one moved the clock to %d, want 3", rate, 3*per, c.Now())
		}
		c.ChargeWork(uint64(2*per - 1))
		if c.Now() != 4 {
			t.Fatalf("rate %d: %d more units moved the clock to %d, want 4 (and a carry of %d)", rate, 2*per-1, c.Now(), per-1)
		}
		c.ChargeWork(1)
		if c.Now() != 5 {
			t.Fatalf("rate %d: the carried remainder plus one unit moved the clock to %d, want 5", rate, c.Now())
		}
	}
}
