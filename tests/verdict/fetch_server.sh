#!/bin/sh
# SPDX-License-Identifier: MIT
# Verdict injection (issue 34), a slow server: a private nginx (master and
# one worker, sendfile) serving 16 MiB of random bytes on loopback, its
# master and worker moved into a cgroup v1 cpu child with a quota of 1 %
# of one CPU (cpu.cfs_quota_us 1000 / cpu.cfs_period_us 100000).
# `engpass fetch URL --block 60K --depth 8 --server-pid MASTER` must name
# "server": the client waits for answers the server has queued while the
# quota holds it off the CPU 99 ms of every 100, and --server-pid's
# evidence reads the master's and its worker's CPU and the quota's
# throttling. The same at depth 1 with --rtt 500us (issue 34's own
# command) too. The twin, that command against the same nginx moved back
# out of the cgroup, must not name "server" (its answers come within the
# TCP rtt: "round trip"). There is no depth-8 twin: a fast nginx with 8
# requests queued on a shared 2-CPU box keeps a core busy, and the client
# waits for it 45 % of the time on a quiet box and up to 79 % on a loaded
# one -- the server is then, honestly, near being the limit. The figure: MB/s, the share of the time spent
# waiting for the server beyond the TCP rtt, the server's CPU and its
# cgroup's throttled periods. nginx is killed by its PID and the cgroup
# removed in the trap (lib.sh).
. "$(dirname "$0")/lib.sh"
need_root "cgroup v1 cpu quota on the server"
need_cmd nginx ss
. "$VT_DIR/../cli/nginxlib.sh"

FIG='"\(.metrics.rate_bytes_per_second / 1e6 | floor) MB/s, server wait \(.metrics.server_wait_percent | floor) %, server CPU \(.metrics.server_cpu_share_percent // "?" | tostring | .[0:4]) % of one (\(.metrics.server_processes // "?") processes), throttled \(.metrics.server_throttled_percent // "-" | tostring | .[0:4]) % of periods"'

cg_new cpu srv || vt_skip_all "$CG_WHY"
SCG=$CG
[ -e "$SCG/cpu.cfs_quota_us" ] || vt_skip_all "no cpu.cfs_quota_us (kernel without CONFIG_CFS_BANDWIDTH)"
cg_set "$SCG" cpu.cfs_period_us 100000 && cg_set "$SCG" cpu.cfs_quota_us 1000 || vt_skip_all "$CG_WHY"
PARENT=$(cg_v1_parent cpu)

NX="$T_TMP/nginx"
mkdir -p "$NX/www"
head -c 16777216 /dev/urandom >"$NX/www/file.bin"
new_port
if ! nginx_start "$NX" "$PORT" "worker_processes 1;" "sendfile on; keepalive_requests 100000;" ""; then
	VT_PIDS="$VT_PIDS $NGINX_PID"
	vt_skip_all "nginx did not start: $(tail -1 "$NX/logs/error.log" 2>/dev/null)"
fi
VT_PIDS="$VT_PIDS $NGINX_PID"
# The worker: the master's child, once it is there.
_n=0
while [ -z "$(pgrep -P "$NGINX_PID")" ] && [ $_n -lt 50 ]; do sleep 0.1; _n=$((_n + 1)); done
WORKERS=$(pgrep -P "$NGINX_PID")
[ -n "$WORKERS" ] || vt_skip_all "nginx started no worker"
# Moves nginx's master and workers into cgroup $1.
nginx_into() {
	for p in $NGINX_PID $WORKERS; do echo "$p" >"$1/cgroup.procs" || return 1; done
}
U="http://127.0.0.1:$PORT/file.bin"

# srv_case FILE LABEL WHAT ARGS
srv_case() {
	CMD="fetch $U --block 60K $4 --server-pid $NGINX_PID --output /dev/null --max-time 60s"
	# shellcheck disable=SC2086
	ep "$1" "$ENGPASS" $CMD $EP_OPTS
	matrix "$3" "engpass $CMD" "$FIG" "$1"
	expect_ran "$1" "$2"
}
# expect_server FILE LABEL: "server" named. On a box other work keeps
# busy the verdict rightly names "other processes" at share 1 or more: the
# check is skipped, saying so. Until verdict.c knows "server" as a
# candidate that explains a network wait (budget()'s net_known, and
# verdict_priority[] before "network"), the time budget's generic
# "network" outranks it: with the server at 0.4 or more (what explain()
# would raise) that is a TAP TODO; anything else a failure.
expect_server() {
	if jq -e "$VT_RES | length > 0 and all(.verdict.resource == \"server\")" "$1" >/dev/null 2>&1; then
		ok "$2: verdict names server"
	elif jq -e "$VT_RES | length > 0 and all(.verdict.resource == \"other processes\" and
		any(.verdict.candidates[]; .resource == \"other processes\" and .share >= 1))" "$1" >/dev/null 2>&1; then
		skip "$2: verdict names server" "a loaded box: other processes named (load $(cut -d' ' -f1 /proc/loadavg))"
	elif jq -e "$VT_RES | length > 0 and all(.verdict.resource == \"network\" and
		any(.verdict.candidates[]; .resource == \"server\" and .share >= 0.4))" "$1" >/dev/null 2>&1; then
		not_ok "$2: verdict names server # TODO verdict.c: 'server' is not in budget()'s net_known nor verdict_priority[], so 'network' wins"
	else
		not_ok "$2: verdict names server" "got: $(jq -c "$VT_RES | map({resource: .verdict.resource, candidates: .verdict.candidates})" "$1" 2>/dev/null | cut -c1-600) (rc $RC)"
	fi
}

nginx_into "$SCG" || vt_skip_all "cannot move nginx into $SCG"
srv_case "$T_TMP/quota8.json" "quota 1 %, depth 8" "cpu quota 1000/100000 us on nginx (master + worker)" "--depth 8"
expect_figure "quota 1 %, depth 8: the server's cgroup was throttled (the quota was in force)" \
	'.metrics.server_throttled_percent > 50' "$T_TMP/quota8.json"
expect_figure "quota 1 %, depth 8: master and worker counted" '.metrics.server_processes >= 2' "$T_TMP/quota8.json"
expect_server "$T_TMP/quota8.json" "quota 1 %, depth 8"
srv_case "$T_TMP/quota1.json" "quota 1 %, depth 1 --rtt 500us" "cpu quota 1000/100000 us on nginx (master + worker)" "--depth 1 --rtt 500us"
expect_figure "quota 1 %, depth 1 --rtt 500us: the server's cgroup was throttled" \
	'.metrics.server_throttled_percent > 50' "$T_TMP/quota1.json"
expect_server "$T_TMP/quota1.json" "quota 1 %, depth 1 --rtt 500us"

# The twin: the same nginx, back in our own cpu cgroup (no quota).
nginx_into "$PARENT" || vt_skip_all "cannot move nginx back to $PARENT"
srv_case "$T_TMP/twin.json" "twin: no quota, depth 1 --rtt 500us" "none (twin: the same nginx out of the cgroup)" "--depth 1 --rtt 500us"
expect_figure "twin: no quota read on the server" '(.method["server cpu quota"] // "") | startswith("none")' "$T_TMP/twin.json"
expect_not_named "server" "$T_TMP/twin.json" "twin: no quota, depth 1 --rtt 500us"
done_testing
