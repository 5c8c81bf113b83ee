package diagram

import (
	"bytes"
	"fmt"
	"io"

	"github.com/parsleysim/parsleysim/sim/spec"
)

// diagLegendItem is one entry of the legend: a sample drawn by draw at (x, y) and its meaning.
type diagLegendItem struct {
	text string
	draw func(s *svgBuf, x, y int)
}

// diagLegend lists every kind of mark the diagram draws.
var diagLegend = []diagLegendItem{
	{"external record, produce to receipt", func(s *svgBuf, x, y int) { legendArrow(s, x, y, colExternal, "") }},
	{"record sent by a process", func(s *svgBuf, x, y int) { legendArrow(s, x, y, colEmission, "") }},
	{"duplicate receipt", func(s *svgBuf, x, y int) {
		legendArrow(s, x, y, "#868e96", ` stroke-dasharray="4,3"`)
	}},
	{"receipt rolled back", func(s *svgBuf, x, y int) { legendArrow(s, x, y, colEmission, ` stroke-opacity="0.35"`) }},
	{"hold: receipt to delivery", func(s *svgBuf, x, y int) { legendBar(s, x, y, colHold, "") }},
	{"hold never delivered", func(s *svgBuf, x, y int) {
		legendBar(s, x, y, colHold, ` stroke="`+colViolation+`" stroke-width="1"`)
	}},
	{"hold ended by a rollback", func(s *svgBuf, x, y int) { legendBar(s, x, y, colHoldBack, "") }},
	{"delivered", func(s *svgBuf, x, y int) { legendDot(s, x+12, y, colDelivered) }},
	{"delivery rolled back", func(s *svgBuf, x, y int) { legendDot(s, x+12, y, "#ffffff") }},
	{"commit", func(s *svgBuf, x, y int) { drawGlyph(s, "committed", x+12, y, "commit") }},
	{"start", func(s *svgBuf, x, y int) { drawGlyph(s, "started", x+12, y, "start") }},
	{"crash (step rolled back)", func(s *svgBuf, x, y int) { drawGlyph(s, "crashed", x+12, y, "crash") }},
	{"refusal (failed closed)", func(s *svgBuf, x, y int) { drawGlyph(s, "refused", x+12, y, "refusal") }},
	{"clean stop", func(s *svgBuf, x, y int) { drawGlyph(s, "stopped", x+12, y, "stop") }},
	{"M migrate, Z zombie fenced", func(s *svgBuf, x, y int) { drawGlyph(s, "migrated", x+12, y, "migrate") }},
	{"RW rewind, RD redeclare", func(s *svgBuf, x, y int) { drawGlyph(s, "rewound", x+12, y, "rewind") }},
	{"TR truncate, RT retention", func(s *svgBuf, x, y int) { drawGlyph(s, "truncated", x+12, y, "truncate") }},
	{"DEL / NEW topic deleted / recreated", func(s *svgBuf, x, y int) { drawGlyph(s, "deleted", x+12, y, "delete") }},
	{"TX+ / TX- / TXA external transaction", func(s *svgBuf, x, y int) { drawGlyph(s, "txn-opened", x+12, y, "txn") }},
	{"process down / failed closed", func(s *svgBuf, x, y int) {
		drawLaneSegment(s, "down", x, x+12, y-3)
		drawLaneSegment(s, "failed", x, x+12, y+3)
	}},
	{"violation and what it names", func(s *svgBuf, x, y int) {
		legendArrow(s, x, y, colViolation, "")
		fmt.Fprintf(&s.b, `<circle cx="%d" cy="%d" r="6" fill="none" stroke="%s" stroke-width="2"/>`+"\n", x+12, y, colViolation)
	}},
}

// Legend geometry. The legend (and the violation list) keep to the first diagTextWidthPx of a
// wide picture, where a reader who scrolls to the start finds them.
const (
	diagLegendColPx = 250
	diagLegendRowPx = 20
	diagTextWidthPx = 1260
)

// diagLegendHeight is the height of the legend at width.
func diagLegendHeight(width int) int {
	perRow := max(1, (min(width, diagTextWidthPx)-20)/diagLegendColPx)
	rows := (len(diagLegend) + perRow - 1) / perRow
	return 24 + rows*diagLegendRowPx + 10
}

// drawLegend draws the legend with its top at y.
func drawLegend(s *svgBuf, y, width int) {
	s.text(10, y+12, `font-weight="bold"`, "Legend")
	perRow := max(1, (min(width, diagTextWidthPx)-20)/diagLegendColPx)
	for i, it := range diagLegend {
		x := 10 + (i%perRow)*diagLegendColPx
		cy := y + 30 + (i/perRow)*diagLegendRowPx
		it.draw(s, x, cy)
		s.text(x+32, cy+4, `fill="#333"`, it.text)
	}
}

func legendArrow(s *svgBuf, x, y int, colour, extra string) {
	fmt.Fprintf(&s.b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="1.4" marker-end="url(#ah)"%s/>`+"\n", x, y-6, x+24, y+5, colour, extra)
}

func legendBar(s *svgBuf, x, y int, fill, extra string) {
	fmt.Fprintf(&s.b, `<rect x="%d" y="%d" width="26" height="4" fill="%s"%s/>`+"\n", x, y-2, fill, extra)
}

func legendDot(s *svgBuf, x, y int, fill string) {
	fmt.Fprintf(&s.b, `<circle cx="%d" cy="%d" r="3.5" fill="%s" stroke="%s" stroke-width="1.2"/>`+"\n", x, y, fill, colDelivered)
}

// WriteHTML writes a self-contained HTML page (no script, no external assets) embedding the SVG
// of WriteSVG with a short guide to reading it. Hovering any mark shows its details (SVG
// <title> elements).
func (d *Sink) WriteHTML(w io.Writer, violations []spec.Violation) error {
	var svg bytes.Buffer
	if err := d.WriteSVG(&svg, violations); err != nil {
		return err
	}
	title := d.Title
	if title == "" {
		title = "run"
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n<title>%s: space-time diagram</title>\n", esc(title))
	b.WriteString(`<style>
body { font-family: "DejaVu Sans", Verdana, sans-serif; font-size: 14px; margin: 16px; color: #212529; }
.scroll { overflow-x: auto; border: 1px solid #dee2e6; }
.guide { max-width: 60em; line-height: 1.45; }
</style>
</head>
<body>
`)
	fmt.Fprintf(&b, "<h1 style=\"font-size:18px\">%s: space-time diagram</h1>\n", esc(title))
	b.WriteString(`<div class="guide"><p>One lane per process, and one on top for the outside world (external
producers, truncation, retention, topic deletion and recreation, external transactions). Time runs
left to right by scheduler step; steps without events are left out, and events of one step on one
lane stand side by side in the order they happened. Hover any mark for its details and virtual time.</p>
<p>An arrow runs from a record's produce or send to its receipt; the orange bar under the receiving
lane is the hold, from receipt to delivery (green dot). A bar outlined red was never delivered. A
crash (black cross) rolls back the process's uncommitted step: its receipts fade, its deliveries turn
hollow, and its sends are aborted. A red stop sign is a refusal: the process failed closed and stays
down. A violation is a red dashed line at its step with a numbered sign on the process that broke the
property; the records it names, and the chain of receipts and deliveries that makes one a cause of the
other, are drawn in red.</p></div>
<div class="scroll">
`)
	b.Write(svg.Bytes())
	b.WriteString("</div>\n</body>\n</html>\n")
	_, err := w.Write(b.Bytes())
	return err
}
