#!/bin/sh
# SPDX-License-Identifier: MIT
# The anchors' spellings (issue 21): POSIX short-option bundling (hdparm's
# -tT), fio's names on disk, cyclictest's on latency, iperf3's on net with
# iperf3's meaning (-b in bits, -c/-s as the verbs, -t -J -4 -6 -O -i ...),
# the refusals that name what to use, and "did you mean". Against the stock
# iperf3 when it is installed: engpass -u -b 100M is 100 Mbit/s as iperf3's
# server counts it, and `engpass net -s` answers `iperf3 -c`.
# Every server is started here on a free port, stops by itself (--one-off,
# iperf3 -1) and is killed by PID in the trap.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/netlib.sh"

trap_pids

# bad EXPECTED_TEXT ARGS...: exit 2, one stderr line containing EXPECTED_TEXT.
bad() {
	want=$1; shift
	run "$@"
	if [ "$RC" = 2 ] && [ "$(wc -l <"$T_TMP/err")" = 1 ] && grep -qF -- "$want" "$T_TMP/err"; then
		ok "engpass $* -> exit 2 naming '$want'"
	else
		not_ok "engpass $* -> exit 2 naming '$want'" "exit $RC: $(cat "$T_TMP/err")"
	fi
}

# "Did you mean", from the tables.
bad "did you mean 'disk'?" dsik
bad "did you mean 'client'?" net clinet 127.0.0.1
bad "did you mean '--iodepth'?" disk --iodpeth 4
bad "did you mean '--qd'?" disk --qdd 4

# Refusals that say what to use; the refusal of an option of the other verb.
bad "--qd" disk --numjobs 4
bad "mixed is random" disk --rw rw
bad "--engine uring" disk --ioengine libaio
bad "--custom-period" latency -i 1000
bad "--time" latency -l 1000
# cyclictest's -m is --mlock now: taken (the error is the next option's), not refused.
bad "option '--timerslack': 0 means" latency -m --timerslack 0
bad "--pin" latency -t
bad "option '-p': '0' is out of range [1, 99]" latency -p 0
bad "is for the server" net -c 127.0.0.1 -B 127.0.0.1
bad "is for the client" net -s -P 2
bad "exclude each other" net -s -4 -6
bad "option '-4' with '--bind'" net -s -4 -B ::1
bad "whole seconds" net -c 127.0.0.1 -O 1.5
# Bits, as iperf3 reads them; two readings are refused with both named.
bad "100Mbit/s (iperf3's M) or 100MiB/s" net -c 127.0.0.1 -b 100M/s
bad "100MB/s (bytes: 800 Mbit/s) or 100Mbit/s" net -c 127.0.0.1 -b 100MB
# Bundling: a flag bundle, a value in the same word, the value in the next.
bad "option '-P': '4u' is not an integer" net -c 127.0.0.1 -P4u

# fio's names on disk, with their meaning, on a 16 MiB file (one short step).
mkdir -p "$T_TMP/d"
dd if=/dev/zero of="$T_TMP/d/data" bs=1M count=16 status=none
"$ENGPASS" disk --rw=randread --bs=4k --iodepth=2 --ioengine=psync --runtime=1 --direct=1 \
	--filename="$T_TMP/d/data" --json --no-history -q >"$T_TMP/fio.json" 2>"$T_TMP/fio.err"
jqt "disk: fio's --rw --bs --iodepth --ioengine --runtime --direct --filename carry their meaning" \
	'.results[0].parameters | .workload == "rand-read" and .bs == "4 KiB" and .qd == "2" and
	 .engine == "psync" and .direct == "yes" and .time == "1.000 s" and .target_kind == "file"' "$T_TMP/fio.json"

# hdparm's -tT: both timings, as -t -T.
"$ENGPASS" disk -tTq --size 16M "$T_TMP/d" --json --no-history >"$T_TMP/tt.json" 2>"$T_TMP/tt.err"
jqt "disk -tTq: the cached and the device timing (-t -T -q bundled)" \
	'[.results[].step] | index("cached") != null and index("device") != null' "$T_TMP/tt.json"

# iperf3's spellings against an engpass server: -s, -c, -p, -t, -J, -P, -R,
# -O, -i, -l, -w, -Z, -4.
new_port
"$ENGPASS" net -s -p "$PORT" --one-off --no-history --json >"$T_TMP/srv.json" 2>"$T_TMP/srv.err" </dev/null &
SPID=$!
PIDS="$PIDS $SPID"
wait_listen "$PORT"
"$ENGPASS" net -4c 127.0.0.1 -p "$PORT" -t 1 -J -P2 -R -O 1 -i 0.5 -l 64K -w 256K -Z --no-history \
	>"$T_TMP/cli.json" 2>"$T_TMP/cli.err"
wait "$SPID" 2>/dev/null
jqt "net -c -p -t -J -P -R -O -l -w: one test with those parameters" \
	'.results[0].status == "ok" and (.results[0].parameters | .streams == "2" and .time == "1 s" and
	 .omit == "1 s" and (.direction | test("server -> client")))' "$T_TMP/cli.json"
check "net -i 0.5: per-interval lines on stderr (two per counted second)" \
	[ "$(grep -c '^net: .* s .*bit/s' "$T_TMP/cli.err" || :)" -ge 2 ]
jqt "net -i 0.5: the JSON's intervals in iperf3's shape, back to back" \
	'.results[0].intervals | length >= 2 and all(.sum | .bytes > 0 and .bits_per_second > 0 and .seconds > 0) and
	 .[0].sum.start == 0 and .[1].sum.start == .[0].sum.end' "$T_TMP/cli.json"
check "net -s says where it listens, on stderr" grep -q "listening on port $PORT" "$T_TMP/srv.err"
run net -6 -c 127.0.0.1 -p "$PORT" -t 1 --no-history
check "net -6: an IPv4 address does not resolve as IPv6" [ "$RC" = 1 ]

if ! command -v iperf3 >/dev/null 2>&1; then
	skip "engpass -u -b 100M against iperf3 -s" "iperf3 not installed"
	skip "engpass net -s answers iperf3 -c" "iperf3 not installed"
	done_testing
	exit $?
fi
# Under another name, as in net.sh, so no test looking for iperf3 by name sees it.
IPERF3="$T_TMP/iperf3-anchor"
ln -s "$(command -v iperf3)" "$IPERF3"

new_port
"$IPERF3" -s -1 -J -p "$PORT" >"$T_TMP/ip3s.json" 2>"$T_TMP/ip3s.err" </dev/null &
IPID=$!
PIDS="$PIDS $IPID"
wait_listen "$PORT"
"$ENGPASS" net -c 127.0.0.1 -p "$PORT" -u -b 100M -t 2 --no-history -q >"$T_TMP/udp.out" 2>"$T_TMP/udp.err"
wait "$IPID" 2>/dev/null
if [ -n "${ENGPASS_EMULATED:-}" ]; then
	# Under qemu the emulated sender cannot hold 100 Mbit/s of UDP: only that it arrived.
	jqt "engpass net -c -u -b 100M -t 2 (under qemu): iperf3's server received datagrams" \
		'.end.sum_received.bits_per_second > 0' "$T_TMP/ip3s.json"
else
	jqt "engpass net -c -u -b 100M -t 2: iperf3's server received 95-105 Mbit/s" \
		'.end.sum_received.bits_per_second | . >= 95e6 and . <= 105e6' "$T_TMP/ip3s.json"
fi

new_port
"$ENGPASS" net -s -p "$PORT" --one-off --no-history >"$T_TMP/srv2.out" 2>"$T_TMP/srv2.err" </dev/null &
SPID=$!
PIDS="$PIDS $SPID"
wait_listen "$PORT"
"$IPERF3" -c 127.0.0.1 -p "$PORT" -t 1 -J >"$T_TMP/ip3c.json" 2>"$T_TMP/ip3c.err"
wait "$SPID" 2>/dev/null
jqt "engpass net -s answers iperf3 -c (bytes received, no error)" \
	'(has("error") | not) and .end.sum_received.bytes > 0' "$T_TMP/ip3c.json"

done_testing
