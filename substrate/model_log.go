package substrate

import "fmt"

// entryKind says what occupies one offset of a partition log.
type entryKind uint8

const (
	entryCommitted  entryKind = iota + 1 // a committed record (plain, idempotent or transactional)
	entryOpen                            // a record of a still-open transaction
	entryAborted                         // a record of an aborted transaction
	entryCommitMark                      // a transaction's commit marker
	entryAbortMark                       // a transaction's abort marker
)

// logEntry is one offset of a partition log. Markers have a zero rec except TimestampMicros,
// the clock reading at which they were written (what time retention compares).
type logEntry struct {
	rec  Record
	kind entryKind
	// txn is the slot of the transactional producer of an entryOpen record.
	txn int32
}

// openTxn is a transaction still open on a partition and the first offset it wrote there.
type openTxn struct {
	txn   int32
	first Offset
}

// modelPartition is one partition's log. entries[i] is offset base+i; offsets in [base,
// logStart) are already unreachable and trimmed lazily.
type modelPartition struct {
	entries  []logEntry
	base     Offset
	logStart Offset
	// open lists the transactions currently open on this partition, oldest first.
	open []openTxn
	// shared says entries and open are shared with a clone (copy-on-write: ownPartition).
	shared bool
}

func (p *modelPartition) highWatermark() Offset { return p.base + Offset(len(p.entries)) }

// lastStable is the first offset of the oldest open transaction, clamped to [logStart, HW]
// (Kafka clamps the first unstable offset to the log start when records are deleted past it).
func (p *modelPartition) lastStable() Offset {
	if len(p.open) == 0 {
		return p.highWatermark()
	}
	return max(p.open[0].first, p.logStart)
}

func (p *modelPartition) offsets() Offsets {
	return Offsets{LogStart: p.logStart, LastStable: p.lastStable(), HighWatermark: p.highWatermark()}
}

// append writes one entry at the high watermark and returns its offset.
func (p *modelPartition) append(e logEntry) Offset {
	o := p.highWatermark()
	p.entries = append(p.entries, e)
	return o
}

// entry returns the entry at offset o, which must be in [base, HW).
func (p *modelPartition) entry(o Offset) *logEntry { return &p.entries[o-p.base] }

// raiseLogStart moves logStart up to to (at most HW) and trims storage once the dead prefix is
// large, so trimming stays amortised O(1) per offset. A log shared with a clone is not written:
// its dead prefix is only dropped from view.
func (p *modelPartition) raiseLogStart(to Offset) {
	if to <= p.logStart {
		return
	}
	p.logStart = min(to, p.highWatermark())
	dead := int(p.logStart - p.base)
	if dead >= 64 && dead*2 >= len(p.entries) && p.shared {
		p.entries = p.entries[dead:]
		p.base = p.logStart
		return
	}
	if dead >= 64 && dead*2 >= len(p.entries) {
		// Shift in place: the backing array is reused, so a log held at a steady size by
		// retention stops allocating.
		n := copy(p.entries, p.entries[dead:])
		clear(p.entries[n:])
		p.entries = p.entries[:n]
		p.base = p.logStart
	}
}

// fetchInto serves [from, LSO) read_committed; see Substrate.FetchInto.
func (p *modelPartition) fetchInto(dst []FetchedRecord, from Offset, maxRecords int) ([]FetchedRecord, Offset) {
	lso := p.lastStable()
	if from >= lso {
		return dst, from
	}
	n := 0
	for o := from; o < lso; o++ {
		e := &p.entries[o-p.base]
		if e.kind != entryCommitted {
			continue
		}
		dst = append(dst, FetchedRecord{Offset: o, Record: e.rec})
		n++
		if n == maxRecords {
			return dst, o + 1
		}
	}
	return dst, lso
}

// Produce implements Substrate. Both modes behave alike: the model has no lost acknowledgements
// for idempotence to guard against.
func (m *Model) Produce(tp TopicPartition, rec Record, mode ProduceMode) (Offset, error) {
	if mode != ProducePlain && mode != ProduceIdempotent {
		return 0, fmt.Errorf("%w: produce mode %d", ErrInvalidArgument, mode)
	}
	_, p, err := m.writablePartition(tp)
	if err != nil {
		return 0, err
	}
	return p.append(logEntry{rec: rec, kind: entryCommitted}), nil
}

// Fetch implements Substrate.
func (m *Model) Fetch(tp TopicPartition, from Offset, maxRecords int) ([]FetchedRecord, Offset, error) {
	return m.FetchInto(nil, tp, from, maxRecords)
}

// FetchInto implements Substrate. It allocates only when dst lacks capacity.
func (m *Model) FetchInto(dst []FetchedRecord, tp TopicPartition, from Offset, maxRecords int) ([]FetchedRecord, Offset, error) {
	_, p, err := m.livePartition(tp)
	if err != nil {
		return dst, from, err
	}
	if from < p.logStart || from > p.highWatermark() {
		return dst, from, &fetchRangeError{tp: tp, from: from, logStart: p.logStart, highWatermark: p.highWatermark()}
	}
	dst, next := p.fetchInto(dst, from, maxRecords)
	return dst, next, nil
}

// fetchRangeError is FetchInto's ErrOffsetOutOfRange: a fetch of tp from outside [logStart,
// highWatermark]. It is formatted only when its message is read: a host fetching below a
// truncated log start tests it with errors.Is and moves on, which an exploration does on many
// transitions.
type fetchRangeError struct {
	tp                            TopicPartition
	from, logStart, highWatermark Offset
}

// Error reads as fmt.Errorf("%w: fetch ...") would.
func (e *fetchRangeError) Error() string {
	return fmt.Sprintf("%v: fetch %s/%d from %d outside [%d, %d]", ErrOffsetOutOfRange,
		e.tp.Topic, e.tp.Partition, e.from, e.logStart, e.highWatermark)
}

// Unwrap returns ErrOffsetOutOfRange.
func (e *fetchRangeError) Unwrap() error { return ErrOffsetOutOfRange }

// ListOffsets implements Substrate.
func (m *Model) ListOffsets(tp TopicPartition) (Offsets, error) {
	_, p, err := m.livePartition(tp)
	if err != nil {
		return Offsets{}, err
	}
	return p.offsets(), nil
}

// DeleteRecords implements Substrate.
func (m *Model) DeleteRecords(tp TopicPartition, before Offset) error {
	idx, p, err := m.livePartition(tp)
	if err != nil {
		return err
	}
	if before < 0 || before > p.highWatermark() {
		return fmt.Errorf("%w: delete records of %s/%d before %d, high watermark %d",
			ErrOffsetOutOfRange, tp.Topic, tp.Partition, before, p.highWatermark())
	}
	if before > p.logStart {
		m.ownPartitionStart(idx, tp.Partition).raiseLogStart(before)
	}
	return nil
}

// SetRetention implements Substrate.
func (m *Model) SetRetention(name string, policy RetentionPolicy) error {
	idx, ok := m.boundTopic(name)
	if !ok {
		return fmt.Errorf("%w: name %q", ErrUnknownTopic, name)
	}
	if policy.TimeMicros < 0 || policy.MaxOffsets < 0 {
		return fmt.Errorf("%w: retention %+v for %q", ErrInvalidArgument, policy, name)
	}
	m.ownTopics()
	m.topics[idx].retention = policy
	return nil
}

// AdvanceClock implements Substrate. Retention visits live topics in incarnation order; each
// partition is independent, so the order cannot change the outcome.
func (m *Model) AdvanceClock(nowMicros int64) error {
	m.clockMicros = max(m.clockMicros, nowMicros)
	for i := range m.topics {
		t := &m.topics[i]
		if t.deleted || t.retention == (RetentionPolicy{}) {
			continue
		}
		for j := range t.partitions {
			if to := retentionStart(&t.partitions[j], t.retention, m.clockMicros); to > t.partitions[j].logStart {
				m.ownPartitionStart(int32(i), Partition(j)).raiseLogStart(to)
				t = &m.topics[i] // ownPartition may have copied the incarnations
			}
		}
	}
	return nil
}

// retentionStart returns the log start the policy asks for: past the prefix older than its time
// bound and the oldest offsets beyond its size bound (raiseLogStart clamps it to the high
// watermark). It only reads p, so an unchanged shared log is not copied.
func retentionStart(p *modelPartition, policy RetentionPolicy, nowMicros int64) Offset {
	to := p.logStart
	if policy.TimeMicros > 0 {
		cutoffMicros := nowMicros - policy.TimeMicros
		for hw := p.highWatermark(); to < hw && p.entry(to).rec.TimestampMicros < cutoffMicros; to++ {
		}
	}
	if policy.MaxOffsets > 0 {
		to = max(to, p.highWatermark()-Offset(policy.MaxOffsets))
	}
	return to
}
