#!/bin/sh
# SPDX-License-Identifier: MIT
# engpass net --mode rr / stream (seed 002): bad usage; on loopback with a
# server --delay, the exact counts (requests, bytes), the round trip seen
# through the delay, the depth kept, the server's accounting and verdict,
# server pacing; an iperf3 server facing an rr client; a client killed
# mid-test and garbage after the rr hello (the server survives both); a
# trickled rr hello and a stopped rr client keep the next one out no longer
# than --read-timeout.
# As root: seed 002 reproduced between two network namespaces joined by a
# veth pair limited to 1 Gbit/s with tbf, server --delay 1ms, 60 KiB
# blocks: depth 2 >= 1.6 x depth 1, stream >= depth 2, depth 1 within 25 %
# of block / (delay + block transfer time).
#
# Speeds are only compared with each other within one run, as the issue
# asks, never with a fixed figure. Namespaces, servers and files are
# removed in the trap, also on failure.
. "$(dirname "$0")/lib.sh"
not_emulated "network namespaces, and loopback transfers too slow to finish in time"
. "$(dirname "$0")/netlib.sh"

# jqcand NAME RESOURCE MIN FILE: the first result's verdict offers RESOURCE
# as a candidate with a share of at least MIN (or names it). Skipped while
# the runner writes no verdict.candidates (the ranked verdict of #18).
jqcand() {
	if ! jq -e '.results[0].verdict | has("candidates")' "$4" >/dev/null 2>&1; then
		skip "$1" "the runner writes no verdict.candidates yet"
		return
	fi
	jqt "$1" ".results[0].verdict | .resource == \"$2\" or
		(.candidates | map(select(.resource == \"$2\" and (.share // -1) >= $3)) | length > 0)" "$4"
}

PIDS=""
NS_S="eprr-s-$$"
NS_C="eprr-c-$$"
cleanup() {
	for p in $PIDS; do kill "$p" 2>/dev/null; done
	for p in $PIDS; do wait "$p" 2>/dev/null; done
	ip netns del "$NS_S" 2>/dev/null
	ip netns del "$NS_C" 2>/dev/null
	rm -rf "$T_TMP"
}
trap cleanup EXIT
trap 'cleanup; exit 1' INT TERM

# jqq ARGS...: jq -e, quiet (for check; jqt takes one filter and one file).
jqq() { jq -e "$@" >/dev/null 2>&1; }

start_server() {
	out=$1
	shift
	new_port
	"$ENGPASS" net server --port "$PORT" --idle-timeout 60s --json --no-history "$@" >"$out" 2>"$out.err" </dev/null &
	SPID=$!
	PIDS="$PIDS $SPID"
	wait_listen "$PORT"
}

# --- bad usage: one line, exit 2 ---
for args in "--block 60K" "--depth 2" "--mode rr -P 2" "--mode rr -R" "--mode stream --depth 2" "--size 1M" \
	"--mode rr --depth 0" "--mode rr --depth 1025" "--mode rr --block 17M" "--mode bogus"; do
	run net client 127.0.0.1 $args
	check "client $args: exit 2" [ "$RC" = 2 ]
	check "client $args: one line" [ "$(wc -l <"$T_TMP/err")" = 1 ]
done
run net server --mode rr
check "server --mode: exit 2" [ "$RC" = 2 ]
run net client 127.0.0.1 --delay 1ms --mode rr
check "client --delay: exit 2" [ "$RC" = 2 ]
grep -q "for the server" "$T_TMP/err" && ok "client --delay: says it is a server option" ||
	not_ok "client --delay: says it is a server option" "$(cat "$T_TMP/err")"

# --- loopback, server --delay 2ms ---
start_server "$T_TMP/srv.json" --delay 2ms
run net client 127.0.0.1 --port "$PORT" --mode rr --block 60K --depth 1 --size 3M --json --no-history
check "rr depth 1: exit 0" [ "$RC" = 0 ]
R="$T_TMP/rr1.json"
cp "$T_TMP/out" "$R"
jqt "rr depth 1: 52 requests, all 3 MiB" '.results[0] | .metrics.requests == 52 and .metrics.received_bytes == 3145728' "$R"
jqt "rr depth 1: RTT includes the 2 ms delay" '.results[0].metrics.rtt_ns >= 2000000' "$R"
jqt "rr depth 1: every request took the delay" '.results[0].histograms.request_latency_ns.min >= 2000000' "$R"
jqt "rr depth 1: one request in flight" '.results[0].metrics.depth_kept | (. > 0.9 and . <= 1.0001)' "$R"
jqcand "rr depth 1: round-trip bound" "round trip" 0.8 "$R"
jqt "rr depth 1: the client's busy share is recorded" '.results[0].metrics.client_busy_percent | (. >= 0 and . < 50)' "$R"
jqt "rr depth 1: the server was idle most of the time" '.results[0].metrics.server_idle_percent > 50' "$R"
# The physical bound: one request at a time, so the run took at least
# requests x the fastest request's latency (2 % for the clocks' edges).
jqt "rr depth 1: throughput within stop and wait's bound (bytes / (requests x fastest request))" \
	'.results[0] | .metrics.throughput_bytes_per_second <=
		1.02 * .metrics.received_bytes / (.metrics.requests * .histograms.request_latency_ns.min / 1e9)' "$R"
# The printed ceiling's round trip is the smaller of five empty requests'
# and the test's fastest request, so depth 1 stays under it (2 % for the
# clocks' edges).
jqt "rr depth 1: throughput at or below the printed stop-and-wait ceiling" \
	'.results[0].metrics | .throughput_bytes_per_second <= 1.02 * .stop_and_wait_ceiling_bytes_per_second' "$R"
jqt "rr depth 1: the ceiling is printed with its method" '.results[0].method.rtt and (.results[0].notes | map(test("stop-and-wait ceiling")) | any)' "$R"

run net client 127.0.0.1 --port "$PORT" --mode rr --block 64K --depth 4 --size 4M --json --no-history
R="$T_TMP/rr4.json"
cp "$T_TMP/out" "$R"
jqt "rr depth 4: 64 requests, 4 MiB" '.results[0] | .metrics.requests == 64 and .metrics.received_bytes == 4194304' "$R"
jqt "rr depth 4: about four in flight" '.results[0].metrics.depth_kept | (. > 3 and . <= 4.0001)' "$R"
A=$(jq '.results[0].metrics.throughput_bytes_per_second' "$T_TMP/rr1.json")
B=$(jq '.results[0].metrics.throughput_bytes_per_second' "$R")
check "rr depth 4 moves more than twice depth 1 over a 2 ms delay" awk -v a="$A" -v b="$B" 'BEGIN { exit !(b > 2 * a) }'

run net client 127.0.0.1 --port "$PORT" --mode stream --size 20M --json --no-history
R="$T_TMP/st.json"
cp "$T_TMP/out" "$R"
jqt "stream: one request, 20 MiB" '.results[0] | .metrics.requests == 1 and .metrics.received_bytes == 20971520 and .parameters.mode == "stream"' "$R"
run net client 127.0.0.1 --port "$PORT" --mode stream --time 500ms --json --no-history
jqt "stream --time: ends by itself with bytes moved" '.results[0] | .status == "ok" and .metrics.received_bytes > 0' "$T_TMP/out"

# a client killed mid-test, then garbage after a valid magic: the server goes on
"$ENGPASS" net client 127.0.0.1 --port "$PORT" --mode rr --time 30s --no-history -q >/dev/null 2>&1 &
KPID=$!
sleep 0.5
kill -9 "$KPID" 2>/dev/null
wait "$KPID" 2>/dev/null
printf 'EPASSRR\000\000\000\000\001' >"$T_TMP/bad"
head -c 52 /dev/zero >>"$T_TMP/bad"
printf '\000\000\000\011garbage-garbage-garbage-garbage-' >>"$T_TMP/bad"
timeout 5 bash -c "exec 3<>/dev/tcp/127.0.0.1/$PORT; cat '$T_TMP/bad' >&3; sleep 0.3" 2>/dev/null
run net client 127.0.0.1 --port "$PORT" --mode rr --size 600K --json --no-history
jqt "the server still serves after a killed client and garbage" '.results[0].metrics.requests == 10' "$T_TMP/out"
kill "$SPID"
wait "$SPID" 2>/dev/null
check "server: one result per session, the killed and the garbage one incomplete with the reason" \
	jqq -s 'map(.results[0] | select(.parameters.mode == "rr")) | length == 7 and
		(map(select(.incomplete)) | length == 2 and all(.notes | map(test("ended early: .")) | any))' "$T_TMP/srv.json"
check "server: the garbage session counted as a bad handshake or an early end" \
	jqq -s 'map(.results[0]) | map(select(.parameters.role == "server" and .parameters.mode == null)) | .[0].metrics | .bad_handshakes + .tests_ended_early >= 2' "$T_TMP/srv.json"

# --- pacing: --rate 20MB/s ---
start_server "$T_TMP/srv2.json" --rate 20MB/s
run net client 127.0.0.1 --port "$PORT" --mode stream --size 8M --json --no-history
jqcand "--rate: bound by its own pacing" "own pacing" 0.8 "$T_TMP/out"
jqt "--rate: the welcome tells the client" '.results[0].parameters.server_rate == "20000000 bytes/s"' "$T_TMP/out"
check "--rate: throughput near 20 MB/s (pacing, not speed: 15..21)" \
	jqq '.results[0].metrics.throughput_bytes_per_second | (. > 15e6 and . < 21e6)' "$T_TMP/out"
kill "$SPID"

# --- stalled peers: --read-timeout 2s ---
# An rr hello trickled a byte every 0.2 s (the handshake has one deadline,
# --read-timeout from the accept), then an rr client stopped mid-session
# (SIGSTOP: the session ends once nothing moved for --read-timeout): each
# keeps the next client out less than 2 s + its own run + 2 s.
secs_since() { awk -v t="$1" -v n="$(date +%s.%N)" 'BEGIN { printf "%.2f", n - t }'; }
within() { awk -v e="$1" -v l="$2" 'BEGIN { exit !(e < l) }'; }
start_server "$T_TMP/srv3.json" --read-timeout 2s
bash -c "exec 3<>/dev/tcp/127.0.0.1/$PORT; printf 'EPASSRR\000' >&3;
	for i in \$(seq 1 56); do printf '\000' >&3 || exit; sleep 0.2; done" 2>/dev/null &
HOLD=$!
PIDS="$PIDS $HOLD"
sleep 0.2
t0=$(date +%s.%N)
run net client 127.0.0.1 --port "$PORT" --mode rr --size 600K --json --no-history
el=$(secs_since "$t0")
jqt "behind a trickled rr hello: the client ran" '.results[0].metrics.requests == 10' "$T_TMP/out"
check "behind a trickled rr hello: served within 2 s + 2 s (took $el s)" within "$el" 4
kill "$HOLD" 2>/dev/null
"$ENGPASS" net client 127.0.0.1 --port "$PORT" --mode rr --time 60s --no-history -q >/dev/null 2>&1 </dev/null &
KPID=$!
sleep 0.5
kill -STOP "$KPID"
t0=$(date +%s.%N)
run net client 127.0.0.1 --port "$PORT" --mode rr --size 600K --json --no-history --connect-timeout 10s
el=$(secs_since "$t0")
kill -9 "$KPID" 2>/dev/null
wait "$KPID" 2>/dev/null
jqt "behind a stopped rr client: the next client ran" '.results[0].metrics.requests == 10' "$T_TMP/out"
check "behind a stopped rr client: served within 2 s + 2 s (took $el s)" within "$el" 4
kill "$SPID"
wait "$SPID" 2>/dev/null
check "server: the stopped session ended early, nothing moved for --read-timeout" \
	jqq -s 'map(.results[0] | select(.parameters.mode == "rr" and .incomplete)) | length == 1 and
		(.[0].notes | any(test("nothing moved for 2 s")))' "$T_TMP/srv3.json"

# --- an iperf3 server facing an rr client: one line, exit 1, no hang ---
if command -v iperf3 >/dev/null 2>&1; then
	new_port
	iperf3 -s -1 -p "$PORT" >/dev/null 2>&1 </dev/null &
	IPID=$!
	PIDS="$PIDS $IPID"
	wait_listen "$PORT"
	run net client 127.0.0.1 --port "$PORT" --mode rr --connect-timeout 2s --no-history
	check "iperf3 server: exit 1" [ "$RC" = 1 ]
	grep -q "iperf3 server" "$T_TMP/err" && ok "iperf3 server: named" || not_ok "iperf3 server: named" "$(cat "$T_TMP/err")"
	kill "$IPID" 2>/dev/null
else
	skip "iperf3 server: exit 1" "iperf3 not installed"
	skip "iperf3 server: named" "iperf3 not installed"
fi

# --- seed 002 between two namespaces over a 1 Gbit/s tbf link ---
NSWHY=""
if [ -n "${ENGPASS_SANITIZER:-}" ]; then
	NSWHY="built with ${ENGPASS_SANITIZER} sanitizers: the proof compares speeds, which they distort (the strict build runs it)"
elif [ "$(id -u)" != 0 ]; then
	NSWHY="needs root (network namespaces)"
elif ! ip netns add "$NS_S" 2>/dev/null; then
	NSWHY="cannot create a network namespace"
elif ! { ip netns add "$NS_C" &&
	ip link add "eprs$$" type veth peer name "eprc$$" &&
	ip link set "eprs$$" netns "$NS_S" && ip link set "eprc$$" netns "$NS_C" &&
	ip -n "$NS_S" addr add 10.201.0.1/24 dev "eprs$$" && ip -n "$NS_C" addr add 10.201.0.2/24 dev "eprc$$" &&
	ip -n "$NS_S" link set "eprs$$" up && ip -n "$NS_C" link set "eprc$$" up &&
	ip -n "$NS_S" link set lo up && ip -n "$NS_C" link set lo up; } 2>"$T_TMP/ns.err"; then
	NSWHY="veth setup failed: $(head -1 "$T_TMP/ns.err")"
elif ! ip netns exec "$NS_S" tc qdisc add dev "eprs$$" root tbf rate 1gbit burst 16kb latency 20ms 2>"$T_TMP/ns.err"; then
	NSWHY="no tbf qdisc: $(head -1 "$T_TMP/ns.err")"
fi
if [ -n "$NSWHY" ]; then
	for n in "depth 2 >= 1.6 x depth 1" "stream >= depth 2" "depth 1 within 25 % of block / (delay + transfer)"; do
		skip "namespaces: $n" "$NSWHY"
	done
else
	ip netns exec "$NS_S" "$ENGPASS" net server --port 5400 --delay 1ms --idle-timeout 60s --no-history -q \
		>/dev/null 2>&1 </dev/null &
	NSPID=$!
	PIDS="$PIDS $NSPID"
	sleep 0.5
	t() { jq '.results[0].metrics.throughput_bytes_per_second' "$T_TMP/ns-$1.json" 2>/dev/null || echo 0; }
	# One run of the three; on this shared machine a burst of other work
	# can stall the client's wake-ups in one run, so up to three runs are
	# made and each is printed; the assertions hold for one whole run.
	attempt=1
	while :; do
		for m in d1 d2 st; do
			case $m in
			d1) a="--mode rr --block 60K --depth 1" ;;
			d2) a="--mode rr --block 60K --depth 2" ;;
			st) a="--mode stream" ;;
			esac
			ip netns exec "$NS_C" "$ENGPASS" net client 10.201.0.1 --port 5400 $a --time 3s --json --no-history \
				>"$T_TMP/ns-$m.json" 2>"$T_TMP/ns-$m.err" </dev/null
		done
		D1=$(t d1) D2=$(t d2) ST=$(t st)
		echo "# namespaces, run $attempt, 1 Gbit/s tbf, --delay 1ms, 60 KiB: depth 1 $D1 B/s, depth 2 $D2 B/s, stream $ST B/s"
		R1=0 R2=0 R3=0
		awk -v a="$D1" -v b="$D2" 'BEGIN { exit !(a > 0 && b >= 1.6 * a) }' && R1=1
		awk -v a="$D2" -v b="$ST" 'BEGIN { exit !(a > 0 && b >= a) }' && R2=1
		# block / (delay + block transfer time at 1 Gbit/s)
		awk -v a="$D1" 'BEGIN { e = 61440 / (0.001 + 61440 * 8 / 1e9); exit !(a >= 0.75 * e && a <= 1.25 * e) }' && R3=1
		[ $((R1 + R2 + R3)) = 3 ] && break
		[ $attempt = 3 ] && break
		attempt=$((attempt + 1))
	done
	check "namespaces: depth 2 >= 1.6 x depth 1" [ $R1 = 1 ]
	check "namespaces: stream >= depth 2" [ $R2 = 1 ]
	check "namespaces: depth 1 within 25 % of block / (delay + transfer)" [ $R3 = 1 ]
	kill "$NSPID" 2>/dev/null
fi

done_testing
