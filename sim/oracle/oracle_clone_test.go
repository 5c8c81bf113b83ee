package oracle

import (
	"reflect"
	"slices"
	"testing"
)

// TestCloneCoversEveryField fails when a field is added to a struct Oracle.CloneFrom copies, so
// the clone (and the explorer's canonical hash of the oracle) is revisited: a field the clone
// shares by mistake makes two explored branches write into one another.
func TestCloneCoversEveryField(t *testing.T) {
	known := map[string][]string{
		"Message": {"Ch", "Pos", "Sender", "Kind", "State", "ProducedMicros", "Past", "Expressed", "HeaderLen", "Undecodable", "Raw", "Key", "Value", "Digest"},
		// Its channels' liveness, log start and end repeat the substrate's state, which the world
		// hashes.
		"Oracle": {"msgs", "msgsShared", "ownedFrom", "slab", "logs", "ids", "byNode", "byNodeShared", "live", "liveShared", "topics", "disabled", "budget",
			"violations", "deliveries", "heldReleased", "lat",
			"procs",     // the clone's world registers its processes' copies: SetProc
			"reporter"}, // the clone's world registers itself: SetReporter
		"chanLog": {"slots", "digest", "alive", "logStart", "end"},
		// A process's view is copied with its process (ShareWith, Own).
		"Proc": {"idx", "past", "seen", "bound", "tdp", "saved", "stepOpen", "undo", "staged", "stepSent", "stepLat",
			"stepCorrupt", "chans", "list", "recv", "failed", "drains", "injected", "deliveries", "stepDeliv", "stepHeldRe",
			"stamps"}, // a cache of immutable values, shared by a copy: StampReader
		"chanState": {"ch", "received", "startPos", "lastFed", "firstRead", "firstFixed", "clampAtStart", "fedHigh", "delivered", "pending"},
	}
	for _, v := range []any{Oracle{}, chanLog{}, Message{}, Proc{}, chanState{}} {
		typ := reflect.TypeOf(v)
		for i := range typ.NumField() {
			if name := typ.Field(i).Name; !slices.Contains(known[typ.Name()], name) {
				t.Errorf("%s.%s is new: make Oracle.CloneFrom copy it and the explorer's hash encode it if it is state, then list it here", typ.Name(), name)
			}
		}
	}
}
