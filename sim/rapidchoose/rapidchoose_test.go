package rapidchoose

import (
	"flag"
	"fmt"
	"testing"

	"pgregory.net/rapid"
)

func TestChooserNeverPicksZeroWeight(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(1, 8).Draw(rt, "n")
		weights := make([]uint32, n)
		for i := range weights {
			weights[i] = uint32(rapid.IntRange(0, 3).Draw(rt, "w"))
		}
		weights[rapid.IntRange(0, n-1).Draw(rt, "on")] = 1
		c := New(rt)
		for range 5 {
			got := c.Choose("pick", weights)
			if got < 0 || got >= n || weights[got] == 0 {
				rt.Fatalf("chose %d from %v", got, weights)
			}
		}
	})
}

// TestChooserShrinksSchedule: a property that fails whenever option 3 is ever chosen must
// shrink to a schedule of zeros with a single 3, showing rapid drives (and shrinks) the choices.
func TestChooserShrinksSchedule(t *testing.T) {
	var minimal []int
	failing := func(rt *rapid.T) {
		c := New(rt)
		var got []int
		for range 10 {
			got = append(got, c.Choose("action", []uint32{1, 1, 1, 1}))
		}
		for _, g := range got {
			if g == 3 {
				minimal = got
				rt.Fatalf("chose 3")
			}
		}
	}
	// The failure is deliberate: write no fail file for it.
	f := flag.Lookup("rapid.nofailfile")
	old := f.Value.String()
	if err := f.Value.Set("true"); err != nil {
		t.Fatal(err)
	}
	defer f.Value.Set(old)
	ft := &fakeTB{}
	rapid.Check(ft, failing)
	if !ft.failed {
		t.Fatal("rapid never found a schedule choosing 3")
	}
	threes, others := 0, 0
	for _, g := range minimal {
		if g == 3 {
			threes++
		} else if g != 0 {
			others++
		}
	}
	if threes != 1 || others != 0 {
		t.Fatalf("shrunk schedule %v: want exactly one 3 and zeros elsewhere", minimal)
	}
}

// fakeTB is a rapid.TB that records failure instead of failing the enclosing test, so a test can
// check what rapid shrank a deliberately failing property to.
type fakeTB struct {
	failed bool
	logs   []string
}

func (f *fakeTB) Helper()                       {}
func (f *fakeTB) Name() string                  { return "fake" }
func (f *fakeTB) Logf(format string, a ...any)  { f.logs = append(f.logs, fmt.Sprintf(format, a...)) }
func (f *fakeTB) Log(a ...any)                  { f.logs = append(f.logs, fmt.Sprint(a...)) }
func (f *fakeTB) Skipf(format string, a ...any) {}
func (f *fakeTB) Skip(a ...any)                 {}
func (f *fakeTB) SkipNow()                      {}
func (f *fakeTB) Errorf(format string, a ...any) {
	f.failed = true
}
func (f *fakeTB) Error(a ...any)                 { f.failed = true }
func (f *fakeTB) Fatalf(format string, a ...any) { f.failed = true }
func (f *fakeTB) Fatal(a ...any)                 { f.failed = true }
func (f *fakeTB) FailNow()                       { f.failed = true }
func (f *fakeTB) Fail()                          { f.failed = true }
func (f *fakeTB) Failed() bool                   { return f.failed }
