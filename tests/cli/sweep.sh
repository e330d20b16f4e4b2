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

# --repeat: each figure's interval under it and the unstable mark, as a run's own table gives them.
run sweep 'null --no-sample --time 100ms' --values 10,20 --repeat 3 --no-history
check "sweep --repeat 3 exits 0" [ "$RC" = 0 ]
check "sweep --repeat: a low..high row under a figure, one cell per combination" \
	grep -q "^  low\.\.high  *10\.\.10  *20\.\.20$" "$T_TMP/out"
check "sweep --repeat: the spinning thread's CPU share has its interval" \
	sh -c "grep -A1 '^spin_cpu_share ' '$T_TMP/out' | grep -q '^  low\.\.high  *[0-9.]*\.\.[0-9.]* %  *[0-9.]*\.\.[0-9.]* %$'"
check "sweep --repeat: a key says what the figures and intervals are" \
	sh -c "tr '\n' ' ' <'$T_TMP/out' | grep -q 'each figure is the median of 3 repetitions; low\.\.high: the median.s order-statistic  *interval'"
# A figure is marked unstable exactly where its interval reaches beyond 5 % of
# the median (rows whose cells share one unit: "15.4 % unstable" over "6.1..15.9 %").
check "sweep --repeat: 'unstable' marks exactly the figures whose interval reaches beyond 5 %" awk '
	function cells(line, arr,   n, i, out) {
		n = split(line, f, /  +/); out = 0
		for (i = 2; i <= n; i++) arr[++out] = f[i]
		return out
	}
	/^  low\.\.high / && prev != "" {
		line = $0; sub(/^  /, "", line)
		n = cells(prev, v); cells(line, iv)
		for (i = 1; i <= n; i++) {
			split(iv[i], u, " "); split(u[1], lh, /\.\./)
			split(v[i], w, " ")
			if (u[2] != w[2] || w[1] + 0 == 0) continue
			reach = (w[1] - lh[1] > lh[2] - w[1] ? w[1] - lh[1] : lh[2] - w[1]) / w[1]
			marked = v[i] ~ / unstable$/
			# The cells are rounded: a reach within 1 % of the 5 % line is not judged.
			if ((marked && reach < 0.04) || (!marked && reach > 0.06)) bad++
			checked++
		}
	}
	{ prev = $0 }
	END { exit !(checked > 0 && !bad) }' "$T_TMP/out"
# Labels are not cut ("system: disk write reques"): a step's long row name is whole.
truncate -s 64M "$T_TMP/f64"
run sweep "disk -t $T_TMP/f64 --time 200ms" --offset 0,4M --no-history
check "sweep: a long row name is whole (device: system: disk write requests)" \
	grep -q "^device: system: disk write requests  *[0-9.k]*  *[0-9.k]*$" "$T_TMP/out"

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
