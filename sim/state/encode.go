package state

import "encoding/binary"

// AppendBool appends v as one byte, 1 or 0.
func AppendBool(b []byte, v bool) []byte {
	if v {
		return append(b, 1)
	}
	return append(b, 0)
}

// AppendBytes appends a length-prefixed byte string (nil and empty alike: the world never
// distinguishes them).
func AppendBytes(b, v []byte) []byte {
	b = binary.AppendUvarint(b, uint64(len(v)))
	return append(b, v...)
}

// AppendNullableBytes appends v as AppendBytes does, with nil (a null header value) told apart
// from empty.
func AppendNullableBytes(b, v []byte) []byte {
	if v == nil {
		return append(b, 0)
	}
	return AppendBytes(append(b, 1), v)
}

// AppendString appends s to dst as a uvarint length then the bytes.
func AppendString(dst []byte, s string) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(s)))
	return append(dst, s...)
}
