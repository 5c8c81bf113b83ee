package sim

import (
	"math/rand/v2"

	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/swarm"
	"github.com/parsleysim/parsleysim/substrate"
)

// Virtual time. A run's clock is an integer count of microseconds that only actions move: each
// action costs a duration drawn from the durations stream within Settings.DurationMicros of its
// kind, plus the engine work it caused (counters delta / Settings.WorkUnitsPerMicro), so work
// proportional to buffer depth shows in virtual latency. Nothing reads the wall clock.

// DefaultWorkUnitsPerMicro is the engine work units charged per virtual microsecond when the
// settings leave WorkUnitsPerMicro at zero.
const DefaultWorkUnitsPerMicro = 8

// PCG stream constants of the four data streams ("durs", "ids", "payl", "corr" in ASCII),
// distinct from the chooser's and the swarm's.
const (
	durationsStream   = 0x64757273
	idsStream         = 0x696473
	payloadsStream    = 0x7061796c
	corruptionsStream = 0x636f7272
)

// Streams are the run's data streams: virtual durations, topic IDs, payload bytes and corrupt
// headers. They are separate from the Chooser so that they neither multiply an explorer's
// branches nor shift when a new kind of choice is added; corruptions have their own so that a
// recorded script, which carries the headers it drew, replays without drawing them and leaves
// the payloads after them where they were.
type Streams struct {
	Durations, IDs, Payloads, Corruptions *rand.Rand
}

// NewStreams derives the four data streams from a run seed (math/rand/v2 PCG).
func NewStreams(seed uint64) Streams {
	return Streams{
		Durations:   rand.New(rand.NewPCG(seed, durationsStream)),
		IDs:         rand.New(rand.NewPCG(seed, idsStream)),
		Payloads:    rand.New(rand.NewPCG(seed, payloadsStream)),
		Corruptions: rand.New(rand.NewPCG(seed, corruptionsStream)),
	}
}

// isZero reports whether no stream was given.
func (s Streams) isZero() bool {
	return s.Durations == nil && s.IDs == nil && s.Payloads == nil && s.Corruptions == nil
}

// topicIDs adapts the IDs stream to the substrate's topic ID source.
func (s Streams) topicIDs() func() substrate.TopicID {
	return func() substrate.TopicID {
		var id substrate.TopicID
		for i := 0; i < 16; i += 8 {
			v := s.IDs.Uint64()
			for j := range 8 {
				id[i+j] = byte(v >> (8 * j))
			}
		}
		return id
	}
}

// clock is the run's virtual clock.
type clock struct {
	nowMicros         int64
	durations         *rand.Rand
	ranges            *[spec.NumActionKinds]swarm.Range
	workUnitsPerMicro int64
	// workCarry keeps the remainder of work units not yet worth a microsecond, so many small
	// actions add up exactly.
	workCarry uint64
}

func newClock(set *swarm.Settings, durations *rand.Rand) clock {
	w := set.WorkUnitsPerMicro
	if w <= 0 {
		w = DefaultWorkUnitsPerMicro
	}
	return clock{durations: durations, ranges: &set.DurationMicros, workUnitsPerMicro: w}
}

// advance moves the clock by a duration drawn for action kind k and returns the new time.
func (c *clock) advance(k spec.ActionKind) int64 {
	r := c.ranges[k]
	d := r.Min
	if r.Max > r.Min {
		d += c.durations.Int64N(r.Max - r.Min + 1)
	}
	c.nowMicros += max(d, 0)
	return c.nowMicros
}

// chargeWork moves the clock by engine work units.
func (c *clock) chargeWork(units uint64) {
	units += c.workCarry
	c.nowMicros += int64(units / uint64(c.workUnitsPerMicro))
	c.workCarry = units % uint64(c.workUnitsPerMicro)
}
