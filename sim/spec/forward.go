package spec

// The default application logic: deterministic forwarding with a bounded hop count.
//
// A record's value starts with one byte, the number of hops it has travelled (external
// producers write 0); the rest is payload. A process forwards a delivery whose hop count is
// below the bound, with the hop count raised by one and the key and payload unchanged, to every
// sent topic (or, with FanoutOne, to the one the key selects). Cycles therefore terminate.

// hopsOf returns the hop count a record value carries (0 for an empty value).
func hopsOf(value []byte) int {
	if len(value) == 0 {
		return 0
	}
	return int(value[0])
}

// forwardValue returns a copy of value with the hop count raised by one.
func forwardValue(value []byte) []byte {
	out := make([]byte, max(len(value), 1))
	copy(out, value)
	out[0] = byte(hopsOf(value) + 1)
	return out
}

// KeyHash is a small deterministic hash of a key (FNV-1a, 32 bits): the partitioner and the
// FanoutOne selector.
func KeyHash(key []byte) uint32 {
	h := uint32(2166136261)
	for _, b := range key {
		h ^= uint32(b)
		h *= 16777619
	}
	return h
}

// Forward is the default Handler: it forwards the delivery to the process's sent topics while
// the hop count is below in.HopsMax. sends are the process's sent topic names; fanoutOne picks
// one of them by the key.
func Forward(in Delivered, sends []string, fanoutOne bool) []Emission {
	if len(sends) == 0 || hopsOf(in.Value) >= in.HopsMax {
		return nil
	}
	value := forwardValue(in.Value)
	if fanoutOne {
		t := sends[KeyHash(in.Key)%uint32(len(sends))]
		return []Emission{{Topic: t, Key: in.Key, Value: value}}
	}
	out := make([]Emission, len(sends))
	for i, t := range sends {
		out[i] = Emission{Topic: t, Key: in.Key, Value: value}
	}
	return out
}
