package spec

import "fmt"

// FileError is a problem in a text file the tools read (a replay file, a scenario file): the
// file name, the 1-based line (0 when the problem is the file as a whole, such as a missing
// header) and what was expected.
type FileError struct {
	File string
	Line int
	Msg  string
}

// Error renders the problem as "FILE:LINE: message".
func (e *FileError) Error() string {
	if e.Line == 0 {
		return fmt.Sprintf("%s: %s", e.File, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
}
