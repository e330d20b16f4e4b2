# SPDX-License-Identifier: MIT
# shellcheck shell=sh disable=SC2001
# The apt steps of scripts/deps and scripts/cross, sourced by both, made to
# survive a flaky mirror (issue 37): one index that is mid-sync (a size or
# hash mismatch for days, say the armhf security index once `make cross`
# has added armhf) must not stop a set-up that needs nothing from it.
#
#   apt_update WHO      apt-get update, retried while it fails or leaves an
#                       index unfetched: ENGPASS_APT_TRIES tries (default 3),
#                       ENGPASS_APT_WAIT seconds before the second (default
#                       10), doubling. Then says which indexes it could not
#                       fetch ($APT_BROKEN, one per line) and returns 0:
#                       whether that matters is for apt_install to judge.
#   apt_install WHO PKG...
#                       installs PKG... when apt can (apt-get install
#                       --simulate first; --no-upgrade: a PKG already
#                       installed is left as it is): a broken index the packages do
#                       not need is said and not fatal. Otherwise names
#                       each package apt cannot install, with apt's reason
#                       and the indexes the update could not fetch, and
#                       returns 1.
#
# WHO prefixes every line on stderr (scripts/deps, scripts/cross). Extra apt
# options come from ENGPASS_APT_OPTS (words, e.g. "-o
# Dir::Etc::SourceParts=DIR": tests/cli/deps.sh adds a broken source so).
# Both wait up to 300 s for another apt on this machine rather than fail.
# Variables of their own start with _apt_, so the callers' stay untouched.

APT_BROKEN=""

# _apt_get ARGS...: apt-get with the lock timeout and ENGPASS_APT_OPTS.
_apt_get() {
	# shellcheck disable=SC2086
	DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 ${ENGPASS_APT_OPTS:-} "$@"
}

apt_update() {
	_apt_who=$1
	_apt_log=$(mktemp /tmp/engpass-apt.XXXXXX)
	_apt_tries=${ENGPASS_APT_TRIES:-3}
	_apt_wait=${ENGPASS_APT_WAIT:-10}
	_apt_i=1
	while :; do
		_apt_rc=0
		_apt_get update -q >"$_apt_log" 2>&1 || _apt_rc=$?
		# "E: Failed to fetch URL  REASON" (a hash or size mismatch: exit
		# 100) or "W: Failed to fetch ..." (a mirror that did not answer:
		# apt exits 0 and uses the old index, if any).
		APT_BROKEN=$(sed -n 's/^[EW]: Failed to fetch \([^ ]*\)  *\(.*\)$/\1 (\2)/p' "$_apt_log")
		if [ "$_apt_rc" = 0 ] && [ -z "$APT_BROKEN" ]; then
			rm -f "$_apt_log"
			return 0
		fi
		[ "$_apt_i" -lt "$_apt_tries" ] || break
		if [ "$_apt_rc" = 0 ]; then
			echo "$_apt_who: apt-get update left an index unfetched (try $_apt_i of $_apt_tries); again in ${_apt_wait}s" >&2
		else
			echo "$_apt_who: apt-get update failed (try $_apt_i of $_apt_tries, exit $_apt_rc); again in ${_apt_wait}s" >&2
		fi
		sleep "$_apt_wait"
		_apt_wait=$((_apt_wait * 2))
		_apt_i=$((_apt_i + 1))
	done
	if [ -n "$APT_BROKEN" ]; then
		echo "$_apt_who: apt-get update could not fetch, after $_apt_tries tries:" >&2
		echo "$APT_BROKEN" | sed 's/^/  /' >&2
	else
		# Failed without naming an index (a broken sources entry, a lock):
		# apt's own lines say why.
		echo "$_apt_who: apt-get update failed (exit $_apt_rc) after $_apt_tries tries:" >&2
		grep '^[EW]:' "$_apt_log" | head -5 | sed 's/^/  /' >&2
	fi
	rm -f "$_apt_log"
	return 0
}

apt_install() {
	_apt_who=$1
	shift
	_apt_log=$(mktemp /tmp/engpass-apt.XXXXXX)
	if _apt_get install --simulate -q --no-install-recommends "$@" >"$_apt_log" 2>&1; then
		[ -z "$APT_BROKEN" ] ||
			echo "$_apt_who: going on: every package needed is installable without those indexes" >&2
		if _apt_get install -y -q --no-install-recommends --no-upgrade "$@" >"$_apt_log" 2>&1; then
			rm -f "$_apt_log"
			return 0
		fi
		echo "$_apt_who: apt-get install failed:" >&2
		grep '^E:' "$_apt_log" | head -5 | sed 's/^/  /' >&2
		rm -f "$_apt_log"
		return 1
	fi
	# Which ones: each on its own (a conflict between them names none).
	_apt_named=0
	for _apt_p; do
		_apt_get install --simulate -q --no-install-recommends "$_apt_p" >"$_apt_log" 2>&1 && continue
		echo "$_apt_who: cannot install '$_apt_p': $(sed -n 's/^E: //p' "$_apt_log" | head -1)" >&2
		_apt_named=1
	done
	if [ "$_apt_named" = 0 ]; then
		_apt_get install --simulate -q --no-install-recommends "$@" >"$_apt_log" 2>&1
		echo "$_apt_who: cannot install the packages together:" >&2
		grep '^E:\|^ ' "$_apt_log" | head -8 | sed 's/^/  /' >&2
	fi
	if [ -n "$APT_BROKEN" ]; then
		echo "$_apt_who: the package lists lack the indexes apt-get update could not fetch:" >&2
		echo "$APT_BROKEN" | sed 's/^/  /' >&2
	fi
	rm -f "$_apt_log"
	return 1
}
