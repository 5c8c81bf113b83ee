package refnode

import "github.com/parsleysim/parsleysim/sim/oracle/wire"

// The model reads and writes parsley.causes only through the oracle's reference codec
// (sim/oracle/wire), never node's.

// decodeCauses decodes one parsley.causes value (nil: a null value) into a cause map.
func decodeCauses(value []byte) (map[Channel]Position, error) {
	causes, r := wire.Decode(value)
	if r != nil {
		return nil, r
	}
	out := make(map[Channel]Position, len(causes))
	for _, c := range causes {
		out[Channel{Topic: TopicID(c.Channel.Topic), Partition: c.Channel.Partition}] = Position(c.Position)
	}
	return out, nil
}

// encodeCauses is the canonical encoding of a cause map.
func encodeCauses(m map[Channel]Position) []byte {
	causes := make([]wire.Cause, 0, len(m))
	for c, p := range m {
		causes = append(causes, wire.Cause{Channel: wire.Channel{Topic: wire.TopicID(c.Topic), Partition: c.Partition}, Position: int64(p)})
	}
	return wire.Encode(causes)
}

// encodedLen is the length of a cause map's canonical encoding by SPEC §4.5: 1 + varint(topics)
// + Σ over topics [16 + varint(partitions) + Σ over partitions (varint(partition) + 8)].
// Positions are fixed-width, so it depends only on the channels named.
func encodedLen(m map[Channel]Position) int {
	partitions := map[TopicID]int{}
	size := 0
	for c := range m {
		partitions[c.Topic]++
		size += varintLen(uint32(c.Partition)) + 8
	}
	size += 1 + varintLen(uint32(len(partitions)))
	for _, n := range partitions {
		size += 16 + varintLen(uint32(n))
	}
	return size
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
