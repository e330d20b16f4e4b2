#!/bin/sh
# SPDX-License-Identifier: MIT
# The router builds under qemu (scripts/cross full: static mipsel/musl;
# mips-full: static big-endian MIPS on glibc; both with jansson,
# http-parser, libsodium, mbedTLS and liburing; docs/embedded.md): the field
# reports' commands run and measure on the emulated CPU, nothing skipped for
# a missing library, and the byte order of the wire protocols holds:
#   - `net server` answers a stock iperf3 client (TCP, -R, UDP, UDP -R, -P 2),
#     the byte counts agreeing on both sides;
#   - `net client` completes against a stock iperf3 server (TCP, -R, UDP),
#     the byte counts agreeing;
#   - `cpu` measures fastd's and Transmission's ciphers, naming the library;
#   - `fetch` downloads byte-exact from nginx, `download --cipher rc4`
#     receives, decrypts and writes the same file;
#   - `net -P 2`, `net --mode rr`, `disk --workload torrent` and rand-read,
#     `mem --ladder`, `--bandwidth`, `--latency`, `latency` and `watch`
#     each run a short step that measures;
#   - `quick --no-net` finishes in a 64 MiB memory cgroup (root), says it
#     stored nothing and writes its JSON.
# Only in an emulated build that has those libraries (the native build runs
# the same commands, and more, in net.sh, cpu.sh, fetch.sh and quick.sh),
# or in the minimal router build (scripts/cross static: jansson, no crypto
# libraries, -Dminimal=true): there the commands it leaves out (cpu, fetch,
# download, watch) must each say they are not in this build, and the rest
# must run as in the full build.
# Transfers are short (1 s; UDP paced at 20 Mbit/s); the servers are killed
# by PID and the cgroup removed in the trap.
. "$(dirname "$0")/lib.sh"
[ -n "${ENGPASS_EMULATED:-}" ] || { echo "1..0 # SKIP only for a cross build under qemu (the native build: net.sh, cpu.sh, fetch.sh, quick.sh)"; exit 0; }
needs_feature jansson
# The minimal router build lists what it leaves out in -V.
NOT_BUILT=" $("$ENGPASS" -V 2>/dev/null | sed -n 's/^  not in this build://p') "
[ "$NOT_BUILT" = "  " ] && needs_feature libsodium http_parser
built() { case $NOT_BUILT in *" $1 "*) return 1 ;; esac; }
# left_out NAME ARGS...: in the minimal build NAME says it is not in this build (exit 1).
left_out() {
	run "$@"
	if [ "$RC" = 1 ] && grep -q "not in this build" "$T_TMP/err"; then ok "$1: says it is not in the minimal build"
	else not_ok "$1: says it is not in the minimal build" "rc=$RC" "$(cat "$T_TMP/err")"; fi
}
. "$(dirname "$0")/netlib.sh"
command -v iperf3 >/dev/null 2>&1 || { echo "1..0 # SKIP iperf3 is not installed (scripts/deps)"; exit 0; }

PIDS=""
CG=""
cleanup() {
	kill_pids
	[ -n "$CG" ] && rmdir "$CG" 2>/dev/null
	rm -rf "$T_TMP"
}
trap cleanup EXIT
trap 'cleanup; exit 1' INT TERM

# --- net server, stock iperf3 client: one server, five tests
new_port
"$ENGPASS" net server --port "$PORT" --idle-timeout 60s --json >"$T_TMP/srv" 2>"$T_TMP/srv.err" </dev/null &
SPID=$!
PIDS="$PIDS $SPID"
if wait_listen "$PORT" || wait_listen "$PORT"; then
	n=0
	for f in "" "-R" "-u -b 20M" "-u -b 20M -R" "-P 2"; do
		# shellcheck disable=SC2086
		timeout 30 iperf3 -c 127.0.0.1 -p "$PORT" -t 1 -J $f >"$T_TMP/i.json" 2>&1
		jqt "iperf3 -c $f against the emulated server: no error, bytes sent" \
			'.error == null and .end.sum_sent.bytes > 0' "$T_TMP/i.json"
		wait_tests "$T_TMP/srv" $((n + 1))
		case $f in
		*-R)
			ratio "iperf3 -c $f: iperf3 received what the emulated server sent" \
				"$(jq '.end.sum_received.bytes // .end.sum.bytes' "$T_TMP/i.json")" \
				"$(srv_metric "$T_TMP/srv" $n down_sent_bytes)" 0.9 1.0
			ratio "iperf3 -c $f: the server's sent count reached iperf3 intact" \
				"$(jq '.end.sum_sent.bytes' "$T_TMP/i.json")" "$(srv_metric "$T_TMP/srv" $n down_sent_bytes)" 1.0 1.0 ;;
		*)
			ratio "iperf3 -c $f: the emulated server received what iperf3 sent" \
				"$(srv_metric "$T_TMP/srv" $n up_received_bytes)" "$(jq '.end.sum_sent.bytes' "$T_TMP/i.json")" 0.9 1.0
			ratio "iperf3 -c $f: the server's received count reached iperf3 intact" \
				"$(jq '.end.sum_received.bytes // .end.sum.bytes' "$T_TMP/i.json")" \
				"$(srv_metric "$T_TMP/srv" $n up_received_bytes)" 1.0 1.0 ;;
		esac
		# The datagrams' sequence numbers and timestamps are big-endian on
		# the wire: read in the wrong order, every one would look lost.
		if [ "$f" = "-u -b 20M" ]; then
			ratio "iperf3 -u: the emulated server counted the datagrams iperf3 sent" \
				"$(srv_metric "$T_TMP/srv" $n up_packets)" "$(jq .end.sum.packets "$T_TMP/i.json")" 0.9 1.0
			same "iperf3 -u: the server's loss count reached iperf3" \
				"$(jq .end.sum.lost_packets "$T_TMP/i.json")" "$(srv_metric "$T_TMP/srv" $n up_lost_packets)"
		fi
		n=$((n + 1))
	done
	kill "$SPID" 2>/dev/null
	wait "$SPID"
	check "emulated server: exits cleanly on SIGTERM (143)" [ $? = 143 ]
else
	not_ok "emulated server listens" "$(cat "$T_TMP/srv.err")"
fi

# --- net client, stock iperf3 server
for f in "" "-R" "--udp --bitrate 20Mbit/s"; do
	new_port
	iperf3 -s -1 -J -p "$PORT" >"$T_TMP/s.json" 2>&1 </dev/null &
	IPID=$!
	PIDS="$PIDS $IPID"
	wait_listen "$PORT"
	# shellcheck disable=SC2086
	run net client 127.0.0.1 --port "$PORT" --time 1s $f --json --no-history
	check "emulated client $f against iperf3 -s: exit 0" [ "$RC" = 0 ]
	wait "$IPID"
	case $f in
	-R)
		ratio "client -R: the emulated client received what iperf3 sent" \
			"$(jq '.results[0].metrics.down_received_bytes // 0' "$T_TMP/out")" \
			"$(jq .end.sum_sent.bytes "$T_TMP/s.json")" 0.9 1.0001 ;;
	*)
		ratio "client $f: iperf3 received what the emulated client sent" \
			"$(jq '.end.sum_received.bytes // .end.sum.bytes' "$T_TMP/s.json")" \
			"$(jq '.results[0].metrics.up_sent_bytes // 0' "$T_TMP/out")" 0.9 1.0 ;;
	esac
	case $f in
	--udp*)
		# iperf3 reads the emulated client's sequence numbers: in the wrong
		# byte order nearly all would count as lost or out of order.
		jqt "client $f: iperf3 counted under 10 % of the datagrams lost" \
			'.end.sum.packets > 0 and .end.sum.lost_packets >= 0 and .end.sum.lost_packets < .end.sum.packets / 10' "$T_TMP/s.json" ;;
	esac
done

# --- cpu: fastd's and Transmission's ciphers, each measured, library named
if ! built cpu; then left_out cpu --cipher salsa2012 --time 200ms; else
run cpu --cipher salsa2012,chacha20-poly1305,aes-128-ctr,aes-256-gcm,rc4 --size 1400 --time 200ms --json --no-history
check "cpu: exit 0" [ "$RC" = 0 ]
for c in salsa2012 chacha20-poly1305 aes-128-ctr aes-256-gcm rc4; do
	jqt "cpu: $c measured, library and version named" \
		"[.results[] | select(.parameters.cipher == \"$c\" and .status == \"ok\" and .metrics.cpu_throughput_bytes_per_second > 0
		  and (.method.library | length > 0))] | length >= 1" "$T_TMP/out"
done
fi

# --- fetch from nginx, byte-exact
if ! built fetch; then
	left_out fetch http://127.0.0.1:1/f.bin
	left_out download http://127.0.0.1:1/f.bin "$T_TMP"
elif command -v nginx >/dev/null 2>&1; then
	. "$(dirname "$0")/nginxlib.sh"
	NX="$T_TMP/nginx"
	mkdir -p "$NX/www"
	head -c 2097152 /dev/urandom >"$NX/www/file.bin"
	new_port
	if nginx_start "$NX" "$PORT" "worker_processes 1;" "" ""; then
		PIDS="$PIDS $NGINX_PID"
		run fetch "http://127.0.0.1:$PORT/file.bin" --output "$T_TMP/got" --json --no-history
		check "fetch from nginx: exit 0" [ "$RC" = 0 ]
		check "fetch from nginx: byte-exact" cmp -s "$NX/www/file.bin" "$T_TMP/got"
		mkdir -p "$T_TMP/dl"
		run download "http://127.0.0.1:$PORT/file.bin" "$T_TMP/dl" --cipher rc4 --json --no-sample --no-history
		check "download --cipher rc4 from nginx: exit 0" [ "$RC" = 0 ]
		jqt "download: all 2 MiB received, decrypted with RC4 and written" \
			'.results[0] | .status == "ok" and .metrics.body_bytes == 2097152 and .metrics.write_calls > 0' "$T_TMP/out"
	else
		PIDS="$PIDS $NGINX_PID"
		not_ok "nginx started" "$(cat "$NX/logs/error.log" 2>/dev/null)"
	fi
else
	skip "fetch from nginx" "nginx is not installed (scripts/deps installs it)"
fi

# --- the rest of what the router build must run, each a short step that
# measures: parallel streams, request-response, the torrent write pattern
# (psync: qemu-user has no io_uring), the swaptest ladder, bandwidth, the
# load-latency curve, the interactivity probe, watch.
new_port
iperf3 -s -1 -J -p "$PORT" >"$T_TMP/s.json" 2>&1 </dev/null &
IPID=$!
PIDS="$PIDS $IPID"
wait_listen "$PORT"
run net client 127.0.0.1 --port "$PORT" --time 1s -P 2 --json --no-history
check "emulated client -P 2 against iperf3 -s: exit 0" [ "$RC" = 0 ]
wait "$IPID"
jqt "client -P 2: iperf3 saw two streams" '.end.streams | length == 2' "$T_TMP/s.json"
ratio "client -P 2: iperf3 received what the emulated client sent" \
	"$(jq '.end.sum_received.bytes' "$T_TMP/s.json")" "$(jq '.results[0].metrics.up_sent_bytes // 0' "$T_TMP/out")" 0.9 1.0

new_port
"$ENGPASS" net server --port "$PORT" --one-off --json >"$T_TMP/rrsrv" 2>"$T_TMP/rrsrv.err" </dev/null &
SPID=$!
PIDS="$PIDS $SPID"
if wait_listen "$PORT" || wait_listen "$PORT"; then
	run net client 127.0.0.1 --port "$PORT" --mode rr --block 16K --depth 2 --size 1M --json --no-history
	check "net --mode rr, emulated on both sides: exit 0" [ "$RC" = 0 ]
	jqt "net --mode rr: 64 requests, all 1 MiB back, a round trip measured" \
		'.results[0] | .metrics.requests == 64 and .metrics.received_bytes == 1048576 and .metrics.rtt_ns > 0' "$T_TMP/out"
	wait "$SPID"
else
	not_ok "emulated rr server listens" "$(cat "$T_TMP/rrsrv.err")"
fi

mkdir -p "$T_TMP/disk"
run disk "$T_TMP/disk" --workload torrent --size 4M --cache 1M --json --no-sample --no-history
check "disk --workload torrent: exit 0" [ "$RC" = 0 ]
jqt "disk --workload torrent: written, with its write calls counted" \
	'.results[0] | .status == "ok" and .metrics.avg_write_call_bytes > 0' "$T_TMP/out"
run disk "$T_TMP/disk" --workload rand-read --size 4M --time 1s --json --no-sample --no-history
jqt "disk rand-read: measured on psync or io_uring, the engine named" \
	'.results[0] | .status == "ok" and (.parameters.engine | test("psync|io_uring"))' "$T_TMP/out"

run mem --ladder --sizes 4M --json --no-sample --no-history
jqt "mem --ladder 4M: a read rate" '.results[0] | .status == "ok" and .metrics.read_bytes_per_second > 0' "$T_TMP/out"
run mem --bandwidth --size 2M --passes 2 --json --no-sample --no-history
jqt "mem --bandwidth: read, write, copy and triad measured, the plain loop named" \
	'.results[0] | .status == "ok" and .metrics.read_bytes_per_second > 0 and .metrics.write_bytes_per_second > 0 and .metrics.copy_bytes_per_second > 0
	 and .metrics.triad_bytes_per_second > 0 and .parameters.simd == "scalar"' "$T_TMP/out"
run mem --latency --size 1M --passes 1 --json --no-sample --no-history
jqt "mem --latency: a latency per working set up to 1 MiB" \
	'.results[0] | .status == "ok" and .metrics.lat_1024k_ns > 0' "$T_TMP/out"

run latency --task audio --load none --time 1s --json --no-sample --no-history
jqt "latency audio/none: frames and their latencies" \
	'.results[0] | .status == "ok" and .metrics.frames > 0 and .metrics.lat_p50_ns > 0' "$T_TMP/out"

if built watch; then
	run watch --time 1s --json --no-history
	jqt "watch: per-CPU busy and the busiest core" \
		'.results[0] | .status == "ok" and (.metrics | has("busiest_cpu") and has("cpu0_busy_percent"))' "$T_TMP/out"
else
	left_out watch --time 1s
fi

# --- quick without the network in a 64 MiB memory cgroup (root); no SQLite
# in the router build. The cgroup holds qemu's own memory too (its
# translated code), so this is stricter than the router's 64 MiB.
if [ "$(id -u)" = 0 ] && [ -w /sys/fs/cgroup/memory ]; then
	CG=/sys/fs/cgroup/memory/engpass-router-$$; LIMIT=memory.limit_in_bytes
elif [ "$(id -u)" = 0 ] && grep -qw memory /sys/fs/cgroup/cgroup.controllers 2>/dev/null; then
	CG=/sys/fs/cgroup/engpass-router-$$; LIMIT=memory.max
fi
if [ -n "$CG" ] && mkdir "$CG" && echo $((64 << 20)) >"$CG/$LIMIT"; then
	mkdir -p "$T_TMP/cwd"
	RC=0
	(cd "$T_TMP/cwd" && sh -c 'echo $$ >"$1/cgroup.procs" && exec "$2" quick --no-net --skip disk,latency,ladder --json --no-report' \
		sh "$CG" "$ENGPASS") >"$T_TMP/out" 2>"$T_TMP/err" </dev/null || RC=$?
	check "quick --no-net in a 64 MiB cgroup: exit 0" [ "$RC" = 0 ]
else
	CG=""
	skip "quick --no-net in a 64 MiB cgroup" "needs root and a memory cgroup; run without the limit"
	run quick --no-net --skip disk,latency,ladder --json --no-report
	check "quick --no-net: exit 0" [ "$RC" = 0 ]
fi
jqt "quick --no-net: JSON with its results (cpu and mem; mem alone in the minimal build)" \
	'[.results[] | select(.status == "ok")] | length >= 2' "$T_TMP/out"
check "quick: says the history was not stored" grep -q "history not stored" "$T_TMP/err" "$T_TMP/out"

done_testing
