package node

// Counters are the engine's cumulative deterministic work. The simulator charges virtual time from
// them and the benchmark baseline (results/sim-metrics.json) gates them exactly, so a regression to
// work proportional to buffer depth shows up as a fact, not a timing.
type Counters struct {
	HeadsOffered       uint64 // held messages offered to the gate (heads only, except under NO_FIFO)
	CausesCompared     uint64 // cause entries the gate examined
	CausesMerged       uint64 // cause entries merged into the frontier or delivered past (incl. own coordinates)
	HeaderBytesDecoded uint64 // parsley.causes bytes decoded at receipt
	HeaderBytesEncoded uint64 // parsley.causes bytes encoded for stamps
	HoldsAdded         uint64 // messages put into a hold-back buffer
	HoldsRemoved       uint64 // messages taken out of a hold-back buffer
	Deliveries         uint64 // messages delivered
}

// Minus returns c − d field by field (work done between two readings).
func (c Counters) Minus(d Counters) Counters {
	return Counters{
		HeadsOffered:       c.HeadsOffered - d.HeadsOffered,
		CausesCompared:     c.CausesCompared - d.CausesCompared,
		CausesMerged:       c.CausesMerged - d.CausesMerged,
		HeaderBytesDecoded: c.HeaderBytesDecoded - d.HeaderBytesDecoded,
		HeaderBytesEncoded: c.HeaderBytesEncoded - d.HeaderBytesEncoded,
		HoldsAdded:         c.HoldsAdded - d.HoldsAdded,
		HoldsRemoved:       c.HoldsRemoved - d.HoldsRemoved,
		Deliveries:         c.Deliveries - d.Deliveries,
	}
}
