package substrate

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Record batch v2 attribute bits (Kafka's DefaultRecordBatch).
const (
	batchCompressionMask = 0x07
	batchTransactional   = 0x10
	batchControl         = 0x20
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// producerFields are a batch's idempotence/transaction stamp; plain produces use noProducer.
type producerFields struct {
	id       int64
	epoch    int16
	sequence int32
	txn      bool
}

var noProducer = producerFields{id: -1, epoch: -1, sequence: -1}

// encodeBatch encodes rec as an uncompressed single-record v2 batch. Timestamps go to Kafka in
// milliseconds (rounded down).
func encodeBatch(rec Record, pf producerFields) []byte {
	timestampMillis := floorDiv(rec.TimestampMicros, 1000)
	kr := kmsg.Record{Key: rec.Key, Value: rec.Value}
	for _, h := range rec.Headers {
		kr.Headers = append(kr.Headers, kmsg.Header{Key: h.Key, Value: h.Value})
	}
	body := kr.AppendTo(nil) // Length 0 encodes as the one byte 0x00
	records := binary.AppendVarint(nil, int64(len(body)-1))
	records = append(records, body[1:]...)

	var attributes int16
	if pf.txn {
		attributes |= batchTransactional
	}
	b := kmsg.RecordBatch{
		PartitionLeaderEpoch: -1,
		Magic:                2,
		Attributes:           attributes,
		FirstTimestamp:       timestampMillis,
		MaxTimestamp:         timestampMillis,
		ProducerID:           pf.id,
		ProducerEpoch:        pf.epoch,
		FirstSequence:        pf.sequence,
		NumRecords:           1,
		Records:              records,
	}
	raw := b.AppendTo(nil)
	binary.BigEndian.PutUint32(raw[8:12], uint32(len(raw)-12))
	binary.BigEndian.PutUint32(raw[17:21], crc32.Checksum(raw[21:], castagnoli))
	return raw
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// decodedBatch is one record batch of a fetch response with its records decoded.
type decodedBatch struct {
	firstOffset   Offset
	lastOffset    Offset
	producerID    int64
	transactional bool
	control       bool
	abortMarker   bool // a control batch whose record is an ABORT marker
	records       []FetchedRecord
}

// decodeBatches splits a fetch response's record set into batches. A truncated trailing batch
// (Kafka may cut a response mid-batch) is dropped.
func decodeBatches(raw []byte, decompressor kgo.Decompressor) ([]decodedBatch, error) {
	var out []decodedBatch
	for len(raw) >= 17 {
		length := int(int32(binary.BigEndian.Uint32(raw[8:12])))
		total := 12 + length
		if length <= 0 || total > len(raw) {
			break
		}
		if magic := raw[16]; magic != 2 {
			return nil, fmt.Errorf("substrate: record batch magic %d, only v2 is supported", magic)
		}
		var b kmsg.RecordBatch
		if err := b.ReadFrom(raw[:total]); err != nil {
			return nil, fmt.Errorf("substrate: decoding record batch: %w", err)
		}
		raw = raw[total:]
		db, err := decodeBatch(&b, decompressor)
		if err != nil {
			return nil, err
		}
		out = append(out, db)
	}
	return out, nil
}

func decodeBatch(b *kmsg.RecordBatch, decompressor kgo.Decompressor) (decodedBatch, error) {
	db := decodedBatch{
		firstOffset:   Offset(b.FirstOffset),
		lastOffset:    Offset(b.FirstOffset + int64(b.LastOffsetDelta)),
		producerID:    b.ProducerID,
		transactional: b.Attributes&batchTransactional != 0,
		control:       b.Attributes&batchControl != 0,
	}
	records := b.Records
	if codec := b.Attributes & batchCompressionMask; codec != 0 {
		var err error
		if records, err = decompressor.Decompress(records, kgo.CompressionCodecType(codec)); err != nil {
			return db, fmt.Errorf("substrate: decompressing batch at %d: %w", b.FirstOffset, err)
		}
	}
	for i := int32(0); i < b.NumRecords; i++ {
		length, n := binary.Varint(records)
		if n <= 0 || int(length) < 0 || n+int(length) > len(records) {
			return db, fmt.Errorf("substrate: truncated record %d in batch at %d", i, b.FirstOffset)
		}
		var kr kmsg.Record
		if err := kr.ReadFrom(records[:n+int(length)]); err != nil {
			return db, fmt.Errorf("substrate: decoding record %d in batch at %d: %w", i, b.FirstOffset, err)
		}
		records = records[n+int(length):]
		if db.control {
			// Control record key: int16 version, int16 type (0 abort, 1 commit).
			db.abortMarker = len(kr.Key) >= 4 && binary.BigEndian.Uint16(kr.Key[2:4]) == 0
			continue
		}
		rec := Record{
			Key:             kr.Key,
			Value:           kr.Value,
			TimestampMicros: (b.FirstTimestamp + kr.TimestampDelta64) * 1000,
		}
		for _, h := range kr.Headers {
			rec.Headers = append(rec.Headers, Header{Key: h.Key, Value: h.Value})
		}
		db.records = append(db.records, FetchedRecord{Offset: Offset(b.FirstOffset + int64(kr.OffsetDelta)), Record: rec})
	}
	return db, nil
}

// abortFilter is Kafka's read_committed client-side filter (KafkaConsumer's CompletedFetch):
// a transactional batch is aborted if its producer has an aborted transaction, listed in the
// fetch response, that started at or before the batch and whose abort marker has not yet been
// passed.
type abortFilter struct {
	pending []kmsg.FetchResponseTopicPartitionAbortedTransaction // sorted by FirstOffset
	aborted map[int64]bool
}

func newAbortFilter(list []kmsg.FetchResponseTopicPartitionAbortedTransaction) *abortFilter {
	pending := append([]kmsg.FetchResponseTopicPartitionAbortedTransaction(nil), list...)
	for i := 1; i < len(pending); i++ { // insertion sort: the list is short and usually sorted
		for j := i; j > 0 && pending[j].FirstOffset < pending[j-1].FirstOffset; j-- {
			pending[j], pending[j-1] = pending[j-1], pending[j]
		}
	}
	return &abortFilter{pending: pending, aborted: make(map[int64]bool)}
}

// visible reports whether b's records are served to a read_committed reader, and updates the
// filter's state as the reader passes b.
func (f *abortFilter) visible(b *decodedBatch) bool {
	if b.producerID >= 0 && (b.transactional || b.control) {
		for len(f.pending) > 0 && Offset(f.pending[0].FirstOffset) <= b.lastOffset {
			f.aborted[f.pending[0].ProducerID] = true
			f.pending = f.pending[1:]
		}
	}
	if b.control {
		if b.abortMarker {
			delete(f.aborted, b.producerID)
		}
		return false
	}
	return !(b.transactional && f.aborted[b.producerID])
}
