package scenariofile

import (
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/parsleysim/parsleysim/sim/spec"
)

// header declares a small world the error cases below build on.
const header = "# story\ntopic e partitions=1 external\ntopic c partitions=2\nprocess p receives=e sends=c\n"

// manyProcesses declares n processes receiving topic e.
func manyProcesses(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "process p%d receives=e\n", i)
	}
	return b.String()
}

// manySubscriptions declares 100 topics and enough processes receiving all of them to cross
// spec.MaxSubscriptions.
func manySubscriptions() string {
	var b strings.Builder
	var names []string
	for i := range 100 {
		fmt.Fprintf(&b, "topic t%d\n", i)
		names = append(names, fmt.Sprintf("t%d", i))
	}
	for i := range spec.MaxSubscriptions/100 + 1 {
		fmt.Fprintf(&b, "process p%d receives=%s\n", i, strings.Join(names, ","))
	}
	return b.String()
}

// TestParseFileErrors: every bad line is reported with the file, its line and what was expected.
func TestParseFileErrors(t *testing.T) {
	cases := []struct {
		name, text, want string
	}{
		{"unknown verb", header + "frobnicate p\n", "x.txt:5: unknown line \"frobnicate\": expected topic, process, settings, expect or an action"},
		{"action first", "topic e\nfeed p\n", "x.txt:2: \"feed\" before the declarations"},
		{"unknown topic", header + "feed p topic=zz\n", "x.txt:5: topic=zz: expected a declared topic (declared: e, c)"},
		{"unknown process", header + "drain q\n", "x.txt:5: drain q: expected a declared process (declared: p)"},
		{"missing process", header + "drain\n", "x.txt:5: drain: expected a process name after the verb"},
		{"bad partitions", "topic e partitions=0\n", "x.txt:1: partitions=0: expected an integer in 1..65536"},
		{"bad topic word", "topic e big\n", "x.txt:1: unexpected \"big\" in topic e: expected partitions=N, external or deletion-only"},
		{"deletion-only internal", "topic e deletion-only\n", "x.txt:1: topic e is deletion-only but not external: only external topics are deleted"},
		{"duplicate topic", "topic e\ntopic e\n", "x.txt:2: topic \"e\" declared twice"},
		{"unknown process key", "topic e\nprocess p receives=e colour=red\n", "x.txt:2: unexpected \"colour=red\" in process"},
		{"rewind needs offset", header + "rewind p topic=e\n", "x.txt:5: rewind: expected offset=..."},
		{"redeclare both", header + "redeclare p add=e remove=e\n", "x.txt:5: redeclare: expected exactly one of add=TOPIC or remove=TOPIC"},
		{"bad cause", header + "produce topic=e causes=c@3\n", "x.txt:5: causes=c@3: expected TOPIC/PARTITION@OFFSET pairs"},
		{"bad header hex", header + "produce topic=e header=zz\n", "x.txt:5: header=zz: expected the header value as hex bytes"},
		{"bad label", header + "produce topic=e value=a/b\n", "x.txt:5: value=a/b: expected a label"},
		{"stamped needs observe", header + "produce-stamped topic=e\n", "x.txt:5: produce-stamped: expected observe=..."},
		{"txn records", header + "txn-abort topic=e records=0\n", "x.txt:5: records=0: expected an integer >= 1"},
		{"observe incarnation", header + "produce-stamped topic=e observe=e#x/0@1\n", "x.txt:5: observe=e#x/0@1: expected one TOPIC[#INCARNATION]/PARTITION@OFFSET"},
		{"truncate without before", header + "delete-records topic=e\n", "x.txt:5: delete-records: expected before=..."},
		{"txn-close", header + "txn-close maybe\n", "x.txt:5: txn-close: expected txn-close commit or txn-close abort"},
		{"no actions", header, "x.txt: expected at least one action"},
		{"expect kind", header + "drain p\nexpect colour p: red\n", "x.txt:6: expect colour: unknown kind"},
		{"expect held body", header + "drain p\nexpect held p: e/0@0 maybe\n", "x.txt:6: expected: expect held PROCESS: none | HEAD"},
		{"expect blocker", header + "drain p\nexpect held p: e/0@0 blocked by c/0 needs=1\n", "x.txt:6: blocker \"c/0 needs=1\": expected CHAN required=N settled=N|none"},
		{"expect state", header + "drain p\nexpect state p: sleeping\n", "x.txt:6: expected: expect state PROCESS: running | down | refused [REASON]"},
		{"expect verdict", header + "drain p\nexpect verdict: fine\n", "x.txt:6: expected: expect verdict: pass | violation"},
		{"restart-invisible first", header + "expect restart-invisible p\ndrain p\n", "x.txt:5: expect restart-invisible must follow an action"},
		{"action after liveness", header + "drain p\nliveness\ndrain p\n", "x.txt:7: \"drain\" after the liveness line"},
		{"settings key", "settings speed=9\n", "x.txt:1: unexpected \"speed=9\" in settings"},
		{"external send", "topic e external\nprocess p receives=e sends=e\ndrain p\n", "x.txt:2: sends=e: topic e is external (written by the script's producers)"},
		{"topic received twice", "topic e external\nprocess p receives=e,e\ndrain p\n", "x.txt:2: receives=e,e: topic e is listed twice"},
		{"topic sent twice", header + "process q receives=e sends=c,c\n", "x.txt:5: sends=c,c: topic c is listed twice"},
		{"settings twice", "settings seed=1\nsettings liveness=0 seed=2\n", "x.txt:2: seed= given twice in settings"},
		{"unknown criterion", header + "drain p\nexpect verdict: violation S1 S99\n", "x.txt:6: expect verdict: violation S99: unknown criterion S99; expected some of S1, S2,"},
		{"produce partition beyond", header + "produce topic=e partition=1\n", "x.txt:5: partition=1: topic e has 1 partition (only partition 0)"},
		{"truncate partition beyond", header + "delete-records topic=c partition=2 before=1\n", "x.txt:5: partition=2: topic c has 2 partitions (0..1)"},
		{"txn partition beyond", header + "txn-open topic=c partition=5\n", "x.txt:5: partition=5: topic c has 2 partitions (0..1)"},
		{"cause partition beyond", header + "produce topic=e causes=e/0@0,c/2@0\n", "x.txt:5: causes=c/2@0: topic c has 2 partitions (0..1)"},
		{"observe partition beyond", header + "produce-stamped topic=e observe=c/3@0\n", "x.txt:5: observe=c/3@0: topic c has 2 partitions (0..1)"},
		{"session write partition beyond", header + "session clients=1 writes=e\nmodel m partitions=p\nsession-write client=0 topic=e partition=1\n", "x.txt:7: partition=1: topic e has 1 partition (only partition 0)"},
		{"delete an internal topic", header + "delete-topic c\n", "x.txt:5: delete-topic c: topic c is not external: only external topics are deleted or recreated"},
		{"recreate an internal topic", header + "recreate-topic c\n", "x.txt:5: recreate-topic c: topic c is not external"},
		{"session without a model", header + "session clients=1 writes=e\ndrain p\n", "x.txt:5: session: expected at least one model line after it"},
		{"session writes an internal topic", header + "session clients=1 writes=c\n", "x.txt:5: writes=c: topic c is not external"},
		{"model twice", header + "session clients=1 writes=e\nmodel m partitions=p\nmodel m partitions=p\n", "x.txt:7: model \"m\" declared twice"},
		{"model with an empty partition", header + "session clients=1 writes=e\nmodel m partitions=p//p\n", "x.txt:6: model m: partitions=p//p: expected the processes of each partition joined by +"},
		{"session-read of an unknown model", header + "session clients=1 writes=e\nmodel m partitions=p\nsession-read client=0 model=zz\n", "x.txt:7: session-read: model=zz: expected a declared model (declared: m)"},
		{"session client beyond", header + "session clients=2 writes=e\nmodel m partitions=p\ntoken-damage client=2 how=truncated\n", "x.txt:7: client=2: the session line declares 2 client(s), numbered 0..1"},
		{"session-write outside writes", "topic e external\ntopic f external\nprocess p receives=e\nsession clients=1 writes=e\nmodel m partitions=p\nsession-write client=0 topic=f\n", "x.txt:6: session-write: topic=f: expected a topic of the session line's writes=e"},
		{"argument to crash", header + "crash p q\n", "x.txt:5: unexpected \"q\" in crash: it takes no arguments"},
		// Names as Kafka (and the substrate) accept them, and the documented limits.
		{"topic .", "topic . external\n", "x.txt:1: topic name \".\" (1 bytes): expected 1-249 letters"},
		{"topic ..", "topic .. external\n", "x.txt:1: topic name \"..\" (2 bytes): expected 1-249 letters"},
		{"topic of 250", "topic " + strings.Repeat("a", 250) + "\n", "x.txt:1: topic name \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...\" (250 bytes): expected 1-249"},
		{"topic é", "topic \u00e9\n", "x.txt:1: topic name \"\u00e9\" (2 bytes)"},
		{"process of 250", "topic e\nprocess " + strings.Repeat("q", 250) + " receives=e\n", "x.txt:2: process name \"qqq"},
		{"model ..", "topic e external\nprocess p receives=e\nsession clients=1 writes=e\nmodel .. partitions=p\n", "x.txt:4: read model name \"..\""},
		{"NUL in a process name", header + "drain p\x00\n", "x.txt:5: byte 0x00 at column 8 is not text: expected a scenario file, UTF-8 text"},
		{"a binary file", "\xff\xa1\x12\xcdz\n", "x.txt:1: byte 0xff at column 1 is not text"},
		{"a binary comment", header + "# \xff\n", "x.txt:5: byte 0xff at column 3 is not text"},
		{"dot versus underscore", "topic a.b\ntopic a_b\n", "x.txt:2: topic \"a_b\" differs from topic \"a.b\" only in '.' versus '_'"},
		{"partitions above", "topic e partitions=65537\n", "x.txt:1: partitions=65537: expected an integer in 1..65536"},
		{"partitions 2^63", "topic e partitions=9223372036854775808\n", "x.txt:1: partitions=9223372036854775808: expected an integer in 1..65536"},
		{"channels above", wideTopics(1<<20/65536 + 1), fmt.Sprintf("x.txt:%d: more than 1048576 channels", 1<<20/65536+1)},
		{"processes above", "topic e\n" + manyProcesses(spec.MaxProcesses+1), "x.txt:64002: more than 64000 processes (the limit)"},
		{"subscriptions above", manySubscriptions(), "x.txt:2601: more than 250000 received and sent topics over every process (the limit)"},
		{"task above", "topic e\nprocess p receives=e task=65536\n", "x.txt:2: task=65536: expected an integer in 0..65535"},
		{"hops above", "topic e\nprocess p receives=e hops=256\n", "x.txt:2: hops=256: expected an integer in 1..255"},
		{"feed n above", header + "feed p n=1000000000\n", "x.txt:5: more than 100000 actions (the limit; repeats and transaction records count)"},
		{"feeds add up", header + "feed p n=60000\nfeed p n=60000\n", "x.txt:6: more than 100000 actions"},
		{"txn records above", header + "txn-open topic=e records=100001\n", "x.txt:5: more than 100000 actions"},
		{"partition above", header + "produce topic=e partition=2147483648\n", "x.txt:5: partition=2147483648: expected an integer in 0..65535"},
		{"cause partition above", header + "produce topic=e causes=c/4294967296@0\n", "x.txt:5: causes=c/4294967296@0: expected TOPIC/PARTITION@OFFSET"},
		{"cause at the reserved position", header + "produce topic=e causes=e/0@9223372036854775807\n", "x.txt:5: causes=e/0@9223372036854775807: expected TOPIC/PARTITION@OFFSET pairs separated by commas, offsets 0..9223372036854775806"},
		{"incarnation above", header + "produce-stamped topic=e observe=e#9223372036854775807/0@0\n", "x.txt:5: observe=e#9223372036854775807/0@0: expected one"},
		{"topic after an action", header + "drain p\ntopic x\n", "x.txt:6: \"topic\" after the first action: declarations (topic, process, settings, session, model) come first"},
		{"settings after an action", header + "drain p\nsettings seed=2\n", "x.txt:6: \"settings\" after the first action"},
		{"liveness above", "settings liveness=1000001\n", "x.txt:1: liveness=1000001: expected an integer in 0..1000000"},
		{"step-us above", "settings step-us=9223372036854775807\n", "x.txt:1: step-us=9223372036854775807: expected an integer in 0..3600000000"},
		{"session clients above", "topic e external\nprocess p receives=e\nsession clients=10001 writes=e\n", "x.txt:3: session: clients=10001 is above 10000"},
		{"restart checks above", header + strings.Repeat("drain p\nexpect restart-invisible p\n", 17), "x.txt:38: more than 16 expect restart-invisible lines"},
		{"lines above", header + strings.Repeat("\n", 100_000), "x.txt:100001: more than 100000 lines before the story (the limit)"},
		{"bytes above", header + "# " + strings.Repeat("x", MaxFileBytes), "x.txt: the file is larger than 67108864 bytes (the limit)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseFile("x.txt", []byte(c.text))
			if err == nil {
				t.Fatalf("parsed; want error %q", c.want)
			}
			if !strings.HasPrefix(err.Error(), c.want) {
				t.Fatalf("error %q\nwant prefix %q", err, c.want)
			}
		})
	}
}

// TestParseFileForms: a file using every action and expectation form parses into the actions
// and expectations it spells.
func TestParseFileForms(t *testing.T) {
	text := header + `settings seed=7 liveness=0 step-us=5 hops=3 budget=4096
produce topic=e key=k value=A causes=c/1@4,e/0@0
produce topic=e header=0100
produce-stamped topic=e observe=e/0@0
produce-corrupt topic=e
txn-abort topic=e
txn-open topic=e
txn-close abort
feed p topic=e n=2
drain p
expect held p: e/0@0:A (2 held) blocked by c/1 required=4 settled=none; e/0 required=0 settled=3
expect causes e/0@1: none
commit p
crash p
start p
stop p
rewind p topic=e offset=1
redeclare p remove=e
delete-records topic=e before=1
retention
delete-topic e
recreate-topic e
migrate p
zombie p
expect record c:A: key=k value=A ts=12
liveness
expect delivered p: A e/0@1 c#1/0@2:B
expect verdict: violation S1 LIVENESS
`
	f, err := ParseFile("forms.txt", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	s := f.Scenario.Script
	if len(s) != 22 || s[7].Kind != spec.ActFeed || s[8].Kind != spec.ActFeed || s[21].Kind != spec.ActZombie {
		t.Fatalf("script of %d actions: %+v", len(s), s)
	}
	wantProduce := spec.ScriptedAction{Kind: spec.ActProducePlain, Topic: "e", Key: []byte("k"), Value: []byte("\x00A"),
		Causes: []spec.CauseRef{{Topic: "c", Partition: 1, Position: 4}, {Topic: "e", Position: 0}}}
	if !reflect.DeepEqual(s[0], wantProduce) {
		t.Fatalf("produce: %+v\nwant %+v", s[0], wantProduce)
	}
	if f.Settings.Seed != 7 || f.Settings.LivenessStepsMax != 0 || f.Scenario.MetadataBudgetBytes != 4096 {
		t.Fatalf("settings %+v budget %d", f.Settings, f.Scenario.MetadataBudgetBytes)
	}
	held := f.Expects[0]
	if held.Kind != ExpectHeld || held.After != 9 || held.Count != 2 || len(held.Blockers) != 2 || held.Record.Label != "A" || held.End {
		t.Fatalf("held expectation %+v", held)
	}
	last := f.Expects[len(f.Expects)-2]
	if !last.End || len(last.Refs) != 3 || last.Refs[2].Incarn != 1 || last.Refs[2].Label != "B" || last.Refs[1].Position != 1 {
		t.Fatalf("delivered expectation %+v", last)
	}
	if v := f.Expects[len(f.Expects)-1]; v.Verdict != "violation" || !reflect.DeepEqual(v.Criteria, []string{"S1", "LIVENESS"}) {
		t.Fatalf("verdict expectation %+v", v)
	}
}

// TestDeletionOnlyTopicLine: "deletion-only" marks an external topic (spec.TopicSpec.DeletionOnly)
// and Format writes it back.
func TestDeletionOnlyTopicLine(t *testing.T) {
	text := "topic e external\ntopic d partitions=2 external deletion-only\nprocess p receives=d,e\ndrain p\n"
	f, err := ParseFile("d.txt", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	want := []spec.TopicSpec{{Name: "e", Partitions: 1, External: true}, {Name: "d", Partitions: 2, External: true, DeletionOnly: true}}
	if !reflect.DeepEqual(f.Scenario.Topics, want) {
		t.Fatalf("topics %+v\nwant %+v", f.Scenario.Topics, want)
	}
	out := Format(f.Scenario, f.Settings)
	if !strings.Contains(string(out), "topic d partitions=2 external deletion-only\n") {
		t.Fatalf("written file lost the deletion-only mark:\n%s", out)
	}
}

// TestCorruptHeadersRoundTrip: a produce-corrupt's recorded header values (hex, empty, null; one
// or several) are written by FormatAction and read back by the parser as they were.
func TestCorruptHeadersRoundTrip(t *testing.T) {
	for _, values := range [][][]byte{{{0x01, 0x81, 0x00}}, {nil}, {{}}, {{0x01, 0x00}, nil}} {
		a := spec.ScriptedAction{Kind: spec.ActProduceCorrupt, Topic: "e", Headers: values}
		line := FormatAction(a)
		f, err := ParseFile("corrupt.txt", []byte(header+line+"\n"))
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		if got := f.Scenario.Script[0]; !reflect.DeepEqual(got, a) {
			t.Fatalf("%q parses as %+v, want %+v", line, got, a)
		}
	}
	if _, err := ParseFile("bad.txt", []byte(header+"produce-corrupt topic=e headers=0100,zz\n")); err == nil ||
		!strings.Contains(err.Error(), "headers=0100,zz") {
		t.Fatalf("a bad value: %v", err)
	}
}

// wideTopics is n topic lines of 65,536 partitions each.
func wideTopics(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "topic t%d partitions=65536\n", i)
	}
	return b.String()
}

// TestCriteriaAreTheCodes: the criteria an expect verdict line may name are those the code
// declares (every `Criterion = "NAME"` outside tests), no more and no fewer.
func TestCriteriaAreTheCodes(t *testing.T) {
	decl := regexp.MustCompile(`Criterion\s*=\s*"([A-Z0-9_]+)"`)
	inCode := map[string]bool{}
	err := filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		data, err := os.ReadFile(path)
		for _, m := range decl.FindAllStringSubmatch(string(data), -1) {
			inCode[m[1]] = true
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	known := map[string]bool{}
	for _, c := range criteria {
		known[string(c)] = true
	}
	if len(inCode) < 20 || !reflect.DeepEqual(inCode, known) {
		t.Errorf("the code declares the criteria %v; expect verdict knows %v", slices.Sorted(maps.Keys(inCode)), slices.Sorted(maps.Keys(known)))
	}
}
