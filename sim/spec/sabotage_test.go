package spec

import (
	"strings"
	"testing"

	"github.com/parsleysim/parsleysim/node"
)

// TestSabotageRegistry: the registry holds every engine mode of node, the host's mode and the
// session tiers' modes, tiers in order and names unique; every name parses back to its mode, a
// host or session mode's String is its name, and an unknown name's error lists every name.
func TestSabotageRegistry(t *testing.T) {
	modes := SabotageModes()
	seen := map[string]bool{}
	engines, hosts, sessions := 0, 0, 0
	last := TierEngine
	for _, m := range modes {
		if seen[m.Name] || m.Name == "" || m.Name == "NONE" {
			t.Fatalf("mode name %q empty, reserved or registered twice", m.Name)
		}
		seen[m.Name] = true
		if m.Tier < last {
			t.Fatalf("%s (tier %d) listed after a mode of tier %d", m.Name, m.Tier, last)
		}
		last = m.Tier
		engine, host, err := ParseSabotage(m.Name)
		if err != nil || engine != m.Engine || host != m.Host {
			t.Fatalf("%s parses to %v, %v, %v; registered as %v, %v", m.Name, engine, host, err, m.Engine, m.Host)
		}
		switch m.Tier {
		case TierEngine:
			engines++
			if m.Engine.String() != m.Name || m.Host != HostHonest {
				t.Fatalf("engine mode %s: engine %s, host %s", m.Name, m.Engine, m.Host)
			}
		case TierHost, TierSession:
			if m.Tier == TierHost {
				hosts++
			} else {
				sessions++
			}
			if m.Host.String() != m.Name || m.Engine != node.SabotageNone {
				t.Fatalf("mode %s: String %s, engine %s", m.Name, m.Host, m.Engine)
			}
		default:
			t.Fatalf("mode %s has tier %d", m.Name, m.Tier)
		}
	}
	if engines != len(node.SabotageModes()) || hosts != 5 || sessions != 5 {
		t.Fatalf("%d engine, %d host and %d session modes; want %d, 5 and 5", engines, hosts, sessions, len(node.SabotageModes()))
	}
	if got, ok := LookupSabotage("TOKEN_SALVAGE"); !ok || got.Host != SessionTokenSalvage || got.Tier != TierSession {
		t.Fatalf("LookupSabotage(TOKEN_SALVAGE) = %+v, %v", got, ok)
	}
	for _, honest := range []string{"", "NONE"} {
		if e, h, err := ParseSabotage(honest); err != nil || e != node.SabotageNone || h != HostHonest {
			t.Fatalf("%q parses to %v, %v, %v; want the honest engine and host", honest, e, h, err)
		}
	}
	_, _, err := ParseSabotage("NOPE")
	if err == nil {
		t.Fatal("an unknown name parses")
	}
	for _, m := range modes {
		if !strings.Contains(err.Error(), m.Name) {
			t.Fatalf("the error for an unknown name does not list %s: %v", m.Name, err)
		}
	}
}
