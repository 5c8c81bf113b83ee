package sim

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

// The world hands the oracle events; it judges nothing itself. Every criterion but
// RESTART_INVISIBILITY is judged in package oracle, which cannot see the host
// (oracle.TestOracleSeesNoHost); RESTART_INVISIBILITY re-runs the world (check_restart.go), so
// it is run from here, but its verdicts are the oracle's (oracle.CompareDeliveries,
// oracle.RestartViolation). A checker written in package sim would have to report what it
// finds, through the oracle's Violate or as a violation it builds itself: verdicts finds both,
// so such a checker is a red test, and belongs in package oracle, fed by an event.

// verdicts returns, for the given Go sources (name to contents), each call of a method named
// Violate and each spec.Violation the code builds, as "file:line: what".
func verdicts(t *testing.T, sources map[string]string) []string {
	t.Helper()
	var bad []string
	fset := token.NewFileSet()
	isViolation := func(e ast.Expr) bool {
		sel, ok := e.(*ast.SelectorExpr)
		if !ok {
			return false
		}
		pkg, ok := sel.X.(*ast.Ident)
		return ok && pkg.Name == "spec" && sel.Sel.Name == "Violation"
	}
	for _, name := range slices.Sorted(maps.Keys(sources)) {
		f, err := parser.ParseFile(fset, name, sources[name], 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			var what string
			switch n := n.(type) {
			case *ast.CallExpr:
				if sel, ok := n.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Violate" {
					what = "reports a violation (Violate)"
				}
			case *ast.CompositeLit:
				switch typ := n.Type.(type) {
				case *ast.ArrayType:
					if isViolation(typ.Elt) && len(n.Elts) > 0 {
						what = "builds violations"
					}
				default:
					if isViolation(typ) {
						what = "builds a violation"
					}
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

// simSources reads package sim's non-test Go files.
func simSources(t *testing.T) map[string]string {
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
	if len(out) < 20 || out["world.go"] == "" {
		t.Fatalf("found %d source files: the test is not looking at the package", len(out))
	}
	return out
}

// TestWorldJudgesNothing fails when a file of package sim reports or builds a violation: a check
// needs an event to the oracle, and a checker in package oracle.
func TestWorldJudgesNothing(t *testing.T) {
	for _, r := range verdicts(t, simSources(t)) {
		t.Error(r)
	}
}

// TestWorldJudgesNothingBites adds to package sim a checker that reports a violation through the
// oracle and one that builds violations itself, and checks exactly their verdicts are reported.
func TestWorldJudgesNothingBites(t *testing.T) {
	const src = `package sim

func (w *world) checkPeeks(p *proc) []spec.Violation {
	if p.status == procRunning {
		w.or.Violate(w.at(), spec.CritS1, p.idx, "peeked")
	}
	v := &spec.Violation{Criterion: spec.CritS2}
	return []spec.Violation{*v, {Criterion: spec.CritS3}}
}
`
	sources := simSources(t)
	sources["check_peeks.go"] = src
	got := verdicts(t, sources)
	want := []string{"check_peeks.go:5:3: reports a violation (Violate)", "check_peeks.go:7:8: builds a violation", "check_peeks.go:8:9: builds violations"}
	if !slices.Equal(got, want) {
		t.Fatalf("reported %q; want %q", got, want)
	}
}
