package diagram

import (
	"fmt"
	"slices"
	"strings"

	"github.com/parsleysim/parsleysim/sim/spec"
)

// drawArrows draws one arrow per receipt, from the message's produce or send to the receiving
// lane: coloured by the message's kind, dashed for a duplicate, faded when the receipt was
// rolled back, red and labelled when a violation points at it.
func (d *Sink) drawArrows(s *svgBuf, l *diagLayout, hl *diagHighlight) {
	for i := range d.feeds {
		f := &d.feeds[i]
		m := &d.msgs[f.msg]
		if (m.at.col < l.c0 && f.at.col < l.c0) || m.at.col >= l.c1 {
			continue
		}
		x1, _ := l.x(m.at)
		x2, in2 := l.x(f.at)
		y1, y2 := l.laneY[m.from], l.laneY[f.lane]
		if f.again {
			if !in2 {
				continue
			}
			x1, y1 = x2-9, y2-16
		}
		style := fmt.Sprintf(`stroke="%s" stroke-width="1.2" marker-end="url(#ah)"`, kindColour(m.kind))
		switch {
		case hl.feeds[i]:
			style = `stroke="` + colViolation + `" stroke-width="2.4" marker-end="url(#ahv)"`
		case f.duplicate:
			style = `stroke="#868e96" stroke-width="1" stroke-dasharray="4,3" marker-end="url(#ah)"`
		case f.rolledBack:
			style += ` stroke-opacity="0.35"`
		}
		curved := y1 == y2
		if curved {
			fmt.Fprintf(&s.b, `<path d="M%d,%d C%d,%d %d,%d %d,%d" fill="none" %s>`, x1, y1, x1, y1-24, x2, y2-24, x2, y2-3, style)
		} else {
			y2 -= 3 * sign(y2-y1)
			fmt.Fprintf(&s.b, `<line x1="%d" y1="%d" x2="%d" y2="%d" %s>`, x1, y1, x2, y2, style)
		}
		s.title(d.feedTitle(f))
		if curved {
			s.b.WriteString("</path>\n")
		} else {
			s.b.WriteString("</line>\n")
		}
		if hl.feeds[i] {
			s.text(x2+4, l.laneY[f.lane]-6, `fill="`+colViolation+`" font-weight="bold" font-size="10"`, fmt.Sprintf("m%d", m.uid))
		}
	}
}

// sign returns -1, 0 or 1.
func sign(v int) int {
	switch {
	case v < 0:
		return -1
	case v > 0:
		return 1
	}
	return 0
}

// feedTitle describes one receipt.
func (d *Sink) feedTitle(f *diagFeed) string {
	m := &d.msgs[f.msg]
	var b strings.Builder
	fmt.Fprintf(&b, "m%d %s", m.uid, m.channel)
	if m.kind != "" {
		fmt.Fprintf(&b, " (%s)", m.kind)
	}
	switch {
	case !m.known:
		b.WriteString(", producer not traced")
	case m.from == 0:
		fmt.Fprintf(&b, ", produced at %s", d.when(m.at, m.timeMicros))
	default:
		fmt.Fprintf(&b, ", sent by %s at %s", d.laneName(m.from), d.when(m.at, m.timeMicros))
	}
	fmt.Fprintf(&b, " -> fed to %s at %s", d.laneName(f.lane), d.when(f.at, f.timeMicros))
	if f.again && !f.duplicate {
		b.WriteString(" (fed again: it was fed here before)")
	}
	if f.duplicate {
		b.WriteString(" (a duplicate: already received)")
	}
	if f.rolledBack {
		b.WriteString(" (the receiving step was rolled back)")
	}
	return b.String()
}

// drawDots draws sends and produces (small dots at the arrow tails; hollow when the send was
// rolled back, so the record was aborted; ringed and labelled when a violation names the
// message, which it may name although no process ever received it) and deliveries (green dots; hollow when the delivering
// step was rolled back, ringed red when a violation points at them).
func (d *Sink) drawDots(s *svgBuf, l *diagLayout, hl *diagHighlight) {
	for i := range d.msgs {
		m := &d.msgs[i]
		x, in := l.x(m.at)
		if !in || !m.known {
			continue
		}
		what := "produced"
		if m.from > 0 {
			what = "sent by " + d.laneName(m.from)
		}
		fill := kindColour(m.kind)
		note := ""
		if m.aborted {
			fill, note = "#ffffff", " (aborted: the sending step was rolled back)"
		}
		if hl.msgs[i] { // named by the violation: labelled at its send too (it may never have been received)
			fmt.Fprintf(&s.b, `<circle cx="%d" cy="%d" r="5.5" fill="none" stroke="%s" stroke-width="1.5"/>`+"\n", x, l.laneY[m.from], colViolation)
			s.text(x, l.laneY[m.from]+14, `text-anchor="middle" fill="`+colViolation+`" font-size="9"`, fmt.Sprintf("m%d", m.uid))
		}
		fmt.Fprintf(&s.b, `<circle cx="%d" cy="%d" r="2.5" fill="%s" stroke="%s">`, x, l.laneY[m.from], fill, kindColour(m.kind))
		s.title(fmt.Sprintf("m%d %s (%s) %s at %s%s", m.uid, m.channel, m.kind, what, d.when(m.at, m.timeMicros), note))
		s.b.WriteString("</circle>\n")
	}
	for i := range d.delivs {
		dl := &d.delivs[i]
		x, in := l.x(dl.at)
		if !in {
			continue
		}
		m := &d.msgs[dl.msg]
		fill, note := colDelivered, ""
		if dl.rolledBack {
			fill, note = "#ffffff", " (rolled back: this delivery did not happen)"
		}
		stroke := colDelivered
		if hl.others[i] && !hl.delivs[i] {
			fmt.Fprintf(&s.b, `<circle cx="%d" cy="%d" r="6" fill="none" stroke="%s" stroke-width="1"/>`+"\n", x, l.laneY[dl.lane], colViolation)
		}
		if hl.delivs[i] {
			fmt.Fprintf(&s.b, `<circle cx="%d" cy="%d" r="6.5" fill="none" stroke="%s" stroke-width="2"/>`+"\n", x, l.laneY[dl.lane], colViolation)
			s.text(x, l.laneY[dl.lane]-9, `text-anchor="middle" fill="`+colViolation+`" font-size="9"`, fmt.Sprintf("m%d", m.uid))
		}
		fmt.Fprintf(&s.b, `<circle cx="%d" cy="%d" r="3.5" fill="%s" stroke="%s" stroke-width="1.2">`, x, l.laneY[dl.lane], fill, stroke)
		s.title(fmt.Sprintf("m%d %s delivered by %s at %s%s", m.uid, m.channel, d.laneName(dl.lane), d.when(dl.at, dl.timeMicros), note))
		s.b.WriteString("</circle>\n")
	}
}

// markLetters are the short labels of lettered marks.
var markLetters = map[string]string{
	"migrated": "M", "zombie-fenced": "Z", "rewound": "RW", "redeclared": "RD",
	"truncated": "TR", "retention": "RT", "deleted": "DEL", "recreated": "NEW",
	"txn-opened": "TX+", "txn-aborted": "TXA", "txn-closed": "TX-", "skipped": "SK",
}

// drawMarks draws the lifecycle and world glyphs. Lettered world marks alternate above and
// below the world line so that neighbours do not cover each other; a refusal carries its
// reason in words.
func (d *Sink) drawMarks(s *svgBuf, l *diagLayout) {
	lettered := 0
	for i := range d.marks {
		mk := &d.marks[i]
		x, in := l.x(mk.at)
		y := l.laneY[mk.lane]
		if mk.lane == 0 && markLetters[mk.kind] != "" {
			y += 8 - 16*(lettered%2)
			lettered++
		}
		if !in {
			continue
		}
		drawGlyph(s, mk.kind, x, y, mk.title)
		if mk.kind == "refused" {
			s.text(x+10, y-8, `fill="`+colViolation+`" font-size="9"`, mk.reason)
		}
	}
}

// drawGlyph draws one mark of kind centred on (x, y) with hover text title.
func drawGlyph(s *svgBuf, kind string, x, y int, title string) {
	switch kind {
	case "committed":
		fmt.Fprintf(&s.b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#868e96" stroke-width="1.5">`, x, y-6, x, y+6)
		s.title(title)
		s.b.WriteString("</line>\n")
	case "crashed":
		fmt.Fprintf(&s.b, `<path d="M%d,%d L%d,%d M%d,%d L%d,%d" stroke="#000" stroke-width="2.6">`, x-5, y-5, x+5, y+5, x-5, y+5, x+5, y-5)
		s.title(title)
		s.b.WriteString("</path>\n")
	case "refused":
		fmt.Fprintf(&s.b, `<g><polygon points="%s" fill="%s" stroke="#fff" stroke-width="1"/><rect x="%d" y="%d" width="8" height="2.4" fill="#fff"/>`,
			octagon(x, y, 8), colViolation, x-4, y-1)
		s.title(title)
		s.b.WriteString("</g>\n")
	case "started":
		fmt.Fprintf(&s.b, `<polygon points="%d,%d %d,%d %d,%d" fill="%s">`, x-4, y-6, x+6, y, x-4, y+6, colDelivered)
		s.title(title)
		s.b.WriteString("</polygon>\n")
	case "stopped":
		fmt.Fprintf(&s.b, `<rect x="%d" y="%d" width="9" height="9" fill="#495057">`, x-4, y-4)
		s.title(title)
		s.b.WriteString("</rect>\n")
	default:
		letters := markLetters[kind]
		if letters == "" {
			letters = "?"
		}
		w := 6 + 6*len(letters)
		fmt.Fprintf(&s.b, `<g><rect x="%d" y="%d" width="%d" height="12" rx="3" fill="#fff" stroke="#495057"/>`, x-w/2, y-6, w)
		fmt.Fprintf(&s.b, `<text x="%d" y="%d" text-anchor="middle" font-size="8" fill="#212529">%s</text>`, x, y+3, esc(letters))
		s.title(title)
		s.b.WriteString("</g>\n")
	}
}

// octagon returns the points of a regular octagon of circumradius r around (x, y), in integers.
func octagon(x, y, r int) string {
	a, b := r*924/1000, r*383/1000 // cos and sin of 22.5 degrees
	pts := [8][2]int{{b, -a}, {a, -b}, {a, b}, {b, a}, {-b, a}, {-a, b}, {-a, -b}, {-b, -a}}
	var out []string
	for _, p := range pts {
		out = append(out, fmt.Sprintf("%d,%d", x+p[0], y+p[1]))
	}
	return strings.Join(out, " ")
}

// diagVioListMax caps the violations listed under the lanes (each is marked on the lanes).
const diagVioListMax = 12

// drawViolations draws each violation as a red dashed line across the lanes at its step and a
// labelled warning sign on the violating lane (violations at the same place share one sign),
// and lists them, numbered, under the lanes.
func (d *Sink) drawViolations(s *svgBuf, l *diagLayout, vios []spec.Violation, listY, width int) {
	if len(vios) == 0 {
		return
	}
	for i := 0; i < len(vios); {
		x, in := l.x(d.vioPos(vios[i]))
		lane := min(max(vios[i].Process+1, 0), len(l.laneY)-1)
		j := i + 1
		for j < len(vios) && vios[j].Process == vios[i].Process {
			if xj, _ := l.x(d.vioPos(vios[j])); xj != x {
				break
			}
			j++
		}
		if in {
			d.drawVioSign(s, l, vios[i:j], i, x, l.laneY[lane])
		}
		i = j
	}
	s.text(10, listY, `font-weight="bold" fill="`+colViolation+`"`, "Violations (V1 and what it names are drawn in red)")
	y := listY + 15
	for i, v := range vios[:min(len(vios), diagVioListMax)] {
		s.text(10, y, `font-weight="bold" fill="`+colViolation+`"`, fmt.Sprintf("V%d %s at step %d, %s", i+1, v.Criterion, v.Step, d.laneName(v.Process+1)))
		for _, ln := range wrapText(v.Detail, diagWrapChars(width)) {
			s.text(diagVioTextPx, y, `fill="#212529"`, ln)
			y += 15
		}
	}
	if n := len(vios) - diagVioListMax; n > 0 {
		s.text(diagVioTextPx, y, `fill="#666"`, fmt.Sprintf("... and %d more (marked on the lanes; hover the signs)", n))
	}
}

// diagVioTextPx is where a listed violation's detail starts.
const diagVioTextPx = 200

// diagWrapChars is how many characters of a violation's detail fit on one list line.
func diagWrapChars(width int) int { return max(60, (min(width, diagTextWidthPx)-diagVioTextPx-20)/7) }

// diagVioListLines counts the lines the violation list takes.
func diagVioListLines(vios []spec.Violation, width int) int {
	n := 0
	for _, v := range vios[:min(len(vios), diagVioListMax)] {
		n += len(wrapText(v.Detail, diagWrapChars(width)))
	}
	if len(vios) > diagVioListMax {
		n++
	}
	return n
}

// vioPos places a violation: the last slot of its step's column, or the end of the run for a
// step with no column (a check run after the last event).
func (d *Sink) vioPos(v spec.Violation) diagPos {
	if c := d.colOfStep(v.Step); c < len(d.cols) && d.cols[c].step == v.Step {
		return diagPos{col: c, sub: max(d.cols[c].slots-1, 0)}
	}
	return diagPos{col: diagEndCol}
}

// drawVioSign draws the line and sign of the violations group (numbered from first+1) at x on
// the lane line at y.
func (d *Sink) drawVioSign(s *svgBuf, l *diagLayout, group []spec.Violation, first, x, y int) {
	label := fmt.Sprintf("V%d", first+1)
	if len(group) > 1 {
		label = fmt.Sprintf("V%d-V%d", first+1, first+len(group))
	}
	var crits, titles []string
	for k, v := range group {
		if !slices.Contains(crits, string(v.Criterion)) {
			crits = append(crits, string(v.Criterion))
		}
		titles = append(titles, fmt.Sprintf("V%d %s", first+k+1, v.String()))
	}
	label += " " + strings.Join(crits, ",")
	fmt.Fprintf(&s.b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="1" stroke-dasharray="5,3"/>`+"\n", x, diagTopPx-12, x, l.lanesEnd, colViolation)
	fmt.Fprintf(&s.b, `<g><polygon points="%d,%d %d,%d %d,%d" fill="%s"/><text x="%d" y="%d" text-anchor="middle" font-size="9" font-weight="bold" fill="#fff">!</text>`,
		x, y-19, x-7, y-7, x+7, y-7, colViolation, x, y-9)
	s.title(strings.Join(titles, "\n"))
	s.b.WriteString("</g>\n")
	s.text(x+9, y-11, `fill="`+colViolation+`" font-weight="bold"`, label)
}

// wrapText splits s into lines of at most width characters at spaces.
func wrapText(s string, width int) []string {
	var lines []string
	var cur strings.Builder
	for _, w := range strings.Fields(s) {
		if cur.Len() > 0 && cur.Len()+1+len(w) > width {
			lines = append(lines, cur.String())
			cur.Reset()
		}
		if cur.Len() > 0 {
			cur.WriteByte(' ')
		}
		cur.WriteString(w)
	}
	if cur.Len() > 0 || len(lines) == 0 {
		lines = append(lines, cur.String())
	}
	return lines
}
