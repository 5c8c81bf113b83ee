// Package streams is a run's data streams: virtual durations, topic IDs, payload bytes and
// corrupt headers. They are separate from the Chooser so that they neither multiply an
// explorer's branches nor shift when a new kind of choice is added; corruptions have their own so
// that a recorded script, which carries the headers it drew, replays without drawing them and
// leaves the payloads after them where they were. A run's streams are PCGs derived from its seed
// (New), which a fork of the run copies (Fork); an exploration's draw constants, all but the
// topic IDs (Explore).
package streams

import (
	"math/rand/v2"

	"github.com/parsleysim/parsleysim/substrate"
)

// PCG stream constants of the four data streams ("durs", "ids", "payl", "corr" in ASCII),
// distinct from the chooser's and the swarm's.
const (
	durationsStream   = 0x64757273
	idsStream         = 0x696473
	payloadsStream    = 0x7061796c
	corruptionsStream = 0x636f7272
)

// Streams are a run's four data streams.
type Streams struct {
	Durations, IDs, Payloads, Corruptions *rand.Rand
	// pcgs are the sources of Durations, IDs, Payloads and Corruptions, in that order, when the
	// streams are a run's (New), so that Fork can copy them; nil otherwise.
	pcgs *[4]rand.PCG
}

// New derives the four data streams of a run from its seed (math/rand/v2 PCG).
func New(seed uint64) Streams {
	p := &[4]rand.PCG{*rand.NewPCG(seed, durationsStream), *rand.NewPCG(seed, idsStream),
		*rand.NewPCG(seed, payloadsStream), *rand.NewPCG(seed, corruptionsStream)}
	return Streams{Durations: rand.New(&p[0]), IDs: rand.New(&p[1]), Payloads: rand.New(&p[2]),
		Corruptions: rand.New(&p[3]), pcgs: p}
}

// Fork returns streams that draw on from where s's stand, without moving s's, for a copy of the
// run that goes on by itself and draws its topic IDs from ids. s must be a run's (New); a fork
// cannot be forked again.
func (s Streams) Fork(ids *rand.Rand) Streams {
	if s.pcgs == nil {
		panic("streams: forking streams that are not a run's")
	}
	p := *s.pcgs
	return Streams{Durations: rand.New(&p[0]), IDs: ids, Payloads: rand.New(&p[2]), Corruptions: rand.New(&p[3])}
}

// IDsSource returns the PCG the IDs stream draws from, nil when s are not a run's (New).
func (s Streams) IDsSource() *rand.PCG {
	if s.pcgs == nil {
		return nil
	}
	return &s.pcgs[1]
}

// IsZero reports whether no stream was given.
func (s Streams) IsZero() bool {
	return s.Durations == nil && s.IDs == nil && s.Payloads == nil && s.Corruptions == nil
}

// TopicIDs adapts the IDs stream to the substrate's topic ID source.
func (s Streams) TopicIDs() func() substrate.TopicID {
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

// Explore returns the data streams of an exploration, and the ID stream's PCG (cloned with every
// world): durations, payloads and corruptions draw constSource's constant, so every external
// record carries the same bytes and every action takes the same time, whatever the order.
func Explore(seed uint64) (Streams, *rand.PCG) {
	ids := rand.NewPCG(seed, idsStream)
	return Streams{Durations: rand.New(constSource{}), IDs: rand.New(ids), Payloads: rand.New(constSource{}),
		Corruptions: rand.New(constSource{})}, ids
}

// constSource is the payload and durations stream of an exploration: every bounded draw is zero,
// so every external record carries the same bytes and a transaction writes one record, whatever
// the order. Its word is constWord, not 0: math/rand/v2 draws a bound n that is not a power of
// two by Lemire's method, which rejects a word w whose low product w*n mod 2^64 falls below
// 2^64 mod n and draws again, so from an all-zero source IntN(3) (an aborted transaction's record
// count) never returns. constWord*n < 2^64 for every n below 2^24, so the draw is 0 and never
// rejected, and its low 40 bits (the bytes a payload takes) are zero.
type constSource struct{}

// constWord is every word constSource returns (see there).
const constWord = 1 << 40

func (constSource) Uint64() uint64 { return constWord }
