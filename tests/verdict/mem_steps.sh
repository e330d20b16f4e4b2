#!/bin/sh
# SPDX-License-Identifier: MIT
# Verdict injection (#18), mem steps: the pointer chase (`mem --latency`
# out to 4 x the last-level cache, past_llc in tests/cli/lib.sh) keeps a
# core busy waiting for DRAM, which must be named "memory latency", not
# "one core"; the STREAM-like kernels (`mem --bandwidth` over 3 arrays of
# that size) must be named "memory bandwidth". A box whose cache makes that
# set too large for the test's time or memory skips both, saying why. The
# twins stay inside the caches (latency out to 256 KiB, bandwidth over
# 3 x 64 KiB, or less on a box with a smaller last-level cache) and must not
# name them. No limit is injected: the memory itself is the limiter. The
# figure: the load latency at the largest size and the triad rate.
. "$(dirname "$0")/lib.sh"

FIGL='"largest size: \([.metrics | to_entries[] | select(.key | test("^lat_.*_ns$"))] | last | "\(.key) = \(.value * 10 | floor / 10) ns")"'
FIGB='"triad \(.metrics.triad_bytes_per_second / 1e9 * 10 | floor / 10) GB/s, read \(.metrics.read_bytes_per_second / 1e9 * 10 | floor / 10) GB/s"'

# shellcheck disable=SC2086
mem_case() {
	mf=$1 ml=$2 mw=$3 mfig=$4
	shift 4
	ep "$mf" "$ENGPASS" "$@" $EP_OPTS
	matrix "$mw" "engpass $*" "$mfig" "$mf"
	expect_ran "$mf" "$ml"
}

past_llc 3
if [ -n "$PAST_WHY" ]; then
	skip "latency past the cache" "$PAST_WHY"
	skip "bandwidth past the cache" "$PAST_WHY"
else
	mem_case "$T_TMP/lat.json" "latency ${PAST_MIB}M" "none (DRAM: pointer chase to $PAST_MIB MiB, 4 x LLC)" "$FIGL" \
		mem --latency --size "${PAST_MIB}M" --passes 1
	expect_named "memory latency" "$T_TMP/lat.json" "latency ${PAST_MIB}M"
	mem_case "$T_TMP/bw.json" "bandwidth ${PAST_MIB}M" "none (DRAM: 3 x $PAST_MIB MiB arrays, 4 x LLC)" "$FIGB" \
		mem --bandwidth --size "${PAST_MIB}M" --passes 3
	expect_named "memory bandwidth" "$T_TMP/bw.json" "bandwidth ${PAST_MIB}M"
fi

TL=$(in_llc_kib 256 4)
TB=$(in_llc_kib 64 8)
mem_case "$T_TMP/tlat.json" "latency twin" "none (twin: in cache, to $TL KiB)" "$FIGL" mem --latency --size "${TL}K" --passes 1
expect_not_named "memory latency" "$T_TMP/tlat.json" "latency twin"
mem_case "$T_TMP/tbw.json" "bandwidth twin" "none (twin: in cache, 3 x $TB KiB)" "$FIGB" mem --bandwidth --size "${TB}K" --passes 3
expect_not_named "memory bandwidth" "$T_TMP/tbw.json" "bandwidth twin"

done_testing
