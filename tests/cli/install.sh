#!/bin/sh
# SPDX-License-Identifier: MIT
# Installs like every Debian tool (issue 21): `engpass --version`/-V names the
# build's optional libraries; the manual page and the bash and zsh completion
# the build generates from the option tables render, parse and complete
# commands, options and enum values; `meson install` puts binary, manual,
# completion, systemd units and documents where Debian puts them (introspect
# and a real install into a DESTDIR); the units pass systemd-analyze verify;
# debian/ parses. The .deb itself is built by scripts/deb (docs/build.md).
. "$(dirname "$0")/lib.sh"

: "${ENGPASS_BUILD:?ENGPASS_BUILD must point at the build directory}"
ROOT=$(cd "$ENGPASS_TESTS/.." && pwd)
PKG=$ENGPASS_BUILD/packaging

# ---- --version / -V -------------------------------------------------------------
"$ENGPASS" --version >"$T_TMP/version" 2>&1
"$ENGPASS" -V >"$T_TMP/V" 2>&1
check "-V prints what --version prints" cmp -s "$T_TMP/version" "$T_TMP/V"
check "--version: first line is the version" grep -Eq '^engpass [0-9]+\.[0-9]+\.[0-9]+$' "$T_TMP/version"
for f in jansson libsodium openssl sqlite liburing http-parser libmnl; do
	check "--version: $f on or off (with why)" grep -Eq "^  $f +(on|off: .+)" "$T_TMP/version"
done
check "--version: the dlopen()ed libraries say whether they load here" \
	sh -c "grep -E '^  (openssl|sqlite) +on' '$T_TMP/version' | grep -vq dlopen && exit 1; exit 0"

# ---- the manual page ------------------------------------------------------------
MAN=$PKG/engpass.1
if [ ! -f "$MAN" ]; then
	not_ok "manual page built" "no $MAN"
else
	ok "manual page built"
	if command -v groff >/dev/null 2>&1; then
		groff -ww -z -man "$MAN" >"$T_TMP/groff" 2>&1
		check "groff -ww renders it without a warning" [ ! -s "$T_TMP/groff" ]
		[ -s "$T_TMP/groff" ] && sed 's/^/# /' "$T_TMP/groff" | head -5
	else
		skip "groff -ww renders it without a warning" "groff not installed (groff-base)"
	fi
	if command -v man >/dev/null 2>&1; then
		MANWIDTH=80 man --warnings -l "$MAN" >"$T_TMP/man.txt" 2>"$T_TMP/man.err"
		check "man --warnings -l renders it without a warning" [ ! -s "$T_TMP/man.err" ]
	else
		skip "man --warnings -l renders it without a warning" "man not installed (man-db)"
	fi
	# Every command --help lists has its section, and every option of disk's and
	# net's --help is in it (the page comes from the same tables).
	"$ENGPASS" --help | awk '/^(commands|benchmarks):/{on=1; next} /^$/{on=0} on{print $1}' >"$T_TMP/cmds"
	missing=""
	for c in $(cat "$T_TMP/cmds"); do
		grep -qx ".SS $(echo "$c" | sed 's/-/\\\\-/g')" "$MAN" || missing="$missing $c"
	done
	[ -s "$T_TMP/cmds" ] || missing="(no commands in --help)"
	check "a section for each of the $(wc -l <"$T_TMP/cmds") commands of --help${missing:+ (missing:$missing)}" \
		[ -z "$missing" ]
	missing=""
	for c in disk net latency; do
		for o in $("$ENGPASS" $c --help | grep -o -- '--[a-z0-9-]*' | sort -u); do
			grep -q -- "$(echo "$o" | sed 's/-/\\\\-/g')" "$MAN" || missing="$missing $c:$o"
		done
	done
	check "every option of disk, net and latency --help is in the page${missing:+ (missing:$missing)}" [ -z "$missing" ]
fi

# ---- bash completion --------------------------------------------------------------
# complete WORD...: the completions bash offers for the last word (given, maybe
# empty), from the generated file, as a shell started without rc files sees them.
complete_words() {
	bash --norc -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _engpass; printf "%s\n" "${COMPREPLY[@]}"' \
		_ "$PKG/engpass" "$@"
}
if [ ! -f "$PKG/engpass" ]; then
	not_ok "bash completion built" "no $PKG/engpass"
else
	check "bash -n: the completion parses" bash -n "$PKG/engpass"
	[ "$(complete_words engpass di)" = disk ] && ok "completes a command: 'engpass di' -> disk" ||
		not_ok "completes a command: 'engpass di' -> disk" "got: $(complete_words engpass di | tr '\n' ' ')"
	got=$(complete_words engpass disk --wor | tr '\n' ' ')
	[ "$got" = "--workload " ] && ok "completes an option: 'engpass disk --wor' -> --workload" ||
		not_ok "completes an option: 'engpass disk --wor' -> --workload" "got: $got"
	got=$(complete_words engpass net - | tr '\n' ' ')
	echo " $got" | grep -q -- ' -p .* -c .* -s ' && ok "completes short options: 'engpass net -' offers -p, -c, -s" ||
		not_ok "completes short options: 'engpass net -' offers -p, -c, -s" "got: $got"
	got=$(complete_words engpass disk --format "" | tr '\n' ' ')
	echo "$got" | grep -qw table && echo "$got" | grep -qw json &&
		ok "completes an enum value: 'engpass disk --format ' -> $got" ||
		not_ok "completes an enum value: 'engpass disk --format '" "got: $got"
	got=$(complete_words engpass disk --workload = ra | tr '\n' ' ')
	[ "$got" = "rand-read rand-write " ] && ok "completes --workload=ra (COMP_WORDBREAKS split) -> $got" ||
		not_ok "completes --workload=ra -> rand-read rand-write" "got: $got"
	got=$(complete_words engpass net "" | tr '\n' ' ')
	[ "$got" = "server client " ] && ok "completes net's verbs -> $got" || not_ok "completes net's verbs" "got: $got"
	got=$(complete_words engpass net server --bi | tr '\n' ' ')
	[ "$got" = "--bind " ] && ok "a verb's own option after the verb: 'net server --bi' -> --bind" ||
		not_ok "a verb's own option after the verb" "got: $got"
	mkdir -p "$T_TMP/dir/sub" && : >"$T_TMP/dir/file1"
	got=$(complete_words engpass disk "$T_TMP/dir/" | tr '\n' ' ')
	echo "$got" | grep -q "dir/sub" && echo "$got" | grep -q "dir/file1" &&
		ok "completes TARGET with files and directories" || not_ok "completes TARGET with files and directories" "got: $got"
	got=$(complete_words engpass disk --size "" | tr '\n' ' ')
	[ -z "$(echo "$got" | tr -d ' ')" ] && ok "offers nothing for a size value (no option names, no files)" ||
		not_ok "offers nothing for a size value" "got: $got"
fi

# ---- zsh completion ---------------------------------------------------------------
if [ ! -f "$PKG/_engpass" ]; then
	not_ok "zsh completion built" "no $PKG/_engpass"
elif command -v zsh >/dev/null 2>&1; then
	check "zsh -n: the zsh completion parses" zsh -n "$PKG/_engpass"
	check "zsh completion: #compdef engpass, an arm for disk with --workload's values" \
		sh -c "head -1 '$PKG/_engpass' | grep -qx '#compdef engpass' &&
		       grep -q -- \"--workload=\\[.*:(seq-read seq-write rand-read\" '$PKG/_engpass'"
else
	skip "zsh -n: the zsh completion parses" "zsh not installed (scripts/deps test installs it)"
fi

# ---- meson install ------------------------------------------------------------------
WANT="bin/engpass share/man/man1/engpass.1 share/bash-completion/completions/engpass
share/zsh/vendor-completions/_engpass lib/systemd/system/engpass-quick.service
lib/systemd/system/engpass-quick.timer lib/systemd/system/engpass-exporter.service
share/doc/engpass/README.md share/doc/engpass/docs"
if command -v meson >/dev/null 2>&1; then
	meson introspect --installed "$ENGPASS_BUILD" >"$T_TMP/installed" 2>&1
	missing=""
	for w in $WANT; do
		grep -q "/$w\"" "$T_TMP/installed" || missing="$missing $w"
	done
	check "meson introspect --installed lists binary, manual, completion, units, docs${missing:+ (missing:$missing)}" \
		[ -z "$missing" ]
	DEST=$T_TMP/dest
	meson install -C "$ENGPASS_BUILD" --no-rebuild --quiet --destdir "$DEST" >"$T_TMP/install.log" 2>&1
	check "meson install --destdir succeeds" [ $? = 0 ]
	PREFIX=$(meson introspect --buildoptions "$ENGPASS_BUILD" | jq -r '.[] | select(.name == "prefix") | .value')
	missing=""
	for w in $WANT share/doc/engpass/docs/fleet.md; do
		[ -f "$DEST$PREFIX/$w" ] || [ -f "$DEST/$w" ] || [ -d "$DEST$PREFIX/$w" ] || missing="$missing $w"
	done
	check "the installed tree has them all${missing:+ (missing:$missing)}" [ -z "$missing" ]
	UNITS=$(find "$DEST" -name 'engpass-*.service' -o -name 'engpass-*.timer' | sort)
	if command -v systemd-analyze >/dev/null 2>&1 && [ -n "$UNITS" ]; then
		# ExecStart points at PREFIX/bin/engpass, which is in DEST, not here:
		# verify copies that run the binary under test.
		mkdir -p "$T_TMP/units"
		for u in $UNITS; do
			sed "s|^ExecStart=[^ ]*engpass|ExecStart=$ENGPASS|" "$u" >"$T_TMP/units/$(basename "$u")"
		done
		# Documentation=man:engpass(1) is checked against the installed page.
		(cd "$T_TMP/units" && MANPATH=$(dirname "$(find "$DEST" -path '*/man1/engpass.1')")/.. \
			systemd-analyze verify ./*.service ./*.timer) >"$T_TMP/verify" 2>&1
		rc=$?
		grep engpass "$T_TMP/verify" | sed 's/^/# /' | head -5
		grep -q engpass "$T_TMP/verify" && rc=1
		check "systemd-analyze verify: the three units" [ "$rc" = 0 ]
	else
		skip "systemd-analyze verify: the three units" "systemd-analyze not installed"
	fi
else
	skip "meson introspect --installed" "meson not on PATH"
fi

# ---- debian/ ---------------------------------------------------------------------------
if command -v dpkg-parsechangelog >/dev/null 2>&1; then
	v=$(cd "$ROOT" && dpkg-parsechangelog -S Version)
	check "debian/changelog's version ($v) is the build's (--version)" \
		grep -qx "engpass ${v%%-*}" "$T_TMP/version"
else
	skip "debian/changelog parses" "dpkg-dev not installed"
fi
if command -v dh_listpackages >/dev/null 2>&1; then
	check "dh_listpackages: debian/control builds the package engpass" \
		sh -c "cd '$ROOT' && test \"\$(dh_listpackages 2>/dev/null)\" = engpass"
else
	skip "dh_listpackages" "debhelper not installed"
fi

done_testing
