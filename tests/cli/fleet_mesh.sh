#!/bin/sh
# SPDX-License-Identifier: MIT
# engpass fleet --mesh and the capacity column: four "hosts" (ENGPASS_HOST=
# h1..h4) each run short `engpass net client` tests against one local
# `engpass net server` on loopback, naming the server's host with --peer;
# one pair is measured by a -R run of the other end. Their documents are
# imported into one database: the matrix has 12 directed cells, '-' on the
# diagonal, the -R run placed server -> client, the newest run of a pair
# wins; the capacity column is unknown without a cpu run and says why, and
# is per core x CPUs capped by the best measured uplink with one.
. "$(dirname "$0")/lib.sh"
not_emulated "loopback transfers too slow to finish in time"
needs_feature sqlite jansson
. "$(dirname "$0")/netlib.sh"

trap_pids

DB="$T_TMP/mesh.db"
new_port
"$ENGPASS" net server --port "$PORT" --idle-timeout 60s --json -q --no-history >"$T_TMP/srv.json" 2>"$T_TMP/srv.err" </dev/null &
SPID=$!
PIDS="$SPID"
wait_listen "$PORT"

# client HOST PEER FILE ARGS...: HOST's 100 ms test against the server, named PEER.
client() {
	c=$1; p=$2; f=$3; shift 3
	ENGPASS_HOST=$c "$ENGPASS" net client 127.0.0.1 --port "$PORT" --time 100ms --peer "$p" --json -q --no-history \
		"$@" >"$T_TMP/$f.json" 2>>"$T_TMP/clients.err" </dev/null || echo "$c -> $p failed" >>"$T_TMP/failed"
}
for c in h1 h2 h3 h4; do
	for s in h1 h2 h3 h4; do
		# h2 -> h1 comes from h1's -R run below.
		[ "$c" = "$s" ] || [ "$c$s" = h2h1 ] || client "$c" "$s" "$c-$s"
	done
done
check "11 forward runs done" [ ! -s "$T_TMP/failed" ]

run import --db "$DB" "$T_TMP"/h*-h*.json
check "11 runs imported" sh -c "[ $RC = 0 ] && tail -1 '$T_TMP/out' | grep -qx '11 imported, 0 already stored, 0 refused'"
run fleet --mesh --db "$DB"
check "a missing pair: 11 of 12 directed pairs measured" grep -q "^mesh: 4 hosts; 11 of 12 directed pairs measured" "$T_TMP/out"
check "the missing pair is '-'" sh -c "sed -n '/^throughput/,/^\$/p' '$T_TMP/out' | grep -Eq '^  h2 +- +- +[0-9]'"

# The reversed run: h1 is the client, h2 the server, the data flows h2 -> h1.
client h1 h2 rev -R
run import --db "$DB" "$T_TMP/rev.json"
run fleet --mesh --db "$DB"
check "fleet --mesh exits 0" [ "$RC" = 0 ]
check "12 of 12 directed pairs measured" grep -q "^mesh: 4 hosts; 12 of 12 directed pairs measured" "$T_TMP/out"
check "three matrices: throughput, RTT, verdict" \
	sh -c "grep -q '^throughput' '$T_TMP/out' && grep -q '^RTT' '$T_TMP/out' && grep -q '^verdict' '$T_TMP/out'"
# Row hN of the throughput matrix: '-' exactly in column N.
for i in 1 2 3 4; do
	check "throughput row h$i: '-' on the diagonal only" sh -c "sed -n '/^throughput/,/^\$/p' '$T_TMP/out' |
		awk -v i=$i '\$1 == \"h\" i { n = 0; for (k = 2; k <= NF; k++) if (\$k == \"-\") { n++; col = k } ; exit !(n == 1 && col == 2 * i) }'"
done
check "RTT cells in ms from TCP_INFO" sh -c "sed -n '/^RTT/,/^\$/p' '$T_TMP/out' | grep -Ec ' ms' | grep -qx 4"

run fleet --mesh --json --db "$DB"
J="$T_TMP/mesh.json"
cp "$T_TMP/out" "$J"
jqt "--json: 4 hosts, 12 cells, 12 measured" \
	'.hosts == ["h1","h2","h3","h4"] and (.cells | length) == 12 and .pairs == 12 and .pairs_measured == 12' "$J"
jqt "--json: no cell from a host to itself" '.cells | all(.from != .to)' "$J"
jqt "--json: the -R run is placed h2 -> h1 (server -> client)" \
	'[.cells[] | select(.from == "h2" and .to == "h1")] | length == 1 and .[0].reversed == true' "$J"
jqt "--json: forward runs are placed client -> server" '[.cells[] | select(.reversed)] | length == 1' "$J"
jqt "--json: every cell has a throughput, an RTT, a verdict and the queue wait" \
	'.cells | all(.throughput_bits_per_second > 0 and .rtt_ms > 0 and .rtt_ms < 1000 and (.verdict | length > 0)
	 and .queue_wait_seconds >= 0)' "$J"
jqt "--json: the same cells as the stored runs (h1 -> h3)" \
	"[.cells[] | select(.from == \"h1\" and .to == \"h3\")][0].throughput_bits_per_second == $(jq '.results[0].metrics.throughput_bits_per_second' "$T_TMP/h1-h3.json")" "$J"

# A newer run of a pair replaces the older one.
client h3 h4 h3-h4-new
run import --db "$DB" "$T_TMP/h3-h4-new.json"
run fleet --mesh --json --db "$DB"
jqt "the newest run of a pair stands for it" \
	"[.cells[] | select(.from == \"h3\" and .to == \"h4\")][0].throughput_bits_per_second == $(jq '.results[0].metrics.throughput_bits_per_second' "$T_TMP/h3-h4-new.json")" "$T_TMP/out"

# --peer's default: HOST as given.
ENGPASS_HOST=h1 "$ENGPASS" net client 127.0.0.1 --port "$PORT" --time 100ms --json -q --no-history >"$T_TMP/nopeer.json" 2>/dev/null </dev/null
jqt "without --peer the server's host is HOST as given" '.results[0].parameters.server_host == "127.0.0.1"' "$T_TMP/nopeer.json"

# The capacity column: unknown without a cpu run, with the reason.
run fleet --db "$DB"
check "fleet has a capacity column" grep -q '^  host .* capacity  *command' "$T_TMP/out"
check "without a cpu run every host's capacity is unknown, with the reason" \
	sh -c "[ \$(grep -c '^  h[1-4]  *unknown: no stored cpu run' '$T_TMP/out') = 4 ]"
ENGPASS_HOST=h1 "$ENGPASS" cpu --cipher chacha20-poly1305 --size 1400 --time 100ms --json -q --no-history \
	>"$T_TMP/cpu.json" 2>/dev/null </dev/null
run import --db "$DB" "$T_TMP/cpu.json"
run fleet --db "$DB"
check "with a cpu run: h1's capacity is a figure, its method on the line below" \
	sh -c "grep -Eq '^  h1 .* [0-9.]+ [MG]bit/s  ' '$T_TMP/out' &&
	grep -Eq '^  h1  .* per core \(chacha20-poly1305/1400B/.*/1 thread, run [0-9]+\) x [0-9]+ = .*; uplink .* \(to h[2-4]\) (caps|does not cap) it' '$T_TMP/out'"
check "the other hosts stay unknown" sh -c "[ \$(grep -c '^  h[2-4]  *unknown: no stored cpu run' '$T_TMP/out') = 3 ]"
run fleet --mesh --json --db "$DB"
jqt "--json capacity: per core x CPUs, capped by the best uplink out of the mesh" \
	'(.capacity[] | select(.host == "h1")) as $c | ([.cells[] | select(.from == "h1") | .throughput_bits_per_second] | max) as $up |
	 $c.uplink_bits_per_second == $up and $c.cpus >= 1 and
	 ($c.bits_per_second - ([($c.per_core_bits_per_second * $c.cpus), $up] | min) | fabs) < 1 and
	 $c.capped_by_uplink == ($c.per_core_bits_per_second * $c.cpus > $up)' "$T_TMP/out"
jqt "--json capacity: unknown hosts say why" \
	'[.capacity[] | select(.host != "h1")] | all(.bits_per_second == null and (.unknown | test("no stored cpu run")))' "$T_TMP/out"

run fleet --json --db "$DB"
check "--json without --mesh is a usage error" sh -c "[ $RC = 2 ] && grep -q -- '--json is for --mesh' '$T_TMP/err'"
run fleet --mesh 1 --db "$DB"
check "--mesh with run ids is a usage error" [ "$RC" = 2 ]
done_testing
