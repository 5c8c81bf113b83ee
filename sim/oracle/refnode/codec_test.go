package refnode

import (
	"testing"

	"pgregory.net/rapid"
)

// TestEncodedLenIsTheEncodingsLength holds the §4.5 size formula the budget checks use to the
// reference codec's encoding.
func TestEncodedLenIsTheEncodingsLength(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var m Positions
		for range rapid.IntRange(0, 40).Draw(t, "causes") {
			var c Channel
			c.Topic[0] = byte(rapid.IntRange(1, 5).Draw(t, "topic"))
			c.Partition = rapid.Int32Range(0, 1<<31-1).Draw(t, "partition")
			if rapid.Bool().Draw(t, "small partition") {
				c.Partition %= 300
			}
			m.Set(c, Position(rapid.Int64Range(0, int64(End)-1).Draw(t, "position")))
		}
		if got, want := encodedLen(m), len(encodeCauses(m)); got != want {
			t.Fatalf("encodedLen %d, encoding %d bytes", got, want)
		}
	})
}
