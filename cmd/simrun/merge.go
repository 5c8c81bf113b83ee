package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/parsleysim/parsleysim/scenarios"
)

// mergeUsage is the help text of `simrun merge`.
const mergeUsage = `usage: simrun merge [--json] [--result FILE] FILE...

Merges the result documents that 'simrun sweep --result' and 'simrun explore --result' write, one
per shard, into the report of the whole run, printed as the unsharded command prints it (--json:
the same JSON). Every file must be a part of the same run: the same build, scenario or scope,
settings, sabotage mode, seed range or budget and shard count; a mismatch names both files and the
field. A file whose report contradicts itself or its shard (a failing seed another shard owns,
more runs than the shard has seeds, counts that its failures do not give) is refused, named. A
shard given twice (a retried shard's artifact beside the first one's) counts once.
Failures are listed shortest first with the commands that reproduce them.

A sweep's merge covers the seeds of the shards given; an exploration is complete (a proof for the
scope) only when every shard is present and complete. Missing shards are named on stderr.
--result FILE writes the merged document, which merges again like a shard's.

Exit status: 0 every shard given passed and every shard is present, 1 a violation, 2 bad usage,
an unreadable file, mismatched headers, or missing or interrupted shards.`

// mergeArgs are the flags of `simrun merge`.
type mergeArgs struct {
	jsonOut bool
	result  string
	files   []string
}

// mergeInput is one result file read.
type mergeInput struct {
	path    string
	doc     *resultDoc
	shards  []int
	total   int
	sweep   *scenarios.SweepReport
	explore *scopeReport
}

// mergeMain is `simrun merge`: see mergeUsage.
func mergeMain(args []string, stdout, stderr io.Writer) int {
	var a mergeArgs
	fs := newFlagSet("simrun merge", mergeUsage)
	fs.BoolVar(&a.jsonOut, "json", false, "print one JSON object, as the unsharded command's --json")
	fs.StringVar(&a.result, "result", "", "write the merged result document to `FILE`")
	files, code, ok := fs.parse(args, stdout, stderr)
	if !ok {
		return code
	}
	if len(files) == 0 {
		return usageError(stderr, "simrun merge", "give the result files to merge")
	}
	a.files = files
	inputs := make([]fileArg, len(files))
	for i, f := range files {
		inputs[i] = fileArg{"result file", f}
	}
	if err := checkOutputs(inputs, []fileArg{{"--result", a.result}}); err != nil {
		return usageError(stderr, "simrun merge", "%v", err)
	}
	if err := checkResultPath(a.result); err != nil {
		return usageError(stderr, "simrun merge", "%v", err)
	}
	ins, err := readMergeInputs(files)
	if err != nil {
		return usageError(stderr, "simrun merge", "%v", err)
	}
	ins = dropDuplicateShards(ins, stderr)
	if err := checkOverlap(ins); err != nil {
		return usageError(stderr, "simrun merge", "%v", err)
	}
	var covered []int
	for _, in := range ins {
		covered = append(covered, in.shards...)
	}
	slices.Sort(covered)
	total := ins[0].total
	missing := missingShards(covered, total)
	if len(missing) > 0 {
		fmt.Fprintf(stderr, "simrun merge: missing shards %s of %d: the report covers shards %s only\n",
			shardList(missing), total, formatShardSet(covered, total))
	}
	header := ins[0].doc.Header
	header.Shards = formatShardSet(covered, total)
	switch header.Kind {
	case "sweep":
		return mergeSweeps(a, ins, header, len(missing) > 0, stdout, stderr)
	default:
		return mergeExplorations(a, ins, header, missing, stdout, stderr)
	}
}

// readMergeInputs reads every file and checks that they are parts of one run.
func readMergeInputs(files []string) ([]*mergeInput, error) {
	var ins []*mergeInput
	for _, path := range files {
		doc, err := readResult(path)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
		in := &mergeInput{path: path, doc: doc}
		in.shards, in.total, _ = parseShardSet(doc.Header.Shards)
		switch doc.Header.Kind {
		case "sweep":
			in.sweep = new(scenarios.SweepReport)
			if err = decodeStrict(doc.Body, in.sweep); err == nil {
				if err := checkSweepBody(path, doc.Header, in.sweep); err != nil {
					return nil, err
				}
				if err := in.sweep.CheckShards(in.shards, in.total); err != nil {
					return nil, fmt.Errorf("%s contradicts itself: %v", path, err)
				}
			}
		default:
			in.explore = new(scopeReport)
			err = decodeStrict(doc.Body, in.explore)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: the %s body: %v", path, doc.Header.Kind, err)
		}
		if len(ins) > 0 {
			if err := sameRun(ins[0], in); err != nil {
				return nil, err
			}
		}
		ins = append(ins, in)
	}
	return ins, nil
}

// sameRun returns an error naming both files and the first field in which their headers differ.
func sameRun(a, b *mergeInput) error {
	ha, hb := a.doc.Header, b.doc.Header
	fields := []struct{ name, x, y string }{
		{"kind", ha.Kind, hb.Kind}, {"tool_version", ha.ToolVersion, hb.ToolVersion}, {"commit", ha.Commit, hb.Commit},
		{"scenario", ha.Scenario, hb.Scenario}, {"sabotage", ha.Sabotage, hb.Sabotage},
		{"settings_digest", ha.SettingsDigest, hb.SettingsDigest}, {"seeds", ha.Seeds, hb.Seeds}, {"budget", ha.Budget, hb.Budget},
		{"shard count", fmt.Sprint(a.total), fmt.Sprint(b.total)},
	}
	if sa, sb := substrateOf(ha), substrateOf(hb); sa != sb {
		return fmt.Errorf("%s and %s are not parts of one run: the first ran on %s, the second on %s", a.path, b.path, sa, sb)
	}
	for _, f := range fields {
		if f.x != f.y {
			return fmt.Errorf("%s and %s are not parts of one run: %s %q differs from %q", a.path, b.path, f.name, f.x, f.y)
		}
	}
	if ha.SettingsDigest != ha.digest() {
		return fmt.Errorf("%s: settings_digest %s does not match its header (%s)", a.path, ha.SettingsDigest, ha.digest())
	}
	if hb.SettingsDigest != hb.digest() {
		return fmt.Errorf("%s: settings_digest %s does not match its header (%s)", b.path, hb.SettingsDigest, hb.digest())
	}
	return nil
}

// substrateOf says where a result file's runs went, as its header says: the model, or a live
// substrate alone or compared with the model.
func substrateOf(h resultHeader) string {
	switch {
	case h.Settings["substrate"] == "":
		return "the model"
	case h.Settings["compare"] == "true":
		return h.Settings["substrate"] + " compared with the model"
	}
	return h.Settings["substrate"] + " alone"
}

// checkSweepBody returns an error when a sweep's body says another substrate, or comparison, than
// its header.
func checkSweepBody(path string, h resultHeader, r *scenarios.SweepReport) error {
	if r.Substrate != h.Settings["substrate"] || (r.ComparedSeeds != nil) != (h.Settings["compare"] == "true") {
		return fmt.Errorf("%s: its sweep ran on %q (compared: %v), but its header says %s", path, r.Substrate, r.ComparedSeeds != nil, substrateOf(h))
	}
	return nil
}

// dropDuplicateShards keeps one document for each shard given more than once: a document whose
// shards another one already holds is dropped (the larger set first; between equal sets the more
// complete one, then the first given), and said so on stderr.
func dropDuplicateShards(ins []*mergeInput, stderr io.Writer) []*mergeInput {
	order := slices.Clone(ins)
	slices.SortStableFunc(order, func(a, b *mergeInput) int {
		if len(a.shards) != len(b.shards) {
			return len(b.shards) - len(a.shards)
		}
		return completeness(b) - completeness(a)
	})
	var kept []*mergeInput
	holder := map[int]*mergeInput{}
	for _, in := range order {
		held := true
		for _, s := range in.shards {
			_, ok := holder[s]
			held = held && ok
		}
		if held {
			fmt.Fprintf(stderr, "simrun merge: %s: shards %s already given by %s; counted once\n", in.path, in.doc.Header.Shards, holder[in.shards[0]].path)
			continue
		}
		kept = append(kept, in)
		for _, s := range in.shards {
			if _, ok := holder[s]; !ok {
				holder[s] = in
			}
		}
	}
	return kept
}

// completeness ranks documents of the same shards: an uninterrupted, complete one first.
func completeness(in *mergeInput) int {
	switch {
	case in.sweep != nil && !in.sweep.Interrupted:
		return 1 << 30
	case in.sweep != nil:
		return in.sweep.Runs
	case in.explore.Complete:
		return 1 << 30
	}
	return min(in.explore.States, 1<<30-1)
}

// checkOverlap refuses documents that share some shards but not all (they cannot be told apart
// into shards again).
func checkOverlap(ins []*mergeInput) error {
	owner := map[int]string{}
	for _, in := range ins {
		for _, s := range in.shards {
			if p, ok := owner[s]; ok {
				return fmt.Errorf("%s and %s both hold shard %d/%d among others: merge them separately", p, in.path, s, in.total)
			}
			owner[s] = in.path
		}
	}
	return nil
}

// missingShards returns the shards of 1..total not in sorted covered.
func missingShards(covered []int, total int) []int {
	var missing []int
	for i := 1; i <= total; i++ {
		if _, found := slices.BinarySearch(covered, i); !found {
			missing = append(missing, i)
		}
	}
	return missing
}

// shardList renders shard indexes as "3, 4".
func shardList(xs []int) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprint(x)
	}
	return strings.Join(parts, ", ")
}

// mergeSweeps merges sweep shards, prints the report as the unsharded sweep does and returns the
// exit code.
func mergeSweeps(a mergeArgs, ins []*mergeInput, header resultHeader, missing bool, stdout, stderr io.Writer) int {
	reports := make([]*scenarios.SweepReport, len(ins))
	hashes := make([][]scenarios.SeedHash, len(ins))
	for i, in := range ins {
		reports[i], hashes[i] = in.sweep, in.doc.TraceHashes
	}
	rep, err := scenarios.MergeSweeps(reports, hashes)
	var bad *scenarios.ReportError
	if errors.As(err, &bad) {
		return usageError(stderr, "simrun merge", "%s contradicts itself: %v", ins[bad.Index].path, bad.Err)
	}
	if err != nil {
		return usageError(stderr, "simrun merge", "%v", err)
	}
	if a.jsonOut {
		writeSweepJSON(stdout, rep)
	} else {
		printSweep(stdout, rep, fmt.Sprintf("merged from %d result file%s", len(ins), map[bool]string{true: "s"}[len(ins) > 1]), 0)
	}
	if a.result != "" {
		if err := writeResult(a.result, header, rep, rep.TraceHashes()); err != nil {
			return usageError(stderr, "simrun merge", "--result: %v", err)
		}
	}
	interrupted := false
	for _, in := range ins {
		if in.sweep.Interrupted {
			interrupted = true
			fmt.Fprintf(stderr, "simrun merge: %s (shards %s) was interrupted after %d runs\n", in.path, in.doc.Header.Shards, in.sweep.Runs)
		}
	}
	switch {
	case rep.Failed() > 0:
		return exitViolation
	case missing || interrupted:
		return exitUsage
	}
	return exitPass
}

// check returns an error when an exploration's report contradicts itself: a verdict other than
// its violations say, negative counts, more terminal states than states, more subtrees its own
// than there are, a violation whose path is not as long as it says.
func (r *scopeReport) check() error {
	switch {
	case r.Verdict != "pass" && r.Verdict != "violation":
		return fmt.Errorf("verdict %q: expected pass or violation", r.Verdict)
	case (r.Verdict == "violation") != (len(r.Found) > 0):
		return fmt.Errorf("verdict %s, but %d violation(s) listed", r.Verdict, len(r.Found))
	case r.States < 0 || r.Transitions < 0 || r.TerminalStates < 0 || r.TerminalStates > r.States:
		return fmt.Errorf("%d states, %d transitions, %d terminal states: the counts do not add up", r.States, r.Transitions, r.TerminalStates)
	case r.OwnSubtrees < 0 || r.OwnSubtrees > r.Subtrees:
		return fmt.Errorf("%d of %d subtrees its own", r.OwnSubtrees, r.Subtrees)
	}
	for _, f := range r.Found {
		if f.Steps != len(f.Path) {
			return fmt.Errorf("the %s violation's shortest path has %d steps, but it says %d", f.Criterion, len(f.Path), f.Steps)
		}
	}
	return nil
}

// mergeExplorations merges exploration shards: the verdict and the violations (each with the
// shortest counterexample any shard found, the least path among equally short ones) are the
// unsharded exploration's; the counts add up over the shards (more than the scope's distinct
// states: the shards share no visited set). The scope is complete only when every shard is
// present and complete.
func mergeExplorations(a mergeArgs, ins []*mergeInput, header resultHeader, missing []int, stdout, stderr io.Writer) int {
	first := *ins[0].explore
	m := first
	m.States, m.Transitions, m.TerminalStates, m.DepthCut, m.MaxDepth, m.OwnSubtrees, m.Seconds = 0, 0, 0, 0, 0, 0, 0
	m.Complete, m.Verdict, m.Shard, m.Found = len(missing) == 0, "pass", header.Shards, nil
	found := map[string]exploreFinding{}
	for _, in := range ins {
		r := in.explore
		if r.Scope != first.Scope || r.Budget != first.Budget || r.Sabotage != first.Sabotage || r.SplitDepth != first.SplitDepth || r.Subtrees != first.Subtrees {
			return usageError(stderr, "simrun merge", "%s and %s explored the scope differently (scope, budget, sabotage or split)", ins[0].path, in.path)
		}
		if err := r.check(); err != nil {
			return usageError(stderr, "simrun merge", "%s contradicts itself: %v", in.path, err)
		}
		m.States += r.States
		m.Transitions += r.Transitions
		m.TerminalStates += r.TerminalStates
		m.DepthCut += r.DepthCut
		m.MaxDepth = max(m.MaxDepth, r.MaxDepth)
		m.OwnSubtrees += r.OwnSubtrees
		m.Seconds += r.Seconds
		m.Complete = m.Complete && r.Complete
		if r.Verdict != "pass" {
			m.Verdict = "violation"
		}
		for _, f := range r.Found {
			key := fmt.Sprintf("%s/%d", f.Criterion, f.Process)
			if g, ok := found[key]; !ok || compareFindings(f, g) < 0 {
				found[key] = f
			}
		}
	}
	m.Found = []exploreFinding{}
	for _, f := range found {
		m.Found = append(m.Found, f)
	}
	slices.SortFunc(m.Found, compareFindings)
	m.StatesPerSec = float64(m.States) / max(m.Seconds, 1e-9)
	if a.jsonOut {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.Encode(m)
	} else {
		m.print(stdout)
	}
	if a.result != "" {
		if err := writeResult(a.result, header, m, nil); err != nil {
			return usageError(stderr, "simrun merge", "--result: %v", err)
		}
	}
	switch {
	case m.Verdict != "pass":
		return exitViolation
	case len(missing) > 0:
		return exitUsage
	}
	return exitPass
}
