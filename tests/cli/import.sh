#!/bin/sh
# SPDX-License-Identifier: MIT
# engpass import: documents of several hosts stored once each (a run is
# host + start time + command), garbage, foreign and newer schemas refused
# with one line naming the file while the other files import, standard
# input, and a version 1 history database migrated with its runs kept.
. "$(dirname "$0")/lib.sh"
needs_feature sqlite jansson
DB="$T_TMP/h.db"

ENGPASS_HOST=alpha run null --no-sample --values 1000 --json --db "$DB"
cp "$T_TMP/out" "$T_TMP/alpha.json"
jqt "ENGPASS_HOST names the document's host" '.host == "alpha"' "$T_TMP/alpha.json"
ENGPASS_HOST=beta run null --no-sample --values 1000 --json --no-history
cp "$T_TMP/out" "$T_TMP/beta.json"
ENGPASS_HOST= run null --no-sample --values 10 --json --no-history
jqt "an empty ENGPASS_HOST leaves the hostname" ".host == \"$(hostname)\"" "$T_TMP/out"

run import "$T_TMP/alpha.json" "$T_TMP/beta.json" --db "$DB"
check "import exits 0 when every file is stored or already there" [ "$RC" = 0 ]
check "the run this host stored while printing its JSON is not stored again" \
	grep -qx "already stored '$T_TMP/alpha.json' as run 1" "$T_TMP/out"
check "another host's run is imported" grep -qx "imported '$T_TMP/beta.json' as run 2" "$T_TMP/out"
check "import ends with the counts" sh -c "tail -1 '$T_TMP/out' | grep -qx '1 imported, 1 already stored, 0 refused'"
run history --db "$DB"
check "history lists both hosts" sh -c "grep -q '^ *2 .* beta ' '$T_TMP/out' && grep -q '^ *1 .* alpha ' '$T_TMP/out'"
run show 2 --json --db "$DB"
check "the imported document is stored as it was" sh -c "jq -S . '$T_TMP/out' >'$T_TMP/a' && jq -S . '$T_TMP/beta.json' >'$T_TMP/b' && cmp -s '$T_TMP/a' '$T_TMP/b'"
check "the database records where an import came from" \
	sh -c "[ \"\$(sqlite3 '$DB' 'SELECT coalesce(source, \"-\") FROM runs ORDER BY id')\" = \"\$(printf -- '-\n%s' '$T_TMP/beta.json')\" ]"

# Bad input beside good: each bad file refused in one line, the good one stored.
echo 'garbage {' >"$T_TMP/garbage.json"
jq '.schema = "engpass/2"' "$T_TMP/beta.json" >"$T_TMP/newer.json"
jq '.schema = "iperf3"' "$T_TMP/beta.json" >"$T_TMP/foreign.json"
jq 'del(.time_unix_ns)' "$T_TMP/beta.json" >"$T_TMP/noid.json"
jq '.results[0] |= del(.bench)' "$T_TMP/beta.json" >"$T_TMP/badresult.json"
ENGPASS_HOST=gamma run null --no-sample --values 1000 --json --no-history
cp "$T_TMP/out" "$T_TMP/gamma.json"
before=$(sqlite3 "$DB" "SELECT count(*) FROM runs; SELECT count(*) FROM results; SELECT count(*) FROM metrics" | tr '\n' ' ')
run import "$T_TMP/garbage.json" "$T_TMP/newer.json" "$T_TMP/gamma.json" "$T_TMP/foreign.json" \
	"$T_TMP/noid.json" "$T_TMP/badresult.json" "$T_TMP/missing.json" --db "$DB"
check "a refused file makes the exit status 1" [ "$RC" = 1 ]
check "one line per refused file, naming it" [ "$(wc -l <"$T_TMP/err")" = 6 ]
check "garbage: not JSON" grep -q "^engpass import: '$T_TMP/garbage.json' refused: not JSON: " "$T_TMP/err"
check "a newer schema is refused as newer" \
	grep -q "^engpass import: '$T_TMP/newer.json' refused: schema engpass/2 is newer than this engpass reads" "$T_TMP/err"
check "a foreign schema is refused as foreign" \
	grep -q "^engpass import: '$T_TMP/foreign.json' refused: not an engpass document (schema 'iperf3')" "$T_TMP/err"
check "a document without the run's identity is refused" \
	grep -q "^engpass import: '$T_TMP/noid.json' refused: lacks host, command or time_unix_ns" "$T_TMP/err"
check "a document with a broken result is refused whole" \
	grep -q "^engpass import: '$T_TMP/badresult.json' refused: result 0 lacks bench" "$T_TMP/err"
check "a missing file is refused" grep -q "^engpass import: '$T_TMP/missing.json' refused: cannot read it: No such file" "$T_TMP/err"
check "the good file among them is imported" grep -qx "imported '$T_TMP/gamma.json' as run 3" "$T_TMP/out"
check "the counts say 6 refused" sh -c "tail -1 '$T_TMP/out' | grep -qx '1 imported, 0 already stored, 6 refused'"
after=$(sqlite3 "$DB" "SELECT count(*) - 1 FROM runs; SELECT count(*) - 1 FROM results; SELECT count(*) FROM metrics WHERE result_id < 3" | tr '\n' ' ')
check "nothing of a refused file is stored, nothing stored is lost" [ "$before" = "$after" ]

ENGPASS_HOST=delta run null --no-sample --values 1000 --json --no-history
cp "$T_TMP/out" "$T_TMP/delta.json"
RC=0
(cd "$T_TMP" && "$ENGPASS" import - --db "$DB" <"$T_TMP/delta.json") >"$T_TMP/out" 2>"$T_TMP/err" || RC=$?
check "'-' imports standard input" sh -c "[ $RC = 0 ] && grep -qx \"imported '(standard input)' as run 4\" '$T_TMP/out'"
run import --quiet "$T_TMP/delta.json" --db "$DB"
check "--quiet prints nothing when all went well" sh -c "[ $RC = 0 ] && [ ! -s '$T_TMP/out' ]"
run import --db "$DB"
check "import without a file is a usage error" sh -c "[ $RC = 2 ] && grep -q 'needs at least one JSON file' '$T_TMP/err'"

# A version 1 database (the schema before imports), with a run in it.
V1="$T_TMP/v1.db"
sqlite3 "$V1" "CREATE TABLE engpass_meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO engpass_meta VALUES ('application', 'engpass history');
CREATE TABLE runs(id INTEGER PRIMARY KEY, time_ns INTEGER NOT NULL, host TEXT, command TEXT, version TEXT, document TEXT NOT NULL);
CREATE TABLE results(id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE, idx INTEGER NOT NULL, bench TEXT NOT NULL, step TEXT NOT NULL, status TEXT NOT NULL, reason TEXT, incomplete INTEGER NOT NULL, resource TEXT, evidence TEXT);
CREATE TABLE metrics(result_id INTEGER NOT NULL REFERENCES results(id) ON DELETE CASCADE, name TEXT NOT NULL, unit INTEGER NOT NULL, value REAL, min REAL, max REAL, reps INTEGER);
CREATE INDEX results_run ON results(run_id);
CREATE INDEX metrics_result ON metrics(result_id);
PRAGMA user_version = 1;"
doc=$(tr -d "\n" <"$T_TMP/beta.json" | sed "s/'/''/g")
sqlite3 "$V1" "INSERT INTO runs VALUES (1, $(grep -o '"time_unix_ns": *[0-9]*' "$T_TMP/beta.json" | head -n 1 | grep -o '[0-9]*$'), 'beta', $(jq '.command' "$T_TMP/beta.json" | sed "s/^\"/'/; s/\"\$/'/"), '0.1.0', '$doc');
INSERT INTO results VALUES (1, 1, 0, 'null', 'null', 'ok', NULL, 0, 'unknown', NULL);
INSERT INTO metrics VALUES (1, 'values', 0, 1000, 1000, 1000, 1);"
run import "$T_TMP/beta.json" "$T_TMP/gamma.json" --db "$V1"
check "a version 1 database is migrated to the current version (3)" [ "$(sqlite3 "$V1" 'PRAGMA user_version')" = 3 ]
check "... its run is found by identity after the migration" grep -qx "already stored '$T_TMP/beta.json' as run 1" "$T_TMP/out"
check "... and new runs import beside it" grep -qx "imported '$T_TMP/gamma.json' as run 2" "$T_TMP/out"
run show 1 --db "$V1"
check "... the old run still shows" sh -c "[ $RC = 0 ] && grep -q '^run 1: engpass null' '$T_TMP/out'"
check "... with its old metrics rows" [ "$(sqlite3 "$V1" 'SELECT count(*) FROM metrics WHERE result_id = 1')" = 1 ]
cp "$DB" "$T_TMP/newer.db"
sqlite3 "$T_TMP/newer.db" "PRAGMA user_version = 99"
run import "$T_TMP/delta.json" --db "$T_TMP/newer.db"
check "a newer database is refused in one line" sh -c "[ $RC = 1 ] && [ \$(wc -l <'$T_TMP/err') = 1 ] && grep -q 'newer than this engpass' '$T_TMP/err'"
done_testing
