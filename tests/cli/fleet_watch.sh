#!/bin/sh
# SPDX-License-Identifier: MIT
# engpass fleet --command watch (issue 35): three supernodes' stored
# watches of fastd. sn1's watch has the capacity from the daemon's own CPU
# (its headline), sn2's was stored before there was one (seed 004's rule of
# three only, no headline), sn3 has none from the watch but a cpu run's
# cipher figure is not looked for then. Each host's daemon, its capacity
# per core and for the box, the headroom and the verdict are shown, and the
# capacity column says which figure it used. The documents are one real
# watch (of this shell, for a second) edited with jq, imported.
. "$(dirname "$0")/lib.sh"
needs_feature sqlite jansson
DB="$T_TMP/h.db"
ENGPASS_HOST=base run watch --pid $$ --iface lo --time 1s --json --no-history
check "a watch document to start from" jq -e '.results[0].bench == "watch"' "$T_TMP/out"
cp "$T_TMP/out" "$T_TMP/base.json"
# doc HOST JQ: the base document as host HOST, edited by JQ.
doc() {
	jq --arg h "$1" ".host = \$h | .results[0].parameters.process = \"fastd\" | $2" "$T_TMP/base.json" >"$T_TMP/$1.json"
}
doc sn1 '.results[0].metrics += { cap_bits_per_second: 7.2e8, cap_lo_bits_per_second: 7.0e8,
	cap_hi_bits_per_second: 7.5e8, cap_per_core_bits_per_second: 7.2e8, cap_total_bits_per_second: 1.44e9,
	cap_headroom_bits_per_second: 4.2e8, cap_load_percent: 41.7 } |
	.results[0].labels += { cap_bits_per_second: "CAPACITY ESTIMATE (process'"'"'s own CPU): its core" } |
	.results[0].headline = "cap_bits_per_second" | .results[0].verdict.resource = "one core"'
doc sn2 '.results[0].metrics += { est_per_core_bits_per_second: 2.1e8, est_cores: 4 } |
	.results[0].labels += { est_per_core_bits_per_second: "ESTIMATE: per core at 100 %" } | del(.results[0].headline)'
doc sn3 '.results[0].metrics += { cap_bits_per_second: 3.6e8, cap_per_core_bits_per_second: 7.0e8,
	cap_total_bits_per_second: 1.4e9, cap_headroom_bits_per_second: 1.0e8, cap_load_percent: 72.2 } |
	.results[0].labels += { cap_bits_per_second: "CAPACITY ESTIMATE (process'"'"'s own CPU): its CPU quota" } |
	.results[0].headline = "cap_bits_per_second"'
run import --db "$DB" "$T_TMP/sn1.json" "$T_TMP/sn2.json" "$T_TMP/sn3.json"
check "three watches import" sh -c "[ $RC = 0 ] && tail -1 '$T_TMP/out' | grep -qx '3 imported, 0 already stored, 0 refused'"

run fleet --db "$DB" --command watch
check "fleet --command watch exits 0" [ "$RC" = 0 ]
sed 's/^/# /' "$T_TMP/out"
check "the watch step has its headline figure, not 'no headline figure'" \
	sh -c "grep -q '^watch: CAPACITY ESTIMATE (process.s own CPU)' '$T_TMP/out' && ! grep -q 'no headline figure' '$T_TMP/out'"
check "sn1: the daemon, its capacity per core from its own CPU and for the box" \
	grep -q "^  sn1  *watch of fastd (pid [0-9]*): 720.0 Mbit/s per core (the daemon's own CPU, run [0-9]*) x 2 = 1.4 Gbit/s" "$T_TMP/out"
check "sn1: its capacity as configured, the headroom and the verdict" \
	grep -q "fastd (pid [0-9]*): capacity 720.0 Mbit/s as configured, headroom 420.0 Mbit/s (its traffic was 42 % of it); verdict one core" "$T_TMP/out"
check "sn2: an older watch stands by the field report's rule of three, and says so" \
	sh -c "grep -q '^  sn2  *watch of fastd (pid [0-9]*): 210.0 Mbit/s per core (the field report.s rule of three, run [0-9]*) x 4 = 840.0 Mbit/s' '$T_TMP/out' &&
	grep -q 'fastd (pid [0-9]*): no figure from its own CPU in this watch' '$T_TMP/out'"
check "sn2: its figure in the watch step is the rule of three's per core, no headline stored" grep -q "^  sn2  *210.0 Mbit/s" "$T_TMP/out"
check "sn3: under a quota, the daemon's capacity is below its core's" \
	grep -q "fastd (pid [0-9]*): capacity 360.0 Mbit/s as configured, headroom 100.0 Mbit/s" "$T_TMP/out"
check "the capacity column is the box's figure from the watch, not 'unknown'" \
	sh -c "[ \$(sed -n '/^  host /,/^capacity/p' '$T_TMP/out' | grep -c ' unknown ') = 0 ]"
check "the method line says which figure the capacity prefers" grep -q "^capacity: from the host's watch of a daemon when it has one" "$T_TMP/out"
done_testing
