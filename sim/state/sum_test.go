package state

import (
	"slices"
	"testing"
)

// TestSum64 checks the state hash's function on inputs of every length class it reads
// differently (empty, under 4, under 16, under 48 and longer bytes): fixed keys give fixed values,
// and a change in any byte or in the length changes the hash.
func TestSum64(t *testing.T) {
	h := NewSum64(1)
	seen := map[uint64]int{}
	for n := range 130 {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(i*7 + 1)
		}
		variants := [][]byte{b}
		for i := range b {
			c := slices.Clone(b)
			c[i] ^= 0x80
			variants = append(variants, c)
		}
		for _, v := range variants {
			s := h.Sum(v)
			if s != h.Sum(slices.Clone(v)) {
				t.Fatalf("length %d: two hashes of one input differ", n)
			}
			if prev, dup := seen[s]; dup {
				t.Fatalf("length %d: a variant hashes like an input of length %d", n, prev)
			}
			seen[s] = n
		}
	}
	other := NewSum64(2)
	if h.Sum([]byte("state")) == other.Sum([]byte("state")) {
		t.Fatal("two keys hash an input alike")
	}
}
