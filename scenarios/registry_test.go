package scenarios

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestRandomScenarioValid(t *testing.T) {
	for seed := range uint64(300) {
		a, b := Random(seed, RandomOptions{}), Random(seed, RandomOptions{})
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("seed %d: Random built two different scenarios", seed)
		}
		if err := a.Validate(); err != nil {
			t.Fatalf("seed %d: scenario invalid: %v", seed, err)
		}
	}
	if err := Random(7, RandomOptions{Processes: 1000}).Validate(); err != nil {
		t.Fatal(err)
	}
}

func TestRegistry(t *testing.T) {
	if !slices.Contains(Names(), RandomName) || !slices.IsSorted(Names()) {
		t.Fatalf("Names() = %v, want sorted and containing random", Names())
	}
	b, ok := Lookup(RandomName)
	if !ok || b.Summary == "" {
		t.Fatalf("Lookup(random) = %+v, %v", b, ok)
	}
	scn, err := Build(RandomName, 5, Options{})
	if err != nil || !reflect.DeepEqual(scn, Random(5, RandomOptions{})) {
		t.Fatalf("Build(random, 5) = %v, %v; want Random(5)", scn, err)
	}
	if _, ok := Lookup("nope"); ok {
		t.Fatal("Lookup(nope) found something")
	}
	if _, err := Build("nope", 1, Options{}); err == nil || !strings.Contains(err.Error(), `"nope"`) || !strings.Contains(err.Error(), RandomName) {
		t.Fatalf("Build(nope) error %v, want it to name nope and list random", err)
	}
	if _, err := Build(RandomName, 1, Options{Processes: 1}); err == nil {
		t.Fatal("Build(random, --processes 1) succeeded")
	}
}
