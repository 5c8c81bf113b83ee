package main

import (
	"fmt"
	"io"
	"sync"

	"github.com/parsleysim/parsleysim/scenarios/scopes"
)

// exploreScopes explores scopes, a.jobs at a time (explorations share nothing), and returns
// their reports in the given order, printing each human report as soon as every scope before it
// is done. With a.first it stops at the first scope, in order, with a violation: scopes after
// it are not explored (or their reports dropped), scopes before it finish.
func exploreScopes(list []scopes.Scope, a exploreArgs, stdout, stderr io.Writer, progress bool) ([]scopeReport, error) {
	jobs := min(max(a.jobs, 1), len(list))
	reports := make([]scopeReport, len(list))
	done := make([]bool, len(list))
	var (
		mu       sync.Mutex
		next     int // scopes handed out
		printed  int // reports printed (a prefix)
		finished int
		cutoff   = len(list) // with a.first: one past the first scope with a violation
		firstErr error
	)
	report := func(i int, r scopeReport, err error) {
		mu.Lock()
		defer mu.Unlock()
		finished++
		if err != nil && firstErr == nil {
			firstErr = err
		}
		reports[i], done[i] = r, true
		if a.first && r.Verdict == "violation" && i < cutoff {
			cutoff = i + 1
		}
		for printed < cutoff && done[printed] {
			if !a.jsonOut {
				reports[printed].print(stdout)
			}
			printed++
		}
		if progress && jobs > 1 {
			fmt.Fprintf(stderr, "\r%d of %d scopes explored   ", finished, len(list))
		}
	}
	take := func() (int, bool) {
		mu.Lock()
		defer mu.Unlock()
		if next >= cutoff || firstErr != nil {
			return 0, false
		}
		next++
		return next - 1, true
	}
	var wg sync.WaitGroup
	for range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i, ok := take(); ok; i, ok = take() {
				r, err := exploreScope(list[i], a, stderr, progress && jobs == 1)
				report(i, r, err)
			}
		}()
	}
	wg.Wait()
	if progress && jobs > 1 {
		fmt.Fprint(stderr, "\r\033[K")
	}
	return reports[:min(cutoff, printed)], firstErr
}

// printCatalogueSummary prints one line per family, and per fault kind of the general family:
// scopes, states, transitions, distinct terminal states, the scopes' time added up, and verdict;
// then the wall-clock time with the number of workers.
func printCatalogueSummary(w io.Writer, reports []scopeReport, jobs int, wall float64) {
	type sum struct {
		key                                string
		scopes, states, trans, terms, viol int
		incomplete                         int
		seconds                            float64
	}
	var sums []*sum
	get := func(key string) *sum {
		for _, s := range sums {
			if s.key == key {
				return s
			}
		}
		s := &sum{key: key}
		sums = append(sums, s)
		return s
	}
	for _, r := range reports {
		keys := []string{"family " + r.Family}
		if r.Fault != "" {
			keys = append(keys, "  "+r.Family+" "+r.Fault)
		}
		for _, k := range keys {
			s := get(k)
			s.scopes++
			s.states += r.States
			s.trans += r.Transitions
			s.terms += r.TerminalStates
			s.seconds += r.Seconds
			if r.Verdict != "pass" {
				s.viol++
			}
			if !r.Complete {
				s.incomplete++
			}
		}
	}
	fmt.Fprintln(w, "summary:")
	for _, s := range sums {
		verdict := "PASS"
		if s.viol > 0 {
			verdict = fmt.Sprintf("VIOLATION in %d scopes", s.viol)
		}
		if s.incomplete > 0 {
			verdict += fmt.Sprintf(", %d INCOMPLETE", s.incomplete)
		}
		fmt.Fprintf(w, "  %-26s %5d scopes %11d states %11d transitions %8d terminal %8.1fs  %s\n",
			s.key, s.scopes, s.states, s.trans, s.terms, s.seconds, verdict)
	}
	fmt.Fprintf(w, "  %d scopes in %.1fs wall clock on %d workers\n", len(reports), wall, jobs)
}
