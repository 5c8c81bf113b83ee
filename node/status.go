package node

// Status is what a person needs to diagnose a hold (SPEC §7.2): the frontier's size against the
// budget, the total held, and per held channel the count, head position and the head's blockers
// exactly as Decide reports them. Refusal is set once the engine has refused (a stopped process
// shows only its refusal).
type Status struct {
	FrontierChannels int
	FrontierBytes    int
	BudgetBytes      int
	Held             int
	Channels         []ChannelStatus // per held channel, in channel order
	Refusal          *Refusal
}

// ChannelStatus is one held channel: how many messages it holds, the head's position, and the
// head's blockers (empty: deliverable on the next drain).
type ChannelStatus struct {
	Channel  Channel
	Held     int
	Head     Offset
	Blockers []Blocker
}

// Status reports the engine's holds and frontier size. It changes nothing.
func (e *Engine) Status() Status {
	s := Status{
		FrontierChannels: e.frontier.Len(),
		FrontierBytes:    e.frontierBytes,
		BudgetBytes:      e.budgetBytes,
		Refusal:          e.refusal,
	}
	for i := range e.chans {
		c := &e.chans[i]
		if c.held.len() == 0 {
			continue
		}
		head := c.held.front()
		blockers := e.appendBlockers(nil, head.Causes.pairs)
		s.Held += c.held.len()
		s.Channels = append(s.Channels, ChannelStatus{Channel: c.ch, Held: c.held.len(), Head: head.Position, Blockers: blockers})
	}
	return s
}
