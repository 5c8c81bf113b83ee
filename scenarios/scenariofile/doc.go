// Package scenariofile is the scenario-file format: a text form of a scripted scenario a person
// writes without Go (topics, processes, a script of actions, expectations, and the recorded
// story of the run). FORMAT.md beside this package is the reference.
//
// ParseFile and LoadFile read a file into a File (a *spec.Scenario with its settings and
// expectations); RunFile runs it, renders its story and checks its expectations; Format writes a
// scripted *spec.Scenario back as a file (the shrinker's and the explorer's minimal
// reproductions), and Counterexample writes an explored violation as one.
package scenariofile
