# SPDX-License-Identifier: MIT
# Port helpers for the network tests (sourced after lib.sh): a free port
# that is never 5201, and waits for a listener to come or go; kill_pids
# stops the servers a test started (their PIDs in $PIDS), for its trap;
# ratio checks that two byte counts agree.
NEXT_PORT=$((52000 + ($$ % 300) * 3))
port_free() {
	! ss -Htan "( sport = :$1 )" 2>/dev/null | grep -q . && ! ss -Huan "( sport = :$1 )" 2>/dev/null | grep -q .
}
new_port() {
	while :; do
		NEXT_PORT=$((NEXT_PORT + 1))
		[ "$NEXT_PORT" -gt 52999 ] && NEXT_PORT=52000
		port_free "$NEXT_PORT" && break
	done
	PORT=$NEXT_PORT
}
not_listening() {
	! ss -Hltn "( sport = :$1 )" 2>/dev/null | grep -q .
}
wait_listen() {
	_w=0
	while [ $_w -lt 50 ]; do
		ss -Hltn "( sport = :$1 )" 2>/dev/null | grep -q . && return 0
		sleep 0.1
		_w=$((_w + 1))
	done
	return 1
}

kill_pids() {
	for p in ${PIDS:-}; do kill "$p" 2>/dev/null; done
	for p in ${PIDS:-}; do wait "$p" 2>/dev/null; done
}

# trap_pids: from now on, the exit of the test (also by INT or TERM) kills
# $PIDS (kill_pids) and removes $T_TMP. Starts with no PIDS.
trap_pids() {
	PIDS=""
	trap 'kill_pids; rm -rf "$T_TMP"' EXIT
	trap 'kill_pids; rm -rf "$T_TMP"; exit 1' INT TERM
}

# ratio NAME A B LO HI: passes when A/B is within [LO, HI].
ratio() {
	if awk -v a="$2" -v b="$3" -v lo="$4" -v hi="$5" \
		'BEGIN { exit !(a + 0 == a && b + 0 == b && b > 0 && a / b >= lo && a / b <= hi) }' 2>/dev/null; then
		ok "$1"
	else
		not_ok "$1" "a=$2 b=$3: a/b not within [$4, $5]"
	fi
}

# A net server's results are JSON lines (one per test served) and a final
# document: TESTS selects the tests' results.
TESTS='[.[].results[]? | select(.parameters.client != null)]'
# wait_tests FILE N: waits up to 10 s for the server to have written N tests.
wait_tests() {
	_w=0
	while [ $_w -lt 100 ]; do
		_n=$(jq -s "$TESTS | length" "$1" 2>/dev/null)
		[ "${_n:-0}" -ge "$2" ] && return 0
		sleep 0.1
		_w=$((_w + 1))
	done
	return 1
}
# srv_metric FILE N METRIC: metric of the N-th (0-based) test a server emitted.
srv_metric() {
	jq -s "$TESTS | .[$2].metrics.$3 // \"none\"" "$1" 2>/dev/null
}
# same NAME A B: passes when A and B are equal and not none or null.
same() {
	if [ "$2" = "$3" ] && [ "$2" != none ] && [ "$2" != null ]; then ok "$1"; else not_ok "$1" "'$2' != '$3'"; fi
}
