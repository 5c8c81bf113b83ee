package persistent

// View is what the dependency rules read of one state of a world: the questions they ask, each
// answered for the state as it is. Channels are numbered as the world numbers them (every
// partition of every incarnation, in creation order), topics and processes as the scenario lists
// them. A View is read only while Select runs, and the state does not change meanwhile.
type View interface {
	// Read fills st with what every rule reads of the state, read once per state: whether an
	// external transaction is open, its channels, its live topics, its processes. (The kinds
	// enabled on each process and those with budget left are the state's explore.Actions.)
	// The lists keep st's storage when they fit.
	Read(st *State)
	// HasEntries reports whether channel c's log has ever had an entry (its high watermark is
	// above 0, truncated or not): a truncation candidate.
	HasEntries(c int32) bool
	// NonCommittedIn reports whether channel c has an entry that is not a committed record (a
	// transaction marker, an aborted or open record) at a position in [from, LSO), LSO being its
	// last stable offset.
	NonCommittedIn(c int32, from int64) bool
	// FeedSkips reports whether a feed of process i on channel c now finds no committed record
	// below the last stable offset, so that its read position jumps there (a feed that refuses
	// does not skip). c is one of the channels Received lists for i.
	FeedSkips(i int, c int32) bool
	// Received appends to dst process i's positions on the channels its current execution
	// receives.
	Received(i int, dst []Position) []Position
	// PositionAt returns process i's position on channel c, if it has one (a channel it receives
	// or received in an earlier execution).
	PositionAt(i int, c int32) (Position, bool)
}

// State is what every rule reads of a state (View.Read).
type State struct {
	// ExternalTxnOpen says an external producer's transaction is open.
	ExternalTxnOpen bool
	// Channels are the channels the world has created, by index.
	Channels []Channel
	// LiveTopics has bit t set when topic t has a live incarnation.
	LiveTopics uint64
	// Processes are the processes, as the scenario lists them.
	Processes []Process
}

// live reports whether topic t has a live incarnation.
func (st *State) live(t int) bool { return st.LiveTopics&(1<<t) != 0 }

// Channel is what the rules read of a channel.
type Channel struct {
	Topic int   // the scenario topic of its incarnation
	Alive bool  // its incarnation is live
	LSO   int64 // its last stable offset: feeding is enabled below it
}

// Status is a process's lifecycle state as the rules see it.
type Status uint8

const (
	Down    Status = iota // never started, stopped or crashed: a start is its next transition
	Running               // an execution is live
	Failed                // failed closed: it takes no transition ever again
)

// Process is what the rules read of a process.
type Process struct {
	Status    Status
	TxnOpen   bool // its transaction is open (its commit or abort moves the LSO of what it wrote)
	Drainable bool // a drain is enabled (it appends emissions to the topics it sends to)
}

// Position is a process's host state on one channel.
type Position struct {
	Chan         int32
	Received     bool  // the current execution received the channel
	ReadPos      int64 // the next position it fetches
	CommittedPos int64 // its group's committed offset, or -1 for none
}

// Selection is a persistent set as the choices it allows, each a bitmask: the action kinds, the
// processes of a process action, the topics of a produce and of a deletion, the channels of a
// truncation.
type Selection struct {
	Kinds, Procs, Produce, Delete, Truncate uint64
}
