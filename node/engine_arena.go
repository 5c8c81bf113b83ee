package node

// causeChunkPairs is the size, in entries, of the chunks the engine decodes received causes into
// (2 KiB of 32-byte entries).
//
// Why chunks: decoding every received header into a slice of its own would cost an allocation
// per message, a large share of a receipt, and garbage for the collector to chase. The engine
// carves each message's causes out of a chunk instead, capacity-capped (s[:n:n]) so no append
// through one message's causes can reach a neighbour's. Chunks are never reused: the decoded
// causes are shared with the host (Delivery.Causes, HeldMessage.Causes in a Delta, the committed
// State), which may keep them for as long as it likes. The price is retention: a message's causes
// keep their whole chunk reachable, so a host that keeps a few long-lived messages from a busy
// stream keeps up to one chunk each — bounded by causeChunkPairs entries per retained message.
const causeChunkPairs = 64

// causeChunkShareMax is the largest header (in entries it could hold) decoded into a chunk; a
// larger one gets storage of its own, so one wide frontier cannot waste most of a chunk.
const causeChunkShareMax = causeChunkPairs / 4

// causeArena is the chunk the engine decodes received causes into.
type causeArena struct {
	chunk []Cause
}

// decodeSame is decode by decodeSame (codec_fast.go), which succeeds only when value names exactly
// the channels of list, a simple list: the storage is carved as decode carves it.
func (a *causeArena) decodeSame(value []byte, list []Cause) (Causes, bool) {
	n := len(list)
	if n > causeChunkShareMax || cap(a.chunk)-len(a.chunk) < n {
		return a.decodeSameNew(value, list)
	}
	room := a.chunk[len(a.chunk) : len(a.chunk)+n : len(a.chunk)+n]
	if !decodeSame(room, value, list) {
		return Causes{}, false
	}
	a.chunk = a.chunk[:len(a.chunk)+n]
	return Causes{pairs: room}, true
}

// decodeSameNew is decodeSame into new storage: a chunk of its own for a list too long to share
// one, else a new chunk. The shape is checked first, so a value of another shape costs no room.
func (a *causeArena) decodeSameNew(value []byte, list []Cause) (Causes, bool) {
	n := len(list)
	if sameShape(value, n) < 0 {
		return Causes{}, false
	}
	var room []Cause
	if n > causeChunkShareMax {
		room = make([]Cause, n)
	} else {
		a.chunk = make([]Cause, 0, causeChunkPairs)
		room = a.chunk[:n:n]
	}
	if !decodeSame(room, value, list) {
		return Causes{}, false
	}
	if n <= causeChunkShareMax {
		a.chunk = a.chunk[:n]
	}
	return Causes{pairs: room}, true
}

// decode strictly decodes a parsley.causes value (exactly Decode's rules and errors) into storage
// carved from the current chunk, starting a new chunk when it lacks room.
func (a *causeArena) decode(value []byte) (Causes, error) {
	// The fast path fills at most decodeRoom(value) entries: with that much room left in the
	// chunk it never allocates. Values it turns down (malformed, or a valid spelling it leaves to
	// the strict parser) and wide frontiers go through Decode, into storage of their own.
	need := decodeRoom(value)
	if need > causeChunkShareMax || need == 0 {
		return decodeOwn(value)
	}
	if cap(a.chunk)-len(a.chunk) < need {
		a.chunk = make([]Cause, 0, causeChunkPairs)
	}
	room := a.chunk[len(a.chunk) : len(a.chunk)+need]
	n, ok := decodeFast(room, value)
	if !ok {
		return decodeOwn(value)
	}
	if n == 0 {
		return Causes{}, nil // as Decode: no storage for the empty frontier
	}
	a.chunk = a.chunk[:len(a.chunk)+n]
	return Causes{pairs: room[:n:n]}, nil
}

// decodeOwn is Decode with the result's capacity clipped to its length.
func decodeOwn(value []byte) (Causes, error) {
	c, err := Decode(value)
	c.pairs = c.pairs[:len(c.pairs):len(c.pairs)]
	return c, err
}
