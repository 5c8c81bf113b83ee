package node

import (
	"bytes"
	"encoding/hex"
	"strings"
	"testing"
)

func mustHex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.NewReplacer(" ", "", "|", "").Replace(s))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestGoldenVector checks the frozen 63-byte golden encoding of SPEC §4.6 both ways.
func TestGoldenVector(t *testing.T) {
	golden := mustHex(t, "01 02 | 01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f 10 | 02 | 02 00 00 00 00 00 00 00 29 | 05 00 00 00 00 00 00 00 07 | f1 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f 10 | 01 | 00 00 00 00 00 00 00 00 09")
	var a, b TopicID
	for i := range a {
		a[i] = byte(i + 1)
		b[i] = byte(i + 1)
	}
	b[0] = 0xf1
	want := CausesOf(
		Cause{Channel{b, 0}, 9},
		Cause{Channel{a, 5}, 7},
		Cause{Channel{a, 2}, 41},
	)
	if got := Encode(want); !bytes.Equal(got, golden) {
		t.Fatalf("Encode = %x\nwant     %x", got, golden)
	}
	if EncodedLen(want) != 63 {
		t.Fatalf("EncodedLen = %d, want 63", EncodedLen(want))
	}
	got, err := Decode(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Equal(want) {
		t.Fatalf("Decode = %v, want %v", got, want)
	}
}
