package shape

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestShapesTable: every rule the package doc's table of shapes lists is declared in the file the
// table names, with a doc comment that starts with its name; and every exported function of this
// package (each a rule, or the rules of one choice in order) is a row of the table.
func TestShapesTable(t *testing.T) {
	src, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	rows := 0
	listed := map[string]bool{}
	inTable := false
	for _, line := range strings.Split(string(src), "\n") {
		fields := strings.Fields(strings.TrimPrefix(line, "//"))
		if !strings.HasPrefix(line, "//\t") {
			inTable = false
			continue
		}
		if len(fields) >= 3 && fields[0] == "rule" && fields[1] == "file" {
			inTable = true
			continue
		}
		if !inTable || len(fields) < 3 {
			continue
		}
		rows++
		rule, file := fields[0], fields[1]
		listed[rule] = true
		doc, ok := declDoc(t, filepath.Join("..", "..", "..", file), rule)
		switch {
		case !ok:
			t.Errorf("the shapes table names %s in %s, which does not declare it", rule, file)
		case !strings.HasPrefix(doc, rule+" "):
			t.Errorf("%s (%s): its doc comment %q does not start with its name", rule, file, doc)
		}
	}
	if rows < 20 {
		t.Fatalf("found %d rows in the shapes table: the test is not reading it", rows)
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	funcs := 0
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && fn.Name.IsExported() {
				funcs++
				if !listed[fn.Name.Name] {
					t.Errorf("%s (%s) is a rule of package shape missing from the shapes table", fn.Name.Name, path)
				}
			}
		}
	}
	if funcs < 5 {
		t.Fatalf("found %d exported functions in package shape: the test is not reading it", funcs)
	}
}

// declDoc returns the doc comment of the top-level function, method, constant, variable or type
// named name in the Go file at path, and whether the file declares it.
func declDoc(t *testing.T, path, name string) (string, bool) {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Name.Name == name {
				return d.Doc.Text(), true
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				var names []*ast.Ident
				var specDoc *ast.CommentGroup
				switch s := s.(type) {
				case *ast.ValueSpec:
					names, specDoc = s.Names, s.Doc
				case *ast.TypeSpec:
					names, specDoc = []*ast.Ident{s.Name}, s.Doc
				}
				for _, n := range names {
					if n.Name != name {
						continue
					}
					if specDoc == nil && len(d.Specs) == 1 {
						specDoc = d.Doc
					}
					return specDoc.Text(), true
				}
			}
		}
	}
	return "", false
}
