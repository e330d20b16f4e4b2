#!/bin/sh
# SPDX-License-Identifier: MIT
# The null benchmark drives the whole pipeline: options, dispatch,
# repetitions, sampler, histogram, result model, verdict and both renderers.
# Its figures are known in advance, so the output is compared with golden
# files (volatile fields -- time, host, the box, the system view -- removed).
. "$(dirname "$0")/lib.sh"
G="$ENGPASS_TESTS/cli/golden"

# Deterministic part of a JSON run: the result without timing or system view.
STABLE='.results[] | del(.duration_seconds, .wall_seconds, .time_unix_ns, .system, .series, .verdict, .histograms[].buckets)'

run null --json --no-sample
check "null --json exits 0" [ "$RC" = 0 ]
jqt "null --json is one valid JSON document" . "$T_TMP/out"
jqt "schema is engpass/1" '.schema == "engpass/1"' "$T_TMP/out"
jqt "units are in metric keys" '.results[0].metrics | has("lat_p99_ns") and has("values")' "$T_TMP/out"
jqt "the run carries the box description" '.info | type == "object"' "$T_TMP/out"
jq -S "$STABLE" "$T_TMP/out" >"$T_TMP/null.json"
if diff -u "$G/null.json" "$T_TMP/null.json" >"$T_TMP/diff"; then
	ok "null JSON matches golden"
else
	not_ok "null JSON matches golden" "$(head -40 "$T_TMP/diff")"
fi
jqt "percentiles within [min, max]" '.results[0].histograms.lat_ns as $h |
	[$h.percentiles[]] | all(. >= $h.min and . <= $h.max)' "$T_TMP/out"
jqt "histogram buckets add up to the count" '.results[0].histograms.lat_ns |
	([.buckets[][2]] | add) == .count' "$T_TMP/out"
check "stderr is empty without a terminal" [ ! -s "$T_TMP/err" ]

run null --no-sample -v
check "null table exits 0" [ "$RC" = 0 ]
if diff -u "$G/null.txt" "$T_TMP/out" >"$T_TMP/diff"; then
	ok "null table matches golden"
else
	not_ok "null table matches golden" "$(head -40 "$T_TMP/diff")"
fi

run null --json --no-sample --values 1000 --seed 7 --repeat 3
jqt "--repeat 3 reports 3 repetitions" '.results[0].repetitions == 3' "$T_TMP/out"
jqt "--repeat gives median, min, max per metric" '.results[0].spread.lat_p50_ns | has("median") and has("min") and has("max") and .n == 3' "$T_TMP/out"
jqt "deterministic repetitions agree (min == max)" '[.results[0].spread[] | .min == .max] | all' "$T_TMP/out"
jqt "repetition histograms are merged" '.results[0].histograms.lat_ns.count == 3000' "$T_TMP/out"

run null --outcome fail --json --no-sample
check "a failed step exits 1" [ "$RC" = 1 ]
jqt "a failed step is marked failed with its reason" '.results[0].status == "failed" and (.results[0].reason | test("fail"))' "$T_TMP/out"
check "a failed step says why on stderr" grep -q "failed" "$T_TMP/err"
# In the table, a run that only failed is its error line, said once.
run null --outcome fail --no-sample --no-history
check "a failed step in the table: exit 1, one line on stderr, nothing on stdout" \
	sh -c "[ '$RC' = 1 ] && [ ! -s '$T_TMP/out' ] && [ \$(wc -l <'$T_TMP/err') = 1 ] && grep -q '^engpass null: failed: ' '$T_TMP/err'"

run null --outcome skip --json --no-sample
check "a skipped step exits 0" [ "$RC" = 0 ]
jqt "a skipped step is marked skipped, without figures" '.results[0].status == "skipped" and (.results[0].metrics | length == 0)' "$T_TMP/out"

# The sampler runs beside the benchmark: a spinning thread for 600 ms at a
# 50 ms interval must give a series, a system view and a verdict.
run null --json --values 10 --time 600ms --interval 50ms
check "sampled run exits 0" [ "$RC" = 0 ]
jqt "sampled run has at least 5 samples" '.results[0].system.samples >= 5' "$T_TMP/out"
jqt "sampled run has a time series" '.results[0].series | length >= 5' "$T_TMP/out"
jqt "busiest core is a real CPU" '.results[0].system.busiest_cpu as $c |
	$c >= 0 and $c < .results[0].system.ncpu' "$T_TMP/out"
jqt "the verdict names a resource and its evidence" '.results[0].verdict | (.resource | type == "string") and (.evidence | length > 0)' "$T_TMP/out"
jqt "spin CPU share is a percentage" '.results[0].metrics.spin_cpu_share_percent | . > 0 and . <= 100.5' "$T_TMP/out"

run null --values 10 --time 300ms --interval 50ms --pin 0 -v
check "--pin 0 runs" [ "$RC" = 0 ]
check "table shows the system view and verdict" grep -q "bound by:" "$T_TMP/out"
# Heat: a box without sensors (this VM) says so once, after the results; one with them shows a heat line.
if ls /sys/class/thermal/thermal_zone*/temp /sys/class/hwmon/hwmon*/temp*_input >/dev/null 2>&1; then
	check "the system view shows the temperatures" grep -q "^ *heat .* max [0-9-]* C" "$T_TMP/out"
else
	check "no temperature sensors: said once" [ "$(grep -c 'no temperature sensors' "$T_TMP/out")" = 1 ]
fi

# Prometheus text format, written atomically, accepted by promtool.
run null --values 1000 --time 300ms --interval 50ms --prom "$T_TMP/cwd/engpass.prom"
check "--prom run exits 0" [ "$RC" = 0 ]
check "--prom writes the file" [ -s "$T_TMP/cwd/engpass.prom" ]
check "--prom leaves no temp file" sh -c "! ls '$T_TMP/cwd' | grep -q tmp"
if promtool check metrics <"$T_TMP/cwd/engpass.prom" >"$T_TMP/lint" 2>&1; then
	ok "promtool check metrics accepts the output"
else
	not_ok "promtool check metrics accepts the output" "$(head -20 "$T_TMP/lint")"
fi
check "metrics are in base units with labels" \
	grep -q '^engpass_null_lat_p99_seconds{host=".*",command="null",step="null",values="1000"} 0.00' "$T_TMP/cwd/engpass.prom"
check "the verdict is exported" grep -q '^engpass_verdict_info{.*resource="' "$T_TMP/cwd/engpass.prom"
rm -f "$T_TMP/cwd/engpass.prom"
run null --values 10 --no-sample --prom /nonexistent-dir/x.prom
check "--prom into a missing directory is a usage error" [ "$RC" = 2 ]
check "--prom error names the option and the path" grep -q "'--prom'.*'/nonexistent-dir/x.prom'" "$T_TMP/err"

# SIGINT stops the step: what ran is reported, marked incomplete; exit 130.
# A background job of a non-interactive shell starts with SIGINT ignored;
# env --default-signal gives it the default action a terminal user has.
mkdir -p "$T_TMP/cwd"
(cd "$T_TMP/cwd" && exec env --default-signal=INT "$ENGPASS" null --json --values 10 --time 20s --interval 50ms) >"$T_TMP/out" 2>"$T_TMP/err" &
pid=$!
sleep 1
kill -INT $pid
RC=0
wait $pid || RC=$?
check "SIGINT exits 130" [ "$RC" = 130 ]
jqt "SIGINT leaves a valid document marked incomplete" '.results[0].incomplete == true and .results[0].status == "ok"' "$T_TMP/out"
jqt "SIGINT stopped the step early" '.results[0].duration_seconds < 10' "$T_TMP/out"
check "SIGINT is explained on stderr" grep -q "stopped by signal 2" "$T_TMP/err"

done_testing
