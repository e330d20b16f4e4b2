#!/bin/sh
# SPDX-License-Identifier: MIT
# Run history: every run stored (unless --no-history), listed, shown,
# compared with ratios and noise; bad databases refused with one line; a
# run killed while writing never leaves the database half-written.
. "$(dirname "$0")/lib.sh"
needs_feature sqlite
DB="$T_TMP/h/history.db"

run null --no-sample --values 1000 --repeat 3 --db "$DB"
check "a run is stored (database created with its directory)" [ -s "$DB" ]
run null --no-sample --values 2000 --repeat 3 --db "$DB" --json
cp "$T_TMP/out" "$T_TMP/run2.json"
run null --no-sample --values 10 --no-history --db "$T_TMP/other.db"
check "--no-history stores nothing" [ ! -e "$T_TMP/other.db" ]
run info --no-calibrate --db "$DB"

run history --db "$DB"
check "history exits 0" [ "$RC" = 0 ]
check "history lists three runs, newest first" sh -c "sed -n 2p '$T_TMP/out' | grep -q '^ *3 ' && [ \$(wc -l <'$T_TMP/out') = 4 ]"
run history --db "$DB" --command null --limit 1
check "history --command --limit filters" sh -c "[ \$(wc -l <'$T_TMP/out') = 2 ] && grep -q '^ *2 .* null --no-sample' '$T_TMP/out'"
run history --db "$DB" --command info
check "history --command matches the command as typed" \
	sh -c "[ \$(wc -l <'$T_TMP/out') = 2 ] && grep -q '^ *3 .* info --no-calib.* 0  -  *ok\$' '$T_TMP/out'"
run history --db "$DB" --command nul
check "history --command matches a whole word" [ "$(wc -l <"$T_TMP/out")" = 1 ]
run history --db "$DB" --bench null
check "history --bench filters by benchmark" [ "$(wc -l <"$T_TMP/out")" = 3 ]

run show 1 --db "$DB"
check "show starts with a header" sh -c "head -1 '$T_TMP/out' | grep -q '^run 1: engpass null --no-sample --values 1000 --repeat 3' &&
	sed -n 2p '$T_TMP/out' | grep -q '^  time  .* UTC on .*, engpass [0-9]' && sed -n 3p '$T_TMP/out' | grep -q '^  status  *ok (1 step)'"
check "show renders the run as the command did" grep -q "^  p99  *1.81 ms" "$T_TMP/out"
run show 2 --json --db "$DB"
jqt "show --json returns the stored document" '.schema == "engpass/1" and .results[0].parameters.values == "2000"' "$T_TMP/out"
jqt "--repeat 3: each metric's interval is [min, max] at 75 %, stable" \
	'.results[0].spread | to_entries | all(.value.ci_low == .value.min and .value.ci_high == .value.max and .value.ci_coverage == 0.75 and .value.unstable == false)' "$T_TMP/out"

run compare 1 2 --db "$DB"
check "compare exits 0" [ "$RC" = 0 ]
check "compare names its inputs by letter" sh -c "sed -n 1p '$T_TMP/out' | grep -q '^A  run 1\$' && sed -n 2p '$T_TMP/out' | grep -q '^B  run 2\$'"
check "compare gives the ratio" grep -q "^  values recorded  *-  *1000  *2000  *2.00x" "$T_TMP/out"
check "compare says which direction is better" grep -q "^  p99  *lower  " "$T_TMP/out"
check "compare says whether B is better or worse" grep -Eq "^  mean  *lower .*x  (better|worse)  " "$T_TMP/out"
check "compare says whether a difference is beyond the noise" grep -q "beyond noise" "$T_TMP/out"
check "compare of like, complete runs warns of nothing" sh -c "! grep -q warning '$T_TMP/out'"
run compare 2 "$T_TMP/run2.json" --db "$DB"
check "compare reads a JSON file" grep -q "values recorded  *-  *2000  *2000  *1.00x" "$T_TMP/out"

# Unlike and incomplete inputs, a long name: JSON files edited from run 2.
sed 's/"bench": "null"/"bench": "other"/' "$T_TMP/run2.json" >"$T_TMP/other.json"
run compare 2 "$T_TMP/other.json" --db "$DB"
check "compare warns in one line on unlike runs, naming their benchmarks" \
	sh -c "[ \$(grep -c '^warning: A and B are unlike runs, with no step and metric in common: A ran null, B ran other\$' '$T_TMP/out') = 1 ]"
check "... and prints no table of n/a" \
	sh -c "tail -1 '$T_TMP/out' | grep -q '^nothing to put side by side' && ! grep -q 'n/a' '$T_TMP/out'"
# A near-zero base: a difference in the metric's unit, never a ratio such as 202x or 0.00x.
jq '.results[0].metrics.lat_p50_ns = 0.0003 | .results[0].metrics.values = 0' "$T_TMP/run2.json" >"$T_TMP/zero.json"
run compare "$T_TMP/zero.json" "$T_TMP/run2.json"
check "compare shows a change from a near-zero base as a difference" \
	sh -c "grep -Eq '^  p50  .* \+[0-9.]+ us( |\$)' '$T_TMP/out' && grep -Eq '^  values recorded  .* \+2000( |\$)' '$T_TMP/out'"
check "... says so under the table, and prints no ratio from zero" \
	sh -c "grep -q '^X/A: the ratio; +N or -N: the difference' '$T_TMP/out' && ! grep -Eq '^  (p50|values recorded) .*[0-9]x( |\$)' '$T_TMP/out'"
run compare "$T_TMP/run2.json" "$T_TMP/zero.json"
check "... and to a near-zero figure (no 0.00x)" \
	sh -c "grep -Eq '^  p50  .* -[0-9.]+ us( |\$)' '$T_TMP/out' && ! grep -q '0.00x' '$T_TMP/out'"
LONG='s/"lat_p99_ns": "p99"/"lat_p99_ns": "p99, labelled longer than the column is wide"/'
sed "s/\"incomplete\": false/\"incomplete\": true/; $LONG" "$T_TMP/run2.json" >"$T_TMP/incomplete.json"
sed "$LONG" "$T_TMP/run2.json" >"$T_TMP/long.json"
run compare "$T_TMP/long.json" "$T_TMP/incomplete.json"
check "compare warns on an incomplete run" grep -q "^warning: B is incomplete: 1 step stopped early" "$T_TMP/out"
check "compare never cuts a name (a long one has its own line)" \
	grep -q "^  p99, labelled longer than the column is wide\$" "$T_TMP/out"

# Golden files: a failed run and two ok runs in a database of their own,
# with host, time, version and the database path made stable.
F="$T_TMP/failed.db"
run null --no-sample --values 10 --outcome fail --db "$F"
run null --no-sample --values 1000 --repeat 6 --db "$F"
run null --no-sample --values 2000 --repeat 6 --db "$F"
# Run 4: stopped by SIGTERM (a background job keeps SIGTERM's default action).
mkdir -p "$T_TMP/cwd"
(cd "$T_TMP/cwd" && exec "$ENGPASS" null --no-sample --values 10 --time 20s --db "$F") >"$T_TMP/out" 2>"$T_TMP/err" &
pid=$!
sleep 1
kill -TERM $pid
wait $pid || :
# Run 5: a quick run, as quick stores its command ("engpass quick ..."), long.
run null --no-sample --values 10 --db "$F"
Q='engpass quick --skip net,latency --time 2s --prom /var/lib/node-exporter/engpass.prom'
sqlite3 "$F" "UPDATE runs SET command = '$Q', document = json_set(document, '\$.command', '$Q') WHERE id = 5"
# history reads the runs table; show reads the document, its time line is
# made stable by sed.
sqlite3 "$F" "UPDATE runs SET host = 'testhost', time_ns = 0, command = replace(command, '$F', 'h.db'),
	document = replace(document, '$F', 'h.db')"
stable() {
	sed 's/^  time      .*/  time      (time, host and version)/' "$T_TMP/out" >"$T_TMP/stable"
	mv "$T_TMP/stable" "$T_TMP/out"
}
run history --db "$F"
golden history-list.txt
check "history gives a failed run's reason" grep -q "^ *1 .* 1  -  *failed: asked to" "$T_TMP/out"
check "history gives an incomplete run's reason" grep -q "^ *4 .* 1  .*  incomplete: SIGTERM\$" "$T_TMP/out"
check "history shows a quick run in one line, as typed" grep -q "^ *5 .*  quick --skip net,.*  1  " "$T_TMP/out"
check "history lines fit 100 columns" sh -c "sed \"s/\$(printf '\\342\\200\\246')/./g\" '$T_TMP/out' | awk 'length > 100 { bad = 1 } END { exit bad }'"
run show 1 --db "$F"
check "show's header gives time, host and version" grep -q "^  time      20[0-9-]* [0-9:]* UTC on .*, engpass [0-9]" "$T_TMP/out"
stable
check "show of a failed run renders its status line after the header" \
	sh -c "sed -n '/^\$/{n;p;q}' '$T_TMP/out' | grep -qx 'null: failed: asked to fail with --outcome fail'"
# The header only: how render_table draws a failed step is the table's business.
sed '/^$/,$d' "$T_TMP/out" >"$T_TMP/header" && mv "$T_TMP/header" "$T_TMP/out"
golden history-show-failed.txt
check "show of a failed run prints its reason" \
	sh -c "sed -n 3,4p '$T_TMP/out' | tr '\n' '|' | grep -q '^  status  *failed (1 of 1 steps)|  failed  *null: asked to fail with --outcome fail|'"
run show 4 --db "$F"
stable
sed '/^$/,$d' "$T_TMP/out" >"$T_TMP/header" && mv "$T_TMP/header" "$T_TMP/out"
golden history-show-incomplete.txt
check "show of an incomplete run says what stopped it" \
	grep -q "^  stopped   null: stopped by SIGTERM; its figures cover what ran\$" "$T_TMP/out"
run show 5 --db "$F"
check "show of a quick run names the command as typed" grep -q "^run 5: engpass quick --skip" "$T_TMP/out"
run show 2 --db "$F"
stable
golden history-show.txt
run compare 2 3 --db "$F"
golden history-compare.txt
# The same runs with their intervals widened until they overlap: the same
# figures are not distinguishable, and neither better nor worse.
WIDEN='.results[0].spread |= map_values(.ci_low = .median / 3 | .ci_high = .median * 3)'
for id in 2 3; do
	run show $id --json --db "$F"
	jq "$WIDEN" "$T_TMP/out" >"$T_TMP/wide$id.json"
done
run compare "$T_TMP/wide2.json" "$T_TMP/wide3.json"
sed "s|$T_TMP/||" "$T_TMP/out" >"$T_TMP/stable" && mv "$T_TMP/stable" "$T_TMP/out"
golden history-compare-noise.txt
check "overlapping intervals are not distinguishable, neither better nor worse" \
	sh -c "[ \$(grep -c 'x  *not distinguishable\$' '$T_TMP/out') = 6 ] && ! grep -Eq 'x  *(better|worse)' '$T_TMP/out'"
# Single runs have no interval: compare says how to get one.
run null --no-sample --values 1000 --db "$T_TMP/single.db"
run null --no-sample --values 2000 --db "$T_TMP/single.db"
run compare 1 2 --db "$T_TMP/single.db"
check "compare of single runs: no interval, and how to get one" \
	sh -c "tail -1 '$T_TMP/out' | grep -qx 'noise: no interval: run with --repeat 6 or more (both runs)' && ! grep -Eq 'x  *(better|worse)|beyond' '$T_TMP/out'"
# Three repetitions: [min, max] at 75 %, said under the table.
run compare 1 2 --db "$DB"
check "compare of --repeat 3 runs says their intervals cover less than 95 %" \
	grep -q "^noise: some intervals are \[min, max\] of fewer than 6 repetitions, covering less than 95 %\$" "$T_TMP/out"
sqlite3 "$F" "UPDATE results SET incomplete = 1, resource = 'disk' WHERE run_id = 3;
	UPDATE runs SET document = replace(document, '\"incomplete\":false', '\"incomplete\":true') WHERE id = 3;
	UPDATE results SET resource = 'none observed' WHERE run_id = 2"
run history --db "$F"
check "history says incomplete, with the worst verdict" grep -q "^ *3 .* 1  disk  *incomplete\$" "$T_TMP/out"
check "history says none observed when no step was bound" grep -q "^ *2 .* 1  none observed  *ok\$" "$T_TMP/out"
# A quick run stores results of other benchmarks: --command finds it by
# the command as typed, --bench by its benchmarks.
sqlite3 "$F" "UPDATE runs SET command = 'quick --no-net' WHERE id = 2"
run history --db "$F" --command quick
check "history --command quick finds quick runs" \
	sh -c "[ \$(wc -l <'$T_TMP/out') = 3 ] && grep -q '^ *2 .* quick --no-net ' '$T_TMP/out' && grep -q '^ *5 .* quick --skip' '$T_TMP/out'"
sqlite3 "$F" "UPDATE runs SET command = 'net client 127.0.0.1 -p 5201' WHERE id = 3"
run history --db "$F" --command "net client"
check "history --command 'net client' matches a verb as typed" \
	sh -c "[ \$(wc -l <'$T_TMP/out') = 2 ] && grep -q '^ *3 .* net client 127' '$T_TMP/out'"
run history --db "$F" --command net
check "history --command net matches it too, --command 'net server' does not" \
	sh -c "[ \$(wc -l <'$T_TMP/out') = 2 ] && '$ENGPASS' history --db '$F' --command 'net server' | [ \$(wc -l) = 1 ]"
run history --db "$F" --bench quick
check "history --bench does not take a command for a benchmark" [ "$(wc -l <"$T_TMP/out")" = 1 ]
run compare 2 3 --db "$F"
check "compare warns on an incomplete stored run" grep -q "^warning: B is incomplete: 1 step stopped early" "$T_TMP/out"

bad() {
	want=$1; code=$2; shift 2
	run "$@"
	if [ "$RC" = "$code" ] && [ "$(wc -l <"$T_TMP/err")" = 1 ] && grep -qF -- "$want" "$T_TMP/err"; then
		ok "engpass $* -> exit $code, '$want'"
	else
		not_ok "engpass $* -> exit $code, '$want'" "exit $RC: $(cat "$T_TMP/err")"
	fi
}
bad "no run 99" 2 show 99 --db "$DB"
bad "'x1' is not a run id" 2 show x1 --db "$DB"
bad "no history database" 2 history --db "$T_TMP/none.db"
bad "needs at least two" 2 compare 1 --db "$DB"
echo '{"schema": "other"}' >"$T_TMP/foreign.json"
bad "not an engpass result" 2 compare 1 "$T_TMP/foreign.json" --db "$DB"
echo 'not json' >"$T_TMP/garbage.json"
bad "not JSON" 2 compare 1 "$T_TMP/garbage.json" --db "$DB"
head -c 8192 /dev/urandom >"$T_TMP/corrupt.db"
bad "not an SQLite database" 1 history --db "$T_TMP/corrupt.db"
sqlite3 "$T_TMP/foreign.db" "CREATE TABLE t(x); INSERT INTO t VALUES (1);"
bad "not an engpass history database" 1 history --db "$T_TMP/foreign.db"
check "a foreign database is left untouched" sh -c "[ \$(sqlite3 '$T_TMP/foreign.db' 'SELECT count(*) FROM t') = 1 ]"
cp "$DB" "$T_TMP/newer.db"
sqlite3 "$T_TMP/newer.db" "PRAGMA user_version = 99"
bad "newer than this engpass" 1 history --db "$T_TMP/newer.db"
run null --no-sample --values 10 --db "$T_TMP/newer.db"
check "a run against a newer database still measures (exit 0)" [ "$RC" = 0 ]
check "... and says in one line that it was not stored" grep -q "history not stored.*newer" "$T_TMP/err"

# Two writers at once: WAL and the busy timeout keep both.
"$ENGPASS" null --no-sample --values 10 --db "$DB" >/dev/null 2>"$T_TMP/w1" &
p1=$!
"$ENGPASS" null --no-sample --values 10 --db "$DB" >/dev/null 2>"$T_TMP/w2" &
p2=$!
wait $p1; wait $p2
check "two engpass processes store into one database at once" \
	sh -c "[ \$(sqlite3 '$DB' 'SELECT count(*) FROM runs') = 5 ] && [ ! -s '$T_TMP/w1' ] && [ ! -s '$T_TMP/w2' ]"

# kill -9 while storing: the database stays consistent and keeps every
# earlier run. Large documents (a long sampled series) make the write take
# a while; the kill lands at a different point each time.
before=$(sqlite3 "$DB" 'SELECT count(*) FROM runs')
for delay in 0.05 0.1 0.2 0.3; do
	"$ENGPASS" null --values 10 --time 300ms --interval 10ms --db "$DB" >/dev/null 2>&1 &
	pid=$!
	sleep $delay
	kill -9 $pid 2>/dev/null
	wait $pid 2>/dev/null
done
check "after kill -9 the database passes integrity_check" sh -c "[ \"\$(sqlite3 '$DB' 'PRAGMA integrity_check')\" = ok ]"
check "after kill -9 every earlier run is intact" \
	sh -c "[ \$(sqlite3 '$DB' 'SELECT count(*) FROM runs WHERE id <= $before') = $before ]"
check "no half-written run: every run has its results" \
	sh -c "[ \$(sqlite3 '$DB' 'SELECT count(*) FROM runs r WHERE NOT EXISTS (SELECT 1 FROM results x WHERE x.run_id = r.id) AND r.command NOT LIKE \"%info%\"') = 0 ]"

done_testing
