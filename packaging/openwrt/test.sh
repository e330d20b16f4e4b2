#!/bin/sh
# SPDX-License-Identifier: MIT
# The package test the openwrt/packages CI runs after installing a package:
#   sh test.sh PKG_NAME PKG_VERSION      (the version without its release)
# in an OpenWrt root file system (qemu user emulation for other targets);
# exit 0 passes. tests/cli/openwrt.sh runs it against a native build with
# `engpass` first on PATH. Needs only busybox; a port is picked from the PID
# unless ENGPASS_TEST_PORT names one.

PKG_NAME=${1:?usage: test.sh PKG_NAME PKG_VERSION}
PKG_VERSION=${2:?usage: test.sh PKG_NAME PKG_VERSION}
T=$(mktemp -d /tmp/engpass-test.XXXXXX) || exit 1
PIDS=""
SERVICE=""
cleanup() {
	for p in $PIDS; do kill "$p" 2>/dev/null; done
	if [ -n "$SERVICE" ]; then
		/etc/init.d/engpass stop
		uci revert engpass
	fi
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
PORT=${ENGPASS_TEST_PORT:-$((40000 + $$ % 10000))}

fail() {
	echo "FAIL: $1" >&2
	[ -f "$T/err" ] && sed 's/^/  /' "$T/err" >&2
	exit 1
}
pass() { echo "ok: $1"; }
# feature NAME: true when `engpass --version` lists NAME on (dlopen: loads here, for SQLite)
feature() { grep -Eq "^  $1 +on( \(dlopen: loads here\))?\$" "$T/version"; }
# nap: a quarter second (busybox's sleep takes fractions only with FEATURE_FLOAT_SLEEP)
nap() { sleep 0.25 2>/dev/null || sleep 1; }
# scrape PORT: the exporter's /metrics into $T/metrics (OpenWrt's wget is uclient-fetch or busybox's)
scrape() { wget -q -O - "http://127.0.0.1:$1/metrics" >"$T/metrics" 2>/dev/null; }
# retry TRIES WHAT COMMAND...: runs COMMAND until it succeeds, a nap apart; fails with WHAT
retry() {
	tries=$1 what=$2
	shift 2
	i=0
	until "$@"; do
		i=$((i + 1))
		[ "$i" -lt "$tries" ] || fail "$what"
		nap
	done
}
net_client() { engpass net client 127.0.0.1 --port "$PORT" --time 1s --no-history --json >"$T/out" 2>"$T/err"; }

case "$PKG_NAME" in
engpass | engpass-full) ;;
*)
	echo "Untested package: $PKG_NAME" >&2
	exit 1
	;;
esac

# --- the version is the package's, and the variant's libraries are in
engpass --version >"$T/version" 2>"$T/err" || fail "engpass --version exits 0"
[ "$(head -n 1 "$T/version")" = "engpass $PKG_VERSION" ] ||
	fail "engpass --version says 'engpass $PKG_VERSION', not '$(head -n 1 "$T/version")'"
pass "engpass --version: $PKG_VERSION"
feature jansson || fail "built with jansson (net, report)"
if [ "$PKG_NAME" = engpass-full ]; then
	for f in libsodium mbedtls http-parser; do
		feature "$f" || fail "engpass-full built with $f"
	done
fi
pass "$PKG_NAME: its libraries are in"

# --- the benchmarks are listed and the pipeline runs end to end
engpass list >"$T/out" 2>"$T/err" || fail "engpass list exits 0"
for b in disk mem latency net cpu; do
	grep -q "^$b " "$T/out" || fail "engpass list names $b"
done
pass "engpass list"
engpass null --time 200ms --no-history --json >"$T/out" 2>"$T/err" || fail "engpass null --time 200ms exits 0"
grep -q '"status": *"ok"' "$T/out" || fail "engpass null: a result with status ok"
pass "engpass null --time 200ms"

# --- iperf3's wire protocol over loopback, 1 s
engpass net server --port "$PORT" --one-off --idle-timeout 20s >"$T/srv" 2>"$T/srv.err" </dev/null &
PIDS="$PIDS $!"
retry 20 "engpass net client against engpass net server on port $PORT" net_client
grep -q '"up_sent_bytes": *[1-9]' "$T/out" || fail "engpass net client: bytes sent"
pass "engpass net client/server over loopback"

# --- the ciphers of fastd and Transmission (engpass-full)
if [ "$PKG_NAME" = engpass-full ]; then
	engpass cpu --cipher salsa2012,chacha20-poly1305,aes-128-ctr --size 1400 --time 200ms --no-history --json \
		>"$T/out" 2>"$T/err" || fail "engpass cpu --cipher ... exits 0"
	n=$(grep -c '"cpu_throughput_bytes_per_second": *[1-9]' "$T/out")
	[ "$n" -ge 3 ] || fail "engpass cpu: 3 ciphers measured, $n were"
	pass "engpass cpu: salsa2012, chacha20-poly1305, aes-128-ctr measured"
fi

# --- history and exporter, where SQLite loads (engpass-full depends on it)
if feature sqlite; then
	engpass null --time 200ms --db "$T/history.db" >/dev/null 2>"$T/err" || fail "engpass null --db stores a run"
	PORT=$((PORT + 1))
	engpass exporter --listen "127.0.0.1:$PORT" --db "$T/history.db" 2>"$T/exp.err" &
	PIDS="$PIDS $!"
	retry 20 "engpass exporter answers on port $PORT" scrape "$PORT"
	grep -q '^engpass_' "$T/metrics" || fail "engpass exporter: engpass_ metrics"
	pass "engpass exporter serves the stored run"
else
	[ "$PKG_NAME" = engpass-full ] && fail "engpass-full: SQLite loads (libsqlite3)"
	echo "skip: history and exporter (libsqlite3 is not installed)"
fi

# --- the init script, where this is an installed package with procd
if [ -x /etc/init.d/engpass ] && command -v uci >/dev/null 2>&1 && feature sqlite; then
	PORT=$((PORT + 1))
	uci set engpass.exporter.enabled=1
	uci set engpass.exporter.listen="127.0.0.1:$PORT"
	uci set engpass.exporter.dir="$T"
	SERVICE=1	# stopped and its uci changes reverted by cleanup
	/etc/init.d/engpass start
	retry 40 "/etc/init.d/engpass start: the exporter answers on port $PORT" scrape "$PORT"
	pass "/etc/init.d/engpass starts the exporter"
else
	echo "skip: /etc/init.d/engpass (not an installed package with uci and SQLite)"
fi
exit 0
