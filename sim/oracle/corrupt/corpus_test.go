package corrupt_test

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/parsleysim/parsleysim/sim/oracle/corrupt"
	"github.com/parsleysim/parsleysim/sim/oracle/wire"
)

var update = flag.Bool("update", false, "rewrite the generated seeds of the node's FuzzDecode corpus")

// corpusDir is the node's FuzzDecode seed corpus.
const corpusDir = "../../../node/testdata/fuzz/FuzzDecode"

// corpusCasesPerShape is how many generated seeds each single-value shape gives the corpus.
const corpusCasesPerShape = 3

// generatedCorpus returns the generated seeds of the node's fuzz corpus, by file name: for each
// shape whose corruption is one non-null value (a fuzz input is one byte string, which cannot be
// null or two headers), corpusCasesPerShape draws from a fixed seed, each from one of three
// bases (the golden vector's causes, one cause with a two-byte partition, the empty frontier).
func generatedCorpus() map[string][]byte {
	bases := [][]wire.Cause{
		{
			{Channel: wire.Channel{Topic: wire.TopicID{0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x10}, Partition: 2}, Position: 41},
			{Channel: wire.Channel{Topic: wire.TopicID{0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x10}, Partition: 5}, Position: 7},
			{Channel: wire.Channel{Topic: wire.TopicID{0xf1, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x10}, Partition: 0}, Position: 9},
		},
		{{Channel: wire.Channel{Topic: wire.TopicID{0: 0x80, 15: 0x01}, Partition: 300}, Position: 1 << 40}},
		nil,
	}
	src := rand.New(rand.NewPCG(0x66757a7a, 0x636f72707573))
	out := map[string][]byte{}
	for _, s := range corrupt.Shapes {
		if s == corrupt.NullValue || s == corrupt.DuplicateHeader {
			continue
		}
		for i := range corpusCasesPerShape {
			c := corrupt.Make(s, src, bases[i%len(bases)])
			out[fmt.Sprintf("generated-%s-%d", s, i+1)] = c.Values[0]
		}
	}
	return out
}

// TestNodeFuzzCorpus: the node's FuzzDecode seed corpus holds exactly the generated seeds (next to
// the SPEC vectors, which are not generated). Regenerate with
//
//	go test ./sim/oracle/corrupt -run TestNodeFuzzCorpus -update
func TestNodeFuzzCorpus(t *testing.T) {
	want := generatedCorpus()
	if *update {
		old, _ := filepath.Glob(filepath.Join(corpusDir, "generated-*"))
		for _, f := range old {
			if err := os.Remove(f); err != nil {
				t.Fatal(err)
			}
		}
		for name, v := range want {
			body := "go test fuzz v1\n[]byte(" + strconv.Quote(string(v)) + ")\n"
			if err := os.WriteFile(filepath.Join(corpusDir, name), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	files, err := filepath.Glob(filepath.Join(corpusDir, "generated-*"))
	if err != nil {
		t.Fatal(err)
	}
	var have []string
	for _, f := range files {
		name := filepath.Base(f)
		have = append(have, name)
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		v, ok := want[name]
		if !ok {
			t.Errorf("%s is not a generated seed (rerun with -update)", name)
			continue
		}
		if got := string(raw); got != "go test fuzz v1\n[]byte("+strconv.Quote(string(v))+")\n" {
			t.Errorf("%s holds %q, want the value %x (rerun with -update)", name, strings.TrimSpace(got), v)
		}
	}
	for name := range want {
		if !slices.Contains(have, name) {
			t.Errorf("the corpus lacks %s (rerun with -update)", name)
		}
	}
}
