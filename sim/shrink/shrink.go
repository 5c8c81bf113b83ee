// Package shrink reduces a failing run's choice list (or any list, such as a script of actions)
// to a shorter, simpler one that still fails. A run is a pure function of its scenario,
// settings and the answers its Chooser gives, so a failing run is reduced by reducing its choice
// list and replaying each candidate with a choose.Replay, whose errors are sticky and fall back to
// the first enabled option: any list, however cut, drives a complete run. The passes, in order:
// the shortest failing prefix (binary search), then delta debugging over chunks (remove a chunk,
// as ddmin tests complements) and lowering single choices toward 0, repeated until a pass
// changes nothing. Every pass is bounded by a number of attempts, never by time, so the result is
// a deterministic function of the input list and the test.
package shrink

// Test runs a candidate choice list and reports whether it still fails the way being
// shrunk for, and how many leading choices the run actually used: a run that diverged at
// decision d (choose.Replay.Err) or consumed fewer choices than given is the same run as the
// candidate cut to that many, so the shrinker keeps the cut list.
type Test func(choices []int) (fails bool, used int)

// Stats says what a shrink did: attempts made (runs of the test), whether the budget ran
// out before a fixed point, and how many candidates each pass accepted.
type Stats struct {
	Attempts  int
	Exhausted bool
	Prefix    int // length of the shortest failing prefix found
	Removed   int // chunks removed by delta debugging
	Lowered   int // single choices lowered
}

// shrinker holds the state of one shrink: the best failing list so far and the budget.
type shrinker[T any] struct {
	test        func([]T) (bool, int)
	lower       func(T) []T // nil: no lowering pass
	best        []T
	maxAttempts int
	stats       Stats
}

// Choices reduces choices, which must fail test, to a shorter or lower list that still
// fails it, making at most maxAttempts runs of test. It returns the reduced list (a new slice)
// and what the shrink did. The original list is not modified.
func Choices(choices []int, test Test, maxAttempts int) ([]int, Stats) {
	return List(choices, test, lowerings, maxAttempts)
}

// List is Choices over any list, such as a script of actions: the same passes, with
// lower giving the simpler values to try in place of an element, simplest first (nil: the
// lowering pass is skipped and elements are only removed).
func List[T any](list []T, test func([]T) (fails bool, used int), lower func(T) []T, maxAttempts int) ([]T, Stats) {
	s := &shrinker[T]{test: test, lower: lower, best: append([]T(nil), list...), maxAttempts: maxAttempts}
	s.shortestPrefix()
	for s.budgetLeft() {
		removed := s.removeChunks()
		lowered := s.lower != nil && s.lowerChoices()
		if !removed && !lowered {
			break
		}
	}
	s.stats.Exhausted = !s.budgetLeft()
	return s.best, s.stats
}

func (s *shrinker[T]) budgetLeft() bool { return s.stats.Attempts < s.maxAttempts }

// try runs one candidate; if it fails the same way it becomes the best list (cut to the choices
// the run used) and try returns true. Without budget it returns false and runs nothing.
func (s *shrinker[T]) try(candidate []T) bool {
	if !s.budgetLeft() {
		return false
	}
	s.stats.Attempts++
	fails, used := s.test(candidate)
	if !fails {
		return false
	}
	if used < len(candidate) {
		candidate = candidate[:used]
	}
	s.best = append([]T(nil), candidate...)
	return true
}

// shortestPrefix binary-searches the shortest prefix of the best list that still fails. Failing
// is not monotone in the prefix length in general; the search keeps the invariant that the
// upper bound fails, so it ends at a failing prefix, the shortest one if it is monotone.
func (s *shrinker[T]) shortestPrefix() {
	lo, hi := 0, len(s.best)
	full := s.best
	for lo < hi && s.budgetLeft() {
		mid := lo + (hi-lo)/2
		if s.try(full[:mid]) {
			hi = min(mid, len(s.best))
		} else {
			lo = mid + 1
		}
	}
	if hi < len(full) {
		s.best = append([]T(nil), full[:hi]...)
	}
	s.stats.Prefix = len(s.best)
}

// removeChunks is ddmin's reduce-to-complement step: split the list into n chunks and try the
// list without each; on success keep the shorter list and coarsen (n-1), otherwise refine (2n)
// until the chunks are single choices. It reports whether anything was removed.
func (s *shrinker[T]) removeChunks() bool {
	changed := false
	n := 2
	for len(s.best) > 0 && s.budgetLeft() {
		n = min(n, len(s.best))
		size := (len(s.best) + n - 1) / n
		removed := false
		for start := 0; start < len(s.best) && s.budgetLeft(); start += size {
			end := min(start+size, len(s.best))
			candidate := append(append([]T(nil), s.best[:start]...), s.best[end:]...)
			if s.try(candidate) {
				s.stats.Removed++
				removed, changed = true, true
				break
			}
		}
		switch {
		case removed:
			n = max(n-1, 2)
		case n >= len(s.best):
			return changed
		default:
			n = min(2*n, len(s.best))
		}
	}
	return changed
}

// lowerChoices tries to lower each non-zero choice: to 0, then to half, then by one. A lower
// answer picks an earlier option in offer order (the simpler action: feed before faults), and an
// answer naming a disabled option makes the replay fall back to the first enabled option from
// there on, which may cut the run short. It reports whether anything was lowered.
func (s *shrinker[T]) lowerChoices() bool {
	changed := false
	for i := 0; i < len(s.best) && s.budgetLeft(); i++ {
		for _, lower := range s.lower(s.best[i]) {
			candidate := append([]T(nil), s.best...)
			candidate[i] = lower
			if s.try(candidate) {
				s.stats.Lowered++
				changed = true
				break
			}
		}
	}
	return changed
}

// lowerings returns the values tried in place of a choice c, lowest first: 0, c/2, c-1 (distinct,
// below c).
func lowerings(c int) []int {
	var out []int
	for _, v := range []int{0, c / 2, c - 1} {
		if v >= 0 && v < c && (len(out) == 0 || out[len(out)-1] < v) {
			out = append(out, v)
		}
	}
	return out
}
