package benchmarks

import "testing"

// TestEngineWorkFlatInDepth: the drain and commit workloads do the same work per operation at
// depths 16 to 4096 (the engine offers only heads; depth 1 is cheaper, as its buffer empties
// between operations), and every workload delivers what it should.
func TestEngineWorkFlatInDepth(t *testing.T) {
	work, err := EngineWork()
	if err != nil {
		t.Fatal(err)
	}
	for _, kind := range []string{"drain", "commit"} {
		base := work[kind+"/depth=16"]
		for _, depth := range []string{"256", "4096"} {
			w := work[kind+"/depth="+depth]
			if w["deliveries"] != 2*workloadOps {
				t.Errorf("%s/depth=%s: %d deliveries, want %d", kind, depth, w["deliveries"], 2*workloadOps)
			}
			for _, k := range []string{"causes_compared", "header_bytes_decoded", "holds_added"} {
				if w[k] != base[k] {
					t.Errorf("%s/depth=%s: %s = %d, depth 16 has %d (work grows with depth)", kind, depth, k, w[k], base[k])
				}
			}
		}
	}
	for _, name := range []string{"chain", "fan_in=8"} {
		if work[name]["deliveries"] != workloadOps {
			t.Errorf("%s: %d deliveries, want %d", name, work[name]["deliveries"], workloadOps)
		}
	}
	t.Log(work)
}

// TestAllocsDeterministic: two measurements agree exactly (the gate compares them exactly), and
// the reused-buffer decode allocates nothing.
func TestAllocsDeterministic(t *testing.T) {
	a, err := Allocs()
	if err != nil {
		t.Fatal(err)
	}
	b, err := Allocs()
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range a {
		if b[k] != v {
			t.Errorf("%s: %d then %d allocations per op", k, v, b[k])
		}
	}
	if a["node.DecodeInto/entries=1"] != 0 {
		t.Errorf("DecodeInto of one entry allocates %d times", a["node.DecodeInto/entries=1"])
	}
	t.Log(a)
}
