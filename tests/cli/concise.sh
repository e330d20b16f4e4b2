#!/bin/sh
# SPDX-License-Identifier: MIT
# The concise default text of each benchmark (issue 23): at most 100
# columns, at most 40 lines for one step, the figures right-aligned in one
# column, human labels (no JSON key such as read_io or lat_p99), and the
# layout equal to a masked golden file (figures replaced by '#'). The
# details (-v) add the parameters and the method. Short runs: the figures
# are not judged here, each benchmark's own test does that.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/netlib.sh"
PIDS=
trap 'kill_pids; rm -rf "$T_TMP"' EXIT INT TERM

# fits NAME MAXLINES: $T_TMP/out is at most 100 columns wide and MAXLINES long.
fits() {
	awk -v max="$2" '{ if (length($0) > w) w = length($0) } END { exit !(w <= 100 && NR <= max && NR > 0) }' \
		"$T_TMP/out" && ok "$1: <= 100 columns, <= $2 lines" ||
		not_ok "$1: <= 100 columns, <= $2 lines" "$(awk '{ if (length($0) > w) w = length($0) } END { print NR " lines, " w " columns" }' "$T_TMP/out")"
}

# The table of $T_TMP/out: from the line after the first blank one (its
# heading) to the next blank or tagged line; wrapped label lines (four
# blanks) are not rows.
table() {
	awk 'started && (/^$/ || /^  (verdict|next|note|limit) / || /^  time        / || /^  \(/ || /^  low\.\.high/) { exit }
		started && !/^    / { print }
		/^$/ && !started { started = 1 }' "$T_TMP/out"
}

# aligned NAME: every row of the table ends where its heading does (a
# two-column list: or where its left half does), so the figures share one
# right edge whatever the length of their labels.
aligned() {
	if table | awk 'NR == 1 { h = length($0); l = index($0, "value") + 4; next }
		{ n++; if (length($0) != h && length($0) != l) bad++ }
		END { exit !(n > 0 && !bad) }'; then
		ok "$1: figures right-aligned in one column"
	else
		not_ok "$1: figures right-aligned in one column" "$(table | head -12)"
	fi
}

# labels NAME: no JSON key (a word with an underscore) in the table.
labels() {
	if table | grep -q '[a-z0-9]_[a-z0-9]'; then
		not_ok "$1: human labels, no raw keys" "$(table | grep '[a-z0-9]_[a-z0-9]' | head -3)"
	else
		ok "$1: human labels, no raw keys"
	fi
}

# concise NAME MAXLINES [GOLDEN]: the checks above on $T_TMP/out.
concise() {
	check "$1 exits 0" [ "$RC" = 0 ]
	fits "$1" "$2"
	aligned "$1"
	labels "$1"
	if grep -q '^  \(parameters\|method\) ' "$T_TMP/out"; then
		not_ok "$1: no parameters or method without --details"
	else
		ok "$1: no parameters or method without --details"
	fi
	[ -n "${3:-}" ] && golden_masked "$3"
}

# null: deterministic, so its whole text is golden; -v adds the details.
run null --no-sample --no-history
concise "null" 40
golden null-concise.txt
run null --no-sample --no-history -v
check "null -v shows the parameters" grep -q '^  parameters  values: 100000' "$T_TMP/out"
check "null -v shows the method" grep -q '^  method      source: ' "$T_TMP/out"
check "null -v shows the histogram line" grep -q '^  histogram   lat: p50 ' "$T_TMP/out"
run null --no-sample --no-history --details
check "--details is -v" grep -q '^  parameters  values: 100000' "$T_TMP/out"
run null --no-sample --no-history --repeat 3 --values 1000
concise "null --repeat 3" 40

mkdir -p "$T_TMP/disk"
run disk "$T_TMP/disk" --size 16M --time 200ms --no-history -q
concise "disk on a directory" 40 disk-concise.txt
check "disk pairs MiB/s with MB/s" grep -q 'MiB/s (.* MB/s)\|GiB/s (.* GB/s)' "$T_TMP/out"
check "disk's request rate is a whole number" grep -q ' [0-9][0-9.]*[kM]\? /s' "$T_TMP/out"
if grep -q ' [0-9]*\.[0-9] /s' "$T_TMP/out"; then
	not_ok "no fraction on a request rate of 10 or more" "$(grep ' [0-9]*\.[0-9] /s' "$T_TMP/out")"
else
	ok "no fraction on a request rate of 10 or more"
fi
check "no columns legend without --details" sh -c "! grep -q '^  columns ' '$T_TMP/out'"
run disk "$T_TMP/disk" --workload seq-write --bs 64K --size 16M --time 200ms --buffered --no-history -q
concise "disk seq-write, one step" 40 disk-write-concise.txt
check "the headline comes first" sh -c "sed -n 4p '$T_TMP/out' | grep -q '^  write  '"
run disk "$T_TMP/disk" --workload seq-write --bs 64K --size 16M --time 200ms --buffered --no-history -q -v
check "-v lists every figure" grep -q 'CPU per I/O' "$T_TMP/out"
check "-v shows the method's limits, none too" grep -q '^              limit cpu quota: ' "$T_TMP/out"

run cpu --cipher none --size 1400 --time 200ms --no-history -q
concise "cpu, one cipher" 40 cpu-concise.txt
run cpu --cipher none --size 64,1400,16K --time 100ms --no-history -q
fits "cpu, three sizes" 60
check "cpu names each step whole" grep -q '^  none/16384B/builtin/1 thread ' "$T_TMP/out"
check "cpu says the per-GHz note once" [ "$(grep -c 'per-GHz figures use' "$T_TMP/out")" -le 1 ]

# (mem --latency, a two-column list, takes 10-30 s: test_render covers its layout.)
run mem --bandwidth --passes 1 --no-history -q
concise "mem --bandwidth" 40

run latency --task audio --load none --time 300ms --warmup 100ms --no-history -q
concise "latency, one cell" 40 latency-concise.txt

new_port
"$ENGPASS" net server --port "$PORT" --idle-timeout 30s -q >/dev/null 2>&1 </dev/null &
PIDS="$PIDS $!"
if wait_listen "$PORT"; then
	run net client 127.0.0.1 --port "$PORT" --time 1s --no-history -q
	concise "net client on loopback" 40 net-concise.txt
	check "net throughput in bit/s" grep -q 'bit/s' "$T_TMP/out"
else
	skip "net client on loopback" "the server did not listen"
fi

if command -v python3 >/dev/null; then
	mkdir -p "$T_TMP/www"
	head -c 1048576 /dev/zero >"$T_TMP/www/x"
	new_port
	(cd "$T_TMP/www" && exec python3 -m http.server "$PORT" --bind 127.0.0.1) >/dev/null 2>&1 </dev/null &
	PIDS="$PIDS $!"
	if wait_listen "$PORT"; then
		run fetch "http://127.0.0.1:$PORT/x" --no-history -q
		concise "fetch" 40 fetch-concise.txt
		mkdir -p "$T_TMP/dl"
		run download "http://127.0.0.1:$PORT/x" "$T_TMP/dl" --no-history -q
		# Which of its figures the table shows varies from run to run (the JSON
		# has the same 24), which shifts the two-to-a-line layout: the layout
		# checks, no golden.
		concise "download" 40
	else
		skip "fetch" "the HTTP server did not listen"
		skip "download" "the HTTP server did not listen"
	fi
else
	skip "fetch" "no python3 for an HTTP server"
	skip "download" "no python3 for an HTTP server"
fi

run watch --time 1s --no-history -q
concise "watch" 40

done_testing
