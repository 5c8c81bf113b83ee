package sim

import (
	"bufio"
	"bytes"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The world hands the oracle events; it judges nothing itself. Every criterion but
// RESTART_INVISIBILITY is judged in package oracle, which cannot see the host
// (oracle.TestOracleSeesNoHost); RESTART_INVISIBILITY re-runs the world (world/check_restart.go),
// so it is run from the world, but its verdicts are the oracle's (oracle.CompareDeliveries,
// oracle.RestartViolation). A checker written in package world (or sim) would have to report what it
// finds, through the oracle's Violate or as a violation it builds itself: verdicts finds both,
// by what the identifiers resolve to (so neither a method value, an import's other name nor a
// type alias hides one), and such a checker is a red test, and belongs in package oracle, fed
// by an event.

const (
	oraclePath  = "github.com/parsleysim/parsleysim/sim/oracle"
	specPath    = "github.com/parsleysim/parsleysim/sim/spec"
	diagramPath = "github.com/parsleysim/parsleysim/sim/diagram"
)

// verdicts type-checks the package of import path path from the given Go sources (name to
// contents) and returns each
// use of the oracle's Violate method (a call or a method value) and each spec.Violation the code
// builds (a composite literal of it, or of a slice, array or map of it with elements, and
// new(spec.Violation)), as "file:line:column: what".
func verdicts(t *testing.T, path string, sources map[string]string) []string {
	t.Helper()
	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range slices.Sorted(maps.Keys(sources)) {
		f, err := parser.ParseFile(fset, name, sources[name], parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}, Types: map[ast.Expr]types.TypeAndValue{}}
	conf := types.Config{Importer: exportImporter(t, fset)}
	if _, err := conf.Check(path, fset, files, info); err != nil {
		t.Fatalf("type-checking package %s: %v", path, err)
	}
	isViolation := func(typ types.Type) bool {
		named, ok := types.Unalias(typ).(*types.Named)
		return ok && named.Obj().Name() == "Violation" && named.Obj().Pkg() != nil && named.Obj().Pkg().Path() == specPath
	}
	var bad []string
	flag := func(n ast.Node, what string) {
		bad = append(bad, fmt.Sprintf("%s: %s", fset.Position(n.Pos()), what))
	}
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.Ident:
				if fn, ok := info.Uses[n].(*types.Func); ok && fn.Name() == "Violate" && fn.Pkg() != nil && fn.Pkg().Path() == oraclePath {
					flag(n, "reports a violation (Violate)")
				}
			case *ast.CompositeLit:
				switch typ := types.Unalias(info.Types[n].Type).Underlying().(type) {
				case *types.Slice, *types.Array, *types.Map:
					if isViolation(typ.(interface{ Elem() types.Type }).Elem()) && len(n.Elts) > 0 {
						flag(n, "builds violations")
					}
				default:
					if isViolation(info.Types[n].Type) {
						flag(n, "builds a violation")
					}
				}
			case *ast.CallExpr:
				if id, ok := n.Fun.(*ast.Ident); ok && id.Name == "new" && len(n.Args) == 1 {
					if _, builtin := info.Uses[id].(*types.Builtin); builtin && isViolation(info.Types[n.Args[0]].Type) {
						flag(n, "builds a violation")
					}
				}
			}
			return true
		})
	}
	return bad
}

// exportFiles is the export data file of every package sim and the packages under it import
// (exportImporter's, listed once).
var exportFiles map[string]string

// exportImporter imports the packages sim and the packages under it import from their export
// data, which go list -export builds (or finds in the build cache).
func exportImporter(t *testing.T, fset *token.FileSet) types.Importer {
	t.Helper()
	exports := exportFiles
	if exports == nil {
		out, err := exec.Command("go", "list", "-export", "-deps", "-f", "{{.ImportPath}}\t{{.Export}}", "./...").Output()
		if err != nil {
			t.Fatalf("go list -export: %v", err)
		}
		exports = map[string]string{}
		sc := bufio.NewScanner(bytes.NewReader(out))
		for sc.Scan() {
			if path, file, ok := strings.Cut(sc.Text(), "\t"); ok && file != "" {
				exports[path] = file
			}
		}
		exportFiles = exports
	}
	return importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		file, ok := exports[path]
		if !ok {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(file)
	})
}

// worldSources reads package world's non-test Go files.
func worldSources(t *testing.T) map[string]string {
	t.Helper()
	files, err := filepath.Glob("world/*.go")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(f)] = string(b)
	}
	if len(out) < 20 || out["world.go"] == "" {
		t.Fatalf("found %d source files: the test is not looking at the package", len(out))
	}
	return out
}

// TestWorldJudgesNothing fails when a non-test file of package sim or of a package under it (all
// but the oracle's, sim/oracle/..., the spec that defines the violation, and sim/diagram, which
// draws the violations a trace reports and rebuilds them from its events) reports or builds a
// violation: a check needs an event to the oracle, and a checker in package oracle. The packages
// under sim reach the oracle too (the session tiers hold one).
func TestWorldJudgesNothing(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}}\t{{.Dir}}\t{{join .GoFiles \" \"}}", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	checked := map[string]bool{}
	for line := range strings.Lines(strings.TrimSpace(string(out))) {
		fields := strings.Split(strings.TrimSuffix(line, "\n"), "\t")
		path, dir, names := fields[0], fields[1], strings.Fields(fields[2])
		skip := path == specPath || path == oraclePath || strings.HasPrefix(path, oraclePath+"/") || path == diagramPath
		if skip || len(names) == 0 {
			continue
		}
		rel, err := filepath.Rel(wd, dir)
		if err != nil {
			t.Fatal(err)
		}
		sources := map[string]string{}
		for _, name := range names {
			b, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			sources[filepath.Join(rel, name)] = string(b)
		}
		for _, r := range verdicts(t, path, sources) {
			t.Error(r)
		}
		checked[strings.TrimPrefix(path, "github.com/parsleysim/parsleysim/")] = true
	}
	for _, p := range []string{"sim", "sim/world", "sim/tiers", "sim/targets", "sim/swarm", "sim/explore"} {
		if !checked[p] {
			t.Errorf("package %s was not checked: the test is not looking at the packages", p)
		}
	}
	if checked["sim/oracle"] || checked["sim/spec"] {
		t.Error("the oracle's or the spec's package was checked")
	}
}

// TestWorldJudgesNothingBites adds to package world checkers that report violations through the
// oracle (a call, and a method value under another name) and that build violations themselves
// (under an import's other name and a type alias too), and checks exactly their verdicts are
// reported; a type of the same name elsewhere and a method of the same name on another type are
// not.
func TestWorldJudgesNothingBites(t *testing.T) {
	const src = `package world

import (
	sp "github.com/parsleysim/parsleysim/sim/spec"
)

type verdict = sp.Violation

type Violation struct{ Criterion sp.Criterion }

type judge struct{}

func (judge) Violate() {}

func (w *World) checkPeeks(p *proc) []sp.Violation {
	if p.status == procRunning {
		w.or.Violate(w.at(), sp.CritS1, p.idx, "peeked")
	}
	report := w.or.Violate
	report(w.at(), sp.CritS2, p.idx, "peeked again")
	v := &verdict{Criterion: sp.CritS2}
	judge{}.Violate()
	_ = Violation{Criterion: sp.CritS3}
	_ = new(verdict)
	return []sp.Violation{*v, {Criterion: sp.CritS3}}
}
`
	sources := worldSources(t)
	sources["check_peeks.go"] = src
	got := verdicts(t, "github.com/parsleysim/parsleysim/sim/world", sources)
	want := []string{
		"check_peeks.go:17:8: reports a violation (Violate)",
		"check_peeks.go:19:17: reports a violation (Violate)",
		"check_peeks.go:21:8: builds a violation",
		"check_peeks.go:24:6: builds a violation",
		"check_peeks.go:25:9: builds violations",
		"check_peeks.go:25:28: builds a violation",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("reported\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
