package spec

// ActionKind names one kind of scheduler action. The order is fixed: it is the order in which
// enabled actions are offered to the Chooser, so adding a kind appends at the end.
type ActionKind uint8

// The action kinds (SPEC §6.2 vocabulary).
const (
	ActFeed           ActionKind = iota // feed one record to a process
	ActDrain                            // drain deliverable heads and run application logic
	ActCommit                           // commit the process's step atomically
	ActCrash                            // crash mid-step: roll the step back
	ActStop                             // clean stop (commit nothing further)
	ActStart                            // start: full initialisation + identity report
	ActRewind                           // operator rewinds committed read offsets
	ActProducePlain                     // external producer: headerless record
	ActProduceStamped                   // external producer stamped by an observer of a committed record
	ActProduceCorrupt                   // external producer with an undecodable header
	ActTxnAbort                         // an external transaction that aborts (never-yielding offsets)
	ActTxnOpen                          // an external transaction left open for a while (LSO stall)
	ActTxnClose                         // the open transaction commits or aborts
	ActDeleteRecords                    // delete records up to an offset (biased to interesting offsets)
	ActRetention                        // time/size retention sweep driven by the virtual clock
	ActDeleteTopic                      // delete a topic nobody sends to
	ActRecreateTopic                    // recreate a topic nobody sends to (new topic ID)
	ActRedeclare                        // change a stopped process's received-channel set
	ActMigrate                          // restart a task elsewhere with its committed state
	ActZombie                           // a superseded execution tries to commit
	ActSessionWrite                     // a session client writes through the write tier (package sim/tiers)
	ActSessionRead                      // a session client reads through the read tier (package sim/tiers)
	ActTokenDamage                      // the simulator damages a client's next token in flight
	ActCommitCrash                      // crash inside a commit, between two substrate calls of the host's commit sequence
	NumActionKinds
)

var actionNames = [NumActionKinds]string{
	"feed", "drain", "commit", "crash", "stop", "start", "rewind",
	"produce-plain", "produce-stamped", "produce-corrupt",
	"txn-abort", "txn-open", "txn-close", "delete-records", "retention",
	"delete-topic", "recreate-topic", "redeclare", "migrate", "zombie",
	"session-write", "session-read", "token-damage", "commit-crash",
}

// String returns the action's trace name, such as "feed" or "delete-topic".
func (k ActionKind) String() string {
	if k < NumActionKinds {
		return actionNames[k]
	}
	return "action(?)"
}

// Session reports whether k is a session action kind: one that acts only in a scenario with
// session clients (session-write, session-read, token-damage).
func (k ActionKind) Session() bool {
	return k == ActSessionWrite || k == ActSessionRead || k == ActTokenDamage
}

// OnProcess reports whether k acts on one process (feed, drain, commit, crash, stop, start,
// rewind, redeclare, migrate, zombie, commit-crash): enabled where some process is its target.
// The other kinds act on topics, logs, transactions or session clients.
func (k ActionKind) OnProcess() bool { return processKinds&(1<<k) != 0 }

const processKinds = 1<<ActFeed | 1<<ActDrain | 1<<ActCommit | 1<<ActCrash | 1<<ActStop | 1<<ActStart |
	1<<ActRewind | 1<<ActRedeclare | 1<<ActMigrate | 1<<ActZombie | 1<<ActCommitCrash

// ActionKinds returns every action kind in offer order.
func ActionKinds() []ActionKind {
	ks := make([]ActionKind, NumActionKinds)
	for i := range ks {
		ks[i] = ActionKind(i)
	}
	return ks
}
