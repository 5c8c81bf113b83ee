#!/bin/sh
# Runs a sweep or an exploration as N shards and merges their results: the plain shell form of
# what deploy/kubernetes and deploy/github-actions do on a cluster or a CI matrix.
#
#   deploy/shell/shards.sh N OUTDIR sweep --seeds 1-100000 [--sabotage MODE ...]
#   deploy/shell/shards.sh N OUTDIR explore --scenario reference [--budget ...]
#
# Shard i of N runs `simrun COMMAND ARGS --shard i/N --result OUTDIR/shard-i.json` (a sweep also
# writes the replay file of every failing seed into OUTDIR/failures), all N at once in the
# background (each on all cores: give -j to share them out); then `simrun merge OUTDIR/shard-*.json`
# prints the report of the whole run. On several machines, run shard i's line on machine i and
# the merge where the result files are gathered. A shard's exit status 1 is a finding (a
# violation), not a failure of the loop.
#
# Environment: SIMRUN, the simrun binary (default: simrun on PATH).
# Exit status: simrun merge's (0 clean, 1 a violation, 2 missing or bad shards), or 2 when a
# shard failed otherwise.
set -u

if [ $# -lt 3 ]; then
	echo "usage: $0 N OUTDIR sweep|explore ARGS..." >&2
	exit 2
fi
n=$1
out=$2
shift 2
simrun=${SIMRUN:-simrun}
mkdir -p "$out" || exit 2

if [ "$1" = sweep ]; then
	set -- "$@" --save-failures "$out/failures"
fi

i=1
pids=""
while [ "$i" -le "$n" ]; do
	"$simrun" "$@" --shard "$i/$n" --result "$out/shard-$i.json" >"$out/shard-$i.log" 2>&1 &
	pids="$pids $!"
	i=$((i + 1))
done

failed=0
i=1
for pid in $pids; do
	wait "$pid"
	status=$?
	if [ "$status" -ne 0 ] && [ "$status" -ne 1 ]; then
		echo "$0: shard $i/$n exited $status (see $out/shard-$i.log)" >&2
		failed=1
	fi
	i=$((i + 1))
done

set --
i=1
while [ "$i" -le "$n" ]; do
	set -- "$@" "$out/shard-$i.json"
	i=$((i + 1))
done
"$simrun" merge "$@"
status=$?
if [ "$failed" -ne 0 ] && [ "$status" -eq 0 ]; then
	status=2
fi
exit "$status"
