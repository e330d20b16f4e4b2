#!/bin/sh
# SPDX-License-Identifier: MIT
# engpass quick, reduced (no ladder, no latency): the summary table, the
# findings, the stored profile, the HTML report and the Prometheus output.
. "$(dirname "$0")/lib.sh"
DB="$T_TMP/h.db"

run quick --skip latency,ladder --db "$DB" --report "$T_TMP/q.html" --prom "$T_TMP/q.prom"
check "quick exits 0" [ "$RC" = 0 ]
check "the summary has a row per cpu step with a headline" grep -q "^cpu  *chacha20-poly1305/1400B/.* MiB/s\|^cpu  *chacha20-poly1305/1400B/.* GiB/s" "$T_TMP/out"
check "the summary has the memory rows" sh -c "grep -q '^mem  *bandwidth' '$T_TMP/out' && grep -q '^mem  *latency' '$T_TMP/out'"
check "the summary has the disk rows, torrent with and without cache" sh -c "grep -q '^disk  *device' '$T_TMP/out' && grep -q '^disk  *torrent cache 8M' '$T_TMP/out'"
check "quick prints findings" grep -q "Mbit/s per GHz" "$T_TMP/out"
check "the summary has the loopback net row" grep -q "^net  *client over loopback" "$T_TMP/out"
case "$(stat -f -c %T "$T_TMP/cwd")" in
overlayfs|tmpfs|fuseblk|nfs)
	skip "the torrent finding compares device write requests" \
		"the scratch directory is on $(stat -f -c %T "$T_TMP/cwd"): no block device to count requests on" ;;
*)
	check "the torrent finding compares device write requests" grep -q "write requests without a write cache" "$T_TMP/out" ;;
esac
check "quick's disk steps leave no temp files behind" sh -c "[ -z \"\$(ls -A '$T_TMP/cwd')\" ]"
check "quick names the report" grep -q "^report: $T_TMP/q.html" "$T_TMP/out"
check "the report is written" grep -q "class=\"chart" "$T_TMP/q.html"
check "the profile is stored as one run" sh -c "[ \$(sqlite3 '$DB' 'SELECT count(*) FROM runs') = 1 ] && [ \$(sqlite3 '$DB' 'SELECT count(*) FROM results') -ge 5 ]"
if promtool check metrics <"$T_TMP/q.prom" >"$T_TMP/lint" 2>&1; then
	ok "promtool accepts quick's --prom"
else
	not_ok "promtool accepts quick's --prom" "$(head -5 "$T_TMP/lint")"
fi
check "quick's --prom is written atomically (no temp file left)" sh -c "! ls '$T_TMP' | grep -q 'q.prom.tmp'"

run quick --skip cpu,mem,disk,net,latency --json --no-history --no-report
if [ "$(id -u)" = 0 ]; then
	skip "the ladder row says why it is skipped without root" "running as root"
else
	jqt "the ladder row says why it is skipped without root" '.results[0].status == "skipped" and (.results[0].reason | test("root"))' "$T_TMP/out"
fi

run quick --skip gpu
check "an unknown --skip part is exit 2" [ "$RC" = 2 ]
check "... naming it" grep -q "'gpu'" "$T_TMP/err"

done_testing
