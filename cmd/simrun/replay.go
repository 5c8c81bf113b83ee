package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/parsleysim/parsleysim/scenarios"
	"github.com/parsleysim/parsleysim/sim/choose"
	"github.com/parsleysim/parsleysim/sim/replay"
)

// replayMain is `simrun replay [-v] [--json] [--trace FILE] FILE`: it re-runs a saved run from its
// replay file with the recorded choices and checks that it reproduced the recording exactly — the
// same choices consumed, the same verdict and the same trace hash. Exit 0 or 1 with the run's
// verdict when it reproduced; 2 for a bad file or a run that diverged from its recording.
func replayMain(args []string, stdout, stderr io.Writer) int {
	return cli{stdout: stdout, stderr: stderr}.replay(args)
}

// replayUsage is the help text of `simrun replay`.
const replayUsage = `usage: simrun replay FILE [-v | --json] [--trace FILE] [--svg FILE] [--html FILE]
                     [--substrate model|kfake|kafka [--brokers host:port,...]] [--compare]

Re-runs a saved run (a replay file written by 'simrun --save' or by a violating run) with its
recorded choices and checks that it reproduced the recording exactly: the same choices consumed,
the same verdict and the same trace hash.

Exit status: 0 or 1 the replayed run's verdict (pass or violation), 2 bad usage, a bad replay file,
or a run that no longer reproduces its recording (the code under test changed), 3 the live
substrate failed (no verdict), 130 interrupted.`

func (c cli) replay(args []string) int {
	const name = "simrun replay"
	fs := newFlagSet(name, replayUsage)
	var o outputs
	fs.StringVar(&o.tracePath, "trace", "", "write every event as JSON lines to `FILE`")
	fs.BoolVar(&o.verbose, "v", false, "print the readable timeline of every event")
	fs.BoolVar(&o.jsonOut, "json", false, "print one JSON object instead of the human report")
	o.diagram.register(fs.FlagSet)
	var lf liveFlags
	lf.register(fs.FlagSet)
	rest, code, ok := fs.parse(args, c.stdout, c.stderr)
	if !ok {
		return code
	}
	if len(rest) != 1 {
		return usageError(c.stderr, name, "want exactly one replay FILE, got %d (%s)", len(rest), strings.Join(rest, " "))
	}
	path := rest[0]
	if o.verbose && o.jsonOut {
		return usageError(c.stderr, name, "-v and --json cannot be used together (both write to standard output)")
	}
	var err error
	if o.live, err = lf.live(); err != nil {
		return usageError(c.stderr, name, "%v", err)
	}
	if err := checkOutputs([]fileArg{{"the replay file", path}}, []fileArg{{"--trace", o.tracePath},
		{"--svg", o.diagram.svgPath}, {"--html", o.diagram.htmlPath}}); err != nil {
		return usageError(c.stderr, name, "%v", err)
	}
	rec, err := replay.Load(path)
	if err != nil {
		return usageError(c.stderr, name, "%v", err)
	}
	spec, err := scenarios.SpecOfReplay(rec)
	var prep *scenarios.Prepared
	if err == nil {
		prep, err = spec.Prepare()
	}
	if err != nil {
		fmt.Fprintf(c.stderr, "simrun replay: %s: %v\n", path, err)
		return exitUsage
	}
	chooser := choose.NewReplay(rec.Choices)
	out := c.execute(prep, chooser, o)
	if out.liveErr != nil {
		return liveExit(c.stderr, name, out.liveErr)
	}
	if out.err != nil {
		fmt.Fprintf(c.stderr, "simrun replay: %v\n", out.err)
		return exitUsage
	}
	out.replayErr = divergence(rec, chooser, out)
	if o.jsonOut {
		writeJSON(c.stdout, prep, out, "")
	} else {
		printReport(c.stdout, prep, out, "")
	}
	if out.replayErr != nil {
		fmt.Fprintf(c.stderr, "simrun replay: %s did not reproduce its run: %v\n", path, out.replayErr)
		return exitUsage
	}
	if !o.jsonOut {
		if out.live.IsModel() {
			fmt.Fprintf(c.stdout, "reproduced: %d choices, verdict %s, hash %s as recorded\n", len(rec.Choices), out.res.Verdict, out.hash)
		} else {
			fmt.Fprintf(c.stdout, "reproduced: %d choices, verdict %s as recorded (on %s the hash follows its topic IDs: not compared)\n", len(rec.Choices), out.res.Verdict, out.live.Substrate)
		}
	}
	if out.res.Verdict != "pass" {
		return exitViolation
	}
	return exitPass
}

// divergence says how a replayed run differs from its recording, or returns nil if it reproduced
// it exactly: every recorded choice used and valid, and the recorded verdict and hash (when the
// file has them) matched.
func divergence(rec *replay.File, ch *choose.Replay, out outcome) error {
	if err := ch.Err(); err != nil {
		return err
	}
	if n := ch.Remaining(); n > 0 {
		return fmt.Errorf("the run ended with %d of %d recorded choices unused", n, len(rec.Choices))
	}
	if rec.Verdict != "" && rec.Verdict != out.res.Verdict {
		return fmt.Errorf("verdict %s, recorded %s", out.res.Verdict, rec.Verdict)
	}
	if rec.Hash != "" && rec.Hash != out.hash && out.live.IsModel() { // a live run's topic IDs are the substrate's
		return fmt.Errorf("trace hash %s, recorded %s", out.hash, rec.Hash)
	}
	return nil
}
