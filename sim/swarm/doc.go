// Package swarm holds a run's settings and their expansion from a seed, swarm-testing style: which
// fault classes a seed switches on, their weights and virtual durations, the fault schedule of the
// fail-closed faults, the restart check and the share of crashes that land inside a commit, how
// the settings print (Describe), and which sabotage modes a seed's settings can expose
// (Eligible). It imports only the run vocabulary (spec), never the world: the world reads the
// settings; the settings know nothing of the world.
//
// Some of the settings are scheduling rules (swarmKinds, scaleFailClosed, drawFaultSchedule,
// stampWhereDeleted, rewindStopWeight, holdPauseSteps): biases
// toward the states that expose a fault. Every such rule, of this package and of the world's
// scheduler, is listed with the shape it builds in the table of package shape's doc
// (sim/world/shape), which its test keeps in step with the code.
package swarm
