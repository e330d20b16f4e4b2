#!/bin/sh
# SPDX-License-Identifier: MIT
# engpass quick, reduced (no ladder, no latency): the summary table, the
# findings, each step's checked verdict (--verify, on in quick) within its
# time budget, the stored profile, the HTML report and the Prometheus output.
. "$(dirname "$0")/lib.sh"
needs_feature sqlite
# Without jansson quick still runs (in-process steps); only the HTML report is not written, and said so.
JANSSON=$("$ENGPASS" info --json --no-calibrate --no-history 2>/dev/null | jq -r .info.features.jansson)
not_emulated "the whole-box profile takes many minutes on an emulated CPU"
DB="$T_TMP/h.db"

T0=$(date +%s%N)
run quick --skip latency,ladder --db "$DB" --report "$T_TMP/q.html" --prom "$T_TMP/q.prom"
WALL_MS=$((($(date +%s%N) - T0) / 1000000))
check "quick exits 0" [ "$RC" = 0 ]
# The rows that measured (not skipped or failed), and those with an outcome in the checked column.
OKROWS=$(sed -n '/^bench  *step .*bound by  *checked$/,/^$/p' "$T_TMP/out" | grep -v '^bench \|^$' |
	grep -vc ' \(skipped\|failed\): ')
CHECKED=$(sed -n '/^bench  *step .*bound by  *checked$/,/^$/p' "$T_TMP/out" |
	grep -c '  \(re-ranked: \|confirmed\( x[0-9.]*\| by counters\)\|not confirmed\|not verifiable\|not verified: [a-z]\)')
check "the summary has a row per cpu step with a headline" grep -q "^cpu  *chacha20-poly1305/1400B/.* MiB/s\|^cpu  *chacha20-poly1305/1400B/.* GiB/s" "$T_TMP/out"
check "the summary has the memory rows" sh -c "grep -q '^mem  *bandwidth' '$T_TMP/out' && grep -q '^mem  *latency' '$T_TMP/out'"
check "the summary has the disk rows, torrent with and without cache" sh -c "grep -q '^disk  *device' '$T_TMP/out' && grep -q '^disk  *torrent cache 8M' '$T_TMP/out'"
# The findings wrap within 100 columns: their continuation lines joined for
# the checks that read a sentence.
join_out() { sed -e ':a' -e 'N' -e '$!ba' -e 's/\n   */ /g' "$T_TMP/out" >"$T_TMP/joined"; }
join_out
check "quick prints findings" grep -q "Mbit/s per GHz" "$T_TMP/joined"
check "quick's findings fit 100 columns" sh -c "sed -n '/^findings\$/,/^\$/p' '$T_TMP/out' | awk 'length > 100 { bad = 1 } END { exit bad }'"
if [ "$JANSSON" = true ]; then
	check "the summary has the loopback net row" grep -q "^net  *client over loopback" "$T_TMP/out"
	check "the summary has the rr depth 1 and 2 rows, bound by the round trip" \
		sh -c "grep -q '^net  *client rr depth 1 .*round trip' '$T_TMP/out' && grep -q '^net  *client rr depth 2 .*round trip' '$T_TMP/out'"
	check "quick compares rr depth 1 and 2 in a finding" grep -q "requests one at a time moved .* two in flight" "$T_TMP/joined"
else
	# The net server skips itself without jansson: the rows say their peer ended at once.
	check "without jansson the net rows say why they did not run" \
		sh -c "[ \$(grep -c '^net  *net .*skipped: its peer .engpass net server. ended before the step began' '$T_TMP/out') = 3 ]"
fi
case "$(stat -f -c %T "$T_TMP/cwd")" in
overlayfs|tmpfs|fuseblk|nfs)
	skip "the torrent finding compares device write requests" \
		"the scratch directory is on $(stat -f -c %T "$T_TMP/cwd"): no block device to count requests on" ;;
*)
	check "the torrent finding compares device write requests" grep -q "write requests without a write cache" "$T_TMP/joined" ;;
esac
check "quick's disk steps leave no temp files behind" sh -c "[ -z \"\$(ls -A '$T_TMP/cwd')\" ]"
if [ "$JANSSON" = true ]; then
	check "quick names the report" grep -q "^report: $T_TMP/q.html" "$T_TMP/out"
	check "the report is written" grep -q "class=\"chart" "$T_TMP/q.html"
	check "the report shows how each step's verdict was checked, the probe's figure beside the step's" \
		sh -c "grep -q 'Checked (<code>--verify</code>): .*: the step <b>.*</b>, the probe <b>' '$T_TMP/q.html' &&
			[ \$(grep -c 'Checked (<code>--verify</code>)' '$T_TMP/q.html') -ge $OKROWS ]"
else
	check "quick says the report was not written without jansson" grep -q "^report: not written: .*without jansson" "$T_TMP/out"
	check "... and writes none" [ ! -e "$T_TMP/q.html" ]
fi
check "the profile's progress names each part on stderr" \
	sh -c "grep -q '^engpass quick: step [0-9]* of [0-9]* (.*): cpu (' '$T_TMP/err' && grep -q '^engpass quick: step [0-9]* of [0-9]* (.*): net (' '$T_TMP/err'"
check "... counting the steps, the first with no time elapsed" grep -q "^engpass quick: step 1 of [0-9]* (0:00 elapsed" "$T_TMP/err"
check "... and with what the declared times leave" grep -q "^engpass quick: step 1 of [0-9]* (0:00 elapsed, \(about\|at least\) [0-9]*:[0-5][0-9] left)" "$T_TMP/err"
N=$(grep -c "^engpass quick: step " "$T_TMP/err")
check "... the last step is step N of N" grep -q "^engpass quick: step $N of $N (" "$T_TMP/err"
# The ETA (elapsed + what is left) of every step line within 20 % of the
# profile's wall time, from the first line on (issue 37): every step declares
# its time, so each says "about". Plus 2 s for the m:ss rounding of short runs.
awk -v wall="$WALL_MS" '
	/^engpass quick: step / {
		if (!match($0, /\(([0-9]+):([0-9]+) elapsed, about ([0-9]+):([0-9]+) left\)/)) { bad = bad " [no about: " $0 "]"; next }
		split(substr($0, RSTART + 1, RLENGTH - 2), f, /[: ,]+/)
		eta = (f[1] * 60 + f[2] + f[5] * 60 + f[6]) * 1000
		d = eta - wall; if (d < 0) d = -d
		if (d > wall * 0.2 + 2000) bad = bad " [" $0 ": ETA " eta " ms]"
	}
	END { if (bad != "") { print "wall " wall " ms:" bad; exit 1 } }' "$T_TMP/err" >"$T_TMP/eta" 2>&1
RC_ETA=$?
if [ "$RC_ETA" = 0 ]; then ok "every step's ETA is within 20 % of the ${WALL_MS} ms quick took"
else not_ok "every step's ETA is within 20 % of the wall time" "$(cat "$T_TMP/eta")"; fi
# --verify is on in quick (issue 38): every step that ran shows how its
# verdict was checked, in the summary's last column and in the stored JSON,
# and the probes stay within their budget (25 % of the profile's expected
# time without them), which quick says on its last line.
if [ "$OKROWS" -gt 0 ] && [ "$OKROWS" = "$CHECKED" ]; then
	ok "the summary has a checked column with an outcome on each of its $OKROWS measured rows"
else
	not_ok "the summary has a checked column with an outcome on each of its $OKROWS measured rows ($CHECKED had one)" \
		"$(sed -n '/^bench  *step .*bound by  *checked$/,/^$/p' "$T_TMP/out" | cut -c1-200)"
fi
BUDGET=$(sed -n 's/.* of it \([0-9.]*\) s checking verdicts, within their budget of \([0-9.]*\) s.*/\1 \2/p' "$T_TMP/out")
check "quick says the probes' time and that it stayed within their budget (${BUDGET:-none})" [ -n "$BUDGET" ]
check "the profile is stored as one run" sh -c "[ \$(sqlite3 '$DB' 'SELECT count(*) FROM runs') = 1 ] && [ \$(sqlite3 '$DB' 'SELECT count(*) FROM results') -ge 5 ]"
# The time budget (issue 34): every measured step has one, stored and read
# back; none says "none observed" while one state holds 60 % of its time.
run show 1 --db "$DB" --json
jqt "every measured step carries its time budget, stored and read back" \
	'[.results[] | select(.status == "ok") | .system.time_budget.thread_seconds > 0] | length > 0 and all' "$T_TMP/out"
OUTCOMES='["confirmed", "not confirmed", "confirmed by counters", "not verifiable", "not verified"]'
jqt "every measured step's verdict carries its check, stored and read back, with why when it was not tested" \
	"[.results[] | select(.status == \"ok\") | .verdict.verification |
	  (.outcome as \$o | $OUTCOMES | index(\$o)) != null and
	  (if .outcome == \"not verifiable\" or .outcome == \"not verified\" then (.why | length) > 0 else true end)] |
	 length > 0 and all" "$T_TMP/out"
jqt "a step not verified was left out for the time budget" \
	'[.results[] | .verdict.verification.probes[]? | select(.outcome == "not verified") | .why | test("^time budget")] | all' \
	"$T_TMP/out"
# The probes' own run time from the JSON (their peers' starts and the look at
# the CPUs' load come on top, at most 0.35 s a probe) within the budget quick
# gave them, and that budget at most 25 % of the profile's planned time.
PROBE_S=$(jq '[.results[].verdict.verification.probes[]?.probe_seconds // 0] | add // 0' "$T_TMP/out")
NPROBES=$(jq '[.results[].verdict.verification.probes[]? | select((.probe_seconds // 0) > 0)] | length' "$T_TMP/out")
check "the probes ran $NPROBES times for ${PROBE_S} s, within quick's budget of ${BUDGET#* } s" \
	awk -v p="$PROBE_S" -v b="${BUDGET#* }" 'BEGIN { exit !(b + 0 > 0 && p + 0 <= b + 0) }'
NONE_HELD='[.results[] | select(.verdict.resource == "none observed") |
	select(([.system.time_budget.states[]?.percent] | max // 0) >= 60)]'
if [ -s "$T_TMP/out" ] && jq -e "$NONE_HELD | length == 0" "$T_TMP/out" >/dev/null 2>&1; then
	ok "no step says none observed while one state of its time budget holds 60 % or more"
else
	not_ok "no step says none observed while one state of its time budget holds 60 % or more" \
		"$(jq -r "$NONE_HELD[] | \"\(.bench) \(.step): \([.system.time_budget.states[] | \"\(.state) \(.what // \"\") \(.percent | floor) %\"] | join(\", \")) | \(.verdict.evidence)\"" \
			"$T_TMP/out" 2>/dev/null | cut -c1-400)"
fi
if promtool check metrics <"$T_TMP/q.prom" >"$T_TMP/lint" 2>&1; then
	ok "promtool accepts quick's --prom"
else
	not_ok "promtool accepts quick's --prom" "$(head -5 "$T_TMP/lint")"
fi
check "quick's --prom has how each measured step's verdict was checked (engpass_verdict_verified{outcome})" \
	sh -c "[ \$(grep -c '^engpass_verdict_verified{.*,resource=\"[a-z ]*\",outcome=\"[a-z ]*\"} 1\$' '$T_TMP/q.prom') -ge $OKROWS ]"
check "quick's --prom is written atomically (no temp file left)" sh -c "! ls '$T_TMP' | grep -q 'q.prom.tmp'"

run quick --skip cpu,mem,disk,net,latency --json --no-history --no-report --no-verify
jqt "quick --json is one engpass document of the profile's rows" \
	'.schema == "engpass/1" and .command == "engpass quick" and (.results | length) >= 1 and .results[0].bench == "mem"' "$T_TMP/out"
jqt "quick --no-verify checks no verdict" '[.results[].verdict.verification] | all(. == null)' "$T_TMP/out"
if [ "$(id -u)" = 0 ]; then
	skip "the ladder row says why it is skipped without root" "running as root"
else
	jqt "the ladder row says why it is skipped without root" '.results[0].status == "skipped" and (.results[0].reason | test("root"))' "$T_TMP/out"
fi

# The plan on boxes this one is not (issue 37): quick in at most 60 s with
# a 1 GiB L3 and 64 CPUs, and with no cache sizes at all. Every step declares
# its time, so the plan's total is known ("at least" would be a step without).
for box in bigcache router; do
	ENGPASS_SYS_ROOT=${ENGPASS_FIXTURES:-$(dirname "$0")/../fixtures}/sysfs/$box
	export ENGPASS_SYS_ROOT
	run quick --plan
	unset ENGPASS_SYS_ROOT
	TOTAL=$(sed -n 's/^total: \([0-9.]*\) s$/\1/p' "$T_TMP/out")
	check "quick --plan as on the $box box: every step's time known, ${TOTAL:-?} s <= 60 s" \
		awk -v t="${TOTAL:-999}" 'BEGIN { exit !(t + 0 <= 60) }'
	# The probes' line: expected, budget, base; the budget a quarter of the base.
	PL=$(sed -n 's/^of it --verify probes: \([0-9.]*\) s expected; their budget \([0-9.]*\) s (25 % of the \([0-9.]*\) s without them)$/\1 \2 \3/p' "$T_TMP/out")
	check "... the probes' budget is 25 % of the profile without them, and what they are expected to take within it (${PL:-none})" \
		awk -v l="${PL:-x}" 'BEGIN { n = split(l, f, " "); exit !(n == 3 && f[1] <= f[2] && f[2] <= f[3] * 0.25 + 0.1 && f[2] >= f[3] * 0.25 - 0.1) }'
done
# The mem part as run there: its two steps keep the 3 s each they declare.
ENGPASS_SYS_ROOT=${ENGPASS_FIXTURES:-$(dirname "$0")/../fixtures}/sysfs/bigcache
export ENGPASS_SYS_ROOT
run quick --skip cpu,disk,net,latency,ladder --no-report --no-history --json
unset ENGPASS_SYS_ROOT
jqt "quick's mem part with a 1 GiB L3: two steps within 3.6 s each (wall_seconds)" \
	'[.results[] | select(.bench == "mem") | .wall_seconds] | length == 2 and all(. <= 3.6)' "$T_TMP/out"

run quick --skip gpu
check "an unknown --skip part is exit 2" [ "$RC" = 2 ]
check "... naming it" grep -q "'gpu'" "$T_TMP/err"

# A 64 MiB box: cpu and mem in a memory cgroup limited to 64 MiB finish
# and say what they scaled down (root: the cgroup, removed on exit).
CG=
if [ "$(id -u)" != 0 ]; then
	skip "quick in a 64 MiB memory cgroup" "needs root (a memory cgroup)"
elif grep -q __asan_init "$ENGPASS"; then
	skip "quick in a 64 MiB memory cgroup" "AddressSanitizer's shadow memory and quarantine do not fit a 64 MiB box"
elif [ -w /sys/fs/cgroup/memory ]; then
	CG=/sys/fs/cgroup/memory/engpass-test-$$; LIMIT=memory.limit_in_bytes
elif grep -qw memory /sys/fs/cgroup/cgroup.controllers 2>/dev/null; then
	CG=/sys/fs/cgroup/engpass-test-$$; LIMIT=memory.max
else
	skip "quick in a 64 MiB memory cgroup" "no memory cgroup controller here"
fi
if [ -n "$CG" ]; then
	trap 'rmdir "$CG" 2>/dev/null; rm -rf "$T_TMP"' EXIT INT TERM
	if mkdir "$CG" && echo $((64 << 20)) >"$CG/$LIMIT"; then
		RC=0
		(cd "$T_TMP/cwd" && sh -c 'echo $$ >"$1/cgroup.procs" && exec "$2" quick --no-net --skip disk,latency,ladder \
			--no-history --no-report' sh "$CG" "$ENGPASS") >"$T_TMP/out" 2>"$T_TMP/err" </dev/null || RC=$?
		check "quick --no-net in a 64 MiB cgroup exits 0" [ "$RC" = 0 ]
		check "... runs the memory bandwidth step" grep -q "^mem  *bandwidth .*/s" "$T_TMP/out"
		join_out
		check "... and says what it scaled down to fit" grep -q "^- mem bandwidth: scaled down .*MiB instead of" "$T_TMP/joined"
		rmdir "$CG" 2>/dev/null || true
	else
		skip "quick in a 64 MiB memory cgroup" "cannot make a memory cgroup with a 64 MiB limit here"
	fi
fi

done_testing
