package spec

import "github.com/parsleysim/parsleysim/substrate"

// The documented limits of one simulated world. Every edge that takes a size from a person (the
// command line's --processes and --steps, scenario files, replay files) checks it against these
// before building anything, and names the limit when it refuses. They are set from what runs in
// reasonable time and memory on a 2-core machine today (results/limits.md); raise them as the
// world scales.
const (
	// MaxProcesses is the most processes a world may have (simrun --processes N, process lines
	// of a scenario file).
	MaxProcesses = 2000
	// MaxChannels is the most channels (partitions, over every topic) a world may declare; it is
	// also the substrate's limit on one topic's partitions.
	MaxChannels = substrate.MaxPartitions
	// MaxSubscriptions is the most (process, topic) pairs a world's processes may receive or send,
	// with room above what the generated topology of MaxProcesses processes declares
	// (results/limits.md).
	MaxSubscriptions = 20000
	// MaxSteps bounds a run's safety-phase steps (--steps, a replay file's "steps") and its
	// liveness phase (a scenario file's liveness=).
	MaxSteps = 1_000_000
	// MaxStepMicros bounds the virtual duration of one step (a scenario file's step-us=), and
	// with it retention-us=: MaxSteps steps of it stay far inside the virtual clock's int64.
	MaxStepMicros = 3_600_000_000
)
