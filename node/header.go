package node

import "strings"

// Header is one Kafka record header. A nil Value is a null header value, which Kafka
// distinguishes from an empty one; for parsley.causes both are undecodable.
type Header struct {
	Key   string
	Value []byte
}

// CausesHeader finds the parsley.causes value among a record's headers (SPEC §4.1): present is
// false when there is none (the message has no causes); two or more are undecodable
// (FamilyDuplicateHeader) whatever their values. Other headers, including other parsley.*
// headers, are ignored here.
func CausesHeader(headers []Header) (value []byte, present bool, err error) {
	for i, h := range headers {
		if h.Key != HeaderKey {
			continue
		}
		if present {
			return nil, true, decodeErr(FamilyDuplicateHeader, 0, "header %d is a second %s header", i, HeaderKey)
		}
		value, present = h.Value, true
	}
	return value, present, nil
}

// ExtractCauses returns the causes a record's headers carry: none when the header is absent, the
// decoded frontier when exactly one is present, and a *DecodeError when the header is duplicated,
// null, or fails the grammar. The engine applies its metadata budget between finding and decoding
// (SPEC §2.2); this is the budget-free form for tools and tests.
func ExtractCauses(headers []Header) (Causes, error) {
	value, present, err := CausesHeader(headers)
	if err != nil || !present {
		return Causes{}, err
	}
	return Decode(value)
}

// ReservedHeader returns the key of the first application header that uses the reserved
// parsley. prefix, or "" when none does. Emissions carrying one are refused
// (RESERVED_HEADER_USED).
func ReservedHeader(headers []Header) string {
	for _, h := range headers {
		if strings.HasPrefix(h.Key, ReservedHeaderPrefix) {
			return h.Key
		}
	}
	return ""
}
