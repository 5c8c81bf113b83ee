package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"

	"github.com/parsleysim/parsleysim/scenarios"
)

// Result files (--result FILE on sweep and explore): one JSON document per shard, which
// `simrun merge` combines into the report of the whole run. A document is a header that says
// which run it is a part of, and the body the command's --json prints:
//
//	{"format": "simrun-result/1",
//	 "header": {"kind": "sweep", "tool_version": ..., "commit": ..., "scenario": ..., "sabotage": ...,
//	            "settings": {...}, "settings_digest": ..., "seeds": "1-1000", "shards": "2/4"},
//	 "body": {...}, "trace_hashes": [...]}
//
// Two documents are parts of one run when their headers are equal but for the shards they hold:
// same build, scenario or scope, settings, sabotage, seed range or budget, and shard count.
// "shards" is the set of shards of that count the document holds: "2/4" for one shard, "1-4/4"
// for a merge of all four (merge --result writes one). A merged document merges again like any.

// resultFormat names the document format; a reader refuses another.
const resultFormat = "simrun-result/1"

// maxResultBytes bounds a result file merge reads (a sweep of millions of seeds with trace hashes
// is tens of megabytes).
const maxResultBytes = 1 << 30

// resultDoc is one result file.
type resultDoc struct {
	Format string          `json:"format"`
	Header resultHeader    `json:"header"`
	Body   json.RawMessage `json:"body"`
	// TraceHashes are a sweep's per-seed trace hashes when it computed a trace digest: a digest
	// folded in seed order cannot be folded from the shards' digests, only from their hashes.
	TraceHashes []scenarios.SeedHash `json:"trace_hashes,omitempty"`
}

// resultHeader says which run a result file is a part of.
type resultHeader struct {
	Kind        string `json:"kind"` // "sweep" or "explore"
	ToolVersion string `json:"tool_version"`
	Commit      string `json:"commit"`
	Scenario    string `json:"scenario"` // the swept scenario, or the explored scope
	Sabotage    string `json:"sabotage"`
	// Settings are the flags that shape the result (overrides, budget, bounds); SettingsDigest is
	// a digest of them and of the kind, scenario, sabotage and seed range.
	Settings       map[string]string `json:"settings"`
	SettingsDigest string            `json:"settings_digest"`
	Seeds          string            `json:"seeds,omitempty"`  // a sweep's range, "A-B"
	Budget         string            `json:"budget,omitempty"` // an exploration's budget
	// Shards is the set of shards this document holds, of a count: "2/4", "1-3,5/8".
	Shards string `json:"shards"`
}

// newResultHeader fills the build, the digest and the shard of a header whose kind, scenario,
// sabotage, settings and range or budget are set.
func newResultHeader(h resultHeader, shard scenarios.Shard) resultHeader {
	h.ToolVersion, h.Commit = buildVersion()
	h.SettingsDigest = h.digest()
	if !shard.Sharded() {
		shard = scenarios.Shard{Index: 1, Total: 1}
	}
	h.Shards = formatShardSet([]int{shard.Index}, shard.Total)
	return h
}

// digest is 16 hex digits of a SHA-256 of everything the header says but the build and shards.
func (h resultHeader) digest() string {
	keys := make([]string, 0, len(h.Settings))
	for k := range h.Settings {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n%s\n%s\n%s\n%s\n", h.Kind, h.Scenario, h.Sabotage, h.Seeds, h.Budget)
	for _, k := range keys {
		fmt.Fprintf(&b, "%s=%s\n", k, h.Settings[k])
	}
	sum := sha256.Sum256([]byte(b.String()))
	return hex.EncodeToString(sum[:8])
}

// buildVersion returns the module version and the VCS revision the binary was built from
// ("+dirty" when the tree had changes), or "unknown" for what the build info does not say.
func buildVersion() (version, commit string) {
	version, commit = "unknown", "unknown"
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return
	}
	if info.Main.Version != "" {
		version = info.Main.Version
	}
	dirty := false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			commit = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if dirty && commit != "unknown" {
		commit += "+dirty"
	}
	return
}

// writeResult writes a result document to path, replacing the file atomically (a retried shard
// overwrites its own file and a reader never sees half of one).
func writeResult(path string, h resultHeader, body any, hashes []scenarios.SeedHash) error {
	raw, err := json.Marshal(body)
	if err != nil {
		return err
	}
	data, err := json.MarshalIndent(resultDoc{Format: resultFormat, Header: h, Body: raw, TraceHashes: hashes}, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	_, err = tmp.Write(append(data, '\n'))
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

// checkResultPath refuses a --result path that cannot be written (a directory, a missing
// directory), before any work is done.
func checkResultPath(path string) error { return checkOutputPath("--result", path) }

// checkOutputPath refuses the output path flag names when it cannot be written: a directory, or
// a file in a directory that does not exist. An empty path is no output.
func checkOutputPath(flag, path string) error {
	if path == "" {
		return nil
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return fmt.Errorf("%s %s is a directory", flag, path)
	}
	if fi, err := os.Stat(filepath.Dir(path)); err != nil || !fi.IsDir() {
		return fmt.Errorf("%s %s: directory %s does not exist", flag, path, filepath.Dir(path))
	}
	return nil
}

// resultExpected says what a result file is, for the errors about one that is not.
const resultExpected = "expected a result document, the JSON object 'simrun sweep --result' or 'simrun explore --result' writes"

// readResult reads and checks one result file: the format, a known kind, the shard set, a body.
func readResult(path string) (*resultDoc, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		return nil, errors.New("is a directory")
	}
	data, err := io.ReadAll(io.LimitReader(f, maxResultBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxResultBytes {
		return nil, fmt.Errorf("larger than %d bytes", maxResultBytes)
	}
	var doc resultDoc
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		var syntax *json.SyntaxError
		var typ *json.UnmarshalTypeError
		switch {
		case len(bytes.TrimSpace(data)) == 0:
			return nil, errors.New("empty file: " + resultExpected)
		case errors.As(err, &syntax):
			return nil, fmt.Errorf("not JSON at byte %d (%v): %s", syntax.Offset, err, resultExpected)
		case errors.Is(err, io.ErrUnexpectedEOF):
			return nil, errors.New("truncated: the JSON ends inside its object: " + resultExpected)
		case errors.As(err, &typ) && typ.Field == "":
			return nil, fmt.Errorf("a JSON %s: %s", typ.Value, resultExpected)
		case errors.As(err, &typ):
			return nil, fmt.Errorf("field %s holds a JSON %s, want a %s: %s", typ.Field, typ.Value, typ.Type, resultExpected)
		}
		return nil, fmt.Errorf("not a result document: %v", err)
	}
	if dec.More() {
		return nil, errors.New("not a result document: more than one JSON value")
	}
	switch {
	case doc.Format != resultFormat:
		return nil, fmt.Errorf("format %q, want %q", doc.Format, resultFormat)
	case doc.Header.Kind != "sweep" && doc.Header.Kind != "explore":
		return nil, fmt.Errorf("kind %q, want sweep or explore", doc.Header.Kind)
	case len(doc.Body) == 0 || string(doc.Body) == "null":
		return nil, errors.New("no body")
	}
	if _, _, err := parseShardSet(doc.Header.Shards); err != nil {
		return nil, fmt.Errorf("shards: %v", err)
	}
	return &doc, nil
}

// decodeStrict decodes one JSON value into v, refusing unknown fields and trailing data.
func decodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("more than one JSON value")
	}
	return nil
}

// formatShardSet renders sorted shard indexes of a count: "2/4", "1-3,5/8".
func formatShardSet(indexes []int, total int) string {
	var parts []string
	for i := 0; i < len(indexes); {
		j := i
		for j+1 < len(indexes) && indexes[j+1] == indexes[j]+1 {
			j++
		}
		if j == i {
			parts = append(parts, strconv.Itoa(indexes[i]))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d", indexes[i], indexes[j]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",") + "/" + strconv.Itoa(total)
}

// parseShardSet parses what formatShardSet writes: ascending, disjoint indexes in 1..total.
func parseShardSet(s string) (indexes []int, total int, err error) {
	list, ts, ok := strings.Cut(s, "/")
	total, terr := strconv.Atoi(ts)
	if !ok || terr != nil || total < 1 || total > scenarios.MaxShards || list == "" {
		return nil, 0, fmt.Errorf("%q: want a list of shards and their count, such as 2/4 or 1-3,5/8", s)
	}
	for _, part := range strings.Split(list, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, aerr := strconv.Atoi(lo)
		b := a
		var berr error
		if isRange {
			b, berr = strconv.Atoi(hi)
		}
		last := 0
		if len(indexes) > 0 {
			last = indexes[len(indexes)-1]
		}
		if aerr != nil || berr != nil || a <= last || b < a || b > total {
			return nil, 0, fmt.Errorf("%q: shards must ascend within 1..%d", s, total)
		}
		for i := a; i <= b; i++ {
			indexes = append(indexes, i)
		}
	}
	return indexes, total, nil
}
