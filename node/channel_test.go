package node

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"
)

// fxTopic returns a distinct non-zero topic ID for i ≥ 0; IDs ascend with i in channel order.
func fxTopic(i int) TopicID {
	var id TopicID
	id[0] = 0x10
	binary.BigEndian.PutUint64(id[8:], uint64(i)+1)
	return id
}

// fxChannel is channel (fxTopic(topic), partition).
func fxChannel(topic int, partition Partition) Channel {
	return Channel{Topic: fxTopic(topic), Partition: partition}
}

// fxFrontier returns a frontier of topics × partitions entries, position 1000+index.
func fxFrontier(topics, partitions int) Causes {
	var c Causes
	for t := 0; t < topics; t++ {
		for p := 0; p < partitions; p++ {
			c.Merge(fxChannel(t, Partition(p)), Offset(1000+t*partitions+p))
		}
	}
	return c
}

func TestChannelCompareIsUnsignedBytesThenPartition(t *testing.T) {
	var low, high, mid TopicID
	low[15] = 1
	high[0] = 0xf1 // 0xf1 > 0x01 unsigned, negative as a signed byte
	mid[0], mid[15] = 0x01, 0xff
	ids := []TopicID{low, mid, high, {0x80}, {0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}}
	parts := []Partition{0, 1, 127, 128, 1<<31 - 1}
	for _, a := range ids {
		for _, b := range ids {
			for _, pa := range parts {
				for _, pb := range parts {
					x, y := Channel{a, pa}, Channel{b, pb}
					want := bytes.Compare(wire20(x), wire20(y))
					if got := x.Compare(y); got != want {
						t.Fatalf("%v.Compare(%v) = %d, want %d (20-byte wire order)", x, y, got, want)
					}
				}
			}
		}
	}
}

// wire20 is the 20-byte channel encoding of wire constraint 4.
func wire20(c Channel) []byte {
	return binary.BigEndian.AppendUint32(append([]byte(nil), c.Topic[:]...), uint32(c.Partition))
}

func TestTopicIDString(t *testing.T) {
	id := TopicID{0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0xF0}
	if got, want := id.String(), "01020304-0506-0708-090a-0b0c0d0e0ff0"; got != want {
		t.Fatalf("String = %q, want %q", got, want)
	}
	if got := (Channel{id, 7}).String(); !strings.HasSuffix(got, "/7") || !strings.HasPrefix(got, "01020304-") {
		t.Fatalf("Channel.String = %q", got)
	}
	if !(TopicID{}).IsZero() || id.IsZero() || (TopicID{15: 1}).IsZero() {
		t.Fatal("IsZero misreports")
	}
}

func TestChannelValid(t *testing.T) {
	cases := []struct {
		ch   Channel
		want bool
	}{
		{Channel{fxTopic(0), 0}, true},
		{Channel{fxTopic(0), 1<<31 - 1}, true},
		{Channel{fxTopic(0), -1}, false},
		{Channel{TopicID{}, 0}, false},
	}
	for _, tc := range cases {
		if got := tc.ch.valid(); got != tc.want {
			t.Errorf("%v.valid() = %v, want %v", tc.ch, got, tc.want)
		}
	}
}
