#!/bin/sh
# SPDX-License-Identifier: MIT
# Verdict injection (#18), one core / other processes: `taskset -c 0
# engpass cpu` (one thread on CPU 0, the box otherwise free of our load)
# must name "one core" -- and is the twin of the next case, so it must not
# name "other processes". Then a CPU hog pinned to CPU 0 (a shell loop,
# killed by its PID) beside the same command: the core is shared, engpass
# gets about half of it; that must name "other processes". The figure: the
# cpu share (CPU time / wall time) of the benchmark thread and its run
# queue wait.
. "$(dirname "$0")/lib.sh"
need_cmd taskset
taskset -c 0 true 2>/dev/null || vt_skip_all "cannot pin to CPU 0 (taskset -c 0 refused)"

CMD="cpu --cipher chacha20-poly1305 --size 1400 --lib openssl --time 2s"
FIG='"\(.metrics.cpu_share_percent | floor) % cpu share, run queue wait \(.metrics.runq_wait_percent // "?" | tostring | .[0:5]) %, \(.metrics.wall_throughput_bytes_per_second / 1e6 | floor) MB/s wall"'

# shellcheck disable=SC2086
ep "$T_TMP/one.json" taskset -c 0 "$ENGPASS" $CMD $EP_OPTS
matrix "affinity cpu 0, no other load of ours" "taskset -c 0 engpass $CMD" "$FIG" "$T_TMP/one.json"
expect_ran "$T_TMP/one.json" "pinned"
# On a shared box other people's work can take CPU 0 too: then this run
# is no clean twin ("other processes" would be right), and both of its
# assertions are skipped with the share measured.
SHARE=$(jq -r "$VT_RES | map(.metrics.cpu_share_percent) | min // 0 | floor" "$T_TMP/one.json" 2>/dev/null)
if [ "${SHARE:-0}" -ge 80 ]; then
	expect_named "one core" "$T_TMP/one.json" "pinned"
	expect_not_named "other processes" "$T_TMP/one.json" "pinned (twin of the hog)"
else
	why="others' processes took CPU 0 as well: engpass had ${SHARE:-?} % of it (load $(cut -d' ' -f1-3 /proc/loadavg))"
	skip "pinned: verdict names one core" "$why"
	skip "pinned (twin of the hog): verdict does not name other processes" "$why"
fi

bg /dev/null taskset -c 0 sh -c 'while :; do :; done'
HOG=$BG_PID
sleep 0.2
# shellcheck disable=SC2086
ep "$T_TMP/hog.json" taskset -c 0 "$ENGPASS" $CMD $EP_OPTS
stop_pid "$HOG"
matrix "a CPU hog pinned to cpu 0" "taskset -c 0 engpass $CMD (beside taskset -c 0 sh -c 'while :; do :; done')" "$FIG" "$T_TMP/hog.json"
expect_ran "$T_TMP/hog.json" "hog"
expect_figure "hog: cpu share under 70 % (the core was shared)" '.metrics.cpu_share_percent < 70' "$T_TMP/hog.json"
expect_named "other processes" "$T_TMP/hog.json" "hog"

done_testing
