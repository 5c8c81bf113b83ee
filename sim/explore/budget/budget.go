// Package budget is the scope of an exploration: a budget of each fault and of external
// messages. Feeding, draining, committing, starting a process that is down and closing an open
// transaction are free (they are bounded by what there is to feed, drain, commit, start or
// close); every other action kind is off unless the budget gives it a count.
package budget

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/parsleysim/parsleysim/sim/spec"
)

// Budget is how many times each budgeted action kind may run along one path.
type Budget struct {
	limits [spec.NumActionKinds]int
}

// budgetKeys names each budgeted kind on the command line (--budget crash=1,truncate=1).
var budgetKeys = []struct {
	name string
	kind spec.ActionKind
}{
	{"msgs", spec.ActProducePlain}, {"stamped", spec.ActProduceStamped}, {"corrupt", spec.ActProduceCorrupt},
	{"crash", spec.ActCrash}, {"stop", spec.ActStop}, {"rewind", spec.ActRewind},
	{"truncate", spec.ActDeleteRecords}, {"retention", spec.ActRetention},
	{"delete", spec.ActDeleteTopic}, {"recreate", spec.ActRecreateTopic}, {"redeclare", spec.ActRedeclare},
	{"abort", spec.ActTxnAbort}, {"open", spec.ActTxnOpen}, {"migrate", spec.ActMigrate}, {"zombie", spec.ActZombie},
	{"swrite", spec.ActSessionWrite}, {"sread", spec.ActSessionRead}, {"damage", spec.ActTokenDamage},
	{"commitcrash", spec.ActCommitCrash},
}

// freeKinds are the kinds no budget limits.
var freeKinds = []spec.ActionKind{spec.ActFeed, spec.ActDrain, spec.ActCommit, spec.ActStart, spec.ActTxnClose}

// budgetAliases are other names accepted for a key.
var budgetAliases = map[string]string{"plain": "msgs", "messages": "msgs", "restart": "stop",
	"delete-records": "truncate", "deletion": "delete", "recreation": "recreate", "aborted": "abort",
	"session-write": "swrite", "session-read": "sread", "token-damage": "damage", "commit-crash": "commitcrash"}

// Limit returns kind k's budget (for a free kind, -1).
func (b Budget) Limit(k spec.ActionKind) int {
	if slices.Contains(freeKinds, k) {
		return -1
	}
	return b.limits[k]
}

// Allows reports whether kind k may run at all.
func (b Budget) Allows(k spec.ActionKind) bool { return b.Limit(k) != 0 }

// Parse parses "crash=1,truncate=1,msgs=4" (keys: msgs, stamped, corrupt, crash, stop,
// rewind, truncate, retention, delete, recreate, redeclare, abort, open, migrate, zombie,
// commitcrash — a crash between two substrate calls of a commit, each of its points a branch —
// and the session actions swrite, sread and damage, which act only in a scope with sessions). A
// bad key or count is an error naming it.
func Parse(s string) (Budget, error) {
	var b Budget
	if strings.TrimSpace(s) == "" {
		return b, nil
	}
	given := map[spec.ActionKind]string{}
	for _, part := range strings.Split(s, ",") {
		key, val, ok := strings.Cut(strings.TrimSpace(part), "=")
		if a, ok := budgetAliases[key]; ok {
			key = a
		}
		i := slices.IndexFunc(budgetKeys, func(e struct {
			name string
			kind spec.ActionKind
		}) bool {
			return e.name == key
		})
		if !ok || i < 0 {
			return b, fmt.Errorf("budget entry %q: want KEY=N with KEY one of %s", part, budgetKeyNames())
		}
		n, err := strconv.Atoi(val)
		if err != nil || n < 0 || n > 255 {
			return b, fmt.Errorf("budget entry %q: the count must be an integer in 0..255", part)
		}
		k := budgetKeys[i].kind
		if prev, dup := given[k]; dup {
			return b, fmt.Errorf("budget entry %q: %s is given twice (first %q)", part, budgetKeys[i].name, prev)
		}
		given[k] = part
		b.limits[k] = n
	}
	return b, nil
}

func budgetKeyNames() string {
	names := make([]string, len(budgetKeys))
	for i, e := range budgetKeys {
		names[i] = e.name
	}
	return strings.Join(names, ", ")
}

// String renders the non-zero budgets as Parse reads them ("" for none).
func (b Budget) String() string {
	var parts []string
	for _, e := range budgetKeys {
		if n := b.limits[e.kind]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s=%d", e.name, n))
		}
	}
	return strings.Join(parts, ",")
}
