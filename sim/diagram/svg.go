package diagram

import (
	"bytes"
	"cmp"
	"encoding/xml"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/parsleysim/parsleysim/sim/spec"
)

// Colours of the diagram.
const (
	colViolation  = "#e03131"
	colHold       = "#f59f00"
	colHoldBack   = "#ffe8cc"
	colHoldHi     = "#ff6b6b" // a hold a violation points at
	colHoldBackHi = "#ffc9c9"
	colDelivered  = "#2f9e44"
	colDown       = "#adb5bd"
	colEmission   = "#495057"
	colExternal   = "#1c7ed6"
)

// kindColour is the arrow colour of a message kind.
func kindColour(kind string) string {
	switch kind {
	case "emission":
		return colEmission
	case "stamped":
		return "#0b7285"
	case "corrupt":
		return "#9c36b5"
	case "forged":
		return "#e8590c"
	}
	return colExternal
}

// WriteSVG draws the collected run as a space-time diagram in SVG. violations are the run's
// (Result.Violations); violation events seen in the trace are merged with them. The same
// events and violations give the same bytes.
func (d *Sink) WriteSVG(w io.Writer, violations []spec.Violation) error {
	vios := d.mergeViolations(violations)
	focus := -1
	if len(vios) > 0 {
		focus = d.focusStep(vios[0])
	}
	l := d.layout(focus)
	hl := d.highlight(vios)
	listY := l.lanesEnd + 22
	width := max(l.width, 900)
	legendY := listY + diagVioListLines(vios, width)*15 + 8
	if len(vios) > 0 {
		legendY += 10
	}
	height := legendY + diagLegendHeight(width)
	s := &svgBuf{}
	fmt.Fprintf(&s.b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="DejaVu Sans, Verdana, sans-serif" font-size="11">`+"\n", width, height, width, height)
	s.b.WriteString(diagDefs)
	fmt.Fprintf(&s.b, `<rect x="0" y="0" width="%d" height="%d" fill="#ffffff"/>`+"\n", width, height)
	d.drawHeader(s, l, vios)
	d.drawLanes(s, l)
	d.drawHolds(s, l, hl)
	d.drawArrows(s, l, hl)
	d.drawDots(s, l, hl)
	d.drawMarks(s, l)
	d.drawViolations(s, l, vios, listY, width)
	drawLegend(s, legendY, width)
	s.b.WriteString("</svg>\n")
	_, err := w.Write(s.b.Bytes())
	return err
}

// svgBuf accumulates the SVG text.
type svgBuf struct{ b bytes.Buffer }

// esc escapes text for XML character data and attribute values.
func esc(s string) string {
	var b strings.Builder
	xml.EscapeText(&b, []byte(s))
	return b.String()
}

// title writes an SVG <title> child (the hover text).
func (s *svgBuf) title(t string) { fmt.Fprintf(&s.b, "<title>%s</title>", esc(t)) }

// text writes a text element.
func (s *svgBuf) text(x, y int, attrs, t string) {
	fmt.Fprintf(&s.b, `<text x="%d" y="%d" %s>%s</text>`+"\n", x, y, attrs, esc(t))
}

// diagDefs are the arrowheads.
const diagDefs = `<defs>
<marker id="ah" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="context-stroke"/></marker>
<marker id="ahv" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="6" markerHeight="6" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="` + colViolation + `"/></marker>
</defs>
`

// mergeViolations joins the caller's violations with those seen as trace events (each once),
// sorted by step, process, criterion and detail.
func (d *Sink) mergeViolations(given []spec.Violation) []spec.Violation {
	key := func(v spec.Violation) string {
		return fmt.Sprintf("%s|%d|%d|%s", v.Criterion, v.Step, v.Process, v.Detail)
	}
	seen := map[string]bool{}
	var out []spec.Violation
	for _, v := range slices.Concat(given, d.vios) {
		if k := key(v); !seen[k] {
			seen[k] = true
			out = append(out, v)
		}
	}
	slices.SortStableFunc(out, func(a, b spec.Violation) int {
		return cmp.Or(cmp.Compare(a.Step, b.Step), cmp.Compare(a.Process, b.Process),
			cmp.Compare(a.Criterion, b.Criterion), cmp.Compare(a.Detail, b.Detail))
	})
	return out
}

// focusStep is the step the window must show for violation v: its own step, or, for a check
// run after the last drawn step (end of run), the latest step of the messages it names.
func (d *Sink) focusStep(v spec.Violation) int {
	if len(d.cols) == 0 || v.Step <= d.cols[len(d.cols)-1].step {
		return v.Step
	}
	focus := -1
	for _, uid := range violationMsgs(v) {
		m, ok := d.msgIdx[uid]
		if !ok {
			continue
		}
		for _, dl := range d.delivs {
			if dl.msg == m {
				focus = max(focus, d.cols[dl.at.col].step)
			}
		}
	}
	if focus < 0 {
		return v.Step
	}
	return focus
}

// laneName names a lane.
func (d *Sink) laneName(lane int) string {
	if lane == 0 {
		return "external / world"
	}
	if lane-1 < len(d.names) {
		return d.names[lane-1]
	}
	return fmt.Sprintf("p%d", lane-1)
}

// when describes position p of an event at virtual time timeMicros as "step N (t=Tus)" (the
// step's first event's time when timeMicros < 0), or "the end of the run".
func (d *Sink) when(p diagPos, timeMicros int64) string {
	if p.col < 0 || p.col >= len(d.cols) {
		return "the end of the run"
	}
	c := d.cols[p.col]
	if timeMicros < 0 {
		timeMicros = c.timeMicros
	}
	return fmt.Sprintf("step %d (t=%dus)", c.step, timeMicros)
}

// drawHeader writes the title, the notes and the step axis.
func (d *Sink) drawHeader(s *svgBuf, l *diagLayout, vios []spec.Violation) {
	title := d.Title
	if title == "" {
		title = "run"
	}
	steps := 0
	if n := len(d.cols); n > 0 {
		steps = d.cols[n-1].step
	}
	verdict := "pass"
	if len(vios) > 0 {
		verdict = fmt.Sprintf("VIOLATION (%d)", len(vios))
	}
	s.text(10, 18, `font-size="14" font-weight="bold"`, fmt.Sprintf("%s: %d steps, %d processes, verdict %s", title, steps, len(d.lanes)-1, verdict))
	note := "x: step index (steps without events omitted); hover any mark for details and virtual time"
	if l.truncated {
		where := ""
		if len(vios) > 0 {
			where = ", window ends just after the first violation"
		}
		note = fmt.Sprintf("showing steps %d-%d of %d (capped at %d columns%s); ", d.cols[l.c0].step, d.cols[l.c1-1].step,
			steps, l.c1-l.c0, where) + note
		s.text(10, 34, `fill="#d9480f"`, note)
	} else {
		s.text(10, 34, `fill="#666"`, note)
	}
	last := -1000
	for c := l.c0; c < l.c1; c++ {
		x, _ := l.x(diagPos{col: c})
		if x-last < 64 {
			continue
		}
		last = x
		fmt.Fprintf(&s.b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#f1f3f5"/>`+"\n", x, diagTopPx-22, x, l.lanesEnd)
		s.text(x, diagTopPx-28, `text-anchor="middle" fill="#333"`, fmt.Sprintf("step %d", d.cols[c].step))
		s.text(x, diagTopPx-16, `text-anchor="middle" fill="#999" font-size="9"`, fmt.Sprintf("%.2fms", float64(d.cols[c].timeMicros)/1000))
	}
	if l.c1 == l.nCols {
		s.text(l.endX, diagTopPx-28, `text-anchor="middle" fill="#333"`, "end")
	}
}

// drawLanes writes each lane's background, label and lifecycle line: solid while an execution
// runs, dotted grey while down, dotted red after a refusal (failed closed).
func (d *Sink) drawLanes(s *svgBuf, l *diagLayout) {
	right := l.colX[len(l.colX)-1]
	if l.c1 == l.nCols {
		right = l.endX
	}
	for lane := range d.lanes {
		top, y := l.laneTop[lane], l.laneY[lane]
		fill := "#ffffff"
		if lane == 0 {
			fill = "#f8f9fa"
		} else if lane%2 == 0 {
			fill = "#fcfcfd"
		}
		fmt.Fprintf(&s.b, `<rect x="0" y="%d" width="%d" height="%d" fill="%s" stroke="#e9ecef"/>`+"\n", top, right+diagRightPx, l.laneTopEnd(lane)-top, fill)
		s.text(8, y+4, `font-weight="bold" font-size="12"`, d.laneName(lane))
		if lane == 0 {
			fmt.Fprintf(&s.b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#ced4da"/>`+"\n", diagLeftPx, y, right, y)
			continue
		}
		state, from := "down", diagLeftPx
		for _, st := range d.lanes[lane].status {
			x, _ := l.x(st.at)
			drawLaneSegment(s, state, from, x, y)
			state, from = st.state, x
		}
		drawLaneSegment(s, state, from, right, y)
	}
}

// laneTopEnd is the bottom edge of lane.
func (l *diagLayout) laneTopEnd(lane int) int {
	if lane+1 < len(l.laneTop) {
		return l.laneTop[lane+1]
	}
	return l.lanesEnd
}

// drawLaneSegment draws one stretch of a lane line in the style of state.
func drawLaneSegment(s *svgBuf, state string, x1, x2, y int) {
	if x2 <= x1 {
		return
	}
	style := `stroke="#343a40" stroke-width="2"`
	switch state {
	case "down":
		style = `stroke="` + colDown + `" stroke-width="1.5" stroke-dasharray="2,3"`
	case "failed":
		style = `stroke="` + colViolation + `" stroke-width="1.5" stroke-dasharray="2,3"`
	}
	fmt.Fprintf(&s.b, `<line x1="%d" y1="%d" x2="%d" y2="%d" %s/>`+"\n", x1, y, x2, y, style)
}

// holdY is the top of hold h's bar.
func (l *diagLayout) holdY(h *diagHold) int { return l.laneY[h.lane] + 7 + h.track*diagTrackPx }

// drawHolds draws each hold as a bar under its lane line, from receipt to delivery (solid), to
// a rollback (pale), or to the end of the run (outlined red: never delivered).
func (d *Sink) drawHolds(s *svgBuf, l *diagLayout, hl *diagHighlight) {
	for i := range d.holds {
		h := &d.holds[i]
		to := h.to
		if h.open {
			to = diagPos{col: diagEndCol}
		}
		x1, in1 := l.x(h.from)
		x2, in2 := l.x(to)
		if !in1 && !in2 && (h.from.col >= l.c1 || to.col < l.c0) {
			continue
		}
		fill, stroke := colHold, ""
		switch {
		case hl.holds[i] && h.end == "rolled back":
			fill, stroke = colHoldBackHi, ` stroke="`+colViolation+`" stroke-width="0.8"`
		case hl.holds[i]:
			fill, stroke = colHoldHi, ` stroke="`+colViolation+`" stroke-width="0.8"`
		case h.open:
			stroke = ` stroke="` + colViolation + `" stroke-width="1"`
		case h.end == "rolled back":
			fill = colHoldBack
		}
		m := &d.msgs[h.msg]
		end := fmt.Sprintf("delivered at %s, held %dus", d.when(to, h.toTime), h.toTime-h.fromTime)
		if h.open {
			end = "never delivered by the end of the run"
		} else if h.end == "rolled back" {
			end = "the receipt was rolled back at " + d.when(to, h.toTime)
		}
		start := "received"
		if h.resumed {
			start = "held again (its delivery rolled back)"
		}
		fmt.Fprintf(&s.b, `<rect x="%d" y="%d" width="%d" height="4" fill="%s"%s>`, x1, l.holdY(h), max(x2-x1, 2), fill, stroke)
		s.title(fmt.Sprintf("m%d %s held by %s: %s at %s, %s", m.uid, m.channel, d.laneName(h.lane), start, d.when(h.from, h.fromTime), end))
		s.b.WriteString("</rect>\n")
	}
}
