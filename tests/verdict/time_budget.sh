#!/bin/sh
# SPDX-License-Identifier: MIT
# Verdict injection (issue 34), the work that waits: processes watched with
# `engpass watch --pid` whose time goes to one known wait, each with a twin
# that spends it on the CPU instead and must not be named for that wait.
#   - dd writing with oflag=direct (one request in flight, blocked on the
#     disk): named "device latency" (or "device" when requests queue), the
#     budget's disk state holds most of its time; twin: a shell busy loop.
#   - cat reading a pipe that a slow writer feeds: "another process"; twin:
#     cat of /dev/zero into /dev/null.
#   - a python loop that sleeps 10 ms between short bursts: "own pacing";
#     twin: the same loop without the sleep.
#   - dd with oflag=direct to a loop device whose writes the process's
#     blkio cgroup throttles, watched with --disk: "io limit" (the twin is
#     the first case, unthrottled).
#   - buffered writes to an ext4 loop file system mounted -o sync: "sync
#     writes", the mount named; twin: the same without sync.
# Every budget must add up: its states sum to 100 % within 5, and its
# thread time is the watched threads' time (threads x the window) within 5 %.
. "$(dirname "$0")/lib.sh"
need_root "O_DIRECT writes to a scratch file, and /proc/PID/task/TID/syscall of other processes"

FIG='"time: \([.system.time_budget.states[]? | "\(.state) \(.what // "") \(.percent | floor) %"] | join(", "))"'
WATCH_OPTS="--time 2s $EP_OPTS"

# budget_adds_up FILE LABEL THREADS
budget_adds_up() {
	if jq -e --argjson n "$3" "$VT_RES | length > 0 and all(.system.time_budget as \$b | \$b != null and
		(([\$b.states[].percent] | add) - 100 | fabs) < 5 and
		((\$b.thread_seconds / (\$n * .system.duration_seconds)) - 1 | fabs) < 0.05)" "$1" >/dev/null 2>&1; then
		ok "$2: the budget adds up to the threads' time within 5 %"
	else
		not_ok "$2: the budget adds up to the threads' time within 5 %" \
			"got: $(jq -c "$VT_RES | map({d: .system.duration_seconds, b: .system.time_budget})" "$1" 2>/dev/null | cut -c1-600)"
	fi
}
# top_state FILE LABEL STATE MIN: the budget's STATE (all its entries) holds MIN % or more.
top_state() {
	if jq -e --arg s "$3" --argjson m "$4" "$VT_RES | length > 0 and all(
		([.system.time_budget.states[] | select(.state == \$s) | .percent] | add // 0) >= \$m)" "$1" >/dev/null 2>&1; then
		ok "$2: $3 holds $4 % or more of its time"
	else
		not_ok "$2: $3 holds $4 % or more of its time" "got: $(jq -r "${VT_RES}[0] | $FIG" "$1" 2>/dev/null)"
	fi
}
# watch_case FILE LABEL WHAT PID [OPTS...]
watch_case() {
	wf=$1 wl=$2 ww=$3 wp=$4
	shift 4
	# shellcheck disable=SC2086
	ep "$wf" "$ENGPASS" watch --pid "$wp" "$@" $WATCH_OPTS
	matrix "$ww" "engpass watch --pid PID $* --time 2s" "$FIG" "$wf"
	expect_ran "$wf" "$wl"
}

# --- the disk: dd with O_DIRECT ------------------------------------------
SCR=$(mktemp -d /var/tmp/engpass-vt-tb.XXXXXX)
dev=$(df --output=source "$SCR" | tail -1)
dev=$(basename "$(readlink -f "$dev")")
# The whole disk holding it, as diskstats names it (vda for vda1).
[ -e "/sys/class/block/$dev/partition" ] && dev=$(basename "$(readlink -f "/sys/class/block/$dev/..")")
if dd if=/dev/zero of="$SCR/probe" bs=4k count=1 oflag=direct 2>/dev/null; then
	bg "$T_TMP/dd.out" dd if=/dev/zero of="$SCR/dd.bin" bs=1M count=3000 oflag=direct
	ddp=$BG_PID
	sleep 0.3
	watch_case "$T_TMP/dd.json" "dd oflag=direct" "dd if=/dev/zero bs=1M oflag=direct" "$ddp" --disk "$dev"
	stop_pid "$ddp"
	if jq -e "$VT_RES | all(.verdict.resource == \"device latency\" or .verdict.resource == \"device\")" \
		"$T_TMP/dd.json" >/dev/null 2>&1; then
		ok "dd oflag=direct: verdict names the device (device latency or device)"
	else
		not_ok "dd oflag=direct: verdict names the device (device latency or device)" \
			"got: $(jq -r "${VT_RES}[0].verdict | \"\(.resource): \(.evidence)\"" "$T_TMP/dd.json" 2>/dev/null)"
	fi
	top_state "$T_TMP/dd.json" "dd oflag=direct" disk 50
	budget_adds_up "$T_TMP/dd.json" "dd oflag=direct" 1
else
	for n in "dd oflag=direct: ran" "dd oflag=direct: verdict names the device" "dd oflag=direct: disk" \
		"dd oflag=direct: the budget adds up"; do
		skip "$n" "O_DIRECT is refused on $SCR"
	done
fi
rm -rf "$SCR"

# --- the disk's own throttle, for a watched process -------------------------
# dd writing with O_DIRECT to a loop device, in a blkio cgroup that throttles
# that device's writes to 2 MiB/s: watch --disk looks the throttle up for the
# process's cgroup and names it (before: "none observed").
if command -v losetup >/dev/null 2>&1 && cg_new blkio tb && [ -e "$CG/blkio.throttle.write_bps_device" ]; then
	IMGDIR=$(mktemp -d /var/tmp/engpass-vt-tb.XXXXXX)
	truncate -s 64M "$IMGDIR/loop.img"
	if LOOP=$(losetup --find --show "$IMGDIR/loop.img" 2>/dev/null); then
		VT_LOOPS="$VT_LOOPS $LOOP"
		MM=$(lsblk -dno MAJ:MIN "$LOOP" 2>/dev/null | tr -d ' ')
		cg_set "$CG" blkio.throttle.write_bps_device "$MM 2097152"
		bg "$T_TMP/ddt.out" cg_exec "$CG" dd if=/dev/zero of="$LOOP" bs=64k count=2000 oflag=direct
		ddt=$BG_PID
		sleep 0.3
		ddp=$(pgrep -P "$ddt" -x dd | head -1)
		[ -n "$ddp" ] || ddp=$ddt
		watch_case "$T_TMP/ddt.json" "dd oflag=direct, throttled" "blkio.throttle.write_bps_device $MM 2 MiB/s" "$ddp" \
			--disk "$(basename "$LOOP")"
		stop_pid "$ddt"
		losetup -d "$LOOP" 2>/dev/null
		expect_named "io limit" "$T_TMP/ddt.json" "dd oflag=direct, throttled"
		budget_adds_up "$T_TMP/ddt.json" "dd oflag=direct, throttled" 1
	else
		for n in ran "verdict names io limit" "the budget adds up"; do skip "dd oflag=direct, throttled: $n" "losetup failed"; done
	fi
	rm -rf "$IMGDIR"
else
	for n in ran "verdict names io limit" "the budget adds up"; do
		skip "dd oflag=direct, throttled: $n" "no loop devices or blkio throttle files here"
	done
fi

# --- a file system mounted sync ---------------------------------------------
# A shell loop of buffered dd writes (no oflag) to an ext4 loop file system:
# mounted -o sync every write waits for the device, and the verdict names
# "sync writes" with the mount as the cause; the twin, the same writes to
# another such file system mounted without sync, must not be "sync writes".
# Each case has its own image and loop device: a file system still busy
# when unmounted (lazily) keeps its super block, and with it the sync flag,
# for the next mount of the same device.
if command -v losetup >/dev/null 2>&1 && command -v mkfs.ext4 >/dev/null 2>&1; then
	SYD=$(mktemp -d /var/tmp/engpass-vt-sync.XXXXXX)
	for mode in sync async; do
		if [ "$mode" = sync ]; then mo=sync; lab="buffered writes, mounted sync"; else mo=defaults; lab="buffered writes, not sync (twin)"; fi
		truncate -s 128M "$SYD/$mode.img"
		mkdir "$SYD/$mode"
		if ! mkfs.ext4 -q -F "$SYD/$mode.img" >/dev/null 2>&1 || ! LOOP=$(losetup --find --show "$SYD/$mode.img" 2>/dev/null); then
			skip "$lab: ran" "mkfs.ext4 or losetup failed"
			continue
		fi
		VT_LOOPS="$VT_LOOPS $LOOP"
		if ! mount -o "$mo" "$LOOP" "$SYD/$mode" 2>/dev/null; then
			skip "$lab: ran" "mount -o $mo of an ext4 loop file system failed"
			continue
		fi
		VT_MOUNTS="$SYD/$mode $VT_MOUNTS"
		# The writer stops at the end of its current dd once the stop file is there.
		bg "$T_TMP/sync-$mode.out" sh -c "while [ ! -e '$SYD/$mode.stop' ]; do dd if=/dev/zero of='$SYD/$mode/f' bs=64k count=256 conv=notrunc 2>/dev/null; done"
		sp=$BG_PID
		sleep 0.3
		watch_case "$T_TMP/sync-$mode.json" "$lab" "mount -o $mo, dd bs=64k (buffered)" "$sp" --disk "$(basename "$LOOP")"
		touch "$SYD/$mode.stop"
		n=0
		while kill -0 "$sp" 2>/dev/null && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
		pkill -P "$sp" 2>/dev/null
		stop_pid "$sp"
		umount "$SYD/$mode" 2>/dev/null || umount -l "$SYD/$mode"
		losetup -d "$LOOP" 2>/dev/null
		if [ "$mode" = sync ]; then
			expect_named "sync writes" "$T_TMP/sync-$mode.json" "$lab"
			if jq -e "$VT_RES | all(.verdict.evidence | test(\"mounted sync\"))" "$T_TMP/sync-$mode.json" >/dev/null 2>&1; then
				ok "$lab: the evidence names the sync mount"
			else
				not_ok "$lab: the evidence names the sync mount" \
					"got: $(jq -r "${VT_RES}[0].verdict.evidence" "$T_TMP/sync-$mode.json" 2>/dev/null)"
			fi
		else
			expect_not_named "sync writes" "$T_TMP/sync-$mode.json" "$lab"
		fi
	done
	rm -rf "$SYD"
else
	skip "buffered writes, mounted sync: ran" "no losetup or mkfs.ext4 here"
fi

bg "$T_TMP/spin.out" sh -c 'while :; do :; done'
spin=$BG_PID
watch_case "$T_TMP/spin.json" "busy loop (twin)" "none (twin: a shell busy loop)" "$spin" --disk "$dev"
stop_pid "$spin"
expect_not_named "device latency" "$T_TMP/spin.json" "busy loop (twin)"
expect_not_named "device" "$T_TMP/spin.json" "busy loop (twin)"
top_state "$T_TMP/spin.json" "busy loop (twin)" "on CPU" 30
budget_adds_up "$T_TMP/spin.json" "busy loop (twin)" 1

# --- another process: cat reading a slow pipe ------------------------------
bg "$T_TMP/pipe.out" sh -c 'while sleep 0.05; do echo x; done | cat >/dev/null'
pp=$BG_PID
sleep 0.3
catp=$(pgrep -P "$pp" -x cat | head -1)
if [ -n "$catp" ]; then
	watch_case "$T_TMP/pipe.json" "cat of a slow pipe" "a writer sending a line every 50 ms" "$catp"
	expect_named "another process" "$T_TMP/pipe.json" "cat of a slow pipe"
	top_state "$T_TMP/pipe.json" "cat of a slow pipe" ipc 50
	budget_adds_up "$T_TMP/pipe.json" "cat of a slow pipe" 1
else
	for n in ran "verdict names another process" ipc "the budget adds up"; do skip "cat of a slow pipe: $n" "no cat process found"; done
fi
pkill -P "$pp" 2>/dev/null
stop_pid "$pp"

bg "$T_TMP/zero.out" sh -c 'exec cat /dev/zero >/dev/null'
zp=$BG_PID
sleep 0.2
watch_case "$T_TMP/zero.json" "cat of /dev/zero (twin)" "none (twin: cat /dev/zero)" "$zp"
stop_pid "$zp"
expect_not_named "another process" "$T_TMP/zero.json" "cat of /dev/zero (twin)"
budget_adds_up "$T_TMP/zero.json" "cat of /dev/zero (twin)" 1

# --- own pacing: a loop that sleeps ----------------------------------------
if command -v python3 >/dev/null 2>&1; then
	bg "$T_TMP/paced.out" python3 -c 'import time
while True:
    sum(range(2000)); time.sleep(0.01)'
	pyp=$BG_PID
	sleep 0.3
	watch_case "$T_TMP/paced.json" "python loop sleeping 10 ms" "time.sleep(0.01) between bursts" "$pyp"
	stop_pid "$pyp"
	expect_named "own pacing" "$T_TMP/paced.json" "python loop sleeping 10 ms"
	budget_adds_up "$T_TMP/paced.json" "python loop sleeping 10 ms" 1
	bg "$T_TMP/unpaced.out" python3 -c 'while True:
    sum(range(2000))'
	pyp=$BG_PID
	sleep 0.3
	watch_case "$T_TMP/unpaced.json" "python loop (twin)" "none (twin: no sleep)" "$pyp"
	stop_pid "$pyp"
	expect_not_named "own pacing" "$T_TMP/unpaced.json" "python loop (twin)"
else
	for n in "python loop sleeping 10 ms: ran" "python loop sleeping 10 ms: verdict names own pacing" \
		"python loop sleeping 10 ms: the budget adds up" "python loop (twin): ran" "python loop (twin): not own pacing"; do
		skip "$n" "python3 is not installed"
	done
fi
# --- unreadable: another user's process ------------------------------------
# engpass as nobody watching root's sleeping process: /proc/PID/task/TID/syscall
# is refused, so the budget keeps the state letters and says "syscall
# unreadable" (unknown), never a wrong state, and no wait is named from it.
if command -v setpriv >/dev/null 2>&1; then
	bg "$T_TMP/rootsleep.out" sleep 30
	rs=$BG_PID
	# shellcheck disable=SC2086
	ep "$T_TMP/unread.json" setpriv --reuid=nobody --regid=nogroup --clear-groups "$ENGPASS" watch --pid "$rs" \
		--time 1s --json --no-history -q
	matrix "none (another user's process: syscall unreadable)" "setpriv nobody engpass watch --pid PID --time 1s" "$FIG" \
		"$T_TMP/unread.json"
	stop_pid "$rs"
	expect_ran "$T_TMP/unread.json" "another user's process"
	if jq -e "$VT_RES | length > 0 and all(.system.time_budget.states | any(.state == \"unknown\" and
		.what == \"syscall unreadable\") and all(.state != \"own sleep\"))" "$T_TMP/unread.json" >/dev/null 2>&1; then
		ok "another user's process: its waits are unknown (syscall unreadable), not a guessed state"
	else
		not_ok "another user's process: its waits are unknown (syscall unreadable), not a guessed state" \
			"got: $(jq -c "${VT_RES}[0].system.time_budget.states" "$T_TMP/unread.json" 2>/dev/null)"
	fi
	expect_not_named "own pacing" "$T_TMP/unread.json" "another user's process"
else
	for n in ran "its waits are unknown" "verdict does not name own pacing"; do
		skip "another user's process: $n" "setpriv (util-linux) is not installed"
	done
fi
done_testing
