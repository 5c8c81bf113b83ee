package shape

import "slices"

// The rules on a stamped record's observation: which committed record a stamped record names.
// A stamped record is held only if it reaches a receiver before the record it names; naming a
// record every receiver has long been fed tests nothing.

// lagScanSlots bounds how far below a channel's last stable offset LaggingRecords looks for a
// committed record.
const lagScanSlots = 8

// LaggingRecords appends to out, for every channel that a live process receiving more than one
// channel has not been fed to its last stable offset, the last committed record below that offset
// (within lagScanSlots): a record that receiver has not been fed, which a stamped record produced
// on its other channel can name, beside the latest committed records out holds. Channels in
// process and channel order, each once.
func LaggingRecords(r *Run, out []uint64) []uint64 {
	w := r.World
	for p := range r.Procs {
		n := w.Received(p)
		if w.Status(p) == Failed || n < 2 {
			continue
		}
		for i := range n {
			c := w.ReceivedChannel(p, i)
			lso := w.LSO(c)
			if !w.Alive(c) || w.FedHigh(p, c) >= lso-1 {
				continue
			}
			for o := lso - 1; o >= max(0, lso-lagScanSlots); o-- {
				if uid := w.RecordAt(c, o); uid != 0 {
					if !slices.Contains(out, uid) && w.UnfedAt(p, c, o) {
						out = append(out, uid)
					}
					break
				}
			}
		}
	}
	return out
}

// UnfedReceivers counts the live processes that receive the channel of committed record uid,
// have not been fed it yet, and receive some other channel too: a record stamped with uid's
// coordinate and produced on that other channel can reach them first and be held
// (ObservedWeight weighs a candidate by it).
func UnfedReceivers(w World, uid uint64) int {
	c, pos, _ := w.Message(uid)
	n := 0
	for _, i := range w.Readers(c) {
		p := int(i)
		if w.Status(p) != Failed && w.Received(p) > 1 && w.UnfedAt(p, c, pos) {
			n++
		}
	}
	return n
}
