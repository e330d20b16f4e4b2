#!/bin/sh
# SPDX-License-Identifier: MIT
# Verdict injection (#18), shaper: two network namespaces joined by a veth
# pair, a tbf qdisc of 100 Mbit/s (burst 32kbit, latency 50ms) on the
# sending side (the client's veth: the client sends), `engpass net server`
# in one namespace and `engpass net client` in the other, TCP and UDP
# (-u -b 200Mbit/s, twice the shaped rate). Both must name "shaper"; the twins,
# the same veth with tbf removed, must not. The figure: the receiver's
# Mbit/s (about 95 through tbf) and the tbf counters. Then the same tbf
# shared with iperf3 -P 4: still "shaper", and the evidence says whose TCP
# traffic it was (iperf3's part and the work's, core/observe/netwho.h).
. "$(dirname "$0")/lib.sh"
need_root "network namespaces and tc"
need_cmd ip tc ss
netns_pair || vt_skip_all "$NS_WHY"
ip netns exec "$NS_C" tc qdisc add dev "$VETH_C" root tbf rate 100mbit burst 32kbit latency 50ms 2>"$T_TMP/tc.err" ||
	vt_skip_all "no tbf qdisc: $(head -1 "$T_TMP/tc.err")"

PORT=5401
bg "$T_TMP/server.out" ip netns exec "$NS_S" "$ENGPASS" net server --port $PORT --idle-timeout 60s --no-history -q
ns_wait_listen "$NS_S" $PORT || vt_skip_all "engpass net server did not listen in $NS_S"

FIG='"\(.metrics.throughput_bits_per_second / 1e6 * 10 | floor / 10) Mbit/s received, \(.metrics.up_retransmits // 0) retransmits, \(.metrics.up_lost_packets // .metrics.up_lost // "-") lost"'
TCP="net client 10.201.0.1 --port $PORT --time 2s"
UDP="net client 10.201.0.1 --port $PORT --time 2s -u -b 200Mbit/s"
tbf_stats() {
	echo "# tbf on $VETH_C: $(ip netns exec "$NS_C" tc -s qdisc show dev "$VETH_C" | tr -s ' \n' ' ' | cut -c1-200)"
}

# case FILE LABEL WHAT CMD...: one run from the client namespace.
net_case() {
	nf=$1 nl=$2 nw=$3
	shift 3
	# shellcheck disable=SC2086
	ep "$nf" ip netns exec "$NS_C" "$ENGPASS" "$@" $EP_OPTS
	matrix "$nw" "engpass $* (client ns)" "$FIG" "$nf"
	expect_ran "$nf" "$nl"
}

# With --verify (issue 38): the shaper is named first (a configured limit
# reached to 90 % ranks first), so it is never relaxed: its own counters
# (the tbf's overlimits, drops, backlog) confirm it, and no probe runs.
# shellcheck disable=SC2086
net_case "$T_TMP/tcp.json" "tbf, TCP" "tbf 100mbit on the client's veth" $TCP --verify
tbf_stats
expect_figure "tbf, TCP: 80..101 Mbit/s (the shaper was in force)" \
	'.metrics.throughput_bits_per_second >= 80e6 and .metrics.throughput_bits_per_second <= 101e6' "$T_TMP/tcp.json"
expect_named "shaper" "$T_TMP/tcp.json" "tbf, TCP"
expect_figure "tbf, TCP --verify: the shaper confirmed by its counters, never changed (no probe ran)" \
	'.verdict.verification.resource == "shaper" and .verdict.verification.outcome == "confirmed by counters" and
	 (.verdict.verification.why | test("overlimits")) and .verdict.verification.probe_seconds == 0' "$T_TMP/tcp.json"

# shellcheck disable=SC2086
net_case "$T_TMP/udp.json" "tbf, UDP" "tbf 100mbit on the client's veth" $UDP
tbf_stats
expect_figure "tbf, UDP: 80..101 Mbit/s received (the shaper was in force)" \
	'.metrics.throughput_bits_per_second >= 80e6 and .metrics.throughput_bits_per_second <= 101e6' "$T_TMP/udp.json"
expect_named "shaper" "$T_TMP/udp.json" "tbf, UDP"

# The same shaper shared with another process's TCP stream (iperf3 through
# the same tbf): still "shaper", and its evidence says whose traffic it
# was (per-socket bytes over sock_diag, core/observe/netwho.h).
if command -v iperf3 >/dev/null 2>&1; then
	bg "$T_TMP/iperf3s.out" ip netns exec "$NS_S" iperf3 -s -p 5402 -1
	ns_wait_listen "$NS_S" 5402 || true
	bg "$T_TMP/iperf3c.out" ip netns exec "$NS_C" iperf3 -c 10.201.0.1 -p 5402 -t 6 -P 4
	IPC=$BG_PID
	sleep 0.5
	# shellcheck disable=SC2086
	net_case "$T_TMP/shared.json" "tbf shared with iperf3 -P 4" "tbf 100mbit, an iperf3 stream beside (4 connections)" $TCP
	stop_pid "$IPC"
	expect_named "shaper" "$T_TMP/shared.json" "tbf shared with iperf3 -P 4"
	if jq -e "$VT_RES | all(.verdict.evidence | test(\"iperf3 \\\\(pid [0-9]+\\\\) moved [0-9]+ %, the work [0-9]+ %\"))" \
		"$T_TMP/shared.json" >/dev/null 2>&1; then
		ok "tbf shared with iperf3 -P 4: the evidence says iperf3 moved part of the TCP traffic, and the work its part"
	else
		not_ok "tbf shared with iperf3 -P 4: the evidence says iperf3 moved part of the TCP traffic, and the work its part" \
			"got: $(jq -r "${VT_RES}[0].verdict.evidence" "$T_TMP/shared.json" 2>/dev/null)"
	fi
	expect_figure "tbf shared with iperf3 -P 4: the work's own TCP bytes are counted" \
		'.system.tcp_work_bytes > 0 and .system.tcp_bytes >= .system.tcp_work_bytes' "$T_TMP/shared.json"
else
	skip "tbf shared with iperf3: ran" "iperf3 is not installed"
fi

# Issue 36: --capacity behind the shaper is capped by it, and says so.
# shellcheck disable=SC2086
net_case "$T_TMP/cap.json" "tbf, TCP --capacity" "tbf 100mbit on the client's veth" $TCP --capacity
if jq -e '.results[0].metrics.capacity_total_bits_per_second' "$T_TMP/cap.json" >/dev/null 2>&1; then
	echo "# capacity: $(jq -r '.results[0] | "\(.metrics.capacity_total_bits_per_second / 1e6 | floor) Mbit/s; \(.method.capacity)"' "$T_TMP/cap.json")"
	expect_figure "tbf, --capacity: all cores capped at the shaper's 100 Mbit/s, said in the method" \
		'.metrics.capacity_total_bits_per_second <= 100e6 and (.method.capacity | test("tbf shaper on the path allows 100"))' "$T_TMP/cap.json"
else
	skip "tbf, --capacity: capped by the shaper" "no estimate: $(jq -r '[.results[0].notes[] | select(test("no capacity"))][0]' "$T_TMP/cap.json" 2>/dev/null)"
fi

ip netns exec "$NS_C" tc qdisc del dev "$VETH_C" root
# shellcheck disable=SC2086
net_case "$T_TMP/ttcp.json" "twin, TCP" "none (twin of tbf: tbf removed)" $TCP
expect_figure "twin, TCP: above 150 Mbit/s (no shaper)" '.metrics.throughput_bits_per_second > 150e6' "$T_TMP/ttcp.json"
expect_not_named "shaper" "$T_TMP/ttcp.json" "twin, TCP"

# shellcheck disable=SC2086
net_case "$T_TMP/tudp.json" "twin, UDP" "none (twin of tbf: tbf removed)" $UDP
expect_figure "twin, UDP: above 150 Mbit/s (no shaper)" '.metrics.throughput_bits_per_second > 150e6' "$T_TMP/tudp.json"
expect_not_named "shaper" "$T_TMP/tudp.json" "twin, UDP"

done_testing
