package world

import (
	"reflect"
	"slices"
	"testing"

	"github.com/parsleysim/parsleysim/node"
	"github.com/parsleysim/parsleysim/sim/choose"
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/swarm"
)

// TestCloneCoversEveryField fails when a field is added to a struct World.clone copies, so the
// clone (and the canonical hash, explore_hash.go and package canon) is revisited: a field the clone shares by
// mistake makes two explored branches write into one another.
func TestCloneCoversEveryField(t *testing.T) {
	known := map[string][]string{
		"World": {"scn", "set", "opts", "chooser", "sub", "model", "streams", "clock", "budget", "topics", "topicByName",
			"incs", "chans", "procs", "or", "recent", "recentN", "ext", "step", "action", "liveness",
			"stats", "refusalsShared", "tracing", "ev", "hooks", "weights", "offsetBuf", "procBuf", "groupBuf", "kinds", "externals",
			"liveExternals", "script", "idsPCG", "idsRand", "idsFn",
			"readers", "declarers", "topicIncs", // persistent in an explored world (chanindex.Persistent)
			"commitCrashPCG", "commitCrashSeeded", // copied by value; not drawn in an exploration (CommitCrashPct 0)
			"sess",     // session actors: tiers.Actors.Clone and AppendCanonical (their own test covers their fields)
			"targets",  // a memo of what the world's state answers, not state: a clone builds its own
			"identity", // identityReport's last answer: a clone's history is the same up to the clone
			"deaths"},  // copied by value; the count of incarnations not alive, which the hash has
		"proc": {"w", "idx", "spec", "group", "txnID", "sends", "declared", "resolved", "everResolved", "status",
			"resolvedDigest", "committed", "committedShared", "eng", "engStore", "started", "execution", "txn", "txnOpen", "recv", "pcs", "stepDirty",
			"drainable", "stepChans", "workMark", "fetchBuf", "refusalWhy", "o", "store",
			"share", // copy-on-write bookkeeping and the cached hashes (canon.Caches): proc.clone, proc.own
			"ref"},  // the reference node: shared copy-on-write (oracle.Reference.ShareWith), hashed by package canon
		"pcState":      {"ch", "received", "readPos", "lastFed", "startPos", "committedPos"},
		"extProducers": {"abortTxn", "openTxn", "open", "openUIDs", "openChans"},
	}
	for _, v := range []any{World{}, proc{}, pcState{}, extProducers{}} {
		typ := reflect.TypeOf(v)
		for i := range typ.NumField() {
			if name := typ.Field(i).Name; !slices.Contains(known[typ.Name()], name) {
				t.Errorf("%s.%s is new: make world_clone.go copy it and explore_hash.go hand it to package canon if it is state, then list it here", typ.Name(), name)
			}
		}
	}
}

// TestStartBuildsInTheLastEngine: outside the explorer, a process's start builds its engine in
// the engine of its last execution, and keeps its reference in the last one's storage
// (dropEngine, deadEngine), except after a fork, which reads them.
func TestStartBuildsInTheLastEngine(t *testing.T) {
	scn := twoInputs(act(spec.ActProducePlain, "", "in"), act(spec.ActFeed, "p", "in"), act(spec.ActDrain, "p", ""),
		act(spec.ActCommit, "p", ""), act(spec.ActCrash, "p", ""), act(spec.ActStart, "p", ""),
		act(spec.ActStop, "p", ""), act(spec.ActStart, "p", ""), act(spec.ActCrash, "p", ""), act(spec.ActStart, "p", ""))
	w := New(scn, swarm.Settings{Seed: 1}, choose.NewRandom(1), RunOptions{})
	w.Start()
	p := w.procs[0]
	var last *node.Engine // the engine of p's last execution
	var lastRef *engineRef
	for i := range scn.Script {
		if p.eng != nil {
			last, lastRef = p.eng.View(), p.eng
		}
		if i == 8 {
			w.fork() // the crash's engine is the fork's to read: the start after it builds anew
		}
		w.Scripted(i)
		if scn.Script[i].Kind == spec.ActStart && (p.eng.View() == last) != (i != 9) {
			t.Errorf("action %d: the start built in the last engine: %v, want %v", i, p.eng.View() == last, i != 9)
		}
		if scn.Script[i].Kind == spec.ActStart && (p.eng == lastRef) != (i != 9) {
			t.Errorf("action %d: the start kept its reference in the last one's storage: %v, want %v", i, p.eng == lastRef, i != 9)
		}
	}
}
