#!/bin/sh
# SPDX-License-Identifier: MIT
# engpass fetch against real servers, seed 002's two questions: --rtt (a
# round trip emulated by holding each request back, where netem is
# missing) makes stop-and-wait pay it per 60 KiB block while a pipeline of
# 8 overlaps it, as the round-trip model says; --server-pid reports a local
# server's CPU per GB over the download (nginx with sendfile, and Python's
# http.server, which copies). Never asserts a speed: lower bounds that hold
# by construction (every request waited the hold) and orderings. Servers
# run on free ports and are killed by PID in the trap. About 15 s.
. "$(dirname "$0")/lib.sh"
needs_feature http_parser
not_emulated "nginx and Python serve natively; the transfers are too slow under qemu"

PIDS=""
cleanup() {
	for p in $PIDS; do kill "$p" 2>/dev/null; done
	for p in $PIDS; do wait "$p" 2>/dev/null; done
	rm -rf "$T_TMP"
}
trap cleanup EXIT
trap 'cleanup; exit 1' HUP INT PIPE TERM

# Usage errors: exit 2, one line.
run fetch http://127.0.0.1:1/x --server-pid 2147483000
check "--server-pid of no process: exit 2, one line" sh -c "[ $RC = 2 ] && [ \$(wc -l <'$T_TMP/err') = 1 ] && grep -q 'no process' '$T_TMP/err'"
run fetch http://127.0.0.1:1/x --rtt 5q
check "--rtt 5q: exit 2" [ "$RC" = 2 ]
run fetch http://127.0.0.1:1/x --rtt 2s --timeout 1s
check "--rtt not shorter than --timeout: exit 2, one line" sh -c "[ $RC = 2 ] && [ \$(wc -l <'$T_TMP/err') = 1 ] && grep -q -- '--timeout' '$T_TMP/err'"
run fetch --help
check "--help names --rtt and --server-pid" sh -c "grep -q -- --rtt '$T_TMP/out' && grep -q -- --server-pid '$T_TMP/out'"

if ! command -v nginx >/dev/null 2>&1; then
	skip "real servers" "nginx is not installed (scripts/deps installs it)"
	done_testing
	exit
fi
port_free() { ! ss -Htan "( sport = :$1 )" 2>/dev/null | grep -q .; }
free_port() {
	p=$1
	while ! port_free "$p"; do p=$((p + 1)); done
	echo "$p"
}
wait_listen() {
	n=0
	while ! ss -Hltn "( sport = :$1 )" 2>/dev/null | grep -q . && [ $n -lt 50 ]; do sleep 0.1; n=$((n + 1)); done
	[ $n -lt 50 ]
}
NX="$T_TMP/nginx"
mkdir -p "$NX/www"
head -c 6291456 /dev/urandom >"$NX/www/file.bin"
# Sparse: served from the page cache's zero page, no disk behind it.
truncate -s 256M "$NX/www/big.bin"
PORT=$(free_port $((43000 + $$ % 1000)))
# One process (no master): its PID is the one that serves.
. "$(dirname "$0")/nginxlib.sh"
nginx_start "$NX" "$PORT" "master_process off;" "sendfile on; keepalive_requests 1000;" ""
ok_start=$?
NGINX=$NGINX_PID
PIDS="$PIDS $NGINX"
if [ $ok_start != 0 ]; then
	not_ok "nginx started" "$(cat "$NX/logs/error.log" 2>/dev/null)"
	done_testing
	exit
fi
U="http://127.0.0.1:$PORT/file.bin"
m() { jq -r ".results[0].metrics.$2" "$T_TMP/$1.json"; }

# --- --rtt: depth 1 pays the round trip per block, depth 8 overlaps it ---
for c in "d1|--block 60K --depth 1 --rtt 5ms" "d8|--block 60K --depth 8 --rtt 5ms" "d1norm|--block 60K --depth 1"; do
	# shellcheck disable=SC2086
	run fetch "$U" ${c#*|} --json --no-history
	cp "$T_TMP/out" "$T_TMP/${c%%|*}.json"
	check "${c#*|}: exit 0, all bytes" sh -c "[ $RC = 0 ] && [ \"\$(jq '.results[0].metrics.body_bytes' '$T_TMP/out')\" = 6291456 ]"
done
echo "# depth 1 with 5 ms: $(m d1 rate_bytes_per_second) B/s (model $(m d1 rtt_model_rate_bytes_per_second)); depth 8: $(m d8 rate_bytes_per_second) B/s (model $(m d8 rtt_model_rate_bytes_per_second)); depth 1 without: $(m d1norm rate_bytes_per_second) B/s"
# 103 requests each held 5 ms: the download took at least 103 x 5 ms, so
# the rate is at most block / rtt (the last block is shorter).
jqt "depth 1, --rtt 5ms: rate <= block / 5 ms (every request paid the round trip)" \
	'.results[0].metrics | .requests == 103 and .rate_bytes_per_second <= 61440 / 0.005' "$T_TMP/d1.json"
jqt "depth 1, --rtt 5ms: at most the model's rate (block / (rtt + fastest service))" \
	'.results[0].metrics | .rate_bytes_per_second <= 1.02 * .rtt_model_rate_bytes_per_second' "$T_TMP/d1.json"
jqt "depth 1, --rtt 5ms: the round trips' floor is 103 x 5 ms" \
	'.results[0].metrics.rtt_floor_seconds | . > 0.514 and . < 0.516' "$T_TMP/d1.json"
jqt "depth 8, --rtt 5ms: floor 13 x 5 ms, model 8 x block / (rtt + service)" \
	'.results[0].metrics | (.rtt_floor_seconds | . > 0.064 and . < 0.066) and
	 .rtt_model_rate_bytes_per_second > 4 * 61440 / 0.0055' "$T_TMP/d8.json"
check "depth 8 beats depth 1 by more than 2x with the same round trip (the model says up to 8x)" \
	awk -v a="$(m d1 rate_bytes_per_second)" -v b="$(m d8 rate_bytes_per_second)" 'BEGIN { exit !(a > 0 && b > 2 * a) }'
check "depth 1 without --rtt is faster than with it" \
	awk -v a="$(m d1 rate_bytes_per_second)" -v b="$(m d1norm rate_bytes_per_second)" 'BEGIN { exit !(a > 0 && b > a) }'
jqt "depth 1, --rtt 5ms: named an emulation in the method, the parameters and the verdict's evidence" \
	'.results[0] | (.method["emulated rtt"] | test("^EMULATION")) and .parameters.rtt == "5.00 ms emulated" and
	 ([.verdict.candidates[]? | select(.resource == "round trip") | .evidence | test("EMULATED")] | any) and
	 (.notes | any(test("EMULATED round trip")))' "$T_TMP/d1.json"
jqt "depth 1, --rtt 5ms: waiting a round trip most of the time" \
	'.results[0].metrics.idle_round_trip_percent > 50' "$T_TMP/d1.json"
jqt "without --rtt nothing says emulated" \
	'.results[0] | (.method | has("emulated rtt") | not) and (.metrics | has("emulated_rtt_ns") | not)' "$T_TMP/d1norm.json"

# --- --server-pid: the server's CPU per GB -----------------------------------
run fetch "http://127.0.0.1:$PORT/big.bin" --server-pid "$NGINX" --json --no-history
check "nginx --server-pid: exit 0" [ "$RC" = 0 ]
echo "# nginx (sendfile): $(jq -r '.results[0].metrics.server_cpu_per_gigabyte_seconds' "$T_TMP/out") CPU s per GB, $(jq -r '.results[0].metrics.rate_bytes_per_second' "$T_TMP/out") B/s"
jqt "nginx --server-pid: server CPU over the download and per GB, its method and process named" \
	'.results[0] | (.metrics | .server_cpu_seconds > 0 and .server_cpu_per_gigabyte_seconds > 0 and
	  .server_cpu_share_percent > 0) and .parameters.server_process == "nginx" and
	 (.method["server cpu"] | test("read at the first request and right after the last byte"))' "$T_TMP/out"

if ! command -v python3 >/dev/null 2>&1; then
	skip "python http.server --server-pid" "python3 is not installed"
else
	PPORT=$(free_port $((PORT + 1)))
	python3 -m http.server --bind 127.0.0.1 --directory "$NX/www" "$PPORT" >/dev/null 2>&1 </dev/null &
	PY=$!
	PIDS="$PIDS $PY"
	if wait_listen "$PPORT"; then
		run fetch "http://127.0.0.1:$PPORT/big.bin" --server-pid "$PY" --json --no-history --max-time 60s
		echo "# python http.server (copies): $(jq -r '.results[0].metrics.server_cpu_per_gigabyte_seconds' "$T_TMP/out") CPU s per GB"
		jqt "python http.server --server-pid: exit 0, server CPU per GB" \
			'.results[0] | .status == "ok" and .metrics.server_cpu_per_gigabyte_seconds > 0' "$T_TMP/out"
	else
		not_ok "python http.server started"
	fi
fi
done_testing
