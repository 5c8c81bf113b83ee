package comparison

import "github.com/parsleysim/parsleysim/substrate"

// adoptedIDs is the topic ID source of a Model kept beside a live substrate (Substrate): the
// model's next topic gets the ID the live substrate just assigned to the same topic, so both
// speak of every topic by the same ID and everything ordered or stamped by topic ID (drain order,
// stamp bytes, the trace) is the same whichever substrate the run reads it from. A live call
// that failed while the model's succeeds adopts nothing; the model's topic then gets an ID from
// fallback (the runs have diverged, and the caller reports it).
type adoptedIDs struct {
	next     substrate.TopicID // zero: nothing adopted
	fallback func() substrate.TopicID
}

// adopt makes id the next ID drawn; a zero id means the next draw comes from the fallback.
func (a *adoptedIDs) adopt(id substrate.TopicID) { a.next = id }

// draw is the Model's ID source: the adopted ID once, then the fallback.
func (a *adoptedIDs) draw() substrate.TopicID {
	id := a.next
	a.next = substrate.TopicID{}
	if id.IsZero() {
		return a.fallback()
	}
	return id
}
