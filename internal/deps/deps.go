// Package deps pins modules the project depends on but does not yet import from code that
// builds (gonum is used by the benchmark gate, which lands later), so `go mod tidy` keeps them
// in go.mod. Delete an import here once real code imports that module.
package deps

import (
	_ "gonum.org/v1/gonum/stat"
)
