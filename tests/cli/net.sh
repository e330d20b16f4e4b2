#!/bin/sh
# SPDX-License-Identifier: MIT
# engpass net on loopback: bad usage, engpass client against engpass server
# (TCP, -R, --bidir, UDP, --capacity, pinning), interop both ways with the
# stock iperf3 (TCP -P 1/-P 4/-R/--bidir/-Z/-w, UDP both directions, -J),
# the server facing hostile peers (garbage, oversized frames, half-open
# handshakes, a second client while busy, a client killed mid-test, a
# client stopped mid-test sending or reading, a silent or trickled handshake
# holding the next client no longer than --read-timeout, 200 back-to-back
# tests without growing), and soft stop on both sides.
#
# Never asserts a speed: it asserts that both sides of one test agree on
# what was moved (the receiver counted 95..100 % of what the sender sent),
# that each side's figures reach the other intact, and behaviour.
# Every server is started here, on a free port (never 5201), stops by
# itself (--idle-timeout, iperf3 -1) and is killed by PID in the trap.
. "$(dirname "$0")/lib.sh"
not_emulated "network namespaces, and loopback transfers too slow to finish in time"

PIDS=""
cleanup() {
	for p in $PIDS; do kill "$p" 2>/dev/null; done
	for p in $PIDS; do wait "$p" 2>/dev/null; done
	rm -rf "$T_TMP"
}
trap cleanup EXIT
trap 'cleanup; exit 1' INT TERM

# The stock iperf3 runs under another name, so that tests looking for "the"
# iperf3 process by name (cli_watch) never see ours when run in parallel.
HAVE_IPERF3=0
IPERF3=iperf3
if command -v iperf3 >/dev/null 2>&1; then
	HAVE_IPERF3=1
	IPERF3="$T_TMP/iperf3-anchor"
	ln -s "$(command -v iperf3)" "$IPERF3"
fi

. "$(dirname "$0")/netlib.sh"

# jqcand NAME RESOURCE MIN FILE: the first result's verdict offers RESOURCE
# as a candidate with a share of at least MIN (or names it). Skipped while
# the runner writes no verdict.candidates (the ranked verdict of #18).
jqcand() {
	if ! jq -e '.results[0].verdict | has("candidates")' "$4" >/dev/null 2>&1; then
		skip "$1" "the runner writes no verdict.candidates yet"
		return
	fi
	jqt "$1" ".results[0].verdict | .resource == \"$2\" or
		(.candidates | map(select(.resource == \"$2\" and (.share // -1) >= $3)) | length > 0)" "$4"
}

# start_server OUT ARGS...: an engpass server on a new port; $SPID, $PORT.
start_server() {
	out=$1
	shift
	new_port
	"$ENGPASS" net server --port "$PORT" --idle-timeout 90s --json "$@" >"$out" 2>"$out.err" </dev/null &
	SPID=$!
	PIDS="$PIDS $SPID"
	wait_listen "$PORT"
}
stop_server() {
	kill "$1" 2>/dev/null
	SRC=0
	wait "$1" 2>/dev/null || SRC=$?
}
# start_iperf3 OUT: a one-off stock iperf3 server with JSON output; $IPID, $PORT.
start_iperf3() {
	new_port
	"$IPERF3" -s -1 -J -p "$PORT" >"$1" 2>"$1.err" </dev/null &
	IPID=$!
	PIDS="$PIDS $IPID"
	wait_listen "$PORT"
}

# jqs NAME FILTER FILE: like jqt, over all the JSON documents of FILE at once.
jqs() {
	if jq -s -e "$2" "$3" >/dev/null 2>&1; then ok "$1"; else not_ok "$1" "jq -s -e '$2' was false or failed"; fi
}
cli_metric() {
	jq ".results[0].metrics.$2 // \"none\"" "$1" 2>/dev/null
}

# ---------------------------------------------------------------- usage
for args in "" "bogus" "client" "client a b" "server extra" "server -P 2" "server --udp" \
	"client 127.0.0.1 --one-off" "client 127.0.0.1 --bind 127.0.0.1" "client 127.0.0.1 -R --bidir" \
	"client 127.0.0.1 --udp --len 8" "client 127.0.0.1 -P 129" "client 127.0.0.1 --len 2M" \
	"client 127.0.0.1 --server-pin x"; do
	# shellcheck disable=SC2086
	run net $args
	if [ "$RC" = 2 ] && [ "$(wc -l <"$T_TMP/err")" = 1 ] && [ ! -s "$T_TMP/out" ]; then
		ok "usage error, one line, exit 2: net $args"
	else
		not_ok "usage error, one line, exit 2: net $args" "rc=$RC" "$(cat "$T_TMP/err")"
	fi
done

# An option of the other command names the command it is for.
run net client 127.0.0.1 --bind 127.0.0.1
check "client --bind: says it is a server option" grep -q "option '--bind' is for the server" "$T_TMP/err"
run net --parallel 2 server
check "-P before 'server': says it is a client option" grep -q "option '--parallel' is for the client" "$T_TMP/err"

# Help per command, generated from its table.
run net client --help
check "net client --help exits 0" [ "$RC" = 0 ]
check "net client --help shows client options" grep -q -- "--parallel N" "$T_TMP/out"
check "net client --help shows the shared --port" grep -q -- "--port PORT" "$T_TMP/out"
check "net client --help hides server options" sh -c "! grep -q -- '--bind' '$T_TMP/out'"
run net server --help
check "net server --help shows server options" grep -q -- "--idle-timeout" "$T_TMP/out"
check "net server --help hides client options" sh -c "! grep -q -- '--parallel' '$T_TMP/out'"
run net --help
check "net --help lists both commands and their options" \
	sh -c "grep -q 'net server options:' '$T_TMP/out' && grep -q 'net client options:' '$T_TMP/out'"

# ---------------------------------------------------------------- a build without jansson
new_port
run net server --port "$PORT" --idle-timeout 1ms --json
if jq -e '.results[0].status == "skipped"' "$T_TMP/out" >/dev/null 2>&1; then
	jqt "without jansson the server says why it is skipped" \
		'.results[0].reason | test("built without jansson")' "$T_TMP/out"
	run net client 127.0.0.1 --port "$PORT" --json
	jqt "without jansson the client says why it is skipped" \
		'.results[0].status == "skipped" and (.results[0].reason | test("built without jansson"))' "$T_TMP/out"
	check "skipped is exit 0" [ "$RC" = 0 ]
	done_testing
	exit $?
fi
check "--idle-timeout: a server with nothing to do stops by itself, exit 0" [ "$RC" = 0 ]

# ---------------------------------------------------------------- client failures
new_port
start=$(date +%s)
run net client 127.0.0.1 --port "$PORT" --time 1s --json --connect-timeout 2s
check "refused: exit 1" [ "$RC" = 1 ]
check "refused: one clear line" grep -q "cannot connect to '127.0.0.1'" "$T_TMP/err"
jqt "refused: result marked failed" '.results[0].status == "failed"' "$T_TMP/out"
# In the table, a refused connection is one error line and exit 1: no table of
# the failure, no system block, no verdict (issue 23).
run net client 127.0.0.1 --port "$PORT" --time 1s --connect-timeout 2s
check "refused (table): exit 1" [ "$RC" = 1 ]
check "refused (table): one line in all, naming the refusal" \
	sh -c "[ \$(cat '$T_TMP/out' '$T_TMP/err' | wc -l) = 1 ] && grep -q 'cannot connect to .127.0.0.1. port $PORT: Connection refused' '$T_TMP/err'"
check "refused (table): no system block and no verdict" \
	sh -c "! grep -qE 'system|bound by|verdict' '$T_TMP/out' '$T_TMP/err'"

# A server busy with a silent connection leaves the next client waiting in its
# backlog: the client gives up after --connect-timeout with one line.
start_server "$T_TMP/silent.srv" --read-timeout 3s
bash -c "exec 3<>/dev/tcp/127.0.0.1/$PORT; sleep 4" 2>/dev/null &
HOLD=$!
PIDS="$PIDS $HOLD"
sleep 0.2
start=$(date +%s)
run net client 127.0.0.1 --port "$PORT" --time 1s --connect-timeout 1s
check "silent server: exit 1" [ "$RC" = 1 ]
check "silent server: says the server sent nothing" grep -q "sent nothing for 1 s" "$T_TMP/err"
check "silent server: no hang beyond the timeout" [ $(($(date +%s) - start)) -le 3 ]
wait "$HOLD" 2>/dev/null
# Once the silent peer is dropped (read timeout 3 s), the server serves again.
run net client 127.0.0.1 --port "$PORT" --time 200ms --json -q
check "after a silent peer the server serves the next client" [ "$RC" = 0 ]
stop_server "$SPID"
jqt "the silent peer counts as a dropped handshake" \
	'.results[0].metrics.bad_handshakes >= 1 and .results[0].metrics.tests == 1' "$T_TMP/silent.srv"

# ---------------------------------------------------------------- engpass <-> engpass
start_server "$T_TMP/e.srv"
run net client 127.0.0.1 --port "$PORT" --time 1s -P 2 --capacity --json
check "engpass -> engpass -P 2 exits 0" [ "$RC" = 0 ]
C="$T_TMP/e1.json"
cp "$T_TMP/out" "$C"
jqt "the peer is engpass" '.results[0].parameters.peer | startswith("engpass")' "$C"
ratio "-P 2: receiver counted 95-100 % of what the sender sent" \
	"$(cli_metric "$C" up_received_bytes)" "$(cli_metric "$C" up_sent_bytes)" 0.95 1.0
jqt "the server's per-CPU view reached the client" \
	'.results[0].metrics | .server_busiest_cpu_busy_percent >= 0 and .server_busiest_cpu >= 0
	 and .server_busiest_cpu_softirq_percent >= 0' "$C"
jqt "the client's own per-CPU view is there" '.results[0].metrics.client_busiest_cpu_busy_percent >= 0' "$C"
jqt "CPU time per GB for both sides" \
	'.results[0].metrics | .client_cpu_per_gigabyte_seconds > 0 and .server_cpu_per_gigabyte_seconds > 0' "$C"
jqt "a net verdict with evidence" '.results[0].verdict | (.resource | length > 0) and (.evidence | length > 10)' "$C"
jqcand "net offers its busiest core as a candidate" "one core" 0 "$C"
jqcand "net offers the TCP window from TCP_INFO" "tcp window" 0 "$C"
jqt "--capacity: estimate per core, per GHz and in total, named an estimate" \
	'.results[0] | (.metrics | .capacity_per_core_bits_per_second >= .throughput_bits_per_second
	 and .capacity_total_bits_per_second >= .capacity_per_core_bits_per_second
	 and .capacity_per_ghz_bits_per_second > 0)
	 and (.method.capacity | test("estimate")) and (.method.capacity | test("MHz \\(")) ' "$C"
jqt "the throughput is the headline" '.results[0].headline == "throughput_bits_per_second"' "$C"
wait_tests "$T_TMP/e.srv" 1
same "the server's emitted result has the same received count" \
	"$(srv_metric "$T_TMP/e.srv" 0 up_received_bytes)" "$(cli_metric "$C" up_received_bytes)"
same "the server's emitted result has the client's sent count" \
	"$(srv_metric "$T_TMP/e.srv" 0 up_sent_bytes)" "$(cli_metric "$C" up_sent_bytes)"
check "the client's per-CPU view reached the server" \
	[ "$(srv_metric "$T_TMP/e.srv" 0 client_busiest_cpu_busy_percent)" != none ]

run net client 127.0.0.1 --port "$PORT" --time 1s -R --bitrate 1Gbit/s --json -q
check "engpass -> engpass -R exits 0" [ "$RC" = 0 ]
ratio "-R: the client received 95-100 % of what the server sent" \
	"$(cli_metric "$T_TMP/out" down_received_bytes)" "$(cli_metric "$T_TMP/out" down_sent_bytes)" 0.95 1.0
jqt "-R: nothing went up" '.results[0].metrics.up_sent_bytes == null' "$T_TMP/out"

run net client 127.0.0.1 --port "$PORT" --time 1s --bidir --bitrate 1Gbit/s --json -q
check "engpass -> engpass --bidir exits 0" [ "$RC" = 0 ]
jqt "--bidir: both directions moved data" \
	'.results[0].metrics | .up_received_bytes > 0 and .down_received_bytes > 0' "$T_TMP/out"

run net client 127.0.0.1 --port "$PORT" --time 1s --udp --bitrate 20Mbit/s --json -q
check "engpass -> engpass UDP exits 0" [ "$RC" = 0 ]
jqt "UDP: loss, datagrams and jitter as iperf3 counts them" \
	'.results[0].metrics | .up_lost_packets >= 0 and .up_packets > 0 and .up_jitter_ns >= 0' "$T_TMP/out"
ratio "UDP: paced near the asked 20 Mbit/s" "$(cli_metric "$T_TMP/out" up_sender_bits_per_second)" 20000000 0.8 1.1
run net client 127.0.0.1 --port "$PORT" --time 1s --udp -R --bitrate 20Mbit/s --json -q
check "engpass -> engpass UDP -R exits 0" [ "$RC" = 0 ]
ratio "UDP -R: datagrams counted by the client vs sent by the server" \
	"$(cli_metric "$T_TMP/out" down_received_bytes)" "$(cli_metric "$T_TMP/out" down_sent_bytes)" 0.9 1.0

# --server-pin: the server pins its stream threads; watch their affinity while they run.
"$ENGPASS" net client 127.0.0.1 --port "$PORT" --time 2s --server-pin 1 --pin 0 -P 2 -b 200Mbit/s --json -q \
	>"$T_TMP/pin.json" 2>/dev/null </dev/null &
CP=$!
sleep 1
pinned=$(grep -l '^Cpus_allowed_list:[[:space:]]*1$' /proc/"$SPID"/task/*/status 2>/dev/null | wc -l)
wait "$CP"
check "--server-pin 1: two server threads run on cpu1 only" [ "$pinned" -ge 2 ]
jqt "--server-pin and --pin are reported" '.results[0].parameters | .server_streams_pinned == "cpu1"
	and .client_streams_pinned == "cpu0,cpu0"' "$T_TMP/pin.json"
stop_server "$SPID"
check "SIGTERM: the server exits cleanly with 143" [ "$SRC" = 143 ]
jqt "SIGTERM: the summary counts the tests served" '.results[-1].metrics.tests == 6' "$T_TMP/e.srv"
check "SIGTERM: the port is free again" not_listening "$PORT"

# ---------------------------------------------------------------- stock iperf3 client -> engpass server
if [ "$HAVE_IPERF3" = 1 ]; then
	start_server "$T_TMP/i.srv"
	n=0
	# Paced (-b) except the first, to leave CPU to tests running beside this one.
	for f in "-P 1" "-P 4 -b 300M" "-R -b 1G" "--bidir -b 1G" "-Z -b 1G" "-w 256K -b 1G" "-u -b 20M" "-u -b 20M -R"; do
		# shellcheck disable=SC2086
		timeout 20 "$IPERF3" -c 127.0.0.1 -p "$PORT" -t 1 -J $f >"$T_TMP/i.json" 2>"$T_TMP/i.err"
		rc=$?
		if [ $rc = 0 ] && jq -e '.error == null and .end.sum_sent.bytes > 0' "$T_TMP/i.json" >/dev/null; then
			ok "iperf3 -c $f against engpass server"
		else
			not_ok "iperf3 -c $f against engpass server" "rc=$rc" "$(jq -c .error "$T_TMP/i.json" 2>/dev/null)"
		fi
		wait_tests "$T_TMP/i.srv" $((n + 1))
		case "$f" in
		*-R*)
			ratio "iperf3 -c $f: iperf3 received 90-100 % of what engpass sent" \
				"$(jq .end.sum_received.bytes "$T_TMP/i.json")" "$(srv_metric "$T_TMP/i.srv" $n down_sent_bytes)" 0.9 1.0
			same "iperf3 -c $f: engpass's sent count reached iperf3 intact" \
				"$(jq .end.sum_sent.bytes "$T_TMP/i.json")" "$(srv_metric "$T_TMP/i.srv" $n down_sent_bytes)"
			;;
		*)
			ratio "iperf3 -c $f: engpass received 95-100 % of what iperf3 sent" \
				"$(srv_metric "$T_TMP/i.srv" $n up_received_bytes)" "$(jq .end.sum_sent.bytes "$T_TMP/i.json")" 0.95 1.0
			same "iperf3 -c $f: engpass's received count reached iperf3 intact" \
				"$(jq .end.sum_received.bytes "$T_TMP/i.json")" "$(srv_metric "$T_TMP/i.srv" $n up_received_bytes)"
			;;
		esac
		case "$f" in
		--bidir)
			ratio "iperf3 -c --bidir: reverse direction agrees" \
				"$(jq .end.sum_received_bidir_reverse.bytes "$T_TMP/i.json")" \
				"$(srv_metric "$T_TMP/i.srv" $n down_sent_bytes)" 0.9 1.0 ;;
		"-u -b 20M")
			same "iperf3 -u: engpass's loss count reached iperf3" \
				"$(jq .end.sum.lost_packets "$T_TMP/i.json")" "$(srv_metric "$T_TMP/i.srv" $n up_lost_packets)"
			ratio "iperf3 -u: datagrams engpass saw vs iperf3 sent" \
				"$(srv_metric "$T_TMP/i.srv" $n up_packets)" "$(jq .end.sum.packets "$T_TMP/i.json")" 0.9 1.0 ;;
		esac
		n=$((n + 1))
	done
	jqs "engpass server reports the iperf3 client's version" \
		"[.[].results[] | select(.parameters.client != null)][0].parameters.peer == \"iperf3 3.12\"" \
		"$T_TMP/i.srv"
	stop_server "$SPID"
else
	skip "iperf3 -c against engpass server" "iperf3 not installed"
fi

# ---------------------------------------------------------------- engpass client -> stock iperf3 server
if [ "$HAVE_IPERF3" = 1 ]; then
	for f in "-P 1" "-P 4 -b 300Mbit/s" "-R -b 1Gbit/s" "--bidir -b 1Gbit/s" "-Z -b 1Gbit/s" \
		"-u --bitrate 20Mbit/s" "-u -R --bitrate 20Mbit/s"; do
		start_iperf3 "$T_TMP/s.json"
		# shellcheck disable=SC2086
		run net client 127.0.0.1 --port "$PORT" --time 1s $f --json -q
		wait "$IPID"
		if [ "$RC" = 0 ] && jq -e '.results[0].status == "ok"' "$T_TMP/out" >/dev/null; then
			ok "engpass client $f against iperf3 -s"
		else
			not_ok "engpass client $f against iperf3 -s" "rc=$RC" "$(cat "$T_TMP/err")"
		fi
		case "$f" in
		*-R*)
			ratio "client $f: engpass received 90-100 % of what iperf3 sent" \
				"$(cli_metric "$T_TMP/out" down_received_bytes)" "$(jq .end.sum_sent.bytes "$T_TMP/s.json")" 0.9 1.0001 ;;
		--bidir)
			ratio "client --bidir: iperf3 received 95-100 % of what engpass sent" \
				"$(jq .end.sum_received.bytes "$T_TMP/s.json")" "$(cli_metric "$T_TMP/out" up_sent_bytes)" 0.95 1.0
			ratio "client --bidir: engpass received 90-100 % of what iperf3 sent" \
				"$(cli_metric "$T_TMP/out" down_received_bytes)" \
				"$(jq .end.sum_sent_bidir_reverse.bytes "$T_TMP/s.json")" 0.9 1.0001 ;;
		*)
			ratio "client $f: iperf3 received 95-100 % of what engpass sent" \
				"$(jq .end.sum_received.bytes "$T_TMP/s.json")" "$(cli_metric "$T_TMP/out" up_sent_bytes)" 0.95 1.0 ;;
		esac
	done
	jqt "against iperf3 the remote CPU comes from its cpu_util" \
		'.results[0].metrics.server_cpu_percent >= 0' "$T_TMP/out"
else
	skip "engpass client against iperf3 -s" "iperf3 not installed"
fi

# ---------------------------------------------------------------- a hostile network
start_server "$T_TMP/h.srv" --read-timeout 1s
HSPID=$SPID
HPORT=$PORT
# Garbage instead of a cookie, and an oversized parameters frame.
timeout 5 bash -c "exec 3<>/dev/tcp/127.0.0.1/$PORT; printf 'GET / HTTP/1.0\r\n\r\n' >&3; head -c 5000 /dev/urandom >&3; sleep 0.2" 2>/dev/null
timeout 5 bash -c "exec 3<>/dev/tcp/127.0.0.1/$PORT; printf 'abcdefghijklmnopqrstuvwxyz2345672345\0' >&3;
	dd bs=1 count=1 <&3 2>/dev/null >/dev/null; printf '\x7f\xff\xff\xff' >&3; sleep 0.2" 2>/dev/null
# A half-open test: valid parameters, then no data streams.
timeout 5 bash -c "exec 3<>/dev/tcp/127.0.0.1/$PORT; printf 'abcdefghijklmnopqrstuvwxyz2345672345\0' >&3;
	dd bs=1 count=1 <&3 2>/dev/null >/dev/null; m='{\"tcp\":true,\"time\":1,\"parallel\":1}';
	printf '\x00\x00\x00\x22%s' \"\$m\" >&3; dd bs=1 count=1 <&3 2>/dev/null | od -An -tu1 >$T_TMP/half; sleep 2" 2>/dev/null
check "half-open: the server answered CREATE_STREAMS" grep -q 10 "$T_TMP/half"
run net client 127.0.0.1 --port "$PORT" --time 300ms --json -q
check "after garbage, a huge frame and a half-open test the server still serves" [ "$RC" = 0 ]

# A second client while a test runs waits in the server's queue (default
# --queue 8) and runs after it: a stock iperf3 client (it waits for the
# first state byte without a timeout) and an engpass client (told it is
# queued), served in arrival order, each result saying how long it waited.
before=$(jq -s "$TESTS | length" "$T_TMP/h.srv")
"$ENGPASS" net client 127.0.0.1 --port "$PORT" --time 2s -b 500Mbit/s --json -q >"$T_TMP/busy.json" 2>/dev/null </dev/null &
CP=$!
sleep 0.7
IP=
if [ "$HAVE_IPERF3" = 1 ]; then
	timeout 20 "$IPERF3" -c 127.0.0.1 -p "$PORT" -t 1 >"$T_TMP/busy.txt" 2>&1 &
	IP=$!
	sleep 0.3
fi
run net client 127.0.0.1 --port "$PORT" --time 1s --json
check "a second engpass client while busy waits its turn and runs (exit 0)" [ "$RC" = 0 ]
check "... it says on stderr that it waits in the server's queue" grep -q "is busy: waiting in its queue" "$T_TMP/err"
jqt "... its result says how long it waited (queue_wait, with its method)" \
	'.results[0] | .metrics.queue_wait_seconds > 0.5 and (.method.queue_wait | test("PARAM_EXCHANGE"))
	 and (.notes | any(test("waited .* in its queue")))' "$T_TMP/out"
wait "$CP"
jqt "the running test was not disturbed" '.results[0].status == "ok" and .results[0].incomplete == false' "$T_TMP/busy.json"
if [ -n "$IP" ]; then
	IRC=0
	wait "$IP" || IRC=$?
	check "a stock iperf3 client while busy waits in the queue and runs its test" \
		sh -c "[ $IRC = 0 ] && grep -q receiver '$T_TMP/busy.txt' && ! grep -qi busy '$T_TMP/busy.txt'"
fi
wait_tests "$T_TMP/h.srv" $((before + 2 + HAVE_IPERF3))
jqs "the server's results say which tests waited, in arrival order" \
	"$TESTS | .[$before:] | (.[0].metrics.queue_wait_seconds == 0) and
	 (.[1:] | all(.metrics.queue_wait_seconds > 0.3)) and (.[-1].parameters.peer | test(\"engpass\"))" "$T_TMP/h.srv"

# --queue 1: one waits, the next is turned away with ACCESS_DENIED; --queue 0
# refuses every client while busy, as iperf3 does.
start_server "$T_TMP/q1.srv" --queue 1
"$ENGPASS" net client 127.0.0.1 --port "$PORT" --time 2s -b 500Mbit/s --json -q >"$T_TMP/q1a.json" 2>/dev/null </dev/null &
CP=$!
sleep 0.7
"$ENGPASS" net client 127.0.0.1 --port "$PORT" --time 200ms --json -q >"$T_TMP/q1b.json" 2>/dev/null </dev/null &
CP2=$!
sleep 0.3
run net client 127.0.0.1 --port "$PORT" --time 1s --connect-timeout 2s
check "--queue 1: the client beyond the queue is told the server is busy (exit 1)" \
	sh -c "[ $RC = 1 ] && grep -q ACCESS_DENIED '$T_TMP/err'"
wait "$CP"
wait "$CP2"
jqt "--queue 1: the queued one ran" '.results[0].status == "ok" and .results[0].metrics.queue_wait_seconds > 0.5' "$T_TMP/q1b.json"
stop_server "$SPID"
jqt "--queue 1: the server counts one queued, one denied" \
	'.results[-1].metrics | .queued == 1 and .denied == 1 and .max_queue_wait_seconds > 0.5' "$T_TMP/q1.srv"

start_server "$T_TMP/q0.srv" --queue 0
"$ENGPASS" net client 127.0.0.1 --port "$PORT" --time 2s -b 500Mbit/s --json -q >"$T_TMP/q0.json" 2>/dev/null </dev/null &
CP=$!
sleep 0.7
denied=$(timeout 5 bash -c "exec 3<>/dev/tcp/127.0.0.1/$PORT; printf 'x' >&3; dd bs=1 count=1 <&3 2>/dev/null | od -An -tu1" 2>/dev/null)
check "--queue 0: a second connection while busy gets ACCESS_DENIED (255)" [ "$(echo $denied)" = 255 ]
if [ "$HAVE_IPERF3" = 1 ]; then
	timeout 10 "$IPERF3" -c 127.0.0.1 -p "$PORT" -t 1 >"$T_TMP/busy0.txt" 2>&1
	check "--queue 0: a stock iperf3 client is told the server is busy" grep -qi busy "$T_TMP/busy0.txt"
fi
run net client 127.0.0.1 --port "$PORT" --time 1s --connect-timeout 2s
check "--queue 0: an engpass client is told the server is busy (exit 1)" [ "$RC" = 1 ]
check "... in one line naming ACCESS_DENIED" grep -q "ACCESS_DENIED" "$T_TMP/err"
wait "$CP"
jqt "--queue 0: the running test was not disturbed" '.results[0].status == "ok"' "$T_TMP/q0.json"
stop_server "$SPID"
jqt "--queue 0: the server counts the denials and queued none" '.results[-1].metrics | .denied >= 2 and .queued == 0' "$T_TMP/q0.srv"
SPID=$HSPID
PORT=$HPORT

# A client killed mid-test: the server notices, reports the test as ended early, serves on.
before=$(jq -s "$TESTS | length" "$T_TMP/h.srv")
"$ENGPASS" net client 127.0.0.1 --port "$PORT" --time 20s -b 500Mbit/s -q >/dev/null 2>&1 </dev/null &
CP=$!
sleep 1
kill -9 "$CP"
wait "$CP" 2>/dev/null
wait_tests "$T_TMP/h.srv" $((before + 1))
jqs "killed client: the server's result is marked incomplete and says why" \
	"$TESTS | .[$before] | .incomplete == true and (.notes | any(test(\"vanished|ended\")))" "$T_TMP/h.srv" 2>/dev/null
run net client 127.0.0.1 --port "$PORT" --time 300ms -q
check "after a killed client the server serves the next one" [ "$RC" = 0 ]

# A client that stops mid-test (SIGSTOP: it neither sends nor reads, its
# sockets stay open), sending and then receiving (-R): the server abandons
# the test once nothing moved for 3 x --read-timeout (3 s here) and serves
# the next client, which until then waits in the queue.
secs_since() { awk -v t="$1" -v n="$(date +%s.%N)" 'BEGIN { printf "%.2f", n - t }'; }
within() { awk -v e="$1" -v l="$2" 'BEGIN { exit !(e < l) }'; }
for dir in "sending|" "reading|-R"; do
	label=${dir%%|*}
	before=$(jq -s "$TESTS | length" "$T_TMP/h.srv")
	# shellcheck disable=SC2086
	"$ENGPASS" net client 127.0.0.1 --port "$PORT" --time 60s ${dir#*|} -q --no-history >/dev/null 2>&1 </dev/null &
	CP=$!
	sleep 1
	kill -STOP "$CP"
	t0=$(date +%s.%N)
	n=0
	until "$ENGPASS" net client 127.0.0.1 --port "$PORT" --time 1s -q --no-history >/dev/null 2>&1 </dev/null; do
		n=$((n + 1))
		[ $n -lt 40 ] || break
		sleep 0.25
	done
	el=$(secs_since "$t0")
	kill -9 "$CP"
	wait "$CP" 2>/dev/null
	# The slack: buffers fill before nothing moves, and retries every 0.25 s.
	check "a client that stops $label mid-test keeps the next one out less than 3 s + its 1 s test + 3 s (took $el s)" \
		within "$el" 7
	wait_tests "$T_TMP/h.srv" $((before + 2))
	jqs "stopped $label: the server's result is incomplete, nothing moved for 3 x --read-timeout" \
		"$TESTS | .[$before] | .incomplete == true and (.notes | any(test(\"nothing moved on the data streams for 3\")))" \
		"$T_TMP/h.srv" 2>/dev/null
done

# 200 short tests back to back: no growth in open files or memory.
fds() { ls /proc/"$SPID"/fd | wc -l; }
rss() { awk '/^VmRSS/ { print $2 }' /proc/"$SPID"/status; }
i=0
while [ $i -lt 20 ]; do
	"$ENGPASS" net client 127.0.0.1 --port "$PORT" --time 10ms --no-sample -q >/dev/null 2>&1 </dev/null
	i=$((i + 1))
done
fd0=$(fds)
rss0=$(rss)
fail=0
while [ $i -lt 200 ]; do
	"$ENGPASS" net client 127.0.0.1 --port "$PORT" --time 10ms --no-sample -q >/dev/null 2>&1 </dev/null || fail=$((fail + 1))
	i=$((i + 1))
done
fd1=$(fds)
rss1=$(rss)
check "200 back-to-back tests all succeeded" [ "$fail" = 0 ]
check "no open files gained over 180 tests ($fd0 -> $fd1)" [ "$fd1" -le "$fd0" ]
if ldd "$ENGPASS" 2>/dev/null | grep -q libasan; then
	# ASan keeps freed memory in quarantine: RSS says nothing there.
	skip "RSS grew less than 2 MiB over 180 tests ($rss0 -> $rss1 KiB)" "AddressSanitizer build"
else
	check "RSS grew less than 2 MiB over 180 tests ($rss0 -> $rss1 KiB)" [ $((rss1 - rss0)) -lt 2048 ]
fi
stop_server "$SPID"
jqt "the summary counts queued clients and dropped handshakes" \
	'.results[-1].metrics | .queued >= 3 and .bad_handshakes >= 3 and .tests_ended_early >= 1' "$T_TMP/h.srv"

# ---------------------------------------------------------------- a stalled handshake
# The whole handshake has one deadline, --read-timeout (3 s here) from the
# accept, however the peer trickles it: a silent connection, and one that
# sends the cookie a byte at a time over 2.5 s and then the parameters a
# byte a second (each message alone within its timeout), keep the next
# client waiting in the backlog at most 3 s; it then runs its 1 s test.
start_server "$T_TMP/hs.srv" --read-timeout 3s
bash -c "exec 3<>/dev/tcp/127.0.0.1/$PORT; sleep 15" 2>/dev/null &
HOLD=$!
PIDS="$PIDS $HOLD"
sleep 0.2
t0=$(date +%s.%N)
run net client 127.0.0.1 --port "$PORT" --time 1s -q --no-history
el=$(secs_since "$t0")
check "behind a silent connection: the client's test ran" [ "$RC" = 0 ]
check "behind a silent connection: served within 3 s + its 1 s test + 1.5 s (took $el s)" within "$el" 5.5
kill "$HOLD" 2>/dev/null
bash -c "exec 3<>/dev/tcp/127.0.0.1/$PORT; for i in \$(seq 1 36); do printf a >&3; sleep 0.05; done; sleep 0.7;
	printf '\0' >&3; dd bs=1 count=1 <&3 >/dev/null 2>&1; printf '\0\0\0\100' >&3;
	for i in \$(seq 1 15); do printf ' ' >&3 || exit; sleep 1; done" 2>/dev/null &
HOLD=$!
PIDS="$PIDS $HOLD"
sleep 0.2
t0=$(date +%s.%N)
run net client 127.0.0.1 --port "$PORT" --time 1s -q --no-history
el=$(secs_since "$t0")
check "behind a trickled handshake: the client's test ran" [ "$RC" = 0 ]
check "behind a trickled handshake: served within 3 s + its 1 s test + 1.5 s (took $el s)" within "$el" 5.5
kill "$HOLD" 2>/dev/null
stop_server "$SPID"
jqt "the stalled handshakes count as dropped" \
	'.results[-1].metrics | .bad_handshakes >= 2 and .tests == 2' "$T_TMP/hs.srv"

# ---------------------------------------------------------------- soft stop and one-off
start_server "$T_TMP/o.srv" --one-off
mkdir -p "$T_TMP/cwd"
(cd "$T_TMP/cwd" && exec env --default-signal=INT "$ENGPASS" net client 127.0.0.1 --port "$PORT" --time 20s -b 500Mbit/s --json -q) \
	>"$T_TMP/int.json" 2>"$T_TMP/int.err" &
CP=$!
sleep 1.2
kill -INT "$CP"
RC=0
wait "$CP" || RC=$?
check "SIGINT: the client exits 130" [ "$RC" = 130 ]
jqt "SIGINT: what was measured is reported, marked incomplete" \
	'.results[0] | .incomplete == true and .status == "ok" and .metrics.up_received_bytes > 0
	 and .duration_seconds < 10' "$T_TMP/int.json"
RC=0
wait "$SPID" || RC=$?
check "--one-off: the server exits 0 after the test" [ "$RC" = 0 ]
check "--one-off: the port is free again" not_listening "$PORT"

# In a sanitizer build, the servers that faced all of the above said nothing.
check "no sanitizer report from any server" sh -c "! grep -l 'runtime error\|Sanitizer' '$T_TMP'/*.srv.err"

done_testing
