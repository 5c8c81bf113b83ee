package diagram

import (
	"cmp"
	"slices"
)

// Geometry of the diagram, in SVG user units (pixels).
const (
	diagLeftPx     = 130 // lane labels
	diagRightPx    = 70
	diagTopPx      = 92 // title, notes and the step axis
	diagSlotPx     = 11 // one event inside a column
	diagColPadPx   = 5  // between columns
	diagLaneBasePx = 46 // a lane without holds
	diagTrackPx    = 6  // one stacked hold bar
	diagTracksMax  = 6  // holds beyond this many at once share the last track
	diagEndColPx   = 40 // the "end of run" column for open holds and end-of-run checks
)

// diagLayout is where everything goes: the window of drawn columns, each column's x, each
// lane's y, and the hold tracks.
type diagLayout struct {
	c0, c1    int   // drawn columns [c0, c1)
	colX      []int // x of column c0+i's left edge; colX[c1-c0] is the end column
	endX      int   // x of the end-of-run column's centre
	width     int
	laneY     []int // y of each lane's line
	laneTop   []int // y of each lane's top edge
	lanesEnd  int   // y below the last lane
	nCols     int   // all columns
	truncated bool  // the window leaves columns out
}

// diagEndCol is the column of the end of the run: open holds reach it, end-of-run checks sit on it.
const diagEndCol = 1 << 30

// layout computes the geometry for the collected events; focusStep, when >= 0, is a step the
// window must show (the first violation's).
func (d *Sink) layout(focusStep int) *diagLayout {
	l := &diagLayout{}
	l.c0, l.c1 = d.window(focusStep)
	l.nCols = len(d.cols)
	l.truncated = l.c0 > 0 || l.c1 < len(d.cols)
	x := diagLeftPx
	for c := l.c0; c < l.c1; c++ {
		l.colX = append(l.colX, x)
		x += diagColPadPx + max(d.cols[c].slots, 1)*diagSlotPx
	}
	l.colX = append(l.colX, x)
	l.endX = x + diagEndColPx/2
	l.width = x + diagEndColPx + diagRightPx
	tracks := d.assignTracks()
	y := diagTopPx
	for lane := range d.lanes {
		l.laneTop = append(l.laneTop, y)
		l.laneY = append(l.laneY, y+20)
		y += diagLaneBasePx + tracks[lane]*diagTrackPx
	}
	l.lanesEnd = y
	return l
}

// window picks the drawn columns: all of them when they fit the cap, else a window of the cap's
// width that ends a little after the focus step (or starts at the beginning without one).
func (d *Sink) window(focusStep int) (int, int) {
	capCols := d.MaxColumns
	if capCols <= 0 {
		capCols = DefaultColumns
	}
	n := len(d.cols)
	if n <= capCols {
		return 0, n
	}
	if focusStep < 0 {
		return 0, capCols
	}
	end := min(n, d.colOfStep(focusStep)+1+capCols/10)
	start := max(0, end-capCols)
	return start, min(n, start+capCols)
}

// colOfStep returns the first column at or after step (len(cols) when there is none).
func (d *Sink) colOfStep(step int) int {
	i, _ := slices.BinarySearchFunc(d.cols, step, func(c diagCol, s int) int { return cmp.Compare(c.step, s) })
	return i
}

// x returns the centre x of position p, clamped to the window's edges; in reports whether p
// lies inside the window. diagEndCol is the end-of-run column.
func (l *diagLayout) x(p diagPos) (int, bool) {
	switch {
	case p.col == diagEndCol && l.c1 == l.nCols:
		return l.endX, true
	case p.col < l.c0:
		return l.colX[0], false
	case p.col >= l.c1:
		return l.colX[len(l.colX)-1], false
	}
	return l.colX[p.col-l.c0] + diagColPadPx/2 + p.sub*diagSlotPx + diagSlotPx/2, true
}

// posLess orders positions along the axis.
func posLess(a, b diagPos) bool {
	return a.col < b.col || (a.col == b.col && a.sub < b.sub)
}

// assignTracks gives every hold a track on its lane (greedy interval colouring in order of
// start, capped at diagTracksMax) and returns each lane's track count.
func (d *Sink) assignTracks() []int {
	order := make([]int, len(d.holds))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		ha, hb := &d.holds[a], &d.holds[b]
		if c := cmp.Compare(ha.lane, hb.lane); c != 0 {
			return c
		}
		if posLess(ha.from, hb.from) {
			return -1
		}
		if posLess(hb.from, ha.from) {
			return 1
		}
		return 0
	})
	counts := make([]int, len(d.lanes))
	ends := map[int][]diagPos{} // lane → end of each track (lookups only)
	for _, i := range order {
		h := &d.holds[i]
		end := h.to
		if h.open {
			end = diagPos{col: diagEndCol}
		}
		tr := ends[h.lane]
		h.track = -1
		for t := range tr {
			if posLess(tr[t], h.from) {
				h.track = t
				break
			}
		}
		if h.track < 0 && len(tr) < diagTracksMax {
			tr = append(tr, diagPos{})
			h.track = len(tr) - 1
		}
		if h.track < 0 {
			h.track = diagTracksMax - 1
		}
		if posLess(tr[h.track], end) {
			tr[h.track] = end
		}
		ends[h.lane] = tr
		counts[h.lane] = max(counts[h.lane], len(tr))
	}
	return counts
}
