package node

import "testing"

// SPEC §2.3 IDENTITY, §2.5, §9.18: a recreated received topic refuses CHANNEL_IDENTITY_CHANGED.
func TestIdentityRecreatedReceivedTopicRefuses(t *testing.T) {
	a := etCh(1, 0)
	e := etStart(t, nil, etInit(a), Options{})
	r := etRefusal(t, e.Identity(nil, []TopicID{a.Topic}), ReasonChannelIdentityChanged)
	etEqual(t, "channel", r.Channel, a)
	if _, ok := e.Next(); ok {
		t.Fatal("delivered after refusal")
	}
}

// SPEC §1.5 rule 3, D46, §9.15, S9: a deleted received channel with held messages refuses.
func TestIdentityDeletedWithHoldsRefuses(t *testing.T) {
	a, z := etCh(1, 0), etCh(3, 0)
	init := etInit(a, z)
	e := etStart(t, nil, init, Options{})
	etFeed(t, e, a, 2, etRec("held", etCause(z, 0)))
	e, _ = etRestart(t, e, nil, init, Options{})
	r := etRefusal(t, e.Identity([]TopicID{a.Topic}, nil), ReasonChannelDeletedWithUndelivered)
	etEqual(t, "refusal", []any{r.Channel, r.Position}, []any{a, Offset(2)})
}

// SPEC §1.5 rule 3, §2.5 (deleted-channel marker), §9.14: a deleted received channel with nothing
// held gets fedUpTo = 2^63−1, which settles every cause on it; the marker is committed.
func TestIdentityDeletedSettlesEverything(t *testing.T) {
	a, d := etCh(1, 0), etCh(3, 0)
	init := etInit(a, d)
	e := etStart(t, nil, init, Options{})
	etFeed(t, e, a, 0, etRec("effect", etCause(d, 100)))
	etEqual(t, "held", etDrain(e), []string(nil))
	e, st := etRestart(t, e, nil, init, Options{})
	if err := e.Identity([]TopicID{d.Topic}, nil); err != nil {
		t.Fatal(err)
	}
	f, _ := e.FedUpTo(d)
	etEqual(t, "marker", f, MaxOffset)
	etEqual(t, "released", etDrain(e), []string{"t1/0@0"})
	if err := st.Apply(e.Commit()); err != nil {
		t.Fatal(err)
	}
	f, _ = st.FedUpTo(d)
	etEqual(t, "committed marker", f, MaxOffset)
}

// SPEC §3 Pruning, §2.5 recreation/retention, D75: dead and recreated topics are pruned from the
// frontier and delivered past (received or not); nothing else is pruned, however old.
func TestIdentityPrunesOnlyDeadAndRecreated(t *testing.T) {
	a, dead, old, keep := etCh(1, 0), etCh(4, 1), etCh(5, 0), etCh(6, 0)
	e := etStart(t, nil, etInit(a), Options{})
	etFeed(t, e, a, 0, etRec("x", etCause(dead, 3), etCause(old, 4), etCause(keep, 5)))
	etDrain(e)
	e, _ = etRestart(t, e, nil, etInit(a), Options{})
	if err := e.Identity([]TopicID{dead.Topic}, []TopicID{old.Topic}); err != nil {
		t.Fatal(err)
	}
	etEqual(t, "frontier", e.Frontier().String(), CausesOf(etCause(a, 0), etCause(keep, 5)).String())
	etEqual(t, "past", e.DeliveredPast().String(), CausesOf(etCause(keep, 5)).String())
	d := e.Commit()
	etEqual(t, "pruned in delta", d.FrontierRemoved, []Channel{dead, old})
	etEqual(t, "status bytes", e.Status().FrontierBytes, EncodedLen(e.Frontier()))
}

// SPEC §2.5 recreation, §9.19: a cause naming a dead incarnation's ID never blocks a receiver of the
// new incarnation.
func TestIdentityOldIncarnationCauseDoesNotBlock(t *testing.T) {
	oldID, newCh := etCh(4, 0), etCh(5, 0)
	a := etCh(1, 0)
	e := etStart(t, nil, etInit(a, newCh), Options{})
	etFeed(t, e, a, 0, etRec("x", etCause(oldID, 9)))
	etEqual(t, "delivered", etDrain(e), []string{"t1/0@0"})
}

// The identity report is once per initialisation.
func TestIdentityTwicePanics(t *testing.T) {
	e := etStart(t, nil, etInit(etCh(1, 0)), Options{})
	if err := e.Identity(nil, nil); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("no panic")
		}
	}()
	e.Identity(nil, nil)
}
