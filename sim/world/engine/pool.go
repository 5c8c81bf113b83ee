package engine

import "github.com/parsleysim/parsleysim/node"

// Pool is the node storage a process shell of the explorer's worlds recycles: the engines its
// starts built, the committed states its commits cloned into, and the block its oracle frontiers
// are copied into. A shell's pool is recycled (Recycle) when the shell is, when the world it
// belonged to and every world that shared its storage are released, so nothing reads what was
// made in the pool's earlier lives any more.
type Pool struct {
	// causes is the block frontiers are cloned into on their first change (CauseRoom): every
	// step shares the frontiers, so each frontier a step changes would be one small allocation,
	// and its first insertion another.
	causes []node.Cause
	// committedMade are the committed states made since the pool was last recycled;
	// committedFree those of earlier lives.
	committedMade, committedFree []*node.State
	// enginesMade and enginesFree are the same for the engines the shell's starts built.
	enginesMade, enginesFree []*node.Engine
}

// Recycle frees everything made in the pool since it was last recycled.
func (p *Pool) Recycle() {
	p.causes = p.causes[:0]
	for i, s := range p.committedMade {
		p.committedFree = append(p.committedFree, s)
		p.committedMade[i] = nil
	}
	p.committedMade = p.committedMade[:0]
	for i, e := range p.enginesMade {
		if len(p.enginesFree) < enginesMadeMax {
			p.enginesFree = append(p.enginesFree, e)
		}
		p.enginesMade[i] = nil
	}
	p.enginesMade = p.enginesMade[:0]
}

// FreeEngine takes an engine of an earlier life off the free list, or returns nil.
func (p *Pool) FreeEngine() *node.Engine { return popFree(&p.enginesFree) }

// NoteStarted records an engine a start built (up to enginesMadeMax a life), to be reused once
// the pool is recycled.
func (p *Pool) NoteStarted(e *node.Engine) {
	if len(p.enginesMade) < enginesMadeMax {
		p.enginesMade = append(p.enginesMade, e)
	}
}

// enginesMadeMax bounds the started engines a pool records in one life (an explored transition
// restarts a process at most once or twice).
const enginesMadeMax = 4

// CommittedStorage returns a dead committed state to clone into (node.State.CloneInto), or a new
// one; either way recorded as made (up to committedMadeMax a life).
func (p *Pool) CommittedStorage() *node.State {
	if len(p.committedMade) >= committedMadeMax {
		return new(node.State)
	}
	s := popFree(&p.committedFree)
	if s == nil {
		s = new(node.State)
	}
	p.committedMade = append(p.committedMade, s)
	return s
}

// committedMadeMax bounds the committed states a pool records in one life (the explorer's worlds
// live for one transition, which commits a process at most a few times).
const committedMadeMax = 8

// popFree takes the last entry off free list l, clearing its slot so the list keeps no reference
// to what it hands out, or returns nil when l is empty.
func popFree[T any](l *[]*T) *T {
	n := len(*l)
	if n == 0 {
		return nil
	}
	v := (*l)[n-1]
	(*l)[n-1] = nil
	*l = (*l)[:n-1]
	return v
}

// CauseRoom carves room for a copy of a frontier of n entries, with causeHeadroom spare, from
// the pool's block (a new block when it is full: the pieces carved from the old one stay where
// they are, and a recycled pool starts again at the beginning of its latest block).
func (p *Pool) CauseRoom(n int) []node.Cause {
	need := n + causeHeadroom
	if cap(p.causes)-len(p.causes) < need {
		p.causes = make([]node.Cause, 0, max(causeBlockLen, need))
	}
	at := len(p.causes)
	p.causes = p.causes[:at+need]
	return p.causes[at : at : at+need]
}

// causeHeadroom is the spare capacity of a frontier copy (a step's receipts and deliveries mostly
// raise positions in place, and add a channel or two); causeBlockLen a block's length.
const (
	causeHeadroom = 2
	causeBlockLen = 256
)
