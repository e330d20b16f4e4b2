#!/bin/sh
# SPDX-License-Identifier: MIT
# Verdict injection (#18), io limit: a loop device of the test's own (a
# sparse 256 MiB file under /var/tmp, used raw: no file system, so no fill
# step runs under the throttle) and a cgroup v1 blkio child throttling it
# to 20 MiB/s: blkio.throttle.read_bps_device under `disk --workload
# seq-read --direct`, then write_bps_device under `seq-write --direct
# --destructive`. Both must name "io limit"; the twins, same device, no
# throttle, must not. The figure is the MiB/s read or written: 20.0 under
# the throttle. The loop device is detached by the name losetup printed
# and the file removed in the trap.
. "$(dirname "$0")/lib.sh"
need_root "loop devices and the cgroup v1 blkio controller"
need_cmd losetup truncate

RATE=20971520
BPS='(.metrics.read_bytes_per_second // .metrics.write_bytes_per_second)'
FIG="\"\\($BPS / 1048576 * 10 | floor / 10) MiB/s, \\(.metrics.io_per_second | floor) IOPS, p50 \\(.metrics.lat_p50_ns / 1000 | floor) us\""

cg_new blkio io || vt_skip_all "$CG_WHY"
[ -e "$CG/blkio.throttle.read_bps_device" ] || vt_skip_all "no blkio.throttle files (kernel without CONFIG_BLK_DEV_THROTTLING)"
IMGDIR=$(mktemp -d /var/tmp/engpass-vt-io.XXXXXX) || vt_skip_all "cannot create a directory under /var/tmp"
IMG="$IMGDIR/loop.img"
trap 'vt_cleanup; rm -rf "$IMGDIR"' EXIT
truncate -s 256M "$IMG" || vt_skip_all "cannot create a 256 MiB file under /var/tmp"
LOOP=$(losetup --find --show "$IMG" 2>"$T_TMP/loop.err") || vt_skip_all "losetup failed: $(head -1 "$T_TMP/loop.err")"
VT_LOOPS="$VT_LOOPS $LOOP"
MM=$(lsblk -dno MAJ:MIN "$LOOP" 2>/dev/null | tr -d ' ')
[ -n "$MM" ] || MM=$(stat -Lc '%t:%T' "$LOOP" | awk -F: '{ printf "%d:%d", strtonum("0x" $1), strtonum("0x" $2) }')
echo "# loop device $LOOP ($MM) on $IMG"

READ="disk $LOOP --workload seq-read --direct --time 2s"
WRITE="disk $LOOP --workload seq-write --direct --destructive --time 2s"

cg_set "$CG" blkio.throttle.read_bps_device "$MM $RATE" || vt_skip_all "$CG_WHY"
# shellcheck disable=SC2086
ep "$T_TMP/read.json" cg_exec "$CG" "$ENGPASS" $READ $EP_OPTS
matrix "blkio.throttle.read_bps_device $MM 20 MiB/s" "engpass $READ (in the cgroup)" "$FIG" "$T_TMP/read.json"
expect_ran "$T_TMP/read.json" "read throttle"
expect_figure "read throttle: 15..22 MiB/s (the throttle was in force)" \
	"$BPS >= 15728640 and $BPS <= 23068672" "$T_TMP/read.json"
expect_named "io limit" "$T_TMP/read.json" "read throttle"
cg_set "$CG" blkio.throttle.read_bps_device "$MM 0"

cg_set "$CG" blkio.throttle.write_bps_device "$MM $RATE" || vt_skip_all "$CG_WHY"
# shellcheck disable=SC2086
ep "$T_TMP/write.json" cg_exec "$CG" "$ENGPASS" $WRITE $EP_OPTS
matrix "blkio.throttle.write_bps_device $MM 20 MiB/s" "engpass $WRITE (in the cgroup)" "$FIG" "$T_TMP/write.json"
expect_ran "$T_TMP/write.json" "write throttle"
expect_figure "write throttle: 15..22 MiB/s (the throttle was in force)" \
	"$BPS >= 15728640 and $BPS <= 23068672" "$T_TMP/write.json"
expect_named "io limit" "$T_TMP/write.json" "write throttle"
cg_set "$CG" blkio.throttle.write_bps_device "$MM 0"

# The twins: the same device, no throttle anywhere.
# shellcheck disable=SC2086
ep "$T_TMP/tread.json" "$ENGPASS" $READ $EP_OPTS
matrix "none (twin of the read throttle)" "engpass $READ" "$FIG" "$T_TMP/tread.json"
expect_ran "$T_TMP/tread.json" "read twin"
expect_figure "read twin: above 30 MiB/s (no throttle)" "$BPS > 31457280" "$T_TMP/tread.json"
expect_not_named "io limit" "$T_TMP/tread.json" "read twin"

# shellcheck disable=SC2086
ep "$T_TMP/twrite.json" "$ENGPASS" $WRITE $EP_OPTS
matrix "none (twin of the write throttle)" "engpass $WRITE" "$FIG" "$T_TMP/twrite.json"
expect_ran "$T_TMP/twrite.json" "write twin"
expect_figure "write twin: above 30 MiB/s (no throttle)" "$BPS > 31457280" "$T_TMP/twrite.json"
expect_not_named "io limit" "$T_TMP/twrite.json" "write twin"

done_testing
