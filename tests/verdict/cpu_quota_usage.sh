#!/bin/sh
# SPDX-License-Identifier: MIT
# Verdict injection (issue 34, point 5a), the cpu quota's usage with cgroup
# v1's cpu and cpuacct mounted apart: the usage must come from the cpuacct
# group at the quota's own path, never the process's cpuacct group at
# another level (the root counts the whole box: a sleeping process was
# "110 % of one CPU" and named "cpu quota").
#   - a `sleep` under a 0.5 CPU quota, in the cpuacct group of the same
#     path: `engpass watch --pid` must not name "cpu quota", the cgroup's
#     usage near 0;
#   - the same sleep in the cpu group only (its cpuacct group the root):
#     not named, the cgroup's usage unknown (null), not borrowed;
#   - a busy loop under a 0.3 quota (both groups): named, usage near 30 %;
#   - `engpass cpu ... --time 2s` under the 0.3 quota: named, usage near 30 %.
. "$(dirname "$0")/lib.sh"
need_root "cgroup v1 cpu and cpuacct controllers"
need_cmd jq

m_cpu=$(cg_v1_mount cpu)
m_acct=$(cg_v1_mount cpuacct)
[ -n "$m_cpu" ] || vt_skip_all "no cgroup v1 hierarchy with the cpu controller"
[ -n "$m_acct" ] || vt_skip_all "no cgroup v1 hierarchy with the cpuacct controller"
[ "$m_cpu" != "$m_acct" ] || vt_skip_all "cpu and cpuacct share one hierarchy here (cpu_quota.sh covers that layout)"

# qgroup NAME QUOTA_US: a cpu group with that quota per 100 ms and the
# cpuacct group at the same path; $QC, $QA.
qgroup() {
	cg_new cpu "$1" || vt_skip_all "$CG_WHY"
	QC=$CG
	[ -e "$QC/cpu.cfs_quota_us" ] || vt_skip_all "no cpu.cfs_quota_us (kernel without CONFIG_CFS_BANDWIDTH)"
	cg_set "$QC" cpu.cfs_period_us 100000 && cg_set "$QC" cpu.cfs_quota_us "$2" || vt_skip_all "$CG_WHY"
	cg_new cpuacct "$1" || vt_skip_all "$CG_WHY"
	QA=$CG
	[ "${QC#"${m_cpu#* }"}" = "${QA#"${m_acct#* }"}" ] ||
		vt_skip_all "our cpu and cpuacct cgroups are at different paths (${QC#"${m_cpu#* }"} and ${QA#"${m_acct#* }"})"
}

USAGE='.system.cgroup_cpu_usage_percent'
# spawn OUT "DIR..." CMD...: CMD started in the background inside each
# cgroup of the list (the process itself, not a shell around it: its pid
# is $BG_PID, what --pid watches), registered for the trap.
spawn() {
	_so=$1 _sd=$2
	shift 2
	bg "$_so" sh -c 'for d in $0; do echo $$ >"$d/cgroup.procs" || exit 125; done; exec "$@"' "$_sd" "$@"
}
FIG="\"cgroup usage \\(($USAGE // null) | if . == null then \"unknown\" else (. * 10 | floor / 10 | tostring) + \" %\" end), throttled \\((.system.cgroup_cpu_throttled_percent // null) | if . == null then \"-\" else (floor | tostring) + \" %\" end) of periods, work \\((.system.work_cpu_percent // null) | if . == null then \"-\" else (floor | tostring) + \" %\" end)\""
W="watch --time 2s"

qgroup q5 50000
Q5C=$QC Q5A=$QA
spawn "$T_TMP/sleep1.out" "$Q5C $Q5A" sleep 60
P1=$BG_PID
spawn "$T_TMP/sleep2.out" "$Q5C" sleep 60
P2=$BG_PID
sleep 0.3

# shellcheck disable=SC2086
ep "$T_TMP/sleep1.json" timeout 30 "$ENGPASS" $W --pid $P1 $EP_OPTS
matrix "cpu quota 50000/100000 us, cpuacct group at the same path (cpu and cpuacct apart)" \
	"engpass $W --pid PID (a sleep in the cgroup)" "$FIG" "$T_TMP/sleep1.json"
expect_ran "$T_TMP/sleep1.json" "sleep, own cpuacct group"
expect_figure "sleep, own cpuacct group: the cgroup's usage read there, under 5 %" \
	"($USAGE | type) == \"number\" and $USAGE < 5" "$T_TMP/sleep1.json"
expect_not_named "cpu quota" "$T_TMP/sleep1.json" "sleep, own cpuacct group"

# shellcheck disable=SC2086
ep "$T_TMP/sleep2.json" timeout 30 "$ENGPASS" $W --pid $P2 $EP_OPTS
matrix "cpu quota 50000/100000 us, cpuacct group the root (cpu and cpuacct apart)" \
	"engpass $W --pid PID (a sleep in the cpu cgroup only)" "$FIG" "$T_TMP/sleep2.json"
expect_ran "$T_TMP/sleep2.json" "sleep, root cpuacct group"
expect_figure "sleep, root cpuacct group: the cgroup's usage unknown (null), not the root's" \
	"$USAGE == null" "$T_TMP/sleep2.json"
expect_not_named "cpu quota" "$T_TMP/sleep2.json" "sleep, root cpuacct group"
stop_pid "$P1"
stop_pid "$P2"

qgroup q3 30000
Q3C=$QC Q3A=$QA
spawn "$T_TMP/busy.out" "$Q3C $Q3A" sh -c 'while :; do :; done'
P3=$BG_PID
sleep 0.3
# shellcheck disable=SC2086
ep "$T_TMP/busy.json" timeout 30 "$ENGPASS" $W --pid $P3 $EP_OPTS
matrix "cpu quota 30000/100000 us (cpu and cpuacct apart)" "engpass $W --pid PID (a busy loop in the cgroup)" \
	"$FIG" "$T_TMP/busy.json"
expect_ran "$T_TMP/busy.json" "busy loop"
expect_figure "busy loop: the cgroup's usage 20..40 % (its own group's)" \
	"$USAGE >= 20 and $USAGE <= 40" "$T_TMP/busy.json"
expect_named "cpu quota" "$T_TMP/busy.json" "busy loop"
stop_pid "$P3"

CMD="cpu --cipher chacha20-poly1305 --size 1400 --lib openssl --time 2s"
# shellcheck disable=SC2086
ep "$T_TMP/cpu.json" cg_exec "$Q3C $Q3A" timeout 30 "$ENGPASS" $CMD $EP_OPTS
matrix "cpu quota 30000/100000 us (cpu and cpuacct apart)" "engpass $CMD (in both groups)" "$FIG" "$T_TMP/cpu.json"
expect_ran "$T_TMP/cpu.json" "engpass cpu"
expect_figure "engpass cpu: the cgroup's usage 20..40 %" "$USAGE >= 20 and $USAGE <= 40" "$T_TMP/cpu.json"
expect_named "cpu quota" "$T_TMP/cpu.json" "engpass cpu"

done_testing
