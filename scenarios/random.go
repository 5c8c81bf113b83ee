package scenarios

import "github.com/parsleysim/parsleysim/sim/spec"

// RandomName is the registry name of the random (swarm) scenario, the default of simrun.
const RandomName = "random"

// Random returns the random scenario for a seed: the topology RandomTopology generates, each
// process forwarding every delivery to its sent topics while the record's hop count is below the
// run's ForwardHopsMax (damped forwarding: cycles terminate). Large topologies forward each
// delivery to one sent topic, chosen by key, so traffic stays proportional to what is produced.
// opts.Processes must be 0 or at least 2; Lookup(RandomName).Build checks it and returns an
// error instead of panicking.
func Random(seed uint64, opts RandomOptions) *spec.Scenario {
	topo, err := RandomTopology(seed, opts)
	if err != nil {
		panic(err)
	}
	scn := topo.Scenario(RandomName, len(topo.Processes) > smallProcessesMax)
	if opts.Processes == 0 {
		withSessions(scn, seed) // session clients on some seeds (session.go)
	}
	return scn
}

// Scenario turns the topology into a simulator scenario named name, with the default forwarding
// logic; fanoutOne sends each delivery to one sent topic instead of all.
func (t *Topology) Scenario(name string, fanoutOne bool) *spec.Scenario {
	scn := &spec.Scenario{Name: name}
	for _, tp := range t.Topics {
		scn.Topics = append(scn.Topics, spec.TopicSpec{Name: tp.Name, Partitions: tp.Partitions, External: tp.External, DeletionOnly: tp.DeletionOnly})
	}
	for _, p := range t.Processes {
		scn.Processes = append(scn.Processes, spec.ProcessSpec{
			Name: p.Name, Task: p.Task, Receives: p.Receives, Sends: p.Sends, FanoutOne: fanoutOne,
		})
	}
	return scn
}

func init() {
	Register(Builder{
		Name:    RandomName,
		Summary: "swarm: 2-7 processes over 2-3 external topics, per-seed features and faults, a deletion quarry where topics are deleted (--processes N: a large generated topology)",
		Build: func(seed uint64, opts Options) (*spec.Scenario, error) {
			topo, err := RandomTopology(seed, RandomOptions(opts))
			if err != nil {
				return nil, err
			}
			scn := topo.Scenario(RandomName, len(topo.Processes) > smallProcessesMax)
			if opts.Processes == 0 {
				withSessions(scn, seed) // session clients on some seeds (session.go)
			}
			return scn, nil
		},
	})
}
