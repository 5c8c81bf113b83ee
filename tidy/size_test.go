// Package tidy holds the project-wide checks of the code's shape that no one package can make for
// itself: no package over a size a reader can hold (TestPackageSizes), and no exported identifier
// whose only user is a test (TestExportsHaveNonTestUsers). It has no code of its own.
package tidy

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// root is the repository, seen from this package's directory.
const root = ".."

// maxPackageLines is the most non-test lines (every line of the package's non-test .go files,
// comments and blank lines included) a package of the project may have: a reader can hold a
// package of this size whole.
const maxPackageLines = 4500

// TestPackageSizes fails when a package (a directory of the repository with non-test Go files)
// has more than maxPackageLines non-test lines. It names the package and its size.
func TestPackageSizes(t *testing.T) {
	sizes := packageSizes(t)
	if len(sizes) < 10 || sizes["node"] == 0 || sizes["sim"] == 0 {
		t.Fatalf("found %d packages (node %d lines, sim %d): the test is not looking at the repository", len(sizes), sizes["node"], sizes["sim"])
	}
	dirs := make([]string, 0, len(sizes))
	for dir := range sizes {
		dirs = append(dirs, dir)
	}
	sort.Strings(dirs)
	for _, dir := range dirs {
		if n := sizes[dir]; n > maxPackageLines {
			t.Errorf("package %s has %d non-test lines, over the project's limit of %d: split it", dir, n, maxPackageLines)
		}
	}
}

// packageSizes returns the non-test line count of every directory of the repository that has
// non-test Go files, by path relative to the repository (slash-separated). Hidden directories
// and testdata are skipped, as the go command skips them.
func packageSizes(t *testing.T) map[string]int {
	t.Helper()
	sizes := map[string]int{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		sizes[filepath.ToSlash(rel)] += bytes.Count(src, []byte("\n"))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return sizes
}
