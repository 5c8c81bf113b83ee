// Package docs holds the repository's own documents (PROTOCOL.md) and the tests that keep every
// committed document true to the repository: no path leaves it, and the protocol's list of
// criteria is the code's.
package docs

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// root is the repository, seen from this package's directory.
const root = ".."

// outside matches a reference to a file outside the repository: the shared folder the project was
// started from, an absolute path on a workstation, and files of the upstream Parsley repository
// the protocol was first read from. The pattern is assembled so this file does not match itself.
var outside = regexp.MustCompile(`\.\./` + `shared|\bshared/(seeds|SPEC|DESIGN|STYLE|hooks)\b|(^|[\s"'(=:])/work/|` +
	`\bJEPSEN\.md|\bDECISIONS\.md|llms-full\.txt|\.java\b`)

// mdLink matches a markdown link's target.
var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// repoFiles returns every file of the repository (relative to root) that a person reads: text
// files outside .git, results' raw benchmark output included.
func repoFiles(t *testing.T) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Name() == ".git" { // a directory, or in a worktree a file naming one
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if bytes.IndexByte(b, 0) >= 0 { // a binary file
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		out[rel] = b
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestNoPathLeavesTheRepository: no committed file refers to a file outside the repository, and
// every relative link of a markdown document names a file in it.
func TestNoPathLeavesTheRepository(t *testing.T) {
	files := repoFiles(t)
	if _, ok := files["docs/PROTOCOL.md"]; !ok {
		t.Fatal("docs/PROTOCOL.md is missing")
	}
	for path, data := range files {
		if path == "docs/protocol_test.go" {
			continue
		}
		for i, line := range strings.Split(string(data), "\n") {
			if m := outside.FindString(line); m != "" {
				t.Errorf("%s:%d refers to %q, outside the repository: %s", path, i+1, strings.TrimSpace(m), strings.TrimSpace(line))
			}
		}
		if !strings.HasSuffix(path, ".md") {
			continue
		}
		for _, m := range mdLink.FindAllStringSubmatch(string(data), -1) {
			target, _, _ := strings.Cut(m[1], "#")
			if target == "" || strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			resolved := filepath.Join(filepath.Dir(path), target)
			if strings.HasPrefix(resolved, "..") {
				t.Errorf("%s links to %s, outside the repository", path, m[1])
				continue
			}
			if _, err := os.Stat(filepath.Join(root, resolved)); err != nil {
				t.Errorf("%s links to %s, which is not in the repository", path, m[1])
			}
		}
	}
}

// criterionDecl matches the declaration of an oracle criterion in the code.
var criterionDecl = regexp.MustCompile(`Criterion\s*=\s*"([A-Z0-9_]+)"`)

// TestEveryCriterionIsDocumented: every criterion the code declares has its row in PROTOCOL.md's
// table of criteria (§6.1), and the table names none the code lacks.
func TestEveryCriterionIsDocumented(t *testing.T) {
	files := repoFiles(t)
	protocol := string(files["docs/PROTOCOL.md"])
	start := strings.Index(protocol, "### 6.1")
	end := strings.Index(protocol, "### 6.2")
	if start < 0 || end < start {
		t.Fatal("docs/PROTOCOL.md has no section 6.1 followed by 6.2")
	}
	table := protocol[start:end]
	inCode := map[string]bool{}
	for path, data := range files {
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			continue
		}
		for _, m := range criterionDecl.FindAllStringSubmatch(string(data), -1) {
			inCode[m[1]] = true
		}
	}
	if len(inCode) < 10 {
		t.Fatalf("found only %d criteria in the code: the declarations moved? (%v)", len(inCode), inCode)
	}
	for c := range inCode {
		if !strings.Contains(table, "| `"+c+"` |") {
			t.Errorf("criterion %s is declared in the code but has no row in docs/PROTOCOL.md §6.1", c)
		}
	}
	for _, m := range regexp.MustCompile("(?m)^\\| `([A-Z0-9_]+)` \\|").FindAllStringSubmatch(table, -1) {
		if !inCode[m[1]] {
			t.Errorf("docs/PROTOCOL.md §6.1 lists %s, which the code does not declare", m[1])
		}
	}
}
