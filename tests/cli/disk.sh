#!/bin/sh
# SPDX-License-Identifier: MIT
# engpass disk from the outside: bad input (exit 2, one line, nothing
# created), -T and -t, the five fio-like workloads, sync modes, the rate
# limit, the torrent workload and its content, and, as root, the seed 000
# experiment on a loop device (normal and sync mounts, cache 0 and 8M),
# mounted-device refusal, --readahead/--scheduler restore (also after
# SIGINT), ENOSPC on a tiny tmpfs, EIO after an ext4 shutdown and the
# io_uring fallback. Speeds are never asserted, only behaviour: what
# reached the device, how many requests, what the file holds.
. "$(dirname "$0")/lib.sh"

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

# Everything root-only is created through these helpers and undone by id.
LOOPS=""
MOUNTS=""
URING_OLD=""
cleanup() {
	for m in $MOUNTS; do umount "$m" 2>/dev/null; done
	for l in $LOOPS; do losetup -d "$l" 2>/dev/null; done
	if [ -n "$URING_OLD" ]; then echo "$URING_OLD" >/proc/sys/kernel/io_uring_disabled; fi
	rm -rf "$T_TMP"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

ROOT=0
[ "$(id -u)" = 0 ] && ROOT=1
CWD="$T_TMP/cwd"
mkdir -p "$CWD"
J="$T_TMP/out"

# empty DIR: true when DIR holds no file (engpass left nothing behind).
empty() { [ -z "$(ls -A "$1")" ]; }
# one_line: stderr is exactly one line.
one_line() { [ "$(wc -l <"$T_TMP/err")" = 1 ]; }
# usage NAME WORDS ARGS...: exit 2, one line on stderr matching WORDS, nothing created.
usage() {
	name=$1 words=$2
	shift 2
	run disk "$@"
	if [ "$RC" = 2 ] && one_line && grep -q "$words" "$T_TMP/err" && [ ! -s "$J" ] && empty "$CWD"; then
		ok "$name"
	else
		not_ok "$name" "exit $RC" "$(cat "$T_TMP/err")" "$(ls -A "$CWD")"
	fi
}
# newloop FILE: attaches FILE to a free loop device and sets LOOP to it
# (not through $(...): cleanup must see LOOPS, which a subshell would lose).
newloop() {
	LOOP=$(losetup --show -f "$1") || return 1
	LOOPS="$LOOPS $LOOP"
}
mnt() {
	mount "$@" || return 1
	eval "MOUNTS=\"\$$# \$MOUNTS\""
}
unmnt() {
	umount "$1" || return 1
	rest=""
	for x in $MOUNTS; do [ "$x" = "$1" ] || rest="$rest $x"; done
	MOUNTS=$rest
}
m() { jq -r "$1" "$J"; }

# ---- bad input: exit 2, one line, nothing created ------------------------

usage "a missing target is refused" "No such file" "$T_TMP/nope" -t
head -c 4194304 /dev/urandom >"$T_TMP/data4m"
SUM=$(sha1sum <"$T_TMP/data4m")
usage "writing an existing file needs --write-ok" "write-ok" "$T_TMP/data4m" --workload seq-write
check "the existing file is unchanged" [ "$(sha1sum <"$T_TMP/data4m")" = "$SUM" ]
usage "a character device is refused" "not a directory" /dev/null
usage "--direct with --buffered is refused" "exclude" --direct --buffered
usage "a bad --sync is refused" "sync" --workload seq-write --sync sometimes
usage "--sync on a read workload is refused" "write" --workload seq-read --sync end
usage "--bs not a multiple of 512 with O_DIRECT is refused" "512" --workload rand-read --bs 1000
usage "torrent options without torrent are refused" "torrent" --workload seq-write --cache 8M
usage "-T/-t with --bs is refused" "workload" -T --bs 4K
usage "--piece not a multiple of 16 KiB is refused" "16 KiB" --workload torrent --piece 20K
usage "two targets are refused" "unexpected" . ..
usage "an unknown scheduler is refused" "scheduler" -t --scheduler no-such-elevator
if [ "$ROOT" = 0 ]; then
	mkdir -p "$T_TMP/ro"
	chmod 555 "$T_TMP/ro"
	usage "a directory we cannot write in is refused" "cannot write" "$T_TMP/ro" --workload seq-write
else
	mkdir -p "$T_TMP/ro"
	if mnt -t tmpfs -o ro,size=1M tmpfs "$T_TMP/ro"; then
		usage "a read-only directory is refused" "cannot write" "$T_TMP/ro" --workload seq-write
	else
		skip "a read-only directory is refused" "cannot mount tmpfs"
	fi
fi

# ---- -T and -t ------------------------------------------------------------

run disk -T -t --size 32M --time 300ms --json --interval 50ms
check "-T -t exits 0" [ "$RC" = 0 ]
jqt "-T -t gives two steps, cached then device" '[.results[].step] == ["cached", "device"]' "$J"
jqt "-T says it is a memory-copy figure" '.results[0].method.what | test("memory-copy")' "$J"
jqt "-t reads with O_DIRECT by default" '.results[1].method.cache | test("O_DIRECT")' "$J"
jqt "both steps measured something" '[.results[].metrics.read_bytes_per_second > 0] | all' "$J"
jqt "latency histogram holds every read" '[.results[] | .histograms.lat_ns.count == .metrics.ios] | all' "$J"
jqt "the data file and its fill are named in the method" '.results[1].method.data | test("temp file")' "$J"
jqt "device settings are in the method" '.results[1].method | has("scheduler") or (.device | test("none"))' "$J"
jqt "O_DIRECT reads reach the device" '.results[1].metrics | (has("device_read_requests") | not) or .device_read_requests >= .ios' "$J"
jqt "each step has a system view and a verdict" '[.results[] | (.system.samples >= 1) and (.verdict.resource | type == "string")] | all' "$J"
check "-T -t leaves nothing behind" empty "$CWD"
jqt "without --settle there is no pause before timing" '[.results[].method | has("settle") | not] | all' "$J"
# The table of -T -t: the device's read is not in a row labelled after the memory copy.
run disk -T -t --size 32M --time 300ms --no-history --no-sample
check "-T -t table: the read row is named by its key, not by the cached step's label" \
	sh -c "grep -q '^  read  ' '$J' && ! grep -q '^  cached read (memory copy)  ' '$J'"
check "-T -t table: each step's label of the read row is said" \
	grep -q "read: cached: cached read (memory copy); device: device read (O_DIRECT)" "$J"
# --repeat: the label column is not cut to fragments ("devic", "e", "(O_DI").
run disk -t --size 16M --time 200ms --repeat 3 --no-history --no-sample
check "-t --repeat 3 exits 0" [ "$RC" = 0 ]
check "-t --repeat 3: the headline's label is whole on its row" grep -q '^  device read (O_DIRECT)  ' "$J"
check "-t --repeat 3: 2 MiB reads per second is whole on its row, no line over 100 columns" \
	sh -c "grep -q '^  2 MiB reads per second  ' '$J' && awk 'length(\$0) > 100 { bad = 1 } END { exit bad }' '$J'"
run disk -t --settle 200ms --size 32M --time 300ms --json --no-sample
jqt "--settle: sync and the pause are named in the method" '.results[0].method.settle | test("sync\\(\\) and 0.2 s idle")' "$J"
run disk --workload seq-read --settle 1s
check "--settle without -T/-t is exit 2" [ "$RC" = 2 ]

head -c 8388608 /dev/urandom >"$T_TMP/data8m"
SUM=$(sha1sum <"$T_TMP/data8m")
run disk "$T_TMP/data8m" -t --buffered --time 10s --json --no-sample
check "-t --buffered on a file exits 0" [ "$RC" = 0 ]
jqt "-t --buffered on a file drops its cache with fadvise" '.results[0].method.cache | test("DONTNEED")' "$J"
jqt "-t stops at the end of the data and says so" '.results[0] | (.notes | map(test("end of the data")) | any) and .metrics.read_total_bytes == 8388608' "$J"
check "reading leaves the file unchanged" [ "$(sha1sum <"$T_TMP/data8m")" = "$SUM" ]

# Past 4 GiB: a 32-bit build (64-bit off_t) reads a 6 GiB sparse file to its end.
truncate -s 6G "$T_TMP/sparse6g"
run disk "$T_TMP/sparse6g" -t --time 20s --json --no-sample
jqt "-t reads a 6 GiB file to its end (offsets past 4 GiB)" '.results[0].metrics.read_total_bytes == 6442450944' "$J"
rm -f "$T_TMP/sparse6g"

# ---- workloads ------------------------------------------------------------

W="--size 32M --time 300ms --json --no-sample"
run disk --workload seq-read $W
jqt "seq-read: reads, one at a time" '.results[0].metrics | .read_bytes_per_second > 0 and .qd_max == 1 and .ios > 0' "$J"
jqt "seq-read: the histogram holds every I/O" '.results[0] | .histograms.lat_ns.count == .metrics.ios' "$J"
jqt "seq-read: latency type is named" '.results[0].method.latency | test("submit to complete")' "$J"
jqt "seq-read 1 MiB: the I/O buffer and what backs it are named" \
	'.results[0] | (.parameters.buffer_huge | IN("yes", "partly", "no")) and (.method.buffer | test("1 MiB"))' "$J"
if grep -q '\[never\]' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null ||
	[ ! -e /sys/kernel/mm/transparent_hugepage/enabled ]; then
	jqt "seq-read 1 MiB without THP: 4 KiB pages, said so" '.results[0].parameters.buffer_huge == "no"' "$J"
else
	jqt "seq-read 1 MiB: MADV_HUGEPAGE asked (THP on)" '.results[0].method.buffer | test("HUGEPAGE")' "$J"
fi

run disk --workload seq-write $W
jqt "seq-write: writes with one final fdatasync" '.results[0].metrics | .write_total_bytes > 0 and .syncs == 1' "$J"
jqt "seq-write: O_DIRECT writes all reach the device (write amplification >= 0.95)" \
	'.results[0].metrics | (has("write_amplification_ratio") | not) or .write_amplification_ratio >= 0.95' "$J"
jqt "seq-write: CPU per I/O is reported" '.results[0].metrics | .cpu_per_io_ns > 0 and has("cpu_sys_per_io_ns")' "$J"

run disk --workload rand-read --qd 8 $W
cp "$J" "$T_TMP/uring.json"
if jq -e '.results[0].notes | map(test("built without liburing")) | any' "$J" >/dev/null; then
	skip "rand-read --qd 8 uses io_uring" "built without liburing"
	skip "rand-read --qd 8 reaches more than one I/O in flight" "built without liburing"
elif jq -e '.results[0] | .parameters.engine_used == "psync" and
		(.notes | map(test("io_uring_queue_init\\(\\) failed.*fell back to psync")) | any)' "$J" >/dev/null; then
	# No io_uring in this kernel (or under qemu-user, which has no io_uring): psync, said so.
	ok "rand-read --qd 8: io_uring unavailable here, the fallback to psync is said"
	skip "rand-read --qd 8 reaches more than one I/O in flight" "no io_uring here (psync fallback)"
else
	jqt "rand-read --qd 8 uses io_uring" '.results[0].parameters.engine == "uring"' "$J"
	jqt "rand-read --qd 8 reaches more than one I/O in flight, never more than 8" \
		'.results[0].metrics | .qd_max > 1 and .qd_max <= 8 and .qd_mean <= 8' "$J"
fi

jqt "rand-read 4 KiB: one-page requests, no huge page asked" \
	'.results[0] | .parameters.buffer_huge == "no" and (.method.buffer | test("within one page"))' "$J"

run disk --workload rand-write --engine psync --qd 4 $W
jqt "psync with --qd 4 reaches depth 1 and says so" \
	'.results[0] | .metrics.qd_max == 1 and (.notes | map(test("queue depth 1")) | any)' "$J"

run disk --workload mixed --read-pct 70 --qd 2 $W
jqt "mixed reads and writes" '.results[0].metrics | .read_total_bytes > 0 and .write_total_bytes > 0' "$J"
jqt "mixed has per-direction latency" '.results[0].histograms | has("read_lat_ns") and has("write_lat_ns")' "$J"

run disk --workload seq-write --engine psync --bs 64K --sync fdatasync=4 $W
jqt "--sync fdatasync=4 syncs after every 4th write" \
	'.results[0].metrics | (.syncs * 4 <= .ios) and (.ios < (.syncs + 1) * 4)' "$J"

run disk --workload seq-write --engine psync --bs 64K --rate 2M/s --size 32M --time 1s --json
jqt "--rate 2M/s is never exceeded (bucket of 100 KiB)" \
	'.results[0].metrics | .write_total_bytes <= 2097152 * .measured_seconds + 65536 + 104858' "$J"
jqcand "--rate as the bound shows in the verdict" "own pacing" 0.9 "$J"

run disk --workload seq-read --repeat 2 $W
jqt "--repeat 2 gives median, min and max" '.results[0] | .repetitions == 2 and .spread.read_bytes_per_second.n == 2' "$J"
check "the workloads leave nothing behind" empty "$CWD"

# ---- torrent --------------------------------------------------------------

# OpenSSL (SHA-1) is optional: without it --verify-pieces is skipped and there is no content_sha1.
SSL=1
run disk --workload torrent --size 8M --cache 1M --verify-pieces --json --no-sample
if jq -e '.results[0].reason // "" | test("without OpenSSL")' "$J" >/dev/null; then
	SSL=0
	skip "torrent completes every piece and verifies it" "built without OpenSSL"
	run disk --workload torrent --size 8M --cache 1M --json --no-sample
else
	jqt "torrent completes every piece and verifies it" \
		'.results[0].metrics | .pieces_completed == .pieces_total and .pieces_total == 8 and .verify_failures == 0' "$J"
fi
jqt "torrent with a cache writes fewer calls than blocks" '.results[0].metrics | .write_calls < .ios and .ios == 512' "$J"

: >"$T_TMP/torrent"
run disk "$T_TMP/torrent" --workload torrent --size 4M --piece 256K --interleave 3 --write-ok --json --no-sample
jqt "torrent --cache 0: one write per 16 KiB block" '.results[0].metrics | .write_calls == .ios and .ios == 256' "$J"
WANT=$(m '.results[0].method.content_sha1')
GOT=$(sha1sum "$T_TMP/torrent" | cut -d' ' -f1)
if [ "$SSL" = 0 ]; then
	skip "torrent wrote exactly the intended content" "built without OpenSSL"
elif [ "$WANT" = "$GOT" ]; then
	ok "torrent wrote exactly the intended content"
else
	not_ok "torrent wrote exactly the intended content" "want $WANT" "got  $GOT"
fi
check "torrent leaves nothing behind" empty "$CWD"

# ---- SIGINT: stop, report, exit 130, remove the temp file -----------------

(cd "$CWD" && exec env --default-signal=INT "$ENGPASS" disk --workload seq-write --size 32M --time 20s --json) \
	>"$J" 2>"$T_TMP/err" &
pid=$!
sleep 1
kill -INT $pid
RC=0
wait $pid || RC=$?
check "SIGINT exits 130" [ "$RC" = 130 ]
jqt "SIGINT keeps what was measured, marked incomplete" '.results[0] | .incomplete == true and .metrics.ios > 0 and .duration_seconds < 10' "$J"
check "SIGINT removes the temp file" empty "$CWD"

# ---- root: loop devices, mounts, faults ------------------------------------

if [ "$ROOT" = 0 ]; then
	for t in "seed 000 experiment" "mounted device refused" "--readahead/--scheduler restored" "ENOSPC" "EIO" \
		"io_uring fallback" "too little free space"; do
		skip "$t" "needs root (loop devices, mounts)"
	done
	done_testing
	exit
fi

# The seed 000 experiment: ext4 on a loop device, normal and sync mounts,
# torrent with --cache 0 and --cache 8M, 16 MiB each.
truncate -s 96M "$T_TMP/ext4.img"
mkfs.ext4 -q -F "$T_TMP/ext4.img"
newloop "$T_TMP/ext4.img" || { not_ok "loop device" "losetup failed"; done_testing; exit; }
MP="$T_TMP/mnt"
mkdir -p "$MP"
echo "# seed 000: torrent 16 MiB, 1 MiB pieces, 4 in flight, ext4 on $LOOP"
echo "# mount     cache  write calls  device writes  device MiB  write ampl.  seconds"
for mo in defaults sync; do
	mnt -o "$mo" "$LOOP" "$MP"
	for c in 0 8M; do
		f="$MP/t-$c"
		: >"$f"
		run disk "$f" --workload torrent --size 16M --cache "$c" --write-ok --json --no-sample
		[ "$RC" = 0 ] || not_ok "torrent on a $mo mount, cache $c" "$(cat "$T_TMP/err")"
		cp "$J" "$T_TMP/seed-$mo-$c.json"
		jq -r --arg mo "$mo" --arg c "$c" '.results[0].metrics | "# \($mo | .[0:8])  \($c)  \(.write_calls)  \(.device_write_requests)  \(.device_write_bytes / 1048576 * 10 | round / 10)  \(.write_amplification_ratio * 100 | round / 100)  \(.measured_seconds * 1000 | round / 1000)"' "$J" |
			awk '{ printf "# %-9s %-6s %11s %14s %11s %12s %8s\n", $2, $3, $4, $5, $6, $7, $8 }'
	done
	unmnt "$MP"
done
req() { jq '.results[0].metrics.device_write_requests' "$T_TMP/seed-$1-$2.json"; }
N0=$(req defaults 0) N8=$(req defaults 8M) S0=$(req sync 0) S8=$(req sync 8M)
check "seed: the sync mount issues several (>= 5x) times more device writes" [ "$S0" -ge $((5 * N0)) ]
check "seed: on the sync mount --cache 8M issues fewer device writes than --cache 0" [ "$S8" -lt "$S0" ]
check "seed: on a normal mount --cache 8M issues no more device writes than --cache 0 (+25 %)" \
	[ $((4 * N8)) -le $((5 * N0 + 4)) ]
mnt "$LOOP" "$MP"
bad=""
for mo in defaults sync; do
	for c in 0 8M; do
		want=$(jq -r '.results[0].method.content_sha1' "$T_TMP/seed-$mo-$c.json")
		got=$(sha1sum "$MP/t-$c" | cut -d' ' -f1)
		[ "$want" = "$got" ] || bad="$bad $mo/$c"
	done
done
if [ "$SSL" = 0 ]; then
	skip "seed: every file holds exactly the intended content" "built without OpenSSL"
else
	check "seed: every file holds exactly the intended content (read back after remount)" [ -z "$bad" ]
fi

# A mounted device is refused for writes, even with --destructive.
usage "a mounted device is refused for writes with --destructive" "mounted" "$LOOP" --workload seq-write --destructive
unmnt "$MP"
usage "writing a block device needs --destructive" "destructive" "$LOOP" --workload seq-write
run disk "$LOOP" -T -t --time 300ms --json --no-sample
jqt "-T -t on a loop device runs read-only and warns about its backing file" \
	'.results[1].notes | map(test("loop device")) | any' "$J"

# A setting that bounds the device (issue 36: -t advised "a faster device"):
# max_sectors_kb 16 splits each 2 MiB read into 128 requests; the result
# says so and offers it to the verdict, whose next step names it where the
# device is what it names. The default setting is not named.
run disk "$LOOP" -t --max-sectors 16 --time 300ms --json
jqt "-t --max-sectors 16: a note says max_sectors_kb split each 2 MiB read into 16 KiB requests" \
	'.results[0].notes | map(test("max_sectors_kb is 16 on loop[0-9]+: each 2 MiB read reached the device as about [0-9]+ requests of 1[0-7] KiB")) | any' "$J"
jqt "-t --max-sectors 16: the verdict's candidates hold the setting, with what to change" \
	'.results[0].verdict.candidates | map(select(.resource == "device setting" and (.next_step | test("raise max_sectors_kb of loop[0-9]+")))) | length == 1' "$J"
jqt "-t --max-sectors 16: where the verdict names the device, its next step names max_sectors_kb" \
	'.results[0].verdict | ((.resource | test("^device")) | not) or (.next_step | test("max_sectors_kb"))' "$J"
echo "# -t --max-sectors 16 on $LOOP: $(jq -r '.results[0].verdict | .resource + " -- next: " + .next_step' "$J")"
run disk "$LOOP" --workload rand-read --qd 32 --nr-requests 4 --time 300ms --json --no-sample
jqt "--qd 32 over nr_requests 4: the setting is named, with what to change" \
	'.results[0].verdict.candidates | map(select(.resource == "device setting" and
	  (.evidence | test("nr_requests is 4 on loop[0-9]+, below the 32 requests in flight asked")) and
	  (.next_step | test("raise nr_requests")))) | length == 1' "$J"
run disk "$LOOP" --workload seq-read --bs 4K --buffered --readahead 16 --time 300ms --json --no-sample
jqt "buffered 4 KiB reads with --readahead 16: read_ahead_kb is named, with what to change" \
	'.results[0].verdict.candidates | map(select(.resource == "device setting" and
	  (.evidence | test("read_ahead_kb is 16 on loop[0-9]+")) and (.next_step | test("raise read_ahead_kb")))) | length == 1' "$J"
run disk "$LOOP" -t --time 300ms --json --no-sample
jqt "-t with the loop device's own max_sectors_kb names no setting" \
	'[.results[0].verdict.candidates[]? | select(.resource == "device setting")] | length == 0' "$J"

# --readahead and --scheduler: set for the step, restored afterwards, also after SIGINT.
Q=/sys/block/${LOOP#/dev/}/queue
RA=$(cat $Q/read_ahead_kb)
SCHED=$(sed 's/.*\[\(.*\)\].*/\1/' $Q/scheduler)
NEWS=none
[ "$SCHED" = none ] && NEWS=mq-deadline
run disk "$LOOP" -t --buffered --readahead 1200 --scheduler "$NEWS" --time 300ms --json --no-sample
jqt "--readahead and --scheduler are in force during the step" \
	".results[0].method | .read_ahead_kb == \"1200\" and (.scheduler | startswith(\"$NEWS\"))" "$J"
check "--readahead is restored afterwards" [ "$(cat $Q/read_ahead_kb)" = "$RA" ]
check "--scheduler is restored afterwards" grep -q "\[$SCHED\]" $Q/scheduler
env --default-signal=INT "$ENGPASS" disk "$LOOP" --workload rand-read --readahead 4321 --scheduler "$NEWS" --time 20s --json \
	>"$J" 2>"$T_TMP/err" &
pid=$!
sleep 1
kill -INT $pid
RC=0
wait $pid || RC=$?
check "SIGINT during a tuned run exits 130" [ "$RC" = 130 ]
check "--readahead is restored after SIGINT" [ "$(cat $Q/read_ahead_kb)" = "$RA" ]
check "--scheduler is restored after SIGINT" grep -q "\[$SCHED\]" $Q/scheduler

# EIO: ext4 shut down under a running writer (EXT4_IOC_SHUTDOWN, NOLOGFLUSH).
if command -v python3 >/dev/null; then
	mnt "$LOOP" "$MP"
	(
		sleep 0.7
		python3 -c 'import fcntl, os, struct, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
fcntl.ioctl(fd, 0x8004587D, struct.pack("I", 2))' "$MP"
	) &
	run disk "$MP" --workload seq-write --size 16M --bs 64K --rate 4M/s --time 10s --json --no-sample
	wait
	check "EIO mid-run exits 1" [ "$RC" = 1 ]
	jqt "EIO: failed, incomplete, what was written is reported" \
		'.results[0] | .status == "failed" and .incomplete and (.reason | test("I/O error")) and .metrics.write_total_bytes > 0' "$J"
	unmnt "$MP"
else
	skip "EIO mid-run" "no python3 for the ext4 shutdown ioctl"
fi

# ENOSPC: a 16 MiB tmpfs that fills up while engpass writes.
mkdir -p "$T_TMP/small"
mnt -t tmpfs -o size=16M tmpfs "$T_TMP/small"
usage "too little free space is refused, nothing created" "free space" "$T_TMP/small" --workload seq-write --size 64M
check "nothing was created in the small file system" empty "$T_TMP/small"
( sleep 0.7; cat /dev/zero >"$T_TMP/small/fill" 2>/dev/null ) &
run disk "$T_TMP/small" --workload seq-write --size 12M --bs 64K --prealloc none --rate 4M/s --time 10s --json
wait
check "ENOSPC mid-run exits 1" [ "$RC" = 1 ]
jqt "ENOSPC: failed, incomplete, what was written is reported" \
	'.results[0] | .status == "failed" and .incomplete and (.reason | test("no space")) and .metrics.write_total_bytes > 0' "$J"
check "ENOSPC: the temp file is removed" [ "$(ls -A "$T_TMP/small")" = fill ]
unmnt "$T_TMP/small"

# io_uring refused by the kernel: psync with a note.
if ! jq -e '.results[0].parameters.engine == "uring"' "$T_TMP/uring.json" >/dev/null 2>&1; then
	skip "io_uring fallback" "built without liburing"
elif [ -w /proc/sys/kernel/io_uring_disabled ]; then
	URING_OLD=$(cat /proc/sys/kernel/io_uring_disabled)
	echo 2 >/proc/sys/kernel/io_uring_disabled
	run disk --workload rand-read --qd 8 --size 16M --time 200ms --json --no-sample
	echo "$URING_OLD" >/proc/sys/kernel/io_uring_disabled
	URING_OLD=""
	jqt "io_uring refused: falls back to psync and says so" \
		'.results[0] | .parameters.engine_used == "psync" and (.notes | map(test("io_uring_queue_init")) | any)' "$J"
else
	skip "io_uring fallback" "kernel.io_uring_disabled is not writable"
fi

# Undo everything now, so that a leak is a failure and not a silent loop device.
for x in $MOUNTS; do unmnt "$x"; done
for l in $LOOPS; do losetup -d "$l"; done
LOOPS=""
check "no loop device of this test is left" [ -z "$(losetup -j "$T_TMP/ext4.img")" ]
check "no mount of this test is left" [ -z "$(grep " $T_TMP" /proc/self/mounts)" ]

done_testing
