// Package deploy holds no code: the files beside it run simrun's sharded sweeps and explorations
// on the batch engines users already have (a Kubernetes Indexed Job, a GitHub Actions workflow, a
// shell loop), and its tests keep those files in step with the command line.
package deploy
