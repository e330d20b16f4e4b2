#!/bin/sh
# SPDX-License-Identifier: MIT
# engpass disk --fs: the field audit of the Transmission-on-a-router report
# in scaled-down form. A scratch ext2 (small blocks, no journal: the
# stand-in for a FAT-formatted USB stick) on a loop image, mounted sync or
# async, with write caches 0 and 8M, in one sweep: sync must cost many
# times more device write requests than async, write amplification >= 1
# is reported, and the sweep table carries the verdict row. Then: nothing
# left behind (no loop device, mount or image), also after the first
# Ctrl-C; a run killed with SIGKILL leaves its file system, and the next
# run reaps it. --prealloc full's zero-fill as a measured phase, -t
# --offset/--region, and the refusals. Speeds are never asserted.
. "$(dirname "$0")/lib.sh"

# Undone by id in the trap: mounts and loop devices of images under $T_TMP.
cleanup() {
	for m in $(awk -v d="$T_TMP" 'index($2, d) == 1 { print $2 }' /proc/mounts 2>/dev/null); do
		umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null
	done
	for img in "$T_TMP"/fs/.engpass-fs-*.img; do
		[ -e "$img" ] || continue
		for l in $(losetup -j "$img" 2>/dev/null | cut -d: -f1); do losetup -d "$l" 2>/dev/null; done
	done
	[ -n "${BG:-}" ] && kill -9 "$BG" 2>/dev/null
	rm -rf "$T_TMP"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

J="$T_TMP/out"
D="$T_TMP/fs"
mkdir -p "$D"

# nothing_left: no loop device backed by a file in $D, no mount under $D, no file in $D.
nothing_left() {
	[ -z "$(losetup -a 2>/dev/null | grep -F "$D/")" ] && ! grep -qF " $D/" /proc/mounts && [ -z "$(ls -A "$D")" ]
}
# usage NAME WORDS ARGS...: exit 2, one line on stderr matching WORDS.
usage() {
	name=$1 words=$2
	shift 2
	run disk "$@"
	if [ "$RC" = 2 ] && [ "$(wc -l <"$T_TMP/err")" = 1 ] && grep -q -- "$words" "$T_TMP/err" && [ ! -s "$J" ]; then
		ok "$name"
	else
		not_ok "$name" "exit $RC" "$(cat "$T_TMP/err")"
	fi
}

# ---- -t --offset / --region (a sparse file: no root needed) -------------

truncate -s 64M "$T_TMP/f64"
run disk -t "$T_TMP/f64" --offset 60M --json --no-sample --no-history
jqt "-t --offset 60M reads from 60 MiB to the end (4 MiB), and says where" \
	'.results[0] | .parameters.offset == "60 MiB" and .metrics.read_total_bytes == 4194304 and
	 (.method.what | test("from offset 60 MiB"))' "$J"
jqt "-t that reaches the end before 3 s says the data is too small, with the size 3 s would need" \
	'.results[0].notes | map(test("end of the data: it is too small for a 3 s timing.*would need about")) | any' "$J"
run disk -t "$T_TMP/f64" --region middle --json --no-sample --no-history
jqt "-t --region middle starts at the midpoint" \
	'.results[0] | .parameters.offset == "32 MiB" and .parameters.region == "middle" and
	 .metrics.read_total_bytes == 33554432' "$J"
run disk -t "$T_TMP/f64" --region end --json --no-sample --no-history
jqt "-t --region end reads the last third of small data, whole 2 MiB blocks" \
	'.results[0] | .parameters.offset == "42 MiB" and .metrics.read_total_bytes == 23068672' "$J"
usage "--offset past the last 2 MiB is refused" "leaves less than 2 MiB" -t "$T_TMP/f64" --offset 63M
usage "--offset not a multiple of 4 KiB is refused" "multiple of 4 KiB" -t "$T_TMP/f64" --offset 1000
usage "--region without -t is refused" "are for -t" -T "$T_TMP/f64" --region end
usage "--offset and --region together are refused" "exclude each other" -t "$T_TMP/f64" --offset 4M --region end
usage "--mount-options without --fs is refused" "applies to --fs" "$D" --workload torrent --mount-options sync

# ---- root: the scratch file system --------------------------------------

if [ "$(id -u)" != 0 ]; then
	for t in "--fs refusals" "sync vs async sweep on ext2" "nothing left" "first stop signal cleans up" \
		"stale reap after SIGKILL" "prealloc phase" "write workloads on ext2/ext3" "sync mount named in the verdict"; do
		skip "$t" "needs root (loop devices, mounts)"
	done
	done_testing
	exit
fi
if ! grep -qw ext2 /proc/filesystems && ! modprobe -n -q fs-ext2 2>/dev/null || ! command -v mkfs.ext2 >/dev/null; then
	skip "scratch ext2 file system" "no ext2 in this kernel or no mkfs.ext2"
	done_testing
	exit
fi

if command -v setpriv >/dev/null; then
	RC=0
	(cd / && setpriv --reuid 65534 --regid 65534 --clear-groups "$ENGPASS" disk /tmp --workload torrent --fs ext2) \
		>"$J" 2>"$T_TMP/err" </dev/null || RC=$?
	check "--fs as another user than root is a usage error that says why" \
		sh -c "[ $RC = 2 ] && grep -q \"'--fs' needs root\" '$T_TMP/err'"
else
	skip "--fs as another user is refused" "no setpriv"
fi
usage "a file system the kernel lacks is refused, naming it" "no 'nosuchfs' file system" "$D" --workload torrent \
	--fs nosuchfs
if grep -qw vfat /proc/filesystems && command -v mkfs.vfat >/dev/null; then
	skip "a file system without its mkfs tool is refused" "vfat and mkfs.vfat are both here"
else
	usage "vfat without kernel support or mkfs.vfat is refused, naming which" "vfat" "$D" --workload torrent --fs vfat
fi
usage "--mount-options ro is refused (the steps write)" "'ro' is refused" "$D" --workload torrent --fs ext2 \
	--mount-options ro
usage "--fs needs a directory target" "needs a directory" "$T_TMP/f64" -t --fs ext2
check "the refusals created nothing" nothing_left
run disk "$D" --workload torrent --size 1M --fs ext2 --mount-options bogus=1 --no-history
check "a mount the kernel refuses fails the run (exit 1) and says why" \
	sh -c "[ $RC = 1 ] && grep -q 'cannot mount /dev/loop[0-9]* (ext2).*bogus=1' '$T_TMP/err'"
check "a failed setup leaves nothing (image removed, loop device detached)" nothing_left

# The audit's matrix: sync vs async (async + noatime written with '+', so
# the sweep keeps it as one value), caches 0 and 8M, a 4 MiB torrent.
run sweep "disk $D --workload torrent --size 4M --fs ext2" --mount-options sync,async+noatime --cache 0,8M \
	--json --no-history
check "the sweep over mount options and caches ran (exit 0)" [ "$RC" = 0 ]
cp "$J" "$T_TMP/sweep.json"
jqt "each combination names the file system, its mount options, image size and loop device" \
	'[.results[] | .parameters | .fs == "ext2" and (.loop_device | test("^/dev/loop[0-9]+$")) and
	  (.image_size | test("MiB")) and (.mount_options == "sync" or .mount_options == "async,noatime")] |
	 length == 4 and all' "$J"
jqt "the device view and the sampled disk are the loop device's" \
	'[.results[] | (.method.device_view | test("of loop[0-9]+ ")) and (.system.busiest_disk | test("^loop[0-9]+$"))] | all' "$J"
jqt "the mount really is sync for the sync combinations" \
	'[.results[] | select(.parameters.mount_options == "sync") | .method.mount_options | test("sync")] | length == 2 and all' "$J"
req() { jq -r --arg mo "$1" --arg c "$2" '.results[] | select(.parameters.mount_options == $mo and .parameters.cache == $c) | .metrics.device_write_requests' "$T_TMP/sweep.json"; }
S0=$(req sync "0 B") S8=$(req sync "8 MiB") A0=$(req async,noatime "0 B") A8=$(req async,noatime "8 MiB")
echo "# device write requests, 4 MiB torrent on ext2: sync cache 0: $S0, 8M: $S8; async cache 0: $A0, 8M: $A8"
check "sync gives many (>= 20x) times more device write requests than async, cache 0" [ "$S0" -ge $((20 * A0)) ]
check "sync gives many (>= 20x) times more device write requests than async, cache 8M" [ "$S8" -ge $((20 * A8)) ]
jqt "write amplification >= 1 is reported for every combination" \
	'[.results[] | .metrics.write_amplification_ratio >= 1] | length == 4 and all' "$J"
check "nothing left after the sweep (no loop device, mount or image)" nothing_left

run sweep "disk $D --workload torrent --size 1M --fs ext2" --mount-options sync,async --no-history
check "the sweep table has the verdict row" grep -q "^torrent: verdict: bound by " "$J"
check "the sweep table has device writes per MiB written" grep -q "^torrent: dev writes/MiB written " "$J"
check "the sweep table has write amplification" grep -q "^torrent: write amplification " "$J"
check "nothing left after the table sweep" nothing_left

# waitmount: waits up to 10 s for a mount under $D.
waitmount() {
	i=0
	while ! grep -qF " $D/.engpass-fs-" /proc/mounts && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	grep -qF " $D/.engpass-fs-" /proc/mounts
}

# The first Ctrl-C: the workload stops, the file system goes. (SIGTERM takes
# the same soft-stop path; a background job of a script has SIGINT ignored.)
"$ENGPASS" disk "$D" --workload torrent --size 4M --fs ext2 --rate 100K/s --no-history --quiet >"$T_TMP/int.out" \
	2>"$T_TMP/int.err" &
BG=$!
if waitmount; then
	sleep 0.3
	kill -TERM "$BG"
	RC=0
	wait "$BG" || RC=$?
	BG=""
	check "the first stop signal ends the run with 128 + SIGTERM" [ "$RC" = 143 ]
	check "after the first stop signal nothing is left" nothing_left
else
	not_ok "the scratch file system was mounted" "$(cat "$T_TMP/int.err")"
fi

# SIGKILL leaves it; the next run reaps it by the dead process id.
"$ENGPASS" disk "$D" --workload torrent --size 4M --fs ext2 --rate 100K/s --no-history --quiet >/dev/null 2>&1 &
BG=$!
if waitmount; then
	KILLED=$BG
	kill -9 "$BG"
	wait "$BG" 2>/dev/null
	BG=""
	check "a run killed with SIGKILL leaves its mount and image (named by its pid)" \
		sh -c "grep -qF ' $D/.engpass-fs-$KILLED.mnt' /proc/mounts && [ -e '$D/.engpass-fs-$KILLED.img' ]"
	run disk "$D" --workload torrent --size 1M --fs ext2 --json --no-history --no-sample
	jqt "the next run reaps it and says which process left it" \
		".results[0].notes | map(test(\"killed engpass runs \\\\(process $KILLED\\\\)\")) | any" "$J"
	check "after the reap nothing is left" nothing_left
else
	not_ok "the scratch file system was mounted before SIGKILL" ""
fi

# --prealloc full: its zero-fill is a phase of its own with its own device writes.
run disk "$D" --workload torrent --size 4M --fs ext2 --prealloc full --json --no-history --no-sample
jqt "--prealloc full reports its time and device writes (>= the 4 MiB of zeros) apart from the download" \
	'.results[0].metrics | .prealloc_time_seconds > 0 and .prealloc_device_write_requests > 0 and
	 .prealloc_device_write_bytes >= 4194304 and .prealloc_written_bytes == 4194304' "$J"
jqt "the stick is written twice: preallocation plus download reach at least 2 x 4 MiB on the device" \
	'.results[0].metrics | .prealloc_device_write_bytes + .device_write_bytes >= 8388608' "$J"
jqt "the total time includes the preallocation, the headline rate is the download's" \
	'.results[0] | .metrics.total_time_seconds >= .metrics.measured_seconds + .metrics.prealloc_time_seconds - 0.001 and
	 .headline == "write_bytes_per_second" and (.method.prealloc_phase | test("measured on its own"))' "$J"
check "nothing left after the prealloc run" nothing_left

# ext2/ext3 refuse fallocate(): --prealloc fast (the default for a new file)
# falls back to Transmission's one byte at the end, which an O_DIRECT
# descriptor cannot write; the write workloads must run and say how the
# file was laid out.
for fs_wl in ext2:seq-write ext2:rand-write ext3:seq-write; do
	fs=${fs_wl%%:*} wl=${fs_wl#*:}
	if [ "$fs" = ext3 ] && ! command -v mkfs.ext3 >/dev/null; then
		skip "$wl on $fs" "no mkfs.ext3"
		continue
	fi
	run disk "$D" --workload "$wl" --size 4M --fs "$fs" --json --no-history --no-sample
	jqt "$wl on $fs (fallocate refused) runs O_DIRECT and writes its 4 MiB" \
		'.results[0] | .status == "ok" and .parameters.direct == "yes" and .metrics.write_total_bytes > 0' "$J"
	jqt "$wl on $fs: the method says fallocate was refused and the byte went through the page cache" \
		'.results[0].method.prealloc | test("fallocate\\(\\) refused") and test("one byte written at the end of 4 MiB through the page cache")' "$J"
done
check "nothing left after the write workloads" nothing_left

# A sync mount is what to change (issue 36: it advised "more requests in
# flight" while its own note named the sync mount).
run disk "$D" --workload seq-write --size 4M --fs ext2 --mount-options sync --json --no-history
jqt "seq-write on a sync mount: the verdict's candidates hold the sync mount, with what to change" \
	'.results[0].verdict.candidates | map(select(.resource == "device setting" and
	  (.next_step | test("sync mount sets the pace: mount without sync \\(--mount-options async\\)")))) | length == 1' "$J"
jqt "seq-write on a sync mount: where the verdict names the device, its next step names the sync mount" \
	'.results[0].verdict | ((.resource | test("^device|^sync writes|^writeback")) | not) or (.next_step | test("sync mount"))' "$J"
echo "# seq-write, ext2 mounted sync: $(jq -r '.results[0].verdict | .resource + " -- next: " + .next_step' "$J")"
run disk "$D" --workload seq-write --size 4M --fs ext2 --json --no-history --no-sample
jqt "seq-write on an async mount names no setting" \
	'[.results[0].verdict.candidates[]? | select(.resource == "device setting")] | length == 0' "$J"
check "nothing left after the sync-mount runs" nothing_left

done_testing
