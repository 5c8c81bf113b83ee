package scopes

import (
	"fmt"
	"slices"
	"strings"

	"github.com/parsleysim/parsleysim/sim"
	"github.com/parsleysim/parsleysim/sim/explore/budget"
	"github.com/parsleysim/parsleysim/sim/spec"
)

// The small-scope catalogue: named scopes small enough to
// explore every schedule, chosen so that every sabotage mode of the engine, the host (except
// TREAT_COVERED_FEED_AS_REPLAY, whose guard no honest host reaches) and the session tiers is
// caught by the exhaustive exploration of at least one of them, while the honest engine and tiers
// are clean in all of them (TestScopeCatalogue). A scope is a topology plus a budget of messages,
// faults and session actions.

// Scope is one entry of the catalogue.
type Scope struct {
	Name    string
	Summary string
	// Family is FamilyShaped for the hand-written scopes, FamilyGeneral for the generated ones;
	// Fault is a general scope's fault kind ("none" for none).
	Family, Fault string
	// Budget is the scope's budget (budget.Parse syntax); MaxDepth bounds the steps (0: none).
	Budget   string
	MaxDepth int
	// Catches lists the sabotage modes the scope is meant to catch (documentation and test).
	Catches []string
	// Reference marks the reference scope, the one speed is measured on (slow: explored behind a
	// flag in tests).
	Reference bool
	Build     func() *spec.Scenario
}

// Options returns the exploration options of the scope (budget parsed; sabotage added by the
// caller).
func (s Scope) Options() (sim.ExploreOptions, error) {
	b, err := budget.Parse(s.Budget)
	if err != nil {
		return sim.ExploreOptions{}, fmt.Errorf("scope %s: %w", s.Name, err)
	}
	return sim.ExploreOptions{Budget: b, MaxDepth: s.MaxDepth, Reduce: true}, nil
}

func ext(name string) spec.TopicSpec {
	return spec.TopicSpec{Name: name, Partitions: 1, External: true}
}
func internal(name string) spec.TopicSpec { return spec.TopicSpec{Name: name, Partitions: 1} }

// oneReceiver is one process receiving the given external topics (and sending to out if send).
func oneReceiver(name string, send bool, topics ...string) func() *spec.Scenario {
	return func() *spec.Scenario {
		scn := &spec.Scenario{Name: name}
		for _, t := range topics {
			scn.Topics = append(scn.Topics, ext(t))
		}
		p := spec.ProcessSpec{Name: "p", Receives: topics}
		if send {
			scn.Topics = append(scn.Topics, internal("out"))
			p.Sends = []string{"out"}
		}
		scn.Processes = []spec.ProcessSpec{p}
		return scn
	}
}

// scopes is the catalogue, in the order listed.
var scopes = []Scope{
	{Name: "crash_hold", Summary: "one process, two records, one crash: a committed hold must survive the restart",
		Budget: "msgs=2,crash=1", Catches: []string{"DROP_HELD"}, Build: oneReceiver("crash_hold", false, "a")},
	{Name: "stamped_fanin", Summary: "one forwarding process over three external topics, a record stamped by an observer of another",
		Budget: "msgs=2,stamped=1", Catches: []string{"IGNORE_CAUSES", "NO_FIFO", "SKIP_RECEIPT_MERGE", "OVEREXPRESS"},
		Build: oneReceiver("stamped_fanin", true, "x", "a", "b")},
	{Name: "rewind_replay", Summary: "one process stopped and rewound below what it delivered: the refeed is a replay",
		Budget: "msgs=1,stop=1,rewind=1", Catches: []string{"REDELIVER_REFEEDS"}, Build: oneReceiver("rewind_replay", false, "a")},
	{Name: "corrupt_header", Summary: "one process fed a record with an undecodable header",
		Budget: "msgs=1,corrupt=1", Catches: []string{"UNDECODABLE_AS_ABSENT"}, Build: oneReceiver("corrupt_header", false, "a")},
	{Name: "redeclare_held", Summary: "one process stopped and redeclared without a channel it holds a record on",
		Budget: "msgs=1,stop=1,redeclare=1", Catches: []string{"IGNORE_REMOVED_CHANNELS"},
		Build: func() *spec.Scenario {
			return &spec.Scenario{Name: "redeclare_held", Topics: []spec.TopicSpec{ext("a"), ext("b")},
				Processes: []spec.ProcessSpec{{Name: "p", Receives: []string{"a"}}}}
		}},
	{Name: "fourth_record", Summary: "one process fed four records of one channel",
		Budget: "msgs=4", Catches: []string{"SILENT_DROP"}, Build: oneReceiver("fourth_record", false, "a")},
	{Name: "recreate_received", Summary: "one process whose received topic is recreated under its name",
		Budget: "msgs=1,recreate=1", Catches: []string{"IGNORE_RECREATION"}, Build: oneReceiver("recreate_received", false, "a")},
	{Name: "delete_held", Summary: "one process over two topics, one deleted while it holds a record from it",
		Budget: "msgs=2,delete=1", Catches: []string{"DELIVER_PAST_DEAD_HOLDS"}, Build: oneReceiver("delete_held", false, "a", "b")},
	{Name: "truncate_unread", Summary: "one process whose unread records are truncated away",
		Budget: "msgs=1,truncate=1", Catches: []string{"RESET_PAST_LOG_START"}, Build: oneReceiver("truncate_unread", false, "a")},
	{Name: "commit_crash", Summary: "one forwarding process, a crash between two calls of its commit sequence",
		Budget: "msgs=1,commitcrash=1", Catches: []string{"STATE_BEFORE_COMMIT", "STATE_AFTER_COMMIT", "OFFSETS_OUTSIDE_TXN"},
		Build: oneReceiver("commit_crash", true, "a")},
	{Name: "zombie_commit", Summary: "one forwarding process superseded while its step is open: the old execution runs its commit",
		Budget: "msgs=1,zombie=1", Catches: []string{"ZOMBIE_IGNORES_FENCE", "OFFSETS_OUTSIDE_TXN"},
		Build: oneReceiver("zombie_commit", true, "a")},
	{Name: "chain", Summary: "two processes: p1 forwards ext to mid, p2 receives ext and mid",
		Budget: "msgs=2", Catches: []string{"IGNORE_CAUSES"},
		Build: func() *spec.Scenario {
			return &spec.Scenario{Name: "chain", Topics: []spec.TopicSpec{ext("ext"), internal("mid")},
				Processes: []spec.ProcessSpec{
					{Name: "p1", Receives: []string{"ext"}, Sends: []string{"mid"}},
					{Name: "p2", Receives: []string{"ext", "mid"}},
				}}
		}},
	{Name: "reference", Summary: "the issue's reference scope: 2 processes, 3 channels, 4 messages, one crash, one deletion, one truncation",
		Budget: "msgs=4,crash=1,delete=1,truncate=1", Reference: true,
		Build: func() *spec.Scenario {
			return &spec.Scenario{Name: "reference", Topics: []spec.TopicSpec{ext("a"), ext("b"), internal("mid")},
				Processes: []spec.ProcessSpec{
					{Name: "p1", Receives: []string{"a"}, Sends: []string{"mid"}},
					{Name: "p2", Receives: []string{"b", "mid"}},
				}}
		}},
}

// The catalogue's families: the scopes shaped for the sabotage modes (this file and
// session.go), and the general family of every small wiring (general.go).
const (
	FamilyShaped  = "shaped"
	FamilyGeneral = "general"
)

// Families lists the families in catalogue order.
func Families() []string { return []string{FamilyShaped, FamilyGeneral} }

// ShapedScopes returns the shaped family in order: the engine and host scopes, then the session
// scopes (session.go).
func ShapedScopes() []Scope {
	out := append(slices.Clone(scopes), sessionScopes...)
	for i := range out {
		out[i].Family = FamilyShaped
	}
	return out
}

// Scopes returns the whole catalogue in order: the shaped family, then the general family.
func Scopes() []Scope { return append(ShapedScopes(), generalScopes()...) }

// FamilyScopes returns the scopes of the named family, or an error naming the families.
func FamilyScopes(family string) ([]Scope, error) {
	switch family {
	case FamilyShaped:
		return ShapedScopes(), nil
	case FamilyGeneral:
		return GeneralScopes(), nil
	}
	return nil, fmt.Errorf("unknown scope family %q (known: %s)", family, strings.Join(Families(), ", "))
}

// LookupScope returns the scope named name, or an error listing the shaped scopes' names and
// the general family's form.
func LookupScope(name string) (Scope, error) {
	shaped := ShapedScopes()
	for _, s := range shaped {
		if s.Name == name {
			return s, nil
		}
	}
	if s, ok := generalByName()[name]; ok {
		return s, nil
	}
	names := make([]string, len(shaped))
	for i, s := range shaped {
		names[i] = s.Name
	}
	return Scope{}, fmt.Errorf("unknown scope %q (known: %s, and the general family general.FAULT.WIRING: 'simrun explore --list --family general')", name, strings.Join(names, ", "))
}
