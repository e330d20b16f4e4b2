#!/bin/sh
# SPDX-License-Identifier: MIT
# Verdict injection (issue 34, point 3), the CPU weight among the causes of
# run-queue wait: a busy loop pinned to one CPU beside a hog pinned to the
# same CPU, watched with `engpass watch --pid`:
#   - the loop at nice 19: "cpu weight" (its nice value named), not only
#     "other processes"; twin: the same at nice 0, "other processes", not
#     "cpu weight";
#   - the loop in a cgroup v1 cpu group with cpu.shares 102 (a tenth of the
#     default): "cpu weight" (cpu.shares named); twin: cpu.shares 1024.
. "$(dirname "$0")/lib.sh"
need_root "cgroup v1 cpu groups and pinned CPU hogs"
need_cmd jq
need_cmd taskset

CPU=$(($(nproc) - 1))
FIG='"work cpu \((.system.work_cpu_percent // 0) | floor) %, others on its CPUs \((.system.others_on_work_cpus_percent // 0) | floor) %"'
W="watch --time 2s"

bg "$T_TMP/hog.out" taskset -c "$CPU" sh -c 'while :; do :; done'
HOG=$BG_PID

# loop_case LABEL WHAT EXPECT NOT_EXPECT PREFIX...: a pinned busy loop started
# through PREFIX (nice, a cgroup join), watched; EXPECT named, NOT_EXPECT not.
loop_case() {
	_l=$1 _w=$2 _e=$3 _n=$4
	shift 4
	bg "$T_TMP/loop.out" "$@" taskset -c "$CPU" sh -c 'while :; do :; done'
	_p=$BG_PID
	sleep 0.3
	# Through cg_exec the loop is a child of the background shell: watch the loop itself.
	_c=$(pgrep -P "$_p" | head -1)
	[ -z "$_c" ] || _p=$_c
	_f="$T_TMP/$(echo "$_l" | tr -c 'a-z0-9' _).json"
	# shellcheck disable=SC2086
	ep "$_f" timeout 30 "$ENGPASS" $W --pid "$_p" $EP_OPTS
	matrix "$_w" "engpass $W --pid PID (a busy loop beside a hog on cpu $CPU)" "$FIG" "$_f"
	kill "$_p" 2>/dev/null
	stop_pid "$BG_PID"
	expect_ran "$_f" "$_l"
	[ -z "$_e" ] || expect_named "$_e" "$_f" "$_l"
	[ -z "$_n" ] || expect_not_named "$_n" "$_f" "$_l"
}

loop_case "busy loop at nice 19" "nice 19 beside a nice-0 hog on one CPU" "cpu weight" "" nice -n 19
loop_case "busy loop at nice 0 (twin)" "nice 0 beside a nice-0 hog on one CPU" "other processes" "cpu weight" env

if cg_new cpu w1 && [ -e "$CG/cpu.shares" ] && cg_set "$CG" cpu.shares 102; then
	loop_case "busy loop, cpu.shares 102" "cgroup cpu.shares 102 beside a hog on one CPU" "cpu weight" "" cg_exec "$CG"
	if cg_new cpu w2 && cg_set "$CG" cpu.shares 1024; then
		loop_case "busy loop, cpu.shares 1024 (twin)" "cgroup cpu.shares 1024 beside a hog on one CPU" "" "cpu weight" \
			cg_exec "$CG"
	else
		skip "busy loop, cpu.shares 1024 (twin): ran" "$CG_WHY"
	fi
else
	for n in ran "verdict names cpu weight"; do skip "busy loop, cpu.shares 102: $n" "${CG_WHY:-no cpu.shares here}"; done
fi
stop_pid "$HOG"
done_testing
