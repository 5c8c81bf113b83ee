package swarm

import (
	"fmt"
	"math/rand/v2"

	"github.com/parsleysim/parsleysim/sim/spec"
)

// RestartCheck says whether a run checks RESTART_INVISIBILITY once it has passed, and where: at
// the first point from AtPermille thousandths of the script on where a process is running with its
// step committed, the first such process counting from Process (modulo the number of processes)
// is restarted. Drawn from the seed's own stream (drawRestartCheck).
type RestartCheck struct {
	On         bool
	Process    int
	AtPermille int
}

// RestartCheckSharePct is the share of swarm seeds whose settings switch the restart check on:
// the check runs the script a second time, so it is a seeded share of runs, not every run.
const RestartCheckSharePct = 25

// restartStream is the PCG stream constant of the restart check's draws ("restart" in ASCII),
// distinct from every other stream, so switching the check on or off moves no other draw.
const restartStream = 0x72657374617274

// restartProcessDraw is the range the restart check's process is drawn from (taken modulo the
// world's process count). A constant of its own, not the world's process limit: raising the limit
// must not move a seed's draw.
const restartProcessDraw = 2000

// drawRestartCheck draws the seed's restart check.
func drawRestartCheck(seed uint64) RestartCheck {
	rng := rand.New(rand.NewPCG(seed, restartStream))
	rc := RestartCheck{On: rng.IntN(100) < RestartCheckSharePct, Process: rng.IntN(restartProcessDraw), AtPermille: rng.IntN(1000)}
	if !rc.On {
		return RestartCheck{}
	}
	return rc
}

// describe renders the check for Settings.Describe, with the share of seeds that get one: the
// process the drawn index picks among processes (taken modulo their number, as the run takes
// it), and that the run restarts the next one after it when that one is not running with its
// step committed there.
func (rc RestartCheck) describe(processes []spec.ProcessSpec) string {
	if !rc.On {
		return fmt.Sprintf("off (on for %d%% of seeds)", RestartCheckSharePct)
	}
	if len(processes) == 0 {
		return fmt.Sprintf("on, but no process to restart (on for %d%% of seeds)", RestartCheckSharePct)
	}
	return fmt.Sprintf("%s (or the next process running with its step committed) from %d.%d%% of the script on (on for %d%% of seeds)",
		processes[rc.Process%len(processes)].Name, rc.AtPermille/10, rc.AtPermille%10, RestartCheckSharePct)
}
