// Command simrun is the parsley-sim command line: it runs the simulator and the tools around it.
//
//	simrun [--seed N ...]          the default run: one seeded simulation (run.go)
//	simrun SUBCOMMAND [ARGS...]    one of the subcommands in the table below
//	simrun help                    lists the subcommands
//
// Every subcommand follows one convention (cli.go): flags before or after the positional
// arguments, -h lists the flags, exit 0 pass, 1 a finding (a violation, an undecodable value), 2
// bad usage or input, 3 the live substrate failed (--substrate kfake|kafka: no verdict), 130
// interrupted.
package main

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
)

// command is one subcommand: its name, a one-line summary for help, and its entry point, which
// returns the exit code.
type command struct {
	name    string
	summary string
	run     func(args []string, stdin io.Reader, stdout, stderr io.Writer) int
}

// commands lists the subcommands in the order help shows them. Add a subcommand by adding a row;
// an entry point that reads no stdin can be adapted with withoutStdin.
var commands = []command{
	{"decode", "decode a parsley.causes header value: decode [--json] [--base64] [HEX... | -]", runDecode},
	{"replay", "re-run a saved run exactly, hash included: replay FILE [-v] [--json] [--trace FILE] [--svg FILE] [--html FILE]", withoutStdin(replayMain)},
	{"run", "run a scenario file, print its story, check its expectations: run FILE [--json] [-v] [--trace FILE] [--svg FILE] [--html FILE] [--sabotage MODE] [--rewrite]", withoutStdin(runFileMain)},
	{"list", "list the scenarios and sabotage modes, one line each: list [--json]", withoutStdin(listMain)},
	{"sweep", "run a seed range on all cores (exit 1 = some seed failed; expected under --sabotage): sweep --seeds A-B [-j N] [--sabotage MODE] [--json] [--shard i/n] [--result FILE] [--save-failures DIR] | --catch-rates", withoutStdin(sweepMain)},
	{"merge", "merge the result files of a sharded sweep or exploration into one report: merge [--json] [--result FILE] FILE...", withoutStdin(mergeMain)},
	{"bench", "exact virtual-time metrics of fixed scenarios, work counters, allocations: bench [--check | --update] [--json] [--report DIR]", withoutStdin(benchMain)},
	{"shrink", "reduce a failing run to a minimal reproduction: shrink --seed N [--scenario NAME] [--sabotage MODE] [--attempts N] [--out FILE]", withoutStdin(shrinkMain)},
	{"explore", "explore every schedule of a small scope (exit 1 = a violation): explore --scenario NAME [--sabotage MODE] [--max-depth N] [--budget crash=1,...] [--json] | --catalogue", withoutStdin(exploreMain)},
}

// defaultRun is what simrun does when the first argument names no subcommand: the simulator's
// default run takes the whole argument list as its flags.
var defaultRun = withoutStdin(runMain)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// collectLessOften sets the garbage collector's target to 400% of the live heap (Go's default is
// 100%) unless the environment sets GOGC, which wins: for the commands whose garbage is
// short-lived and whose live heap is small (explore, sweep), collections then run about a
// quarter as often, for a heap at most five times the live one.
func collectLessOften() {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(400)
	}
}

// run dispatches on the first argument and returns the exit code. A first argument that is not
// a flag must name a subcommand.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		switch args[0] {
		case "help", "-h", "-help", "--help":
			usage(stdout)
			return exitPass
		}
		for _, c := range commands {
			if c.name == args[0] {
				return c.run(args[1:], stdin, stdout, stderr)
			}
		}
		if !strings.HasPrefix(args[0], "-") {
			return usageError(stderr, "simrun", "unknown subcommand %q (subcommands: %s; the default run takes flags only: 'simrun -h')",
				args[0], strings.Join(commandNames(), ", "))
		}
	}
	return defaultRun(args, stdin, stdout, stderr)
}

// commandNames lists the subcommands in help order.
func commandNames() []string {
	names := make([]string, len(commands))
	for i, c := range commands {
		names[i] = c.name
	}
	return names
}

// usage lists the subcommands, then the default run's flags.
func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: simrun [--seed N ...]        run the simulator (default)")
	fmt.Fprintln(w, "       simrun SUBCOMMAND [ARGS...]")
	fmt.Fprintln(w, "       simrun help")
	fmt.Fprintln(w, "\nsubcommands:")
	for _, c := range commands {
		fmt.Fprintf(w, "  %-8s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nrun 'simrun SUBCOMMAND -h' for a subcommand's flags. Flags may come before or after the")
	fmt.Fprintln(w, "arguments. Exit status: 0 pass, 1 a violation or an undecodable value, 2 bad usage or input,")
	fmt.Fprintln(w, "3 the live substrate failed (--substrate kfake|kafka: no verdict), 130 interrupted.")
	fmt.Fprintln(w, "\nflags of the default run:")
	fs, _ := runFlags()
	fs.SetOutput(w)
	fs.PrintDefaults()
}

// withoutStdin adapts an entry point that takes no stdin to the table's signature.
func withoutStdin(f func(args []string, stdout, stderr io.Writer) int) func([]string, io.Reader, io.Writer, io.Writer) int {
	return func(args []string, _ io.Reader, stdout, stderr io.Writer) int { return f(args, stdout, stderr) }
}
