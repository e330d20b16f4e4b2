# SPDX-License-Identifier: MIT
# Tiny TAP helpers for the shell tests of the binary. Each test script
# sources this, calls ok/not_ok through check(), and ends with done_testing.
# $ENGPASS is the binary under test (set by meson).
set -u
: "${ENGPASS:?ENGPASS must point at the engpass binary}"
T_N=0
T_FAIL=0
T_TMP=$(mktemp -d /tmp/engpass-cli.XXXXXX)
trap 'rm -rf "$T_TMP"' EXIT INT TERM

ok() { T_N=$((T_N + 1)); echo "ok $T_N - $1"; }
not_ok() {
	T_N=$((T_N + 1)); T_FAIL=$((T_FAIL + 1)); echo "not ok $T_N - $1"
	shift
	for line in "$@"; do printf '#   %s\n' "$line"; done
}
skip() { T_N=$((T_N + 1)); echo "ok $T_N - $1 # SKIP $2"; }

# A cross build under qemu user emulation (tests/meson.build sets these):
# $ENGPASS becomes a script that runs the binary through the wrapper.
if [ -n "${ENGPASS_EMULATED:-}" ]; then
	if [ -z "${ENGPASS_EXE_WRAPPER:-}" ]; then
		echo "1..0 # SKIP cross build without engpass_exe_wrapper in its cross file"
		exit 0
	fi
	# Tests that run it as another user must reach it: $T_TMP opens up.
	chmod 755 "$T_TMP"
	printf '#!/bin/sh\nexec %s %s "$@"\n' "$ENGPASS_EXE_WRAPPER" "$ENGPASS" >"$T_TMP/engpass-emulated"
	chmod 755 "$T_TMP/engpass-emulated"
	ENGPASS=$T_TMP/engpass-emulated
fi
# A test named after a command this build leaves out (the minimal router
# build, -Dminimal=true: engpass -V's "not in this build" line) skips: the
# command only says it is not in this build.
case " $("$ENGPASS" -V 2>/dev/null | sed -n 's/^  not in this build://p') " in
*" $(basename "$0" .sh) "*)
	echo "1..0 # SKIP $(basename "$0" .sh) is not in this build (the minimal router build)"
	exit 0 ;;
esac

# needs_feature LIB...: skips the whole script when engpass was built without
# one of these optional libraries (engpass info's "features").
needs_feature() {
	for f in "$@"; do
		if ! "$ENGPASS" info --json --no-calibrate --no-history 2>/dev/null | jq -e ".info.features.$f" >/dev/null; then
			echo "1..0 # SKIP built without $f"
			exit 0
		fi
	done
}
# not_emulated REASON: skips the whole script under emulation, saying why
# (root, network namespaces, loop devices, or too slow under qemu).
not_emulated() {
	if [ -n "${ENGPASS_EMULATED:-}" ]; then
		echo "1..0 # SKIP under qemu ($ENGPASS_EMULATED): $1"
		exit 0
	fi
}
# check NAME COMMAND...: passes when the command succeeds.
check() {
	name=$1; shift
	if "$@"; then ok "$name"; else not_ok "$name"; fi
}
done_testing() {
	echo "1..$T_N"
	[ "$T_FAIL" = 0 ]
}

# run ARGS...: runs engpass in an empty scratch directory, capturing stdout,
# stderr and the exit status into $T_TMP/out, $T_TMP/err and $RC.
run() {
	mkdir -p "$T_TMP/cwd"
	RC=0
	(cd "$T_TMP/cwd" && "$ENGPASS" "$@") >"$T_TMP/out" 2>"$T_TMP/err" </dev/null || RC=$?
}

# jqt NAME FILTER FILE: passes when jq -e FILTER is true on FILE.
jqt() {
	# jq 1.6 -e exits 0 on empty input: an empty file must fail too.
	if [ -s "$3" ] && jq -e "$2" "$3" >/dev/null 2>&1; then ok "$1"; else not_ok "$1" "jq -e '$(printf %s "$2" | tr '\n\t' '  ')' was false, failed or had no input"; fi
}

# mask_figures FILE: FILE up to its first verdict, next or note line, every
# figure (a number with its unit or suffix) replaced by '#' and runs of
# blanks squeezed: the layout and the labels of a table, not its figures.
mask_figures() {
	perl -ne 'last if /^  (verdict|next|note) / || /^  time {8}/;
		s{\d[\d.]*(?:[kMGT]? /s|(?: ?[KMGTP]?i?B/s)|(?: [kMGT]?bit/s)|(?: [KMGTP]?i?B\b)|(?: (?:ns|us|ms|s)\b)|(?: %)|(?: MHz\b)|(?:[kMGTx]\b))?}{#}g;
		s{  +}{ }g; print' "$1"
}

# golden_file NAME FILE WHAT: passes when FILE equals tests/cli/golden/NAME;
# with ENGPASS_UPDATE_GOLDEN set, writes it there first.
golden_file() {
	if [ -n "${ENGPASS_UPDATE_GOLDEN:-}" ]; then
		cp "$2" "$ENGPASS_TESTS/cli/golden/$1"
	fi
	if diff -u "$ENGPASS_TESTS/cli/golden/$1" "$2" >"$T_TMP/diff"; then
		ok "$1 matches $3"
	else
		not_ok "$1 matches $3" "$(head -40 "$T_TMP/diff")"
	fi
}

# golden NAME: passes when $T_TMP/out equals tests/cli/golden/NAME.
golden() {
	golden_file "$1" "$T_TMP/out" golden
}

# golden_masked NAME: passes when mask_figures of $T_TMP/out equals
# tests/cli/golden/NAME; the figures' alignment is for the test to check
# apart.
golden_masked() {
	mask_figures "$T_TMP/out" >"$T_TMP/out.masked"
	golden_file "$1" "$T_TMP/out.masked" "masked golden"
}

# --- working sets measured against the caches ------------------------------
# llc_bytes: the largest data or unified cache of cpu0, in bytes, read from
# $ENGPASS_TEST_SYS_ROOT (default /sys, where engpass mem reads it); 0 when
# sysfs names none (a router, some VMs). With ENGPASS_TEST_SYS_ROOT a copy of
# another box's cache directories sizes the tests as there (engpass itself
# still reads /sys, so a fixture's larger cache only makes the sets larger).
llc_bytes() {
	_llc=0
	for _d in "${ENGPASS_TEST_SYS_ROOT:-/sys}"/devices/system/cpu/cpu0/cache/index*; do
		[ -r "$_d/size" ] || continue
		[ "$(cat "$_d/type" 2>/dev/null)" = Instruction ] && continue
		_s=$(cat "$_d/size")
		case $_s in
		*K) _b=$((${_s%K} * 1024)) ;;
		*M) _b=$((${_s%M} * 1048576)) ;;
		*G) _b=$((${_s%G} * 1073741824)) ;;
		*[!0-9]* | "") continue ;;
		*) _b=$_s ;;
		esac
		[ "$_b" -gt "$_llc" ] && _llc=$_b
	done
	echo "$_llc"
}
# past_llc SETS: for a test whose working set must be past every cache.
# Sets $PAST_MIB to 4 x the last-level cache (4 x 32 MiB where sysfs names
# none, as engpass mem assumes), rounded up to a MiB and at least 64, and
# $PAST_WHY to why the case cannot run here (empty when it can): SETS sets of
# that size (3 for the bandwidth arrays) must fit in half of MemAvailable,
# and one set may not pass 1280 MiB (an LLC past 320 MiB), to hold the
# tests' time: a 1040 MiB set (a 260 MiB L3) took 11 s of mem --bandwidth and
# 24 s of mem --latency on a shared 2-core EPYC guest, a 2 GiB one 32 s of
# bandwidth. The caller skips with $PAST_WHY.
past_llc() {
	_llc=$(llc_bytes)
	[ "$_llc" -gt 0 ] || _llc=$((32 * 1048576))
	PAST_MIB=$(((4 * _llc + 1048575) / 1048576))
	[ "$PAST_MIB" -ge 64 ] || PAST_MIB=64
	PAST_WHY=""
	_avail=$(awk '/^MemAvailable:/ { print int($2 / 1024) }' /proc/meminfo)
	if [ "$PAST_MIB" -gt 1280 ]; then
		PAST_WHY="4 x the last-level cache of $((_llc / 1048576)) MiB is $PAST_MIB MiB, more than the 1280 MiB this test can measure in its time"
	elif [ $(($1 * PAST_MIB)) -gt $((${_avail:-0} / 2)) ]; then
		PAST_WHY="$1 x $PAST_MIB MiB (4 x the last-level cache) is more than half of the ${_avail:-?} MiB available"
	fi
}
# in_llc_kib MAX_KIB DIV: a working set that stays inside the caches: MAX_KIB
# KiB, or the last-level cache / DIV when that is smaller (a box with a small
# cache), at least 4 KiB; MAX_KIB where sysfs names no cache (engpass mem
# then assumes 32 MiB).
in_llc_kib() {
	_llc=$(llc_bytes)
	_k=$1
	if [ "$_llc" -gt 0 ] && [ $((_llc / 1024 / $2)) -lt "$_k" ]; then
		_k=$((_llc / 1024 / $2))
	fi
	[ "$_k" -ge 4 ] || _k=4
	echo "$_k"
}
