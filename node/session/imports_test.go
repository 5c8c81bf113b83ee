package session

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestImportsOnlyStdlibAndNode enforces the package's import rule: the standard library (minus
// clocks, randomness, I/O and concurrency) and node/, nothing else.
func TestImportsOnlyStdlibAndNode(t *testing.T) {
	banned := map[string]bool{"time": true, "os": true, "net": true, "io": true, "sync": true,
		"context": true, "math/rand": true, "math/rand/v2": true, "crypto/rand": true, "unsafe": true}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			stdlib := !strings.Contains(strings.Split(path, "/")[0], ".")
			if path != "github.com/parsleysim/parsleysim/node" && (!stdlib || banned[path]) {
				t.Errorf("%s imports %q", name, path)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no source files checked")
	}
}
