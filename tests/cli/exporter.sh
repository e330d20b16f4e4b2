#!/bin/sh
# SPDX-License-Identifier: MIT
# engpass exporter: serves the newest stored results at /metrics; hostile
# requests are answered or dropped without hanging it; a real Prometheus
# server scrapes it and its query API returns an engpass_ series. Its
# timestamps are the run's start and each step's end, not the scrape's;
# two runs on different temp directories add no new series.
. "$(dirname "$0")/lib.sh"
needs_feature sqlite
DB="$T_TMP/h.db"
PIDS=""
trap 'for p in $PIDS; do kill $p 2>/dev/null; done; rm -rf "$T_TMP"' EXIT INT TERM

# A free-ish port from the PID; both servers retry the next one when taken.
base=$((20000 + $$ % 20000))

run null --time 300ms --interval 50ms --db "$DB"
t0=$(date +%s)
run null --values 10 --no-sample --db "$DB" --seed 5
t1=$(date +%s)

port=$base
"$ENGPASS" exporter --listen 127.0.0.1:$port --db "$DB" 2>"$T_TMP/exp.err" &
EXP=$!
PIDS="$PIDS $EXP"
for i in 1 2 3 4 5 6 7 8 9 10; do
	curl -s -o /dev/null "http://127.0.0.1:$port/" && break
	sleep 0.2
done
URL="http://127.0.0.1:$port"

code=$(curl -s -o "$T_TMP/m.txt" -w '%{http_code}' "$URL/metrics")
check "/metrics answers 200" [ "$code" = 200 ]
if promtool check metrics <"$T_TMP/m.txt" >"$T_TMP/lint" 2>&1; then
	ok "promtool accepts /metrics"
else
	not_ok "promtool accepts /metrics" "$(head -10 "$T_TMP/lint")"
fi
check "/metrics serves the newest run of each benchmark" grep -q '^engpass_null_values{.*} 10$' "$T_TMP/m.txt"
check "... and only that run" [ "$(grep -c '^engpass_null_values{' "$T_TMP/m.txt")" = 1 ]
check "a seed is no label (a new series every run)" sh -c "! grep -q 'seed=' '$T_TMP/m.txt'"
ts=$(sed -n 's/^engpass_run_timestamp_seconds \([0-9]*\).*/\1/p' "$T_TMP/m.txt")
check "engpass_run_timestamp_seconds is the newest run's start ($t0 <= ${ts:-none} <= $t1)" \
	[ -n "$ts" ] && [ "$ts" -ge "$t0" ] && [ "$ts" -le "$t1" ]
st=$(sed -n 's/^engpass_step_timestamp_seconds{.*command="null".*} \([0-9]*\).*/\1/p' "$T_TMP/m.txt" | head -1)
check "engpass_step_timestamp_seconds tells when the figures were taken" \
	[ -n "$st" ] && [ "$st" -ge "$t0" ] && [ "$st" -le "$t1" ]
check "unknown path is 404" [ "$(curl -s -o /dev/null -w '%{http_code}' "$URL/nope")" = 404 ]
check "POST is 405" [ "$(curl -s -o /dev/null -w '%{http_code}' -X POST "$URL/metrics")" = 405 ]
printf 'garbage\r\n\r\n' | curl -s --max-time 3 "telnet://127.0.0.1:$port" >"$T_TMP/raw" 2>/dev/null
check "a malformed request gets 400" grep -q "^HTTP/1.1 400" "$T_TMP/raw"
head -c 20000 /dev/zero | tr '\0' 'a' | curl -s --max-time 3 "telnet://127.0.0.1:$port" >"$T_TMP/raw" 2>/dev/null
check "an oversized request head gets 431" grep -q "^HTTP/1.1 431" "$T_TMP/raw"
check "it still answers after hostile requests" [ "$(curl -s -o /dev/null -w '%{http_code}' "$URL/metrics")" = 200 ]

# Two disk runs on two temp directories: the same label sets, only new values. A
# figure that is unknown in one run (no network traffic in the window) leaves its
# metric out, so the sets compared are the label sets, without the labels whose
# values are a small fixed enumeration (the verdict's resource, a CPU number,
# the status, a quantile, a sensor name).
series() {
	grep '^engpass_.*command="disk"' "$1" | sed -e 's/^[^{]*//' -e 's/ [^ ]*$//' \
		-e 's/,\(resource\|cpu\|status\|quantile\|sensor\|state\|what\)="[^"]*"//g' | sort -u
}
mkdir "$T_TMP/d1" "$T_TMP/d2"
run disk "$T_TMP/d1" --size 4M --db "$DB"
sleep 1.1	# a body is reused for 1 s
curl -s -o "$T_TMP/m1.txt" "$URL/metrics"
run disk "$T_TMP/d2" --size 4M --db "$DB"
sleep 1.1
curl -s -o "$T_TMP/m2.txt" "$URL/metrics"
series "$T_TMP/m1.txt" >"$T_TMP/s1"
series "$T_TMP/m2.txt" >"$T_TMP/s2"
check "the first disk run gave series" [ -s "$T_TMP/s1" ]
if diff -u "$T_TMP/s1" "$T_TMP/s2" >"$T_TMP/sdiff"; then
	ok "a second run on another temp directory adds no new series"
else
	not_ok "a second run on another temp directory adds no new series" "$(head -10 "$T_TMP/sdiff")"
fi
check "no label carries a path" sh -c "! grep -q '=\"/' '$T_TMP/m2.txt'"
check "the values are the second run's" sh -c "! cmp -s '$T_TMP/m1.txt' '$T_TMP/m2.txt'"
if promtool check metrics <"$T_TMP/m2.txt" >"$T_TMP/lint" 2>&1; then
	ok "promtool accepts /metrics with disk results"
else
	not_ok "promtool accepts /metrics with disk results" "$(head -10 "$T_TMP/lint")"
fi

# The Grafana dashboard of docs/fleet: its queries parse, and name metrics engpass writes.
DASH="$ENGPASS_TESTS/../docs/fleet/grafana-dashboard.json"
run cpu --cipher chacha20-poly1305 --size 1400 --lib sodium --time 100ms --no-sample --prom "$T_TMP/cpu.prom"
{
	echo "groups:"
	echo "  - name: dashboard"
	echo "    rules:"
	jq -r '.panels[].targets[].expr' "$DASH" | awk '{ gsub(/\\/, "\\\\"); gsub(/"/, "\\\""); printf "      - record: dashboard:q%d\n        expr: \"%s\"\n", NR, $0 }'
} >"$T_TMP/dash.yml"
if promtool check rules "$T_TMP/dash.yml" >"$T_TMP/lint" 2>&1; then
	ok "the dashboard's queries parse"
else
	not_ok "the dashboard's queries parse" "$(head -10 "$T_TMP/lint")"
fi
missing=""
for m in $(grep -o 'engpass_[a-z0-9_]*' "$DASH" | sort -u); do
	grep -q "^$m[{ ]" "$T_TMP/m2.txt" "$T_TMP/cpu.prom" || missing="$missing $m"
done
check "the dashboard names only metrics engpass writes${missing:+ (missing:$missing)}" [ -z "$missing" ]

run exporter --listen 127.0.0.1:$port --db "$DB"
check "a port already taken is one line, exit 2" sh -c "[ $RC = 2 ] && grep -q 'cannot listen.*in use' '$T_TMP/err'"
run exporter --listen localhost --db "$DB"
check "a malformed --listen is a usage error" [ "$RC" = 2 ]

# A real Prometheus server: own config and data dir, 1 s scrapes.
pport=$((port + 1))
cat >"$T_TMP/prom.yml" <<YML
global:
  scrape_interval: 1s
scrape_configs:
  - job_name: engpass
    static_configs:
      - targets: ['127.0.0.1:$port']
YML
prometheus --config.file="$T_TMP/prom.yml" --storage.tsdb.path="$T_TMP/tsdb" \
	--web.listen-address=127.0.0.1:$pport >"$T_TMP/prom.log" 2>&1 &
PROM=$!
PIDS="$PIDS $PROM"
found=""
for i in $(seq 1 60); do
	if curl -s "http://127.0.0.1:$pport/api/v1/query?query=engpass_null_values" >"$T_TMP/q.json" 2>/dev/null &&
	   jq -e '.data.result | length > 0' "$T_TMP/q.json" >/dev/null 2>&1; then
		found=yes
		break
	fi
	sleep 0.5
done
check "Prometheus scraped the exporter and returns an engpass_ series" [ "$found" = yes ]
curl -s -o "$T_TMP/m3.txt" "$URL/metrics"
check "the run timestamp does not move with the scrape" \
	[ "$(grep '^engpass_run_timestamp_seconds' "$T_TMP/m2.txt")" = "$(grep '^engpass_run_timestamp_seconds' "$T_TMP/m3.txt")" ]
jqt "the series carries its labels and value" \
	'.data.result[0].metric.command == "null" and .data.result[0].value[1] == "10"' "$T_TMP/q.json"
kill $PROM 2>/dev/null
wait $PROM 2>/dev/null

kill -TERM $EXP
RC=0
wait $EXP || RC=$?
check "SIGTERM ends the exporter with status 0" [ "$RC" = 0 ]

done_testing
