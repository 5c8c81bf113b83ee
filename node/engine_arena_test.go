package node

import (
	"errors"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// TestDecodeCausesMatchesDecode: the engine's chunked decode gives exactly Decode's answer (causes
// or error) on valid and damaged values, every result's capacity ends at its length, and no later
// decode changes an earlier result (results never overlap).
func TestDecodeCausesMatchesDecode(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		e := newEngine(Init{}, Options{})
		var kept, copies []Causes
		var c chanState // the sender: its last list, as Receive keeps it
		for i := range rapid.IntRange(1, 30).Draw(t, "values") {
			var f Causes
			if len(c.lastList) > 0 && rapid.Bool().Draw(t, "repeat") {
				f = repeatList(t, c.lastList) // the last list again, perhaps changed by a channel
			} else {
				f = rapid.OneOf(genFrontier(), genSimpleFrontier()).Draw(t, "frontier")
			}
			in := Encode(f)
			if rapid.Bool().Draw(t, "mutated") {
				in = mutate(t, in)
			}
			want, wantErr := Decode(in)
			got, same, err := decodeCauses(e, in, &c)
			if (err == nil) != (wantErr == nil) || (err != nil && err.Error() != wantErr.Error()) || !got.Equal(want) {
				t.Fatalf("value %d %x: decodeCauses = %v, %v; Decode = %v, %v", i, in, got, err, want, wantErr)
			}
			if wantSame := err == nil && sameChannels(c.lastList, got.pairs); same != wantSame {
				t.Fatalf("value %d %x: same = %v after %v, want %v", i, in, same, c.lastList, wantSame)
			}
			if err == nil {
				c.lastList, c.lastSimple = got.pairs, simpleList(got.pairs)
			}
			if cap(got.pairs) != len(got.pairs) {
				t.Fatalf("value %d: capacity %d beyond length %d", i, cap(got.pairs), len(got.pairs))
			}
			kept, copies = append(kept, got), append(copies, got.Clone())
		}
		for i := range kept {
			if !kept[i].Equal(copies[i]) {
				t.Fatalf("result %d changed from %v to %v", i, copies[i], kept[i])
			}
		}
	})
}

// decodeCauses is the decode of Receive's extractCauses on value alone, as received on c, an
// undecodable value's refusal detail returned as the error.
func decodeCauses(e *Engine, value []byte, c *chanState) (Causes, bool, error) {
	causes, same, r := e.extractCauses(c, 0, []Header{{Key: HeaderKey, Value: value}})
	if r != nil {
		if r.Reason != ReasonUndecodableMetadata {
			return Causes{}, false, r
		}
		return Causes{}, false, errors.New(r.Detail)
	}
	return causes, same, nil
}

// TestDecodeCausesAmortisesAllocations: narrow headers share chunks, so decoding many of them
// allocates about once a chunk, not once a header.
func TestDecodeCausesAmortisesAllocations(t *testing.T) {
	value := Encode(CausesOf(Cause{fxChannel(1, 0), 5}, Cause{fxChannel(2, 0), 6}))
	e := newEngine(Init{}, Options{})
	allocs := testing.AllocsPerRun(1000, func() {
		if c, _, err := decodeCauses(e, value, &chanState{}); err != nil || c.Len() != 2 {
			t.Fatalf("decodeCauses = %v, %v", c, err)
		}
	})
	if allocs > 2.0/causeChunkPairs*1.5 {
		t.Fatalf("%.3f allocations per two-entry header, want about one per %d entries", allocs, causeChunkPairs)
	}
}

// TestDecodeSameRefusesBeforeReserving: a value whose shape is not that of a value naming the list
// (another entry count, another length, another version) costs the arena's decodeSame no room: no
// allocation for a list too long to share a chunk, no new chunk for a short one.
func TestDecodeSameRefusesBeforeReserving(t *testing.T) {
	for _, n := range []int{3, causeChunkShareMax + 4} {
		var list []Cause
		for k := range n {
			list = append(list, Cause{etCh(byte(k+1), 0), 1})
		}
		if !simpleList(list) {
			t.Fatalf("list %v is not simple", list)
		}
		same := Encode(CausesOf(list...))
		truncated := same[:len(same)-1]
		version := slices.Clone(same)
		version[0]++
		values := map[string][]byte{
			"longer":    Encode(CausesOf(append(slices.Clone(list), Cause{etCh(200, 0), 1})...)),
			"shorter":   Encode(CausesOf(list[1:]...)),
			"truncated": truncated,
			"version":   version,
			"empty":     nil,
		}
		for name, v := range values {
			full := make([]Cause, causeChunkPairs) // a chunk with no room left
			a := causeArena{chunk: full}
			allocs := testing.AllocsPerRun(100, func() {
				if _, ok := a.decodeSame(v, list); ok {
					t.Fatalf("%d entries, %s: decodeSame accepted %x", n, name, v)
				}
			})
			if replaced := &a.chunk[:1][0] != &full[0] || len(a.chunk) != len(full); allocs != 0 || replaced {
				t.Fatalf("%d entries, %s: %v allocations, chunk replaced %v", n, name, allocs, replaced)
			}
		}
		a := causeArena{}
		if got, ok := a.decodeSame(same, list); !ok || !got.Equal(CausesOf(list...)) {
			t.Fatalf("%d entries: decodeSame of the list itself = %v, %v", n, got, ok)
		}
	}
}
