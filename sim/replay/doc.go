// Package replay holds the replay file format: everything needed to reproduce one run exactly
// (scenario, seed, sabotage, overrides, the choice list its Chooser answered) and the outcome it
// recorded, written by Save and read back, strictly and within bounds, by Load and Parse.
package replay
