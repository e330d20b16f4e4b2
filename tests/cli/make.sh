#!/bin/sh
# SPDX-License-Identifier: MIT
# Where files go (issue 21): `make` and `make build` install nothing (a
# missing package stops them with a line naming scripts/deps; apt-get is
# never run), and `make run` writes quick's HTML report under reports/
# (ignored by git), never into the checkout's top level. Runs make on the
# source tree with a dpkg-query that says every package is missing and an
# apt-get that only records being called, and `make -n` for run.
. "$(dirname "$0")/lib.sh"

ROOT=$(cd "$ENGPASS_TESTS/.." && pwd)
if ! command -v make >/dev/null 2>&1; then
	echo "1..0 # SKIP make not installed"
	exit 0
fi
mkdir -p "$T_TMP/bin"
printf '#!/bin/sh\nexit 1\n' >"$T_TMP/bin/dpkg-query"
printf '#!/bin/sh\ntouch "%s/apt-get-ran"\nexit 1\n' "$T_TMP" >"$T_TMP/bin/apt-get"
chmod 755 "$T_TMP/bin/dpkg-query" "$T_TMP/bin/apt-get"

for target in "" build; do
	RC=0
	PATH="$T_TMP/bin:$PATH" make -s -C "$ROOT" $target >"$T_TMP/out" 2>"$T_TMP/err" </dev/null || RC=$?
	check "make${target:+ $target} with packages missing: fails" [ "$RC" != 0 ]
	check "make${target:+ $target} with packages missing: names scripts/deps" grep -q "install them with 'scripts/deps build'" "$T_TMP/err"
	check "make${target:+ $target} with packages missing: installs nothing (no apt-get)" [ ! -e "$T_TMP/apt-get-ran" ]
done

make -n -C "$ROOT" run >"$T_TMP/run" 2>&1
check "make run: quick's report goes under reports/" grep -q 'engpass quick --report "reports/engpass-quick-' "$T_TMP/run"
check "make run: reports/ is created first" grep -q '^mkdir -p reports$' "$T_TMP/run"
check "reports/ is ignored by git" grep -qx '/reports/' "$ROOT/.gitignore"

done_testing
