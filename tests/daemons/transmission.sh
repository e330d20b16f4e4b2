#!/bin/sh
# SPDX-License-Identifier: MIT
# engpass watch on a real Transmission swarm (issue 35, point 4): the field
# report's question "what holds the download back?". Debian's
# transmission-daemon seeds in one network namespace and downloads in
# another, with opentracker as the tracker beside the seeder; the leecher
# writes onto an ext4 file system on a loop device of the test's own. Both
# daemons are started with `nsenter --net` (never `ip netns exec`, whose
# fresh /sys hides the cgroup files), the leecher pinned to CPU 1 and in
# cgroups of its own (cpu, cpuacct, blkio), so every limit can be set and
# lifted while it runs. One download serves every case; when less than a
# quarter of the torrent is left it is removed with its data and added
# again.
#
# Each case is `engpass watch --pid LEECHER --iface VETH --disk LOOP
# --time 8s`, run in the leecher's namespace (its interface is there),
# and its verdict must name the limit:
#   - tbf 16mbit on the leecher's side, as a router shapes downloads (its
#     veth's ingress redirected to an ifb device): "shaper";
#   - tbf 16mbit on the seeder's veth, invisible from the leecher's
#     namespace: "upstream" (sock_diag: the data comes at a plateau with
#     the receive queue empty) or "network" judged "loss" (the tbf's drops
#     as holes in what came), from the busiest socket's state;
#   - blkio.throttle.write_bps_device of 1 MiB/s on the loop device with the
#     file system remounted `sync`: "io limit";
#   - a CPU quota of 2 % of a CPU on the leecher's cgroup: "cpu quota";
#   - a busy loop at nice -20 on the leecher's CPU: not "other processes"
#     when it did not hold the leecher back (the usual case: a sleeper is
#     served on wake-up), "other processes" (a TAP TODO) when it did;
# and each twin (the same set-up without the limit: the plain download,
# and the sync mount without the throttle) must not name it. The figure of
# each run is the interface's receive rate; the limit must have cut it.
#
# Bounded: a 160 MiB torrent, eight watches of 8 s, a wait of at most 30 s
# for data to flow after each change; about 3 minutes on this machine.
# Everything is removed by id in the trap: the daemons (by PID), the
# cgroups, the mount, the loop device, the namespaces, the files.
. "$(dirname "$0")/../verdict/lib.sh"
need_root "network namespaces, cgroups and loop devices"
need_cmd ip tc nsenter taskset losetup mkfs.ext4 transmission-daemon transmission-remote transmission-create \
	transmission-show opentracker jq

TR_SIZE_MIB=${TR_SIZE_MIB:-160}
WATCH_TIME=${TR_WATCH_TIME:-8s}
LEECH_CPU=1
taskset -c $LEECH_CPU true 2>/dev/null || vt_skip_all "cannot pin to CPU $LEECH_CPU"

netns_pair || vt_skip_all "$NS_WHY"
NSF_S=/run/netns/$NS_S
NSF_C=/run/netns/$NS_C
ip -n "$NS_C" link set "$VETH_C" mtu 1500
in_s() { nsenter --net="$NSF_S" "$@"; }
in_c() { nsenter --net="$NSF_C" "$@"; }

# --- the leecher's cgroups -------------------------------------------------
cg_new cpu leech || vt_skip_all "$CG_WHY"
CG_CPU=$CG
[ -e "$CG_CPU/cpu.cfs_quota_us" ] || vt_skip_all "no cpu.cfs_quota_us (kernel without CONFIG_CFS_BANDWIDTH)"
LEECH_CGS=$CG_CPU
if [ "$(cg_v1_mount cpu)" != "$(cg_v1_mount cpuacct)" ] && cg_new cpuacct leech; then
	LEECH_CGS="$LEECH_CGS $CG"
fi
cg_new blkio leech || vt_skip_all "$CG_WHY"
CG_IO=$CG
[ -e "$CG_IO/blkio.throttle.write_bps_device" ] || vt_skip_all "no blkio.throttle files"
LEECH_CGS="$LEECH_CGS $CG_IO"

# --- the download's file system on a loop device ---------------------------
IMGDIR=$(mktemp -d /var/tmp/engpass-tr.XXXXXX) || vt_skip_all "cannot create a directory under /var/tmp"
MNT=$(mktemp -d /tmp/engpass-tr-mnt.XXXXXX) || vt_skip_all "cannot create a mount point"
trap 'vt_cleanup; rm -rf "$IMGDIR"' EXIT
trap 'vt_cleanup; rm -rf "$IMGDIR"; trap - EXIT; exit 1' INT TERM HUP PIPE
truncate -s $((TR_SIZE_MIB * 2 + 64))M "$IMGDIR/fs.img" || vt_skip_all "cannot create the image"
LOOP=$(losetup --find --show "$IMGDIR/fs.img" 2>"$T_TMP/loop.err") || vt_skip_all "losetup failed: $(head -1 "$T_TMP/loop.err")"
VT_LOOPS="$VT_LOOPS $LOOP"
mkfs.ext4 -q -F "$LOOP" >"$T_TMP/mkfs.out" 2>&1 || vt_skip_all "mkfs.ext4 failed: $(head -1 "$T_TMP/mkfs.out")"
mount "$LOOP" "$MNT" 2>"$T_TMP/mount.err" || vt_skip_all "cannot mount $LOOP: $(head -1 "$T_TMP/mount.err")"
VT_MOUNTS="$VT_MOUNTS $MNT"
MM=$(lsblk -dno MAJ:MIN "$LOOP" | tr -d ' ')
LOOPNAME=${LOOP#/dev/}
echo "# download file system: ext4 on $LOOP ($MM), mounted on $MNT"

# --- the torrent, the tracker, the seeder ----------------------------------
mkdir -p "$T_TMP/seed" "$T_TMP/tracker" "$T_TMP/seedconf" "$T_TMP/leechconf"
head -c $((TR_SIZE_MIB * 1048576)) /dev/urandom >"$T_TMP/seed/payload.bin"
transmission-create -t http://10.201.0.1:6969/announce -o "$T_TMP/payload.torrent" "$T_TMP/seed/payload.bin" \
	>"$T_TMP/create.out" 2>&1 || vt_skip_all "transmission-create failed: $(tail -1 "$T_TMP/create.out")"
HASH=$(transmission-show "$T_TMP/payload.torrent" | awk '$1 == "Hash:" { print $2 }')
[ -n "$HASH" ] || vt_skip_all "no info hash from transmission-show"
echo "$HASH" >"$T_TMP/tracker/whitelist"
chmod 755 "$T_TMP" "$T_TMP/tracker"
chmod 644 "$T_TMP/tracker/whitelist"
bg "$T_TMP/tracker.out" nsenter --net="$NSF_S" opentracker -i 10.201.0.1 -p 6969 -P 6969 -d "$T_TMP/tracker" -w whitelist
TRACKER=$BG_PID
# -w is read after the chroot into -d: a path inside it.
ns_wait_listen "$NS_S" 6969 || vt_skip_all "opentracker did not listen: $(head -2 "$T_TMP/tracker.out")"

# tr_settings DIR ADDR DOWNLOAD_DIR: a settings.json for a deterministic two-peer swarm.
tr_settings() {
	cat >"$1/settings.json" <<EOF
{
	"bind-address-ipv4": "$2",
	"cache-size-mb": 4,
	"dht-enabled": false,
	"download-dir": "$3",
	"download-queue-enabled": false,
	"encryption": 1,
	"idle-seeding-limit-enabled": false,
	"incomplete-dir-enabled": false,
	"lpd-enabled": false,
	"message-level": 1,
	"peer-port": 51413,
	"peer-port-random-on-start": false,
	"pex-enabled": false,
	"port-forwarding-enabled": false,
	"ratio-limit-enabled": false,
	"rpc-authentication-required": false,
	"rpc-bind-address": "127.0.0.1",
	"rpc-enabled": true,
	"rpc-host-whitelist-enabled": false,
	"rpc-port": 9091,
	"rpc-whitelist-enabled": false,
	"scrape-paused-torrents-enabled": false,
	"speed-limit-down-enabled": false,
	"speed-limit-up-enabled": false,
	"start-added-torrents": true,
	"utp-enabled": false
}
EOF
}
# rpc_s|rpc_c ARGS: transmission-remote against the seeder or the leecher.
rpc_s() { in_s transmission-remote 127.0.0.1:9091 "$@"; }
rpc_c() { in_c transmission-remote 127.0.0.1:9091 "$@"; }
# rpc_wait rpc_X: waits (10 s at most) for a daemon's RPC to answer.
rpc_wait() {
	_n=0
	while ! "$1" -l >/dev/null 2>&1; do
		_n=$((_n + 1))
		[ $_n -lt 100 ] || return 1
		sleep 0.1
	done
}

tr_settings "$T_TMP/seedconf" 10.201.0.1 "$T_TMP/seed"
bg "$T_TMP/seeder.out" nsenter --net="$NSF_S" transmission-daemon -f -g "$T_TMP/seedconf"
SEEDER=$BG_PID
rpc_wait rpc_s || vt_skip_all "the seeding transmission-daemon did not answer: $(head -2 "$T_TMP/seeder.out")"
rpc_s -a "$T_TMP/payload.torrent" >/dev/null || vt_skip_all "cannot add the torrent to the seeder"
# Verified and seeding: 100 % done.
_n=0
until rpc_s -t 1 -i 2>/dev/null | grep -q 'Percent Done: 100%'; do
	_n=$((_n + 1))
	[ $_n -lt 300 ] || vt_skip_all "the seeder did not verify the data in 30 s"
	sleep 0.1
done

# --- the leecher -------------------------------------------------------------
tr_settings "$T_TMP/leechconf" 10.201.0.2 "$MNT"
# Not cg_exec (a shell function): bg's $! must be the daemon itself.
bg "$T_TMP/leecher.out" sh -c 'for d in $0; do echo $$ >"$d/cgroup.procs" || exit 125; done; exec "$@"' "$LEECH_CGS" nsenter --net="$NSF_C" taskset -c $LEECH_CPU \
	transmission-daemon -f -g "$T_TMP/leechconf"
LEECHER=$BG_PID
rpc_wait rpc_c || vt_skip_all "the leeching transmission-daemon did not answer: $(head -2 "$T_TMP/leecher.out")"
[ "$(cat /proc/$LEECHER/comm)" = transmission-da ] || vt_skip_all "pid $LEECHER is $(cat /proc/$LEECHER/comm), not the daemon"
echo "# tracker pid $TRACKER in $NS_S, seeder pid $SEEDER in $NS_S, leecher pid $LEECHER in $NS_C on CPU $LEECH_CPU"

# rx_bytes: bytes the leecher's veth has received.
rx_bytes() {
	ip -n "$NS_C" -s -j link show "$VETH_C" | jq '.[0].stats64.rx.bytes'
}
# left_pct: percent of the torrent the leecher still lacks.
left_pct() {
	rpc_c -t all -i 2>/dev/null | awk '$1 == "Percent" && $2 == "Done:" { sub("%", "", $3); print 100 - $3; exit }'
}
# flowing: waits (30 s at most) for the download to move 16 KiB within a second.
flowing() {
	_n=0
	_a=$(rx_bytes)
	while [ $_n -lt 30 ]; do
		sleep 1
		_b=$(rx_bytes)
		[ $((_b - _a)) -ge 16384 ] && return 0
		_a=$_b
		_n=$((_n + 1))
	done
	return 1
}
# fresh_download: the torrent (again) on the leecher, from nothing.
fresh_download() {
	rpc_c -t all --remove-and-delete >/dev/null 2>&1
	sleep 0.5
	rpc_c -a "$T_TMP/payload.torrent" >/dev/null
}
# room: a quarter of the torrent or more still to come, else it starts again.
room() {
	_l=$(left_pct)
	if [ -z "$_l" ] || awk -v l="$_l" 'BEGIN { exit !(l < 25) }'; then
		echo "# $_l % left: the download starts again"
		fresh_download
	fi
}

fresh_download
flowing || vt_skip_all "no data reached the leecher in 30 s: $(rpc_c -l 2>&1 | tail -2 | tr '\n' ' ')"

FIG='"\(.metrics.net_rx_bits_per_second // null | if . == null then "?" else (. / 1e6 * 100 | floor / 100 | tostring) + " Mbit/s received" end); time \(.system.time_budget.states // [] | map("\(.what // .state) \(.percent | floor) %") | join(", ")); net \(.system.time_budget.network.judgement // "-"): \(.system.time_budget.network.evidence // "-")"'
CMD="watch --pid $LEECHER --iface $VETH_C --disk $LOOPNAME --time $WATCH_TIME"

# tr_case FILE LABEL LIMIT: one watch of the leecher from its namespace, after data flows again.
tr_case() {
	room
	flowing || echo "# $2: no data flowed within 30 s before the watch"
	# shellcheck disable=SC2086
	ep "$1" in_c "$ENGPASS" $CMD $EP_OPTS
	matrix "$3" "nsenter --net=NS engpass $CMD" "$FIG" "$1"
	jq -r "$VT_RES[] | .notes // [] | .[] | select(test(\"busiest peer|retransmitted|dropped\")) | \"#   note: \\(.)\"" \
		"$1" 2>/dev/null
	expect_ran "$1" "$2"
}
RX='(.metrics.net_rx_bits_per_second // 0)'

# The twin of the shapers, the quota and the hog: the plain download.
tr_case "$T_TMP/plain.json" "plain download" "none (twin)"
PLAIN=$(jq "$VT_RES[0] | $RX" "$T_TMP/plain.json" 2>/dev/null)
echo "# plain download: ${PLAIN:-?} bit/s"
for r in shaper "cpu quota" "other processes"; do
	expect_not_named "$r" "$T_TMP/plain.json" "plain download (twin)"
done
# Unlimited, the seeder's own pace sets the rate: the leecher's sockets may
# say so ("upstream": held before us, our queue empty), but never the
# shaper's signature, a queue standing before us (the round trip far above
# its minimum).
if [ -s "$T_TMP/plain.json" ] && jq -e "$VT_RES | length > 0 and all(.verdict.evidence | test(\"in a queue before us\") | not)" \
	"$T_TMP/plain.json" >/dev/null 2>&1; then
	ok "plain download (twin): no queue before us (the seeder-side shaper's signature)"
else
	not_ok "plain download (twin): no queue before us (the seeder-side shaper's signature)" \
		"got: $(jq -r "$VT_RES | map(.verdict.resource + \": \" + .verdict.evidence) | join(\"; \")" "$T_TMP/plain.json" 2>/dev/null)"
fi
# cut LABEL FILE: the limit cut the rate below half the plain download's.
was_cut() {
	expect_figure "$1: the rate fell below half the plain download's (the limit was in force)" \
		"$RX < ${PLAIN:-0} / 2" "$2"
}

# The leecher's own side, as a router shapes its downloads (OpenWrt's SQM):
# its veth's incoming traffic redirected to an ifb device with a tbf.
IFB="ifbc$$"
if ip -n "$NS_C" link add "$IFB" type ifb 2>"$T_TMP/ifb.err" && ip -n "$NS_C" link set "$IFB" up &&
	in_c tc qdisc add dev "$IFB" root tbf rate 16mbit burst 32kb latency 50ms &&
	in_c tc qdisc add dev "$VETH_C" handle ffff: ingress &&
	in_c tc filter add dev "$VETH_C" parent ffff: protocol all prio 10 u32 match u32 0 0 action mirred egress \
		redirect dev "$IFB" 2>"$T_TMP/ifb.err"; then
	tr_case "$T_TMP/shape_c.json" "ingress tbf on the leecher's side" "tbf 16mbit on $IFB, $VETH_C's ingress redirected to it"
	was_cut "ingress tbf on the leecher's side" "$T_TMP/shape_c.json"
	expect_named "shaper" "$T_TMP/shape_c.json" "ingress tbf on the leecher's side"
	in_c tc qdisc del dev "$VETH_C" ingress
else
	skip "ingress tbf on the leecher's side" "no ifb shaper: $(head -1 "$T_TMP/ifb.err")"
fi

# The seeder's side: tbf on its veth, not visible from the leecher's namespace.
in_s tc qdisc add dev "$VETH_S" root tbf rate 16mbit burst 32kb latency 50ms
tr_case "$T_TMP/shape_s.json" "tbf on the seeder's veth" "tbf 16mbit on the seeder's veth $VETH_S"
was_cut "tbf on the seeder's veth" "$T_TMP/shape_s.json"
# The far side seen through the leecher's own sockets (sock_diag): a plateau
# with our queue empty ("upstream"), or its drops as holes in what came
# ("network", judged "loss"); never a guess without the socket's state.
if [ -s "$T_TMP/shape_s.json" ] && jq -e "$VT_RES | length > 0 and all(
	(.verdict.resource == \"upstream\" or .verdict.resource == \"network\") and
	(.verdict.evidence | test(\"sock_diag\")))" "$T_TMP/shape_s.json" >/dev/null 2>&1; then
	ok "tbf on the seeder's veth: verdict names the far side from the socket's state (upstream or network, sock_diag)"
else
	not_ok "tbf on the seeder's veth: verdict names the far side from the socket's state (upstream or network, sock_diag)" \
		"got: $(jq -r "$VT_RES | map(.verdict.resource + \": \" + .verdict.evidence) | join(\"; \")" "$T_TMP/shape_s.json" 2>/dev/null)"
fi
in_s tc qdisc del dev "$VETH_S" root

# A CPU quota of 2 % of a CPU.
cg_set "$CG_CPU" cpu.cfs_period_us 100000 && cg_set "$CG_CPU" cpu.cfs_quota_us 2000
tr_case "$T_TMP/quota.json" "cpu quota 2 %" "cpu.cfs_quota_us 2000 / 100000 on the leecher"
was_cut "cpu quota 2 %" "$T_TMP/quota.json"
expect_named "cpu quota" "$T_TMP/quota.json" "cpu quota 2 %"
cg_set "$CG_CPU" cpu.cfs_quota_us -1

# A hog beside it on its CPU.
bg /dev/null nice -n -20 taskset -c $LEECH_CPU sh -c 'while :; do :; done'
HOG=$BG_PID
tr_case "$T_TMP/hog.json" "hog on its CPU" "a busy loop at nice -20 on CPU $LEECH_CPU"
# A leecher that mostly sleeps is served on wake-up even beside a nice -20
# hog (CFS places a woken task ahead): on a quiet box the hog hardly holds
# it back (53 against 61 Mbit/s), and then the verdict must not blame it.
# Where the hog did cut the rate (a loaded box: 12 Mbit/s), it starved the
# kernel's network work on that CPU rather than the leecher, which the
# work's budget does not hold (3 % run queue): naming it is a TAP TODO
# (docs/watch.md, Limits).
if jq -e "$VT_RES | length > 0 and all($RX < ${PLAIN:-0} / 2)" "$T_TMP/hog.json" >/dev/null 2>&1; then
	if jq -e "$VT_RES | length > 0 and all(.verdict.resource == \"other processes\")" "$T_TMP/hog.json" >/dev/null 2>&1; then
		ok "hog on its CPU, the rate cut below half: verdict names other processes"
	else
		not_ok "hog on its CPU, the rate cut below half: verdict names other processes # TODO the kernel's network work starved by the hog is not in the work's budget" \
			"got: $(jq -r "$VT_RES | map(.verdict.resource) | join(\", \")" "$T_TMP/hog.json" 2>/dev/null)"
		T_FAIL=$((T_FAIL - 1))
	fi
else
	expect_not_named "other processes" "$T_TMP/hog.json" "hog on its CPU, the rate not cut (a sleeper is served on wake-up)"
fi
stop_pid "$HOG"

# The sync mount: its twin first, then the write throttle.
mount -o remount,sync "$MNT" || vt_skip_all "cannot remount $MNT sync"
tr_case "$T_TMP/sync.json" "sync mount" "none (twin: the download directory mounted sync)"
SYNC=$(jq "$VT_RES[0] | $RX" "$T_TMP/sync.json" 2>/dev/null)
expect_not_named "io limit" "$T_TMP/sync.json" "sync mount (twin)"
cg_set "$CG_IO" blkio.throttle.write_bps_device "$MM 1048576"
tr_case "$T_TMP/throttle.json" "write throttle on a sync mount" "blkio.throttle.write_bps_device $MM 1 MiB/s, sync mount"
expect_figure "write throttle: the rate fell below half the sync mount's (the limit was in force)" \
	"$RX < ${SYNC:-0} / 2" "$T_TMP/throttle.json"
expect_named "io limit" "$T_TMP/throttle.json" "write throttle on a sync mount"
cg_set "$CG_IO" blkio.throttle.write_bps_device "$MM 0"

done_testing
