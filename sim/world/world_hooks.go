package world

import "github.com/parsleysim/parsleysim/node"

// testHooks let tests tamper with the world to construct violations the honest world never
// produces (a host that breaks H2, for example). They are unexported: only this package's tests
// set them, through RunOptions.hooks.
type testHooks struct {
	// startPosition may replace the start position the host reports for channel c of process p.
	startPosition func(p int, c int32, s int64) int64
	// stamp may replace the parsley.causes value of an emission by process p to channel c,
	// whose offset will be next.
	stamp func(p int, c int32, next int64, value []byte) []byte
	// refeed, when it returns true, makes the host feed the record it just fed once more.
	refeed func(p int) bool
	// feedHeaders may replace the headers of a record on channel c as process p's engine is fed
	// it (the substrate keeps the record's own): a codec that misreads them.
	feedHeaders func(p int, c int32, hs []node.Header) []node.Header
	// partition may replace the partition (of parts) process p, in its execution-th execution,
	// sends an emission with key to: a partitioner that is not a function of the key alone.
	partition func(p, execution int, key []byte, parts int) int
	// finishing, when set, is told of a world before it ends (World.Finish): in an exploration, a
	// state the search counts as terminal (the restart check's end copies, World.EndCopy, drop it).
	finishing func(w *World)
	// noRecycle makes a clone take no storage of a world the explorer released (World.Clone's
	// into): every explored world stays as the search left it.
	noRecycle bool
}
