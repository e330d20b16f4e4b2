#!/bin/sh
# SPDX-License-Identifier: MIT
# Verdict injection (issue 34), stop-and-wait with an emulated round trip:
# `engpass fetch URL --block 60K --depth 1 --rtt 500us` against the
# HTTP server of delay_http.py with no delay of its own on loopback. Each
# 60 KiB block waits the 0.5 ms hold, the path and the server's answer
# before the next is asked for, so the connection idles most of the time
# for round trips: the verdict must name "round trip" (the time budget
# sees the client waiting on the socket, "network", and the round-trip
# candidate explains that wait, so it is raised rather than a generic
# "network" named; before issue 34 it was "none observed"). The twin,
# the same server at --depth 8 without --rtt, hides the round trips and
# must not name "round trip" (it names the server: Python answers one
# pipelined request after the other, about 0.1 ms each). The figure:
# MB/s, the median request, the idle shares and the server's wait.
. "$(dirname "$0")/lib.sh"
need_cmd python3

# expect_named_or_loaded RESOURCE FILE LABEL: RESOURCE named. On a box
# other work keeps busy the client's every wake-up waits in the run queue,
# the verdict rightly names "other processes" at share 1 or more, and the
# check is skipped, saying so (never passed).
expect_named_or_loaded() {
	if jq -e --arg r "$1" "$VT_RES | length > 0 and all(.verdict.resource == \$r)" "$2" >/dev/null 2>&1; then
		ok "$3: verdict names $1"
	elif jq -e "$VT_RES | length > 0 and all(.verdict.resource == \"other processes\" and
		any(.verdict.candidates[]; .resource == \"other processes\" and .share >= 1))" "$2" >/dev/null 2>&1; then
		skip "$3: verdict names $1" "a loaded box: other processes named (load $(cut -d' ' -f1 /proc/loadavg))"
	else
		not_ok "$3: verdict names $1" "got: $(jq -r "$VT_RES | map(.verdict.resource) | join(\", \")" "$2" 2>/dev/null) (rc $RC)"
	fi
}

FIG='"\(.metrics.rate_bytes_per_second / 1e6 | floor) MB/s, p50 \(.metrics.lat_p50_ns / 1000 | floor) us, idle round trip \(.metrics.idle_round_trip_percent | floor) %, idle server \(.metrics.idle_server_percent | floor) %, server wait \(.metrics.server_wait_percent | floor) %"'

# fetch_case FILE LABEL WHAT ARGS: one run against a fresh delay_http.py (no delay, 64 MiB).
fetch_case() {
	rm -f "$T_TMP/http.port"
	bg "$T_TMP/http-$2.out" python3 "$VT_DIR/delay_http.py" "$T_TMP/http.port" 0 67108864
	_hp=$BG_PID
	_n=0
	while [ ! -s "$T_TMP/http.port" ] && [ $_n -lt 100 ]; do sleep 0.1; _n=$((_n + 1)); done
	if [ ! -s "$T_TMP/http.port" ]; then
		not_ok "$2: HTTP server up" "$(cat "$T_TMP/http-$2.out")"
		stop_pid "$_hp"
		return 1
	fi
	CMD="fetch http://127.0.0.1:$(cat "$T_TMP/http.port")/data --block 60K $4 --output /dev/null --max-time 60s"
	# shellcheck disable=SC2086
	ep "$1" "$ENGPASS" $CMD $EP_OPTS
	matrix "$3" "engpass $CMD" "$FIG" "$1"
	expect_ran "$1" "$2"
	stop_pid "$_hp"
}

if fetch_case "$T_TMP/hold.json" "depth 1, --rtt 500us" "--rtt 500us emulated, depth 1" "--depth 1 --rtt 500us"; then
	# Every request waited the hold before it was written: at most block / 0.5 ms.
	expect_figure "depth 1, --rtt 500us: at most 60 KiB per 0.5 ms (the hold was in force)" \
		'.metrics.rate_bytes_per_second <= 61440 / 0.0005' "$T_TMP/hold.json"
	expect_figure "depth 1, --rtt 500us: idle waiting round trips most of the time, not booked to the server" \
		'.metrics.idle_round_trip_percent > 50 and .metrics.idle_server_percent < 10' "$T_TMP/hold.json"
	expect_named_or_loaded "round trip" "$T_TMP/hold.json" "depth 1, --rtt 500us"
fi
if fetch_case "$T_TMP/twin.json" "twin: depth 8" "none (twin: no hold, 8 in flight)" "--depth 8"; then
	expect_figure "twin: round trips hidden (idle waiting round trips under 20 %)" \
		'.metrics.idle_round_trip_percent < 20' "$T_TMP/twin.json"
	expect_not_named "round trip" "$T_TMP/twin.json" "twin: depth 8"
fi
done_testing
