package main

import (
	"bytes"
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// wellFormed parses b as XML to the end.
func wellFormed(b []byte) error {
	dec := xml.NewDecoder(bytes.NewReader(b))
	for {
		if _, err := dec.Token(); err == io.EOF {
			return nil
		} else if err != nil {
			return err
		}
	}
}

// TestRunDrawsDiagram: --svg and --html write the picture of the run, titled with its scenario,
// seed and sabotage, with a lane per process; replay draws the same picture of the same run.
func TestRunDrawsDiagram(t *testing.T) {
	dir := t.TempDir()
	svgPath, htmlPath := filepath.Join(dir, "run.svg"), filepath.Join(dir, "run.html")
	save := filepath.Join(dir, "run.replay")
	code, out, errs := invoke(t, dir, "--seed", "3", "--steps", "80", "--sabotage", "IGNORE_CAUSES",
		"--svg", svgPath, "--html", htmlPath, "--save", save)
	if code == exitUsage {
		t.Fatalf("exit %d: %s", code, errs)
	}
	svg, err := os.ReadFile(svgPath)
	if err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(htmlPath)
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string][]byte{"svg": svg, "html": page} {
		if err := wellFormed(b); err != nil {
			t.Errorf("%s is not well-formed: %v", name, err)
		}
		if !bytes.Contains(b, []byte("seed 3, sabotage IGNORE_CAUSES")) {
			t.Errorf("%s is not titled with the run", name)
		}
	}
	if !strings.HasPrefix(string(page), "<!DOCTYPE html>") || !bytes.Contains(page, []byte("<svg ")) {
		t.Error("the HTML page does not embed the SVG")
	}
	if (code == exitViolation) != bytes.Contains(svg, []byte(">V1")) {
		t.Errorf("exit %d but the picture's violation mark disagrees:\n%s", code, out)
	}
	again := filepath.Join(dir, "replayed.svg")
	if rcode, _, rerr := invokeReplay(t, "--svg", again, save); rcode != code {
		t.Fatalf("replay exit %d, run exit %d: %s", rcode, code, rerr)
	}
	if b, _ := os.ReadFile(again); !bytes.Equal(b, svg) {
		t.Error("replay drew a different picture of the same run")
	}
}

func TestRunDiagramBadPath(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no-such-dir", "x.svg")
	for _, flagName := range []string{"--svg", "--html"} {
		code, _, errs := invoke(t, t.TempDir(), "--seed", "1", "--steps", "10", flagName, missing)
		if code != exitUsage || !strings.Contains(errs, flagName+":") || !strings.Contains(errs, "no-such-dir") {
			t.Errorf("%s to a missing directory: exit %d, stderr %q (want 2 naming the flag and path)", flagName, code, errs)
		}
	}
}
