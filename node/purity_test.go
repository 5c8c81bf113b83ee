package node

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// forbiddenImports are the packages node/, node/session/ and node/statecodec/ must never import: the engine is pure
// (no clock, randomness, I/O, concurrency) and never depends on the simulator or the substrate.
var forbiddenImports = []string{"time", "math/rand", "math/rand/v2", "crypto/rand", "os", "net", "sync", "io", "context"}

// forbiddenImportReason returns why path may not be imported by the pure packages, or "": a
// forbidden standard package or any package below it, or anything under the module's substrate/
// or sim/.
func forbiddenImportReason(path string) string {
	for _, f := range forbiddenImports {
		if path == f || strings.HasPrefix(path, f+"/") {
			return "impure standard package " + f
		}
	}
	const module = "github.com/parsleysim/parsleysim/"
	for _, dir := range []string{"substrate", "sim"} {
		if path == module+dir || strings.HasPrefix(path, module+dir+"/") {
			return "simulator package " + dir
		}
	}
	return ""
}

// TestPurityImports parses every non-test Go file of node/, node/session/ and node/statecodec/
// and fails on a forbidden import.
func TestPurityImports(t *testing.T) {
	files := 0
	for _, dir := range []string{".", "session", "statecodec"} {
		paths, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range paths {
			if strings.HasSuffix(p, "_test.go") {
				continue
			}
			src, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			for _, bad := range importViolations(t, p, src) {
				t.Errorf("%s imports %s", p, bad)
			}
			files++
		}
	}
	if files < 10 {
		t.Fatalf("only %d files checked: the test is not looking at the package", files)
	}
}

// importViolations returns the forbidden imports of one source file.
func importViolations(t *testing.T, name string, src []byte) []string {
	f, err := parser.ParseFile(token.NewFileSet(), name, src, parser.ImportsOnly)
	if err != nil {
		t.Fatalf("parse %s: %v", name, err)
	}
	var bad []string
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		if why := forbiddenImportReason(path); why != "" {
			bad = append(bad, path+" ("+why+")")
		}
	}
	return bad
}

// The checker fires on each forbidden import and passes the allowed ones.
func TestPurityCheckerBites(t *testing.T) {
	for _, imp := range []string{"time", "math/rand", "math/rand/v2", "crypto/rand", "os", "net", "net/http", "sync",
		"sync/atomic", "io", "context", "github.com/parsleysim/parsleysim/substrate", "github.com/parsleysim/parsleysim/sim",
		"github.com/parsleysim/parsleysim/sim/oracle"} {
		src := "package x\nimport _ \"" + imp + "\"\n"
		if len(importViolations(t, "x.go", []byte(src))) != 1 {
			t.Errorf("import %q not flagged", imp)
		}
	}
	for _, imp := range []string{"bytes", "encoding/binary", "slices", "github.com/parsleysim/parsleysim/node", "strings", "math/bits"} {
		src := "package x\nimport _ \"" + imp + "\"\n"
		if v := importViolations(t, "x.go", []byte(src)); len(v) != 0 {
			t.Errorf("import %q flagged: %v", imp, v)
		}
	}
}
