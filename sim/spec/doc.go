// Package spec holds the vocabulary a run is described in, shared by the world, the explorer, the
// trace and the catalogue: the kinds of scheduler action.
package spec
