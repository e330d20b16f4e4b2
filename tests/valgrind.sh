#!/bin/sh
# SPDX-License-Identifier: MIT
# The 'valgrind' suite: runs one test script (e.g. cli/null.sh) with
# every engpass it starts under valgrind (tests/valgrind-engpass), then
# fails if the script failed or any engpass process had a memcheck error or
# a definite leak, printing those reports.
#   valgrind.sh SCRIPT    SCRIPT relative to tests/; ENGPASS_REAL is the real binary
set -u
script=$1
here=$(cd "$(dirname "$0")" && pwd)
logs=$(mktemp -d /tmp/engpass-valgrind.XXXXXX)
trap 'rm -rf "$logs"' EXIT INT TERM
export ENGPASS_VALGRIND_LOGS="$logs"
export ENGPASS="$here/valgrind-engpass"
rc=0
"$here/$script" || rc=$?
n=$(ls "$logs" | wc -l)
bad=0
for f in "$logs"/vg.*.log; do
	[ -s "$f" ] || continue
	bad=$((bad + 1))
	echo "# valgrind report ($f):"
	sed 's/^/#   /' "$f" | head -60
done
echo "# $n engpass processes under valgrind, $bad with reports; test script exit $rc"
[ "$rc" = 0 ] && [ "$bad" = 0 ]
