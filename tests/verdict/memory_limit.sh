#!/bin/sh
# SPDX-License-Identifier: MIT
# Verdict injection (#18), memory limit: a swap file of the test's own (256
# MiB under /var/tmp, a disk file system: swap on tmpfs or overlay is
# refused) and a cgroup v1 memory child with memory.limit_in_bytes 128M
# around `engpass mem --ladder --sizes 64M,192M` (no --sandbox: the limit
# is the test's, engpass must find it; --force, see below). The 192M rung must be named
# "memory limit"; the twin, the same ladder in no such cgroup (swap still
# on), must not name it on any rung. The figure: the read pass MB/s and
# the swap traffic of the rung, and whether it stayed resident.
# swapoff, then the file removed, in the trap.
. "$(dirname "$0")/lib.sh"
need_root "swapon and the cgroup v1 memory controller"
need_cmd mkswap swapon swapoff

SWDIR=$(mktemp -d /var/tmp/engpass-vt-swap.XXXXXX) || vt_skip_all "cannot create a directory under /var/tmp"
trap 'vt_cleanup; rm -rf "$SWDIR"' EXIT
case $(stat -f -c %T "$SWDIR") in
tmpfs | overlayfs | btrfs) vt_skip_all "/var/tmp is $(stat -f -c %T "$SWDIR"): no swap file there" ;;
esac
SW="$SWDIR/swap"
dd if=/dev/zero of="$SW" bs=1M count=256 status=none 2>"$T_TMP/sw.err" || vt_skip_all "cannot write a 256 MiB swap file: $(head -1 "$T_TMP/sw.err")"
chmod 600 "$SW"
mkswap "$SW" >/dev/null 2>"$T_TMP/sw.err" || vt_skip_all "mkswap failed: $(head -1 "$T_TMP/sw.err")"
VT_SWAPS="$VT_SWAPS $SW"
swapon "$SW" 2>"$T_TMP/sw.err" || vt_skip_all "swapon refused the swap file: $(head -1 "$T_TMP/sw.err")"

cg_new memory lim || vt_skip_all "$CG_WHY"
cg_set "$CG" memory.limit_in_bytes 128M || vt_skip_all "$CG_WHY"
# A cgroup v1 child inherits swappiness from its parent at creation; 60
# makes sure the limit pushes pages to swap, not only the page cache out.
[ -e "$CG/memory.swappiness" ] && cg_set "$CG" memory.swappiness 60

# --force: inside the 128M cgroup the current binary computes a budget of
# 0 B (MemAvailable + SwapFree - margin) and would skip every rung.
CMD="mem --ladder --sizes 64M,192M --force"
FIG='"rung \(.parameters.size): write \(.metrics.write_bytes_per_second / 1e6 | floor) MB/s, read \(.metrics.read_bytes_per_second / 1e6 | floor) MB/s, \(.metrics.swap_out_pages) pages out / \(.metrics.swap_in_pages) in, \(.metrics.read_major_faults) major faults, resident \(.metrics.resident_after_read_percent | floor) %"'

# shellcheck disable=SC2086
ep "$T_TMP/lim.json" cg_exec "$CG" "$ENGPASS" $CMD $EP_OPTS
matrix "memory.limit_in_bytes 128M, 256 MiB swap file" "engpass $CMD (in the cgroup)" "$FIG" "$T_TMP/lim.json"
expect_ran "$T_TMP/lim.json" "memory limit"
echo "# memory cgroup: failcnt $(cat "$CG/memory.failcnt"), max_usage $(($(cat "$CG/memory.max_usage_in_bytes") / 1048576)) MiB"
# Only the rung beyond the limit is bounded by it: select the last one.
jq '.results |= [map(select(.verdict != null)) | last]' "$T_TMP/lim.json" >"$T_TMP/lim-top.json"
expect_named "memory limit" "$T_TMP/lim-top.json" "memory limit, 192M rung"

# shellcheck disable=SC2086
ep "$T_TMP/twin.json" "$ENGPASS" $CMD $EP_OPTS
matrix "none (twin of memory limit; swap on)" "engpass $CMD" "$FIG" "$T_TMP/twin.json"
expect_ran "$T_TMP/twin.json" "twin"
expect_not_named "memory limit" "$T_TMP/twin.json" "twin"

done_testing
