#!/bin/sh
# SPDX-License-Identifier: MIT
# Verdict injection (#18), mem steps: the pointer chase (`mem --latency`
# out to 64 MiB, past any last-level cache here) keeps a core busy waiting
# for DRAM, which must be named "memory latency", not "one core"; the
# STREAM-like kernels (`mem --bandwidth` over 3 x 64 MiB) must be named
# "memory bandwidth". The twins stay inside the caches (latency out to
# 256 KiB, bandwidth over 3 x 64 KiB) and must not name them. No limit is
# injected: the memory itself is the limiter. The figure: the load latency
# at the largest size and the triad rate.
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

mem_case "$T_TMP/lat.json" "latency 64M" "none (DRAM: pointer chase to 64 MiB)" "$FIGL" mem --latency --size 64M --passes 1
expect_named "memory latency" "$T_TMP/lat.json" "latency 64M"
mem_case "$T_TMP/bw.json" "bandwidth 64M" "none (DRAM: 3 x 64 MiB arrays)" "$FIGB" mem --bandwidth --size 64M --passes 3
expect_named "memory bandwidth" "$T_TMP/bw.json" "bandwidth 64M"

mem_case "$T_TMP/tlat.json" "latency twin" "none (twin: in cache, to 256 KiB)" "$FIGL" mem --latency --size 256K --passes 1
expect_not_named "memory latency" "$T_TMP/tlat.json" "latency twin"
mem_case "$T_TMP/tbw.json" "bandwidth twin" "none (twin: in cache, 3 x 64 KiB)" "$FIGB" mem --bandwidth --size 64K --passes 3
expect_not_named "memory bandwidth" "$T_TMP/tbw.json" "bandwidth twin"

done_testing
