//go:build !linux

package visited

// slotMemory is the storage of a visited set's slots. Outside Linux it is an ordinary Go slice
// (mem_linux.go explains why Linux maps its own).
type slotMemory struct {
	slots  []visitSlot
	mapped []byte // always nil here
}

// mappingSupported says whether large tables are mapped outside the Go heap.
const mappingSupported = false

// hugeTableMinBytes is unused here (every table is a Go slice).
var hugeTableMinBytes = 0

// newSlotMemory returns storage for n zeroed slots (minBytes is unused here).
func newSlotMemory(n, minBytes int) slotMemory { return slotMemory{slots: make([]visitSlot, n)} }

// free gives the storage back; the slots must not be used afterwards.
func (m *slotMemory) free() { *m = slotMemory{} }
