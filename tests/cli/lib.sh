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
	perl -ne 'last if /^  (verdict|next|note) /;
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
