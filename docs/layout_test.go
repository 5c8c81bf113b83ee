package docs

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// layoutRow matches a row of the README's layout table: the directory it names, as
// "| `sim/swarm/` | ...".
var layoutRow = regexp.MustCompile("(?m)^\\| `([^`]+)/` \\|")

// TestReadmeLayoutNamesEveryPackage fails when a directory of the repository with Go code (a
// package, tests only or not) has no row in the README's layout table, or when a row names a
// directory the repository does not have, so the table a newcomer reads first stays true as
// packages move. Test data and hidden directories do not count.
func TestReadmeLayoutNamesEveryPackage(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, m := range layoutRow.FindAllStringSubmatch(string(readme), -1) {
		listed[m[1]] = true
	}
	if len(listed) < 10 {
		t.Fatalf("the README's layout table has %d rows: the test is not reading it", len(listed))
	}
	packages := map[string]bool{}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() && path != root && (strings.HasPrefix(name, ".") || name == "testdata") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(name, ".go") {
			rel, err := filepath.Rel(root, filepath.Dir(path))
			if err != nil {
				return err
			}
			packages[filepath.ToSlash(rel)] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var missing, stale []string
	for dir := range packages {
		if !listed[dir] && dir != "." {
			missing = append(missing, dir)
		}
	}
	for dir := range listed {
		if _, statErr := os.Stat(filepath.Join(root, dir)); statErr != nil {
			stale = append(stale, dir)
		}
	}
	sort.Strings(missing)
	sort.Strings(stale)
	for _, dir := range missing {
		t.Errorf("package %s/ has no row in the README's layout table", dir)
	}
	for _, dir := range stale {
		t.Errorf("the README's layout table names %s/, which is not in the repository", dir)
	}
}

// goFileRef matches a Go source path quoted in a document, such as `sim/world/host*.go` or
// `cmd/simrun/badinput_test.go`.
var goFileRef = regexp.MustCompile("`((?:sim|node|scenarios|substrate|cmd|benchmarks|deploy|tidy|docs)/[A-Za-z0-9_./*-]*\\.go)`")

// TestDocumentsNameExistingFiles fails when the README, a document under docs/ or the
// scenario-file reference names a Go file (or a glob of them) that the repository does not
// have, so a reader sent to a file finds it after code moves between packages.
func TestDocumentsNameExistingFiles(t *testing.T) {
	docs := []string{"README.md", "docs/PROTOCOL.md", "scenarios/scenariofile/FORMAT.md"}
	refs := 0
	for _, doc := range docs {
		data, err := os.ReadFile(filepath.Join(root, doc))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range goFileRef.FindAllStringSubmatch(string(data), -1) {
			refs++
			matches, err := filepath.Glob(filepath.Join(root, m[1]))
			if err != nil || len(matches) == 0 {
				t.Errorf("%s names %s, which the repository does not have", doc, m[1])
			}
		}
	}
	if refs < 10 {
		t.Fatalf("%d Go file references in %v: the test is not reading them", refs, docs)
	}
}
