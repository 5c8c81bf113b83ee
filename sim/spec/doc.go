// Package spec holds the vocabulary a run is described in, shared by the world, the oracle, the
// explorer, the trace and the catalogue: the kinds of scheduler action, the documented limits of
// one world, the criteria the oracle judges and the violations it reports, and FileError, the
// error every reader of a text file (replay file, scenario file) returns.
package spec
