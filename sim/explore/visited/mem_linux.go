package visited

import (
	"syscall"
	"unsafe"
)

// slotMemory is the storage of a visited set's slots. On Linux a large table is mapped outside
// the Go heap and marked for transparent huge pages (madvise MADV_HUGEPAGE; the kernel's default
// policy, "madvise", gives huge pages only where asked, and the Go runtime no longer asks). A
// lookup reads one random slot of a table of hundreds of megabytes: with 4 KiB pages nearly
// every lookup also misses the TLB and walks page tables that do not fit in the caches, which on
// a virtual machine is a two-level walk. With 2 MiB pages the whole table's translations fit
// in the TLB (results/explore.md has the lookup times). The slots hold no pointers, so memory
// the collector does not know is safe for them; it is unmapped when the table grows or the
// exploration ends (Set.Free). A small table, or a failed mapping, is an ordinary slice.
type slotMemory struct {
	slots  []visitSlot
	mapped []byte // the mapping slots live in; nil for a Go slice
}

// mappingSupported says whether large tables are mapped outside the Go heap.
const mappingSupported = true

// hugeTableMinBytes is the size from which a table is mapped (a variable so a test can map small
// tables).
var hugeTableMinBytes = 4 << 20

// newSlotMemory returns storage for n zeroed slots, mapped when it takes at least minBytes
// (0: hugeTableMinBytes).
func newSlotMemory(n, minBytes int) slotMemory {
	if minBytes == 0 {
		minBytes = hugeTableMinBytes
	}
	size := n * int(unsafe.Sizeof(visitSlot{}))
	if size < minBytes {
		return slotMemory{slots: make([]visitSlot, n)}
	}
	mem, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		return slotMemory{slots: make([]visitSlot, n)}
	}
	_ = syscall.Madvise(mem, syscall.MADV_HUGEPAGE) // advice: without huge pages the table still works
	return slotMemory{slots: unsafe.Slice((*visitSlot)(unsafe.Pointer(unsafe.SliceData(mem))), n), mapped: mem}
}

// free gives the storage back; the slots must not be used afterwards.
func (m *slotMemory) free() {
	if m.mapped != nil {
		_ = syscall.Munmap(m.mapped) // fails only for a range that is not a mapping
	}
	*m = slotMemory{}
}
