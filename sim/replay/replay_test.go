package replay

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/parsleysim/parsleysim/sim/choose"
	"github.com/parsleysim/parsleysim/sim/spec"
)

func sampleFile() *File {
	return &File{
		Scenario: "random", Seed: 18446744073709551615, Sabotage: "IGNORE_CAUSES",
		Steps: 300, Processes: 12, Verdict: "violation", Hash: "3c386348294351a1",
		Notes:   []string{"S1 at step 12, process 2: msg 7 before its cause msg 3", "replay: simrun replay x.replay"},
		Choices: drawMany(choose.NewRandom(9), []uint32{1, 0, 4, 2, 1}, 100),
	}
}

func TestReplayRoundTrip(t *testing.T) {
	want := sampleFile()
	path := filepath.Join(t.TempDir(), "run.replay")
	if err := Save(path, want); err != nil {
		t.Fatal(err)
	}
	got, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Choices, want.Choices) {
		t.Fatalf("choices differ after the round trip:\n got %v\nwant %v", got.Choices, want.Choices)
	}
	got.Notes, got.Choices = want.Notes, want.Choices // notes are comments, not read back
	if !equalFile(got, want) {
		t.Fatalf("round trip:\n got %+v\nwant %+v", got, want)
	}
	// The loaded choices drive a choose.Replay to the same answers as the original run.
	rc := choose.NewReplay(got.Choices)
	again := drawMany(rc, []uint32{1, 0, 4, 2, 1}, 100)
	if !slices.Equal(again, want.Choices) || rc.Err() != nil {
		t.Fatalf("replayed choices %v (err %v), want %v", again, rc.Err(), want.Choices)
	}
	// The honest run writes NONE and reads it back as "".
	honest := &File{Scenario: "random", Seed: 1}
	var buf bytes.Buffer
	if err := honest.Write(&buf); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "sabotage NONE\n") {
		t.Fatalf("honest run file lacks \"sabotage NONE\":\n%s", buf.String())
	}
	back, err := Parse("honest", &buf)
	if err != nil || back.Sabotage != "" || back.HostSabotage != "" || len(back.Choices) != 0 {
		t.Fatalf("honest file read back as %+v, %v", back, err)
	}
}

func equalFile(a, b *File) bool {
	return a.Scenario == b.Scenario && a.Seed == b.Seed && a.Sabotage == b.Sabotage &&
		a.HostSabotage == b.HostSabotage && a.Steps == b.Steps && a.Processes == b.Processes &&
		a.Verdict == b.Verdict && a.Hash == b.Hash && slices.Equal(a.Choices, b.Choices)
}

func TestReplayBadFilesNameTheLine(t *testing.T) {
	const good = "# c\nparsley-sim-replay 1\nscenario random\nseed 5\nchoices 3\n0 1\n2\n"
	if _, err := Parse("good.replay", strings.NewReader(good)); err != nil {
		t.Fatalf("the good file fails: %v", err)
	}
	cases := []struct {
		name, text string
		line       int
		want       string
	}{
		{"empty", "", 0, "empty file (0 bytes)"},
		{"only comments", "# only a comment\n", 0, `truncated at byte 17: the file ends before its first line "parsley-sim-replay 1"`},
		{"cut inside the comments", "# a comment cut sh", 0, "truncated at byte 18"},
		{"binary", "\xf0r\xec\x00\x01 random bytes\n", 1, "not a replay file: binary data (byte 0xf0 at column 1)"},
		{"long first line", strings.Repeat("hello ", 1000) + "\n", 1, `got "hello hello hello hello hello hello hell"... (5999 bytes)`},
		{"cut inside a header line", "parsley-sim-replay 1\nscenario random\nseed 1\nsabo", 4, `unknown header line "sabo" (expected one of scenario, seed, sabotage, host-sabotage, steps, processes, verdict, hash, choices) (the file ends inside this line, at byte 48: truncated?)`},
		{"cut after the header", "parsley-sim-replay 1\nscenario random\nseed 1\n", 0, `truncated at byte 44: the file ends before the "choices N" line`},
		{"not a replay", "hello world\n", 1, `expected "parsley-sim-replay 1"`},
		{"version", "parsley-sim-replay 9\n", 1, `unsupported replay format version "9"`},
		{"bad seed", "parsley-sim-replay 1\nscenario random\nseed -4\n", 3, `"seed N"`},
		{"unknown key", "parsley-sim-replay 1\nscenario random\ncolour blue\n", 3, `unknown header line "colour"`},
		{"duplicate", "parsley-sim-replay 1\nseed 1\n\nseed 2\n", 4, "given twice (first on line 2)"},
		{"bad hash", "parsley-sim-replay 1\nhash xyz\n", 2, "16 lowercase hex digits"},
		{"bad verdict", "parsley-sim-replay 1\nverdict maybe\n", 2, `"verdict pass" or "verdict violation"`},
		{"bad steps", "parsley-sim-replay 1\nsteps many\n", 2, `"steps N"`},
		{"bad choice", "parsley-sim-replay 1\nscenario random\nseed 1\nchoices 3\n0 x 1\n", 5, `got "x"`},
		{"negative choice", "parsley-sim-replay 1\nscenario random\nseed 1\nchoices 1\n-1\n", 5, `got "-1"`},
		{"too many", "parsley-sim-replay 1\nscenario random\nseed 1\nchoices 1\n0\n1\n", 6, "more choices than the 1 announced on line 4"},
		{"too few", "parsley-sim-replay 1\nscenario random\nseed 1\nchoices 4\n0 1\n", 5, "the file ends at byte 58 after 2 choices, but line 4 announced 4"},
		{"no scenario", "parsley-sim-replay 1\nseed 1\nchoices 0\n", 0, `missing the "scenario" header line`},
		{"bad name", "parsley-sim-replay 1\nscenario two words\n", 2, `"scenario" followed by a name`},
		{"count above the limit", "parsley-sim-replay 1\nscenario random\nseed 1\nchoices 10000000000\n0\n", 4, "integer in 0..16000000"},
		{"line above the limit", "parsley-sim-replay 1\nscenario random\nseed 1\nchoices 1\n" + strings.Repeat("0 ", maxReplayLine/2+1) + "\n", 5, "a line longer than 16777216 bytes"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("bad.replay", strings.NewReader(tc.text))
			var fe *spec.FileError
			if !errors.As(err, &fe) {
				t.Fatalf("error %v, want a *spec.FileError", err)
			}
			if fe.File != "bad.replay" || fe.Line != tc.line || !strings.Contains(fe.Msg, tc.want) {
				t.Fatalf("error %q (line %d), want line %d containing %q", err, fe.Line, tc.line, tc.want)
			}
			if len(fe.Msg) > 300 {
				t.Fatalf("error of %d bytes quotes too much of the file: %q", len(fe.Msg), fe.Msg)
			}
			if tc.line > 0 && !strings.HasPrefix(err.Error(), "bad.replay:") {
				t.Fatalf("error %q does not start with the file and line", err)
			}
		})
	}
}

// TestParseReplayAllocatesByContent: a header announcing the largest count the format allows
// reserves no more than the file holds (the list grows with the choices read).
func TestParseReplayAllocatesByContent(t *testing.T) {
	text := fmt.Sprintf("parsley-sim-replay 1\nscenario random\nseed 1\nchoices %d\n0 1 2\n", MaxChoices)
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	_, err := Parse("big.replay", strings.NewReader(text))
	runtime.ReadMemStats(&ms1)
	if err == nil || !strings.Contains(err.Error(), "after 3 choices, but line 4 announced") {
		t.Fatalf("error %v, want the count mismatch", err)
	}
	if grew := ms1.TotalAlloc - ms0.TotalAlloc; grew > 1<<20 {
		t.Fatalf("parsing a 70-byte file allocated %d bytes", grew)
	}
}

// TestLoadReplayDirectory: a directory is named as one, not read as an empty file.
func TestLoadReplayDirectory(t *testing.T) {
	dir := t.TempDir()
	_, err := Load(dir)
	if err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Fatalf("Load(directory) = %v, want an error saying it is a directory", err)
	}
}

func TestLoadReplayMissingFileNamesIt(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nope.replay")
	_, err := Load(path)
	if err == nil || !strings.Contains(err.Error(), path) || !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("Load(missing) = %v, want an error naming %s", err, path)
	}
}

// drawMany asks c n times over the same weights.
func drawMany(c choose.Chooser, weights []uint32, n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = c.Choose("test", weights)
	}
	return out
}
