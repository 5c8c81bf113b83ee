package oracle

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The oracle observes; it does not share. Its checkers judge from the events the world hands it
// and from its own state: the package cannot see the world (it does not import package sim or
// sim/world, nor anything of the simulator but the vocabulary, its own sub-packages and the
// channel index), and it names none of the things a host or a world holds — an engine, the substrate's model — so a
// checker that wanted to read host state would need an event to carry it.

// mayImport are the module's packages the oracle may import.
var mayImport = []string{
	"github.com/parsleysim/parsleysim/node",
	"github.com/parsleysim/parsleysim/substrate", // record, header and offset types only (hostNames)
	"github.com/parsleysim/parsleysim/sim/spec",
	"github.com/parsleysim/parsleysim/sim/chanindex",
	"github.com/parsleysim/parsleysim/sim/oracle/wire",
	"github.com/parsleysim/parsleysim/sim/oracle/refnode",
}

// hostNames are the names of node and substrate the oracle may not use: the engine under test and
// what builds it, and the substrate's model and what builds it.
var hostNames = map[string][]string{
	"node":      {"Engine", "Start", "StartInto"},
	"substrate": {"Model", "NewModel", "Substrate"},
}

// hostUses returns, for each of the given Go sources (name to contents), each import of a package
// of the module the oracle may not import and each use of a host name, as "file:line: what".
func hostUses(t *testing.T, sources map[string]string) []string {
	t.Helper()
	var bad []string
	fset := token.NewFileSet()
	for _, name := range slices.Sorted(maps.Keys(sources)) {
		f, err := parser.ParseFile(fset, name, sources[name], 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path := strings.Trim(imp.Path.Value, `"`)
			if strings.HasPrefix(path, "github.com/parsleysim/parsleysim") && !slices.Contains(mayImport, path) {
				bad = append(bad, fmt.Sprintf("%s: imports %s", fset.Position(imp.Pos()), path))
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if pkg, ok := sel.X.(*ast.Ident); ok && slices.Contains(hostNames[pkg.Name], sel.Sel.Name) {
				bad = append(bad, fmt.Sprintf("%s: uses %s.%s", fset.Position(sel.Pos()), pkg.Name, sel.Sel.Name))
			}
			return true
		})
	}
	return bad
}

// packageSources reads the package's non-test Go files.
func packageSources(t *testing.T) map[string]string {
	t.Helper()
	files, err := filepath.Glob("*.go")
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
		out[f] = string(b)
	}
	if len(out) < 10 {
		t.Fatalf("found %d source files: the test is not looking at the package", len(out))
	}
	return out
}

// TestOracleSeesNoHost fails when a file of the oracle imports the world or uses an engine or the
// substrate's model: what a check needs, the event that calls it must carry.
func TestOracleSeesNoHost(t *testing.T) {
	for _, r := range hostUses(t, packageSources(t)) {
		t.Error(r)
	}
}

// TestOracleSeesNoHostBites adds a checker that imports the world and reads an engine and the
// substrate's model to the package's files, and checks exactly its reads are reported.
func TestOracleSeesNoHostBites(t *testing.T) {
	const src = `package oracle

import (
	"github.com/parsleysim/parsleysim/node"
	"github.com/parsleysim/parsleysim/sim/world"
	"github.com/parsleysim/parsleysim/substrate"
)

func (o *Oracle) checkPeeks(e *node.Engine, m *substrate.Model) bool { return world.Peek(e, m) }
`
	sources := packageSources(t)
	sources["check_peeks.go"] = src
	got := hostUses(t, sources)
	want := []string{"imports github.com/parsleysim/parsleysim/sim/world", "uses node.Engine", "uses substrate.Model"}
	for _, w := range want {
		if !slices.ContainsFunc(got, func(s string) bool { return strings.HasPrefix(s, "check_peeks.go") && strings.HasSuffix(s, ": "+w) }) {
			t.Errorf("check_peeks.go's %q was not reported (got %q)", w, got)
		}
	}
	if slices.ContainsFunc(got, func(s string) bool { return !strings.HasPrefix(s, "check_peeks.go") }) {
		t.Fatalf("reported %q; want check_peeks.go's only", got)
	}
}
