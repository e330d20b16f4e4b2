#!/bin/sh
# SPDX-License-Identifier: MIT
# Set-up that survives a flaky mirror (issue 37): scripts/deps retries a
# failed `apt-get update`, then goes on when the packages it needs are
# installable, saying which index was broken; a package apt cannot install
# is named with that index. Real apt-get against the machine's real sources
# plus one deliberately broken extra source (ENGPASS_APT_OPTS adds a
# Dir::Etc::SourceParts holding copies of the real entries and it): a local
# file: repository whose Release gives its Packages file the wrong size, so
# that apt reports "Hash Sum mismatch" and exits 100, as the half-synced
# armhf security index did. (An unreachable http://127.0.0.1:9/ source is
# only a warning to apt 2.6: exit 0; the script says it too, but it is not
# the failure the issue met.) A dpkg-query on PATH says jq is missing (it
# is installed: apt-get install has nothing to do), every other package
# present. Root only; about 10 s, most of it the real sources' update.
. "$(dirname "$0")/lib.sh"
not_emulated "runs the host's apt-get"

ROOT=$(cd "$ENGPASS_TESTS/.." && pwd)
if [ "$(id -u)" != 0 ]; then
	echo "1..0 # SKIP not root: apt-get update needs root"
	exit 0
elif ! command -v apt-get >/dev/null 2>&1 || ! command -v dpkg >/dev/null 2>&1; then
	echo "1..0 # SKIP not a Debian system (no apt-get)"
	exit 0
elif [ -n "${ENGPASS_SANITIZER:-}" ]; then
	echo "1..0 # SKIP runs no engpass: the strict build's run is enough"
	exit 0
elif ! dpkg-query -W -f='${Status}' jq 2>/dev/null | grep -q "install ok installed"; then
	echo "1..0 # SKIP jq is not installed (the test asks apt for it as the missing package)"
	exit 0
fi

# The broken source: apt reads it from $T_TMP, which it may enter.
chmod 755 "$T_TMP"
arch=$(dpkg --print-architecture)
repo=$T_TMP/repo
mkdir -p "$repo/dists/nowhere/main/binary-$arch" "$T_TMP/parts" "$T_TMP/bin"
pk=$repo/dists/nowhere/main/binary-$arch/Packages
printf 'Package: engpass-nowhere\nVersion: 1\nArchitecture: %s\nFilename: pool/engpass-nowhere.deb\nSize: 1\n\n' \
	"$arch" >"$pk"
# The size in Release is 7 bytes more than the file's: a mirror mid-sync.
printf 'Suite: nowhere\nCodename: nowhere\nArchitectures: %s\nComponents: main\nDate: %s\nSHA256:\n %s %d main/binary-%s/Packages\n' \
	"$arch" "$(LC_ALL=C date -u '+%a, %d %b %Y %H:%M:%S UTC')" "$(sha256sum <"$pk" | cut -d' ' -f1)" \
	$(($(wc -c <"$pk") + 7)) "$arch" >"$repo/dists/nowhere/Release"
for f in /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
	[ -f "$f" ] && cp "$f" "$T_TMP/parts/"
done
echo "deb [trusted=yes] file:$repo nowhere main" >"$T_TMP/parts/engpass-broken.list"
broken="file:$repo/dists/nowhere/main/binary-$arch/Packages"

# dpkg-query: jq missing, the rest installed.
cat >"$T_TMP/bin/dpkg-query" <<'EOF'
#!/bin/sh
for a; do :; done
[ "$a" = jq ] && exit 1
printf 'install ok installed'
EOF
chmod 755 "$T_TMP/bin/dpkg-query"

export ENGPASS_APT_OPTS="-o Dir::Etc::SourceParts=$T_TMP/parts" ENGPASS_APT_TRIES=2 ENGPASS_APT_WAIT=1
RC=0
PATH="$T_TMP/bin:$PATH" "$ROOT/scripts/deps" test >"$T_TMP/out" 2>"$T_TMP/err" </dev/null || RC=$?
sed 's/^/# /' "$T_TMP/err"
check "deps with a broken index it does not need: exits 0" [ "$RC" = 0 ]
check "... installs what is missing (jq)" grep -q "scripts/deps: installing jq" "$T_TMP/err"
check "... retried the update" grep -q "apt-get update failed (try 1 of 2, exit 100); again in 1s" "$T_TMP/err"
check "... names the broken index and apt's reason" grep -qF "  $broken (Hash Sum mismatch)" "$T_TMP/err"
check "... says it goes on" grep -q "going on: every package needed is installable" "$T_TMP/err"

# A package that only the broken index would hold: named, with the index.
RC=0
ENGPASS_APT_TRIES=1 sh -c '. "$1/scripts/apt.sh"; apt_update t; apt_install t engpass-nowhere' sh "$ROOT" \
	>"$T_TMP/out" 2>"$T_TMP/err" </dev/null || RC=$?
sed 's/^/# /' "$T_TMP/err"
check "a package apt cannot install: fails" [ "$RC" = 1 ]
check "... names the package and apt's reason" \
	grep -q "t: cannot install 'engpass-nowhere': Unable to locate package engpass-nowhere" "$T_TMP/err"
check "... and the index the update could not fetch" sh -c \
	"grep -q 'lack the indexes apt-get update could not fetch' '$T_TMP/err' && grep -qF '  $broken' '$T_TMP/err'"

done_testing
