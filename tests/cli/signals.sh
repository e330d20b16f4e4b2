#!/bin/bash
# SPDX-License-Identifier: MIT
# Fault test (issue 10): SIGINT and SIGTERM at a random moment (0.1..1.5 s
# in) of every command, twice each, one signal each time. Each must end
# within 20 s with 128 + signal (or 0 where the signal is the normal end:
# watch, exporter, a net server), and leave nothing behind: the state that
# engpass can create is listed before and after and must be the same --
# files in the command's working directory, orphaned temp files, swap
# files and memory cgroups (see orphans()), and processes of this binary.
#
# bash, for $RANDOM. Runs as root or not (the sandboxed swap ladder only as
# root). Every process is killed by PID in the trap.
. "$(dirname "$0")/lib.sh"
not_emulated "every command under qemu takes too long to reach the moment of the signal"
. "$(dirname "$0")/netlib.sh"

PIDS=""
cleanup() {
	for p in $PIDS; do kill -9 "$p" 2>/dev/null; done
	rm -rf "$T_TMP"
}
trap cleanup EXIT
trap 'cleanup; exit 1' INT TERM

CWD="$T_TMP/cwd"
mkdir -p "$CWD"
BIN=$(readlink -f "$ENGPASS")

# What engpass can leave behind, as far as it is orphaned: files in the
# command's working directory, and every temp file, swap file or memory
# cgroup engpass names after its pid (.engpass-PREFIX-PID-*,
# .engpass-swap-PID-*, engpass-mem-PID-*) whose process is gone. Other
# engpass processes on the machine (another test run) own theirs while
# they live, so they never show up here. engpass creates no network
# namespaces; the tests that do remove them by name.
orphans() {
	{
		ls -A /var/tmp /tmp 2>/dev/null
		tail -n +2 /proc/swaps | awk '{ print $1 }'
		find /sys/fs/cgroup -maxdepth 3 -name 'engpass-mem-*' 2>/dev/null
	} | sed -n 's/.*engpass-\(swap\|mem\|[a-z]*\)-\([0-9][0-9]*\)-.*/\2 &/p' | while read -r p entry; do
		kill -0 "$p" 2>/dev/null || echo "$entry"
	done | sort -u
}
state() {
	echo "cwd: $(ls -A "$CWD" | tr '\n' ' ')"
	echo "orphans: $(orphans | tr '\n' ' ')"
}

# A server for the net client runs throughout; it is not part of the state.
new_port
SRVPORT=$PORT
"$ENGPASS" net server --bind 127.0.0.1 --port "$SRVPORT" --idle-timeout 300s --no-history -q >/dev/null 2>&1 </dev/null &
SRV=$!
PIDS="$PIDS $SRV"
wait_listen "$SRVPORT"
HISTDB="$T_TMP/h.db"
"$ENGPASS" null --db "$HISTDB" -q >/dev/null 2>&1

# try NAME OKSTATUS ARGS...: runs engpass ARGS in $CWD, signals it, checks.
try() {
	name=$1 okst=$2
	shift 2
	for sig in INT TERM; do
		state >"$T_TMP/before"
		pgrep -f "^$BIN" | grep -vx "$SRV" | sort >"$T_TMP/procs.before"
		(cd "$CWD" && exec env --default-signal=INT "$ENGPASS" "$@") >"$T_TMP/out" 2>"$T_TMP/err" </dev/null &
		pid=$!
		sleep "$((RANDOM % 2)).$((RANDOM % 10))$((RANDOM % 10))"
		[ "$(awk -v x="$RANDOM" 'BEGIN { print (x % 15 == 0) }')" = 1 ] && sleep 0.1
		t0=$(date +%s.%N)
		kill -"$sig" "$pid" 2>/dev/null
		n=0
		while kill -0 "$pid" 2>/dev/null && [ $n -lt 200 ]; do sleep 0.1; n=$((n + 1)); done
		if kill -0 "$pid" 2>/dev/null; then
			kill -9 "$pid"
			not_ok "$name, SIG$sig: ends within 20 s"
			wait "$pid" 2>/dev/null
			continue
		fi
		rc=0
		wait "$pid" || rc=$?
		want=$((128 + $([ $sig = INT ] && echo 2 || echo 15)))
		case " $want $okst " in
		*" $rc "*) ok "$name, SIG$sig: ends with $rc ($(awk -v t="$t0" -v n="$(date +%s.%N)" 'BEGIN { printf "%.2f", n - t }') s after the signal)" ;;
		*) not_ok "$name, SIG$sig: ends with $want${okst:+ or $okst}, not $rc" "$(tail -3 "$T_TMP/err")" ;;
		esac
		# children of a stopped engpass must be gone too, at once or very soon
		n=0
		while [ $n -lt 30 ]; do
			pgrep -f "^$BIN" | grep -vx "$SRV" | sort >"$T_TMP/procs.after"
			cmp -s "$T_TMP/procs.before" "$T_TMP/procs.after" && break
			sleep 0.1
			n=$((n + 1))
		done
		state >"$T_TMP/after"
		if cmp -s "$T_TMP/before" "$T_TMP/after" && cmp -s "$T_TMP/procs.before" "$T_TMP/procs.after"; then
			ok "$name, SIG$sig: nothing left behind"
		else
			not_ok "$name, SIG$sig: nothing left behind" "$(diff "$T_TMP/before" "$T_TMP/after")" \
				"processes: $(cat "$T_TMP/procs.after" | tr '\n' ' ')"
			rm -rf "${CWD:?}"/* "${CWD:?}"/.[!.]* 2>/dev/null
		fi
	done
}

try "disk seq-write" "" disk --workload seq-write --size 64M --time 5s --no-history
try "disk torrent" "" disk --workload torrent --size 64M --verify-pieces --rate 20M --no-history
try "disk -T -t" "" disk -T -t --size 64M --no-history
try "mem --bandwidth" "" mem --bandwidth --passes 40 --no-history
try "latency" "" latency --task audio --load burn --time 5s --no-history
try "cpu" "" cpu --cipher all --time 5s --no-history
try "net client" "" net client 127.0.0.1 --port "$SRVPORT" --time 5s --no-history
try "net client --mode rr" "" net client 127.0.0.1 --port "$SRVPORT" --mode rr --time 5s --no-history
new_port
try "net server" "0" net server --bind 127.0.0.1 --port "$PORT" --no-history
try "watch" "0" watch --time 10s --no-history
try "null" "" null --time 5s --no-history
try "sweep" "" sweep 'disk --workload seq-write --size 16M --time 1s' --bs 4K,64K,1M --no-history
try "quick" "" quick --skip ladder --no-report --no-history
new_port
try "exporter" "0" exporter --listen "127.0.0.1:$PORT" --db "$HISTDB"
SWAPFS=$(stat -f -c %T /var/tmp 2>/dev/null)
if [ "$(id -u)" != 0 ] || [ ! -d /sys/fs/cgroup/memory ]; then
	skip "mem --ladder --sandbox: signals" "needs root and the cgroup v1 memory controller"
elif [ "$SWAPFS" = overlayfs ] || [ "$SWAPFS" = tmpfs ]; then
	skip "mem --ladder --sandbox: signals" "/var/tmp is on $SWAPFS, which cannot hold a swap file"
else
	try "mem --ladder --sandbox" "" mem --ladder --sandbox 64M --swapfile 256M --sizes 0.5x,2x,3x --no-history
fi
kill "$SRV"
wait "$SRV" 2>/dev/null
done_testing
