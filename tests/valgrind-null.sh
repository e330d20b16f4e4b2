#!/bin/sh
# SPDX-License-Identifier: MIT
# The null pipeline for the 'valgrind' suite (tests/valgrind.sh
# valgrind-null.sh): the same paths as cli/null.sh (dispatch, repetitions,
# sampler, histogram, verdict, the table, JSON and Prometheus renderers,
# soft stop on SIGINT) without its checks of how many samples a time
# allows, which do not hold when valgrind and a loaded box slow it down.
. "$(dirname "$0")/cli/lib.sh"

run null --json --no-sample
jqt "null --json is one valid engpass document" '.schema == "engpass/1"' "$T_TMP/out"
run null --no-sample
check "null table exits 0" [ "$RC" = 0 ]
run null --json --no-sample --values 1000 --seed 7 --repeat 3
jqt "--repeat 3 reports 3 repetitions" '.results[0].repetitions == 3' "$T_TMP/out"
run null --outcome fail --json --no-sample
check "a failed step exits 1" [ "$RC" = 1 ]
run null --outcome skip --json --no-sample
check "a skipped step exits 0" [ "$RC" = 0 ]
run null --json --values 10 --time 600ms --interval 50ms
jqt "a sampled run has a system view" '.results[0].system.samples >= 1' "$T_TMP/out"
run null --values 10 --time 300ms --interval 50ms --pin 0
check "--pin 0 runs" [ "$RC" = 0 ]
run null --values 1000 --time 300ms --interval 50ms --prom "$T_TMP/cwd/engpass.prom"
check "--prom writes the file" [ -s "$T_TMP/cwd/engpass.prom" ]

mkdir -p "$T_TMP/cwd"
(cd "$T_TMP/cwd" && exec env --default-signal=INT "$ENGPASS" null --json --values 10 --time 60s --interval 50ms) \
	>"$T_TMP/out" 2>"$T_TMP/err" &
pid=$!
sleep 4
kill -INT $pid
RC=0
wait $pid || RC=$?
check "SIGINT exits 130" [ "$RC" = 130 ]
jqt "SIGINT leaves a valid document marked incomplete" '.results[0].incomplete == true' "$T_TMP/out"
done_testing
