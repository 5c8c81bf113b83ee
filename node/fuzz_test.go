package node

import (
	"bytes"
	"errors"
	"testing"
)

// FuzzDecode checks the decoder on arbitrary bytes: it never panics, every refusal is a
// *DecodeError from the fixed family set with an offset inside the input, a refusal yields no
// causes, and any accepted input re-encodes byte-identically (one frontier, one spelling). The
// seed corpus is testdata/fuzz/FuzzDecode/ (the SPEC §4.6–§4.7 vectors). Run it with:
//
//	go test -run '^$' -fuzz FuzzDecode -fuzztime 60s ./node/
func FuzzDecode(f *testing.F) {
	families := map[Family]bool{}
	for _, fam := range []Family{FamilyNullValue, FamilyTruncated, FamilyTrailingBytes, FamilyUnknownVersion,
		FamilyNegativePosition, FamilyReservedPosition, FamilyZeroTopicID, FamilyTopicsNotAscending,
		FamilyPartitionsNotAscending, FamilyZeroPartitions, FamilyNonMinimalVarint, FamilyVarintOverflow} {
		families[fam] = true
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		c, err := Decode(in)
		if err != nil {
			var de *DecodeError
			if !errors.As(err, &de) || !families[de.Family] || de.Offset < 0 || de.Offset > len(in) || de.Detail == "" {
				t.Fatalf("Decode(%x): malformed refusal %#v", in, err)
			}
			if !c.IsEmpty() {
				t.Fatalf("Decode(%x) refused but returned %v", in, c)
			}
			return
		}
		if re := Encode(c); !bytes.Equal(re, in) {
			t.Fatalf("Decode(%x) = %v, which re-encodes as %x", in, c, re)
		}
		var into Causes
		if err := DecodeInto(&into, in); err != nil || !into.Equal(c) {
			t.Fatalf("DecodeInto(%x) = %v, %v; Decode gave %v", in, into, err, c)
		}
	})
}
