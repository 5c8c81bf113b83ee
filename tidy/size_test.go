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

// packageCeilings are the packages over maxPackageLines, each held at a ceiling of its size
// when the ceiling was set, so it can shrink and never grow: sim/world, the world moved whole
// out of sim, which is being split into packages of their own (its heuristics, its explorer
// state). Whoever moves code out of one lowers its ceiling to the new size (the test logs when it can be lowered), and deletes the
// entry once the package is at most maxPackageLines (the test fails until then).
var packageCeilings = map[string]int{
	"sim/world": 4513,
}

// TestPackageSizes fails when a package (a directory of the repository with non-test Go files)
// has more than maxPackageLines non-test lines, or more than its ceiling (packageCeilings), and
// when a ceiling is no longer needed. It names the package and its size.
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
		n := sizes[dir]
		ceiling, capped := packageCeilings[dir]
		switch {
		case capped && n > ceiling:
			t.Errorf("package %s has %d non-test lines, over its ceiling of %d (and the project's limit of %d): move code out of it", dir, n, ceiling, maxPackageLines)
		case capped && n <= maxPackageLines:
			t.Errorf("package %s has %d non-test lines, within the project's limit of %d: delete its entry in packageCeilings", dir, n, maxPackageLines)
		case capped && n < ceiling:
			t.Logf("package %s has %d non-test lines, under its ceiling of %d: lower the ceiling to %d", dir, n, ceiling, n)
		case !capped && n > maxPackageLines:
			t.Errorf("package %s has %d non-test lines, over the project's limit of %d: split it", dir, n, maxPackageLines)
		}
	}
	for dir := range packageCeilings {
		if _, ok := sizes[dir]; !ok {
			t.Errorf("packageCeilings names %s, which is no package of the repository", dir)
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
