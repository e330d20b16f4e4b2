#!/bin/sh
# SPDX-License-Identifier: MIT
# Verdict injection (issue 34, whose load was it): `engpass disk LOOP
# --workload rand-read --direct` while fio writes randomly to the same loop
# device. The device is busy and the verdict's device candidate must say
# that another process made most of its requests, by name (the storage
# bytes of every process at the window's edges, /proc/PID/io); twin: the
# same run without fio must not name fio.
. "$(dirname "$0")/lib.sh"
need_root "a loop device"
need_cmd losetup truncate fio

FIG='"\(.metrics.io_per_second | floor) IOPS, p50 \(.metrics.lat_p50_ns / 1000 | floor) us"'
IMGDIR=$(mktemp -d /var/tmp/engpass-vt-nb.XXXXXX) || vt_skip_all "cannot create a directory under /var/tmp"
IMG="$IMGDIR/loop.img"
trap 'vt_cleanup; rm -rf "$IMGDIR"' EXIT
truncate -s 256M "$IMG" || vt_skip_all "cannot create a 256 MiB file under /var/tmp"
LOOP=$(losetup --find --show "$IMG" 2>"$T_TMP/loop.err") || vt_skip_all "losetup failed: $(head -1 "$T_TMP/loop.err")"
VT_LOOPS="$VT_LOOPS $LOOP"
dd if=/dev/zero of="$LOOP" bs=1M count=256 oflag=direct 2>/dev/null
CMD="disk $LOOP --workload rand-read --direct --time 2s"

# names_fio FILE: a device candidate whose evidence names fio as the one that caused the device's bytes
names_fio() {
	jq -e "$VT_RES | length > 0 and all(any(.verdict.candidates[]?;
		(.resource == \"device\" or .resource == \"device latency\") and (.evidence | test(\"fio \\\\(pid [0-9]+\\\\) caused\"))))" \
		"$1" >/dev/null 2>&1
}

bg "$T_TMP/fio.out" fio --name=neighbour --filename="$LOOP" --rw=randwrite --bs=4k --direct=1 --ioengine=psync \
	--time_based --runtime=15 --size=256M
fp=$BG_PID
sleep 1
# shellcheck disable=SC2086
ep "$T_TMP/nb.json" "$ENGPASS" $CMD $EP_OPTS
matrix "fio randwrite on the same loop device" "engpass $CMD" "$FIG" "$T_TMP/nb.json"
stop_pid "$fp"
expect_ran "$T_TMP/nb.json" "beside fio"
if names_fio "$T_TMP/nb.json"; then
	ok "beside fio: the device's evidence names fio as the process that made its requests"
else
	not_ok "beside fio: the device's evidence names fio as the process that made its requests" \
		"got: $(jq -c "${VT_RES}[0] | [.verdict.candidates[]? | select(.resource | startswith(\"device\")) | .evidence], .system.other_processes_io" "$T_TMP/nb.json" 2>/dev/null | cut -c1-500)"
fi

# shellcheck disable=SC2086
ep "$T_TMP/alone.json" "$ENGPASS" $CMD $EP_OPTS
matrix "none (twin: no fio)" "engpass $CMD" "$FIG" "$T_TMP/alone.json"
expect_ran "$T_TMP/alone.json" "alone (twin)"
if names_fio "$T_TMP/alone.json"; then
	not_ok "alone (twin): the evidence does not name fio"
else
	ok "alone (twin): the evidence does not name fio"
fi
done_testing
