#!/bin/sh
# SPDX-License-Identifier: MIT
# Verdict injection (#18), cgroup v2: mounts a cgroup2 hierarchy of the
# test's own on a temp directory and, where the kernel lets that hierarchy
# have the controller, repeats the cpu quota case with cpu.max "30000
# 100000" and the io limit case with io.max "MAJ:MIN rbps=20971520" on a
# loop device of the test's own; each must name its limit ("cpu quota",
# "io limit"). On a machine whose cpu and io controllers are bound to v1
# hierarchies a cgroup2 mount has neither: then the cases are skipped with
# that reason (v2 parsing is covered by the fixtures of the unit tests).
# The child cgroup is removed, the loop device detached and the mount
# unmounted in the trap.
. "$(dirname "$0")/lib.sh"
need_root "mount -t cgroup2"
grep -qw cgroup2 /proc/filesystems || vt_skip_all "the kernel has no cgroup2 file system"

MNT=$(mktemp -d /tmp/engpass-vt-cg2.XXXXXX) || vt_skip_all "cannot create a mount point under /tmp"
if ! mount -t cgroup2 none "$MNT" 2>"$T_TMP/mnt.err"; then
	rmdir "$MNT"
	vt_skip_all "mount -t cgroup2 refused: $(head -1 "$T_TMP/mnt.err")"
fi
VT_MOUNTS="$MNT $VT_MOUNTS"
CTRLS=$(cat "$MNT/cgroup.controllers")
echo "# a fresh cgroup2 mount offers: '${CTRLS}'"

# v2_child CTRL NAME: enables CTRL for the root's children, makes one; $CG.
v2_child() {
	CG=""
	case " $CTRLS " in
	*" $1 "*) ;;
	*)
		CG_WHY="the $1 controller is bound to a cgroup v1 hierarchy (a fresh cgroup2 mount offers only '${CTRLS}')"
		return 1
		;;
	esac
	cg_set "$MNT" cgroup.subtree_control "+$1" || return 1
	mkdir "$MNT/$VT_ID-$2" 2>"$T_TMP/cg.err" || { CG_WHY="mkdir: $(head -1 "$T_TMP/cg.err")"; return 1; }
	CG="$MNT/$VT_ID-$2"
	VT_CGROUPS="$CG $VT_CGROUPS"
}

# --- cpu.max ---
if v2_child cpu quota && cg_set "$CG" cpu.max "30000 100000"; then
	CMD="cpu --cipher chacha20-poly1305 --size 1400 --lib openssl --time 2s"
	# shellcheck disable=SC2086
	ep "$T_TMP/cpu.json" cg_exec "$CG" "$ENGPASS" $CMD $EP_OPTS
	matrix "cpu.max 30000 100000 (cgroup v2)" "engpass $CMD (in the cgroup)" \
		'"\(.metrics.cpu_share_percent | floor) % cpu share"' "$T_TMP/cpu.json"
	expect_ran "$T_TMP/cpu.json" "cpu.max"
	expect_figure "cpu.max: cpu share 20..40 %" \
		'.metrics.cpu_share_percent >= 20 and .metrics.cpu_share_percent <= 40' "$T_TMP/cpu.json"
	expect_named "cpu quota" "$T_TMP/cpu.json" "cpu.max"
else
	for n in "cpu.max: ran" "cpu.max: cpu share 20..40 %" "cpu.max: verdict names cpu quota"; do skip "$n" "$CG_WHY"; done
fi

# --- io.max ---
IOWHY=""
if ! v2_child io io; then
	IOWHY=$CG_WHY
elif ! command -v losetup >/dev/null 2>&1; then
	IOWHY="losetup is not installed"
else
	IMGDIR=$(mktemp -d /var/tmp/engpass-vt-io2.XXXXXX)
	trap 'vt_cleanup; rm -rf "$IMGDIR"' EXIT
	truncate -s 256M "$IMGDIR/loop.img"
	if LOOP=$(losetup --find --show "$IMGDIR/loop.img" 2>"$T_TMP/loop.err"); then
		VT_LOOPS="$VT_LOOPS $LOOP"
		MM=$(lsblk -dno MAJ:MIN "$LOOP" | tr -d ' ')
		cg_set "$CG" io.max "$MM rbps=20971520" || IOWHY=$CG_WHY
	else
		IOWHY="losetup failed: $(head -1 "$T_TMP/loop.err")"
	fi
fi
if [ -z "$IOWHY" ]; then
	CMD="disk $LOOP --workload seq-read --direct --time 2s"
	# shellcheck disable=SC2086
	ep "$T_TMP/io.json" cg_exec "$CG" "$ENGPASS" $CMD $EP_OPTS
	matrix "io.max $MM rbps=20971520 (cgroup v2)" "engpass $CMD (in the cgroup)" \
		'"\(.metrics.read_bytes_per_second / 1048576 * 10 | floor / 10) MiB/s"' "$T_TMP/io.json"
	expect_ran "$T_TMP/io.json" "io.max"
	expect_figure "io.max: 15..22 MiB/s" \
		'.metrics.read_bytes_per_second >= 15728640 and .metrics.read_bytes_per_second <= 23068672' "$T_TMP/io.json"
	expect_named "io limit" "$T_TMP/io.json" "io.max"
else
	for n in "io.max: ran" "io.max: 15..22 MiB/s" "io.max: verdict names io limit"; do skip "$n" "$IOWHY"; done
fi

done_testing
