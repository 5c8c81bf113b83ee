package node

// mergeCauses raises dst pointwise to at least src (a pointwise maximum), like Causes.MergeFrom,
// tuned for the engine's hot path: a delivered or received message usually names channels the
// frontier already has, in the same order, so each source entry is matched by an equality test
// after at most a few ordered comparisons, and nothing is allocated. A source channel missing
// from dst falls back to MergeFrom.
func mergeCauses(dst *Causes, src Causes) {
	d := dst.pairs
	i := 0
	for _, o := range src.pairs {
		for i < len(d) && d[i].Channel != o.Channel {
			if compareChannels(d[i].Channel, o.Channel) > 0 {
				dst.MergeFrom(src)
				return
			}
			i++
		}
		if i == len(d) {
			dst.MergeFrom(src)
			return
		}
		if o.Position > d[i].Position {
			d[i].Position = o.Position
		}
		i++
	}
}
