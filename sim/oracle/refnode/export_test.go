package refnode

// The external tests' doors into the package: building a position map and describing how two
// records differ are test conveniences, not part of the reference node's API.
var (
	PositionsOf = positionsOf
	DiffRecord  = diffRecord
)
