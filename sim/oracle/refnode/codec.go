package refnode

import "github.com/parsleysim/parsleysim/sim/oracle/wire"

// The model reads and writes parsley.causes only through the oracle's reference codec
// (sim/oracle/wire), never node's.

// decodeCauses decodes one parsley.causes value (nil: a null value).
func decodeCauses(value []byte) (Positions, error) {
	var buf [16]wire.Cause // the decoded causes live only until converted
	causes, r := wire.AppendDecode(buf[:0], value)
	if r != nil {
		return nil, r
	}
	if len(causes) == 0 {
		return nil, nil
	}
	// The grammar lists a value's causes in channel order, each channel once (constraints 3
	// and 4): they are a Positions as they come.
	out := make(Positions, len(causes))
	for i, c := range causes {
		out[i] = Entry{Channel: Channel{Topic: TopicID(c.Channel.Topic), Partition: c.Channel.Partition}, Position: Position(c.Position)}
	}
	return out, nil
}

// encodeCauses is the canonical encoding of causes.
func encodeCauses(p Positions) []byte {
	var buf [16]wire.Cause // the causes to encode live only until encoded
	causes := buf[:0]
	for _, e := range p {
		causes = append(causes, wire.Cause{Channel: wire.Channel{Topic: wire.TopicID(e.Channel.Topic), Partition: e.Channel.Partition}, Position: int64(e.Position)})
	}
	return wire.Encode(causes)
}

// encodedLen is the length of the canonical encoding of p by SPEC §4.5: 1 + varint(topics) +
// Σ over topics [16 + varint(partitions) + Σ over partitions (varint(partition) + 8)].
// Positions are fixed-width, so it depends only on the channels named. p lists a topic's
// channels together (channel order).
func encodedLen(p Positions) int {
	size, topics := 0, 0
	for i := 0; i < len(p); {
		j := i
		for j < len(p) && p[j].Channel.Topic == p[i].Channel.Topic {
			size += varintLen(uint32(p[j].Channel.Partition)) + 8
			j++
		}
		size += 16 + varintLen(uint32(j-i))
		topics++
		i = j
	}
	return size + 1 + varintLen(uint32(topics))
}

// varintLen is the length of v's minimal base-128 spelling.
func varintLen(v uint32) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}
