#!/bin/sh
# SPDX-License-Identifier: MIT
# engpass watch against known loads: a busy loop pinned to CPU 0 must be
# seen as CPU 0 busy and the process near 100 % of one core, on CPU 0; a
# transfer by engpass's own net client and server on lo must be seen at the
# net result's rate within 10 %. Plus bad input (one line, exit 2), a process that
# exits during the watch, SIGINT as the normal end, the capacity estimate's
# arithmetic, and a disk read of known size. Speeds are never asserted.
# Every process started here is killed by PID in the trap. About 20 s.
. "$(dirname "$0")/lib.sh"

PIDS=""
cleanup() {
	for p in $PIDS; do kill "$p" 2>/dev/null; done
	rm -rf "$T_TMP"
}
# Also on HUP and PIPE (the reader of our output went away, e.g. "| head"),
# or a busy loop pinned to CPU 0 would outlive the test.
trap cleanup EXIT
trap 'cleanup; exit 1' HUP INT PIPE TERM
track() { PIDS="$PIDS $1"; }
stop() { kill "$1" 2>/dev/null; wait "$1" 2>/dev/null; }

# bad NAME ARGS...: exit 2, nothing on stdout, exactly one line on stderr.
# --time bounds the run should a case wrongly be accepted.
bad() {
	name=$1; shift
	run watch --time 1s "$@"
	if [ "$RC" = 2 ] && [ ! -s "$T_TMP/out" ] && [ "$(wc -l <"$T_TMP/err")" = 1 ]; then
		ok "$name"
	else
		not_ok "$name" "exit $RC, stdout $(wc -c <"$T_TMP/out") bytes" "stderr: $(cat "$T_TMP/err")"
	fi
}

run watch --help
check "watch --help exits 0" [ "$RC" = 0 ]
check "help names the options" grep -q -- "--min-busy" "$T_TMP/out"

# --- bad input -------------------------------------------------------------
bad "--pid of a process that does not exist" --pid 2147483647
check "... names the PID" grep -q "no process 2147483647" "$T_TMP/err"
bad "--pid and --name together" --pid 1 --name init
check "... says they exclude each other" grep -q "exclude each other" "$T_TMP/err"
bad "--iface that does not exist" --iface engpass-none0
check "... names the interface" grep -q "'engpass-none0'" "$T_TMP/err"
bad "--disk that does not exist" --disk /dev/engpassnone
check "... names the disk" grep -q "'engpassnone'" "$T_TMP/err"
bad "--name matching nothing" --name engpass-no-such
check "... names the name" grep -q "no process named 'engpass-no-such'" "$T_TMP/err"
bad "--min-busy out of range" --min-busy 0
check "... names the option" grep -q "'--min-busy'" "$T_TMP/err"
bad "a positional argument" eth0
check "... names the argument" grep -q "unexpected argument 'eth0'" "$T_TMP/err"
bad "--uplink that is not a rate" --uplink fast
check "... names the option" grep -q "'--uplink': 'fast'" "$T_TMP/err"

# --name matching several processes: two copies of sleep under a unique name.
NAME="epw$$"
cp "$(command -v sleep)" "$T_TMP/$NAME"
"$T_TMP/$NAME" 30 & S1=$!; track $S1
"$T_TMP/$NAME" 30 & S2=$!; track $S2
sleep 0.2
bad "--name matching two processes" --name "$NAME"
check "... names both PIDs" sh -c "grep -q \"2 processes named '$NAME':.* $S1\" '$T_TMP/err' && grep -q ' $S2' '$T_TMP/err'"
stop $S2
run watch --name "$NAME" --time 300ms --json
check "--name matching one process exits 0" [ "$RC" = 0 ]
jqt "... watches that process" ".results[0].parameters.pid == \"$S1\" and .results[0].parameters.process == \"$NAME\"" "$T_TMP/out"
stop $S1

# --- a known CPU load: a busy loop pinned to CPU 0 -------------------------
# CPU 0 is saturated by the loop whatever else runs, so "CPU 0 busiest,
# above 90 %" holds on a shared machine too. The loop's own share of CPU 0
# does not: on the shared development VM other builds on CPU 0 left it
# 33-99 % (run-queue wait 1-68 %, 32 runs; docs/watch.md, "Tests"). So the
# process figure is checked against the kernel's own run time for the loop
# (/proc/PID/schedstat, nanoseconds from the scheduler clock, independent
# of the tick counts engpass reads) always, and against "near 100 % of one
# core (>= 80 %)" when the kernel says the loop really had >= 90 % of it.
taskset -c 0 sh -c 'while :; do :; done' & LOOP=$!; track $LOOP
sleep 0.3
SS0=$(cut -d' ' -f1 /proc/$LOOP/schedstat 2>/dev/null); T0=$(date +%s.%N)
run watch --pid $LOOP --time 3s --interval 250ms --json
SS1=$(cut -d' ' -f1 /proc/$LOOP/schedstat 2>/dev/null); T1=$(date +%s.%N)
cp "$T_TMP/out" "$T_TMP/loop.json"
check "busy loop: watch exits 0" [ "$RC" = 0 ]
jqt "busy loop: one valid JSON document" '.schema == "engpass/1"' "$T_TMP/loop.json"
jqt "busy loop: status ok, complete" '.results[0].status == "ok" and .results[0].incomplete == false' "$T_TMP/loop.json"
# Late wake-ups on a loaded machine skip missed deadlines (never bunch up),
# so there can be fewer intervals than 3 s / 250 ms, never more.
jqt "busy loop: 3 s watched in at most 12 intervals of 250 ms" \
	'.results[0].metrics | .intervals >= 4 and .intervals <= 12 and .watched_seconds >= 2.99 and .watched_seconds < 3.5' "$T_TMP/loop.json"
jqt "busy loop: CPU 0 is the busiest core, above 90 %" \
	'.results[0].metrics | .busiest_cpu == 0 and .busiest_cpu_busy_percent > 90' "$T_TMP/loop.json"
jqt "busy loop: cpu0 above 90 % in the per-CPU figures" '.results[0].metrics.cpu0_busy_percent > 90' "$T_TMP/loop.json"
if [ -n "$SS0" ] && [ -n "$SS1" ]; then
	KPCT=$(awk -v a="$SS0" -v b="$SS1" -v s="$T0" -v e="$T1" 'BEGIN { printf "%.1f", (b - a) / (e - s) / 1e7 }')
	echo "# busy loop: the kernel's run time for the loop: $KPCT % of one core"
	jqt "busy loop: process CPU agrees with the kernel's schedstat run time ($KPCT %) within 8 points" \
		".results[0].metrics.proc_cpu_percent - $KPCT | fabs <= 8" "$T_TMP/loop.json"
	if awk -v k="$KPCT" 'BEGIN { exit !(k >= 90) }'; then
		jqt "busy loop: the process used at least 80 % of one core" \
			'.results[0].metrics.proc_cpu_percent >= 80 and .results[0].metrics.proc_cpu_percent <= 101' "$T_TMP/loop.json"
	else
		skip "busy loop: the process used at least 80 % of one core" \
			"other work shared CPU 0: the kernel gave the loop $KPCT %"
	fi
else
	skip "busy loop: process CPU agrees with the kernel's schedstat run time" "no /proc/PID/schedstat"
	jqt "busy loop: the process used at least 80 % of one core" \
		'.results[0].metrics.proc_cpu_percent >= 80 and .results[0].metrics.proc_cpu_percent <= 101' "$T_TMP/loop.json"
fi
jqt "busy loop: its thread time was all on cpu0" '.results[0].metrics.proc_on_cpu0_percent >= 99' "$T_TMP/loop.json"
jqt "busy loop: its allowed CPUs are 0" '.results[0].parameters.process_cpus_allowed == "0"' "$T_TMP/loop.json"
jqt "busy loop: RSS and one thread seen" '.results[0].metrics | .proc_rss_bytes > 0 and .proc_threads == 1' "$T_TMP/loop.json"
jqt "busy loop: busiest thread is the loop" \
	"[.results[0].notes[] | select(test(\"busiest thread: TID $LOOP \"))] | length == 1" "$T_TMP/loop.json"
jqt "busy loop: the runner's series and system view are attached" \
	'(.results[0].series | length >= 10) and .results[0].system.proc_cpu_percent > 0' "$T_TMP/loop.json"
jqt "busy loop: without --iface the estimate is unavailable, and says why" \
	'(.results[0].method.estimate | test("unavailable: no --iface")) and (.results[0].metrics | has("est_per_core_bits_per_second") | not)' "$T_TMP/loop.json"
jqt "busy loop: the cost of watching is reported and small" '.results[0].metrics.self_cpu_percent < 5' "$T_TMP/loop.json"
stop $LOOP

# --- a process that exits during the watch ---------------------------------
sleep 1 & SL=$!; track $SL
run watch --pid $SL --time 5s --interval 100ms --json
check "process exiting: exit 0" [ "$RC" = 0 ]
jqt "process exiting: status ok, with a note" \
	'.results[0].status == "ok" and ([.results[0].notes[] | select(test("exited after"))] | length == 1)' "$T_TMP/out"
jqt "process exiting: the watch ended with it" '.results[0].metrics.watched_seconds < 2.5' "$T_TMP/out"
jqt "process exiting: what was seen is reported" '.results[0].metrics.intervals >= 3' "$T_TMP/out"

# --- traffic on lo against engpass net's own figure ------------------------
# lo is shared on a shared machine (other tests run iperf3 and engpass net
# there), so the transfer and watch run in a private network namespace with
# its own lo, which carries only this transfer; where unshare -n is not
# possible, on the host's lo. The known load is engpass's own net client and
# server: one stream (--mode stream) paced by the server to 40 MB/s, so its
# rate is the same in every second of the test and the net result's figure
# (payload over the whole test) is the rate watch must see in any window
# inside it. The client runs 5 s; watch starts 1 s in and runs 3 s.
cat >"$T_TMP/lo.sh" <<'EOS'
set -u
[ -n "$NETNS" ] && { ip link set lo up || exit 3; }
PIDS=""
trap 'for p in $PIDS; do kill $p 2>/dev/null; done' EXIT INT TERM
"$ENGPASS" net server --bind 127.0.0.1 --port $PORT --one-off --idle-timeout 20s --rate 40MB/s --no-history -q \
	>/dev/null 2>&1 & SRV=$!; PIDS="$PIDS $SRV"
sleep 0.3
"$ENGPASS" net client 127.0.0.1 --port $PORT --mode stream --time 5s --no-history --json >"$D/cli.json" 2>&1 &
CLI=$!; PIDS="$PIDS $CLI"
sleep 1
"$ENGPASS" watch --pid $CLI --iface lo --time 3s --interval 250ms --json >"$D/lo.json" 2>"$D/lo.err"
echo $? >"$D/rc"
wait $CLI
wait $SRV
EOS
PORT=$((20000 + $$ % 20000))
NETNS=""
unshare -n true 2>/dev/null && NETNS="unshare -n"
[ -n "$NETNS" ] || echo "# lo: no private network namespace; using the host's lo, which others may share"
D="$T_TMP" PORT=$PORT NETNS="$NETNS" ENGPASS="$ENGPASS" $NETNS sh "$T_TMP/lo.sh" & LO=$!; track $LO
wait $LO
check "lo: watch exits 0" [ "$(cat "$T_TMP/rc" 2>/dev/null)" = 0 ]
jqt "lo: engpass net moved the paced stream" '.results[0] | .status == "ok" and any(.verdict.candidates[]; .resource == "own pacing" and .share >= 0.8)' "$T_TMP/cli.json"
NET=$(jq '.results[0].metrics.throughput_bytes_per_second * 8' "$T_TMP/cli.json")
WATCH=$(jq '.results[0].metrics.net_traffic_bits_per_second' "$T_TMP/lo.json")
WS=$(jq -r '.results[0].metrics.watched_seconds' "$T_TMP/lo.json")
if jq -n -e --argjson i "$NET" --argjson w "$WATCH" '($w / $i) >= 0.9 and ($w / $i) <= 1.1' >/dev/null 2>&1; then
	ok "lo: watch's bits/s agree with engpass net's within 10 %"
else
	not_ok "lo: watch's bits/s agree with engpass net's within 10 %" "watch $WATCH bit/s, engpass net $NET bit/s"
fi
echo "# lo: watch $WATCH bit/s over ${WS}s inside the test, engpass net $NET bit/s${NETNS:+ (private namespace)}"
jqt "lo: rx and tx are both counted on lo" '.results[0].metrics | .net_rx_bits_per_second > 0 and .net_tx_bits_per_second > 0' "$T_TMP/lo.json"
# The estimate is either there, consistent with its inputs and marked as an
# estimate, or absent with the reason; which depends on how busy the
# busiest core got, not on us.
# On a shared box the load may also not follow the traffic (r below 0.5): then
# the estimate is refused for that reason, which is as good an answer.
jqt "lo: the estimate's arithmetic holds (or it says why it is unavailable)" '.results[0] |
	if (.metrics | has("est_per_core_bits_per_second")) then
		(.metrics | (.est_per_core_bits_per_second - .est_measured_bits_per_second * 100 / .est_measured_busy_percent | fabs) < 1
			and (.est_total_bits_per_second - .est_per_core_bits_per_second * .est_cores | fabs) < 1
			and .est_measured_busy_percent >= 70)
		and ([.notes[] | select(test("^ESTIMATE"))] | length >= 2)
		and ([.notes[] | select(test("uncapped|not capped: link speed unknown .virtual interface"))] | length == 1)
		and (.labels.est_per_core_bits_per_second | test("ESTIMATE"))
	else (.method.estimate | test("unavailable: .*(70 %|did not move together: r = )")) end' "$T_TMP/lo.json"
jqt "lo: per GHz names its frequency source" '.results[0] |
	if (.metrics | has("est_per_ghz_bits_per_second")) then
		(.method.frequency | test("MHz from (cpufreq|calibrated-loop|cpuinfo)")) and
		((.metrics.est_per_ghz_bits_per_second - .metrics.est_per_core_bits_per_second / (.metrics.freq_mhz / 1000)) | fabs) < 1
	else (.metrics | has("est_per_core_bits_per_second") | not) or ([.notes[] | select(test("per GHz unavailable"))] | length == 1) end' "$T_TMP/lo.json"
jq -r '.results[0].notes[] | "# " + .' "$T_TMP/lo.json"

# --uplink caps the total. A busy loop on CPU 0 keeps the busiest core busy
# enough for the estimate while engpass net sends 2.5 MB/s on lo.
taskset -c 0 sh -c 'while :; do :; done' & LOOP=$!; track $LOOP
PORT=$((PORT + 1))
"$ENGPASS" net server --bind 127.0.0.1 --port $PORT --one-off --idle-timeout 20s --rate 2.5MB/s --no-history -q \
	>/dev/null 2>&1 & SRV=$!; track $SRV
sleep 0.3
"$ENGPASS" net client 127.0.0.1 --port $PORT --mode stream --time 3s --no-history -q >/dev/null 2>&1 & CLI=$!; track $CLI
sleep 0.5
run watch --iface lo --time 1s --uplink 1Kbit/s --json
jqt "--uplink: the total is capped at the given rate" '.results[0] |
	.metrics.est_total_bits_per_second == 1000 and .metrics.est_link_bits_per_second == 1000 and
	.labels.est_total_bits_per_second == "ESTIMATE: x \(.metrics.est_cores) cores, capped" and
	([.notes[] | select(test("capped by the link at 1.0 kbit/s \\(--uplink\\)"))] | length == 1)' "$T_TMP/out"
stop $CLI
stop $SRV
stop $LOOP

# --- a disk read of known size ---------------------------------------------
# 200 O_DIRECT reads of 4 KiB from a file in the test's directory (a raw
# device may not be openable, even by root, in a sandbox), so they reach
# the disk under that directory. watch follows the dd itself, so the watch
# ends when dd does and every read falls inside it, however slow the
# shared disk. Other I/O on the same disk can only add requests.
SRC=$(df --output=source "$T_TMP" 2>/dev/null | tail -1)
DISK=${SRC#/dev/}
if [ "$DISK" != "$SRC" ] && awk -v d="$DISK" '$3 == d { f = 1 } END { exit !f }' /proc/diskstats &&
   dd if=/dev/zero of="$T_TMP/direct" bs=4k count=200 conv=fsync 2>/dev/null &&
   dd if="$T_TMP/direct" of=/dev/null bs=4k count=1 iflag=direct 2>/dev/null; then
	sh -c "sleep 1; exec dd if='$T_TMP/direct' of=/dev/null bs=4k count=200 iflag=direct" 2>/dev/null & DD=$!; track $DD
	run watch --pid $DD --disk "$SRC" --time 60s --interval 100ms --json
	jqt "disk: the watch of dd ended when dd did" '[.results[0].notes[] | select(test("exited after"))] | length == 1' "$T_TMP/out"
	jqt "disk: 200 direct reads from a file on $DISK are seen" \
		'.results[0].metrics.disk_read_requests >= 200 and .results[0].parameters.disk == "'"$DISK"'"' "$T_TMP/out"
	jqt "disk: at least 800 KiB read" \
		'.results[0].metrics | .disk_read_bytes_per_second * .watched_seconds >= 200 * 4096 * 0.99' "$T_TMP/out"
	echo "# disk: $(jq -c '.results[0].metrics | [.disk_read_requests, .disk_read_bytes_per_second * .watched_seconds]' "$T_TMP/out") requests, bytes on $DISK"
	wait $DD
else
	skip "disk: 200 direct reads are seen" "no block device with O_DIRECT under $T_TMP ($SRC)"
fi

# --- table output ------------------------------------------------------------
run watch --iface lo --time 500ms
check "table: exits 0" [ "$RC" = 0 ]
check "table: names the busiest core" grep -q "busiest core (CPU number)" "$T_TMP/out"
check "table: says what became of the estimate" grep -Eq "capacity estimate unavailable|ESTIMATE" "$T_TMP/out"
check "table: no progress line without a terminal" [ ! -s "$T_TMP/err" ]

# --- SIGINT: the normal end of a watch without --time -----------------------
# A background job of a non-interactive shell starts with SIGINT ignored;
# env --default-signal gives it the default action a terminal user has.
mkdir -p "$T_TMP/cwd"
(cd "$T_TMP/cwd" && exec env --default-signal=INT "$ENGPASS" watch --json --interval 100ms) >"$T_TMP/out" 2>"$T_TMP/err" &
W=$!; track $W
# Should SIGINT not end it, the watchdog does, and the checks below fail.
(sleep 15; kill -KILL $W 2>/dev/null) & DOG=$!; track $DOG
sleep 1.2
kill -INT $W
RC=0
wait $W || RC=$?
kill $DOG 2>/dev/null
jqt "SIGINT: one valid JSON document, status ok" '.results[0].status == "ok"' "$T_TMP/out"
jqt "SIGINT: the note says so, as the normal end" \
	'[.results[0].notes[] | select(test("stopped by signal 2 after [0-9.]+ s, the normal end"))] | length == 1' "$T_TMP/out"
jqt "SIGINT: the intervals until the signal are reported" '.results[0].metrics.intervals >= 8' "$T_TMP/out"
# The runner marks any signalled step incomplete and exits 128 + signal;
# for watch both should not happen (see docs/watch.md, "Signals").
check "SIGINT: exit status 0" [ "$RC" = 0 ]
check "SIGINT: not marked incomplete" sh -c "jq -e '.results[0].incomplete == false' '$T_TMP/out' >/dev/null"
check "SIGINT: exit status is 0 or the runner's 130" [ "$RC" = 0 -o "$RC" = 130 ]

done_testing
