#!/bin/sh
# SPDX-License-Identifier: MIT
# Phase lines on stderr, off a terminal too: the plan of a command of
# several steps (--time is per step), "step k of n" with the time left, the
# disk data file's fill and a latency warm-up; nothing on stdout; --quiet
# silences them. The terminal's progress line and its time left are unit
# tested (tests/unit/test_progress.c).
. "$(dirname "$0")/lib.sh"
# A time of the step lines: "0.4 s" below 10 s, "m:ss" from there.
T='([0-9]+\.[0-9] s|[0-9]+:[0-5][0-9])'

run cpu --cipher none --size 64,1400 --time 100ms --no-history
check "cpu with two steps exits 0" [ "$RC" = 0 ]
check "the plan says --time is per step, before the first step" \
	sh -c "sed -n 1p '$T_TMP/err' | grep -qx 'engpass cpu: 2 steps x 100 ms measured (--time is per step): at least 0.2 s in all'"
check "each step is named when it starts, with the time left" \
	sh -c "[ \"\$(sed -n 2p '$T_TMP/err')\" = 'engpass cpu: step 1 of 2 (at least 0.2 s left)' ]"
check "... the later ones with the time since the first and the pace so far" \
	sh -c "sed -n 3p '$T_TMP/err' | grep -Eqx 'engpass cpu: step 2 of 2 \($T elapsed, (about|at least) $T left\)'"
check "no phase line on stdout" sh -c "! grep -q '^engpass ' '$T_TMP/out'"
run cpu --cipher none --size 64,1400 --time 100ms --no-history --quiet
check "--quiet: stderr is empty" sh -c "[ '$RC' = 0 ] && [ ! -s '$T_TMP/err' ]"
run cpu --cipher none --size 64 --time 100ms --no-history
check "one step: no phase line" sh -c "[ '$RC' = 0 ] && [ ! -s '$T_TMP/err' ]"

mkdir -p "$T_TMP/d"
run disk -T --size 64M --time 200ms --no-history "$T_TMP/d"
check "disk names the data file's fill and where" \
	grep -qx "engpass disk: filling a 2 MiB data file in $T_TMP/d (before the steps that read it, at most 2 s)" "$T_TMP/err"
run disk -T --size 64M --time 200ms --no-history --quiet "$T_TMP/d"
check "--quiet: no fill line" [ ! -s "$T_TMP/err" ]

run latency --task audio --load none --time 300ms --warmup 100ms --no-history
check "latency names its warm-up" grep -qx "engpass latency: audio, load none: 100ms of warm-up before the timed cell" "$T_TMP/err"

done_testing
