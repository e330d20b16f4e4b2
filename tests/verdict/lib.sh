# SPDX-License-Identifier: MIT
# Shared helpers of the verdict injection tests (issue #18): each test sets
# a limit up FOR REAL (cgroup v1 quota, cpuset, blkio throttle, memory
# limit, tbf shaper, server delay, a pinned CPU hog, --bitrate), runs one
# engpass step under it and its twin without it, prints one matrix line
# per run and asserts the verdict names the limit (expect_named) or does
# not (expect_not_named).
#
# Sourced after nothing else: it sources tests/cli/lib.sh (TAP helpers,
# $ENGPASS, $T_TMP) and replaces its EXIT trap with vt_cleanup, which
# removes everything registered here, by name or id, also on failure:
# background processes (VT_PIDS), cgroups (VT_CGROUPS), mounts
# (VT_MOUNTS), loop devices (VT_LOOPS), swap files (VT_SWAPS), network
# namespaces (VT_NETNS), then $T_TMP. Every name carries the test's PID
# ($$) so parallel runs do not collide.
VT_DIR=$(cd "$(dirname "$0")" && pwd)
. "$VT_DIR/../cli/lib.sh"
. "$VT_DIR/../cli/netlib.sh"
not_emulated "limits are injected with cgroups, loop devices, swap and network namespaces"

VT_ID="engpass-vt-$$"
VT_PIDS=""
VT_CGROUPS=""
VT_MOUNTS=""
VT_LOOPS=""
VT_SWAPS=""
VT_NETNS=""

vt_cleanup() {
	for p in $VT_PIDS; do kill "$p" 2>/dev/null; done
	for p in $VT_PIDS; do wait "$p" 2>/dev/null; done
	# Newest first: a cgroup's processes (ours by construction) are
	# killed, then the directory goes.
	for d in $VT_CGROUPS; do
		[ -d "$d" ] || continue
		if [ -r "$d/cgroup.procs" ]; then
			while read -r p; do kill -9 "$p" 2>/dev/null; done <"$d/cgroup.procs"
		fi
		n=0
		while ! rmdir "$d" 2>/dev/null && [ $n -lt 50 ]; do sleep 0.1; n=$((n + 1)); done
		[ -d "$d" ] && echo "# cleanup: cgroup $d is left" >&2
	done
	# Mount points are the test's own mktemp directories, never inside
	# $T_TMP (its rm -rf must not reach into a mounted cgroup tree): each
	# is unmounted, then its empty directory removed.
	for m in $VT_MOUNTS; do
		if umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null; then
			rmdir "$m" 2>/dev/null
		else
			echo "# cleanup: cannot unmount $m" >&2
		fi
	done
	for l in $VT_LOOPS; do losetup -d "$l" 2>/dev/null; done
	for s in $VT_SWAPS; do
		swapoff "$s" 2>/dev/null
		rm -f "$s"
	done
	for n in $VT_NETNS; do ip netns del "$n" 2>/dev/null; done
	rm -rf "$T_TMP"
}
trap vt_cleanup EXIT
# PIPE too: a reader that stops early (| head) must not leave a cgroup behind.
trap 'vt_cleanup; trap - EXIT; exit 1' INT TERM HUP PIPE

# vt_skip_all REASON: the whole script is skipped, saying why.
vt_skip_all() {
	echo "1..0 # SKIP $1"
	exit 0
}
# need_root WHAT: skips the whole script unless run as root.
need_root() {
	[ "$(id -u)" = 0 ] || vt_skip_all "needs root ($1)"
}
# need_cmd CMD...: skips the whole script when a command is missing.
need_cmd() {
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 || vt_skip_all "$c is not installed"
	done
}
# bg OUT CMD...: starts CMD in the background, its output (both streams)
# to OUT, registered for the trap; $BG_PID.
bg() {
	_bo=$1
	shift
	"$@" >"$_bo" 2>&1 </dev/null &
	BG_PID=$!
	VT_PIDS="$VT_PIDS $BG_PID"
}
# stop_pid PID: kills one process we started and waits for it.
stop_pid() {
	kill "$1" 2>/dev/null
	wait "$1" 2>/dev/null
	_np=""
	for p in $VT_PIDS; do [ "$p" = "$1" ] || _np="$_np $p"; done
	VT_PIDS=$_np
}

# --- cgroup v1 -----------------------------------------------------------
# cg_v1_mount CTRL: the mount point of the v1 hierarchy holding CTRL
# ("cpu", "cpuset", "memory", "blkio"), from /proc/self/mountinfo; empty
# when no v1 hierarchy has it.
cg_v1_mount() {
	awk -v c="$1" '{
		for (i = 7; i <= NF && $i != "-"; i++) ;
		if ($(i + 1) != "cgroup") next
		n = split($(i + 3), o, ",")
		for (j = 1; j <= n; j++) if (o[j] == c) { print $4 " " $5; exit }
	}' /proc/self/mountinfo
}
# cg_v1_parent CTRL: this process's own cgroup directory of CTRL (children
# are made there, as engpass's own mem sandbox does); empty when none.
cg_v1_parent() {
	_m=$(cg_v1_mount "$1")
	[ -n "$_m" ] || return 1
	_root=${_m%% *}
	_point=${_m#* }
	_path=$(awk -F: -v c="$1" '{ n = split($2, o, ","); for (j = 1; j <= n; j++) if (o[j] == c) { print $3; exit } }' /proc/self/cgroup)
	[ -n "$_path" ] || return 1
	[ "$_root" != / ] && _path=${_path#"$_root"}
	echo "$_point$_path" | sed 's#/*$##'
}
# cg_new CTRL NAME: creates the v1 cgroup $VT_ID-NAME of CTRL below our own,
# registered for the trap; $CG is its directory. cpuset children get the
# parent's cpus and mems (a cpuset without them takes no process).
# Returns 1 with $CG_WHY when the controller is missing or mkdir fails.
cg_new() {
	CG=""
	CG_WHY=""
	_p=$(cg_v1_parent "$1") || { CG_WHY="no cgroup v1 hierarchy with the $1 controller"; return 1; }
	[ -d "$_p" ] || { CG_WHY="$1 cgroup $_p not visible"; return 1; }
	if ! mkdir "$_p/$VT_ID-$2" 2>"$T_TMP/cg.err"; then
		CG_WHY="cannot create a $1 cgroup in $_p: $(head -1 "$T_TMP/cg.err")"
		return 1
	fi
	CG="$_p/$VT_ID-$2"
	VT_CGROUPS="$CG $VT_CGROUPS"
	if [ "$1" = cpuset ]; then
		cat "$_p/cpuset.cpus" >"$CG/cpuset.cpus" && cat "$_p/cpuset.mems" >"$CG/cpuset.mems" ||
			{ CG_WHY="cannot copy cpuset.cpus/mems"; return 1; }
	fi
	return 0
}
# cg_set DIR FILE VALUE: writes VALUE to DIR/FILE; 1 with $CG_WHY on failure.
cg_set() {
	if ! echo "$3" 2>"$T_TMP/cg.err" >"$1/$2"; then
		CG_WHY="cannot write '$3' to $2: $(head -1 "$T_TMP/cg.err")"
		return 1
	fi
}
# cg_exec "DIR..." CMD...: runs CMD inside each cgroup of the list (one per
# hierarchy), exec'd by the shell that joined them.
cg_exec() {
	_dirs=$1
	shift
	sh -c 'for d in $0; do echo $$ >"$d/cgroup.procs" || exit 125; done; exec "$@"' "$_dirs" "$@"
}
# cg_remove DIR: removes one of our cgroups now (it must be empty).
cg_remove() {
	rmdir "$1" 2>/dev/null
	_nc=""
	for d in $VT_CGROUPS; do [ "$d" = "$1" ] || _nc="$_nc $d"; done
	VT_CGROUPS=$_nc
}

# --- running engpass and reading its verdict -----------------------------
# ep OUT CMD...: runs CMD (engpass or a wrapper around it) from an empty
# directory, stdout to OUT, stderr to OUT.err; $RC, $SECS (wall time).
ep() {
	_out=$1
	shift
	mkdir -p "$T_TMP/cwd"
	_t0=$(date +%s.%N)
	RC=0
	(cd "$T_TMP/cwd" && "$@") >"$_out" 2>"$_out.err" </dev/null || RC=$?
	SECS=$(awk -v a="$_t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
}
# Measured results only: a skipped cipher or rung is not judged (its
# verdict, where it has one, is "unknown").
VT_RES='[.results[] | select(.status != "skipped")]'
# matrix LIMIT COMMAND FIGURE_JQ FILE: one line per result of FILE:
#   # matrix | limit | command | figure | verdict.resource | evidence | secs
# FIGURE_JQ is a jq expression on one result giving the headline figure.
matrix() {
	if [ ! -s "$4" ]; then
		echo "# matrix | $1 | $2 | (no output, rc $RC: $(head -1 "$4.err" 2>/dev/null)) | - | - | ${SECS}s"
		return
	fi
	jq -r --arg l "$1" --arg c "$2" --arg s "$SECS" "${VT_RES}[] |
		\"# matrix | \(\$l) | \(\$c) | \(($3) // \"?\") | \(.verdict.resource) | \(.verdict.evidence) | \(\$s)s\"" \
		"$4" 2>/dev/null || echo "# matrix | $1 | $2 | (unreadable JSON) | - | - | ${SECS}s"
	jq -r "${VT_RES}[] | .verdict.candidates // [] | .[] |
		\"#   candidate \(.resource) share \(.share) -- \(.evidence)\"" "$4" 2>/dev/null
	jq -r "${VT_RES}[] | .verdict.next_step // empty | \"#   next step: \(.)\"" "$4" 2>/dev/null
}
# expect_named RESOURCE FILE LABEL: every measured result's verdict.resource
# is RESOURCE (and there is at least one).
expect_named() {
	if [ -s "$2" ] && jq -e --arg r "$1" "$VT_RES | length > 0 and all(.verdict.resource == \$r)" "$2" >/dev/null 2>&1; then
		ok "$3: verdict names $1"
	else
		not_ok "$3: verdict names $1" \
			"got: $(jq -r "$VT_RES | map(.verdict.resource) | join(\", \")" "$2" 2>/dev/null) (rc $RC)"
	fi
}
# expect_not_named RESOURCE FILE LABEL: no measured result's verdict.resource
# is RESOURCE, and no candidate with that resource has share >= 0.8.
expect_not_named() {
	if [ -s "$2" ] && jq -e --arg r "$1" "$VT_RES | length > 0 and all(
		.verdict.resource != \$r and
		all((.verdict.candidates // [])[]; .resource != \$r or ((.share // 0) < 0.8)))" "$2" >/dev/null 2>&1; then
		ok "$3: verdict does not name $1"
	else
		not_ok "$3: verdict does not name $1" \
			"got: $(jq -c "$VT_RES | map({resource: .verdict.resource, candidates: .verdict.candidates})" "$2" 2>/dev/null) (rc $RC)"
	fi
}
# expect_ran FILE LABEL: the run exited 0 and measured something (so a
# broken injection is not mistaken for a verdict).
expect_ran() {
	if [ "$RC" = 0 ] && [ -s "$1" ] && jq -e "$VT_RES | length > 0" "$1" >/dev/null 2>&1; then
		ok "$2: ran"
	else
		not_ok "$2: ran" "rc $RC" "$(head -3 "$1.err" 2>/dev/null)"
	fi
}
# expect_figure LABEL JQ FILE: a check of the measured figure (proves the
# limit was really in force, or really absent in the twin).
expect_figure() {
	if [ -s "$3" ] && jq -e "$VT_RES | length > 0 and all($2)" "$3" >/dev/null 2>&1; then
		ok "$1"
	else
		not_ok "$1" "jq '$2' false on: $(jq -c "$VT_RES | map(.metrics)" "$3" 2>/dev/null | cut -c1-400)"
	fi
}

# Common engpass options of every run: no history, no progress line, JSON.
EP_OPTS="--json --no-history -q"

# --- network namespaces ---------------------------------------------------
# netns_pair: two network namespaces $NS_S (server, 10.201.0.1) and $NS_C
# (client, 10.201.0.2) joined by a veth pair $VETH_S / $VETH_C, as
# tests/cli/net_rr.sh builds them; registered for the trap. Returns 1
# with $NS_WHY when the kernel or ip refuses.
netns_pair() {
	NS_WHY=""
	NS_S="$VT_ID-s"
	NS_C="$VT_ID-c"
	VETH_S="evs$$"
	VETH_C="evc$$"
	command -v ip >/dev/null 2>&1 || { NS_WHY="ip (iproute2) is not installed"; return 1; }
	ip netns add "$NS_S" 2>"$T_TMP/ns.err" || { NS_WHY="cannot create a network namespace: $(head -1 "$T_TMP/ns.err")"; return 1; }
	VT_NETNS="$VT_NETNS $NS_S"
	ip netns add "$NS_C" 2>"$T_TMP/ns.err" || { NS_WHY="cannot create a network namespace: $(head -1 "$T_TMP/ns.err")"; return 1; }
	VT_NETNS="$VT_NETNS $NS_C"
	if ! { ip link add "$VETH_S" type veth peer name "$VETH_C" &&
		ip link set "$VETH_S" netns "$NS_S" && ip link set "$VETH_C" netns "$NS_C" &&
		ip -n "$NS_S" addr add 10.201.0.1/24 dev "$VETH_S" && ip -n "$NS_C" addr add 10.201.0.2/24 dev "$VETH_C" &&
		ip -n "$NS_S" link set "$VETH_S" up && ip -n "$NS_C" link set "$VETH_C" up &&
		ip -n "$NS_S" link set lo up && ip -n "$NS_C" link set lo up; } 2>"$T_TMP/ns.err"; then
		NS_WHY="veth setup failed: $(head -1 "$T_TMP/ns.err")"
		ip link del "$VETH_S" 2>/dev/null
		return 1
	fi
}
# ns_wait_listen NS PORT: waits (5 s at most) for a TCP listener in NS.
ns_wait_listen() {
	_nw=0
	while [ $_nw -lt 50 ]; do
		ip netns exec "$1" ss -Hltn "( sport = :$2 )" 2>/dev/null | grep -q . && return 0
		sleep 0.1
		_nw=$((_nw + 1))
	done
	return 1
}
