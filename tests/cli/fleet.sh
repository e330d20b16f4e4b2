#!/bin/sh
# SPDX-License-Identifier: MIT
# engpass fleet: five hosts' documents imported (one of them failed, one an
# outlier, one with a step the others lack), then one table per step with
# the headline figure, the verdict and the hosts beyond median ± k × MAD;
# fewer than three hosts: no spread judged. Golden file, with the host
# names, times and version made stable in the documents. Then --verify
# (issue 38): beside each host's verdict the outcome of the run's check,
# nothing for a run without one: a null run checked for real (not
# verifiable), stored documents carrying each other outcome, and a real
# `net client --mode rr --verify` against a local `net server --delay 1ms`.
. "$(dirname "$0")/lib.sh"
needs_feature sqlite jansson
. "$(dirname "$0")/netlib.sh"
trap_pids
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

# --verify: the outcome beside each host's verdict (the golden above: no run checked, nothing shown).
run fleet --db "$DB"
check "no run checked: no 'checked:' line" sh -c "! grep -q '^checked:' '$T_TMP/out' && ! grep -q confirmed '$T_TMP/out'"
VDB="$T_TMP/v.db"
# vdoc HOST JQ ARGS...: a null run on HOST, edited by JQ, at a fixed time.
vdoc() {
	host=$1; filter=$2; shift 2
	ENGPASS_HOST=$host run null --no-sample --values 1000 --json --no-history "$@"
	jq "$filter" "$T_TMP/out" | sed 's/"time_unix_ns": [0-9.e+]*/"time_unix_ns": 1796000000000000000/' \
		>"$T_TMP/v-$host.json"
}
# probe RESOURCE OUTCOME RATIO PROBE WHY: one tested candidate as json.c writes it.
probe() {
	printf '{"resource": "%s", "outcome": "%s", "ratio": %s, "probe": "%s", "probe_seconds": %s, "why": "%s"}' \
		"$1" "$2" "${3:-null}" "$4" "$([ -n "$3" ] && echo 1.1 || echo 0)" "${5:-}"
}
# checked RESOURCE PROBES REFUTED: a jq filter storing that verdict and check.
checked() {
	echo ".results[0].verdict.resource = \"$1\" | .results[0].verdict.verification = {probes: [$2], refuted: $3}"
}
vdoc v1-real . --seed 1 --verify
vdoc v2-plain . --seed 2
vdoc v3-conf "$(checked 'round trip' "$(probe 'round trip' confirmed 0.52 '2 requests in flight')" null)" --seed 3
vdoc v4-rerank "$(checked 'device latency' "$(probe 'other processes' 'not confirmed' 0.98 'the work pinned to cpu0'),
	$(probe 'device latency' confirmed 0.61 'queue depth 2')" '"other processes"')" --seed 4
vdoc v5-counters "$(checked 'cpu quota' "$(probe 'cpu quota' 'confirmed by counters' '' '' 'throttled in 97 % of periods')" null)
	| .results[0].metrics.lat_p99_ns = 9000000" --seed 5
vdoc v6-budget "$(checked 'one core' "$(probe 'one core' 'not verified' '' '' 'time budget (the probe would take 0.7 s)')" null)" \
	--seed 6
run import --db "$VDB" "$T_TMP"/v-v*.json
check "six documents with and without a check import" \
	sh -c "[ $RC = 0 ] && tail -1 '$T_TMP/out' | grep -qx '6 imported, 0 already stored, 0 refused'"
run fleet --db "$VDB"
cp "$T_TMP/out" "$T_TMP/vfleet.txt"
check "fleet exits 0" [ "$RC" = 0 ]
check "a run checked: the 'checked:' line says what the column is" \
	grep -q "^checked: beside the verdict, the outcome of the run's --verify" "$T_TMP/vfleet.txt"
# The real run's stored verdict and outcome (null, not sampled, names no limit a probe can relax).
R1=$(jq -r '.results[0].verdict | "\(.resource) \(.verification.outcome)"' "$T_TMP/v-v1-real.json")
check "the real --verify run: its stored verdict and outcome beside the figure ($R1)" \
	sh -c "[ '$R1' = 'unknown not verifiable' ] && grep -Eq '^  v1-real +[0-9.]+ ms  unknown +not verifiable\$' '$T_TMP/vfleet.txt'"
check "a run without --verify: nothing beside its verdict" \
	grep -Eq '^  v2-plain +[0-9.]+ ms  unknown$' "$T_TMP/vfleet.txt"
check "confirmed, with the probe's ratio" grep -Eq '^  v3-conf +[0-9.]+ ms  round trip +confirmed x0.52$' "$T_TMP/vfleet.txt"
check "re-ranked: the refuted candidate named, then the confirmed one" \
	grep -Eq '^  v4-rerank +[0-9.]+ ms  device latency +re-ranked: other processes not confirmed x0.98, then device latency confirmed x0.61$' \
	"$T_TMP/vfleet.txt"
check "confirmed by counters, on the outlier's line before its mark" \
	grep -Eq "^  v5-counters +9.00 ms  cpu quota +confirmed by counters +! above the fleet's spread \(worse\)\$" "$T_TMP/vfleet.txt"
check "not verified, with the reason's first words" grep -Eq '^  v6-budget +[0-9.]+ ms  one core +not verified: time budget$' \
	"$T_TMP/vfleet.txt"
# Columns: 2 + host 16 + 2 + figure 12 + 2 + verdict 18 + 2: the check starts at column 55.
check "the checked column starts in one place on every checked line" \
	sh -c "sed -n '/^null:/,\$p' '$T_TMP/vfleet.txt' | grep -E '^  v[13456]-' >'$T_TMP/vchecked' &&
	[ \$(cut -c53-54 '$T_TMP/vchecked' | grep -cx '  ') = 5 ] &&
	[ \$(cut -c55- '$T_TMP/vchecked' | grep -Ec '^(not |confirmed|re-ranked)') = 5 ]"

# A real probe: rr at depth 1 against a server answering 1 ms late; its
# probe (twice the requests in flight) is run, and fleet says its outcome
# and ratio as stored. The outcome itself is the box's (tests/verdict/verify.sh).
if [ -n "${ENGPASS_EMULATED:-}" ]; then
	skip "a real net rr --verify run's outcome in fleet" "under qemu ($ENGPASS_EMULATED): loopback too slow"
elif ! command -v ss >/dev/null; then
	skip "a real net rr --verify run's outcome in fleet" "ss not installed (iproute2)"
else
	new_port
	"$ENGPASS" net server --port "$PORT" --idle-timeout 30s --delay 1ms -q --no-history >/dev/null 2>&1 </dev/null &
	PIDS="$!"
	if wait_listen "$PORT"; then
		ENGPASS_HOST=v7-rr run net client 127.0.0.1 --port "$PORT" --mode rr --block 60K --depth 1 --time 1s --verify \
			--json --no-history -q
		cp "$T_TMP/out" "$T_TMP/v-rr.json"
		kill_pids
		PIDS=""
		# The verdict, and the first candidate tested: its outcome and ratio as fleet writes them.
		RES=$(jq -r '.results[0].verdict.resource' "$T_TMP/v-rr.json" 2>/dev/null)
		OUT=$(jq -r '.results[0].verdict.verification.probes[0].outcome' "$T_TMP/v-rr.json" 2>/dev/null)
		RATIO=$(jq -r '.results[0].verdict.verification.probes[0].ratio' "$T_TMP/v-rr.json" 2>/dev/null |
			awk '$1 + 0 == $1 { printf "%.2f", $1 }')
		run import --db "$VDB" "$T_TMP/v-rr.json"
		run fleet --db "$VDB"
		LINE=$(sed -n '/^net/,$p' "$T_TMP/out" | grep '^  v7-rr ')
		echo "# net rr --depth 1 --verify, stored: $RES, $OUT x$RATIO; fleet: $LINE"
		check "the rr run was probed: its first candidate confirmed or not, with a ratio" \
			sh -c "[ -n '$RATIO' ] && { [ '$OUT' = confirmed ] || [ '$OUT' = 'not confirmed' ]; }"
		check "fleet shows the rr run's verdict and that outcome beside it" \
			sh -c "echo '$LINE' | grep -Fq '  $RES ' && echo '$LINE' | grep -Fq '$OUT x$RATIO'"
	else
		not_ok "a local net server listens"
		kill_pids
		PIDS=""
	fi
fi
done_testing
