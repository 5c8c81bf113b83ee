package benchmarks

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// goalRow is one line of the goals table.
type goalRow struct {
	what, target, measured string
	met                    string // "yes", "no" or "not measured"
}

// yesNo renders a goal's verdict, "not measured" when the figure is missing.
func yesNo(known, met bool) string {
	switch {
	case !known:
		return "not measured"
	case met:
		return "yes"
	}
	return "no"
}

// goalRows evaluates the absolute goals against the wall-clock medians and the exact metrics.
func goalRows(w wallMedians, b *Baseline) []goalRow {
	ns := func(name string) (float64, bool) { return w.lookup("/node", name, "ns/op") }
	allocs := b.Metrics["allocs_per_op"]
	var rows []goalRow
	worstShape := func(fn, entries string) (float64, string, bool) {
		few, ok1 := ns("Benchmark" + fn + "/few-topics/entries=" + entries)
		many, ok2 := ns("Benchmark" + fn + "/many-topics/entries=" + entries)
		return max(few, many), fmt.Sprintf("%.1f ns (few topics), %.1f ns (many topics)", few, many), ok1 && ok2
	}
	v, s, ok := worstShape("DecodeInto", "1")
	a := allocs["node.DecodeInto/entries=1"]
	rows = append(rows, goalRow{"DecodeInto, 1 entry, reused buffer", "≤ 20 ns, 0 allocs",
		fmt.Sprintf("%s; %d allocs", s, a), yesNo(ok, v <= 20 && a == 0)})
	v, s, ok = worstShape("Decode", "1")
	rows = append(rows, goalRow{"Decode, 1 entry", "≤ 50 ns", s, yesNo(ok, v <= 50)})
	v, s, ok = worstShape("DecodeInto", "64")
	d64, _, _ := worstShape("Decode", "64")
	rows = append(rows, goalRow{"64 entries (DecodeInto; Decode for reference)", "≤ 600 ns",
		fmt.Sprintf("%s; Decode worst %.0f ns", s, d64), yesNo(ok, v <= 600)})
	dps, ok := w.lookup("/node", "BenchmarkDecide/table/width=4", "decisions/s")
	rows = append(rows, goalRow{"Decide, width 4", "≥ 50 M decisions/s", fmt.Sprintf("%.1f M/s", dps/1e6), yesNo(ok, dps >= 50e6)})
	fan, ok := ns("BenchmarkEngineFanIn8")
	rows = append(rows, goalRow{"receive + drain, width 8 (EngineFanIn8)", "≤ 300 ns/msg", fmt.Sprintf("%.0f ns", fan), yesNo(ok, fan <= 300)})
	rows = append(rows, depthGoal(ns, b))
	aps, ok := w.lookup("/sim", "BenchmarkActions", "actions/s")
	rows = append(rows, goalRow{"simulator, every check on (BenchmarkActions)", "≥ 300,000 actions/s",
		fmt.Sprintf("%.0f actions/s", aps), yesNo(ok, aps >= goalActionsPerSecond)})
	return rows
}

// depthGoal judges "flat in depth": the engine's work per op is exactly equal at depths 16 and
// 4096 (exact counters), and the wall-clock time at 4096 is within 1.5x of depth 16.
func depthGoal(ns func(string) (float64, bool), b *Baseline) goalRow {
	d16, ok1 := ns("BenchmarkEngineDrainDepth/depth=16")
	d4096, ok2 := ns("BenchmarkEngineDrainDepth/depth=4096")
	w16, w4096 := b.Metrics["engine_work/drain/depth=16"], b.Metrics["engine_work/drain/depth=4096"]
	equal := len(w16) > 0 && len(Compare(&Baseline{Metrics: map[string]map[string]int64{"w": w16}},
		&Baseline{Metrics: map[string]map[string]int64{"w": w4096}})) == 0
	ratio := d4096 / d16
	return goalRow{"drain flat in depth (16 → 4096)", "equal work per op, time within 1.5x",
		fmt.Sprintf("%.0f ns → %.0f ns (%.2fx); work per op equal: %v", d16, d4096, ratio, equal),
		yesNo(ok1 && ok2, equal && ratio <= 1.5)}
}

func writeGoals(md *bytes.Buffer, w wallMedians, b *Baseline, links map[string]bool) {
	md.WriteString("## Goals\n\n")
	if links[speedFile] {
		fmt.Fprintf(md, "The engine's speed goals and the simulator's (steps per CPU-second of a sweep) are ratios to a baseline commit, measured side by side with instruction counts: [%s](%s). ", speedFile, speedFile)
	}
	if links[exploreFile] {
		fmt.Fprintf(md, "The explorer's states per second are measured on the reference scope: [%s](%s). ", exploreFile, exploreFile)
	}
	md.WriteString("The absolute goals below are read from results/bench.txt, one core of the shared machine that measured it (see its load average above): they move with the machine, by up to 2x between machines of the same kind.\n\n")
	md.WriteString("| goal | target | measured (median) | met |\n|---|---|---|---|\n")
	for _, r := range goalRows(w, b) {
		fmt.Fprintf(md, "| %s | %s | %s | %s |\n", r.what, r.target, r.measured, r.met)
	}
	md.WriteString("\n")
}

func writeScenarioTable(md *bytes.Buffer, b *Baseline) {
	md.WriteString("## Virtual-time metrics (exact; `results/sim-metrics.json`)\n\n")
	md.WriteString("Each case is one run at a fixed seed with every check on. Latencies in virtual µs: hold = receipt → delivery, end-to-end = produce → delivery, committed deliveries only; p50/p99 are empirical quantiles (the smallest sample with at least that fraction at or below it).\n\n")
	md.WriteString("| case | seed | steps | deliveries | per virtual s | hold p50 / p99 / max | end-to-end p50 / p99 / max | max hold-back depth | holds | held then released | crashes | violations |\n")
	md.WriteString("|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, c := range b.Cases {
		m := b.Metrics["scenario/"+c.Name]
		fmt.Fprintf(md, "| %s | %d | %d | %d | %d | %d / %d / %d | %d / %d / %d | %d | %d | %d | %d | %d |\n",
			c.Name, c.Seed, m["steps"], m["deliveries"], m["deliveries_per_virtual_s"],
			m["hold_p50_us"], m["hold_p99_us"], m["hold_max_us"],
			m["end_to_end_p50_us"], m["end_to_end_p99_us"], m["end_to_end_max_us"],
			m["hold_back_depth_max"], m["holds"], m["held_then_released"], m["crashes"], m["violations"])
	}
	md.WriteString("\n")
}

func writeWorkTable(md *bytes.Buffer, b *Baseline) {
	md.WriteString("## Engine work per operation (exact)\n\n")
	md.WriteString("Workloads of `benchmarks/engine.go` (the shapes of node's engine benchmarks), 1024 operations each.\n\n")
	md.WriteString("| workload | heads offered | causes compared | causes merged | header bytes decoded | holds added | deliveries |\n|---|---|---|---|---|---|---|\n")
	for _, g := range sortedKeys(b.Metrics) {
		name, ok := strings.CutPrefix(g, "engine_work/")
		if !ok {
			continue
		}
		m := b.Metrics[g]
		per := func(k string) string { return fmt.Sprintf("%.2f", float64(m[k])/float64(max(m["ops"], 1))) }
		fmt.Fprintf(md, "| %s | %s | %s | %s | %s | %s | %s |\n", name, per("heads_offered"), per("causes_compared"),
			per("causes_merged"), per("header_bytes_decoded"), per("holds_added"), per("deliveries"))
	}
	md.WriteString("\n")
}

func writeAllocsTable(md *bytes.Buffer, b *Baseline) {
	md.WriteString("## Allocations per operation (exact, `testing.AllocsPerRun`)\n\n| hot path | allocs/op |\n|---|---|\n")
	m := b.Metrics["allocs_per_op"]
	for _, k := range sortedKeys(m) {
		fmt.Fprintf(md, "| %s | %d |\n", k, m[k])
	}
	md.WriteString("\n")
}

// writeWallTable lists every wall-clock result of bench.txt under its catalogue entry.
func writeWallTable(md *bytes.Buffer, w wallMedians) {
	md.WriteString("## Wall-clock benchmarks (`results/bench.txt`, medians)\n\n")
	if len(w) == 0 {
		md.WriteString("No results/bench.txt yet.\n\n")
		return
	}
	md.WriteString("| package | benchmark | time/op | other metrics | one op is |\n|---|---|---|---|---|\n")
	for _, wb := range WallBenches {
		top := regexp.MustCompile(strings.SplitN(wb.Bench, "/", 2)[0])
		for _, k := range sortedKeys(w) {
			pkg, name, _ := strings.Cut(k, " ")
			if pkg != modulePath+"/"+strings.Trim(wb.Pkg, "./") || !top.MatchString(strings.SplitN(name, "/", 2)[0]) {
				continue
			}
			fmt.Fprintf(md, "| %s | %s | %s | %s | %s |\n", strings.Trim(wb.Pkg, "./"), name,
				formatSeconds(w[k]["ns/op"]/1e9), otherMetrics(w[k]), wb.Measures)
		}
	}
	md.WriteString("\n")
}

// otherMetrics renders a result's metrics other than ns/op and MB/s, sorted by unit.
func otherMetrics(units map[string]float64) string {
	var parts []string
	for _, u := range sortedKeys(units) {
		if u == "ns/op" || u == "MB/s" {
			continue
		}
		parts = append(parts, fmt.Sprintf("%.4g %s", units[u], u))
	}
	return strings.Join(parts, ", ")
}

func writePlotsSection(md *bytes.Buffer, files []string) {
	md.WriteString("## Plots\n\n")
	for _, f := range files {
		fmt.Fprintf(md, "![%s](%s)\n\n", strings.TrimSuffix(f, ".svg"), f)
	}
}

// sortedKeys returns a map's keys, sorted.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
