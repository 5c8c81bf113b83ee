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

// decodeCauses strictly decodes a parsley.causes value received on c (exactly Decode's rules and
// errors) into storage carved from the engine's current chunk, and reports whether it names the
// channels c's last header named (engine_index.go): by decodeSame when that list is simple, which
// decodes such a value faster than the general walk, else by comparing the lists.
func (e *Engine) decodeCauses(value []byte, c *chanState) (Causes, bool, error) {
	if c.lastSimple {
		if causes, ok := e.causes.decodeSame(value, c.lastList); ok {
			return causes, true, nil
		}
		// A value naming a simple list of fewer than 16,384 channels (an entry count of one or
		// two bytes) decodes by decodeSame or not at all; a longer list's repeat is taken as a
		// changed list.
		causes, err := e.causes.decode(value)
		return causes, false, err
	}
	causes, err := e.causes.decode(value)
	return causes, err == nil && sameChannels(c.lastList, causes.pairs), err
}

// decodeSame is decode by decodeSame (codec_fast.go), which succeeds only when value names exactly
// the channels of list, a simple list: the storage is carved as decode carves it.
func (a *causeArena) decodeSame(value []byte, list []Cause) (Causes, bool) {
	n := len(list)
	off := sameShape(value, n) // before reserving: a value of another shape costs no room
	if off < 0 {
		return Causes{}, false
	}
	var room []Cause
	if n > causeChunkShareMax {
		room = make([]Cause, n)
	} else {
		if cap(a.chunk)-len(a.chunk) < n {
			a.chunk = make([]Cause, 0, causeChunkPairs)
		}
		room = a.chunk[len(a.chunk) : len(a.chunk)+n : len(a.chunk)+n]
	}
	if !decodeSameGroups(room, value[off:], list) {
		return Causes{}, false
	}
	if n <= causeChunkShareMax {
		a.chunk = a.chunk[:len(a.chunk)+n]
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
