package node

import (
	"slices"
	"testing"
)

// TestStartIntoKeepsAnEqualDeclaration checks that StartInto keeps a dead engine's channel keys,
// send topics and bindings when the new engine's are the same (send topics given in another
// order, with a duplicate), makes new ones when they differ, and never changes what a clone of
// the dead engine shares with it; every restarted engine emits exactly as a fresh one.
func TestStartIntoKeepsAnEqualDeclaration(t *testing.T) {
	a, b, c := etCh(1, 0), etCh(2, 0), etCh(3, 0)
	t4, t5, t6 := etTopic(4), etTopic(5), etTopic(6)
	decl := Init{Received: []Channel{b, a}, SendTopics: []TopicID{t5, t4, t5},
		Bindings: []Binding{{Name: "one", Topic: a.Topic}, {Name: "two", Topic: b.Topic}}}
	first := etStart(t, &State{}, decl, Options{})
	st := &State{}
	if err := st.Apply(first.Commit()); err != nil {
		t.Fatal(err)
	}
	clone := first.Clone() // shares keys, send topics and bindings with first
	keys, sends, bindings := slices.Clone(clone.keys), slices.Clone(clone.sendTopics), slices.Clone(clone.bindings)

	same, err := StartInto(first, st, decl, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if &same.keys[0] != &clone.keys[0] || &same.sendTopics[0] != &clone.sendTopics[0] || &same.bindings[0] != &clone.bindings[0] {
		t.Fatal("a restart with the same declaration did not keep the dead engine's lists")
	}
	emits := func(e *Engine) []bool {
		var out []bool
		for _, id := range []TopicID{t4, t5, t6} {
			_, err := e.Clone().Emit(Channel{Topic: id}, etRec("out"))
			out = append(out, err == nil)
		}
		return out
	}
	fresh := etStart(t, st, decl, Options{})
	etEqual(t, "same declaration", same.AppendCanonical(nil, rawEncoder{}), fresh.AppendCanonical(nil, rawEncoder{}))
	etEqual(t, "emissions", emits(same), []bool{true, true, false})

	other := Init{Received: []Channel{a, c}, SendTopics: []TopicID{t6, t4}, Bindings: decl.Bindings[:1]}
	changed, err := StartInto(same, st, other, Options{})
	if err != nil {
		t.Fatal(err)
	}
	fresh = etStart(t, st, other, Options{})
	etEqual(t, "keys", changed.keys, fresh.keys)
	etEqual(t, "send topics", changed.sendTopics, fresh.sendTopics)
	etEqual(t, "other declaration", changed.AppendCanonical(nil, rawEncoder{}), fresh.AppendCanonical(nil, rawEncoder{}))
	etEqual(t, "emissions", emits(changed), []bool{true, false, true})
	if !slices.Equal(clone.keys, keys) || !slices.Equal(clone.sendTopics, sends) || !slices.Equal(clone.bindings, bindings) {
		t.Fatal("restarting the dead engine changed what its clone shares")
	}
}
