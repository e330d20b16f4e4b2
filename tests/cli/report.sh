#!/bin/sh
# SPDX-License-Identifier: MIT
# engpass report: an HTML page with SVG charts from a stored run or a JSON
# file. Checks that the page is self-contained (nothing fetched, no
# script), that strings from the document are escaped, that it is written
# atomically, that headless Chromium parses it into a DOM with every
# expected chart, and keeps a screenshot next to the binary as an artefact
# (report.png). The report of a stored quick run is read
# as a person would: bars for categories, lines only along a real axis, log
# axes where the figures span decades, a task x load grid, a CDF per
# histogram; its screenshots and PDF (at most 12 pages) are kept under
# report-screens/. Bad input: one line, exit 2.
. "$(dirname "$0")/lib.sh"
needs_feature sqlite jansson
DB="$T_TMP/h/history.db"
H="$T_TMP/html"
ART=$(dirname "$ENGPASS")
mkdir -p "$H"

# Chromium runs in its own session (setsid), so the trap can end it and
# every helper process it started, by process group; its crash handlers
# leave the group, so they are found by the scratch HOME they were given
# (only this test's own processes name it) and ended by PID.
CPID=
# (hom[e]: the pattern does not match grep's own command line)
leftovers() { grep -laE -- "$T_TMP/hom[e]" /proc/[0-9]*/cmdline 2>/dev/null | cut -d/ -f3; }
trap '[ -n "$CPID" ] && kill -- -"$CPID" 2>/dev/null; for p in $(leftovers); do kill "$p" 2>/dev/null; done; rm -rf "$T_TMP"' EXIT
trap 'exit 143' INT TERM

run null --time 1s --interval 100ms --db "$DB"
check "a sampled null run is stored" [ "$RC" = 0 ]
run null --time 300ms --interval 50ms --no-history --json
cp "$T_TMP/out" "$T_TMP/f.json"

run report 1 --db "$DB" --html "$H/out.html"
check "report RUN exits 0" [ "$RC" = 0 ]
check "... and prints the path it wrote" sh -c "[ \"\$(cat '$T_TMP/out')\" = '$H/out.html' ] && [ ! -s '$T_TMP/err' ]"
run report "$T_TMP/f.json" --html "$H/out2.html"
check "report FILE.json exits 0" [ "$RC" = 0 ]
check "both pages are written, nothing else is left in the directory" \
	sh -c "[ \"\$(ls -A '$H' | tr '\n' ' ')\" = 'out.html out2.html ' ]"
check "the page is readable by others as the umask allows (0644 under umask 022)" \
	sh -c "umask 022; '$ENGPASS' report '$T_TMP/f.json' --html '$H/mode.html' >/dev/null && [ \$(stat -c %a '$H/mode.html') = 644 ]"
rm -f "$H/mode.html"

for f in out.html out2.html; do
	check "$f is an HTML5 document" grep -q '^<!DOCTYPE html>' "$H/$f"
	check "$f fetches nothing (no http(s) or protocol-relative src/href/url)" \
		sh -c "! grep -Eiq '(src|href)[[:space:]]*=[[:space:]]*[\"'\'']?[[:space:]]*(https?:|//)|url\\([[:space:]]*[\"'\'']?(https?:|//)|@import' '$H/$f'"
	check "$f has no script" sh -c "! grep -qi '<script' '$H/$f'"
	for c in timeseries heatstrip histogram cdf; do
		check "$f has a chart $c" grep -q "class=\"chart $c\"" "$H/$f"
	done
done
check "the heat strip has a rectangle with a tooltip per sample and CPU" \
	grep -q '<rect [^>]*fill="#[0-9a-f]*"><title>cpu0 ' "$H/out.html"
check "the page shows the run's headline figure" grep -q 'p99: <b>[0-9.]* ms</b>' "$H/out.html"

# Writing over an existing page replaces it whole.
echo "old page" >"$H/out2.html"
run report "$T_TMP/f.json" --html "$H/out2.html"
check "an existing page is replaced" sh -c "[ '$RC' = 0 ] && grep -q '^<!DOCTYPE html>' '$H/out2.html' && ! grep -q 'old page' '$H/out2.html'"

# Hostile strings in the document come out as text, never as markup.
jq '.host = "<script>alert(1)</script>" | .results[0].step = "\"><svg onload=alert(2)>" |
    .results[0].notes = ["</title><script>alert(3)</script>"] |
    .results[0].parameters.x = "<img src=x onerror=alert(4)>" |
    .results[0].histograms["a\"><script>_ns"] = .results[0].histograms.lat_ns' \
	"$T_TMP/f.json" >"$T_TMP/evil.json"
run report "$T_TMP/evil.json" --html "$H/evil.html"
check "a document with markup in its strings renders" [ "$RC" = 0 ]
check "... escaped: no script, svg onload or img element from the document" \
	sh -c "! grep -Eqi '<script|<svg onload|<img' '$H/evil.html'"
check "... the strings are shown as text" grep -q '&lt;script&gt;alert(1)&lt;/script&gt;' "$H/evil.html"

# Several steps of one benchmark with the same metrics (a ladder over
# size_bytes), and a metric family over sizes inside one step.
jq '.results[0] as $r | .results = [
      ($r | .step = "ladder 16M" | .metrics = {"size_bytes": 16777216, "read_bytes_per_second": 9e9, "write_bytes_per_second": 1e9}),
      ($r | .step = "ladder 64M" | .metrics = {"size_bytes": 67108864, "read_bytes_per_second": 8e9, "write_bytes_per_second": 9e8}),
      ($r | .step = "ladder 256M" | .metrics = {"size_bytes": 268435456, "read_bytes_per_second": 2e8, "write_bytes_per_second": 1e8}),
      ($r | .bench = "mem" | .step = "latency" | del(.series) | del(.histograms) |
	.metrics = {"lat_4k_ns": 1.2, "lat_64k_ns": 4.1, "lat_1024k_ns": 12.5, "lat_16384k_ns": 95.0})]' \
	"$T_TMP/f.json" >"$T_TMP/steps.json"
run report "$T_TMP/steps.json" --html "$H/steps.html"
check "a run with several steps renders" [ "$RC" = 0 ]
check "... with a chart across the steps, over size on log axes" \
	grep -q 'class="chart steps curve" id="steps0-null-bytes_per_second" [^>]*data-x-scale="log" data-y-scale="log"' "$H/steps.html"
check "... and a curve over the sizes named in metric keys" grep -q 'class="chart curve" id="r3-curve-lat"' "$H/steps.html"
# A sweep of one numeric option is a real axis: lines over its values.
jq '.results[0] as $r | .results = [1, 2, 4, 8 | . as $t | $r | .sweep = "--threads \($t)" |
	.step = "null --threads \($t)" | .headline = "read_bytes_per_second" | .metrics = {"read_bytes_per_second": (1e8 * $t)}]' \
	"$T_TMP/f.json" >"$T_TMP/sweep.json"
run report "$T_TMP/sweep.json" --html "$H/sweep.html"
check "a sweep over --threads is a line over the thread count" \
	sh -c "[ '$RC' = 0 ] && grep -q 'class=\"chart steps curve\" id=\"steps0-null-bytes_per_second\"' '$H/sweep.html' &&
		grep -q '<figcaption>null: B/s over --threads (4 values)' '$H/sweep.html'"
jq '.results[1].sweep = "--workload torrent"' "$T_TMP/sweep.json" >"$T_TMP/sweep2.json"
run report "$T_TMP/sweep2.json" --html "$H/sweep2.html"
check "... a sweep over words is bars" grep -q 'class="chart steps bars" id="steps0-null-bytes_per_second"' "$H/sweep2.html"

# The report of a quick run (a stored `engpass quick --json` document from
# the development VM: trimmed series, paths and other processes' names
# replaced) as a reader meets it: the charts fit the data.
Q="$(dirname "$0")/../fixtures/report/quick.json"
run report "$Q" --html "$H/quick.html"
check "the report of a quick run renders" [ "$RC" = 0 ]
# One line per chart: its class, x scale, y scale, and "line" if it draws a line.
awk '/<svg class="chart /{c=$0; sub(/.*<svg class="chart /, "", c); sub(/".*/, "", c); x=$0; sub(/.*data-x-scale="/, "", x);
	sub(/".*/, "", x); y=$0; sub(/.*data-y-scale="/, "", y); sub(/".*/, "", y); l="-"}
	/<polyline class="line"/{l="line"}
	/<\/svg>/{print c "|" x "|" y "|" l}' "$H/quick.html" >"$T_TMP/charts"
check "... every chart says its axis scales" sh -c "[ -s '$T_TMP/charts' ] && ! grep -q '||' '$T_TMP/charts'"
check "... no line over categories: lines only along time, size or value" \
	sh -c "! grep '|line\$' '$T_TMP/charts' | grep -Ev '^(timeseries|heatstrip)\||^(curve|steps curve|cdf)\|log\|'"
check "... the steps of one benchmark (ciphers, disk steps, rr depths) are bars" \
	sh -c "[ \$(grep -c '^steps bars|linear|linear|-\$' '$T_TMP/charts') -ge 3 ]"
check "... the memory latency curve is on log-log axes" \
	grep -q 'class="chart curve" id="r4-curve-lat" [^>]*data-x-scale="log" data-y-scale="log"' "$H/quick.html"
check "... the swap ladder is on log-log axes" \
	grep -q 'class="chart steps curve" id="steps[0-9]*-mem-bytes_per_second" [^>]*data-x-scale="log" data-y-scale="log"' "$H/quick.html"
check "... every latency histogram and distribution has a log value axis" \
	sh -c "grep -E '^(histogram|cdf)\|' '$T_TMP/charts' >'$T_TMP/dist' && [ -s '$T_TMP/dist' ] && ! grep -v '^[a-z]*|log|' '$T_TMP/dist'"
check "... a latency CDF for each histogram with a shape" \
	sh -c "[ \$(grep -c '^cdf|' '$T_TMP/charts') = \$(grep -c '^histogram|' '$T_TMP/charts') ] && [ \$(grep -c '^cdf|' '$T_TMP/charts') -ge 10 ]"
check "... the latency cells are a task x load grid (2 tasks x 2 loads)" \
	sh -c "sed -n '/<table class=\"grid tasks-loads\"/,/<\/table>/p' '$H/quick.html' >'$T_TMP/grid' &&
		[ \$(grep -o '<td class=\"num cell\"' '$T_TMP/grid' | wc -l) = 4 ] && grep -q '<th>burn</th>' '$T_TMP/grid'"
check "... no chart of a parameter or count (frequency, packets) across steps" \
	sh -c "! grep -Eq 'id=\"steps[0-9]+-[a-z_]+-(mhz|count|bytes|percent|ratio|seconds)\"' '$H/quick.html'"
check "... captions are words, not key patterns" sh -c "! grep -Eq 'metrics named|&lt;size&gt;' '$H/quick.html'"
check "... each disk bar names its own figure (no legend borrowed from another step)" \
	sh -c "grep -A8 'id=\"steps[0-9]*-disk-bytes_per_second\"' '$H/quick.html' | grep -q 'device: device read (O_DIRECT) = '"
check "... there is print CSS" grep -q '@media print' "$H/quick.html"

# A time chart marks the spans the series says were not measured: a
# document's "phases" (setup, warm-up) and the sampler's stops.
jq '.results[0].phases = [{"name": "warm-up", "from_seconds": 0, "to_seconds": 0.1, "measured": false},
	{"name": "measured", "from_seconds": 0.1, "to_seconds": 0.3, "measured": true}] |
    .results[0].series[2].interval_seconds = 0.01' "$T_TMP/f.json" >"$T_TMP/phases.json"
run report "$T_TMP/phases.json" --html "$H/phases.html"
check "a warm-up phase is shaded on the time charts" grep -q '<rect class="phase" [^>]*><title>warm-up</title>' "$H/phases.html"
check "... a span the sampler was stopped is shaded too" grep -q '<rect class="unsampled" ' "$H/phases.html"
check "... a measured phase is not" sh -c "! grep -q '<title>measured</title>' '$H/phases.html'"

# Headless Chromium: parses the pages (the DOM has every chart) and takes
# a screenshot. CHROME ARGS...: runs it under a timeout in its own session,
# with a profile of its own each time (a second Chromium on a profile in use
# would hand its work to the first and exit without output).
CHROME_BIN=$(command -v chromium || command -v chromium-browser || true)
CN=0
chrome() {
	CN=$((CN + 1))
	HOME="$T_TMP/home" XDG_CONFIG_HOME="$T_TMP/home/.config" XDG_CACHE_HOME="$T_TMP/home/.cache" \
	setsid timeout 120 "$CHROME_BIN" --headless --no-sandbox --disable-gpu --disable-background-networking \
		--disable-component-update --disable-sync --no-first-run --disable-breakpad --disable-crash-reporter \
		--user-data-dir="$T_TMP/chrome$CN" "$@" >"$T_TMP/chrome.out" 2>"$T_TMP/chrome.err" </dev/null &
	CPID=$!
	wait "$CPID"
	crc=$?
	kill -- -"$CPID" 2>/dev/null
	CPID=
	# The crash handlers follow their browser out within a moment; end any that linger.
	for i in 1 2 3 4 5 6 7 8 9 10; do
		[ -z "$(leftovers)" ] && break
		sleep 0.5
	done
	for p in $(leftovers); do kill "$p" 2>/dev/null; done
	return $crc
}
# Why a Chromium check failed: its exit status and last words.
why() { echo "chromium exit $crc, $(wc -c <"$T_TMP/chrome.out") bytes out: $(tail -n 2 "$T_TMP/chrome.err" | tr '\n' ' ')"; }
png() {
	[ -s "$1" ] && [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] &&
		[ "$(stat -c %s "$1")" -gt 10000 ]
}
if [ -z "$CHROME_BIN" ]; then
	for t in "DOM of a stored run's page" "DOM of a page with steps" "DOM of the hostile document" "screenshot of the quick report" \
		"screenshot of two steps" "printed quick report" "screenshot"; do
		skip "$t" "chromium is not installed (scripts/deps installs it)"
	done
else
	chrome --dump-dom "file://$H/out.html"
	cp "$T_TMP/chrome.out" "$T_TMP/dom.html"
	dom=yes
	for c in timeseries heatstrip histogram cdf; do
		grep -q "<svg class=\"chart $c\"" "$T_TMP/dom.html" || dom="no $c"
	done
	[ "$(grep -o '<svg ' "$T_TMP/dom.html" | wc -l)" = "$(grep -o '<svg ' "$H/out.html" | wc -l)" ] || dom="svg count differs"
	grep -q '<table class="summary">' "$T_TMP/dom.html" || dom="no summary table"
	if [ "$dom" = yes ]; then
		ok "Chromium's DOM of a stored run's page has the summary and every chart"
	else
		not_ok "Chromium's DOM of a stored run's page has the summary and every chart" "$dom" "$(why)"
	fi
	chrome --dump-dom "file://$H/steps.html"
	if grep -q '<svg class="chart steps curve"' "$T_TMP/chrome.out" && grep -q '<svg class="chart curve"' "$T_TMP/chrome.out"; then
		ok "Chromium's DOM of a page with steps has the step and curve charts"
	else
		not_ok "Chromium's DOM of a page with steps has the step and curve charts" "$(why)"
	fi
	chrome --dump-dom "file://$H/evil.html"
	if grep -q '<h1>' "$T_TMP/chrome.out" && ! grep -qi '<script' "$T_TMP/chrome.out"; then
		ok "Chromium's DOM of the hostile document has the page and no script element"
	else
		not_ok "Chromium's DOM of the hostile document has the page and no script element" "$(why)"
	fi
	# The quick run's page as a reader sees it: screenshots kept under
	# build/report-screens/, and the PDF a browser prints (at most 12 pages).
	SHOTS="$ART/report-screens"
	mkdir -p "$SHOTS"
	rm -f "$SHOTS"/*.png "$SHOTS"/*.pdf
	jq '.results = [.results[5], .results[4]]' "$Q" >"$T_TMP/quick-part.json"
	"$ENGPASS" report "$T_TMP/quick-part.json" --html "$H/quick-part.html" >/dev/null
	chrome --screenshot="$SHOTS/quick-top.png" --window-size=1200,2400 "file://$H/quick.html"
	check "a screenshot of the quick run's report is a PNG ($SHOTS/quick-top.png)" png "$SHOTS/quick-top.png"
	chrome --screenshot="$SHOTS/quick-steps.png" --window-size=1200,3000 "file://$H/quick-part.html"
	check "a screenshot of two of its steps is a PNG ($SHOTS/quick-steps.png)" png "$SHOTS/quick-steps.png"
	chrome --no-pdf-header-footer --print-to-pdf="$SHOTS/quick.pdf" "file://$H/quick.html"
	if ! command -v pdfinfo >/dev/null; then
		skip "the printed quick report has at most 12 pages" "pdfinfo is not installed (poppler-utils; scripts/deps installs it)"
	else
		pages=$(pdfinfo "$SHOTS/quick.pdf" 2>/dev/null | awk '/^Pages:/{print $2}')
		if [ -n "$pages" ] && [ "$pages" -ge 2 ] && [ "$pages" -le 12 ]; then
			ok "the printed quick report has at most 12 pages ($pages, $SHOTS/quick.pdf)"
		else
			not_ok "the printed quick report has at most 12 pages" "pages: ${pages:-none}" "$(why)"
		fi
	fi
	rm -f "$ART/report.png" "$ART/report-steps.png"
	chrome --screenshot="$ART/report.png" --window-size=1200,2000 "file://$H/out.html"
	check "a screenshot of the report is a PNG ($ART/report.png)" png "$ART/report.png"
fi

bad() {
	want=$1; code=$2; shift 2
	run "$@"
	if [ "$RC" = "$code" ] && [ "$(wc -l <"$T_TMP/err")" = 1 ] && grep -qF -- "$want" "$T_TMP/err"; then
		ok "engpass $* -> exit $code, '$want'"
	else
		not_ok "engpass $* -> exit $code, '$want'" "exit $RC: $(cat "$T_TMP/err")"
	fi
}
bad "no run 99" 2 report 99 --db "$DB" --html "$H/x.html"
bad "no history database" 2 report 1 --db "$T_TMP/none.db" --html "$H/x.html"
echo '{"schema": "other", "results": []}' >"$T_TMP/foreign.json"
bad "not an engpass result" 2 report "$T_TMP/foreign.json" --html "$H/x.html"
echo 'not json' >"$T_TMP/garbage.json"
bad "is not JSON" 2 report "$T_TMP/garbage.json" --html "$H/x.html"
bad "cannot read" 2 report "$T_TMP/missing.json" --html "$H/x.html"
bad "cannot write into the directory of" 2 report "$T_TMP/f.json" --html "$T_TMP/nowhere/x.html"
bad "Not a directory" 2 report "$T_TMP/f.json" --html "$T_TMP/f.json/x.html"
bad "is a directory" 2 report "$T_TMP/f.json" --html "$H"
bad "needs --html FILE" 2 report "$T_TMP/f.json"
bad "needs a run id" 2 report --html "$H/x.html"
bad "no run 99" 2 report 1 99 --html "$H/x.html" --db "$DB"
check "no page is written for bad input" [ ! -e "$H/x.html" ]
check "bad input leaves no temp file behind" sh -c "! ls -A '$H' | grep -q engpass"

done_testing
