#!/bin/sh
# SPDX-License-Identifier: MIT
# The swap device as a parameter, and the queue knobs, on a loop device
# standing in for a partition (root; skipped otherwise): a device without a
# swap signature or with a file system is refused; the same sandboxed ladder
# runs with engpass's own swap file and with the loop "partition", swept,
# each labelled; a device that was swap before gets its priority back; a
# SIGKILL in the middle leaves no swap of ours enabled and the old priority
# restored; latency --sandbox makes memload swap to the device; disk's
# --nr-requests, --max-sectors, --write-cache are set, labelled, refused
# where the kernel or the target says no, and restored, also after SIGKILL.
# Everything is cleaned up by its id in a trap: the loop device (losetup -d),
# its image, our cgroups (named engpass-mem-PID-*), the sysfs values.
. "$ENGPASS_TESTS/cli/lib.sh"

why=""
if [ "$(id -u)" != 0 ]; then
	why="not root"
elif ! grep -q '^[0-9]*:memory:\|^0::' /proc/self/cgroup || ! grep -q ' cgroup2\? ' /proc/self/mountinfo; then
	why="no memory cgroup"
elif ! command -v losetup >/dev/null || ! command -v mkswap >/dev/null || ! command -v mkfs.ext2 >/dev/null ||
	! command -v wipefs >/dev/null; then
	why="losetup, mkswap, mkfs.ext2 or wipefs missing (util-linux, e2fsprogs)"
fi
SD=""
if [ -z "$why" ]; then
	SD=$(mktemp -d /var/tmp/engpass-swapdev.XXXXXX 2>/dev/null) || SD=""
	[ -n "$SD" ] || why="cannot make a directory in /var/tmp"
fi
case "$([ -z "$why" ] && stat -f -c %T "$SD")" in
tmpfs|overlayfs|btrfs|nfs|fuseblk)
	why="/var/tmp is on $(stat -f -c %T "$SD"), which cannot hold a swap file or loop image here" ;;
esac
LOOP=""
if [ -z "$why" ]; then
	truncate -s 96M "$SD/img" && LOOP=$(losetup -f --show "$SD/img" 2>/dev/null) || LOOP=""
	[ -n "$LOOP" ] || why="cannot attach a loop device"
fi
if [ -n "$why" ]; then
	skip "swap device and queue knobs" "$why"
	[ -n "$SD" ] && rm -rf "$SD"
	done_testing
	exit $?
fi
Q=/sys/block/${LOOP#/dev/}/queue
OLD_NR=$(cat "$Q/nr_requests") OLD_MS=$(cat "$Q/max_sectors_kb") OLD_WC=$(cat "$Q/write_cache")
OLD_SCHED=$(sed 's/.*\[\(.*\)\].*/\1/' "$Q/scheduler")

: >"$T_TMP/pids"
our_cgroups() {
	while read -r p; do
		find /sys/fs/cgroup -maxdepth 6 -type d -name "engpass-mem-$p-*" 2>/dev/null
	done <"$T_TMP/pids"
}
cleanup() {
	for d in $(our_cgroups); do
		[ -r "$d/cgroup.procs" ] && while read -r p; do kill -9 "$p" 2>/dev/null || :; done <"$d/cgroup.procs"
		sleep 0.2
		rmdir "$d" 2>/dev/null || :
	done
	swapoff "$LOOP" 2>/dev/null || :
	for f in "$SD"/.engpass-swap-*; do [ -e "$f" ] && swapoff "$f" 2>/dev/null; done
	echo "$OLD_SCHED" >"$Q/scheduler" 2>/dev/null
	echo "$OLD_NR" >"$Q/nr_requests" 2>/dev/null
	echo "$OLD_MS" >"$Q/max_sectors_kb" 2>/dev/null
	echo "$OLD_WC" >"$Q/write_cache" 2>/dev/null
	losetup -d "$LOOP" 2>/dev/null || :
	rm -rf "$SD" "$T_TMP"
}
trap cleanup EXIT
trap 'cleanup; exit 1' INT TERM

# bg ARGS...: engpass in the background, its PID in $pid and the pid list.
bg() {
	mkdir -p "$T_TMP/cwd"
	(cd "$T_TMP/cwd" && exec "$ENGPASS" "$@") >"$T_TMP/out" 2>"$T_TMP/err" </dev/null &
	pid=$!
	echo $pid >>"$T_TMP/pids"
}
fg() {
	bg "$@"
	RC=0
	wait $pid || RC=$?
}
# The priority of $LOOP in /proc/swaps, or "off".
prio() {
	awk -v d="$LOOP" '$1 == d { p = $5 } END { print (p == "" ? "off" : p) }' /proc/swaps
}
# until_true SECONDS COMMAND...: polls every 0.1 s.
until_true() {
	n=$(($1 * 10)); shift
	while [ $n -gt 0 ]; do
		"$@" && return 0
		sleep 0.1
		n=$((n - 1))
	done
	return 1
}
is() { [ "$(eval "$1")" = "$2" ]; }
no_cgroups() { [ -z "$(our_cgroups)" ]; }

# ---- refusals: no signature, a file system ----------------------------------
fg mem --ladder --sandbox 32M --sizes 0.5x --swap "dev:$LOOP" --no-sample
check "a device without a swap signature is refused (exit 2)" [ "$RC" = 2 ]
check "... saying --mkswap-ok would write one" grep -q "no swap signature; --mkswap-ok" "$T_TMP/err"
mkfs.ext2 -q -F "$LOOP" >/dev/null 2>&1
fg mem --ladder --sandbox 32M --sizes 0.5x --swap "dev:$LOOP" --mkswap-ok --no-sample
check "a device holding ext2 is refused, even with --mkswap-ok" [ "$RC" = 2 ]
check "... naming the file system found" grep -q "holds ext2/3/4" "$T_TMP/err"
check "... and the file system is still there" sh -c "blkid -p -o value -s TYPE '$LOOP' | grep -q ext2"
wipefs -a -q "$LOOP"
mkswap "$LOOP" >/dev/null

# ---- the same ladder on the swap file and on the loop "partition", swept ------
fg sweep "mem --ladder --sandbox 48M --sizes 0.5x,1.5x --no-sample" --swap "file:$SD,dev:$LOOP" --json --no-history
check "sweep over --swap file,dev exits 0" [ "$RC" = 0 ]
jqt "four rungs, all ok" '[.results[].status] == ["ok", "ok", "ok", "ok"]' "$T_TMP/out"
jqt "labelled: swap kind file, then device, with size and top priority" '[.results[].parameters.swap_kind] ==
	["file", "file", "device", "device"] and ([.results[].parameters.swap_priority] | unique) == ["32767"] and
	(.results[3].parameters.swap | test("^device " + "'"$LOOP"'" + ", 96.00 MiB, swapon priority 32767"))' "$T_TMP/out"
jqt "1.5x swapped out on both" '.results[1].metrics.swap_out_pages > 0 and .results[3].metrics.swap_out_pages > 0 and
	.results[3].parameters.swap_device_type == "partition"' "$T_TMP/out"
check "afterwards: the device is not swap (it was not before), no cgroup left" sh -c \
	"[ \"\$(awk -v d='$LOOP' '\$1 == d' /proc/swaps)\" = '' ] && [ -z \"\$(ls -A '$SD' | grep engpass-swap)\" ]"
until_true 10 no_cgroups
check "... and no sandbox cgroup" no_cgroups

# ---- a device that was swap keeps its priority; SIGKILL restores it ------------
swapon -p 7 "$LOOP"
fg mem --ladder --sandbox 32M --sizes 1.5x --swap "dev:$LOOP" --json --no-sample
jqt "an active device: raised to 32767, the old priority named" '.results[0].parameters | .swap_priority == "32767" and
	.swap_priority_before == "7" and (.swap | test("was active swap"))' "$T_TMP/out"
check "afterwards its priority is 7 again" is prio 7
bg mem --ladder --sandbox 32M --sizes 2x --order random --passes 50 --swap "dev:$LOOP" --quiet --no-sample
check "SIGKILL test: the device ran at 32767" until_true 20 is prio 32767
kill -KILL $pid
wait $pid 2>/dev/null || :
check "after SIGKILL: the guardian put priority 7 back" until_true 10 is prio 7
check "after SIGKILL: no sandbox cgroup" until_true 10 no_cgroups
swapoff "$LOOP"
bg mem --ladder --sandbox 32M --sizes 2x --order random --passes 50 --swap "dev:$LOOP" --quiet --no-sample
until_true 20 is prio 32767 || :
kill -KILL $pid
wait $pid 2>/dev/null || :
check "after SIGKILL: a device that was off is off again" until_true 10 is prio off

# ---- latency in a small box: memload swaps to the device ---------------------------
fg latency --sandbox 48M --swap "dev:$LOOP" --task audio --load memload --time 2s --warmup 1s --json --no-sample
check "latency --sandbox exits 0" [ "$RC" = 0 ]
jqt "the result names the sandbox limit and the device" '.results[0].parameters | (.sandbox | test("limit 48.00 MiB"))
	and .swap_kind == "device"' "$T_TMP/out"
jqt "memload is sized from the limit and swapped" '.results[0] | (.method["load memload"] |
	test("110 % of the sandbox limit")) and .metrics.swap_out_pages > 0 and .metrics.sandbox_limit_hits > 0' "$T_TMP/out"
check "afterwards the device is off again" is prio off

# ---- queue knobs on the loop device ----------------------------------------------------
fg disk "$LOOP" --workload rand-read --time 1s --nr-requests 4 --max-sectors 64 --write-cache off --json --no-sample
check "disk with --nr-requests, --max-sectors, --write-cache exits 0" [ "$RC" = 0 ]
jqt "each knob named with the value during and before" '.results[0].parameters | .nr_requests == "4 (was '"$OLD_NR"')"
	and .max_sectors_kb == "64 (was '"$OLD_MS"')" and .write_cache == "write through (was '"$OLD_WC"')"' "$T_TMP/out"
jqt "the method says where the write cache was set" '.results[0].method.tuning_write_cache |
	test("queue/write_cache.*kernel.s view only")' "$T_TMP/out"
check "afterwards all three are back" sh -c "[ \"\$(cat $Q/nr_requests)/\$(cat $Q/max_sectors_kb)/\$(cat $Q/write_cache)\" = '$OLD_NR/$OLD_MS/$OLD_WC' ]"
fg disk "$LOOP" -t --nr-requests 1000000 --no-sample
check "a value the kernel refuses: failed with the kernel's error" sh -c "[ $RC != 0 ] && grep -q 'kernel refused nr_requests.*Invalid argument' '$T_TMP/err'"
check "... and nr_requests is unchanged" is "cat $Q/nr_requests" "$OLD_NR"
if [ -d /dev/shm ] && [ "$(stat -f -c %T /dev/shm)" = tmpfs ]; then
	fg disk /dev/shm -t --nr-requests 4 --no-sample
	check "a target without a block device is refused (exit 2)" sh -c "[ $RC = 2 ] && grep -q 'need a target on a block device' '$T_TMP/err'"
else
	skip "a target without a block device is refused" "no tmpfs /dev/shm"
fi
other=$(tr -d '[]' <"$Q/scheduler" | tr ' ' '\n' | grep -v "^$OLD_SCHED\$" | grep . | head -1)
bg disk "$LOOP" --workload rand-read --time 30s --nr-requests 4 --write-cache off ${other:+--scheduler "$other"} --quiet --no-sample
check "SIGKILL test: nr_requests was 4" until_true 10 is "cat $Q/nr_requests" 4
kill -KILL $pid
wait $pid 2>/dev/null || :
check "after SIGKILL: the guardian restored nr_requests, write cache and scheduler" until_true 5 is \
	"echo \$(cat $Q/nr_requests)/\$(cat $Q/write_cache)/\$(sed 's/.*\[\(.*\)\].*/\1/' $Q/scheduler)" "$OLD_NR/$OLD_WC/$OLD_SCHED"

done_testing
