#!/bin/sh
# SPDX-License-Identifier: MIT
# Verdict injection (issue 34), the router's download into a throttled
# stick: `engpass download URL DIR --rate 4M` from Python's http.server on
# loopback (6 MiB of random bytes) into DIR on an ext2 file system on a
# loop device of the test's own (a 64 MiB sparse file under /var/tmp),
# engpass in a cgroup v1 blkio child that throttles the loop device's
# writes to 1.5 MiB/s (blkio.throttle.write_bps_device) and in a 64 MiB
# memory cgroup, as in the field report. Must name "io limit".
#
# Whether a v1 throttle bites depends on who submits the writes: download
# writes with buffered pwritev() and one fdatasync() at the end. Writeback
# by the flusher threads is the root cgroup's (v1 has no cgroup
# writeback) and passes unthrottled; the writeback that fdatasync() starts
# is submitted by the download's own thread, in its cgroup, and is
# throttled. So the buffered case spends its time in the final
# fdatasync (the time budget: disk, loop0, fdatasync). The second case
# mounts the file system with -o sync (the field report's Transmission
# router wrote to a sync-mounted directory), so every pwritev() waits for
# the device in the thread's own cgroup. The twins: the same mounts, the
# same cgroups, no throttle: must not name "io limit". The figure: MiB/s
# and the budget's disk share. Loop device, mount, cgroups and server are
# removed by name or id in the trap (lib.sh).
. "$(dirname "$0")/lib.sh"
need_root "loop devices, mounts and the cgroup v1 blkio and memory controllers"
need_cmd losetup mkfs.ext2 python3 truncate

FIG='"\(.metrics.throughput_bytes_per_second / 1048576 * 100 | floor / 100) MiB/s, disk \([.system.time_budget.states[]? | select(.state == "disk") | .percent] | add // 0 | floor) % of the thread time, iowait \(.metrics.cpu_iowait_percent // 0 | floor) %"'

cg_new blkio dl || vt_skip_all "$CG_WHY"
BCG=$CG
[ -e "$BCG/blkio.throttle.write_bps_device" ] || vt_skip_all "no blkio.throttle files (kernel without CONFIG_BLK_DEV_THROTTLING)"
CGS=$BCG
if cg_new memory dl; then
	if cg_set "$CG" memory.limit_in_bytes 67108864; then
		CGS="$CGS $CG"
	else
		echo "# no 64 MiB memory cgroup: $CG_WHY"
	fi
else
	echo "# no 64 MiB memory cgroup: $CG_WHY"
fi

IMGDIR=$(mktemp -d /var/tmp/engpass-vt-dl.XXXXXX) || vt_skip_all "cannot create a directory under /var/tmp"
MNT=""
trap 'vt_cleanup; rm -rf "$IMGDIR"; [ -n "$MNT" ] && rmdir "$MNT" 2>/dev/null' EXIT
truncate -s 64M "$IMGDIR/loop.img" || vt_skip_all "cannot create a 64 MiB file under /var/tmp"
LOOP=$(losetup --find --show "$IMGDIR/loop.img" 2>"$T_TMP/loop.err") || vt_skip_all "losetup failed: $(head -1 "$T_TMP/loop.err")"
VT_LOOPS="$VT_LOOPS $LOOP"
MM=$(lsblk -dno MAJ:MIN "$LOOP" 2>/dev/null | tr -d ' ')
[ -n "$MM" ] || vt_skip_all "no MAJ:MIN for $LOOP"
mkfs.ext2 -q "$LOOP" 2>"$T_TMP/mkfs.err" || vt_skip_all "mkfs.ext2 failed: $(head -1 "$T_TMP/mkfs.err")"
MNT=$(mktemp -d /tmp/engpass-vt-dl-mnt.XXXXXX) || vt_skip_all "cannot create a mount point"
echo "# loop device $LOOP ($MM), ext2, at $MNT; cgroups $CGS"

mkdir -p "$T_TMP/www"
head -c 6291456 /dev/urandom >"$T_TMP/www/f.bin"
new_port
bg "$T_TMP/http.out" python3 -m http.server --bind 127.0.0.1 --directory "$T_TMP/www" "$PORT"
wait_listen "$PORT" || vt_skip_all "python3 http.server did not listen: $(head -2 "$T_TMP/http.out")"
CMD="download http://127.0.0.1:$PORT/f.bin $MNT --rate 4M"

# mount_as OPTS: (re)mounts the file system on $MNT with OPTS.
mount_as() {
	umount "$MNT" 2>/dev/null
	VT_MOUNTS=$(echo "$VT_MOUNTS" | sed "s#$MNT##")
	mount -o "$1" "$LOOP" "$MNT" 2>"$T_TMP/mount.err" || vt_skip_all "mount -o $1 failed: $(head -1 "$T_TMP/mount.err")"
	VT_MOUNTS="$VT_MOUNTS $MNT"
}
# dl_case FILE LABEL WHAT
dl_case() {
	# shellcheck disable=SC2086
	ep "$1" cg_exec "$CGS" "$ENGPASS" $CMD $EP_OPTS
	matrix "$3" "engpass $CMD (in the cgroups)" "$FIG" "$1"
	expect_ran "$1" "$2"
}

cg_set "$BCG" blkio.throttle.write_bps_device "$MM 1572864" || vt_skip_all "$CG_WHY"
mount_as rw
dl_case "$T_TMP/buf.json" "throttle, buffered" "blkio.throttle.write_bps_device $MM 1.5 MiB/s"
expect_figure "throttle, buffered: under 1.6 MiB/s (the final fdatasync was throttled)" \
	'.metrics.throughput_bytes_per_second < 1677722' "$T_TMP/buf.json"
expect_named "io limit" "$T_TMP/buf.json" "throttle, buffered"
mount_as sync
dl_case "$T_TMP/sync.json" "throttle, -o sync" "blkio.throttle.write_bps_device $MM 1.5 MiB/s, mounted -o sync"
expect_figure "throttle, -o sync: under 1.6 MiB/s" '.metrics.throughput_bytes_per_second < 1677722' "$T_TMP/sync.json"
expect_named "io limit" "$T_TMP/sync.json" "throttle, -o sync"

# The twins: the same cgroups and mounts, the throttle lifted.
cg_set "$BCG" blkio.throttle.write_bps_device "$MM 0"
dl_case "$T_TMP/tsync.json" "twin, -o sync" "none (twin: no throttle, mounted -o sync)"
expect_not_named "io limit" "$T_TMP/tsync.json" "twin, -o sync"
mount_as rw
dl_case "$T_TMP/tbuf.json" "twin, buffered" "none (twin: no throttle)"
expect_figure "twin, buffered: above 2 MiB/s (no throttle)" '.metrics.throughput_bytes_per_second > 2097152' "$T_TMP/tbuf.json"
expect_not_named "io limit" "$T_TMP/tbuf.json" "twin, buffered"
done_testing
