package targets

import (
	"fmt"
	"math/bits"

	"github.com/parsleysim/parsleysim/sim/choose"
)

// MaskFunc computes process i's mask: bit k set when i is an eligible target of action kind k.
// timed reports that the mask reads the world's step, which moves at every action, so it is
// recomputed at every Refresh.
type MaskFunc func(i int) (mask uint32, timed bool)

// Masks keeps each process's mask of the action kinds it is an eligible target of, recomputing
// only the masks marked stale (through the Memo it belongs to) or timed, and per kind an index of
// the processes whose mask has it in process order, so that the union of the masks and a draw
// among a kind's processes cost what changed since the last question and the logarithm of the
// number of processes, not a pass over every process.
type Masks struct {
	mask      []uint32
	stale     []bool
	staleList []int32
	timed     []int32 // the processes whose mask read the step
	count     [32]int
	union     uint32      // bit k set while count[k] > 0
	tree      [32][]int32 // per kind, once met: a Fenwick tree of the processes whose mask has it
	kinds     [32]kindOptions
	f         MaskFunc
}

// newMasks returns masks of n processes computed by f, every one stale.
func newMasks(n int, f MaskFunc) *Masks {
	m := &Masks{mask: make([]uint32, n), stale: make([]bool, n), f: f}
	for i := range n {
		m.Stale(i)
	}
	for k := range m.kinds {
		m.kinds[k] = kindOptions{m, k}
	}
	return m
}

// Stale marks process i's mask out of date.
func (m *Masks) Stale(i int) {
	if !m.stale[i] {
		m.stale[i] = true
		m.staleList = append(m.staleList, int32(i))
	}
}

// Refresh recomputes the stale and timed masks and returns the union of all masks.
func (m *Masks) Refresh() uint32 {
	for _, i := range m.timed {
		m.Stale(int(i))
	}
	m.timed = m.timed[:0]
	for _, i := range m.staleList {
		m.stale[i] = false
		mask, timed := m.f(int(i))
		if timed {
			m.timed = append(m.timed, i)
		}
		for diff := mask ^ m.mask[i]; diff != 0; diff &= diff - 1 {
			k := bits.TrailingZeros32(diff)
			d := int32(1)
			if mask&(1<<k) == 0 {
				d = -1
			}
			m.add(k, int(i), d)
		}
		m.mask[i] = mask
	}
	m.staleList = m.staleList[:0]
	return m.union
}

// Kind returns the processes whose mask has kind k as of the last Refresh, as the list of one
// weight per process, 1 for those and 0 for the others.
func (m *Masks) Kind(k int) choose.Options { return &m.kinds[k] }

// add counts process i in (d = 1) or out of (d = -1) kind k.
func (m *Masks) add(k, i int, d int32) {
	t := m.tree[k]
	if t == nil {
		t = make([]int32, len(m.mask)+1)
		m.tree[k] = t
	}
	m.count[k] += int(d)
	if m.count[k] > 0 {
		m.union |= 1 << k
	} else {
		m.union &^= 1 << k
	}
	for j := i + 1; j < len(t); j += j & -j {
		t[j] += d
	}
}

// find returns the process with r processes of kind k before it in process order (r below the
// kind's count).
func (m *Masks) find(k, r int) int {
	t, pos := m.tree[k], 0
	for step := 1 << (bits.Len(uint(len(t)-1)) - 1); step > 0; step >>= 1 {
		if next := pos + step; next < len(t) && int(t[next]) <= r {
			pos, r = next, r-int(t[next])
		}
	}
	return pos
}

// kindOptions is Masks.Kind's list.
type kindOptions struct {
	m *Masks
	k int
}

func (o *kindOptions) Len() int            { return len(o.m.mask) }
func (o *kindOptions) Count() int          { return o.m.count[o.k] }
func (o *kindOptions) Total() uint64       { return uint64(o.m.count[o.k]) }
func (o *kindOptions) Weight(i int) uint32 { return o.m.mask[i] >> o.k & 1 }

func (o *kindOptions) Find(r uint64) int {
	if r >= o.Total() {
		panic(fmt.Sprintf("targets: Find(%d) past %d processes of kind %d", r, o.Total(), o.k))
	}
	return o.m.find(o.k, int(r))
}

func (o *kindOptions) Dense(dst []uint32) []uint32 {
	for i := range o.m.mask {
		dst = append(dst, o.Weight(i))
	}
	return dst
}
