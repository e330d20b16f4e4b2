#!/bin/sh
# SPDX-License-Identifier: MIT
# engpass watch on seed 004's daemon, scaled down: a single-threaded UDP
# relay (tests/helpers/udp_relay.c, a fixed CPU cost per datagram, standing
# in for fastd) pinned to cpu1 carries a ramped load between a namespace and
# this one over a veth pair, while a busy loop pinned to cpu0 makes cpu0 the
# busiest core. watch --pid RELAY must divide the traffic by cpu1's load
# (the relay's core), not cpu0's; report the load-traffic correlation r and
# the headroom in users (--per-user); and over veth say the link speed is
# unknown (virtual interface) instead of capping the total. --cpu 1 names
# the core directly; --baseline is subtracted, --baseline-time measured. net client --capacity over
# the same veth says the same about the link. Needs root and two CPUs;
# skipped with the reason otherwise. Speeds are never asserted. Everything
# started here is killed by PID, the namespace and veth deleted by name, in
# the trap. About 25 s.
. "$(dirname "$0")/lib.sh"

NS="ep-wr-$$"
VA="epwra$$"
VB="epwrb$$"
PIDS=""
cleanup() {
	for p in $PIDS; do kill "$p" 2>/dev/null; done
	for p in $PIDS; do wait "$p" 2>/dev/null; done
	ip link del "$VA" 2>/dev/null
	ip netns del "$NS" 2>/dev/null
	rm -rf "$T_TMP"
}
trap cleanup EXIT
trap 'cleanup; exit 1' HUP INT PIPE TERM

not_emulated "network namespaces and pinned CPU loads"
WHY=""
if [ "$(id -u)" != 0 ]; then
	WHY="needs root (network namespaces, veth)"
elif [ "$(nproc)" -lt 2 ]; then
	WHY="needs two CPUs (the relay and the competing load each pinned to one)"
elif [ -z "${ENGPASS_UDP_RELAY:-}" ] || [ ! -x "$ENGPASS_UDP_RELAY" ]; then
	WHY="ENGPASS_UDP_RELAY is not set (run through meson test)"
elif ! command -v taskset >/dev/null 2>&1; then
	WHY="taskset (util-linux) is not installed"
elif ! ip netns add "$NS" 2>/dev/null; then
	WHY="cannot create a network namespace"
elif ! { ip link add "$VA" type veth peer name "$VB" && ip link set "$VB" netns "$NS" &&
	ip addr add 10.231.0.1/24 dev "$VA" && ip -n "$NS" addr add 10.231.0.2/24 dev "$VB" &&
	ip link set "$VA" up && ip -n "$NS" link set "$VB" up && ip -n "$NS" link set lo up; } 2>"$T_TMP/ns.err"; then
	WHY="veth setup failed: $(head -1 "$T_TMP/ns.err")"
fi
if [ -n "$WHY" ]; then
	echo "1..0 # SKIP $WHY"
	exit 0
fi
R=$ENGPASS_UDP_RELAY
bg() { "$@" >/dev/null 2>&1 </dev/null & PIDS="$PIDS $!"; LAST=$!; }

# The sink in the namespace, the relay here on cpu1 (150 us per datagram),
# a busy loop on cpu0; the sender (in the namespace, on cpu0) ramps
# 1000..5000 datagrams/s of 1200 bytes in 0.5 s steps: 15..75 % of cpu1.
bg ip netns exec "$NS" taskset -c 0 "$R" sink 9001
bg taskset -c 1 "$R" relay 9000 10.231.0.2 9001 150
RELAY=$LAST
bg taskset -c 0 sh -c 'while :; do :; done'
sleep 0.3
send() { bg ip netns exec "$NS" taskset -c 0 "$R" send 10.231.0.1 9000 1200 "$1" 500 1000 2000 3000 4000 5000; }

# --- --pid: the relay's own core -------------------------------------------
send 7
run watch --pid "$RELAY" --iface "$VA" --time 5s --interval 250ms --min-busy 30 --per-user 1Mbit/s --json --no-history
check "watch --pid RELAY: exit 0" [ "$RC" = 0 ]
jq -r '.results[0].notes[]?' "$T_TMP/out" 2>/dev/null | sed 's/^/# /'
jqt "the relay ran on cpu1 (its pinning), cpu0 was the busiest core" \
	'.results[0].metrics | .proc_on_cpu1_percent > 90 and .busiest_cpu == 0' "$T_TMP/out"
# A refused estimate (the load did not follow the traffic: other work on a
# shared or sanitized box) has no core to check; the refusal is checked below.
jqt "the estimate divides by cpu1's load (the relay's core), not the busiest core's, or is refused" \
	'.results[0] | ((.metrics.est_cpu == 1) and (.method.estimate | test("the core the process ran on"))) or
	 (.notes | any(test("capacity estimate unavailable: ")))' "$T_TMP/out"
jqt "the load-traffic correlation r is reported in -1..1, or why it was not judged" \
	'.results[0] | (.metrics.est_r_ratio | . != null and . >= -1 and . <= 1) or
	 (.notes | any(test("correlation not judged: r .* over [0-9]+ intervals")))' "$T_TMP/out"
jqt "the correlation's method names the threshold" '.results[0].method.correlation | test("r < 0.5")' "$T_TMP/out"
if jq -e '.results[0].metrics | has("est_per_core_bits_per_second")' "$T_TMP/out" >/dev/null 2>&1; then
	jqt "--per-user: headroom in users, at most the users that fill the core" \
		'.results[0] | (.metrics | .est_users >= .est_users_more and .est_users_more >= 0) and
		 (.notes | any(test("HEADROOM \\(estimate\\): cpu1 at 100 %")))' "$T_TMP/out"
	jqt "an estimate given: r was strong (>= 0.5) or not judged" \
		'.results[0] | (.metrics.est_r_ratio // 1) >= 0.5 or (.notes | any(test("not judged")))' "$T_TMP/out"
	jqt "--pid: the cross-check by the relay's own CPU" \
		'.results[0].metrics | .est_own_per_core_bits_per_second > 0 and .est_own_cpu_percent > 0' "$T_TMP/out"
else
	# Other work on cpu1 (the shared test machine) can blur the slope: then
	# the refusal must say why.
	jqt "no estimate: the reason is given" '.results[0].notes | any(test("capacity estimate unavailable: "))' "$T_TMP/out"
	skip "--per-user: headroom in users" "no estimate in this run: $(jq -r '.results[0].method.estimate' "$T_TMP/out")"
fi
jqt "veth: link speed unknown (virtual interface), the total not capped" \
	'.results[0] | (.metrics | has("est_link_bits_per_second") | not) and
	 ((.notes | any(test("not capped: link speed unknown \\(virtual interface"))) or
	  (.notes | any(test("capacity estimate unavailable"))))' "$T_TMP/out"
jqt "no warning about the wrong core" '.results[0].notes | any(test("warning: the estimate divides")) | not' "$T_TMP/out"
sleep 2

# --- --cpu 1 and --baseline ---------------------------------------------------
send 5
run watch --cpu 1 --iface "$VA" --time 3s --interval 250ms --min-busy 30 --baseline 1Mbit/s --json --no-history
check "watch --cpu 1: exit 0" [ "$RC" = 0 ]
jq -r '.results[0].notes[]?' "$T_TMP/out" 2>/dev/null | sed 's/^/# /'
jqt "--cpu 1: the estimate divides by cpu1's load" \
	'.results[0] | (.metrics.est_cpu == 1 or (.notes | any(test("capacity estimate unavailable")))) and
	 .parameters.cpu == "1" and (.parameters.baseline | test("^1\\.0+ Mbit/s$"))' "$T_TMP/out"
jqt "--baseline: subtracted, said in the method" \
	'.results[0] | (.method.estimate | test("- baseline")) or (.notes | any(test("capacity estimate unavailable")))' \
	"$T_TMP/out"
sleep 2

# --- --baseline-time: an idle window measured first ----------------------------
run watch --cpu 1 --iface "$VA" --baseline-time 500ms --time 1s --interval 250ms --json --no-history
jqt "--baseline-time: the idle window's traffic and load measured first, said in the method" \
	'.results[0] | .status == "ok" and (.metrics | .baseline_traffic_bits_per_second >= 0 and
	 (.baseline_load_percent | . >= 0 and . <= 100)) and (.method.baseline | test("before the watch"))' "$T_TMP/out"

# --- bad combinations: exit 2, one line ----------------------------------------
run watch --baseline 1M --baseline-time 1s --iface "$VA" --time 1s
check "--baseline with --baseline-time: exit 2, one line" sh -c "[ $RC = 2 ] && [ \$(wc -l <'$T_TMP/err') = 1 ]"
run watch --per-user 1M --time 1s
check "--per-user without --iface: exit 2, one line" sh -c "[ $RC = 2 ] && [ \$(wc -l <'$T_TMP/err') = 1 ]"

# --- net client --capacity over the veth -------------------------------------
bg ip netns exec "$NS" "$ENGPASS" net server --port 5410 --idle-timeout 30s --no-history -q
n=0
while ! ip netns exec "$NS" ss -Hltn "( sport = :5410 )" 2>/dev/null | grep -q . && [ $n -lt 50 ]; do
	sleep 0.1; n=$((n + 1))
done
run net client 10.231.0.2 --port 5410 --time 1s --capacity --json --no-history
check "net client --capacity over veth: exit 0" [ "$RC" = 0 ]
jqt "net --capacity over veth: link speed unknown (virtual interface), not capped, no link candidate" \
	'.results[0] | (.metrics | has("client_link_speed_bits_per_second") | not) and
	 ((.method.capacity // "") | test("link speed unknown \\(virtual interface\\), not capped")) and
	 ([.verdict.candidates[]? | select(.resource == "link")] | length == 0)' "$T_TMP/out"
done_testing
