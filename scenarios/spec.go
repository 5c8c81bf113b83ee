package scenarios

import (
	"fmt"
	"strings"

	"github.com/parsleysim/parsleysim/sim"
	"github.com/parsleysim/parsleysim/sim/replay"
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/swarm"
)

// Spec names one run completely, as the command line and a replay file give it: scenario, seed,
// sabotage (an engine mode or a host mode such as RESET_PAST_LOG_START) and the overrides. The
// same Spec and the same choices are the same run.
type Spec struct {
	Scenario  string // registry name; "" means RandomName
	Seed      uint64
	Sabotage  string // engine or host sabotage mode name; "" or "NONE" is honest
	Steps     int    // safety-step override; 0 = from the seed
	Processes int    // scenario size override; 0 = the scenario's own
}

// Prepared is a Spec resolved into what sim.Run takes.
type Prepared struct {
	Spec     Spec
	Scenario *spec.Scenario
	Settings swarm.Settings
	Options  sim.RunOptions // sabotage set; sinks and streams left for the caller
}

// isHostSabotage reports whether name is the host's sabotage mode, which a replay file records on
// its own line (host-sabotage); engine and session tier modes go on the sabotage line.
func isHostSabotage(name string) bool {
	m, ok := spec.LookupSabotage(name)
	return ok && m.Tier == spec.TierHost
}

// hostSabotageNames returns the names of the host's sabotage modes, in the registry's order.
func hostSabotageNames() []string {
	var names []string
	for _, m := range spec.SabotageModes() {
		if m.Tier == spec.TierHost {
			names = append(names, m.Name)
		}
	}
	return names
}

// Normalize returns the spec with its defaults spelled out: scenario RandomName when empty, and
// "" for an honest run written "NONE". Two specs that run alike normalize alike.
func (s Spec) Normalize() Spec {
	if s.Scenario == "" {
		s.Scenario = RandomName
	}
	if s.Sabotage == "NONE" {
		s.Sabotage = ""
	}
	return s
}

// Prepare builds the scenario, expands the settings from the seed and applies the overrides.
// Errors name the bad input (unknown scenario or sabotage, a bad override).
func (s Spec) Prepare() (*Prepared, error) {
	s = s.Normalize()
	if s.Steps < 0 || s.Steps > spec.MaxSteps {
		return nil, fmt.Errorf("--steps must be 1-%d, got %d", spec.MaxSteps, s.Steps)
	}
	if s.Processes < 0 || s.Processes == 1 || s.Processes > spec.MaxProcesses {
		return nil, fmt.Errorf("--processes must be 2-%d (the documented maximum), got %d", spec.MaxProcesses, s.Processes)
	}
	engine, host, err := spec.ParseSabotage(s.Sabotage)
	if err != nil {
		return nil, err
	}
	scn, err := Build(s.Scenario, s.Seed, Options{Processes: s.Processes})
	if err != nil {
		return nil, err
	}
	set := swarm.ExpandSettings(s.Seed)
	if s.Steps > 0 {
		set.SafetySteps = s.Steps
	}
	// A large topology needs a longer liveness phase to quiesce: scale the bound with the
	// processes beyond the default topology's size.
	set.LivenessStepsMax = max(set.LivenessStepsMax, 200*len(scn.Processes))
	return &Prepared{Spec: s, Scenario: scn, Settings: set,
		Options: sim.RunOptions{Sabotage: engine, HostSabotage: host}}, nil
}

// ReplayOf records a finished run of this Spec as a replay file's contents.
func (s Spec) ReplayOf(res *spec.Result, hash string) *replay.File {
	s = s.Normalize()
	r := &replay.File{Scenario: s.Scenario, Seed: s.Seed, Steps: s.Steps, Processes: s.Processes,
		Verdict: res.Verdict, Hash: hash, Choices: res.Choices}
	if isHostSabotage(s.Sabotage) {
		r.HostSabotage = s.Sabotage
	} else {
		r.Sabotage = s.Sabotage
	}
	return r
}

// SpecOfReplay returns the Spec a replay file records. A file naming both an engine and a host
// sabotage, or a step budget or topology size no run can have, is an error naming the file's
// field (simrun never writes one).
func SpecOfReplay(r *replay.File) (Spec, error) {
	s := Spec{Scenario: r.Scenario, Seed: r.Seed, Steps: r.Steps, Processes: r.Processes, Sabotage: r.Sabotage}
	if r.Steps < 0 || r.Steps > spec.MaxSteps {
		return Spec{}, fmt.Errorf("steps %d: expected 0 (the seed's budget) or 1-%d", r.Steps, spec.MaxSteps)
	}
	if r.Processes < 0 || r.Processes == 1 || r.Processes > spec.MaxProcesses {
		return Spec{}, fmt.Errorf("processes %d: expected 0 (the scenario's own topology) or 2-%d", r.Processes, spec.MaxProcesses)
	}
	if r.HostSabotage != "" {
		if r.Sabotage != "" {
			return Spec{}, fmt.Errorf("replay names both sabotage %s and host-sabotage %s; a run has at most one", r.Sabotage, r.HostSabotage)
		}
		if !isHostSabotage(r.HostSabotage) {
			return Spec{}, fmt.Errorf("unknown host-sabotage %q (valid: %s)", r.HostSabotage, strings.Join(hostSabotageNames(), ", "))
		}
		s.Sabotage = r.HostSabotage
	}
	return s, nil
}
