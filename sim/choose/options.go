package choose

import "fmt"

// Options is a weight list given by what a draw reads of it, so that a long list whose non-zero
// entries are few, or kept in an index, need not be written out at every decision. Answering
// through Options gives the answer Choose gives over the list it stands for (Dense), and a seeded
// chooser consumes the same randomness for it, so a run is the same whichever form its decisions
// take.
type Options interface {
	Len() int            // the list's length
	Count() int          // how many entries are not zero
	Total() uint64       // the sum of the entries
	Weight(i int) uint32 // entry i
	// Find returns, for r < Total(), the entry a cumulative walk from the front stops at: the i
	// with sum(entries[:i]) <= r < sum(entries[:i+1]).
	Find(r uint64) int
	Dense(dst []uint32) []uint32 // appends the whole list to dst
}

// optionsChooser is a Chooser that answers from Options without the whole list.
type optionsChooser interface {
	ChooseFrom(label string, o Options) int
}

// dense is a list written out, as Options.
type dense []uint32

func (d dense) Len() int            { return len(d) }
func (d dense) Weight(i int) uint32 { return d[i] }

func (d dense) Count() int {
	n := 0
	for _, wt := range d {
		if wt > 0 {
			n++
		}
	}
	return n
}

func (d dense) Total() uint64 {
	var t uint64
	for _, wt := range d {
		t += uint64(wt)
	}
	return t
}

func (d dense) Find(r uint64) int {
	for i, wt := range d {
		if r < uint64(wt) {
			return i
		}
		r -= uint64(wt)
	}
	panic(fmt.Sprintf("choose: Find(%d) past a total of %d", r, d.Total()))
}

func (d dense) Dense(dst []uint32) []uint32 { return append(dst, d...) }

// Uniform is the list of n entries of weight 1.
type Uniform int

func (u Uniform) Len() int            { return int(u) }
func (u Uniform) Count() int          { return int(u) }
func (u Uniform) Total() uint64       { return uint64(u) }
func (u Uniform) Weight(i int) uint32 { return 1 }
func (u Uniform) Find(r uint64) int   { return int(r) }

func (u Uniform) Dense(dst []uint32) []uint32 {
	for range int(u) {
		dst = append(dst, 1)
	}
	return dst
}

// Weights is the storage of a caller's weight lists, reused from one choice to the next so a
// choice allocates nothing once the storage has grown to the longest list.
type Weights struct{ buf []uint32 }

// Zeroed returns a list of n zero weights in the storage, valid until the next call.
func (w *Weights) Zeroed(n int) []uint32 {
	if cap(w.buf) < n {
		w.buf = make([]uint32, n)
	}
	w.buf = w.buf[:n]
	clear(w.buf)
	return w.buf
}
