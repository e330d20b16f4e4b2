#!/bin/sh
# SPDX-License-Identifier: MIT
# The OpenWrt package (packaging/openwrt, docs/embedded.md): what can be
# checked without the OpenWrt SDK, which this machine cannot fetch:
#   - the Makefile's MESON_ARGS name only options of meson_options.txt, set
#     every feature option in both variants, and PKG_VERSION is meson.build's;
#   - the procd init script and test.sh parse (sh -n, and busybox sh -n where
#     busybox is installed); the init script reads the options the UCI
#     config has;
#   - test.sh, as the feed's CI runs it, passes against this build's binary
#     for each variant whose libraries it has (natively both; in a cross
#     build's `make test-cross` the emulated binary, through lib.sh).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/netlib.sh"

ROOT=$(cd "$ENGPASS_TESTS/.." && pwd)
OW=$ROOT/packaging/openwrt
MK=$OW/Makefile

# ---- the Makefile against meson.build and meson_options.txt -------------------
opts=$(sed -n "s/^option('\([a-z_]*\)'.*/\1/p" "$ROOT/meson_options.txt")
features=$(sed -n "s/^option('\([a-z_]*\)', *type *: *'feature'.*/\1/p" "$ROOT/meson_options.txt")
used=$(grep -o -- '-D[a-z_]*=' "$MK" | sed 's/^-D//; s/=$//' | sort -u)
bad=""
for o in $used; do
	echo "$opts" | grep -qx "$o" || bad="$bad $o"
done
if [ -n "$used" ] && [ -z "$bad" ]; then
	ok "MESON_ARGS name only options of meson_options.txt ($(echo $used | wc -w))"
else
	not_ok "MESON_ARGS name only options of meson_options.txt" "unknown:${bad:- (no -D options found)}"
fi
# Where each -D is set: before the variant test (both), in its full branch, in the other.
awk '/^ifeq \(\$\(BUILD_VARIANT\),full\)/ { s = "full"; next }
     s == "full" && /^else/ { s = "minimal"; next }
     /^endif/ { s = "" }
     { while (match($0, /-D[a-z_]+=/)) { print (s == "" ? "both" : s), substr($0, RSTART + 2, RLENGTH - 3); $0 = substr($0, RSTART + RLENGTH) } }' \
	"$MK" >"$T_TMP/where"
missing=""
for f in $features; do
	for v in full minimal; do
		grep -Eqx "(both|$v) $f" "$T_TMP/where" || missing="$missing $f($v)"
	done
done
if [ -z "$missing" ]; then
	ok "every feature option of meson_options.txt is set in both variants (none left to 'auto')"
else
	not_ok "every feature option of meson_options.txt is set in both variants" "not set:$missing"
fi
check "the minimal variant disables the crypto libraries" \
	grep -Eqx 'minimal libsodium' "$T_TMP/where"
check "... and the full one enables libsodium, mbedTLS, http-parser" \
	sh -c "grep -c -E '^full (libsodium|mbedtls|http_parser)\$' '$T_TMP/where' | grep -qx 3"
mver=$(sed -n "s/^ *version : '\([^']*\)',*/\1/p" "$ROOT/meson.build" | head -n 1)
pver=$(sed -n 's/^PKG_VERSION:=//p' "$MK")
if [ -n "$mver" ] && [ "$mver" = "$pver" ]; then
	ok "PKG_VERSION is meson.build's version ($pver)"
else
	not_ok "PKG_VERSION is meson.build's version" "PKG_VERSION '$pver', meson.build '$mver'"
fi
check "PKG_VERSION is apk-valid (digits and dots, no release)" sh -c "echo '$pver' | grep -Eqx '[0-9]+(\\.[0-9]+)*'"
check "PKG_RELEASE is an integer" grep -Eqx 'PKG_RELEASE:=[0-9]+' "$MK"
for p in engpass engpass-full; do
	check "BuildPackage,$p" grep -qxF "\$(eval \$(call BuildPackage,$p))" "$MK"
done
check "engpass-full CONFLICTS with engpass" grep -Eq '^ *CONFLICTS:=engpass$' "$MK"
check "the package installs the files it names" \
	sh -c "for f in \$(grep -o '\./files/[a-z.]*' '$MK'); do [ -f '$OW'/\$f ] || exit 1; done"

# ---- the init script, its UCI config and test.sh parse ----------------------------
for f in files/engpass.init test.sh; do
	check "sh -n $f" sh -n "$OW/$f"
	if command -v busybox >/dev/null 2>&1; then
		check "busybox sh -n $f" busybox sh -n "$OW/$f"
	else
		skip "busybox sh -n $f" "busybox is not installed"
	fi
done
check "init script: procd, a respawning instance of engpass exporter" \
	sh -c "grep -qx 'USE_PROCD=1' '$OW/files/engpass.init' && grep -q 'procd_set_param respawn' '$OW/files/engpass.init' \
	       && grep -q 'procd_set_param command \"\$PROG\" exporter --listen' '$OW/files/engpass.init'"
for o in $(sed -n 's/^[[:space:]]*config_get[a-z_]* [a-z]* exporter \([a-z]*\).*/\1/p' "$OW/files/engpass.init"); do
	check "UCI config has the option the init script reads: $o" grep -Eq "^[[:space:]]+option $o '" "$OW/files/engpass.config"
done
check "UCI config: the exporter is off by default (it opens a port)" \
	grep -Eq "^[[:space:]]+option enabled '0'" "$OW/files/engpass.config"

# ---- test.sh as the feed's CI runs it, against this build ---------------------
mkdir -p "$T_TMP/bin"
ln -s "$ENGPASS" "$T_TMP/bin/engpass"
"$ENGPASS" --version >"$T_TMP/version" 2>&1
has() { grep -Eq "^  $1 +on" "$T_TMP/version"; }
while :; do
	new_port
	port_free $((PORT + 1)) && port_free $((PORT + 2)) && break
done
for p in engpass engpass-full; do
	need="jansson"
	# engpass-full depends on libsqlite3 and test.sh asks for it (history and exporter):
	# the router cross builds, SQLite off, skip it here.
	[ "$p" = engpass-full ] && need="jansson libsodium mbedtls http-parser sqlite"
	lack=""
	for f in $need; do has "$f" || lack="$lack $f"; done
	if [ -n "$lack" ]; then
		skip "test.sh $p $pver" "this build lacks$lack"
		continue
	fi
	RC=0
	(cd "$T_TMP" && PATH=$T_TMP/bin:$PATH ENGPASS_TEST_PORT=$PORT sh "$OW/test.sh" "$p" "$pver") \
		>"$T_TMP/t.out" 2>&1 </dev/null || RC=$?
	if [ "$RC" = 0 ]; then
		ok "test.sh $p $pver: $(grep -c '^ok:' "$T_TMP/t.out") checks passed"
	else
		not_ok "test.sh $p $pver exits 0" "$(cat "$T_TMP/t.out")"
	fi
done
RC=0
PATH=$T_TMP/bin:$PATH sh "$OW/test.sh" engpass 0.0.0-not-this >"$T_TMP/t.out" 2>&1 </dev/null || RC=$?
check "test.sh fails on a version that is not the binary's" [ "$RC" = 1 ]
RC=0
sh "$OW/test.sh" some-other-package 1.0 >"$T_TMP/t.out" 2>&1 </dev/null || RC=$?
check "test.sh fails for a package it does not know" [ "$RC" = 1 ]
done_testing
