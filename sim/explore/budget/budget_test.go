package budget

import (
	"strings"
	"testing"

	"github.com/parsleysim/parsleysim/sim/spec"
)

// TestParseRefusesARepeatedKey: a key given twice is an error naming both entries, not a silent
// last value.
func TestParseRefusesARepeatedKey(t *testing.T) {
	_, err := Parse("msgs=2,crash=1,msgs=3")
	if err == nil || !strings.Contains(err.Error(), `"msgs=3": msgs is given twice (first "msgs=2")`) {
		t.Fatalf("Parse(msgs twice) = %v", err)
	}
}

// TestParseReadsWhatStringWrites parses budgets (aliases, spaces, zero counts), checks the limits
// they give and that String renders them in the canonical form Parse reads back, and that bad
// entries are errors naming the entry.
func TestParseReadsWhatStringWrites(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", ""},
		{"crash=1,msgs=4", "msgs=4,crash=1"},
		{" plain=2 , commit-crash=1,delete=0", "msgs=2,commitcrash=1"},
	} {
		b, err := Parse(c.in)
		if err != nil || b.String() != c.want {
			t.Fatalf("Parse(%q) = %q, %v; want %q", c.in, b.String(), err, c.want)
		}
		if again, err := Parse(b.String()); err != nil || again != b {
			t.Fatalf("Parse(%q) = %v, %v: not the budget it renders", b.String(), again, err)
		}
	}
	b, _ := Parse("msgs=4")
	if b.Limit(spec.ActProducePlain) != 4 || b.Limit(spec.ActCrash) != 0 || b.Limit(spec.ActFeed) != -1 ||
		!b.Allows(spec.ActFeed) || b.Allows(spec.ActCrash) {
		t.Fatalf("msgs=4: limits %d %d %d", b.Limit(spec.ActProducePlain), b.Limit(spec.ActCrash), b.Limit(spec.ActFeed))
	}
	for _, bad := range []string{"crash", "nosuch=1", "crash=-1", "crash=256", "crash=x"} {
		if _, err := Parse(bad); err == nil || !strings.Contains(err.Error(), bad) {
			t.Fatalf("Parse(%q) = %v, want an error naming the entry", bad, err)
		}
	}
}
