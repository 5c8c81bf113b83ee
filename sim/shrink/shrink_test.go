package shrink

import (
	"slices"
	"testing"
)

// containsInOrder is a synthetic failure: the list holds want as a subsequence.
func containsInOrder(want ...int) Test {
	return func(choices []int) (bool, int) {
		i := 0
		for _, c := range choices {
			if i < len(want) && c == want[i] {
				i++
			}
		}
		return i == len(want), len(choices)
	}
}

// TestShrinkChoicesMinimal: a failure that needs a 3 and later a 5 shrinks to exactly [3 5],
// whatever surrounds them, and deterministically.
func TestShrinkChoicesMinimal(t *testing.T) {
	in := []int{1, 4, 0, 2, 3, 1, 1, 7, 0, 2, 5, 6, 6, 1, 0, 2}
	got, st := Choices(in, containsInOrder(3, 5), 500)
	if !slices.Equal(got, []int{3, 5}) || st.Exhausted {
		t.Fatalf("shrunk to %v (%+v), want [3 5] within the budget", got, st)
	}
	again, st2 := Choices(in, containsInOrder(3, 5), 500)
	if !slices.Equal(again, got) || st2 != st {
		t.Fatalf("second shrink gave %v %+v, first %v %+v", again, st2, got, st)
	}
	if in[4] != 3 || len(in) != 16 {
		t.Fatal("Choices modified its input")
	}
}

// TestShrinkChoicesPrefixAndLowering: a failure that needs any value >= 2 at index 5 keeps a
// prefix of six choices and lowers the first five to 0 and the sixth to 2.
func TestShrinkChoicesPrefixAndLowering(t *testing.T) {
	test := func(choices []int) (bool, int) { return len(choices) > 5 && choices[5] >= 2, len(choices) }
	got, st := Choices([]int{3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5}, test, 500)
	if !slices.Equal(got, []int{0, 0, 0, 0, 0, 2}) || st.Prefix != 6 || st.Lowered == 0 {
		t.Fatalf("shrunk to %v (%+v), want [0 0 0 0 0 2] after a prefix of 6", got, st)
	}
}

// TestShrinkChoicesUsedCut: a run that uses fewer choices than given is kept cut to them.
func TestShrinkChoicesUsedCut(t *testing.T) {
	test := func(choices []int) (bool, int) {
		return slices.Contains(choices, 7), min(len(choices), 1+slices.Index(choices, 7))
	}
	got, _ := Choices([]int{7, 1, 1, 1}, test, 500)
	if !slices.Equal(got, []int{7}) {
		t.Fatalf("shrunk to %v, want [7]", got)
	}
}

// TestShrinkChoicesBudget: the attempts bound is respected and reported.
func TestShrinkChoicesBudget(t *testing.T) {
	in := make([]int, 200)
	for i := range in {
		in[i] = i % 5
	}
	_, st := Choices(in, containsInOrder(4, 4, 4), 7)
	if st.Attempts != 7 || !st.Exhausted {
		t.Fatalf("stats %+v, want exactly 7 attempts and Exhausted", st)
	}
}

// TestShrinkListWithoutLowering: with no lowering a list is only cut, never changed: the
// failure needing "b" then "d" keeps exactly those elements.
func TestShrinkListWithoutLowering(t *testing.T) {
	test := func(l []string) (bool, int) {
		i := slices.Index(l, "b")
		return i >= 0 && slices.Contains(l[i:], "d"), len(l)
	}
	got, st := List([]string{"a", "b", "c", "a", "d", "e"}, test, nil, 100)
	if !slices.Equal(got, []string{"b", "d"}) || st.Lowered != 0 {
		t.Fatalf("shrunk to %q (%+v), want [b d] with nothing lowered", got, st)
	}
}
