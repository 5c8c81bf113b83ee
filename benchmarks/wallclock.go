package benchmarks

// The wall-clock benchmarks, listed in one place. Each is an ordinary `go test -bench`
// benchmark beside the code it measures, reporting a checksum of its result; this list is what
// the baseline run (benchgate -update) and the CI gate (benchgate, side by side with the
// baseline commit) execute, and what results/README.md tabulates.

// WallBench is one wall-clock benchmark family.
type WallBench struct {
	Pkg      string // package directory, e.g. "./node/"
	Bench    string // -bench pattern (per-level regexps separated by '/')
	Measures string // what one op is
	// Gate is the -bench pattern of the members the short CI pass runs ("" for none): a subset
	// that covers every layer in a few seconds.
	Gate string
}

// WallBenches lists every wall-clock benchmark.
var WallBenches = []WallBench{
	{"./node/", "^BenchmarkEncode$", "encode a frontier of 1-1024 entries into a reused buffer", "^BenchmarkEncode$/^many-topics$/^entries=64$"},
	{"./node/", "^BenchmarkDecode$", "decode a frontier of 1-1024 entries (allocating)", "^BenchmarkDecode$/^many-topics$/^entries=(1|64)$"},
	{"./node/", "^BenchmarkDecodeInto$", "decode a frontier of 1-1024 entries into a reused buffer", "^BenchmarkDecodeInto$/^many-topics$/^entries=(1|64)$"},
	{"./node/", "^BenchmarkDecide$", "one gate decision at width 1-64 (table and map views)", "^BenchmarkDecide$/^table$/^width=4$"},
	{"./node/", "^BenchmarkDecideHeld$", "one held decision listing blockers, width 1-64", ""},
	{"./node/", "^BenchmarkEngineChain$", "receive + drain of one message on a chain", "^BenchmarkEngineChain$"},
	{"./node/", "^BenchmarkEngineFanIn8$", "receive + drain of one message naming 8 channels", "^BenchmarkEngineFanIn8$"},
	{"./node/", "^BenchmarkEngineDrainDepth$", "release one held message at hold-back depth 1-4096", "^BenchmarkEngineDrainDepth$/^depth=(16|4096)$"},
	{"./node/", "^BenchmarkEngineCommitDepth$", "as DrainDepth plus Commit and State.Apply", "^BenchmarkEngineCommitDepth$/^depth=16$"},
	{"./node/session/", "^BenchmarkCoverageOf$", "coverage of a token by a recorded past, width 1-16", ""},
	{"./node/session/", "^BenchmarkMergePast$", "merge a served past into a token, width 1-16", ""},
	{"./node/session/", "^BenchmarkDecode$", "decode an inbound session token, width 1-16", "^BenchmarkDecode$/^width=4$"},
	{"./substrate/", "^BenchmarkModel", "model substrate produce, fetch and a simulated step's mix", "^BenchmarkModelMixed$"},
	{"./substrate/", "^BenchmarkKfakeRoundTrip$", "franz-go adapter produce + read_committed fetch on kfake", ""},
	{"./sim/", "^BenchmarkActions$", "a whole 20,000-action run, every check on (actions/s)", "^BenchmarkActions$"},
	{"./sim/", "^BenchmarkScale$", "ns per action at 10-1000 processes", ""},
	{"./sim/oracle/", "^BenchmarkOracle$", "the oracle's causal-order checks over a hand-built run's deliveries (ns/delivery)", ""},
	{"./sim/", "^BenchmarkExplore$", "a complete exploration of the chain scope (states/s)", ""},
	{"./scenarios/", "^BenchmarkRandomSeed$", "one default random-scenario seed (seeds/s)", "^BenchmarkRandomSeed$/^sabotage=NONE$"},
}

// SpeedBenches are the engine's speed goals, measured side by side with a baseline commit
// (benchgate -bench speed): the gate at width 4 and its held path, receive and drain at fan-in 8,
// decoding one entry (allocating) and 64 entries of many topics into a reused buffer.
var SpeedBenches = []WallBench{
	{Pkg: "./node/", Bench: "^BenchmarkDecide$/^table$/^width=4$", Measures: "one gate decision at width 4"},
	{Pkg: "./node/", Bench: "^BenchmarkDecideHeld$/^width=4$", Measures: "one held decision listing blockers at width 4"},
	{Pkg: "./node/", Bench: "^BenchmarkEngineFanIn8$", Measures: "receive + drain of one message naming 8 channels"},
	{Pkg: "./node/", Bench: "^BenchmarkDecode$/^few-topics$/^entries=1$", Measures: "decode one entry (allocating)"},
	{Pkg: "./node/", Bench: "^BenchmarkDecodeInto$/^many-topics$/^entries=64$", Measures: "decode 64 entries of 64 topics into a reused buffer"},
}
