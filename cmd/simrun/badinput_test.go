package main

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/parsleysim/parsleysim/scenarios"
)

// badInput is one row of the command line's edge table: the arguments ({dir} is the case's
// directory, holding ok.txt, a valid scenario file, ok.replay, a valid replay file, and the
// case's own files), standard input, the exit code and a fragment of what the command says (on
// stderr for a usage error, on stdout or stderr otherwise). after, when set, checks what the command wrote.
type badInput struct {
	name  string
	files map[string]string
	args  string
	stdin string
	code  int
	want  string
	after func(t *testing.T, dir string)
}

// scenarioHeader declares the smallest world the scenario-file rows build on.
const scenarioHeader = "topic e partitions=1 external\nprocess p receives=e\n"

// lines repeats line n times.
func lines(line string, n int) string { return strings.Repeat(line+"\n", n) }

// badInputs is the table. Each row names the input, the exit code and the message that names
// what was wrong; every row also checks that no file the case started with changed.
var badInputs = []badInput{
	// Scenario files: names as Kafka accepts them, and the documented limits.
	{name: "topic .", files: map[string]string{"f.txt": "topic . external\nprocess p receives=.\nfeed p\n"},
		args: "run {dir}/f.txt", code: exitUsage, want: `f.txt:1: topic name "." (1 bytes): expected 1-249 letters`},
	{name: "topic ..", files: map[string]string{"f.txt": "topic .. external\nprocess p receives=..\nfeed p\n"},
		args: "run {dir}/f.txt", code: exitUsage, want: `f.txt:1: topic name ".." (2 bytes)`},
	{name: "topic name of 250 characters", files: map[string]string{"f.txt": "topic " + strings.Repeat("a", 250) + " external\n"},
		args: "run {dir}/f.txt", code: exitUsage, want: "(250 bytes): expected 1-249 letters"},
	{name: "topic name with é", files: map[string]string{"f.txt": "topic é external\n"},
		args: "run {dir}/f.txt", code: exitUsage, want: `f.txt:1: topic name "é"`},
	{name: "process name of 300 characters", files: map[string]string{"f.txt": "topic e external\nprocess " + strings.Repeat("q", 300) + " receives=e\n"},
		args: "run {dir}/f.txt", code: exitUsage, want: "f.txt:2: process name"},
	{name: "topics a.b and a_b", files: map[string]string{"f.txt": "topic a.b external\ntopic a_b\n"},
		args: "run {dir}/f.txt", code: exitUsage, want: "f.txt:2: topic \"a_b\" differs from topic \"a.b\" only in '.' versus '_'"},
	{name: "partitions=100000", files: map[string]string{"f.txt": "topic e partitions=100000 external\nprocess p receives=e\nfeed p\n"},
		args: "run {dir}/f.txt", code: exitUsage, want: "f.txt:1: partitions=100000: expected an integer in 1..65536"},
	{name: "partitions=0", files: map[string]string{"f.txt": "topic e partitions=0\n"},
		args: "run {dir}/f.txt", code: exitUsage, want: "f.txt:1: partitions=0: expected an integer in 1..65536"},
	{name: "partitions=2^63", files: map[string]string{"f.txt": "topic e partitions=9223372036854775808\n"},
		args: "run {dir}/f.txt", code: exitUsage, want: "f.txt:1: partitions=9223372036854775808: expected an integer in 1..65536"},
	{name: "64,001 processes", files: map[string]string{"f.txt": "topic e external\n" + manyProcessLines(64001) + "feed p0\n"},
		args: "run {dir}/f.txt", code: exitUsage, want: "f.txt:64002: more than 64000 processes (the limit)"},
	{name: "feed p n=1000000000", files: map[string]string{"f.txt": scenarioHeader + "produce topic=e\nfeed p n=1000000000\n"},
		args: "run {dir}/f.txt", code: exitUsage, want: "f.txt:4: more than 100000 actions (the limit; repeats and transaction records count)"},
	{name: "feed p n=0", files: map[string]string{"f.txt": scenarioHeader + "feed p n=0\n"},
		args: "run {dir}/f.txt", code: exitUsage, want: "f.txt:3: n=0: expected an integer >= 1"},
	{name: "txn-open records=1000000", files: map[string]string{"f.txt": scenarioHeader + "txn-open topic=e records=1000000\n"},
		args: "run {dir}/f.txt", code: exitUsage, want: "f.txt:3: more than 100000 actions"},
	{name: "produce partition=2^31", files: map[string]string{"f.txt": scenarioHeader + "produce topic=e partition=2147483648\n"},
		args: "run {dir}/f.txt", code: exitUsage, want: "f.txt:3: partition=2147483648: expected an integer in 0..65535"},
	{name: "produce causes=e/0@2^63-1", files: map[string]string{"f.txt": scenarioHeader + "produce topic=e causes=e/0@9223372036854775807\nfeed p\n"},
		args: "run {dir}/f.txt", code: exitUsage, want: "f.txt:3: causes=e/0@9223372036854775807: expected TOPIC/PARTITION@OFFSET pairs separated by commas, offsets 0..9223372036854775806"},
	{name: "100,001 lines", files: map[string]string{"f.txt": scenarioHeader + lines("drain p", 100_000)},
		args: "run {dir}/f.txt", code: exitUsage, want: "f.txt:100001: more than 100000 lines before the story (the limit)"},
	{name: "settings liveness=2000000000", files: map[string]string{"f.txt": "settings liveness=2000000000\n" + scenarioHeader + "drain p\n"},
		args: "run {dir}/f.txt", code: exitUsage, want: "f.txt:1: liveness=2000000000: expected an integer in 0..1000000"},
	{name: "settings step-us=2^63-1", files: map[string]string{"f.txt": "settings step-us=9223372036854775807\n" + scenarioHeader + "drain p\n"},
		args: "run {dir}/f.txt", code: exitUsage, want: "f.txt:1: step-us=9223372036854775807: expected an integer in 0..3600000000"},
	{name: "session clients=1048576", files: map[string]string{"f.txt": "topic e external\nprocess p receives=e\nsession clients=1048576 writes=e\n"},
		args: "run {dir}/f.txt", code: exitUsage, want: "f.txt:3: session: clients=1048576 is above 10000"},
	{name: "topic after an action", files: map[string]string{"f.txt": scenarioHeader + "drain p\ntopic x\n"},
		args: "run {dir}/f.txt", code: exitUsage, want: `f.txt:4: "topic" after the first action: declarations`},
	{name: "NUL byte in a process name", files: map[string]string{"f.txt": scenarioHeader + "drain p\x00\n"},
		args: "run {dir}/f.txt", code: exitUsage, want: `f.txt:3: byte 0x00 at column 8 is not text: expected a scenario file, UTF-8 text`},
	{name: "a binary file as a scenario file", files: map[string]string{"f.bin": "\xff\xd8\xff\xe0\x00\x10JFIF"},
		args: "run {dir}/f.bin", code: exitUsage, want: `f.bin:1: byte 0xff at column 1 is not text`},
	{name: "17 restart checks", files: map[string]string{"f.txt": scenarioHeader + lines("drain p\nexpect restart-invisible p", 17)},
		args: "run {dir}/f.txt", code: exitUsage, want: "f.txt:36: more than 16 expect restart-invisible lines"},
	{name: "a file that is only ----", files: map[string]string{"f.txt": "----\n"},
		args: "run {dir}/f.txt", code: exitUsage, want: "f.txt: expected at least one topic line and one process line"},
	{name: "an empty file", files: map[string]string{"f.txt": ""},
		args: "run {dir}/f.txt", code: exitUsage, want: "f.txt: expected at least one topic line and one process line"},
	{name: "run a directory", files: map[string]string{"d/x": ""},
		args: "run {dir}/d", code: exitUsage, want: "d: is a directory: expected a scenario file"},
	{name: "run a missing file", args: "run {dir}/missing.txt", code: exitUsage, want: "missing.txt: no such file or directory"},
	{name: "run with no file", args: "run", code: exitUsage, want: "expected exactly one scenario FILE, got 0"},
	{name: "run two files", args: "run {dir}/ok.txt {dir}/ok.txt", code: exitUsage, want: "expected exactly one scenario FILE, got 2"},

	// Outputs never overwrite an input or each other, compared as the files they resolve to.
	{name: "run F --trace F", args: "run {dir}/ok.txt --trace {dir}/ok.txt", code: exitUsage,
		want: "--trace {dir}/ok.txt is the scenario file {dir}/ok.txt: refusing to write over a file the command reads"},
	{name: "run F --trace link-to-F", files: map[string]string{"link": "->ok.txt"}, args: "run {dir}/ok.txt --trace {dir}/link", code: exitUsage,
		want: "--trace {dir}/link is the scenario file"},
	{name: "run F --trace hard-link-to-F", files: map[string]string{"hard": "=>ok.txt"}, args: "run {dir}/ok.txt --trace {dir}/hard", code: exitUsage,
		want: "--trace {dir}/hard is the scenario file"},
	{name: "run F --trace dir/../F", files: map[string]string{"d/x": ""}, args: "run {dir}/ok.txt --trace {dir}/d/../ok.txt", code: exitUsage,
		want: "is the scenario file"},
	{name: "run F --svg F", args: "run {dir}/ok.txt --svg {dir}/ok.txt", code: exitUsage, want: "--svg {dir}/ok.txt is the scenario file"},
	{name: "run --rewrite F --trace F", args: "run --rewrite {dir}/ok.txt --trace {dir}/ok.txt", code: exitUsage, want: "is the scenario file"},
	{name: "run F --svg X --html X", args: "run {dir}/ok.txt --svg {dir}/x --html {dir}/x", code: exitUsage,
		want: "--svg {dir}/x and --html {dir}/x are the same file: refusing to write one output over another"},
	{name: "--trace X --svg X", args: "--seed 1 --steps 20 --trace {dir}/x --svg {dir}/x", code: exitUsage, want: "--trace {dir}/x and --svg {dir}/x are the same file"},
	{name: "--save X --trace link-to-X", files: map[string]string{"link": "->x"}, args: "--seed 1 --steps 20 --save {dir}/x --trace {dir}/link", code: exitUsage,
		want: "--trace {dir}/link and --save {dir}/x are the same file"},
	{name: "replay F --trace F", args: "replay {dir}/ok.replay --trace {dir}/ok.replay", code: exitUsage,
		want: "--trace {dir}/ok.replay is the replay file {dir}/ok.replay"},
	{name: "replay --html link-to-F F", files: map[string]string{"link": "->ok.replay"}, args: "replay --html {dir}/link {dir}/ok.replay", code: exitUsage,
		want: "--html {dir}/link is the replay file"},
	{name: "bench --update --baseline DIR/README.md --report DIR", files: map[string]string{"r/README.md": "{}"},
		args: "bench --update --baseline {dir}/r/README.md --report {dir}/r", code: exitUsage,
		want: "--baseline {dir}/r/README.md and --report's {dir}/r/README.md are the same file"},
	{name: "bench --update --baseline DIR/bench.txt --report DIR", files: map[string]string{"r/bench.txt": ""},
		args: "bench --update --baseline {dir}/r/bench.txt --report {dir}/r", code: exitUsage,
		want: "--baseline {dir}/r/bench.txt is the wall-clock input {dir}/r/bench.txt"},
	{name: "outputs to /dev/null twice", args: "--seed 1 --steps 20 --trace /dev/null --svg /dev/null", code: exitPass, want: "verdict: PASS"},

	// What the README promises works.
	{name: "replay F --svg out.svg", args: "replay {dir}/ok.replay --svg {dir}/out.svg", code: exitPass, want: "reproduced:",
		after: wrote("out.svg", "<svg")},
	{name: "run F --svg out.svg --html out.html", args: "run {dir}/ok.txt --svg {dir}/out.svg --html {dir}/out.html", code: exitPass, want: "verdict: PASS, as expected",
		after: wrote("out.html", "<svg")},
	{name: "run F flags after the file", args: "run {dir}/ok.txt --json", code: exitPass, want: `"verdict": "pass"`},
	{name: "decode flags after the value", args: "decode 0100 --json", code: exitPass, want: `{"causes":[]}`},
	{name: "bench --report new directory", args: "bench --report {dir}/new/dir", code: exitPass, want: "wrote README.md",
		after: wrote("new/dir/README.md", "simrun bench")},
	{name: "shrink --out mine.txt", args: "shrink --seed 1 --sabotage DROP_HELD --attempts 20 --out {dir}/mine.txt", code: exitViolation,
		want: "scenario file: {dir}/mine.txt", after: func(t *testing.T, dir string) {
			wrote("mine.replay", "parsley-sim-replay 1")(t, dir)
			wrote("mine.txt", "expect verdict: violation")(t, dir)
		}},
	{name: "explore --max-depth 5", args: "explore --scenario chain --max-depth 5", code: exitPass, want: "INCOMPLETE (--max-depth cut"},
	{name: "-h lists the flags", args: "replay -h", code: exitPass, want: "-svg FILE"},
	{name: "run F -h", args: "run {dir}/ok.txt -h", code: exitPass, want: "-html FILE"},
	{name: "simrun -h lists the default run's flags", args: "-h", code: exitPass, want: "-processes int"},

	// The default run's flags.
	{name: "--processes 64001", args: "--seed 1 --processes 64001", code: exitUsage, want: "--processes must be 2-64000 (the documented maximum), got 64001"},
	{name: "--processes 100000", args: "--seed 1 --processes 100000", code: exitUsage, want: "--processes must be 2-64000 (the documented maximum), got 100000"},
	{name: "--processes 0", args: "--seed 1 --processes 0", code: exitUsage, want: "--processes must be 2-64000 (the documented maximum), got 0"},
	{name: "--processes 1", args: "--seed 1 --processes 1", code: exitUsage, want: "got 1"},
	{name: "a targeted scenario by name says its script replaces the safety phase", args: "--scenario diamond_hold --seed 1", code: exitPass,
		want: "script: the safety phase is the scenario's 13 scripted actions, so safety_steps and the action weights"},
	{name: "--processes on a fixed scenario", args: "--scenario diamond_hold --processes 5", code: exitUsage, want: "scenario diamond_hold has a fixed topology: --processes is not supported"},
	{name: "--steps 100000000", args: "--seed 1 --steps 100000000", code: exitUsage, want: "--steps must be 1-1000000, got 100000000"},
	{name: "--steps 0", args: "--seed 1 --steps 0", code: exitUsage, want: "--steps must be 1-1000000, got 0"},
	{name: "--seed -1", args: "--seed -1", code: exitUsage, want: `want an unsigned 64-bit integer, got "-1"`},
	{name: "--seed 2^64", args: "--seed 18446744073709551616", code: exitUsage, want: `got "18446744073709551616"`},
	{name: "-v --json", args: "--seed 1 -v --json", code: exitUsage, want: "-v and --json cannot be used together"},
	{name: "--no-such-flag", args: "--no-such-flag", code: exitUsage, want: "flag provided but not defined: -no-such-flag ('simrun -h' lists the flags)"},
	{name: "--seed 1 extra", args: "--seed 1 extra", code: exitUsage, want: `unexpected argument "extra" (the default run takes flags only; subcommands: decode, replay, run, list, sweep, merge, bench, shrink, explore)`},
	{name: "nosuchcommand", args: "nosuchcommand", code: exitUsage, want: `unknown subcommand "nosuchcommand" (subcommands: decode, replay, run, list, sweep, merge, bench, shrink, explore;`},
	{name: "--scenario nope", args: "--scenario nope", code: exitUsage, want: `--scenario: unknown scenario "nope"`},
	{name: "--sabotage nope", args: "--sabotage nope", code: exitUsage, want: `--sabotage: unknown sabotage mode "nope"`},
	{name: "--save /nonexistent/x", args: "--seed 1 --steps 20 --save /nonexistent/x", code: exitUsage, want: "--save: open /nonexistent/x: no such file or directory"},
	{name: "--trace into a missing directory", args: "--seed 1 --steps 20 --trace /nonexistent/t.jsonl", code: exitUsage, want: "--trace: open /nonexistent/t.jsonl"},
	{name: "--trace is a directory", files: map[string]string{"d/x": ""}, args: "--seed 1 --steps 20 --trace {dir}/d", code: exitUsage, want: "is a directory"},

	// Replay files.
	{name: "replay: choices 10000000000", files: map[string]string{"r.replay": "parsley-sim-replay 1\nscenario random\nseed 1\nchoices 10000000000\n0 1\n"},
		args: "replay {dir}/r.replay", code: exitUsage, want: `r.replay:4: expected "choices N" with N an integer in 0..16000000, got "10000000000"`},
	{name: "replay a directory", files: map[string]string{"d/x": ""}, args: "replay {dir}/d", code: exitUsage, want: "d: reading: read {dir}/d: is a directory"},
	{name: "replay an empty file", files: map[string]string{"r.replay": ""}, args: "replay {dir}/r.replay", code: exitUsage, want: `r.replay: empty file (0 bytes): expected "parsley-sim-replay 1"`},
	{name: "replay a truncated file", files: map[string]string{"r.replay": "# parsley-sim replay file: `simrun re"}, args: "replay {dir}/r.replay", code: exitUsage,
		want: `r.replay: truncated at byte 37: the file ends before its first line "parsley-sim-replay 1"`},
	{name: "replay random bytes", files: map[string]string{"r.replay": "\xf0r\xec\xce\xed\x64\x54\xb2" + strings.Repeat("\xd7\xb0", 200)}, args: "replay {dir}/r.replay", code: exitUsage,
		want: `r.replay:1: not a replay file: binary data (byte 0xf0 at column 1), expected "parsley-sim-replay 1"`},
	{name: "replay a missing file", args: "replay {dir}/missing.replay", code: exitUsage, want: "missing.replay: no such file or directory"},
	{name: "replay a scenario file", args: "replay {dir}/ok.txt", code: exitUsage, want: `expected "parsley-sim-replay 1" (a replay file written by simrun --save)`},
	{name: "replay: choice -1", files: map[string]string{"r.replay": "parsley-sim-replay 1\nscenario random\nseed 1\nchoices 1\n-1\n"},
		args: "replay {dir}/r.replay", code: exitUsage, want: `r.replay:5: expected a choice (an integer ≥ 0), got "-1"`},
	{name: "replay: choice 2^70", files: map[string]string{"r.replay": "parsley-sim-replay 1\nscenario random\nseed 1\nchoices 1\n1180591620717411303424\n"},
		args: "replay {dir}/r.replay", code: exitUsage, want: `got "1180591620717411303424"`},
	{name: "replay: header processes 100000", files: map[string]string{"r.replay": "parsley-sim-replay 1\nscenario random\nseed 1\nprocesses 100000\nchoices 0\n"},
		args: "replay {dir}/r.replay", code: exitUsage, want: "r.replay: processes 100000: expected 0 (the scenario's own topology) or 2-64000"},
	{name: "replay: header processes 1", files: map[string]string{"r.replay": "parsley-sim-replay 1\nscenario random\nseed 1\nprocesses 1\nchoices 0\n"},
		args: "replay {dir}/r.replay", code: exitUsage, want: "r.replay: processes 1: expected 0 (the scenario's own topology) or 2-64000"},
	{name: "replay: header steps 100000000", files: map[string]string{"r.replay": "parsley-sim-replay 1\nscenario random\nseed 1\nsteps 100000000\nchoices 0\n"},
		args: "replay {dir}/r.replay", code: exitUsage, want: "r.replay: steps 100000000: expected 0 (the seed's budget) or 1-1000000"},
	{name: "replay: unknown scenario", files: map[string]string{"r.replay": "parsley-sim-replay 1\nscenario nope\nseed 1\nchoices 0\n"},
		args: "replay {dir}/r.replay", code: exitUsage, want: `unknown scenario "nope" (known: causes_known_only_from_held_metadata, crash_inside_commit,`},
	{name: "replay two files", args: "replay {dir}/ok.replay {dir}/ok.replay", code: exitUsage, want: "want exactly one replay FILE, got 2"},

	// sweep, shrink, explore, bench, list.
	{name: "sweep --processes 0", args: "sweep --seeds 1-2 --processes 0", code: exitUsage, want: "--processes must be 2-64000 (the documented maximum), got 0"},
	{name: "sweep --processes 100000", args: "sweep --seeds 1-2 --processes 100000", code: exitUsage, want: "got 100000"},
	{name: "sweep -j 0", args: "sweep --seeds 1-2 -j 0", code: exitUsage, want: "-j must be 1-1024, got 0"},
	{name: "sweep -j 100000", args: "sweep --seeds 1-2 -j 100000", code: exitUsage, want: "-j must be 1-1024, got 100000"},
	{name: "sweep --seeds 5-1", args: "sweep --seeds 5-1", code: exitUsage, want: `range "5-1" is empty`},
	{name: "sweep --seeds 0-2^64-1", args: "sweep --seeds 0-18446744073709551615", code: exitUsage, want: "holds 2^64 seeds: at most 2^64-1"},
	{name: "sweep --catch-rates --out FILE", args: "sweep --catch-rates --seeds 1-1 --out {dir}/ok.txt", code: exitUsage, want: "--out {dir}/ok.txt is not a directory"},
	{name: "sweep --shard 0/4", args: "sweep --seeds 1-2 --shard 0/4", code: exitUsage, want: "shard 0/4: want i/n with 1 <= i <= n <= 65536"},
	{name: "sweep --shard 5/4", args: "sweep --seeds 1-2 --shard 5/4", code: exitUsage, want: "shard 5/4: want i/n"},
	{name: "sweep --shard 1/0", args: "sweep --seeds 1-2 --shard 1/0", code: exitUsage, want: "shard 1/0: want i/n"},
	{name: "sweep --shard 3", args: "sweep --seeds 1-2 --shard 3", code: exitUsage, want: `want i/n (shard i of n, counting from 1), got "3"`},
	{name: "sweep -j and --workers", args: "sweep --seeds 1-2 -j 2 --workers 2", code: exitUsage, want: "-j and --workers are the same flag: give one"},
	{name: "sweep --workers 0", args: "sweep --seeds 1-2 --workers 0", code: exitUsage, want: "--workers must be 1-1024, got 0"},
	{name: "sweep --catch-rates --shard", args: "sweep --catch-rates --seeds 1-2 --shard 1/2", code: exitUsage, want: "--catch-rates and --shard cannot be used together"},
	{name: "sweep --result DIR", args: "sweep --seeds 1-2 --result {dir}", code: exitUsage, want: "--result {dir} is a directory"},
	{name: "sweep --result in a missing directory", args: "sweep --seeds 1-2 --result {dir}/no/r.json", code: exitUsage, want: "directory {dir}/no does not exist"},
	{name: "sweep --save-failures FILE", args: "sweep --seeds 1-2 --save-failures {dir}/ok.txt", code: exitUsage, want: "--save-failures {dir}/ok.txt is not a directory"},
	{name: "sweep --without unknown", args: "sweep --seeds 1-2 --without REFERENCE,S4", code: exitUsage, want: `--without: unknown criterion "S4" (the oracle's: S1, S2,`},
	{name: "sweep --without PANIC", args: "sweep --seeds 1-2 --without PANIC", code: exitUsage, want: `--without: unknown criterion "PANIC"`},
	{name: "sweep --without twice", args: "sweep --seeds 1-2 --without S1,S1", code: exitUsage, want: "--without: criterion S1 given twice"},
	{name: "sweep --without --result", args: "sweep --seeds 1-2 --without S1 --result {dir}/r.json", code: exitUsage, want: "--without and --result cannot be used together"},
	{name: "sweep --catch-rates --without", args: "sweep --catch-rates --seeds 1-2 --without S1", code: exitUsage, want: "--catch-rates and --without cannot be used together"},
	{name: "merge nothing", args: "merge", code: exitUsage, want: "give the result files to merge"},
	{name: "merge --result over an input", files: map[string]string{"r.json": "{}"}, args: "merge --result {dir}/r.json {dir}/r.json",
		code: exitUsage, want: "--result {dir}/r.json is result file {dir}/r.json: refusing to write over a file the command reads"},
	{name: "merge --result over an input by a link", files: map[string]string{"r.json": "{}", "l.json": "->r.json"}, args: "merge --result {dir}/l.json {dir}/r.json",
		code: exitUsage, want: "refusing to write over a file the command reads"},
	{name: "merge a scenario file", args: "merge {dir}/ok.txt", code: exitUsage, want: "ok.txt: not JSON at byte 1 (invalid character '#' looking for beginning of value): expected a result document"},
	{name: "merge an empty file", files: map[string]string{"r.json": ""}, args: "merge {dir}/r.json", code: exitUsage, want: "r.json: empty file: expected a result document"},
	{name: "merge a truncated file", files: map[string]string{"r.json": `{"format": "simrun-result/1", "header": {`}, args: "merge {dir}/r.json", code: exitUsage,
		want: "r.json: truncated: the JSON ends inside its object"},
	{name: "merge a JSON array", files: map[string]string{"r.json": "[1]"}, args: "merge {dir}/r.json", code: exitUsage, want: "r.json: a JSON array: expected a result document"},
	{name: "merge a format of the wrong type", files: map[string]string{"r.json": `{"format": 1}`}, args: "merge {dir}/r.json", code: exitUsage,
		want: "r.json: field format holds a JSON number, want a string"},
	{name: "merge a result of another format", files: map[string]string{"r.json": `{"format": "simrun-result/9", "header": {"kind": "sweep"}, "body": {}}`},
		args: "merge {dir}/r.json", code: exitUsage, want: `format "simrun-result/9", want "simrun-result/1"`},
	{name: "merge bad shards", files: map[string]string{"r.json": `{"format": "simrun-result/1", "header": {"kind": "sweep", "shards": "3-2/4"}, "body": {}}`},
		args: "merge {dir}/r.json", code: exitUsage, want: `shards: "3-2/4": shards must ascend within 1..4`},
	{name: "merge an unknown field", files: map[string]string{"r.json": `{"format": "simrun-result/1", "extra": 1}`},
		args: "merge {dir}/r.json", code: exitUsage, want: `unknown field "extra"`},
	{name: "shrink --attempts 0", args: "shrink --seed 1 --attempts 0", code: exitUsage, want: "--attempts must be 1-100000, got 0"},
	{name: "shrink a passing seed", args: "shrink --seed 1 --attempts 5", code: exitUsage, want: "passes: nothing to shrink"},
	{name: "explore --budget msgs=2,msgs=3", args: "explore --scenario chain --budget msgs=2,msgs=3", code: exitUsage, want: `budget entry "msgs=3": msgs is given twice (first "msgs=2")`},
	{name: "explore --budget msgs=256", args: "explore --scenario chain --budget msgs=256", code: exitUsage, want: "the count must be an integer in 0..255"},
	{name: "explore --catalogue --out FILE", args: "explore --catalogue --out {dir}/ok.txt", code: exitUsage, want: "--out {dir}/ok.txt: with --catalogue, --out names a directory"},
	{name: "explore --scenario nope", args: "explore --scenario nope", code: exitUsage, want: `unknown scope "nope" (known: crash_hold, stamped_fanin,`},
	{name: "explore --seed -1", args: "explore --scenario chain --seed -1", code: exitUsage, want: `invalid value "-1" for flag -seed: want an unsigned 64-bit integer, got "-1"`},
	{name: "explore -h names the seed N", args: "explore -h", code: exitPass, want: "-seed N\n"},
	{name: "shrink -h names the seed N", args: "shrink -h", code: exitPass, want: "-seed N\n"},
	{name: "explore --out in a missing directory", args: "explore --scenario delete_held --sabotage DELIVER_PAST_DEAD_HOLDS --out {dir}/no/x.txt", code: exitUsage,
		want: "--out {dir}/no/x.txt: directory {dir}/no does not exist"},
	{name: "explore --out a directory", files: map[string]string{"d/x": ""}, args: "explore --scenario delete_held --sabotage DELIVER_PAST_DEAD_HOLDS --out {dir}/d", code: exitUsage,
		want: "--out {dir}/d is a directory"},
	{name: "shrink --out in a missing directory", args: "shrink --seed 1 --sabotage DROP_HELD --attempts 5 --out {dir}/no/x", code: exitUsage,
		want: "--out {dir}/no/x.replay: directory {dir}/no does not exist"},
	{name: "explore -j --workers", args: "explore --scenario chain -j 2 --workers 2", code: exitUsage, want: "-j and --workers are the same flag: give one"},
	{name: "explore --workers 0", args: "explore --scenario chain --workers 0", code: exitUsage, want: "--workers must be 1-"},
	{name: "explore --catalogue --shard", args: "explore --catalogue --shard 1/2", code: exitUsage, want: "--shard and --result need --scenario: a catalogue is explored whole"},
	{name: "explore --shard 3/2", args: "explore --scenario chain --shard 3/2", code: exitUsage, want: "shard 3/2: want i/n"},
	{name: "explore --split-depth 65", args: "explore --scenario chain --shard 1/2 --split-depth 65", code: exitUsage, want: "--split-depth 65: must be 0-64"},
	{name: "explore --result --out the same file", args: "explore --scenario chain --result {dir}/x.json --out {dir}/x.json", code: exitUsage,
		want: "--out {dir}/x.json and --result {dir}/x.json are the same file"},
	{name: "bench --check --update", args: "bench --check --update", code: exitUsage, want: "--check and --update exclude each other"},
	{name: "bench --check --baseline missing", args: "bench --check --baseline {dir}/missing.json", code: exitUsage,
		want: "(create it with: go run ./cmd/simrun bench --update --baseline {dir}/missing.json)"},
	{name: "bench --check --baseline not a baseline", files: map[string]string{"r.json": `{"format": "simrun-result/1"}`}, args: "bench --check --baseline {dir}/r.json", code: exitUsage,
		want: `r.json: no "metrics" object: expected the metrics baseline 'go run ./cmd/simrun bench --update --baseline {dir}/r.json' writes`},
	{name: "list extra", args: "list extra", code: exitUsage, want: `unexpected argument "extra"`},
	{name: "list --bad", args: "list --bad", code: exitUsage, want: "flag provided but not defined: -bad"},

	// decode.
	{name: "decode zz", args: "decode zz", code: exitUsage, want: `value "zz" is not hex`},
	{name: "decode odd-length hex", args: "decode 010", code: exitUsage, want: `value "010" is not hex`},
	{name: "decode --base64 !!!", args: "decode --base64 !!!", code: exitUsage, want: `value "!!!" is not base64`},
	{name: "decode hex over several arguments", args: "decode 01 01 0102030405060708090a0b0c0d0e0f10 01 00 0000000000000029", code: exitPass,
		want: "01020304-0506-0708-090a-0b0c0d0e0f10 0 41"},
	{name: "decode 0x", args: "decode 0X0100", code: exitPass, want: "no causes"},
	{name: "decode 0x alone", args: "decode 0x", code: exitViolation, want: "undecodable: truncated"},
	{name: "decode - with 6 MB on stdin", args: "decode -", stdin: strings.Repeat("00", 3<<20), code: exitUsage,
		want: "stdin holds more than 4194304 bytes: a header value is at most 1048576 bytes"},
	{name: "decode - an undecodable value", args: "decode -", stdin: "02", code: exitViolation, want: "undecodable: unknown-version"},
}

// manyProcessLines declares n processes p0, p1, ... receiving topic e.
func manyProcessLines(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "process p%d receives=e\n", i)
	}
	return b.String()
}

// wrote checks that the command wrote file (relative to the case's directory) containing want.
func wrote(file, want string) func(t *testing.T, dir string) {
	return func(t *testing.T, dir string) {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil || !bytes.Contains(b, []byte(want)) {
			t.Errorf("%s: %v; want it to contain %q (it holds %.80q)", file, err, want, b)
		}
	}
}

// TestBadInputs runs the edge table in-process: exit code, message and no file changed.
func TestBadInputs(t *testing.T) {
	okScenario, err := os.ReadFile("../../scenarios/testdata/diamond_hold.txt")
	if err != nil {
		t.Fatal(err)
	}
	okReplay := filepath.Join(t.TempDir(), "ok.replay")
	if code, _, errs := invoke(t, t.TempDir(), "--seed", "1", "--steps", "40", "--save", okReplay); code != exitPass {
		t.Fatalf("saving a replay file: exit %d: %s", code, errs)
	}
	replay, err := os.ReadFile(okReplay)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range badInputs {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			files := map[string]string{"ok.txt": string(okScenario), "ok.replay": string(replay)}
			for name, content := range tc.files {
				files[name] = content
			}
			writeFixtures(t, dir, files)
			before := fingerprint(t, dir)
			args := strings.Fields(strings.ReplaceAll(tc.args, "{dir}", dir))
			var stdout, stderr bytes.Buffer
			code := run(args, strings.NewReader(tc.stdin), &stdout, &stderr)
			said := stderr.String()
			if tc.code != exitUsage {
				said = stdout.String() + said
			}
			want := strings.ReplaceAll(tc.want, "{dir}", dir)
			if code != tc.code || !strings.Contains(said, want) {
				t.Fatalf("simrun %s: exit %d, want %d with %q in\n%s\n(stderr: %.500s)", tc.args, code, tc.code, want, said, stderr.String())
			}
			if after := fingerprint(t, dir); !sameFiles(before, after) {
				t.Errorf("a file the case started with changed:\nbefore %v\nafter  %v", before, after)
			}
			if tc.after != nil {
				tc.after(t, dir)
			}
		})
	}
}

// writeFixtures writes the case's files; "->target" makes a symbolic link, "=>target" a hard
// link to another fixture.
func writeFixtures(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	var links []string
	for name, content := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(content, "->") || strings.HasPrefix(content, "=>") {
			links = append(links, name)
			continue
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range links {
		path, target := filepath.Join(dir, name), files[name][2:]
		var err error
		if strings.HasPrefix(files[name], "->") {
			err = os.Symlink(target, path)
		} else {
			err = os.Link(filepath.Join(dir, target), path)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	// Set every file's time in the past, so a rewrite with the same bytes still shows.
	past := time.Now().Add(-time.Hour)
	for name := range files {
		os.Chtimes(filepath.Join(dir, name), past, past)
	}
}

// fileState is a file's bytes and modification time.
type fileState struct {
	data  string
	mtime time.Time
}

// fingerprint records every regular file under dir.
func fingerprint(t *testing.T, dir string) map[string]fileState {
	t.Helper()
	out := map[string]fileState{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		b, err := os.ReadFile(path)
		out[path] = fileState{string(b), info.ModTime()}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// sameFiles reports whether every file of before is in after, unchanged (new files may appear).
func sameFiles(before, after map[string]fileState) bool {
	for path, st := range before {
		if got, ok := after[path]; !ok || got.data != st.data || !got.mtime.Equal(st.mtime) {
			return false
		}
	}
	return true
}

// TestDefaultOutputsAreIgnored: every file a command writes into the working directory by
// default matches a pattern of the repository's .gitignore, so a run in a checkout leaves it
// clean.
func TestDefaultOutputsAreIgnored(t *testing.T) {
	data, err := os.ReadFile("../../.gitignore")
	if err != nil {
		t.Fatal(err)
	}
	var patterns []string
	for _, l := range strings.Split(string(data), "\n") {
		if p, ok := strings.CutPrefix(strings.TrimSpace(l), "/"); ok {
			patterns = append(patterns, p)
		}
	}
	spec := scenarios.Spec{Scenario: "random", Seed: 7, Sabotage: "IGNORE_CAUSES"}
	auto := autoReplayName(spec)
	shrunk := shrinkOutputsFor(shrunkName(spec))
	defaults := []string{auto, shrunkPaths(auto).replay, shrunkPaths(auto).scenario, shrunk.replay, shrunk.scenario,
		exploreDefaultFile("chain", "IGNORE_CAUSES")}
	for _, name := range defaults {
		ignored := false
		for _, p := range patterns {
			if ok, _ := filepath.Match(p, name); ok {
				ignored = true
			}
		}
		if !ignored {
			t.Errorf("%s, a default output, matches no pattern of .gitignore (%v)", name, patterns)
		}
	}
}
