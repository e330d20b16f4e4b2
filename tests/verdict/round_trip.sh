#!/bin/sh
# SPDX-License-Identifier: MIT
# Verdict injection (#18), round trip: `engpass net server --delay 1ms`
# (each rr request answered 1 ms after it arrived) on loopback under
# `net client --mode rr --block 60K --depth 1` (stop-and-wait), and `engpass
# fetch --block 60K --depth 1` against a delaying HTTP server
# (delay_http.py, 1 ms per request: net server speaks rr, not HTTP, and
# netem is not in every kernel). Both must name "round trip"; the twins,
# the same servers without the delay, must not. The fetch twin keeps 8
# requests in flight: at depth 1 the python server's own ~0.1 ms per
# answer is, from the client, a round trip too (the client waits on it
# 98 % of the time and 12 in flight would hide it) -- the verdict rightly
# names it there, so that twin would test the server's speed, not the
# delay. The figure: MB/s and the
# median request latency (rr: the round trip seen by the client, about
# 1.1 ms with the delay; fetch: the median request, likewise).
. "$(dirname "$0")/lib.sh"
need_cmd ss

FIGRR='"\(.metrics.throughput_bytes_per_second / 1e6 | floor) MB/s, \(.metrics.requests // "?") requests, round trip \(.metrics.rtt_ns / 1000 | floor) us, server idle \(.metrics.server_idle_percent | floor) %"'
FIGF='"\(.metrics.rate_bytes_per_second / 1e6 | floor) MB/s, \(.metrics.requests) requests, p50 \(.metrics.lat_p50_ns / 1000 | floor) us, idle waiting round trips \(.metrics.idle_round_trip_percent | floor) %"'

# rr_case FILE LABEL WHAT SERVER-ARGS...
rr_case() {
	rf=$1 rl=$2 rw=$3
	shift 3
	new_port
	bg "$T_TMP/server-$rl.out" "$ENGPASS" net server --port "$PORT" --idle-timeout 30s --no-history -q "$@"
	_sp=$BG_PID
	if ! wait_listen "$PORT"; then
		not_ok "$rl: server listens"
		return
	fi
	CMD="net client 127.0.0.1 --port $PORT --mode rr --block 60K --depth 1 --time 2s"
	# shellcheck disable=SC2086
	ep "$rf" "$ENGPASS" $CMD $EP_OPTS
	matrix "$rw" "engpass $CMD" "$FIGRR" "$rf"
	expect_ran "$rf" "$rl"
	stop_pid "$_sp"
}

rr_case "$T_TMP/rr.json" "rr, server --delay 1ms" "server --delay 1ms" --delay 1ms
expect_figure "rr, server --delay 1ms: under 60 MB/s (60 KiB per 1 ms at most)" \
	'.metrics.throughput_bytes_per_second < 61440e3' "$T_TMP/rr.json"
expect_named "round trip" "$T_TMP/rr.json" "rr, server --delay 1ms"
rr_case "$T_TMP/rr-twin.json" "rr twin" "none (twin of --delay 1ms)"
expect_not_named "round trip" "$T_TMP/rr-twin.json" "rr twin"

# fetch: $ENGPASS fetch against delay_http.py, 64 MiB in 60 KiB ranges.
if ! command -v python3 >/dev/null 2>&1; then
	for n in "fetch, 1 ms per request" "fetch twin"; do skip "$n" "python3 is not installed (the delaying HTTP server)"; done
	done_testing
	exit
fi
# fetch_case FILE LABEL WHAT DELAY_MS DEPTH
fetch_case() {
	rm -f "$T_TMP/http.port"
	bg "$T_TMP/http-$2.out" python3 "$VT_DIR/delay_http.py" "$T_TMP/http.port" "$4" 67108864
	_hp=$BG_PID
	_n=0
	while [ ! -s "$T_TMP/http.port" ] && [ $_n -lt 100 ]; do sleep 0.1; _n=$((_n + 1)); done
	if [ ! -s "$T_TMP/http.port" ]; then
		not_ok "$2: HTTP server up" "$(cat "$T_TMP/http-$2.out")"
		return
	fi
	CMD="fetch http://127.0.0.1:$(cat "$T_TMP/http.port")/data --block 60K --depth $5 --output /dev/null"
	# shellcheck disable=SC2086
	ep "$1" "$ENGPASS" $CMD $EP_OPTS
	matrix "$3" "engpass $CMD" "$FIGF" "$1"
	expect_ran "$1" "$2"
	stop_pid "$_hp"
}
fetch_case "$T_TMP/fetch.json" "fetch, 1 ms per request" "HTTP server answering 1 ms after each request" 1 1
expect_figure "fetch, 1 ms per request: median request above 1 ms" '.metrics.lat_p50_ns >= 1e6' "$T_TMP/fetch.json"
expect_named "round trip" "$T_TMP/fetch.json" "fetch, 1 ms per request"
fetch_case "$T_TMP/fetch-twin.json" "fetch twin" "none (twin: the same server, no delay, 8 in flight)" 0 8
expect_not_named "round trip" "$T_TMP/fetch-twin.json" "fetch twin"

done_testing
