#!/bin/sh
# SPDX-License-Identifier: MIT
# engpass fleet: five hosts' documents imported (one of them failed, one an
# outlier, one with a step the others lack), then one table per step with
# the headline figure, the verdict and the hosts beyond median ± k × MAD;
# fewer than three hosts: no spread judged. Golden file, with the host
# names, times and version made stable in the documents.
. "$(dirname "$0")/lib.sh"
needs_feature sqlite jansson
DB="$T_TMP/h.db"
# doc HOST JQ ARGS...: a null run on "host" HOST, edited by JQ, at a fixed time and version.
doc() {
	host=$1; filter=$2; shift 2
	ENGPASS_HOST=$host run null --no-sample --values 1000 --json --no-history "$@"
	jq "$filter | .tool.version = \"0.0.9\"" "$T_TMP/out" |
		sed 's/"time_unix_ns": [0-9.e+]*/"time_unix_ns": 1796000000000000000/; s/"time": "[^"]*"/"time": "2026-11-30T00:53:20Z"/' \
		>"$T_TMP/$host.json"
}
doc alpha . --seed 1
doc beta '.results += [.results[0] | .step = "extra"]' --seed 2
doc gamma . --seed 3
doc delta '.results[0].metrics.lat_p99_ns = 9000000' --seed 4
doc epsilon . --outcome fail
run import --db "$DB" "$T_TMP/alpha.json" "$T_TMP/beta.json" "$T_TMP/gamma.json" "$T_TMP/delta.json" "$T_TMP/epsilon.json"
check "an older engpass's documents (same schema) import" sh -c "[ $RC = 0 ] && tail -1 '$T_TMP/out' | grep -qx '5 imported, 0 already stored, 0 refused'"

run fleet --db "$DB"
check "fleet exits 0" [ "$RC" = 0 ]
golden fleet.txt
check "fleet lists one row per host" [ "$(sed -n '/^  host /,/^capacity/p' "$T_TMP/out" | grep -c '^  [a-z]')" = 6 ]
check "the capacity column says unknown without a cpu run, and why below the table" \
	sh -c "[ \$(grep -c '^  [a-z]* .*  unknown  *null ' '$T_TMP/out') = 5 ] &&
	[ \$(grep -c '^  [a-z]*  *unknown: no stored cpu run' '$T_TMP/out') = 5 ]"
check "the outlier is marked above the spread, and worse (p99: lower is better)" \
	grep -q "^  delta .* 9.00 ms  unknown  *! above the fleet's spread (worse)\$" "$T_TMP/out"
check "the hosts within the spread are not marked" [ "$(grep -c '!' "$T_TMP/out")" = 2 ]
check "a failed host shows its reason" grep -q "^  epsilon  *failed: asked to fail with --outcome fail" "$T_TMP/out"
check "a step one host has: no spread judged, the others lack it" \
	sh -c "grep -q '^null / extra: p99 (lower is better), median 1.91 ms; no spread judged: 1 of 5 hosts has the figure, it needs 3' '$T_TMP/out' &&
	[ \$(grep -c 'no such step' '$T_TMP/out') = 4 ]"

# The newest run of a host stands for it; a newer one replaces it.
ENGPASS_HOST=delta run null --no-sample --values 1000 --seed 4 --json --db "$DB"
run fleet --db "$DB"
check "the newest run of a host stands for it" sh -c "grep -q '^  delta  *6 ' '$T_TMP/out' && ! grep -q above '$T_TMP/out'"
run fleet --db "$DB" --command info
check "--command with no such runs says so" grep -qx "fleet: no stored runs of command 'info'" "$T_TMP/out"
run fleet 1 2 --db "$DB"
check "two runs given: no spread can be judged" \
	grep -q "^null: p99 (lower is better), median 1.86 ms; no spread judged: 2 of 2 hosts have the figure, it needs 3" "$T_TMP/out"
run fleet 1 x --db "$DB"
check "a bad run id is a usage error" sh -c "[ $RC = 2 ] && grep -q \"'x' is not a run id\" '$T_TMP/err'"
run fleet 99 --db "$DB"
check "a missing run is a usage error" sh -c "[ $RC = 2 ] && grep -q 'no run 99' '$T_TMP/err'"

# The HTML page of several hosts: runs 1-5 (as imported) side by side.
doc '<b>zeta' . --seed 5
run import --db "$DB" "$T_TMP/<b>zeta.json"
run report 1 2 3 4 5 7 --db "$DB" --html "$T_TMP/fleet.html"
P="$T_TMP/fleet.html"
check "report of several runs writes one page" sh -c "[ $RC = 0 ] && [ -s '$P' ]"
check "the page names six hosts side by side" grep -q "<h1>engpass report: 6 hosts side by side</h1>" "$P"
check "one bar chart per headline figure across hosts (null, null / extra)" [ "$(grep -c '<svg class="chart hosts"' "$P")" = 2 ]
check "a bar per host that has the figure (5 + 1), the failed host named instead" \
	sh -c "[ \$(grep -o '<rect class=\"bar\"' '$P' | wc -l) = 6 ] && grep -q '>failed</text>' '$P'"
check "the outlier's bar carries its value" grep -q "<title>delta: 9 ms</title>" "$P"
check "host names are escaped" sh -c "grep -q '&lt;b&gt;zeta' '$P' && ! grep -q '<b>zeta' '$P'"
check "the page is self-contained" sh -c "! grep -Eiq '<script|https?://' '$P'"
done_testing
