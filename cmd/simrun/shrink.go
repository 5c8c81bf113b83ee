package main

import (
	"fmt"
	"io"
)

func shrinkMain(args []string, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "simrun shrink: not yet")
	return exitUsage
}
