package node

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// Each sabotage mode runs a scenario that shows the one rule it changes: the honest engine gives
// `honest`, the sabotaged one `sabotaged`.
func TestSabotageModesChangeTheirRule(t *testing.T) {
	a, b, z := etCh(1, 0), etCh(2, 0), etCh(3, 0)
	out := etCh(8, 0)
	cases := []struct {
		mode              Sabotage
		honest, sabotaged string
		run               func(t *testing.T, opts Options) string
	}{
		{SabotageIgnoreCauses, "[]", "[t2/0@0]", func(t *testing.T, o Options) string {
			e := etStart(t, nil, etInit(a, b), o)
			etFeed(t, e, b, 0, etRec("effect", etCause(a, 0)))
			return fmt.Sprint(etDrain(e))
		}},
		{SabotageNoFIFO, "[]", "[t2/0@1]", func(t *testing.T, o Options) string {
			e := etStart(t, nil, etInit(a, b), o)
			etFeed(t, e, b, 0, etRec("blocked", etCause(a, 0)))
			etFeed(t, e, b, 1, etRec("free"))
			return fmt.Sprint(etDrain(e))
		}},
		{SabotageRedeliverRefeeds, "duplicate []", "held [t1/0@0]", func(t *testing.T, o Options) string {
			e := etStart(t, nil, etInit(a), o)
			etFeed(t, e, a, 0, etRec("x"))
			etDrain(e)
			e, _ = etRestart(t, e, nil, etInit(a), o)
			return fmt.Sprint(etFeed(t, e, a, 0, etRec("x")), " ", etDrain(e))
		}},
		{SabotageUndecodableAsAbsent, "UNDECODABLE_METADATA", "[t1/0@0 t1/0@1]", func(t *testing.T, o Options) string {
			e := etStart(t, nil, etInit(a), o)
			valid := Encode(CausesOf(etCause(z, 0)))
			if _, err := e.Receive(a, 0, etRaw([]byte{9, 9})); err != nil {
				return string(err.(*Refusal).Reason)
			}
			if _, err := e.Receive(a, 1, Record{Headers: []Header{{HeaderKey, valid}, {HeaderKey, valid}}}); err != nil {
				return string(err.(*Refusal).Reason)
			}
			return fmt.Sprint(etDrain(e))
		}},
		{SabotageSkipReceiptMerge, "2 3", "0 3", func(t *testing.T, o Options) string {
			e := etStart(t, nil, etInit(a, b), o)
			etFeed(t, e, b, 0, etRec("held", etCause(a, 0), etCause(z, 4)))
			before := e.Frontier().Len()
			etFeed(t, e, a, 0, etRec("cause"))
			etDrain(e)
			return fmt.Sprint(before, " ", e.Frontier().Len()) // delivery merges them in both
		}},
		{SabotageDropHeld, "1 held after restart", "0 held after restart", func(t *testing.T, o Options) string {
			e := etStart(t, nil, etInit(a, b), o)
			etFeed(t, e, b, 0, etRec("held", etCause(a, 0)))
			e, _ = etRestart(t, e, nil, etInit(a, b), o)
			return fmt.Sprint(e.Status().Held, " held after restart")
		}},
		{SabotageIgnoreRemovedChannels, "CHANNEL_REMOVED_WITH_HELD_MESSAGES", "started, removes [{" + b.String() + "}@0]", func(t *testing.T, o Options) string {
			e := etStart(t, nil, etInit(a, b), o)
			etFeed(t, e, b, 0, etRec("held", etCause(a, 0)))
			st := &State{}
			if err := st.Apply(e.Commit()); err != nil {
				t.Fatal(err)
			}
			e, err := Start(st, etInit(a), o)
			if err != nil {
				return string(err.(*Refusal).Reason)
			}
			d := e.Commit()
			return fmt.Sprintf("started, removes [{%v}@%d]", d.RemovedHolds[0].Channel, d.RemovedHolds[0].Position)
		}},
		{SabotageSilentDrop, "held [t1/0@2 t1/0@3]", "duplicate [t1/0@2]", func(t *testing.T, o Options) string {
			e := etStart(t, nil, etInit(a), o)
			etFeed(t, e, a, 2, etRec("x"))
			return fmt.Sprint(etFeed(t, e, a, 3, etRec("x")), " ", etDrain(e))
		}},
		{SabotageOverexpress, CausesOf(etCause(a, 0)).String(), CausesOf(etCause(a, 0), etCause(b, 5)).String(), func(t *testing.T, o Options) string {
			e := etStart(t, nil, Init{Received: []Channel{a, b}, SendTopics: []TopicID{out.Topic}}, o)
			etFeed(t, e, b, 5, etRec("held", etCause(a, 0)))
			rec, err := e.Emit(out, Record{})
			if err != nil {
				t.Fatal(err)
			}
			c, _ := ExtractCauses(rec.Headers)
			return c.String()
		}},
		{SabotageIgnoreRecreation, "CHANNEL_IDENTITY_CHANGED", "carried on", func(t *testing.T, o Options) string {
			e := etStart(t, nil, etInit(a), o)
			if err := e.Identity(nil, []TopicID{a.Topic}); err != nil {
				return string(err.(*Refusal).Reason)
			}
			return "carried on"
		}},
		{SabotageDeliverPastDeadHolds, "CHANNEL_DELETED_WITH_UNDELIVERED_MESSAGES", "[t2/0@0]", func(t *testing.T, o Options) string {
			e := etStart(t, nil, etInit(a, b, z), o)
			etFeed(t, e, a, 0, etRec("held", etCause(z, 0)))
			e, _ = etRestart(t, e, nil, etInit(a, b, z), o)
			if err := e.Identity([]TopicID{a.Topic}, nil); err != nil {
				return string(err.(*Refusal).Reason)
			}
			etFeed(t, e, b, 0, etRec("other"))
			return fmt.Sprint(etDrain(e))
		}},
		{SabotageTreatCoveredFeedAsReplay, "COVERED_POSITION_FED", "duplicate", func(t *testing.T, o Options) string {
			e := etStart(t, nil, etInit(a), o)
			e.chans[0].fed, e.chans[0].fedKnown = 10, true // unreachable by an in-order host; see TestReceiveCoveredPositionRefuses
			out, err := e.Receive(a, 7, etRec("x"))
			if err != nil {
				return string(err.(*Refusal).Reason)
			}
			return out.String()
		}},
	}
	var covered []Sabotage
	for _, tc := range cases {
		t.Run(tc.mode.String(), func(t *testing.T) {
			etEqual(t, "honest", tc.run(t, Options{}), tc.honest)
			etEqual(t, "sabotaged", tc.run(t, Options{Sabotage: tc.mode}), tc.sabotaged)
		})
		covered = append(covered, tc.mode)
	}
	etEqual(t, "every mode has a test", covered, SabotageModes())
}

// The sabotage names are exactly the twelve of issue 3 and parse back.
func TestSabotageNames(t *testing.T) {
	var names []string
	for _, m := range SabotageModes() {
		names = append(names, m.String())
		got, err := parseSabotage(m.String())
		if err != nil || got != m {
			t.Fatalf("parseSabotage(%s) = %v, %v", m, got, err)
		}
	}
	want := []string{"IGNORE_CAUSES", "NO_FIFO", "REDELIVER_REFEEDS", "UNDECODABLE_AS_ABSENT", "SKIP_RECEIPT_MERGE",
		"DROP_HELD", "IGNORE_REMOVED_CHANNELS", "SILENT_DROP", "OVEREXPRESS", "IGNORE_RECREATION",
		"DELIVER_PAST_DEAD_HOLDS", "TREAT_COVERED_FEED_AS_REPLAY"}
	etEqual(t, "names", names, want)
	if s, err := parseSabotage(""); err != nil || s != SabotageNone || s.String() != "NONE" {
		t.Fatal("empty name is not the honest engine")
	}
	_, err := parseSabotage("IGNORE_EVERYTHING")
	if err == nil || !strings.Contains(err.Error(), "IGNORE_EVERYTHING") || !strings.Contains(err.Error(), "NO_FIFO") {
		t.Fatalf("error does not name the input and the valid names: %v", err)
	}
	if slices.Contains(SabotageModes(), SabotageNone) {
		t.Fatal("SabotageModes lists the honest engine")
	}
}
