// Package spec holds the vocabulary a run is described in, shared by the world, the explorer, the
// trace and the catalogue: the kinds of scheduler action, the documented limits of one world, and
// FileError, the error every reader of a text file (replay file, scenario file) returns.
package spec
