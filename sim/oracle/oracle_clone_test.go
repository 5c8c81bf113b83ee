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
		"Oracle": {"msgs", "msgsShared", "logs", "ids", "byNode", "byNodeShared", "topics", "disabled", "budget",
			"violations", "deliveries", "heldReleased", "lat"},
		"chanLog": {"slots", "digest", "alive", "logStart", "end"},
	}
	for _, v := range []any{Oracle{}, chanLog{}, Message{}} {
		typ := reflect.TypeOf(v)
		for i := range typ.NumField() {
			if name := typ.Field(i).Name; !slices.Contains(known[typ.Name()], name) {
				t.Errorf("%s.%s is new: make Oracle.CloneFrom copy it and the explorer's hash encode it if it is state, then list it here", typ.Name(), name)
			}
		}
	}
}
