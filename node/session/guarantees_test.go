package session

import (
	"testing"

	"github.com/parsleysim/parsleysim/node"
	"pgregory.net/rapid"
)

// sessionModel is one client session against a write tier and three read replicas (SPEC §5.3),
// among other clients whose writes the replicas also record, with the ground truth the guarantees
// are checked against: the coordinates the broker acknowledged to this session, and every past a
// read was served from.
type sessionModel struct {
	channels  map[string]node.Channel      // by the short name draws print
	logEnd    map[node.Channel]node.Offset // the next offset the broker assigns per channel
	replicas  [3]CausalPast                // what each replica's rows have recorded
	token     CausalPast
	writes    []node.Cause // acknowledged to this session, in order
	served    []CausalPast // recorded pasts of served reads, in order
	readToken CausalPast   // the token right after the last served read
}

// TestSessionGuarantees drives random session histories (writes by the session and by others,
// replication, single-replica reads, and collection reads gated on the meet of the three, read as
// partitions of one collection) and checks read-your-writes, monotonic reads and
// writes-follow-reads as SPEC §5.4 defines them, from ground truth rather than tokens. A shrunk
// failure prints the history as the sequence of labelled actions and draws.
func TestSessionGuarantees(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		m := &sessionModel{
			channels: map[string]node.Channel{
				"A/0": at(topicA, 0, 0).Channel, "A/1": at(topicA, 1, 0).Channel, "C/0": at(topicC, 0, 0).Channel,
			},
			logEnd: map[node.Channel]node.Offset{},
		}
		t.Repeat(map[string]func(*rapid.T){
			"write": m.write,
			"write-other": func(t *rapid.T) {
				m.logEnd[m.drawChannel(t)]++
			},
			"replicate":  m.replicate,
			"read":       func(t *rapid.T) { m.read(t, m.replicas[rapid.IntRange(0, 2).Draw(t, "replica")], "replica") },
			"read-meet":  func(t *rapid.T) { m.read(t, Meet(m.replicas[:]...), "meet of all replicas") },
			"read-fresh": func(t *rapid.T) { m.read(t, None(), "an empty replica") },
		})
	})
}

// drawChannel draws one of the model's channels by its short name.
func (m *sessionModel) drawChannel(t *rapid.T) node.Channel {
	return m.channels[rapid.SampledFrom([]string{"A/0", "A/1", "C/0"}).Draw(t, "channel")]
}

// write produces a record stamped with the token, then merges the acknowledged coordinate.
func (m *sessionModel) write(t *rapid.T) {
	ch := m.drawChannel(t)
	stamped := m.token.Causes()
	// Writes-follow-reads: the write carries at least the token after the last read.
	if cov := Of(stamped).CoverageOf(m.readToken); !cov.Covered() {
		t.Fatalf("write on %v carries %v, below the token after the last read: %v", ch, stamped, cov)
	}
	offset := m.logEnd[ch]
	m.logEnd[ch]++
	token, err := m.token.Merge(ch, offset)
	if err != nil {
		t.Fatal(err)
	}
	m.token = token
	m.writes = append(m.writes, node.Cause{Channel: ch, Position: offset})
}

// replicate lets one replica record an acknowledged offset on a channel.
func (m *sessionModel) replicate(t *rapid.T) {
	r := rapid.IntRange(0, 2).Draw(t, "replica")
	ch := m.drawChannel(t)
	if m.logEnd[ch] == 0 {
		t.Skip("nothing acknowledged on the channel yet")
	}
	pos := node.Offset(rapid.Int64Range(0, int64(m.logEnd[ch])-1).Draw(t, "position"))
	past, err := m.replicas[r].Merge(ch, pos)
	if err != nil {
		t.Fatal(err)
	}
	m.replicas[r] = past
}

// read serves from recorded only when it covers the token, then checks the guarantees.
func (m *sessionModel) read(t *rapid.T, recorded CausalPast, source string) {
	if !recorded.CoverageOf(m.token).Covered() {
		return // refused: retry later or elsewhere
	}
	for _, w := range m.writes { // read-your-writes
		if pos, ok := recorded.Lookup(w.Channel); !ok || pos < w.Position {
			t.Fatalf("served from %s %v, missing this session's write %v@%d", source, recorded, w.Channel, w.Position)
		}
	}
	for i, s := range m.served { // monotonic reads
		if cov := recorded.CoverageOf(s); !cov.Covered() {
			t.Fatalf("served from %s %v, older than served read %d %v: %v", source, recorded, i, s, cov)
		}
	}
	m.served = append(m.served, recorded)
	m.token = m.token.MergePast(recorded)
	m.readToken = m.token
}
