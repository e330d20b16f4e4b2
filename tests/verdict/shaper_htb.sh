#!/bin/sh
# SPDX-License-Identifier: MIT
# Verdict injection (issue 34, point 5b), an htb class judged by what it
# can reach: a class passes more than its rate only by borrowing from a
# parent class. Two network namespaces joined by a veth pair (as
# shaper.sh), an htb on the client's veth (the client sends):
#   - one class directly under the qdisc, rate 30mbit ceil 60mbit: nothing
#     lends, it passes about 29 Mbit/s; the verdict must name "shaper" with
#     the limit 30 Mbit/s (it was judged against the ceil: "shaper 50 %");
#   - the twin, a parent class 1:1 of rate 60mbit lending to the child 1:10
#     (rate 30mbit ceil 60mbit): it passes about 58 Mbit/s and is judged
#     against 60 Mbit/s, never 30 (which would be a share near 2).
. "$(dirname "$0")/lib.sh"
need_root "network namespaces and tc"
need_cmd ip tc ss jq
netns_pair || vt_skip_all "$NS_WHY"
tcc() {
	ip netns exec "$NS_C" tc "$@" 2>"$T_TMP/tc.err"
}
tcc qdisc add dev "$VETH_C" root handle 1: htb default 10 ||
	vt_skip_all "no htb qdisc: $(head -1 "$T_TMP/tc.err")"
tcc class add dev "$VETH_C" parent 1: classid 1:10 htb rate 30mbit ceil 60mbit ||
	vt_skip_all "cannot add an htb class: $(head -1 "$T_TMP/tc.err")"

PORT=5403
bg "$T_TMP/server.out" ip netns exec "$NS_S" timeout 100 "$ENGPASS" net server --port $PORT --idle-timeout 60s --no-history -q
ns_wait_listen "$NS_S" $PORT || vt_skip_all "engpass net server did not listen in $NS_S"

FIG='"\(.metrics.throughput_bits_per_second / 1e6 * 10 | floor / 10) Mbit/s received; limit shaper \(.method["limit shaper"] // "-" | split(" (")[0])"'
TCP="net client 10.201.0.1 --port $PORT --time 2s"
SHARE='[.verdict.candidates[]? | select(.resource == "shaper") | .share][0] // 0'
htb_stats() {
	echo "# htb on $VETH_C: $(ip netns exec "$NS_C" tc -s class show dev "$VETH_C" | tr -s ' \n' ' ' | cut -c1-300)"
}

# shellcheck disable=SC2086
ep "$T_TMP/root.json" ip netns exec "$NS_C" timeout 30 "$ENGPASS" $TCP $EP_OPTS
matrix "htb class 1:10 under the qdisc, rate 30mbit ceil 60mbit" "engpass $TCP (client ns)" "$FIG" "$T_TMP/root.json"
htb_stats
expect_ran "$T_TMP/root.json" "root class"
expect_figure "root class: 20..31 Mbit/s (its rate was in force, not its ceil)" \
	'.metrics.throughput_bits_per_second >= 20e6 and .metrics.throughput_bits_per_second <= 31e6' "$T_TMP/root.json"
expect_figure "root class: the limit is its rate, 30 Mbit/s" '.method["limit shaper"] | startswith("30.0 Mbit/s")' \
	"$T_TMP/root.json"
expect_named "shaper" "$T_TMP/root.json" "root class"
expect_figure "root class: the shaper's share 0.8..1.05 (of 30, not 60)" "($SHARE) >= 0.8 and ($SHARE) <= 1.05" \
	"$T_TMP/root.json"

tcc qdisc del dev "$VETH_C" root
tcc qdisc add dev "$VETH_C" root handle 1: htb default 10 &&
	tcc class add dev "$VETH_C" parent 1: classid 1:1 htb rate 60mbit ceil 60mbit &&
	tcc class add dev "$VETH_C" parent 1:1 classid 1:10 htb rate 30mbit ceil 60mbit ||
	vt_skip_all "cannot build the htb tree: $(head -1 "$T_TMP/tc.err")"
# shellcheck disable=SC2086
ep "$T_TMP/lend.json" ip netns exec "$NS_C" timeout 30 "$ENGPASS" $TCP $EP_OPTS
matrix "htb class 1:10 rate 30mbit ceil 60mbit under 1:1 rate 60mbit (twin: a parent lends)" \
	"engpass $TCP (client ns)" "$FIG" "$T_TMP/lend.json"
htb_stats
expect_ran "$T_TMP/lend.json" "parent lends"
expect_figure "parent lends: 40..61 Mbit/s (borrowed beyond the child's rate)" \
	'.metrics.throughput_bits_per_second >= 40e6 and .metrics.throughput_bits_per_second <= 61e6' "$T_TMP/lend.json"
expect_figure "parent lends: the limit is 60 Mbit/s, not the child's rate" \
	'.method["limit shaper"] | startswith("60.0 Mbit/s")' "$T_TMP/lend.json"
expect_figure "parent lends: the shaper's share at most 1.05 (judged against 60, not 30)" "($SHARE) <= 1.05" \
	"$T_TMP/lend.json"

done_testing
