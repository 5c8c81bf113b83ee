package state

import (
	"slices"
	"testing"
)

// TestSum64 checks the state hash's function on inputs of every length class it reads
// differently (empty, under 4, under 16, under 48 and longer bytes): fixed keys give fixed values
// (the golden values below, so a changed secret, constant or step fails it), and a change in any
// byte or in the length changes the hash.
func TestSum64(t *testing.T) {
	h := NewSum64(1)
	golden := map[int]uint64{
		0:   0x1104257e15722455,
		3:   0xd054e54bf575d84b,
		15:  0x4f97daa89a037a4a,
		47:  0x1ab7b3ca1a062b4c,
		129: 0x25e0c83f37d4ab5d,
	}
	seen := map[uint64]int{}
	for n := range 130 {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(i*7 + 1)
		}
		if want, ok := golden[n]; ok && h.Sum(b) != want {
			t.Errorf("length %d: hash %#016x, want %#016x", n, h.Sum(b), want)
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
