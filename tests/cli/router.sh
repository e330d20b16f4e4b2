#!/bin/sh
# SPDX-License-Identifier: MIT
# The router build under qemu (scripts/cross full: static mipsel/musl with
# jansson, http-parser, libsodium and mbedTLS; docs/embedded.md): the field
# reports' commands run and measure on the emulated CPU, nothing skipped for
# a missing library:
#   - `net server` answers a stock iperf3 client (TCP), the bytes agreeing;
#   - `net client` completes against a stock iperf3 server, bytes agreeing;
#   - `cpu` measures fastd's and Transmission's ciphers, naming the library;
#   - `fetch` downloads byte-exact from nginx;
#   - `quick --no-net` finishes, says it stored nothing, writes its JSON.
# Only in an emulated build that has those libraries (the native build runs
# the same commands, and more, in net.sh, cpu.sh, fetch.sh and quick.sh).
# Loopback transfers are short (1 s); the servers are killed by PID in the trap.
. "$(dirname "$0")/lib.sh"
[ -n "${ENGPASS_EMULATED:-}" ] || { echo "1..0 # SKIP only for a cross build under qemu (the native build: net.sh, cpu.sh, fetch.sh, quick.sh)"; exit 0; }
needs_feature jansson libsodium http_parser
. "$(dirname "$0")/netlib.sh"
command -v iperf3 >/dev/null 2>&1 || { echo "1..0 # SKIP iperf3 is not installed (scripts/deps)"; exit 0; }

PIDS=""
cleanup() {
	kill_pids
	rm -rf "$T_TMP"
}
trap cleanup EXIT
trap 'cleanup; exit 1' INT TERM


# --- net server, stock iperf3 client
new_port
"$ENGPASS" net server --port "$PORT" --one-off --idle-timeout 60s --json >"$T_TMP/srv" 2>"$T_TMP/srv.err" </dev/null &
SPID=$!
PIDS="$PIDS $SPID"
if wait_listen "$PORT" || wait_listen "$PORT"; then
	iperf3 -c 127.0.0.1 -p "$PORT" -t 1 -J >"$T_TMP/i.json" 2>&1
	jqt "iperf3 client against the emulated server: no error, bytes sent" \
		'.error == null and .end.sum_sent.bytes > 0' "$T_TMP/i.json"
	wait "$SPID"
	check "emulated server: exit 0 after --one-off" [ $? = 0 ]
	ratio "emulated server received what iperf3 sent" \
		"$(jq -s '[.[].results[]? | select(.parameters.client != null)][0].metrics.up_received_bytes // 0' "$T_TMP/srv")" \
		"$(jq .end.sum_sent.bytes "$T_TMP/i.json")" 0.95 1.0
else
	not_ok "emulated server listens" "$(cat "$T_TMP/srv.err")"
fi

# --- net client, stock iperf3 server
new_port
iperf3 -s -1 -J -p "$PORT" >"$T_TMP/s.json" 2>&1 </dev/null &
IPID=$!
PIDS="$PIDS $IPID"
wait_listen "$PORT"
run net client 127.0.0.1 --port "$PORT" --time 1s --json --no-history
check "emulated client against iperf3 -s: exit 0" [ "$RC" = 0 ]
wait "$IPID"
ratio "iperf3 server received what the emulated client sent" \
	"$(jq .end.sum_received.bytes "$T_TMP/s.json")" \
	"$(jq '.results[0].metrics.up_sent_bytes // 0' "$T_TMP/out")" 0.95 1.0

# --- cpu: fastd's and Transmission's ciphers, each measured, library named
run cpu --cipher salsa2012,chacha20-poly1305,aes-128-ctr,aes-256-gcm,rc4 --size 1400 --time 200ms --json --no-history
check "cpu: exit 0" [ "$RC" = 0 ]
for c in salsa2012 chacha20-poly1305 aes-128-ctr aes-256-gcm rc4; do
	jqt "cpu: $c measured, library and version named" \
		"[.results[] | select(.parameters.cipher == \"$c\" and .status == \"ok\" and .metrics.cpu_throughput_bytes_per_second > 0
		  and (.method.library | length > 0))] | length >= 1" "$T_TMP/out"
done

# --- fetch from nginx, byte-exact
if command -v nginx >/dev/null 2>&1; then
	. "$(dirname "$0")/nginxlib.sh"
	NX="$T_TMP/nginx"
	mkdir -p "$NX/www"
	head -c 2097152 /dev/urandom >"$NX/www/file.bin"
	new_port
	if nginx_start "$NX" "$PORT" "worker_processes 1;" "" ""; then
		PIDS="$PIDS $NGINX_PID"
		run fetch "http://127.0.0.1:$PORT/file.bin" --output "$T_TMP/got" --json --no-history
		check "fetch from nginx: exit 0" [ "$RC" = 0 ]
		check "fetch from nginx: byte-exact" cmp -s "$NX/www/file.bin" "$T_TMP/got"
	else
		PIDS="$PIDS $NGINX_PID"
		not_ok "nginx started" "$(cat "$NX/logs/error.log" 2>/dev/null)"
	fi
else
	skip "fetch from nginx" "nginx is not installed (scripts/deps installs it)"
fi

# --- quick without the network: no SQLite in the router build
run quick --no-net --skip disk,latency --json --no-report
check "quick --no-net: exit 0" [ "$RC" = 0 ]
jqt "quick --no-net: JSON with cpu and mem results" \
	'[.results[] | select(.status == "ok")] | length >= 2' "$T_TMP/out"
check "quick: says the history was not stored" grep -q "history not stored" "$T_TMP/err" "$T_TMP/out"

done_testing
