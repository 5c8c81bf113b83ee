package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/parsleysim/parsleysim/sim/diagram"
	"github.com/parsleysim/parsleysim/sim/spec"
)

// diagramFlags are --svg FILE and --html FILE: the run drawn as a space-time diagram
// (diagram.Sink), written after the run. The default run, replay and run FILE take them.
type diagramFlags struct {
	svgPath, htmlPath string
}

// register adds --svg and --html to fs.
func (f *diagramFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.svgPath, "svg", "", "draw the run as a space-time diagram in SVG to `FILE`")
	fs.StringVar(&f.htmlPath, "html", "", "draw the run as a space-time diagram in a self-contained HTML page to `FILE`")
}

// picture is one run's picture in the making: the sink collecting events and the files it goes to.
type picture struct {
	flags diagramFlags
	sink  *diagram.Sink
	files []*os.File // svg, html (nil when not asked for)
}

// start creates the requested files before the run (a bad path fails before any work, and
// names the flag) and returns the sink to add to the run; nil when no picture was asked for.
func (f diagramFlags) start(scn *spec.Scenario, title string) (*picture, error) {
	if f.svgPath == "" && f.htmlPath == "" {
		return nil, nil
	}
	d := &picture{flags: f, sink: diagram.NewSink(scn)}
	d.sink.Title = title
	for _, p := range []struct{ flag, path string }{{"--svg", f.svgPath}, {"--html", f.htmlPath}} {
		if p.path == "" {
			d.files = append(d.files, nil)
			continue
		}
		file, err := os.Create(p.path)
		if err != nil {
			d.close()
			return nil, fmt.Errorf("%s: %w", p.flag, err)
		}
		d.files = append(d.files, file)
	}
	return d, nil
}

// finish draws the run into the files and closes them; the first error names the flag.
func (d *picture) finish(res *spec.Result) error {
	if d == nil {
		return nil
	}
	var err error
	if svg := d.files[0]; svg != nil {
		err = wrapFlagErr("--svg", d.sink.WriteSVG(svg, res.Violations))
	}
	if html := d.files[1]; html != nil && err == nil {
		err = wrapFlagErr("--html", d.sink.WriteHTML(html, res.Violations))
	}
	if cerr := d.close(); err == nil {
		err = cerr
	}
	return err
}

// close closes the open files and returns the first error.
func (d *picture) close() error {
	if d == nil {
		return nil
	}
	var err error
	for i, f := range d.files {
		if f == nil {
			continue
		}
		if cerr := f.Close(); cerr != nil && err == nil {
			err = wrapFlagErr([]string{"--svg", "--html"}[i], cerr)
		}
	}
	return err
}

// wrapFlagErr prefixes err with the flag whose file failed.
func wrapFlagErr(flagName string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", flagName, err)
}
