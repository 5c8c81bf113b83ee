package choose

import "math/rand/v2"

// chooserStream is the PCG stream constant of the schedule chooser ("choose" in ASCII). The
// world's data streams (durations, topic IDs, payloads, corruptions) and the swarm settings use
// other constants, so the schedule never shares a sequence with them.
const chooserStream = 0x63686f6f7365

// Random answers every decision with a weighted draw from a math/rand/v2 PCG seeded from
// the run seed: option i is chosen with probability weights[i] / sum(weights). The label never
// changes the answer; the same seed gives the same answers for the same sequence of weights.
type Random struct {
	rng *rand.Rand
}

// NewRandom returns the seeded schedule chooser of a run with the given seed.
func NewRandom(seed uint64) *Random {
	return &Random{rng: rand.New(rand.NewPCG(seed, chooserStream))}
}

// Choose draws an index in proportion to weights. It panics if no weight is non-zero: that is a
// bug in the caller (the Chooser contract promises at least one enabled option).
func (c *Random) Choose(label string, weights []uint32) int {
	var total uint64
	for _, w := range weights {
		total += uint64(w)
	}
	if total == 0 {
		panic("sim: Random.Choose(" + label + "): every weight is zero")
	}
	r := c.rng.Uint64N(total)
	for i, w := range weights {
		if r < uint64(w) {
			return i
		}
		r -= uint64(w)
	}
	panic("sim: Random.Choose: unreachable")
}

// ChooseFrom draws from the list o stands for as Choose draws from it: the same answer, and the
// same randomness consumed.
func (c *Random) ChooseFrom(label string, o Options) int {
	total := o.Total()
	if total == 0 {
		panic("sim: Random.Choose(" + label + "): every weight is zero")
	}
	return o.Find(c.rng.Uint64N(total))
}
