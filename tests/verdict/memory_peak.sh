#!/bin/sh
# SPDX-License-Identifier: MIT
# Issue 36, the memory limit's peak. A cgroup v1 memory child of the test's
# own, first without a limit: a 48 MiB rung of mem --ladder runs in it, so
# its memory.max_usage_in_bytes (the mark since the cgroup was made, never
# reset) is 48 MiB or more. Then memory.limit_in_bytes 24M is set and a
# 4 MiB rung runs in the same cgroup: the window's peak must be the usage
# seen during that window (well under 24 MiB), said to be sampled in the
# method, and the verdict must not name "memory limit" (before the fix:
# "memory limit at 2xx % ... peak 48 MiB"). The same rung in a sandbox
# (engpass's own cgroup) resets the kernel's mark at the window's start and
# says so. The cgroup is removed in the trap.
. "$(dirname "$0")/lib.sh"
need_root "the cgroup v1 memory controller and a sandbox"
need_cmd jq

cg_new memory peak || vt_skip_all "$CG_WHY"
[ -e "$CG/memory.max_usage_in_bytes" ] || vt_skip_all "no memory.max_usage_in_bytes (not cgroup v1)"
[ -e "$CG/memory.swappiness" ] && cg_set "$CG" memory.swappiness 60

ep "$T_TMP/big.json" cg_exec "$CG" "$ENGPASS" mem --ladder --sizes 48M --force $EP_OPTS
expect_ran "$T_TMP/big.json" "48M rung without a limit"
mark=$(cat "$CG/memory.max_usage_in_bytes")
check "the cgroup's lifetime mark is 48 MiB or more ($mark)" [ "$mark" -ge 50331648 ]

cg_set "$CG" memory.limit_in_bytes 24M || vt_skip_all "$CG_WHY"
CMD="mem --ladder --sizes 4M --force"
FIG='"peak \(.system.cgroup_memory_peak_bytes / 1048576 * 10 | floor / 10) MiB of 24 MiB"'
# shellcheck disable=SC2086
ep "$T_TMP/small.json" cg_exec "$CG" "$ENGPASS" $CMD $EP_OPTS
matrix "memory.limit_in_bytes 24M set after a 48 MiB run" "engpass $CMD (in the cgroup)" "$FIG" "$T_TMP/small.json"
expect_ran "$T_TMP/small.json" "4M rung under 24M"
expect_figure "the limit is found" '.method["limit memory"] | test("^24.00 MiB")' "$T_TMP/small.json"
expect_figure "the window's peak is under the limit, not the lifetime mark" \
	".system.cgroup_memory_peak_bytes > 0 and .system.cgroup_memory_peak_bytes < 25165824" "$T_TMP/small.json"
expect_figure "the method says the peak was sampled, and why" \
	'.method["limit memory peak"] | test("memory.usage_in_bytes at every snapshot.*not engpass.s to reset")' "$T_TMP/small.json"
expect_not_named "memory limit" "$T_TMP/small.json" "4M rung under 24M"

# The sandbox is engpass's own cgroup: its mark is reset at the window's start.
ep "$T_TMP/sb.json" "$ENGPASS" mem --ladder --sandbox 32M --swap none --sizes 0.25x --force $EP_OPTS
if [ "$RC" = 0 ] && jq -e '.results[0].status == "ok"' "$T_TMP/sb.json" >/dev/null 2>&1; then
	expect_figure "sandbox: the peak is the kernel's mark, reset at the start" \
		'.method["limit memory peak"] | test("own cgroup, reset")' "$T_TMP/sb.json"
	expect_figure "sandbox: the peak covers the 8 MiB rung and stays under 32 MiB" \
		".system.cgroup_memory_peak_bytes >= 8388608 and .system.cgroup_memory_peak_bytes < 33554432" "$T_TMP/sb.json"
else
	skip "sandbox: the peak is the kernel's mark" "the sandbox did not run: $(head -1 "$T_TMP/sb.json.err")"
	skip "sandbox: the peak covers the rung" "the sandbox did not run"
fi

done_testing
