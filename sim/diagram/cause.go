package diagram

import (
	"regexp"
	"strconv"

	"github.com/parsleysim/parsleysim/sim/spec"
)

// What a violation points at in the diagram: the messages it names (Violation.Msgs, or the
// m<uid>(...) references in its detail), their receipts, holds and deliveries on the violating
// process's lane, and — when it names two messages — the chain of receipts, deliveries and sends
// through which one is a true cause of the other, found in the trace itself.

// diagHighlight marks what to draw in the violation colour. The maps are lookups only.
type diagHighlight struct {
	msgs   map[int]bool // labelled with their uid
	feeds  map[int]bool
	delivs map[int]bool
	holds  map[int]bool
	others map[int]bool // deliveries named by the later violations (ringed thinly)
}

// msgRefPattern finds message references in a violation's detail: m17(orders#0/1:4).
var msgRefPattern = regexp.MustCompile(`\bm(\d+)\(`)

// violationMsgs returns the uids a violation names: its Msgs field when the checker filled it,
// else the references parsed from its detail, in order of appearance.
func violationMsgs(v spec.Violation) []uint64 {
	if len(v.Msgs) > 0 {
		return v.Msgs
	}
	var out []uint64
	for _, m := range msgRefPattern.FindAllStringSubmatch(v.Detail, -1) {
		if uid, err := strconv.ParseUint(m[1], 10, 64); err == nil {
			out = append(out, uid)
		}
	}
	return out
}

// highlight computes what the violations point at. The first violation (the earliest; later
// ones are often its consequences) gets the full treatment: its messages, their receipts, holds
// and deliveries on its lane, and the causal chain between the first two. The deliveries the
// others name on their lanes are ringed.
func (d *Sink) highlight(vios []spec.Violation) *diagHighlight {
	hl := &diagHighlight{msgs: map[int]bool{}, feeds: map[int]bool{}, delivs: map[int]bool{}, holds: map[int]bool{},
		others: map[int]bool{}}
	for i, v := range vios {
		var refs []int
		for _, uid := range violationMsgs(v) {
			if m, ok := d.msgIdx[uid]; ok {
				refs = append(refs, m)
			}
		}
		if i > 0 {
			for _, m := range refs {
				for j, dl := range d.delivs {
					if dl.msg == m && dl.lane == v.Process+1 {
						hl.others[j] = true
					}
				}
			}
			continue
		}
		for _, m := range refs {
			d.highlightOnLane(hl, m, v.Process+1)
		}
		if len(refs) >= 2 {
			if !d.highlightChain(hl, refs[1], refs[0]) {
				d.highlightChain(hl, refs[0], refs[1])
			}
		}
	}
	return hl
}

// highlightOnLane marks message m and its receipts, holds and deliveries on lane (every lane
// when lane is 0: a violation about no process).
func (d *Sink) highlightOnLane(hl *diagHighlight, m, lane int) {
	hl.msgs[m] = true
	for i, f := range d.feeds {
		if f.msg == m && (lane == 0 || f.lane == lane) {
			hl.feeds[i] = true
		}
	}
	for i, h := range d.holds {
		if h.msg == m && (lane == 0 || h.lane == lane) {
			hl.holds[i] = true
		}
	}
	for i, dl := range d.delivs {
		if dl.msg == m && (lane == 0 || dl.lane == lane) {
			hl.delivs[i] = true
		}
	}
}

// diagHop is one link of a causal chain: message msg reached the sender of the next message
// by receipt feed (and, when deliv >= 0, was delivered there) before that send.
type diagHop struct {
	msg, feed, deliv int
	next             int // the message sent after it
}

// highlightChain looks for a chain by which message a is a true cause of message b — a delivered
// at b's sender before b was sent, or delivered at the sender of a message whose receipt (or
// delivery) preceded the send of ..., b — and marks it. It reports whether it found one.
// Rolled-back receipts and deliveries are no links. The search is breadth-first (shortest chain)
// and bounded.
func (d *Sink) highlightChain(hl *diagHighlight, a, b int) bool {
	parent := map[int]diagHop{} // msg → the hop from it towards b
	queue := []int{b}
	seen := map[int]bool{b: true}
	for steps := 0; len(queue) > 0 && steps < 4096; steps++ {
		y := queue[0]
		queue = queue[1:]
		for _, hop := range d.predecessors(y) {
			if hop.msg == a && hop.deliv < 0 {
				continue // a receipt carries a's past, not a itself
			}
			if seen[hop.msg] {
				continue
			}
			seen[hop.msg] = true
			parent[hop.msg] = hop
			if hop.msg == a {
				d.markChain(hl, a, b, parent)
				return true
			}
			queue = append(queue, hop.msg)
		}
	}
	return false
}

// markChain highlights the chain from a to b recorded in parent.
func (d *Sink) markChain(hl *diagHighlight, a, b int, parent map[int]diagHop) {
	for m := a; m != b; {
		hop := parent[m]
		hl.msgs[m] = true
		hl.feeds[hop.feed] = true
		hl.feeds[d.firstFeed(m, d.feeds[hop.feed].lane)] = true
		if hop.deliv >= 0 {
			hl.delivs[hop.deliv] = true
			if h := d.delivs[hop.deliv].hold; h >= 0 {
				hl.holds[h] = true
			}
		}
		m = hop.next
	}
	hl.msgs[b] = true
}

// predecessors lists the committed receipts and deliveries at y's sender before y was sent.
func (d *Sink) predecessors(y int) []diagHop {
	my := &d.msgs[y]
	if my.from == 0 || !my.known {
		return nil
	}
	var fed, delivered []diagHop
	lastFeed := map[int]int{} // msg → its latest receipt on the lane so far
	for i, f := range d.feeds {
		if f.lane != my.from || !posLess(f.at, my.at) || f.rolledBack {
			continue
		}
		lastFeed[f.msg] = i
		fed = append(fed, diagHop{msg: f.msg, feed: i, deliv: -1, next: y})
	}
	for i, dl := range d.delivs {
		if dl.lane != my.from || !posLess(dl.at, my.at) || dl.rolledBack {
			continue
		}
		if fi, ok := lastFeed[dl.msg]; ok {
			delivered = append(delivered, diagHop{msg: dl.msg, feed: fi, deliv: i, next: y})
		}
	}
	return append(delivered, fed...) // a delivery is the stronger link: offered first
}

// firstFeed returns the index of message m's first receipt on lane (-1: none).
func (d *Sink) firstFeed(m, lane int) int {
	for i, f := range d.feeds {
		if f.msg == m && f.lane == lane {
			return i
		}
	}
	return -1
}
