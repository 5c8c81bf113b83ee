package tidy

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// exportAllowed are the exported identifiers of the project that only tests use, kept exported on
// purpose, each with the reason. A key is the package's directory in the repository and the name
// ("node.ExtractCauses"), with the type for a method or a field ("node.State.HeldCount").
var exportAllowed = map[string]string{
	"node.ReasonOrderingStateLost":                hostRaised,
	"node.ReasonTaskWidthChanged":                 hostRaised,
	"node.ReasonSubstrateMisconfigured":           hostRaised,
	"node.ReasonHandlerReturnedNullEffects":       hostRaised,
	"node.ReasonStateAccessToUndeclaredStore":     hostRaised,
	"node.ReasonApplicationPayloadUndecodable":    hostRaised,
	"node.ReasonApplicationPayloadUnserializable": hostRaised,
	"node.ExtractCauses":                          "the node's public API: a host reads a record's causes with it",
	"node.State.HeldCount":                        "the node's public API: a host reports the depth of a committed state's holds",
	"node.Verdict.Deliverable":                    "the node's public API: the one question a caller of Decide asks of its verdict",
	"node.SettledTable.Receive":                   "the node's public API: a host that gates with a SettledTable of its own adds a channel to the received set when it is assigned",
	"node.SettledTable.Drop":                      "the node's public API: a host that gates with a SettledTable of its own removes a channel from the received set when it is revoked",
	"node.Engine.DeliveredPast":                   "the node's public API: a host reads the delivered past its emissions are clamped to",
	"node.Engine.FedUpTo":                         "the node's public API: a host asks how far a received or retained channel has been fed",
	"node.Engine.Received":                        "the node's public API: a host lists the received channels of the execution, in channel order",
	"node.Engine.SessionFloor":                    "the node's public API: a host reads a received channel's session floor",
	"node.Engine.Snapshot":                        "the node's public API: a host initialises from scratch or migrates with the whole ordering state in committed form",
	"node.State.Equal":                            "the node's public API: a host compares a committed ordering state with the one it read back from its store",
	"node/session.CausalPast.IsEmpty":             "the session token's public API: an application asks whether a past names anything before sending it along",
	"node/session.CausalPast.Equal":               "the session token's public API: an application compares two pasts (a token it kept and one it read back)",
	"node/statecodec.EncodeDelta":                 "the stored form of a delta, specified in the package doc beside the state's: a host that journals deltas instead of whole states writes them with it",
	"node/statecodec.DecodeDelta":                 "the stored form of a delta, specified in the package doc beside the state's: a host that journals deltas reads them back with it",
	"scenarios.Random":                            "the catalogue's public API: the random scenario of a seed as a value, for a Go test that runs or changes it",
	"sim/rapidchoose.New":                         "the rapid chooser's public API: a user's own property test drives the simulator's choices with it",
	"scenarios.RunSeed":                           "the catalogue's public API: one seed of a spec, as simrun --seed runs it, for a Go test of a scenario",
	"node.SettledTable.Len":                       "the node's public API: a host that gates with a SettledTable of its own asks how many channels it receives",
	"node.State.Clone":                            "the node's public API: a host snapshots its committed state before a step (CloneInto is the same into recycled storage)",
	"substrate.Model.Clone":                       "the model's public API: a user of the model forks a world's Kafka with it (CloneWithIDs and CloneInto are its variants)",
	"sim/oracle/wire.Families":                    "the reference decoder's refusal families, listed beside their constants so that a family added there reaches the corruption generator's test, which checks every family is generated",
}

// hostRaised is the reason the refusal reasons that only a host raises are exported: SPEC names
// them beside the engine's, and a host reports a refusal of its own under these names.
const hostRaised = "the node's public API: a refusal reason SPEC names that a host raises, not the engine"

// TestExportsHaveNonTestUsers fails when an exported identifier of a non-main package of the
// project (a package-level name, a method or a field of an exported type) is used by no non-test
// file of the project: one only tests use, and one nothing uses at all. It type-checks the whole
// module from source (go list -export gives the dependencies' export data) and names each such
// identifier and where it is declared. A method that makes its type implement an interface
// (of the module or of a package it imports) is taken as used through the interface, as fmt uses
// String, and so are an error type's Unwrap, Is and As, which package errors calls, and a field
// a struct tag names for an encoder. Make such an identifier unexported, move it into the test
// that uses it, delete it, or, for a deliberate public API, list it in exportAllowed with the
// reason.
func TestExportsHaveNonTestUsers(t *testing.T) {
	if testing.Short() {
		t.Skip("type-checks the whole module")
	}
	m := loadModule(t, root)
	bad, stale := m.testOnlyExports(exportAllowed)
	for _, e := range stale {
		t.Error(e)
	}
	for _, b := range bad {
		t.Error(b)
	}
	if len(m.declared) < 200 {
		t.Fatalf("only %d exported identifiers found: the test is not looking at the module", len(m.declared))
	}
}

// testOnlyExports returns the exported identifiers of m that no non-test code uses and allowed
// does not list, each with where it is declared and whether tests use it, sorted; and the
// entries of allowed that are wrong (one that non-test code uses, one without a reason, one that
// names nothing).
func (m *module) testOnlyExports(allowed map[string]string) (bad, stale []string) {
	for _, d := range m.declared {
		reason, listed := allowed[d.key]
		usedByCode := m.usedByCode[d.pos]
		switch {
		case listed && usedByCode:
			stale = append(stale, fmt.Sprintf("exportAllowed lists %s, which non-test code uses: delete the entry", d.key))
			continue
		case listed && reason == "":
			stale = append(stale, fmt.Sprintf("exportAllowed lists %s without a reason", d.key))
			continue
		case listed || usedByCode:
			continue
		}
		if d.method && m.implementsWith(d) {
			continue
		}
		if m.usedByTest[d.pos] {
			bad = append(bad, fmt.Sprintf("%s (%s): exported, and only tests use it", d.key, m.relPosition(d.pos)))
		} else {
			bad = append(bad, fmt.Sprintf("%s (%s): exported, and nothing uses it", d.key, m.relPosition(d.pos)))
		}
	}
	for key := range allowed {
		if !m.declaredKeys[key] {
			stale = append(stale, fmt.Sprintf("exportAllowed lists %s, which is no exported identifier of the project", key))
		}
	}
	sort.Strings(bad)
	sort.Strings(stale)
	return bad, stale
}

// TestExportsCheckBites runs the check on a module written for it: an identifier used only by its
// package's own tests, one used only by an external test, one nothing uses, and a method whose
// name an interface has but which makes no type implement it are reported; one that another
// package uses, one used within its package, an allowed one with a reason, a method that
// implements an interface, and an error's Unwrap are not; and an allowed entry that names
// nothing, or one that non-test code uses, is stale.
func TestExportsCheckBites(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module")
	}
	dir := t.TempDir()
	files := map[string]string{
		"go.mod": "module example.com/fixture\n\ngo 1.22\n",
		"a/a.go": `package a

func Used() int            { return own() }
func own() int             { return OwnUse() }
func OwnUse() int          { return 1 }
func InTest() int          { return 2 }
func InExternalTest() int  { return 3 }
func Allowed() int         { return 4 }
func Unused() int          { return 5 }

// Sizer is implemented by T, not by U, which has Size but not Unit.
type Sizer interface {
	Size() int
	Unit() string
}

type T struct{}

func (T) Size() int     { return 1 }
func (T) Unit() string  { return "B" }

type U struct{}

func (U) Size() int { return 2 }

type E struct{ err error }

func (e E) Error() string { return e.err.Error() }
func (e E) Unwrap() error { return e.err }

// Sizes uses the interface, T and U, so that only their methods' uses are in question.
func Sizes(s Sizer) (int, T, U, E) { return s.Size(), T{}, U{}, E{} }
`,
		"a/a_test.go": `package a

import "testing"

func TestIn(t *testing.T) { _ = InTest() + Allowed() }
`,
		"a/x_test.go": `package a_test

import (
	"testing"

	"example.com/fixture/a"
)

func TestOut(t *testing.T) { _ = a.InExternalTest() }
`,
		"b/b.go": `package main

import "example.com/fixture/a"

func main() { n, _, _, _ := a.Sizes(a.T{}); println(a.Used() + n) }
`,
	}
	for name, body := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	m := loadModule(t, dir)
	bad, stale := m.testOnlyExports(map[string]string{"a.Allowed": "a reason", "a.Gone": "a reason", "a.Used": "a reason"})
	var keys []string
	for _, b := range bad {
		key, _, _ := strings.Cut(b, " ")
		keys = append(keys, key)
	}
	if want := []string{"a.InExternalTest", "a.InTest", "a.U.Size", "a.Unused"}; !slices.Equal(keys, want) {
		t.Errorf("reported %v, want %v (all: %q)", keys, want, bad)
	}
	if len(stale) != 2 || !strings.Contains(stale[0], "a.Gone") || !strings.Contains(stale[1], "a.Used") {
		t.Errorf("stale entries %q, want one naming a.Gone and one naming a.Used", stale)
	}
}

// listed is what go list says of one package.
type listed struct {
	ImportPath   string
	Name         string
	Dir          string
	Export       string
	Standard     bool
	ForTest      string
	Module       *struct{ Path string }
	GoFiles      []string
	TestGoFiles  []string
	XTestGoFiles []string
}

// exported is one exported identifier declared in a non-test file of a non-main package.
type exported struct {
	key    string // "dir.Name" or "dir.Type.Name"
	name   string
	pos    token.Pos
	method bool
	recv   *types.Named // a method's receiver type
}

// module is the type-checked project: what it exports and which exported identifiers its
// non-test code and its tests use (by declaring position).
type module struct {
	fset         *token.FileSet
	path         string // the module path
	dir          string // the module's directory
	declared     []exported
	declaredKeys map[string]bool
	usedByCode   map[token.Pos]bool
	usedByTest   map[token.Pos]bool
	// interfaces are error and the interface types with methods declared at package level in
	// the module's packages and the packages they import, transitively.
	interfaces []*types.Interface
}

// loadModule type-checks every package of the module, its in-package tests with it and its
// external tests apart, the dependencies read from their export data.
func loadModule(t *testing.T, dir string) *module {
	t.Helper()
	cmd := exec.Command("go", "list", "-deps", "-test", "-export", "-json", "./...")
	cmd.Dir = dir
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var own []listed
	exports := map[string]string{}
	modulePath := ""
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var p listed
		if err := dec.Decode(&p); err != nil {
			t.Fatalf("go list output: %v", err)
		}
		if p.ForTest != "" || strings.HasSuffix(p.ImportPath, ".test") || strings.Contains(p.ImportPath, " ") {
			continue // a test variant: the plain package's entry has its files
		}
		if p.Module != nil && !p.Standard && p.Dir != "" && isWithin(p.Dir, dir) {
			own = append(own, p)
			modulePath = p.Module.Path
			continue
		}
		if p.Export != "" {
			exports[p.ImportPath] = p.Export
		}
	}
	if modulePath == "" {
		t.Fatal("go list found no package of the module")
	}

	m := &module{
		fset: token.NewFileSet(), path: modulePath, dir: dir, declaredKeys: map[string]bool{},
		usedByCode: map[token.Pos]bool{}, usedByTest: map[token.Pos]bool{},
	}
	gc := importer.ForCompiler(m.fset, "gc", func(path string) (io.ReadCloser, error) {
		file, ok := exports[path]
		if !ok {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(file)
	})
	checked := map[string]*types.Package{} // the module's packages, without their tests
	seenInterfaces := map[*types.Package]bool{}
	m.interfaces = append(m.interfaces, types.Universe.Lookup("error").Type().Underlying().(*types.Interface))
	imp := importerFunc(func(path string) (*types.Package, error) {
		if p, ok := checked[path]; ok {
			return p, nil
		}
		return gc.Import(path)
	})
	parse := func(dir string, names []string) []*ast.File {
		var files []*ast.File
		for _, name := range names {
			f, err := parser.ParseFile(m.fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, f)
		}
		return files
	}
	record := func(info *types.Info, into map[token.Pos]bool) {
		for _, obj := range info.Uses {
			if obj.Pkg() != nil && strings.HasPrefix(obj.Pkg().Path(), modulePath) && obj.Exported() {
				into[obj.Pos()] = true
			}
		}
	}
	newInfo := func() *types.Info {
		return &types.Info{Defs: map[*ast.Ident]types.Object{}, Uses: map[*ast.Ident]types.Object{}}
	}

	for _, p := range own { // go list -deps lists dependencies first
		code := parse(p.Dir, p.GoFiles)
		info := newInfo()
		conf := types.Config{Importer: imp}
		pkg, err := conf.Check(p.ImportPath, m.fset, code, info)
		if err != nil {
			t.Fatalf("type-checking %s: %v", p.ImportPath, err)
		}
		checked[p.ImportPath] = pkg
		record(info, m.usedByCode)
		m.interfaces = collectInterfaces(pkg, m.interfaces, seenInterfaces)
		if p.Name != "main" {
			m.declare(pkg, code, info)
		}

		// The tests, type-checked for their uses only: an error (a test package importing a
		// package that imports this one, which go test would rebuild against the test build)
		// leaves the uses found so far.
		tconf := types.Config{Importer: imp, Error: func(error) {}}
		testPkg := pkg
		if len(p.TestGoFiles) > 0 {
			tinfo := newInfo()
			testPkg, _ = tconf.Check(p.ImportPath, m.fset, append(slices.Clone(code), parse(p.Dir, p.TestGoFiles)...), tinfo)
			record(tinfo, m.usedByTest)
		}
		if len(p.XTestGoFiles) > 0 {
			xinfo := newInfo()
			xconf := types.Config{Error: func(error) {}, Importer: importerFunc(func(path string) (*types.Package, error) {
				if path == p.ImportPath {
					return testPkg, nil
				}
				return imp.Import(path)
			})}
			_, _ = xconf.Check(p.ImportPath+"_test", m.fset, parse(p.Dir, p.XTestGoFiles), xinfo)
			record(xinfo, m.usedByTest)
		}
	}
	return m
}

// declare records the exported identifiers that pkg's non-test files declare: package-level
// names, methods, and the named fields of struct types. An embedded field is used through the
// fields and methods it promotes, so it is left out; so is a field whose struct tag names it for
// an encoder (JSON), which reads it by reflection.
func (m *module) declare(pkg *types.Package, files []*ast.File, info *types.Info) {
	tagged := map[token.Pos]bool{}
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			if field, ok := n.(*ast.Field); ok && field.Tag != nil && strings.Contains(field.Tag.Value, "json:") {
				for _, name := range field.Names {
					tagged[name.Pos()] = true
				}
			}
			return true
		})
	}
	dir := strings.TrimPrefix(pkg.Path(), m.path+"/")
	for id, obj := range info.Defs {
		if obj == nil || !obj.Exported() || obj.Pkg() != pkg {
			continue
		}
		var key string
		method := false
		var recvType *types.Named
		switch o := obj.(type) {
		case *types.Func:
			sig := o.Signature()
			if sig.Recv() == nil {
				key = dir + "." + o.Name()
				break
			}
			recv := sig.Recv().Type()
			if ptr, ok := recv.(*types.Pointer); ok {
				recv = ptr.Elem()
			}
			named, ok := recv.(*types.Named)
			if !ok || !named.Obj().Exported() {
				continue // a method of an interface or of an unexported type
			}
			key = dir + "." + named.Obj().Name() + "." + o.Name()
			method = true
			recvType = named
		case *types.Var:
			if o.IsField() {
				if o.Embedded() || tagged[id.Pos()] {
					continue
				}
				owner := fieldOwner(pkg, o)
				if !token.IsExported(owner) {
					continue // a field of an unexported or unnamed struct type
				}
				key = dir + "." + owner + "." + o.Name()
				break
			}
			if o.Parent() != pkg.Scope() {
				continue
			}
			key = dir + "." + o.Name()
		default:
			if obj.Parent() != pkg.Scope() {
				continue
			}
			key = dir + "." + obj.Name()
		}
		m.declared = append(m.declared, exported{key: key, name: obj.Name(), pos: obj.Pos(), method: method, recv: recvType})
		m.declaredKeys[key] = true
	}
	sort.Slice(m.declared, func(i, j int) bool { return m.declared[i].key < m.declared[j].key })
}

// fieldOwner returns the name of the package-level named struct type that declares field f, or "".
func fieldOwner(pkg *types.Package, f *types.Var) string {
	for _, name := range pkg.Scope().Names() {
		tn, ok := pkg.Scope().Lookup(name).(*types.TypeName)
		if !ok {
			continue
		}
		st, ok := tn.Type().Underlying().(*types.Struct)
		if !ok {
			continue
		}
		for i := range st.NumFields() {
			if st.Field(i) == f {
				return name
			}
		}
	}
	return ""
}

// collectInterfaces appends to found the interface types with methods declared at package level
// in pkg and in the packages it imports, transitively, each package once.
func collectInterfaces(pkg *types.Package, found []*types.Interface, seen map[*types.Package]bool) []*types.Interface {
	if seen[pkg] {
		return found
	}
	seen[pkg] = true
	for _, name := range pkg.Scope().Names() {
		if tn, ok := pkg.Scope().Lookup(name).(*types.TypeName); ok {
			if iface, ok := tn.Type().Underlying().(*types.Interface); ok && iface.NumMethods() > 0 {
				found = append(found, iface)
			}
		}
	}
	for _, imp := range pkg.Imports() {
		found = collectInterfaces(imp, found, seen)
	}
	return found
}

// errorsCalls are the methods package errors calls on an error that has them.
var errorsCalls = []string{"Unwrap", "Is", "As"}

// implementsWith reports whether method d is used through an interface: its receiver type (or a
// pointer to it) implements an interface that has a method of d's name, or it is an error's
// method that package errors calls.
func (m *module) implementsWith(d exported) bool {
	ptr := types.NewPointer(d.recv)
	if slices.Contains(errorsCalls, d.name) && types.Implements(ptr, m.interfaces[0]) {
		return true
	}
	for _, iface := range m.interfaces {
		has := false
		for i := range iface.NumMethods() {
			if iface.Method(i).Name() == d.name {
				has = true
				break
			}
		}
		if has && (types.Implements(d.recv, iface) || types.Implements(ptr, iface)) {
			return true
		}
	}
	return false
}

// importerFunc makes a function a types.Importer.
type importerFunc func(path string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }

// relPosition renders p with its file relative to the module's directory.
func (m *module) relPosition(p token.Pos) string {
	pos := m.fset.Position(p)
	if abs, err := filepath.Abs(m.dir); err == nil {
		if rel, err := filepath.Rel(abs, pos.Filename); err == nil {
			pos.Filename = filepath.ToSlash(rel)
		}
	}
	return pos.String()
}

// isWithin reports whether dir is inside base.
func isWithin(dir, base string) bool {
	absBase, err := filepath.Abs(base)
	if err != nil {
		return false
	}
	rel, err := filepath.Rel(absBase, dir)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
