package world

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// TestDisabledCriteriaAreTestOnly: no code but tests sets or reads RunOptions.Disabled or
// sim.ExploreOptions.Disabled, outside the three files that declare them and hand them to the
// oracle and the one sweep option that measures what checks cost (scenarios.SweepConfig.Without,
// `simrun sweep --without`, whose every report names what it did not judge and which writes no
// result document), so no other command, and no check of the world's own, can switch a criterion
// off. The check parses every non-test Go file of the module for a selector or a struct-literal key
// named Disabled.
func TestDisabledCriteriaAreTestOnly(t *testing.T) {
	declaresDisabled := map[string]bool{ // the options that declare Disabled and hand it to the oracle
		"../../sim/world/run.go": true, "../../sim/world/world.go": true, "../../sim/explore.go": true,
		"../../scenarios/sweep.go": true, // SweepConfig.Without
	}
	root := "../.."
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && strings.HasPrefix(d.Name(), ".") && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || declaresDisabled[filepath.ToSlash(path)] {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.SelectorExpr:
				if n.Sel.Name == "Disabled" {
					t.Errorf("%s reads or sets a Disabled field: criteria are switched off only by tests", path)
				}
			case *ast.KeyValueExpr:
				if id, ok := n.Key.(*ast.Ident); ok && id.Name == "Disabled" {
					t.Errorf("%s sets a Disabled field: criteria are switched off only by tests", path)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
