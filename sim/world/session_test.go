package world

import (
	"strings"
	"testing"

	"github.com/parsleysim/parsleysim/sim/spec"
)

// Each session tier sabotage mode is caught by a small scripted scope, next to the same script
// run with honest tiers, which must pass; and the by-design refusals are refusals, not violations.

// shop is orders and payments (external, written by the session tiers) and audit (written, never
// projected); view and view2 project orders and payments (two replicas, as separate read models so
// a script picks the replica), events-view projects only events (sent by enricher) behind the
// handler seam.
func shop(script ...spec.ScriptedAction) *spec.Scenario {
	return &spec.Scenario{
		Name: "shop",
		Topics: []spec.TopicSpec{
			{Name: "orders", Partitions: 1, External: true},
			{Name: "payments", Partitions: 1, External: true},
			{Name: "audit", Partitions: 1, External: true},
			{Name: "events", Partitions: 1},
		},
		Processes: []spec.ProcessSpec{
			{Name: "view", Receives: []string{"orders", "payments"}},
			{Name: "view2", Receives: []string{"orders", "payments"}},
			{Name: "enricher", Receives: []string{"orders"}, Sends: []string{"events"}},
			{Name: "events-view", Receives: []string{"events"}},
		},
		Session: &spec.SessionSpec{
			Clients: 2, Writes: []string{"orders", "payments", "audit"},
			Models: []spec.ReadModelSpec{
				{Name: "fast", Partitions: [][]string{{"view"}}},
				{Name: "slow", Partitions: [][]string{{"view2"}}},
				{Name: "both", Partitions: [][]string{{"view", "view2"}}},
				{Name: "events", Partitions: [][]string{{"events-view"}}, OwnCoordinatesOnly: true},
			},
		},
		Script: script,
	}
}

func sWrite(client int, topic string) spec.ScriptedAction {
	return spec.ScriptedAction{Kind: spec.ActSessionWrite, Topic: topic, Session: &spec.SessionAction{Client: client}}
}

func sTxnWrite(client int, topic string, commit bool) spec.ScriptedAction {
	return spec.ScriptedAction{Kind: spec.ActSessionWrite, Topic: topic, Session: &spec.SessionAction{Client: client, Txn: true, Commit: commit}}
}

func sRead(client int, model string) spec.ScriptedAction {
	return spec.ScriptedAction{Kind: spec.ActSessionRead, Session: &spec.SessionAction{Client: client, Model: model}}
}

func sDamage(client int, d spec.TokenDamage) spec.ScriptedAction {
	return spec.ScriptedAction{Kind: spec.ActTokenDamage, Session: &spec.SessionAction{Client: client, Damage: d}}
}

// settleStep feeds every record of the named topics to p, drains and commits.
func settleStep(p string, topics ...string) []spec.ScriptedAction {
	var out []spec.ScriptedAction
	for _, t := range topics {
		out = append(out, act(spec.ActFeed, p, t), act(spec.ActFeed, p, t))
	}
	return append(out, act(spec.ActDrain, p, ""), act(spec.ActCommit, p, ""))
}

// runSession runs a scripted session scope honestly and with the tier mode.
func runSession(t *testing.T, mode spec.HostSabotage, script []spec.ScriptedAction) (honest, broken *spec.Result) {
	t.Helper()
	honest = runScripted(shop(script...), RunOptions{}, false)
	broken = runScripted(shop(script...), RunOptions{HostSabotage: mode}, false)
	return honest, broken
}

// expectSession asserts that the sabotaged run broke crit with a detail naming the client, its
// session and an operation, and that the honest run passed.
func expectSession(t *testing.T, crit spec.Criterion, honest, broken *spec.Result) {
	t.Helper()
	if honest.Verdict != "pass" {
		t.Fatalf("honest run: %v", honest.Violations)
	}
	for _, v := range broken.Violations {
		if v.Criterion == crit {
			if !strings.Contains(v.Detail, "client ") || !strings.Contains(v.Detail, "session ") || !strings.Contains(v.Detail, "op ") {
				t.Fatalf("%s violation does not name client, session and operation: %s", crit, v.Detail)
			}
			return
		}
	}
	t.Fatalf("no %s violation; got %v", crit, broken.Violations)
}

func TestSessionReadSkipsUnknownChannels(t *testing.T) {
	// Client 0 writes audit, which no projection records: the honest read tier must refuse.
	script := []spec.ScriptedAction{sWrite(0, "audit"), sRead(0, "fast")}
	honest, broken := runSession(t, spec.SessionReadSkipsUnknownChannels, script)
	expectSession(t, spec.CritSessionCoverage, honest, broken)
	expectSession(t, spec.CritSessionRYW, honest, broken)
	if honest.Stats.Session["reads_retry"] != 1 || honest.Stats.Session["reads_served"] != 0 {
		t.Fatalf("honest read tier: %v, want one unanswered read", honest.Stats.Session)
	}
}

func TestSessionWriteMergesLogEnd(t *testing.T) {
	honest, broken := runSession(t, spec.SessionWriteMergesLogEnd, []spec.ScriptedAction{sWrite(0, "orders")})
	expectSession(t, spec.CritSessionToken, honest, broken)
}

func TestSessionWriteMergesBeforeCommit(t *testing.T) {
	// A transactional write that aborts: its offset must never reach the token.
	script := []spec.ScriptedAction{sTxnWrite(0, "orders", true), sTxnWrite(0, "orders", false)}
	honest, broken := runSession(t, spec.SessionWriteMergesBeforeCommit, script)
	expectSession(t, spec.CritSessionToken, honest, broken)
	if honest.Stats.Session["writes_aborted"] != 1 {
		t.Fatalf("honest stats %v, want one aborted write", honest.Stats.Session)
	}
}

func TestSessionTokenSalvage(t *testing.T) {
	// A read gives client 0 a token naming orders@0; the token is truncated in flight on the
	// next write. The honest write tier refuses it (a new session); the salvaging tier writes
	// with the partial frontier, dropping what the session read.
	script := append([]spec.ScriptedAction{{Kind: spec.ActProducePlain, Topic: "orders"}}, settleStep("view", "orders")...)
	script = append(script, sRead(0, "fast"), sDamage(0, spec.TokenTruncated), sWrite(0, "payments"))
	honest, broken := runSession(t, spec.SessionTokenSalvage, script)
	expectSession(t, spec.CritSessionDamaged, honest, broken)
	expectSession(t, spec.CritSessionWFR, honest, broken)
	if honest.Stats.Session["token_refused"] != 1 {
		t.Fatalf("honest stats %v, want the damaged token refused", honest.Stats.Session)
	}
}

// frontierAhead makes view2's engine frontier name client 0's write orders@1 while view2 still
// holds it back: client 1 reads orders@1 from view and writes payments@0 carrying it; view2 is fed
// payments@0 (held: orders@1 is not delivered) and delivers orders@0 only, then commits.
func frontierAhead() []spec.ScriptedAction {
	s := []spec.ScriptedAction{{Kind: spec.ActProducePlain, Topic: "orders"}, sWrite(0, "orders")}
	s = append(s, settleStep("view", "orders")...)
	s = append(s, sRead(1, "fast"), sWrite(1, "payments"))
	s = append(s, act(spec.ActFeed, "view2", "payments"), act(spec.ActFeed, "view2", "orders"), act(spec.ActDrain, "view2", ""), act(spec.ActCommit, "view2", ""))
	return append(s, sRead(0, "slow"))
}

func TestSessionProjectorRecordsFrontier(t *testing.T) {
	honest, broken := runSession(t, spec.SessionProjectorRecordsFrontier, frontierAhead())
	expectSession(t, spec.CritSessionRYW, honest, broken)
	expectSession(t, spec.CritSessionCoverage, honest, broken)
}

func TestSessionMonotonicReads(t *testing.T) {
	// Client 0 reads orders@0 from view, then reads view2, which has projected nothing: the
	// skipping read tier serves it, and the second read no longer shows the first one's row.
	script := append([]spec.ScriptedAction{{Kind: spec.ActProducePlain, Topic: "orders"}}, settleStep("view", "orders")...)
	script = append(script, sRead(0, "fast"), sRead(0, "slow"))
	honest, broken := runSession(t, spec.SessionReadSkipsUnknownChannels, script)
	expectSession(t, spec.CritSessionMR, honest, broken)
}

func TestSessionRedirectToCaughtUpReplica(t *testing.T) {
	// Client 0 writes orders@0; only view has projected it. A read of "both" that tries view2
	// first must be redirected to view, and served.
	script := append([]spec.ScriptedAction{sWrite(0, "orders")}, settleStep("view", "orders")...)
	script = append(script, spec.ScriptedAction{Kind: spec.ActSessionRead, Session: &spec.SessionAction{Client: 0, Model: "both", Replica: 1}})
	res := runScripted(shop(script...), RunOptions{}, false)
	if res.Verdict != "pass" || res.Stats.Session["reads_redirected"] != 1 || res.Stats.Session["reads_served"] != 1 {
		t.Fatalf("verdict %s, stats %v, violations %v: want one redirected, served read", res.Verdict, res.Stats.Session, res.Violations)
	}
}

func TestSessionSeamModelRefusesForever(t *testing.T) {
	// events-view records only its own coordinates on events: it can never cover a token naming
	// orders (SPEC §5.3 known limitation). After everything settles the read is still refused,
	// and refusing is no violation; the client gives the session up after Patience reads.
	script := []spec.ScriptedAction{sWrite(0, "orders")}
	script = append(script, settleStep("enricher", "orders")...)
	script = append(script, settleStep("events-view", "events")...)
	for range spec.DefaultSessionPatience {
		script = append(script, sRead(0, "events"))
	}
	res := runScripted(shop(script...), RunOptions{}, true)
	st := res.Stats.Session
	if res.Verdict != "pass" || st["reads_served"] != 0 || st["reads_retry"] != spec.DefaultSessionPatience || st["sessions_abandoned"] != 1 {
		t.Fatalf("verdict %s, stats %v, violations %v", res.Verdict, st, res.Violations)
	}
	if res.Stats.Deliveries == 0 {
		t.Fatal("nothing was delivered: the scope does not reach the model")
	}
}

func TestSessionTokenNamingDeletedChannel(t *testing.T) {
	// Client 0 writes audit, audit is deleted: no projection will ever record it, so every read
	// is refused until the client starts a new session, and a fresh session reads again.
	script := []spec.ScriptedAction{sWrite(0, "audit"), {Kind: spec.ActDeleteTopic, Topic: "audit"}}
	for range spec.DefaultSessionPatience + 1 {
		script = append(script, sRead(0, "fast"))
	}
	res := runScripted(shop(script...), RunOptions{}, false)
	st := res.Stats.Session
	if res.Verdict != "pass" || st["reads_retry"] != spec.DefaultSessionPatience || st["reads_served"] != 1 {
		t.Fatalf("verdict %s, stats %v, violations %v", res.Verdict, st, res.Violations)
	}
}
