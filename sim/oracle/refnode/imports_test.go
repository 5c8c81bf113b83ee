package refnode

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// TestImportsNothingItJudges: the model imports the standard library and the oracle's wire codec
// only, never node/ (whose engine it judges) nor anything else of the module.
func TestImportsNothingItJudges(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		parsed, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range parsed.Imports {
			path := strings.Trim(imp.Path.Value, `"`)
			first, _, _ := strings.Cut(path, "/")
			if strings.Contains(first, ".") && path != "github.com/parsleysim/parsleysim/sim/oracle/wire" {
				t.Errorf("%s imports %s: the reference node may import only the standard library and sim/oracle/wire", f, path)
			}
		}
	}
}
