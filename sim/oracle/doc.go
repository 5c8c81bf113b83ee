// Package oracle is the simulator's oracle: ground truth from what the simulator did, judged
// from the events the world hands it, never from the host, the engine or the substrate (it cannot
// see them: TestOracleSeesNoHost). It holds its model of the world as a whole (Oracle: the
// message truth table, every channel's log and topic as the world's events report them, the
// violations found, the deliveries and latencies counted, with its own copy-on-write clone for
// the explorer); its view of each process (Proc: true past, what it was fed and delivered per
// channel, staged per step and rolled back with a crashed or refused step, with its canonical
// encoding for the explorer's hash, AppendProc); each process's reference node (Reference: the
// model run in lockstep with the process's engine, fed by the Ref* events with the engine's
// inputs and answers, copied copy-on-write with the process); the truth of the run's sessions
// (Sessions: each client's session's true past, committed writes and served reads, and each
// projector's projection, fed by the session tiers' operations and the projectors' deliveries,
// commits and rollbacks, with its own clone and canonical encoding); and one checker per
// criterion (check_*.go: S1, S2, S3, S7, S8, S9, STRUCT12, STRUCT14, STRUCT15, OVEREXPRESSION,
// OVER_REFUSAL, RECREATION, LIVENESS, HOST, REFERENCE, SESSION_RYW, SESSION_MR, SESSION_WFR,
// SESSION_COVERAGE, SESSION_TOKEN, SESSION_DAMAGED), each run by the event it judges. Its
// other parts: what a header means as the reference decoder reads it (HeaderReading,
// ReadHeaders, StampReader, EncodeCauses); the translation and comparison between the engine's
// types and the reference node's that REFERENCE judges with (SameCommitted, RefState, ...); the
// copy-on-write frontier the oracle keeps its pasts in (Frontier); the comparisons of frontiers
// the checkers make (FirstUncovered); and RESTART_INVISIBILITY's comparison of the
// deliveries of a run with and without a clean restart (CompareDeliveries), which package world
// runs, since it re-runs the world. Its sub-packages are the
// reference codec (wire), the corrupt-header generator (corrupt) and the reference node
// (refnode), none of which shares code with the node under test.
package oracle
