package scenarios

import (
	"slices"

	"github.com/parsleysim/parsleysim/sim/spec"
)

// The topology pass of a shrink: a shrunk script acts on a few processes and topics, but the
// scenario it runs in is the whole original topology. The pass drops the session clients when the
// script makes no session action, then, one at a time, each process that neither an action of the
// script nor a read model names, then every topic that neither a remaining process, an action nor
// the session names, keeping each removal only when the smaller scenario, run as a scenario file
// runs, still fails with the target criterion first: a process the script never names may still
// be the one that forwards, or holds, what the failure needs (it acts in the liveness phase).

// shrinkTopology returns scn reduced to what script's failure needs, within the budget left (scn
// itself when nothing could go).
func (s *shrinkRun) shrinkTopology(scn *spec.Scenario, script []spec.ScriptedAction) *spec.Scenario {
	cur := scn
	if cur.Session != nil && !slices.ContainsFunc(script, func(a spec.ScriptedAction) bool { return a.Kind.Session() }) && s.left() > 0 {
		c := *cur
		c.Session = nil
		if s.stillFails(&c, script) {
			cur = &c
		}
	}
	named := map[string]bool{}
	for i := range script {
		named[script[i].Process] = true
	}
	if cur.Session != nil {
		for _, m := range cur.Session.Models {
			for _, replicas := range m.Partitions {
				for _, p := range replicas {
					named[p] = true
				}
			}
		}
	}
	for i := len(cur.Processes) - 1; i >= 0 && s.left() > 0; i-- {
		if named[cur.Processes[i].Name] || len(cur.Processes) <= 1 {
			continue
		}
		c := *cur
		c.Processes = slices.Delete(slices.Clone(cur.Processes), i, i+1)
		if s.stillFails(&c, script) {
			cur = &c
		}
	}
	// The topics: all at once with each process's lists trimmed to the topics a remaining process
	// or the script gives them a use for; else, with the lists as they are, one at a time.
	c := *cur
	c.Processes = trimDeclarations(cur, script)
	used := usedTopics(&c, script)
	c.Topics = slices.DeleteFunc(slices.Clone(cur.Topics), func(t spec.TopicSpec) bool { return !used[t.Name] })
	if len(c.Topics) < len(cur.Topics) && s.left() > 0 && s.stillFails(&c, script) {
		return &c
	}
	used = usedTopics(cur, script)
	for i := len(cur.Topics) - 1; i >= 0 && s.left() > 0; i-- {
		if used[cur.Topics[i].Name] {
			continue
		}
		c := *cur
		c.Topics = slices.Delete(slices.Clone(cur.Topics), i, i+1)
		if s.stillFails(&c, script) {
			cur = &c
		}
	}
	return cur
}

// trimDeclarations returns scn's processes, each receiving only the topics a process of scn sends
// or the script or the session writes to (an external topic nothing writes to brings it nothing),
// and sending only to topics a process of scn receives.
func trimDeclarations(scn *spec.Scenario, script []spec.ScriptedAction) []spec.ProcessSpec {
	sent, received := map[string]bool{}, map[string]bool{}
	for _, p := range scn.Processes {
		for _, t := range p.Sends {
			sent[t] = true
		}
		for _, t := range p.Receives {
			received[t] = true
		}
	}
	for i := range script {
		sent[script[i].Topic] = true
	}
	if scn.Session != nil {
		for _, t := range scn.Session.Writes {
			sent[t] = true
		}
	}
	out := slices.Clone(scn.Processes)
	for i := range out {
		out[i].Receives = slices.DeleteFunc(slices.Clone(out[i].Receives), func(t string) bool { return !sent[t] })
		out[i].Sends = slices.DeleteFunc(slices.Clone(out[i].Sends), func(t string) bool { return !received[t] })
	}
	return out
}

// stillFails runs a candidate topology with the script and reports whether it fails with the
// target first (one attempt of the budget).
func (s *shrinkRun) stillFails(scn *spec.Scenario, script []spec.ScriptedAction) bool {
	c := *scn
	c.Script = script
	if c.Validate() != nil {
		return false
	}
	s.attempts++
	return failsFirst(s.scriptRun(scn, script), s.target)
}

// usedTopics returns the topics a process of scn receives or sends, the session writes to, or an
// action of script names (its target, a cause, the record a stamp observes).
func usedTopics(scn *spec.Scenario, script []spec.ScriptedAction) map[string]bool {
	used := map[string]bool{}
	for _, p := range scn.Processes {
		for _, t := range p.Receives {
			used[t] = true
		}
		for _, t := range p.Sends {
			used[t] = true
		}
	}
	if scn.Session != nil {
		for _, t := range scn.Session.Writes {
			used[t] = true
		}
	}
	for i := range script {
		a := &script[i]
		used[a.Topic] = true
		used[a.Observe.Topic] = true
		for _, c := range a.Causes {
			used[c.Topic] = true
		}
	}
	return used
}
