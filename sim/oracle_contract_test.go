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

// The oracle's files still in package sim: the checkers of the reference node, the sessions and
// restart invisibility (the others are in package oracle, which cannot see the host:
// oracle.TestOracleSeesNoHost). They judge from the events the host and the world hand them and
// from the oracle's own state; they never read the host's state of a process (pcState, the
// execution's status, received set, read positions, state store, transaction) or its engine, nor
// the world's substrate, topics, incarnations and channels: what was produced where is the
// oracle's own model (oracle.Oracle).
func isOracleFile(name string) bool {
	base := filepath.Base(name)
	return (strings.HasPrefix(base, "oracle") || strings.HasPrefix(base, "check_")) && !strings.HasSuffix(base, "_test.go")
}

// oracleMayRead are the fields and methods of a process (proc) the oracle's files may use: its
// index and declaration, the world it lives in, the oracle's own parts (o, ref) and the shell
// storage the oracle's copy-on-write state is carved from.
var oracleMayRead = []string{"w", "idx", "spec", "group", "o", "ref", "storage"}

// oracleMayReadOfWorld are the fields and methods of the world the oracle's files may use, besides
// the world's methods an oracle file declares: the oracle's own model (or), the trace it reports
// into, the step and the clock that date its findings, the processes and session actors it
// judges, the stamped producers' candidates a committed record joins, and the world's way of
// reporting a violation through the oracle (violate, at).
var oracleMayReadOfWorld = []string{"or", "tracing", "emitRaw", "step", "clock", "procs", "sess", "noteCommitted", "violate", "at"}

// hostReads type-checks package sim with extra (name, source) files added and returns, for every
// oracle file, each use of a process's host state or of an engine, as "file:line: what".
func hostReads(t *testing.T, extra map[string]string) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-export", "-deps", "-f", "{{.ImportPath}}={{.Export}}", ".").Output()
	if err != nil {
		t.Fatalf("go list -export: %v", err)
	}
	exports := map[string]string{}
	for sc := bufio.NewScanner(bytes.NewReader(out)); sc.Scan(); {
		k, v, _ := strings.Cut(sc.Text(), "=")
		exports[k] = v
	}
	names, err := exec.Command("go", "list", "-f", `{{join .GoFiles " "}}`, ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range strings.Fields(string(names)) {
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	for _, name := range slices.Sorted(maps.Keys(extra)) {
		f, err := parser.ParseFile(fset, name, extra[name], 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	conf := types.Config{Importer: importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		return os.Open(exports[path])
	})}
	info := &types.Info{Selections: map[*ast.SelectorExpr]*types.Selection{}, Uses: map[*ast.Ident]types.Object{}}
	pkg, err := conf.Check("github.com/parsleysim/parsleysim/sim", fset, files, info)
	if err != nil {
		t.Fatalf("type-checking sim: %v", err)
	}
	named := func(name string) types.Type { return pkg.Scope().Lookup(name).Type() }
	is := func(typ, want types.Type) bool {
		if ptr, ok := typ.(*types.Pointer); ok {
			typ = ptr.Elem()
		}
		return types.Identical(typ, want)
	}
	procT, pcT, engT, worldT := named("proc"), named("pcState"), named("engineRef"), named("world")
	var nodeEngT, modelT types.Type
	for _, imp := range pkg.Imports() {
		switch imp.Path() {
		case "github.com/parsleysim/parsleysim/node":
			nodeEngT = imp.Scope().Lookup("Engine").Type()
		case "github.com/parsleysim/parsleysim/substrate":
			modelT = imp.Scope().Lookup("Model").Type()
		}
	}
	if nodeEngT == nil || modelT == nil {
		t.Fatal("package sim no longer imports node and substrate: revisit what the oracle may not read")
	}
	inOracleFile := func(obj types.Object) bool { return isOracleFile(fset.Position(obj.Pos()).Filename) }
	engine := func(typ types.Type) bool { return is(typ, engT) || is(typ, nodeEngT) }
	var bad []string
	for _, f := range files {
		name := fset.Position(f.Pos()).Filename
		if !isOracleFile(name) {
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			var what string
			switch n := n.(type) {
			case *ast.SelectorExpr:
				sel, ok := info.Selections[n]
				if !ok {
					return true
				}
				switch recv := sel.Recv(); {
				case is(recv, procT) && !slices.Contains(oracleMayRead, n.Sel.Name):
					what = "proc." + n.Sel.Name
				case is(recv, pcT):
					what = "pcState." + n.Sel.Name
				case is(recv, worldT) && !slices.Contains(oracleMayReadOfWorld, n.Sel.Name) &&
					(sel.Kind() == types.FieldVal || !inOracleFile(sel.Obj())):
					what = "world." + n.Sel.Name
				case is(recv, modelT) || is(sel.Obj().Type(), modelT):
					what = "the substrate (" + n.Sel.Name + ")"
				case engine(recv) || engine(sel.Obj().Type()):
					what = "the engine (" + n.Sel.Name + ")"
				}
			case *ast.Ident:
				if obj := info.Uses[n]; obj != nil && obj.Type() != nil && (is(obj.Type(), pcT) || engine(obj.Type())) {
					what = "a value of the host's type " + obj.Type().String()
				}
			}
			if what != "" {
				bad = append(bad, fmt.Sprintf("%s: %s", fset.Position(n.Pos()), what))
			}
			return true
		})
	}
	return bad
}

// TestOracleReadsNoHostState fails when a file of the oracle reads a process's host state or its
// engine: what a check needs, the event that calls it must carry.
func TestOracleReadsNoHostState(t *testing.T) {
	for _, r := range hostReads(t, nil) {
		t.Error(r)
	}
}

// TestOracleContractBites adds an oracle file that reads the host's execution status, a read
// position, the engine, the world's channels, whether an incarnation is alive by the world's
// table, and the substrate's offsets, and a world file that does the same, and checks that
// exactly the oracle file's reads are reported.
func TestOracleContractBites(t *testing.T) {
	const src = `package sim

func (w *world) checkPeeks(p *proc, pc *pcState) bool {
	return p.status == procRunning && pc.readPos > 0 && p.eng != nil && w.chans[0].lso > 0 && w.alive(0) &&
		w.model.AppendCommittedOffsets(nil, "g") != nil && w.or.Alive(0)
}
`
	got := hostReads(t, map[string]string{"check_peeks.go": src, "world_peeks.go": strings.Replace(src, "checkPeeks", "worldPeeks", 1)})
	want := []string{"proc.status", "pcState.readPos", "proc.eng", "world.chans", "world.alive", "world.model", "the substrate (AppendCommittedOffsets)"}
	for _, w := range want {
		if !slices.ContainsFunc(got, func(s string) bool { return strings.HasPrefix(s, "check_peeks.go") && strings.HasSuffix(s, ": "+w) }) {
			t.Errorf("check_peeks.go's read of %s was not reported", w)
		}
	}
	if slices.ContainsFunc(got, func(s string) bool { return !strings.HasPrefix(s, "check_peeks.go") }) {
		t.Fatalf("reported %q; want check_peeks.go's reads only", got)
	}
}
