#!/bin/sh
# SPDX-License-Identifier: MIT
# Verdict injection (#18), own pacing: `engpass net client -b 50Mbit/s` on
# loopback, UDP and TCP (engpass paces TCP too when -b is given): the
# benchmark met the rate it was told, which must be named "own pacing".
# The twins run unpaced -- TCP without -b, UDP with -b 0 (without -b UDP
# is paced at iperf3's default 1 Mbit/s, which is own pacing as well) --
# and must not name it. The figure: the receiver's Mbit/s and the rate
# asked.
. "$(dirname "$0")/lib.sh"
need_cmd ss

new_port
bg "$T_TMP/server.out" "$ENGPASS" net server --port "$PORT" --idle-timeout 60s --no-history -q
wait_listen "$PORT" || vt_skip_all "engpass net server did not listen on port $PORT"
FIG='"\(.metrics.throughput_bits_per_second / 1e6 * 10 | floor / 10) Mbit/s received, asked \(.parameters.bitrate // "unpaced")"'
C="net client 127.0.0.1 --port $PORT --time 2s"

# pace_case FILE LABEL WHAT ARGS...
pace_case() {
	pf=$1 pl=$2 pw=$3
	shift 3
	# shellcheck disable=SC2086
	ep "$pf" "$ENGPASS" $C "$@" $EP_OPTS
	matrix "$pw" "engpass $C $*" "$FIG" "$pf"
	expect_ran "$pf" "$pl"
}

pace_case "$T_TMP/udp.json" "UDP -b 50Mbit/s" "-b 50Mbit/s" -u -b 50Mbit/s
expect_figure "UDP -b 50Mbit/s: 45..51 Mbit/s (the pacing held)" \
	'.metrics.throughput_bits_per_second >= 45e6 and .metrics.throughput_bits_per_second <= 51e6' "$T_TMP/udp.json"
expect_named "own pacing" "$T_TMP/udp.json" "UDP -b 50Mbit/s"

pace_case "$T_TMP/tcp.json" "TCP -b 50Mbit/s" "-b 50Mbit/s" -b 50Mbit/s
expect_figure "TCP -b 50Mbit/s: 45..51 Mbit/s (the pacing held)" \
	'.metrics.throughput_bits_per_second >= 45e6 and .metrics.throughput_bits_per_second <= 51e6' "$T_TMP/tcp.json"
expect_named "own pacing" "$T_TMP/tcp.json" "TCP -b 50Mbit/s"

pace_case "$T_TMP/tudp.json" "UDP twin" "none (twin: UDP -b 0, unpaced)" -u -b 0
expect_figure "UDP twin: above 60 Mbit/s (unpaced)" '.metrics.throughput_bits_per_second > 60e6' "$T_TMP/tudp.json"
expect_not_named "own pacing" "$T_TMP/tudp.json" "UDP twin"

pace_case "$T_TMP/ttcp.json" "TCP twin" "none (twin: TCP, no -b)"
expect_figure "TCP twin: above 60 Mbit/s (unpaced)" '.metrics.throughput_bits_per_second > 60e6' "$T_TMP/ttcp.json"
expect_not_named "own pacing" "$T_TMP/ttcp.json" "TCP twin"

done_testing
