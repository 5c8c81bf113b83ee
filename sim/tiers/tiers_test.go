package tiers

import (
	"bytes"
	"reflect"
	"slices"
	"testing"

	"github.com/parsleysim/parsleysim/node"
	"github.com/parsleysim/parsleysim/sim/choose"
	"github.com/parsleysim/parsleysim/sim/oracle"
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/substrate"
)

// The session actors on a host of their own: a model substrate with every topic created once
// (channel i is topic i's partition 0), an oracle told of the channels, a seeded chooser.

// fakeHost is a world reduced to what the actors reach: no processes run, so a test delivers
// and commits projectors' rows itself.
type fakeHost struct {
	t        *testing.T
	or       *oracle.Oracle
	sub      *substrate.Model
	chooser  choose.Chooser
	counts   map[string]int
	produced []uint64 // the uids produced, in order
	recorded []spec.ScriptedAction
}

func (h *fakeHost) Choose(label string, weights []uint32) int {
	return h.chooser.Choose(label, weights)
}
func (h *fakeHost) ChooseFrom(label string, o choose.Options) int {
	if oc, ok := h.chooser.(interface {
		ChooseFrom(string, choose.Options) int
	}); ok {
		return oc.ChooseFrom(label, o)
	}
	return h.chooser.Choose(label, o.Dense(nil))
}
func (h *fakeHost) Record(a spec.ScriptedAction) { h.recorded = append(h.recorded, a) }
func (h *fakeHost) At() oracle.At                { return oracle.At{Step: len(h.produced)} }
func (h *fakeHost) Tracing() bool                { return false }
func (h *fakeHost) Emit(string, int, string)     { h.t.Fatal("an untraced run emitted an event") }
func (h *fakeHost) EmitChan(string, int32, int64, uint64, string) {
	h.t.Fatal("an untraced run emitted an event")
}
func (h *fakeHost) Count(name string) { h.counts[name]++ }
func (h *fakeHost) LiveChannel(t, part int) int32 {
	return map[bool]int32{true: int32(t), false: -1}[part == 0]
}
func (h *fakeHost) Payload() (key, value []byte) { return []byte{1}, []byte{0, 1, 2, 3, 4} }
func (h *fakeHost) HoldsBack(int) bool           { return false }
func (h *fakeHost) Frontier(int) node.Causes     { return node.Causes{} }
func (h *fakeHost) HighWatermark(ch int32) int64 {
	offs, err := h.sub.ListOffsets(substrate.TopicPartition{Topic: substrate.TopicID(h.or.Channel(ch).Topic)})
	if err != nil {
		h.t.Fatal(err)
	}
	return int64(offs.HighWatermark)
}
func (h *fakeHost) Produced(ch int32, pos int64, uid uint64, committed bool) {
	h.produced = append(h.produced, uid)
}

// shop is orders and payments (written by the session tiers) and audit (written, never
// projected); view projects orders and payments for the read model "fast".
func shop() *spec.Scenario {
	return &spec.Scenario{
		Name: "shop",
		Topics: []spec.TopicSpec{
			{Name: "orders", Partitions: 1, External: true},
			{Name: "payments", Partitions: 1, External: true},
			{Name: "audit", Partitions: 1, External: true},
		},
		Processes: []spec.ProcessSpec{{Name: "view", Receives: []string{"orders", "payments"}}},
		Session: &spec.SessionSpec{
			Clients: 2, Writes: []string{"orders", "payments", "audit"},
			Models: []spec.ReadModelSpec{{Name: "fast", Partitions: [][]string{{"view"}}}},
		},
	}
}

// newActors builds scn's actors under mode on a fakeHost.
func newActors(t *testing.T, scn *spec.Scenario, mode spec.HostSabotage) (*Actors, *fakeHost) {
	t.Helper()
	names := make([]string, len(scn.Topics))
	for i := range scn.Topics {
		names[i] = scn.Topics[i].Name
	}
	or := oracle.New(names, nil, 0)
	h := &fakeHost{t: t, or: &or, sub: substrate.NewModel(nil), chooser: choose.NewRandom(1), counts: map[string]int{}}
	for i, ts := range scn.Topics {
		id, err := h.sub.CreateTopic(ts.Name, ts.Partitions)
		if err != nil {
			t.Fatal(err)
		}
		or.OnChannelCreated(int32(i), node.Channel{Topic: node.TopicID(id)}, i, int32(i), 0)
	}
	s, err := New(scn, mode, h.or, h.sub, h)
	if err != nil {
		t.Fatal(err)
	}
	return s, h
}

func write(client int, topic string) *spec.ScriptedAction {
	return &spec.ScriptedAction{Kind: spec.ActSessionWrite, Topic: topic, Session: &spec.SessionAction{Client: client}}
}

func read(client int, model string) *spec.ScriptedAction {
	return &spec.ScriptedAction{Kind: spec.ActSessionRead, Session: &spec.SessionAction{Client: client, Model: model}}
}

// do performs scripted actions, failing the test on one that does not apply.
func do(t *testing.T, s *Actors, as ...*spec.ScriptedAction) {
	t.Helper()
	for _, a := range as {
		if !s.DoScripted(a) {
			t.Fatalf("%s %s does not apply", a.Kind, a.Topic)
		}
	}
}

func TestReadServedOnceTheRowIsCommitted(t *testing.T) {
	s, h := newActors(t, shop(), spec.HostHonest)
	do(t, s, write(0, "orders"), read(0, "fast"))
	if h.counts["reads_retry"] != 1 || h.counts["reads_served"] != 0 {
		t.Fatalf("a read before view projected the write: %v, want it unanswered", h.counts)
	}
	s.OnDeliver(0, h.produced[0])
	do(t, s, read(0, "fast"))
	if h.counts["reads_retry"] != 2 {
		t.Fatalf("a read before view committed its row: %v, want it unanswered", h.counts)
	}
	s.OnCommit(0)
	do(t, s, read(0, "fast"))
	if h.counts["reads_served"] != 1 {
		t.Fatalf("a read after view committed its row: %v, want it served", h.counts)
	}
	if v := h.or.Violations(); len(v) > 0 {
		t.Fatalf("honest tiers: %v", v)
	}
	if s.DoScripted(write(0, "nowhere")) || s.DoScripted(read(5, "fast")) || s.DoScripted(read(0, "slow")) {
		t.Fatal("a scripted action naming no topic, client or model of the run applied")
	}
}

func TestRolledBackRowsNeverExisted(t *testing.T) {
	s, h := newActors(t, shop(), spec.HostHonest)
	do(t, s, write(0, "orders"))
	s.OnDeliver(0, h.produced[0])
	s.OnRollback(0)
	s.OnCommit(0)
	do(t, s, read(0, "fast"))
	if h.counts["reads_served"] != 0 {
		t.Fatalf("a read of a rolled-back row: %v, want it unanswered", h.counts)
	}
}

func TestCloneIsIndependent(t *testing.T) {
	s, h := newActors(t, shop(), spec.HostHonest)
	do(t, s, write(0, "orders"))
	s.OnDeliver(0, h.produced[0])
	before := s.AppendCanonical(nil)

	or := *h.or // as the world's clone copies its oracle before cloning its parts
	or.CloneFrom(h.or, oracle.Storage{})
	ch := &fakeHost{t: t, or: &or, sub: h.sub.CloneWithIDs(nil), chooser: choose.NewRandom(2), counts: map[string]int{}, produced: slices.Clone(h.produced)}
	c := s.Clone(ch, ch.or, ch.sub)
	if got := c.AppendCanonical(nil); !bytes.Equal(got, before) {
		t.Fatal("a clone encodes another state than its original")
	}
	c.OnCommit(0)
	do(t, c, write(1, "payments"), read(0, "fast"))
	if ch.counts["reads_served"] != 1 || len(ch.produced) != 2 {
		t.Fatalf("the clone's counts %v, produced %v: want a served read and two writes", ch.counts, ch.produced)
	}
	if got := s.AppendCanonical(nil); !bytes.Equal(got, before) {
		t.Fatal("acting on a clone changed its original")
	}
	if bytes.Equal(c.AppendCanonical(nil), before) {
		t.Fatal("the clone's actions are not in its encoding")
	}
	if (*Actors)(nil).Clone(ch, ch.or, ch.sub) != nil || !bytes.Equal((*Actors)(nil).AppendCanonical(nil), []byte{0}) {
		t.Fatal("a run without sessions clones to actors or encodes more than a marker")
	}
}

// TestCloneCoversEveryField fails when a field is added to a struct Clone copies, so clone.go and
// hash.go are revisited.
func TestCloneCoversEveryField(t *testing.T) {
	known := map[string][]string{
		"Actors": {"host", "or", "sub", // the clone's own, given to Clone
			"scn", "spec", "mode", "writes", "models", "txn", "entriesMax", "bytesMax", "patience", // fixed after New
			"weights", // scratch
			"clients", "projections", "nextSession", "ops", "truth"},
		"client":     {"session", "token", "damage", "waiting", "reading"},
		"projection": {"ownOnly", "recorded", "own", "rows", "staged"},
	}
	for _, v := range []any{Actors{}, client{}, projection{}} {
		typ := reflect.TypeOf(v)
		for i := range typ.NumField() {
			if name := typ.Field(i).Name; !slices.Contains(known[typ.Name()], name) {
				t.Errorf("%s.%s is new: make clone.go copy it and hash.go encode it if it is state, then list it here", typ.Name(), name)
			}
		}
	}
}

func TestDamagedTokensNeverDecode(t *testing.T) {
	s, h := newActors(t, shop(), spec.HostHonest)
	do(t, s, write(0, "orders"), write(1, "payments"))
	s.OnDeliver(0, h.produced[0])
	s.OnDeliver(0, h.produced[1])
	s.OnCommit(0)
	do(t, s, read(0, "fast"))
	whole := s.clients[0].token
	if got, err := s.tierDecode(whole); err != nil || got.Causes().Len() != 2 {
		t.Fatalf("the token a served read minted decodes to %v (%v), want two channels", got, err)
	}
	for _, tok := range [][]byte{{0x01, 0x00}, whole} {
		for d := spec.TokenTruncated; d < spec.NumTokenDamages; d++ {
			if _, err := s.tierDecode(damageToken(d, tok)); err == nil {
				t.Fatalf("%s of %x decodes", d, tok)
			}
		}
	}
	// The salvaging parser recovers the whole frontier behind a bad version byte.
	if got := salvage(damageToken(spec.TokenBadVersion, whole)); got.Len() != 2 {
		t.Fatalf("salvage of a bad version byte kept %v", got)
	}
}
