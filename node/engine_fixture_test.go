package node

import (
	"errors"
	"fmt"
	"testing"
)

// etT is what the assertion helpers need from *testing.T and *rapid.T.
type etT interface {
	Helper()
	Fatalf(format string, args ...any)
}

// Fixtures shared by the engine tests. Topic n has ID bytes n, 0, ..., 0, 1 so topics order by n.

func etTopic(n byte) TopicID {
	var id TopicID
	id[0], id[15] = n, 1
	return id
}

func etCh(topic byte, partition Partition) Channel {
	return Channel{Topic: etTopic(topic), Partition: partition}
}

func etCause(ch Channel, pos Offset) Cause { return Cause{Channel: ch, Position: pos} }

// etRec builds a record whose parsley.causes header carries causes (no header when none are given
// and stamped is false).
func etRec(value string, causes ...Cause) Record {
	r := Record{Key: []byte("k"), Value: []byte(value), TimestampMicros: 42}
	if len(causes) > 0 {
		r.Headers = []Header{{Key: HeaderKey, Value: Encode(CausesOf(causes...))}}
	}
	return r
}

// etRaw builds a record with one parsley.causes header of raw bytes.
func etRaw(value []byte) Record {
	return Record{Value: []byte("v"), Headers: []Header{{Key: HeaderKey, Value: value}}}
}

// etInit declares received channels with start position 0, send topics and no bindings.
func etInit(received ...Channel) Init {
	return Init{Received: received}
}

// etStart starts an engine and fails the test on a refusal.
func etStart(t testing.TB, st *State, init Init, opts Options) *Engine {
	t.Helper()
	e, err := Start(st, init, opts)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	return e
}

// etFeed receives a record and fails the test on a refusal; it returns the outcome.
func etFeed(t testing.TB, e *Engine, ch Channel, pos Offset, rec Record) ReceiveOutcome {
	t.Helper()
	out, err := e.Receive(ch, pos, rec)
	if err != nil {
		t.Fatalf("Receive %v@%d: %v", ch, pos, err)
	}
	return out
}

// etDrain delivers everything deliverable and returns "topic/partition@pos" of each delivery,
// topic rendered as its fixture number.
func etDrain(e *Engine) []string {
	var out []string
	for {
		d, ok := e.Next()
		if !ok {
			return out
		}
		out = append(out, etName(d.Channel, d.Position))
	}
}

func etName(ch Channel, pos Offset) string {
	return fmt.Sprintf("t%d/%d@%d", ch.Topic[0], ch.Partition, pos)
}

// etRefusal asserts err is a *Refusal with reason want and returns it.
func etRefusal(t etT, err error, want Reason) *Refusal {
	t.Helper()
	var r *Refusal
	if !errors.As(err, &r) {
		t.Fatalf("want refusal %s, got %v", want, err)
	}
	if r.Reason != want {
		t.Fatalf("want refusal %s, got %v", want, r)
	}
	return r
}

// etEqual fails the test when got and want differ (as strings).
func etEqual[T any](t etT, what string, got, want T) {
	t.Helper()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("%s:\n got %v\nwant %v", what, got, want)
	}
}

// etRestart commits the engine's step into st (creating it when nil) and starts a new execution
// from it with the same received set and start positions.
func etRestart(t testing.TB, e *Engine, st *State, init Init, opts Options) (*Engine, *State) {
	t.Helper()
	if st == nil {
		st = &State{}
	}
	if err := st.Apply(e.Commit()); err != nil {
		t.Fatalf("Apply: %v", err)
	}
	return etStart(t, st.Clone(), init, opts), st
}

// etStateDump renders every part of a committed state, held records included, so that two dumps
// differ whenever the content does.
func etStateDump(st *State) string {
	s := fmt.Sprint(st.Version(), st.Bindings(), st.FedPositions(), st.Frontier(), st.DeliveredPast())
	for _, ch := range st.HeldChannels() {
		s += fmt.Sprintf(" %v:%+v", ch, st.Held(ch))
	}
	return s
}
