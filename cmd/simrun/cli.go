package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// The command-line convention every subcommand follows (README "Exit codes and flags"):
//
//   - flags may come before or after the positional arguments ("--" ends the flags);
//   - -h prints the synopsis and every flag on stdout and exits 0;
//   - a bad flag or argument exits 2 with a message naming it;
//   - no command writes over a file it reads or over one of its own other outputs (checkOutputs).

// Exit codes, the same for every subcommand.
const (
	exitPass        = 0   // the run passed, the value decoded, the command did what it was asked
	exitViolation   = 1   // a finding: a violation, an unmet expectation, an undecodable value
	exitUsage       = 2   // bad usage or bad input: the message names the flag, file line or bytes
	exitLive        = 3   // the live substrate failed (unreachable, or a run on it could not start): no finding
	exitInterrupted = 130 // stopped by Ctrl-C before finishing (the shell's code for SIGINT)
)

// flagSet is a subcommand's flags with the convention above. usage is the synopsis and
// description -h prints before the flags.
type flagSet struct {
	*flag.FlagSet
	usage string
}

func newFlagSet(name, usage string) *flagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard) // parse reports errors and help itself
	fs.Usage = func() {}
	return &flagSet{FlagSet: fs, usage: usage}
}

// parse parses args and returns the positional arguments. When ok is false the command is over
// and returns code: 0 after -h printed the help on stdout, 2 after a bad flag was named on
// stderr.
func (f *flagSet) parse(args []string, stdout, stderr io.Writer) (positional []string, code int, ok bool) {
	positional, err := parseInterspersed(f.FlagSet, args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		f.printHelp(stdout)
		return nil, exitPass, false
	case err != nil:
		fmt.Fprintf(stderr, "%s: %v ('%s -h' lists the flags)\n", f.Name(), err, f.Name())
		return nil, exitUsage, false
	}
	return positional, exitPass, true
}

// printHelp writes the usage text and every flag with its default.
func (f *flagSet) printHelp(w io.Writer) {
	fmt.Fprint(w, strings.TrimRight(f.usage, "\n")+"\n\nflags:\n")
	f.SetOutput(w)
	f.PrintDefaults()
	f.SetOutput(io.Discard)
}

// given returns the names of the flags given on the command line.
func (f *flagSet) given() map[string]bool {
	set := map[string]bool{}
	f.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	return set
}

// parseInterspersed parses flags wherever they appear among the positional arguments, so
// `replay FILE --svg x` works as `replay --svg x FILE` does. Everything after "--" is
// positional.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if consumed := len(args) - len(rest); consumed > 0 && args[consumed-1] == "--" {
			return append(positional, rest...), nil
		}
		if len(rest) == 0 {
			return positional, nil
		}
		positional, args = append(positional, rest[0]), rest[1:]
	}
}

// usageError prints "NAME: message" on stderr and returns exitUsage.
func usageError(stderr io.Writer, name, format string, args ...any) int {
	fmt.Fprintf(stderr, "%s: %s\n", name, fmt.Sprintf(format, args...))
	return exitUsage
}

// fileArg is a file a command reads or writes, with what names it on the command line
// ("--trace", "the scenario file").
type fileArg struct {
	what, path string
}

// checkOutputs returns an error naming both arguments when an output is one of the inputs or
// another output. Paths are compared as the files they resolve to: "x", "./x", "d/../x", a
// symbolic link to x and a hard link to x are one file, and an output that does not exist yet
// is compared by its resolved directory and name. Outputs that are not regular files where they
// exist (/dev/null, a terminal) may repeat. Empty paths are not given and are skipped.
func checkOutputs(inputs, outputs []fileArg) error {
	ids := make([]fileID, len(outputs))
	for i, o := range outputs {
		if o.path == "" {
			continue
		}
		ids[i] = identify(o.path)
		if ids[i].special {
			continue
		}
		for _, in := range inputs {
			if in.path != "" && ids[i].same(identify(in.path)) {
				return fmt.Errorf("%s %s is %s %s: refusing to write over a file the command reads", o.what, o.path, in.what, in.path)
			}
		}
		for j := range i {
			if outputs[j].path != "" && ids[i].same(ids[j]) {
				return fmt.Errorf("%s %s and %s %s are the same file: refusing to write one output over another", outputs[j].what, outputs[j].path, o.what, o.path)
			}
		}
	}
	return nil
}

// fileID identifies the file a path names.
type fileID struct {
	path    string      // absolute, symbolic links resolved
	info    os.FileInfo // nil when the file does not exist
	special bool        // exists and is not a regular file or directory (a device)
}

func identify(p string) fileID {
	path := resolve(p)
	info, err := os.Stat(path)
	if err != nil {
		return fileID{path: path}
	}
	return fileID{path: path, info: info, special: !info.Mode().IsRegular() && !info.IsDir()}
}

func (a fileID) same(b fileID) bool {
	if a.info != nil && b.info != nil {
		return os.SameFile(a.info, b.info)
	}
	return a.path == b.path
}

// resolve returns p as an absolute path with every symbolic link resolved, including a final
// link whose target does not exist yet (writing to it would create the target).
func resolve(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return filepath.Clean(p)
	}
	for range 40 { // the kernel's limit on links followed
		fi, err := os.Lstat(abs)
		if err != nil || fi.Mode()&os.ModeSymlink == 0 {
			break
		}
		target, err := os.Readlink(abs)
		if err != nil {
			break
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(abs), target)
		}
		abs = filepath.Clean(target)
	}
	dir, base := filepath.Split(abs)
	if rd, err := filepath.EvalSymlinks(dir); err == nil {
		return filepath.Join(rd, base)
	}
	return abs
}
