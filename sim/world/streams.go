package world

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

// dataStreams are the run's data streams: virtual durations, topic IDs, payload bytes and corrupt
// headers. They are separate from the Chooser so that they neither multiply an explorer's
// branches nor shift when a new kind of choice is added; corruptions have their own so that a
// recorded script, which carries the headers it drew, replays without drawing them and leaves
// the payloads after them where they were.
type dataStreams struct {
	Durations, IDs, Payloads, Corruptions *rand.Rand
}

// newDataStreams derives the four data streams from a run seed (math/rand/v2 PCG).
func newDataStreams(seed uint64) dataStreams {
	return dataStreams{
		Durations:   rand.New(rand.NewPCG(seed, durationsStream)),
		IDs:         rand.New(rand.NewPCG(seed, idsStream)),
		Payloads:    rand.New(rand.NewPCG(seed, payloadsStream)),
		Corruptions: rand.New(rand.NewPCG(seed, corruptionsStream)),
	}
}

// isZero reports whether no stream was given.
func (s dataStreams) isZero() bool {
	return s.Durations == nil && s.IDs == nil && s.Payloads == nil && s.Corruptions == nil
}

// topicIDs adapts the IDs stream to the substrate's topic ID source.
func (s dataStreams) topicIDs() func() substrate.TopicID {
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
