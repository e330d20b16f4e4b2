#!/bin/sh
# SPDX-License-Identifier: MIT
# Issue 36, the sandbox and its swap (root; skipped otherwise):
#  - latency --sandbox 64M --swap dev:LOOP --load memload, run 3 times from a
#    parent memory cgroup whose memory.swappiness is 0 (as containers and
#    service managers leave it; a cgroup v1 child inherits it): before the
#    fix the sandbox inherited 0, never swapped, and memload was OOM-killed
#    in every run. Now the sandbox takes the box's vm.swappiness, says so,
#    and memload swaps to the device and lasts each cell (a worker the
#    cgroup's reclaim still gives up on is restarted and counted).
#  - mem --ladder --sandbox without --swap gets its own swap file, as
#    latency's sandbox does (seed 003 compares the two), and says so.
# Cleaned up by id in the trap: the parent cgroup and the sandboxes below
# it, the loop device, its image, any swap file left in the test's directory.
. "$ENGPASS_TESTS/cli/lib.sh"

why=""
MEMCG=""
if [ "$(id -u)" != 0 ]; then
	why="not root"
elif ! command -v losetup >/dev/null || ! command -v mkswap >/dev/null || ! command -v jq >/dev/null; then
	why="losetup, mkswap or jq missing"
else
	MEMCG=$(awk -F: '$2 == "memory" { print $3 }' /proc/self/cgroup)
	MNT=$(awk '$9 == "cgroup" && $NF ~ /(^|,)memory(,|$)/ { print $5; exit }' /proc/self/mountinfo)
	[ -n "$MEMCG" ] && [ -n "$MNT" ] && [ -e "$MNT$MEMCG/memory.swappiness" ] ||
		why="no cgroup v1 memory controller (memory.swappiness is v1's)"
fi
SD=""
if [ -z "$why" ]; then
	SD=$(mktemp -d /var/tmp/engpass-sbswap.XXXXXX 2>/dev/null) || why="cannot make a directory in /var/tmp"
fi
case "$([ -z "$why" ] && stat -f -c %T "$SD")" in
tmpfs|overlayfs|btrfs|nfs|fuseblk) why="/var/tmp cannot hold a swap file or loop image here" ;;
esac
LOOP=""
if [ -z "$why" ]; then
	truncate -s 192M "$SD/img" && LOOP=$(losetup -f --show "$SD/img" 2>/dev/null) || LOOP=""
	[ -n "$LOOP" ] && mkswap "$LOOP" >/dev/null 2>&1 || why="cannot attach a loop device"
fi
if [ -n "$why" ]; then
	skip "latency memload in a sandbox below a swappiness-0 parent (3 runs)" "$why"
	skip "mem --ladder --sandbox has its own swap file by default" "$why"
	[ -n "$LOOP" ] && losetup -d "$LOOP"
	[ -n "$SD" ] && rm -rf "$SD"
	done_testing
	exit $?
fi
P="$MNT$MEMCG/engpass-sbswap-$$"
cleanup() {
	for d in "$P"/engpass-mem-* "$P"; do
		[ -d "$d" ] || continue
		while read -r p; do kill -9 "$p" 2>/dev/null || :; done <"$d/cgroup.procs"
		n=0
		while ! rmdir "$d" 2>/dev/null && [ $n -lt 50 ]; do sleep 0.1; n=$((n + 1)); done
	done
	swapoff "$LOOP" 2>/dev/null || :
	for f in "$SD"/.engpass-swap-*; do [ -e "$f" ] && swapoff "$f" 2>/dev/null; done
	losetup -d "$LOOP" 2>/dev/null || :
	rm -rf "$SD" "$T_TMP"
}
trap cleanup EXIT
trap 'cleanup; exit 1' INT TERM
mkdir "$P" && echo 0 >"$P/memory.swappiness"

# in_parent CMD...: runs CMD inside the swappiness-0 parent cgroup.
in_parent() {
	sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$P" "$@"
}

BOX=$(cat /proc/sys/vm/swappiness)
for i in 1 2 3; do
	RC=0
	in_parent "$ENGPASS" latency --sandbox 64M --swap "dev:$LOOP" --task audio --load memload --time 2s --warmup 1s \
		--json --no-history --no-sample >"$T_TMP/lat$i.json" 2>"$T_TMP/lat$i.err" </dev/null || RC=$?
	check "run $i: latency --sandbox 64M --swap dev: --load memload exits 0" [ "$RC" = 0 ]
	jqt "run $i: the sandbox took the box's vm.swappiness $BOX over the parent's 0, and says so" \
		'.results[0].parameters.sandbox_swappiness | test("^'"$BOX"' .*inherited 0 from its parent")' "$T_TMP/lat$i.json"
	jqt "run $i: memload swapped to the device and lasted the cell" '.results[0] |
		.metrics.swap_out_pages > 0 and ([.notes[] | select(test("memload process died"))] | length == 0)' "$T_TMP/lat$i.json"
	echo "# run $i: $(jq -r '.results[0].metrics | "\(.swap_out_pages) pages out, memload workers OOM-killed and restarted: \(.load_memload_killed)"' "$T_TMP/lat$i.json" 2>/dev/null)"
done

RC=0
"$ENGPASS" mem --ladder --sandbox 32M --sizes 1.5x --swapdir "$SD" --json --no-history --no-sample \
	>"$T_TMP/mem.json" 2>"$T_TMP/mem.err" </dev/null || RC=$?
# --swapdir alone used to need --swapfile: the default own file goes there.
check "mem --ladder --sandbox without --swap exits 0" [ "$RC" = 0 ]
jqt "... with its own swap file of twice the limit, named, and the 1.5x rung ran through it" '.results[0] |
	.status == "ok" and .parameters.swap_kind == "file" and .parameters.swap_size_bytes == "67108864" and
	.metrics.swap_out_pages > 0' "$T_TMP/mem.json"
check "... and no swap file of ours is left" sh -c "[ -z \"\$(ls -A '$SD' | grep engpass-swap)\" ]"

done_testing
