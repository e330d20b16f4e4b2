#!/bin/sh
# SPDX-License-Identifier: MIT
# The long-lived net server loop for the 'valgrind' suite, short enough to
# run under valgrind (tests/valgrind.sh valgrind-net.sh): one server serves
# engpass clients (TCP, -R -P 2, --bidir, UDP), the stock iperf3 3.x client
# and a hostile peer (garbage, an oversized frame, a half-open test), is
# watched by engpass watch (--pid, --iface) during a test, then
# stops by itself (--idle-timeout) and must exit 0 with a valid summary.
# cli/net.sh is the full test; its timing checks do not hold under valgrind.
. "$(dirname "$0")/cli/lib.sh"

SPID=""
trap '[ -n "$SPID" ] && kill "$SPID" 2>/dev/null; rm -rf "$T_TMP"' EXIT INT TERM

PORT=$((53000 + $$ % 900))
while ss -Htan "( sport = :$PORT )" 2>/dev/null | grep -q .; do PORT=$((PORT + 1)); done
"$ENGPASS" net server --port "$PORT" --idle-timeout 10s --read-timeout 3s --json \
	>"$T_TMP/srv" 2>"$T_TMP/srv.err" </dev/null &
SPID=$!
i=0
while [ $i -lt 150 ] && ! ss -Hltn "( sport = :$PORT )" 2>/dev/null | grep -q .; do
	sleep 0.1
	i=$((i + 1))
done

for args in "" "-R -P 2" "--bidir" "--udp -b 20Mbit/s"; do
	# shellcheck disable=SC2086
	run net client 127.0.0.1 --port "$PORT" --time 1s --connect-timeout 20s --json -q $args
	check "engpass client $args against the server" [ "$RC" = 0 ]
done
# engpass watch (the process and interface sampler) on the server during a test.
"$ENGPASS" net client 127.0.0.1 --port "$PORT" --time 3s --connect-timeout 20s -q >/dev/null 2>&1 </dev/null &
CPID=$!
run watch --pid "$SPID" --iface lo --time 2s --interval 100ms --json
check "engpass watch of the server during a test" [ "$RC" = 0 ]
jqt "... saw it" '.results[0].metrics.intervals >= 5' "$T_TMP/out"
wait "$CPID"
if command -v iperf3 >/dev/null 2>&1; then
	timeout 60 iperf3 -c 127.0.0.1 -p "$PORT" -t 1 >"$T_TMP/iperf3.out" 2>&1
	check "iperf3 client against the server" [ $? = 0 ]
else
	skip "iperf3 client against the server" "iperf3 not installed"
fi

timeout 10 bash -c "exec 3<>/dev/tcp/127.0.0.1/$PORT; printf 'GET / HTTP/1.0\r\n\r\n' >&3; head -c 5000 /dev/urandom >&3; sleep 1" 2>/dev/null
timeout 10 bash -c "exec 3<>/dev/tcp/127.0.0.1/$PORT; printf 'abcdefghijklmnopqrstuvwxyz2345672345\0' >&3;
	dd bs=1 count=1 <&3 2>/dev/null >/dev/null; printf '\x7f\xff\xff\xff' >&3; sleep 1" 2>/dev/null
timeout 10 bash -c "exec 3<>/dev/tcp/127.0.0.1/$PORT; printf 'abcdefghijklmnopqrstuvwxyz2345672345\0' >&3;
	dd bs=1 count=1 <&3 2>/dev/null >/dev/null; m='{\"tcp\":true,\"time\":1,\"parallel\":1}';
	printf '\x00\x00\x00\x22%s' \"\$m\" >&3; dd bs=1 count=1 <&3 2>/dev/null >/dev/null; sleep 5" 2>/dev/null
run net client 127.0.0.1 --port "$PORT" --time 1s --connect-timeout 20s --json -q
check "after garbage, a huge frame and a half-open test the server still serves" [ "$RC" = 0 ]

RC=0
wait "$SPID" || RC=$?
SPID=""
check "the server stops by itself after --idle-timeout, exit 0" [ "$RC" = 0 ]
jqt "its summary counts the tests" '.results[-1].metrics.tests >= 5' "$T_TMP/srv"
done_testing
