// Package choose holds the Chooser, through which every schedule and fault decision of a run
// goes, and its implementations: a seeded random draw (Random), the answers of a recorded list
// (Replay), and the Recorder that wraps a run's chooser and keeps the answers that were
// decisions. The rapid-driven chooser is in sim/rapidchoose.
package choose
