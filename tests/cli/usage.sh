#!/bin/sh
# SPDX-License-Identifier: MIT
# Bad input: every case exits 2 with exactly one line on stderr naming the
# option and the offending text, writes nothing on stdout and leaves no file
# behind. Then the help that is generated from the tables.
. "$(dirname "$0")/lib.sh"

# bad EXPECTED_TEXT ARGS...: exit 2, one stderr line containing EXPECTED_TEXT.
bad() {
	want=$1; shift
	run "$@"
	lines=$(wc -l <"$T_TMP/err")
	if [ "$RC" = 2 ] && [ "$lines" = 1 ] && grep -qF -- "$want" "$T_TMP/err" && [ ! -s "$T_TMP/out" ] &&
	   [ -z "$(ls -A "$T_TMP/cwd")" ]; then
		ok "engpass $* -> exit 2 naming '$want'"
	else
		not_ok "engpass $* -> exit 2 naming '$want'" "exit $RC, $lines stderr lines:" "$(cat "$T_TMP/err")" \
			"stdout: $(head -c 200 "$T_TMP/out")"
	fi
}

bad "frobnicate" frobnicate
bad "'--bogus'" null --bogus
bad "-z" null -z
bad "'5q'" null --time 5q
bad "--time" null --time 5q
bad "'5 s'" null --time "5 s"
bad "'-1'" null --values -1
bad "'-1'" null --time -1
bad "--values" null --values 12abc
bad "'99'" null --pin 99
bad "--pin" null --pin 1-0
bad "--pin" null --pin a
bad "--time" null --time
bad "--repeat" null --repeat 0
bad "--repeat" null --repeat 1.5
bad "--interval" null --interval 1ms
bad "--interval" null --interval 11s
bad "'maybe'" null --outcome maybe
bad "'extra'" null extra
bad "--json" null --json=yes
bad "--format" null --format xml
bad "given twice" null --values 1 --values 2
bad "'--bogus'" info --bogus
bad "'x'" info x
bad "'zzz'" help zzz
bad "'x'" list x

run
if [ "$RC" = 2 ] && grep -q "usage: engpass" "$T_TMP/err" && [ ! -s "$T_TMP/out" ]; then
	ok "no command -> usage on stderr, exit 2"
else
	not_ok "no command -> usage on stderr, exit 2" "exit $RC"
fi

run --help
check "--help exits 0" [ "$RC" = 0 ]
check "--help lists the info command" grep -q "^  info " "$T_TMP/out"
check "--help lists the null benchmark" grep -q "^  null " "$T_TMP/out"

run null --help
check "null --help exits 0" [ "$RC" = 0 ]
check "null --help shows its own options" grep -q -- "--values N" "$T_TMP/out"
check "null --help shows the common options" grep -q -- "--repeat N" "$T_TMP/out"
check "null --help shows choices" grep -q "(ok, skip, fail)" "$T_TMP/out"
cp "$T_TMP/out" "$T_TMP/help1"
run help null
check "'help null' equals 'null --help'" cmp -s "$T_TMP/out" "$T_TMP/help1"

run info --help
check "info --help exits 0" [ "$RC" = 0 ]
check "info --help lists --json" grep -q -- "--json" "$T_TMP/out"

run --version
check "--version prints the version" grep -q "^engpass [0-9]" "$T_TMP/out"

run list
check "list exits 0 and shows null ready" grep -q "^null .*ready" "$T_TMP/out"

done_testing
