package engine

import (
	"testing"

	"github.com/parsleysim/parsleysim/node"
)

// TestPoolReusesOnlyAfterRecycle: what a pool made is handed out again only after Recycle, and
// at most once.
func TestPoolReusesOnlyAfterRecycle(t *testing.T) {
	var p Pool
	s1, s2 := p.CommittedStorage(), p.CommittedStorage()
	e, _ := node.Start(nil, node.Init{}, node.Options{})
	p.NoteStarted(e)
	if p.FreeEngine() != nil {
		t.Fatal("an engine of this life was handed out before Recycle")
	}
	p.Recycle()
	got := map[*node.State]bool{p.CommittedStorage(): true, p.CommittedStorage(): true}
	if !got[s1] || !got[s2] {
		t.Fatal("the committed states of the last life were not reused")
	}
	if s := p.CommittedStorage(); s == s1 || s == s2 {
		t.Fatal("a committed state was handed out twice")
	}
	if p.FreeEngine() != e || p.FreeEngine() != nil {
		t.Fatal("the started engine was not handed out exactly once after Recycle")
	}
}

// TestCauseRoomDoesNotOverlap: pieces carved from a pool's block never share storage until the
// pool is recycled, each has room for its frontier and the headroom, and a recycled pool carves
// from the start of its block again.
func TestCauseRoomDoesNotOverlap(t *testing.T) {
	var p Pool
	a, b := p.CauseRoom(3), p.CauseRoom(causeBlockLen)
	if len(a) != 0 || cap(a) != 3+causeHeadroom || cap(b) != causeBlockLen+causeHeadroom {
		t.Fatalf("room of len %d cap %d and cap %d", len(a), cap(a), cap(b))
	}
	a = append(a, make([]node.Cause, cap(a))...)
	c := p.CauseRoom(1)
	c = append(c, node.Cause{Position: 7})
	if &c[0] == &a[0] || &c[0] == &a[cap(a)-1] {
		t.Fatal("two pieces share storage")
	}
	p.Recycle()
	if d := p.CauseRoom(1); &d[:1][0] != &c[0] {
		t.Fatal("a recycled pool did not carve from the start of its latest block")
	}
}
