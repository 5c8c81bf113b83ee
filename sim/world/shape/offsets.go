package shape

import "slices"

// The rules on a fault's offset: where a truncation cuts a channel's log and where an operator's
// rewind moves a committed position. Each lists a few interesting offsets for a uniform choice
// (weighed further by TruncationOffsetWeight for a truncation); an offset drawn uniformly from
// the whole log would mostly meet no reader and no record.

// TruncationOffsets lists the interesting "delete records before" offsets of live channel c,
// biased as SPEC §6.2 asks: every receiver's committed read position and one past it, one past a
// running receiver's working read position, every held head and one past it, the LSO, the high
// watermark, one past the log start. Sorted, unique, all within (log start, high watermark]; it
// reuses buf's storage. Only there does a truncation meet a reader, whose next fetch then falls
// below the log start; a uniform offset would mostly meet none.
func TruncationOffsets(w World, c int32, buf []int64) []int64 {
	lo, lso, hi := w.Bounds(c)
	cands := append(buf[:0], lso, hi, lo+1)
	for _, i := range w.Readers(c) {
		p := int(i)
		if pos := w.CommittedPosition(p, c); pos >= 0 {
			cands = append(cands, pos, pos+1)
		}
		if head, ok := w.PendingHead(p, c); ok {
			cands = append(cands, head, head+1)
		}
		if w.Status(p) == Running && w.ReceivesNow(p, c) {
			cands = append(cands, w.ReadPosition(p, c)+1) // the receiver's next fetch falls below the log start
		}
	}
	out := cands[:0]
	for _, o := range cands {
		if o > lo && o <= hi {
			out = append(out, o)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// RewindOffsets lists the offsets an operator may rewind a committed position to: 0, the log
// start, one below it, the last record below the committed position (lastRecord, or one below
// the committed position when there is none, -1), and half of it; only those below the committed
// position, sorted and unique. The last record rather than the offset one below: on a
// transactional topic that offset is usually the commit marker, and a rewind onto a marker
// re-feeds nothing.
func RewindOffsets(logStart, committed, lastRecord int64) []int64 {
	if lastRecord < 0 {
		lastRecord = committed - 1
	}
	cands := []int64{0, logStart, logStart - 1, lastRecord, committed / 2}
	out := cands[:0]
	for _, o := range cands {
		if o >= 0 && o < committed {
			out = append(out, o)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
