package scopes

import "github.com/parsleysim/parsleysim/sim/spec"

// Session scopes of the small-scope catalogue (scopes.go): one client, one projector, a budget
// of session writes, reads and token damage, each small enough to explore every schedule and
// each claiming the session tier modes its schedules must expose. Honest tiers are clean in all
// of them: a read the tier cannot cover is answered "retry", never served.

// sessionScope returns a builder for a scope with one process p receiving the topics received,
// projected as read model m, and one client writing the topics written (txnPct of its writes
// transactional, half of those aborting).
func sessionScope(name string, received, written []string, txnPct int) func() *spec.Scenario {
	return func() *spec.Scenario {
		scn := &spec.Scenario{Name: name, Processes: []spec.ProcessSpec{{Name: "p", Receives: received}}}
		for _, t := range append(append([]string(nil), received...), written...) {
			if !slicesContainsTopic(scn.Topics, t) {
				scn.Topics = append(scn.Topics, ext(t))
			}
		}
		scn.Session = &spec.SessionSpec{Clients: 1, Writes: written, TxnPct: txnPct, AbortPct: 50,
			Models: []spec.ReadModelSpec{{Name: "m", Partitions: [][]string{{"p"}}}}}
		return scn
	}
}

func slicesContainsTopic(topics []spec.TopicSpec, name string) bool {
	for _, t := range topics {
		if t.Name == name {
			return true
		}
	}
	return false
}

// sessionScopes are the catalogue's session entries.
var sessionScopes = []Scope{
	{Name: "session_write", Summary: "one client writes a once, plainly or in a transaction that commits or aborts",
		Budget: "swrite=1", Catches: []string{"WRITE_MERGES_LOG_END", "WRITE_MERGES_BEFORE_COMMIT"},
		Build: sessionScope("session_write", []string{"a"}, []string{"a"}, 50)},
	{Name: "session_unreceived", Summary: "one client writes b, which the read model's projector never receives, and reads it",
		Budget: "swrite=1,sread=1", Catches: []string{"READ_SKIPS_UNKNOWN_CHANNELS"},
		Build: sessionScope("session_unreceived", []string{"a"}, []string{"b"}, 0)},
	{Name: "session_damage", Summary: "one client's token is damaged in flight before its one read",
		Budget: "damage=1,sread=1", Catches: []string{"TOKEN_SALVAGE"},
		Build: sessionScope("session_damage", []string{"a"}, []string{"a"}, 0)},
	{Name: "session_held", Summary: "one client writes a; an external record on b, stamped with it, reaches the projector first and is held while a row commits; the client reads",
		Budget: "msgs=1,stamped=1,swrite=1,sread=1", Catches: []string{"PROJECTOR_RECORDS_FRONTIER"},
		Build: sessionScope("session_held", []string{"a", "b"}, []string{"a"}, 0)},
}
