// Package oracle holds the parts of the simulator's oracle that need no world: its model of the
// world as a whole (Oracle: the message truth table, each channel's log and topic as the world's
// events report them, the violations found and the deliveries and latencies counted, with its own
// copy-on-write clone for the explorer); what a header means as the reference decoder reads it
// (HeaderReading, ReadHeaders, StampReader, EncodeCauses); the translation and comparison between
// the engine's types and the reference node's that the REFERENCE criterion judges with
// (SameCommitted, SameRecord, SameReason, RefState, RefInit, ...); the copy-on-write frontier the
// oracle keeps its pasts in (Frontier); the comparisons of frontiers its checkers make
// (LookupFrom, FirstUncovered); and RESTART_INVISIBILITY's comparison of the deliveries of a run
// with and without a clean restart (CompareDeliveries). The oracle's view of each process and its
// checkers, which judge from the events the world hands them, are in package sim (oracle*.go,
// check_*.go). Its sub-packages are the reference codec (wire), the corrupt-header generator
// (corrupt) and the reference node (refnode), none of which shares code with the node under test.
package oracle
