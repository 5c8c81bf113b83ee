package replay

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// FormatVersion is the version of the replay file format written by Save. It changes
// whenever a file of the old version would no longer reproduce its run (a new header line that
// changes meaning, a change to the trace hash encoding or to the settings expansion).
const FormatVersion = 1

// replayMagic opens every replay file, followed by the format version.
const replayMagic = "parsley-sim-replay"

// File is everything needed to reproduce one run exactly: which scenario and seed, which
// sabotage, the overrides given on the command line, the choice list the run's Chooser answered,
// and the recorded outcome (verdict and trace hash) so a replay can confirm it reproduced it.
//
// The file format (Save, Load) is line-oriented text:
//
//	# parsley-sim replay file: `simrun replay FILE` reproduces this run exactly, hash included.
//	# Any line starting with '#' is a comment; blank lines are ignored.
//	parsley-sim-replay 1          format version (first non-comment line)
//	scenario random               scenario name (required)
//	seed 42                       run seed (required)
//	sabotage NONE                 engine sabotage mode name (NONE = honest)
//	host-sabotage NONE            host sabotage mode name (NONE = honest)
//	steps 0                       safety-step override (0 = from the seed)
//	processes 0                   scenario size override (0 = the scenario's own)
//	verdict pass                  recorded verdict: pass or violation
//	hash 3c386348294351a1         recorded trace hash (16 hex digits)
//	choices 523                   number of choices; the choices follow (required, last)
//	0 3 1 1 0 2 ...               the choice list: whitespace-separated integers ≥ 0
//
// Header lines may come in any order but each at most once; "choices" must be last.
type File struct {
	Scenario     string
	Seed         uint64
	Sabotage     string // engine sabotage mode name; "" is written as NONE
	HostSabotage string // host sabotage mode name; "" is written as NONE
	Steps        int    // safety-step override; 0 = from the seed
	Processes    int    // scenario size override; 0 = the scenario's own
	Verdict      string // "pass" or "violation"; "" when not recorded
	Hash         string // the recorded trace hash; "" when not recorded
	Notes        []string
	Choices      []int
}

// choicesPerLine is how many choices Save writes per line.
const choicesPerLine = 32

// Write writes r in the replay file format. Notes are written as comment lines (for a person:
// the violations, the command that replays it); they are not read back.
func (r *File) Write(w io.Writer) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "# parsley-sim replay file: `simrun replay FILE` reproduces this run exactly, hash included.\n")
	for _, n := range r.Notes {
		fmt.Fprintf(bw, "# %s\n", strings.ReplaceAll(n, "\n", "\n# "))
	}
	fmt.Fprintf(bw, "%s %d\n", replayMagic, FormatVersion)
	fmt.Fprintf(bw, "scenario %s\n", r.Scenario)
	fmt.Fprintf(bw, "seed %d\n", r.Seed)
	fmt.Fprintf(bw, "sabotage %s\n", noneIfEmpty(r.Sabotage))
	fmt.Fprintf(bw, "host-sabotage %s\n", noneIfEmpty(r.HostSabotage))
	fmt.Fprintf(bw, "steps %d\n", r.Steps)
	fmt.Fprintf(bw, "processes %d\n", r.Processes)
	if r.Verdict != "" {
		fmt.Fprintf(bw, "verdict %s\n", r.Verdict)
	}
	if r.Hash != "" {
		fmt.Fprintf(bw, "hash %s\n", r.Hash)
	}
	fmt.Fprintf(bw, "choices %d\n", len(r.Choices))
	for i, c := range r.Choices {
		bw.WriteString(strconv.Itoa(c))
		if (i+1)%choicesPerLine == 0 || i == len(r.Choices)-1 {
			bw.WriteByte('\n')
		} else {
			bw.WriteByte(' ')
		}
	}
	return bw.Flush()
}

// Save writes r to the file at path, replacing it.
func Save(path string, r *File) error {
	var buf bytes.Buffer
	if err := r.Write(&buf); err != nil {
		return err
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("saving replay file: %w", err)
	}
	return nil
}

// Load reads a replay file. Errors name the file, the line and what was expected.
func Load(path string) (*File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading replay file: %w", err)
	}
	defer f.Close()
	return Parse(path, f)
}

func noneIfEmpty(s string) string {
	if s == "" {
		return "NONE"
	}
	return s
}
