#!/bin/sh
# SPDX-License-Identifier: MIT
# The machine formats read by standard tools: --format csv through
# python3's csv module (rows, columns, RFC 4180 quoting of a host name with
# a comma, a quote and a newline), --format jsonl / --json-stream through
# jq (every line JSON, start -> intervals -> end, the end the whole
# document, the intervals arriving while the step runs).
. "$(dirname "$0")/lib.sh"

if ! command -v python3 >/dev/null; then
	echo "1..0 # SKIP no python3 to read the CSV with"
	exit 0
fi

# pycsv NAME SCRIPT: passes when the python SCRIPT (with rows = the parsed
# $T_TMP/out as dicts, hdr = its header) exits 0.
pycsv() {
	if python3 -c "import csv, sys
with open('$T_TMP/out', newline='') as f:
    lines = list(csv.reader(f))
hdr, body = lines[0], lines[1:]
assert all(len(r) == len(hdr) for r in body), 'ragged rows'
rows = [dict(zip(hdr, r)) for r in body]
$2" 2>"$T_TMP/py"; then ok "$1"; else not_ok "$1" "$(tail -3 "$T_TMP/py")"; fi
}

# A host name that needs every kind of quoting: a comma, a double quote, a newline.
HOST=$(printf 'box "one", rack\n2')
export ENGPASS_HOST="$HOST"

run null --no-sample --no-history --format csv
check "csv: exits 0" [ "$RC" = 0 ]
pycsv "csv: a header and one row, every row as wide as the header" 'assert len(rows) == 1, rows'
pycsv "csv: the columns a person reads first, units in their names" '
for c in ("host", "time", "bench", "step", "status", "headline", "values", "lat_p99_ns", "verdict_resource"):
    assert c in hdr, c
assert hdr.index("lat_p99_ns") < hdr.index("verdict_resource")'
pycsv "csv: the figures are the JSON document's, in base units" '
r = rows[0]
assert (r["bench"], r["step"], r["status"]) == ("null", "null", "ok"), r
assert float(r["values"]) == 100000 and r["headline"] == "lat_p99_ns"
assert 0 < float(r["lat_p50_ns"]) <= float(r["lat_p99_ns"]) <= float(r["lat_max_ns"])'
pycsv "csv: a host with a comma, a quote and a newline reads back whole" '
assert rows[0]["host"] == "box \"one\", rack\n2", repr(rows[0]["host"])'
check "csv: that host is quoted with its quotes doubled (RFC 4180)" \
	grep -q '^"box ""one"", rack$' "$T_TMP/out"

run null --no-sample --no-history --format csv --outcome fail
check "csv: a failed step exits 1 and says why on stderr" sh -c "[ '$RC' = 1 ] && grep -q 'failed' '$T_TMP/err'"
pycsv "csv: a failed step is a row with its reason and empty figures" '
r = rows[0]
assert r["status"] == "failed" and "fail" in r["reason"], r
assert r["verdict_resource"] == ""'

# Several steps of one run: one header. A sweep labels each combination.
run sweep 'null --no-sample' --values 1000,2000 --format csv --no-history
check "csv: sweep exits 0" [ "$RC" = 0 ]
pycsv "csv: sweep gives a row per combination, the combination in its column" '
assert [r["sweep"] for r in rows] == ["--values 1000", "--values 2000"], rows
assert [float(r["values"]) for r in rows] == [1000, 2000]'
check "csv: stdout is the CSV only (sweep's progress stays off)" sh -c "! grep -q '^engpass sweep' '$T_TMP/out'"
run sweep 'null --no-sample' --values 1000 --format jsonl --no-history
check "jsonl: sweep refuses it as a usage error" sh -c "[ '$RC' = 2 ] && grep -q 'jsonl' '$T_TMP/err'"
run quick --skip mem,disk,net,latency,ladder --format csv --no-history --no-report
check "csv: quick (its cpu part) exits 0" [ "$RC" = 0 ]
pycsv "csv: quick gives a row per step, stdout the CSV only" '
assert len(rows) >= 1 and all(r["bench"] == "cpu" for r in rows), rows
assert all(r["headline"] in hdr for r in rows if r["status"] == "ok")'
run quick --format jsonl --no-history --no-report
check "jsonl: quick refuses it as a usage error" [ "$RC" = 2 ]
run null --no-sample --no-history --json --format csv
check "--json with --format csv is a usage error" [ "$RC" = 2 ]
unset ENGPASS_HOST

# The stream: 1 s of a spinning thread sampled every 100 ms.
run null --values 10 --time 1s --interval 100ms --format jsonl --no-history
check "jsonl: exits 0" [ "$RC" = 0 ]
if jq -c . "$T_TMP/out" >/dev/null 2>&1 && [ -s "$T_TMP/out" ]; then ok "jsonl: every line is JSON"; else not_ok "jsonl: every line is JSON"; fi
jq -s . "$T_TMP/out" >"$T_TMP/all.json" 2>/dev/null
check "jsonl: one object per line" sh -c "[ \$(wc -l <'$T_TMP/out') = \$(jq length '$T_TMP/all.json') ]"
jqt "jsonl: start first, end last, intervals between" \
	'(.[0].event == "start") and (.[-1].event == "end") and ([.[1:-1][].event] | all(. == "interval"))' "$T_TMP/all.json"
jqt "jsonl: several intervals in a 1 s step at 100 ms" '[.[] | select(.event == "interval")] | length >= 5' "$T_TMP/all.json"
jqt "jsonl: intervals in time order, with CPU busy in 0..100" '[.[] | select(.event == "interval") | .data.sample] |
	(map(.t_seconds) | . == sort) and all(.cpu_busy_percent == null or (.cpu_busy_percent >= 0 and .cpu_busy_percent <= 100))' "$T_TMP/all.json"
jqt "jsonl: an interval names its step and benchmark" \
	'[.[] | select(.event == "interval") | .data] | all(.step_index == 0 and .bench == "null" and has("progress_percent"))' "$T_TMP/all.json"
jqt "jsonl: each interval has its wall time, after the run's start, in order" '.[0].data.time_unix_ns as $t0 |
	[.[] | select(.event == "interval") | .data.time_unix_ns] | (.[0] > $t0) and (. == sort)' "$T_TMP/all.json"
jqt "jsonl: start carries the run's header" '.[0].data | .schema == "engpass/1" and (.command | test("null"))' "$T_TMP/all.json"
jqt "jsonl: the last line is the whole document (results, series, verdict)" \
	'.[-1].data | .schema == "engpass/1" and (.results | length == 1) and (.results[0].series | length >= 5) and (.results[0].verdict | has("resource"))' "$T_TMP/all.json"
jqt "jsonl: the document's series has the intervals streamed" \
	'([.[] | select(.event == "interval")] | length) == (.[-1].data.results[0].series | length)' "$T_TMP/all.json"

# Live: a jq -c pipeline sees the intervals while the step runs, not all at the end.
(cd "$T_TMP" && python3 -c '
import subprocess, sys, time
t0 = time.monotonic()
p = subprocess.Popen(["sh", "-c", "\"$ENGPASS\" null --values 10 --time 1500ms --interval 100ms --json-stream --no-history 2>/dev/null | jq -c --unbuffered .event"], stdout=subprocess.PIPE)
for l in iter(p.stdout.readline, b""):
    print("%.3f %s" % (time.monotonic() - t0, l.decode().strip()))
sys.exit(p.wait())' >"$T_TMP/live")
check "live: --json-stream's lines reach jq -c as they are written (first interval >= 0.5 s before the end)" \
	awk '$2 == "\"interval\"" && !f { f = $1 } $2 == "\"end\"" { e = $1 } END { exit !(f != "" && e - f >= 0.5) }' "$T_TMP/live"

run null --values 10 --time 300ms --no-sample --format jsonl --no-history
EVENTS=$(jq -r .event "$T_TMP/out" 2>/dev/null | tr '\n' ' ')
check "jsonl --no-sample: start and end only" [ "$RC.$EVENTS" = "0.start end " ]

# A server emits a result per test: CSV keeps one header (the first test's columns) for its rows
# and its closing row; the stream has a result line per test before its end.
PORT=$((30000 + $$ % 20000))
SRV=
trap 'if [ -n "$SRV" ]; then kill "$SRV" 2>/dev/null; wait "$SRV" 2>/dev/null; fi; rm -rf "$T_TMP"' EXIT INT TERM
for fmt in csv jsonl; do
	"$ENGPASS" net -s -p "$PORT" --format "$fmt" --no-history >"$T_TMP/srv.$fmt" 2>"$T_TMP/srv.err" &
	SRV=$!
	for _ in 1 2 3 4 5 6 7 8 9 10; do grep -q listening "$T_TMP/srv.err" && break; sleep 0.2; done
	"$ENGPASS" net -c 127.0.0.1 -p "$PORT" -t 1 -q --no-history >/dev/null 2>&1
	"$ENGPASS" net -c 127.0.0.1 -p "$PORT" -t 1 -u -b 20M -q --no-history >/dev/null 2>&1
	sleep 0.3
	# SIGINT is ignored in a background job of a script: SIGTERM stops the server the same soft way.
	kill -TERM "$SRV"
	wait "$SRV" 2>/dev/null
	SRV=
	PORT=$((PORT + 1))
done
cp "$T_TMP/srv.csv" "$T_TMP/out"
pycsv "csv: net -s writes one header, a row per test and its closing row" '
assert len(rows) == 3 and all(r["step"] == "server" for r in rows), rows
assert float(rows[0]["throughput_bits_per_second"]) > 0 and rows[-1]["incomplete"] == "true"'
jq -s . "$T_TMP/srv.jsonl" >"$T_TMP/srv.json" 2>/dev/null
jqt "jsonl: net -s streams start, a result line per test, end" \
	'[.[].event | select(. != "interval")] == ["start", "result", "result", "end"]' "$T_TMP/srv.json"

done_testing
