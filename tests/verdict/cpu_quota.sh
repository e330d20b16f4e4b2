#!/bin/sh
# SPDX-License-Identifier: MIT
# Verdict injection (#18), cpu quota: a cgroup v1 cpu child with
# cpu.cfs_quota_us 30000 / cpu.cfs_period_us 100000 (30 % of one CPU)
# around `engpass cpu`; the verdict must name "cpu quota". The twin runs
# the same command in no such cgroup and must not name it. The cpu share
# (CPU time / wall time) proves the quota was in force: about 30 %.
# Both run with --verify (issue 38): the quota is never changed, its own
# counters (cpu.stat's throttled periods) must confirm it.
. "$(dirname "$0")/lib.sh"
need_root "cgroup v1 cpu controller"

CMD="cpu --cipher chacha20-poly1305 --size 1400 --lib openssl --time 2s"
FIG='"\(.metrics.cpu_share_percent | floor) % cpu share, \(.metrics.wall_throughput_bytes_per_second / 1e6 | floor) MB/s wall, \(.metrics.cpu_throughput_bytes_per_second / 1e6 | floor) MB/s per CPU-s"'

cg_new cpu quota || vt_skip_all "$CG_WHY"
[ -e "$CG/cpu.cfs_quota_us" ] || vt_skip_all "no cpu.cfs_quota_us (kernel without CONFIG_CFS_BANDWIDTH)"
cg_set "$CG" cpu.cfs_period_us 100000 && cg_set "$CG" cpu.cfs_quota_us 30000 || vt_skip_all "$CG_WHY"

# shellcheck disable=SC2086
ep "$T_TMP/quota.json" cg_exec "$CG" "$ENGPASS" $CMD $EP_OPTS --verify
matrix "cpu quota 30000/100000 us" "engpass $CMD (in the cgroup)" "$FIG" "$T_TMP/quota.json"
expect_ran "$T_TMP/quota.json" "quota"
expect_figure "quota: cpu share 20..40 % (the quota was in force)" \
	'.metrics.cpu_share_percent >= 20 and .metrics.cpu_share_percent <= 40' "$T_TMP/quota.json"
expect_named "cpu quota" "$T_TMP/quota.json" "quota"
expect_figure "quota: --verify confirmed it by counters, no probe run (never changed)" \
	'.verdict.verification.resource == "cpu quota" and .verdict.verification.outcome == "confirmed by counters" and .verdict.verification.probe_seconds == 0 and (.verdict.verification.why | test("throttled in [1-9]"))' \
	"$T_TMP/quota.json"

# shellcheck disable=SC2086
ep "$T_TMP/twin.json" "$ENGPASS" $CMD $EP_OPTS --verify
matrix "none (twin of cpu quota)" "engpass $CMD" "$FIG" "$T_TMP/twin.json"
expect_ran "$T_TMP/twin.json" "twin"
expect_figure "twin: cpu share above 40 % (no quota; others' work on a shared box takes some)" \
	'.metrics.cpu_share_percent > 40' "$T_TMP/twin.json"
expect_not_named "cpu quota" "$T_TMP/twin.json" "twin"
expect_figure "twin: --verify confirmed nothing by counters" \
	'all(.verdict.verification.probes[]; .outcome != "confirmed by counters")' "$T_TMP/twin.json"

done_testing
