package explore

import (
	"fmt"
	"slices"
	"testing"
)

// fakeStep is a step of two decisions: "a" over options 0-2 (1 disabled), then "b", with two
// options after a=0 and one after a=2. Its complete answer sequences are [0 0], [0 1] and [2 0].
func fakeStep(c *StepChooser) {
	a := c.Choose("a", []uint32{1, 0, 3})
	if a == 0 {
		c.Choose("b", []uint32{2, 1})
	} else {
		c.Choose("b", []uint32{1})
	}
}

// enumerate runs fakeStep once per prefix, as the search does, from the empty prefix, and
// returns every run's answers.
func enumerate(filter *Filter) []string {
	var c StepChooser
	queue := [][]int{nil}
	var out []string
	for len(queue) > 0 {
		pre := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		c.Reset(pre, filter)
		fakeStep(&c)
		for i := range c.Alternatives() {
			queue = append(queue, slices.Clone(c.Alternative(i)))
		}
		out = append(out, fmt.Sprint(c.Answers()))
	}
	slices.Sort(out)
	return out
}

// TestStepChooserEnumeratesEveryAnswer checks that running a step once per prefix a StepChooser
// collects finds each complete answer sequence once, that a filter restricts the decision it has
// a rule for, and that a forced prefix is answered as given. It fails if an enabled option were
// skipped or enumerated twice, or the filter ignored.
func TestStepChooserEnumeratesEveryAnswer(t *testing.T) {
	if got, want := enumerate(nil), []string{"[0 0]", "[0 1]", "[2 0]"}; !slices.Equal(got, want) {
		t.Fatalf("transitions %v, want %v", got, want)
	}
	var f Filter
	f.Allow("a", 1<<2)
	if got, want := enumerate(&f), []string{"[2 0]"}; !slices.Equal(got, want) {
		t.Fatalf("filtered transitions %v, want %v", got, want)
	}
	var c StepChooser
	c.Reset([]int{2}, nil)
	fakeStep(&c)
	if !slices.Equal(c.Answers(), []int{2, 0}) || c.Alternatives() != 0 {
		t.Fatalf("forced [2]: answers %v, %d alternatives", c.Answers(), c.Alternatives())
	}
}
