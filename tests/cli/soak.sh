#!/bin/bash
# SPDX-License-Identifier: MIT
# Soak (issue 10): `engpass net server` on loopback for SOAK_TESTS (default
# 1000) short tests from engpass clients (iperf3 protocol, rr and stream)
# and stock iperf3 clients, interleaved with garbage connections,
# half-open ones, wrong cookies, absurd lengths and clients killed
# mid-test. Asserts that every good test completed, that the server's open
# descriptors did not grow and its RSS grew by at most 1 MiB from after the
# first 50 tests (warm-up: allocator arenas, the sampler) to the end, and
# that it still answers at the end. Then `engpass exporter` under wrk for
# 10 s (4 connections) with malformed requests mixed in: it must keep
# answering, and its descriptors and RSS must not grow.
#
# bash, for /dev/tcp. Every process is killed by PID in the trap; the
# server and the exporter also stop by themselves (--idle-timeout, wrk -d).
. "$(dirname "$0")/lib.sh"
not_emulated "a thousand network tests take far too long on an emulated CPU"
. "$(dirname "$0")/netlib.sh"

N=${SOAK_TESTS:-1000}
PIDS=""
cleanup() {
	for p in $PIDS; do kill -9 "$p" 2>/dev/null; done
	for p in $PIDS; do wait "$p" 2>/dev/null; done
	rm -rf "$T_TMP"
}
trap cleanup EXIT
trap 'cleanup; exit 1' INT TERM

fds() { ls "/proc/$1/fd" 2>/dev/null | wc -l; }
rss_kib() { awk '/^VmRSS/ { print $2 }' "/proc/$1/status" 2>/dev/null; }
# send_bytes FILE: opens a connection, sends FILE, waits 0.2 s, closes.
send_bytes() {
	timeout 3 bash -c "exec 3<>/dev/tcp/127.0.0.1/$PORT; cat '$1' >&3; sleep 0.2" 2>/dev/null
}

# good_client KIND: one short test that must succeed; a busy server
# (ACCESS_DENIED while it still ends a killed client's test) is retried.
RETRIES=0
good_client() {
	for try in 1 2 3 4 5; do
		case $1 in
		tcp) "$ENGPASS" net client 127.0.0.1 --port "$PORT" --time 20ms --no-sample --no-history -q \
			--connect-timeout 5s >/dev/null 2>"$T_TMP/c.err" ;;
		rev) "$ENGPASS" net client 127.0.0.1 --port "$PORT" --time 20ms -R --no-sample --no-history -q \
			--connect-timeout 5s >/dev/null 2>"$T_TMP/c.err" ;;
		rr) "$ENGPASS" net client 127.0.0.1 --port "$PORT" --mode rr --depth 2 --size 256K --no-sample \
			--no-history -q --connect-timeout 5s >/dev/null 2>"$T_TMP/c.err" ;;
		iperf3) timeout 20 iperf3 -c 127.0.0.1 -p "$PORT" -n 64K >"$T_TMP/c.err" 2>&1 ;;
		esac && return 0
		grep -qi "busy" "$T_TMP/c.err" || { cat "$T_TMP/c.err" >&2; return 1; }
		RETRIES=$((RETRIES + 1))
		sleep 0.2
	done
	return 1
}

printf 'garbage\r\n%.0s' $(seq 40) >"$T_TMP/garbage"
head -c 36 /dev/zero | tr '\0' 'a' >"$T_TMP/cookie"
printf '\000' >>"$T_TMP/cookie"
cp "$T_TMP/cookie" "$T_TMP/hugelen"
printf '\377\377\377\377' >>"$T_TMP/hugelen"
printf 'abcdefghij' >"$T_TMP/half"
printf 'EPASSRR\000\000\000\000\001' >"$T_TMP/rrbad"
head -c 52 /dev/zero >>"$T_TMP/rrbad"
printf '\000\000\000\001\000\000\000\000\377\377\377\377\377\377\377\377' >>"$T_TMP/rrbad"

HAVE_IPERF3=0
command -v iperf3 >/dev/null 2>&1 && HAVE_IPERF3=1
new_port
"$ENGPASS" net server --bind 127.0.0.1 --port "$PORT" --read-timeout 300ms --idle-timeout 60s --no-history \
	--json >"$T_TMP/srv.json" 2>"$T_TMP/srv.err" </dev/null &
SPID=$!
PIDS="$PIDS $SPID"
wait_listen "$PORT"

GOOD=0 GOOD_OK=0 BAD=0 KILLED=0
START=$(date +%s)
i=1
while [ "$i" -le "$N" ]; do
	if [ "$i" = 51 ]; then
		FD0=$(fds "$SPID")
		RSS0=$(rss_kib "$SPID")
	fi
	if [ $((i % 10)) = 3 ]; then
		send_bytes "$T_TMP/garbage"; BAD=$((BAD + 1))
	elif [ $((i % 10)) = 7 ]; then
		case $((i / 10 % 4)) in
		0) send_bytes "$T_TMP/half" ;;		# half-open: part of a cookie, then silence
		1) send_bytes "$T_TMP/cookie" ;;	# a cookie, then no parameters
		2) send_bytes "$T_TMP/hugelen" ;;	# a 4 GiB parameters length
		3) send_bytes "$T_TMP/rrbad" ;;		# an rr hello, then a GET beyond every limit
		esac
		BAD=$((BAD + 1))
	elif [ $((i % 50)) = 25 ]; then
		# a client killed mid-test, at a random moment of its first 0.3 s
		"$ENGPASS" net client 127.0.0.1 --port "$PORT" --time 5s --no-history -q >/dev/null 2>&1 &
		k=$!
		sleep "0.$((RANDOM % 3))$((RANDOM % 10))"
		kill -9 "$k" 2>/dev/null
		wait "$k" 2>/dev/null
		KILLED=$((KILLED + 1))
	else
		case $((i % 4)) in
		0) kind=tcp ;;
		1) kind=rr ;;
		2) kind=rev ;;
		3) if [ "$HAVE_IPERF3" = 1 ]; then kind=iperf3; else kind=tcp; fi ;;
		esac
		GOOD=$((GOOD + 1))
		if good_client "$kind"; then GOOD_OK=$((GOOD_OK + 1)); else echo "# test $i ($kind) failed"; fi
	fi
	i=$((i + 1))
done
# The server ends a killed client's test after its read timeout at most.
sleep 0.5
FD1=$(fds "$SPID")
RSS1=$(rss_kib "$SPID")
echo "# soak: $N connections in $(($(date +%s) - START)) s: $GOOD good tests ($GOOD_OK completed, $RETRIES retries on busy), $BAD bad connections, $KILLED clients killed"
echo "# server fds after 50 tests $FD0, at the end $FD1; RSS after 50 tests $RSS0 KiB, at the end $RSS1 KiB"
check "soak: every good test completed ($GOOD_OK of $GOOD)" [ "$GOOD_OK" = "$GOOD" ]
check "soak: the server's descriptors did not grow ($FD0 -> $FD1)" [ "$FD1" -le "$FD0" ]
if [ -n "${ENGPASS_SANITIZER:-}" ]; then
	skip "soak: the server's RSS grew by at most 1 MiB" "built with ${ENGPASS_SANITIZER} sanitizers, whose quarantine holds freed memory"
else
	check "soak: the server's RSS grew by at most 1 MiB ($RSS0 -> $RSS1 KiB)" [ "$RSS1" -le $((RSS0 + 1024)) ]
fi
good_client tcp
check "soak: the server still answers at the end" [ $? = 0 ]
kill "$SPID"
wait "$SPID" 2>/dev/null
if jq -e -s --argjson g "$GOOD" 'last | .results[0].metrics | .tests >= $g + 1 and
	.bad_handshakes + .tests_ended_early + .denied >= 1' "$T_TMP/srv.json" >/dev/null 2>&1; then
	ok "soak: one summary at the end, every good test counted"
else
	not_ok "soak: one summary at the end, every good test counted" "$(tail -c 300 "$T_TMP/srv.json")"
fi

# --- the exporter under wrk, with malformed requests mixed in ---
if ! command -v wrk >/dev/null 2>&1; then
	for n in "still answers" "descriptors" "RSS" "wrk got answers"; do skip "exporter soak: $n" "wrk not installed"; done
	done_testing
	exit $?
fi
DB="$T_TMP/h.db"
"$ENGPASS" null --db "$DB" -q >/dev/null 2>&1
new_port
"$ENGPASS" exporter --listen "127.0.0.1:$PORT" --db "$DB" >"$T_TMP/exp.out" 2>"$T_TMP/exp.err" </dev/null &
EPID=$!
PIDS="$PIDS $EPID"
wait_listen "$PORT"
curl -s -o /dev/null "http://127.0.0.1:$PORT/metrics"
FD0=$(fds "$EPID")
RSS0=$(rss_kib "$EPID")
wrk -t1 -c4 -d10s "http://127.0.0.1:$PORT/metrics" >"$T_TMP/wrk.out" 2>&1 &
WPID=$!
PIDS="$PIDS $WPID"
printf 'GET /%08000d HTTP/1.1\r\n\r\n' 0 >"$T_TMP/long"
printf 'POST /metrics HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello' >"$T_TMP/post"
printf 'GET /metrics HTTP/1.1\r\nHost: x\r\n' >"$T_TMP/unfinished"
printf '\r\n\r\n\r\n' >"$T_TMP/empty"
MAL=0
while kill -0 "$WPID" 2>/dev/null; do
	for f in garbage long post unfinished empty; do
		send_bytes "$T_TMP/$f"
		MAL=$((MAL + 1))
	done
	sleep 0.3
done
wait "$WPID"
FD1=$(fds "$EPID")
RSS1=$(rss_kib "$EPID")
REQS=$(awk '/requests in/ { print $1 }' "$T_TMP/wrk.out")
echo "# exporter: wrk $REQS requests in 10 s with $MAL malformed ones mixed in; fds $FD0 -> $FD1, RSS $RSS0 -> $RSS1 KiB"
check "exporter soak: still answers" curl -sf -o /dev/null --max-time 5 "http://127.0.0.1:$PORT/metrics"
check "exporter soak: descriptors did not grow ($FD0 -> $FD1)" [ "$FD1" -le "$FD0" ]
if [ -n "${ENGPASS_SANITIZER:-}" ]; then
	skip "exporter soak: RSS grew by at most 1 MiB" "built with ${ENGPASS_SANITIZER} sanitizers, whose quarantine holds freed memory"
else
	check "exporter soak: RSS grew by at most 1 MiB ($RSS0 -> $RSS1 KiB)" [ "$RSS1" -le $((RSS0 + 1024)) ]
fi
check "exporter soak: wrk got answers" [ "${REQS:-0}" -gt 100 ]
kill "$EPID"
wait "$EPID" 2>/dev/null
done_testing
