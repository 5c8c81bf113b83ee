package substrate

import (
	"errors"
	"fmt"
	"testing"
)

// TestFetchRangeErrorReadsAsBefore checks that a fetch outside the log (below the log start after
// a truncation, above the high watermark) fails with ErrOffsetOutOfRange and the message
// fmt.Errorf("%w: fetch ...") gave, which traces and error reports print.
func TestFetchRangeErrorReadsAsBefore(t *testing.T) {
	m := NewSeededModel(4)
	if _, err := m.CreateTopic("a", 1); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		mustProduce(t, m, "a", Record{Value: []byte("v")})
	}
	tp := tpOf(t, m, "a")
	if err := m.DeleteRecords(tp, 2); err != nil {
		t.Fatal(err)
	}
	for _, from := range []Offset{0, 1, 4, 9} {
		_, next, err := m.FetchInto(nil, tp, from, 1)
		want := fmt.Errorf("%w: fetch %s/%d from %d outside [%d, %d]", ErrOffsetOutOfRange, tp.Topic, tp.Partition, from, 2, 3)
		if err == nil || !errors.Is(err, ErrOffsetOutOfRange) || err.Error() != want.Error() || next != from {
			t.Fatalf("fetch from %d: %v (next %d), want %v", from, err, next, want)
		}
	}
	if _, _, err := m.FetchInto(nil, tp, 2, 1); err != nil {
		t.Fatalf("fetch from the log start: %v", err)
	}
}
