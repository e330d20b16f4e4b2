#!/bin/sh
# SPDX-License-Identifier: MIT
# engpass sweep: the cross product of option values, one table; every
# combination checked before the first runs. No jansson needed: the
# combinations run in-process and hand their results back.
. "$(dirname "$0")/lib.sh"
needs_feature sqlite
DB="$T_TMP/h.db"

run sweep 'null --no-sample' --values 10,20 --seed 1,2 --db "$DB"
check "sweep exits 0" [ "$RC" = 0 ]
check "sweep prints one column per combination" grep -q "^values  *10  *20  *10  *20$" "$T_TMP/out"
check "sweep names each column" grep -q "^(4) null --values 20 --seed 2$" "$T_TMP/out"
check "sweep reports progress on stderr" grep -q "4/4" "$T_TMP/err"
check "each combination is stored in the history" sh -c "[ \$(sqlite3 '$DB' 'SELECT count(*) FROM runs') = 4 ]"

run sweep 'null --no-sample' --values 10,20 --repeat 2 --json --no-history
jqt "sweep --json is one document with a result per combination" \
	'.schema == "engpass/1" and (.results | length == 2) and .results[1].sweep == "--values 20"' "$T_TMP/out"
jqt "--repeat is passed to every run" '[.results[].repetitions] == [2, 2]' "$T_TMP/out"

bad() {
	want=$1; shift
	run "$@"
	if [ "$RC" = 2 ] && [ "$(wc -l <"$T_TMP/err")" = 1 ] && grep -qF -- "$want" "$T_TMP/err" && [ ! -s "$T_TMP/out" ]; then
		ok "sweep $2 ... -> exit 2, '$want'"
	else
		not_ok "sweep $2 ... -> exit 2, '$want'" "exit $RC: $(cat "$T_TMP/err")"
	fi
}
bad "no option '--bogus'" sweep null --bogus 1,2 --db "$DB"
bad "'x'" sweep null --values 10,x --db "$DB"
check "a bad value is caught before anything runs" sh -c "[ \$(sqlite3 '$DB' 'SELECT count(*) FROM runs') = 4 ]"
bad "nothing to sweep" sweep null
bad "not a benchmark" sweep 'frob --x' --y 1
bad "empty value" sweep null --values 10,,20
bad "needs the command" sweep --values 1,2

done_testing
