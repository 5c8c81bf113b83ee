package trace

import "fmt"

// DeterminismReport compares the traces of two runs that should be identical (the same scenario,
// settings and seed): principle 2, "same seed, same hash".
type DeterminismReport struct {
	Events     [2]int    // events in each run
	Hashes     [2]string // each run's trace hash
	FirstDiff  int       // index of the first differing event; -1 when the traces are identical
	Step       int       // the scheduler step of that event (of the first run, or the second if the first ended)
	First      *Event    // the first run's event at FirstDiff; nil if the first run ended earlier
	Second     *Event    // the second run's event at FirstDiff; nil if the second run ended earlier
	Identical  bool      // the traces agree event for event
	HashesSame bool      // the hashes agree (always equal to Identical unless FNV collides)
}

// CheckDeterminism calls run twice, each time with a fresh collecting and hashing sink, and
// compares the two traces event by event. run must perform one complete run that sends every
// event to the sink it is given (for example by adding it to RunOptions.Sinks).
func CheckDeterminism(run func(sink Sink)) DeterminismReport {
	var traces [2]CollectSink
	var hashes [2]HashSink
	for i := range 2 {
		run(multiSink{&traces[i], &hashes[i]})
	}
	rep := CompareTraces(traces[0].Events, traces[1].Events)
	rep.Hashes = [2]string{hashes[0].Sum(), hashes[1].Sum()}
	rep.HashesSame = rep.Hashes[0] == rep.Hashes[1]
	return rep
}

// CompareTraces compares two traces event by event and reports the first difference.
func CompareTraces(a, b []Event) DeterminismReport {
	rep := DeterminismReport{Events: [2]int{len(a), len(b)}, FirstDiff: -1, Step: -1}
	n := min(len(a), len(b))
	for i := range n {
		if !sameEvent(&a[i], &b[i]) {
			rep.FirstDiff, rep.Step, rep.First, rep.Second = i, a[i].Step, &a[i], &b[i]
			return rep
		}
	}
	switch {
	case len(a) > n:
		rep.FirstDiff, rep.Step, rep.First = n, a[n].Step, &a[n]
	case len(b) > n:
		rep.FirstDiff, rep.Step, rep.Second = n, b[n].Step, &b[n]
	default:
		rep.Identical = true
	}
	return rep
}

func sameEvent(a, b *Event) bool {
	na, nb := a.ActionName, b.ActionName
	if na == "" {
		na = a.Action.String()
	}
	if nb == "" {
		nb = b.Action.String()
	}
	x, y := *a, *b
	x.ActionName, y.ActionName = na, nb
	return x == y
}

// String says in one or three lines whether the runs agreed and, if not, where they first differ.
func (r DeterminismReport) String() string {
	if r.Identical && r.HashesSame {
		return fmt.Sprintf("deterministic: both runs produced the same %d events, hash %s", r.Events[0], r.Hashes[0])
	}
	if r.Identical {
		return fmt.Sprintf("NOT deterministic: identical %d events but hashes %s and %s", r.Events[0], r.Hashes[0], r.Hashes[1])
	}
	return fmt.Sprintf("NOT deterministic: the runs first differ at step %d (event %d of %d and %d)\n  first run:  %s\n  second run: %s",
		r.Step, r.FirstDiff, r.Events[0], r.Events[1], eventOrEnd(r.First), eventOrEnd(r.Second))
}

func eventOrEnd(ev *Event) string {
	if ev == nil {
		return "(the run had ended)"
	}
	return FormatEvent(ev)
}

// multiSink sends every event to each of its sinks in order.
type multiSink []Sink

func (m multiSink) Record(ev *Event) {
	for _, s := range m {
		s.Record(ev)
	}
}
