#!/bin/sh
# SPDX-License-Identifier: MIT
# --verify (issue 38): a verdict that checks itself. Each case builds a
# limit for real, runs one step with --verify and asserts what the probe
# said (JSON verdict.verification; docs/verdict.md "Checking the
# verdict"):
#  - right and confirmed: `net client --mode rr --depth 1` against `net
#    server --delay 1ms` (an emulated round trip, as round_trip.sh) is
#    "round trip"; the probe at --depth 2 must confirm it (two requests
#    answered one delay later: about x2). Stored and shown again, the
#    table keeps the "checked" line (load.c).
#  - wrong and refuted: `fetch --depth 1` against delay_http.py answering
#    20 ms after each request *one after the other* (Python's server reads
#    the next pipelined request only when the last is answered). The 20 ms
#    sit inside TCP's rtt (the answer carries the request's ACK), so the
#    verdict says "round trip" -- but a second request in flight waits
#    behind the first: the probe at --depth 2 must not confirm it, and
#    the verdict is re-ranked (verification.refuted).
#  - queue depth 1 on a device that serves several (vda, virtio): when
#    the device or its latency is tested, --qd 2 must confirm it.
#  - one TCP stream over loopback: "one core" is tested with 2 streams
#    when another CPU is idle, else not verifiable with the reason; any
#    other verdict (a loaded box) is said and only the shape checked.
#  - a method that is the limit: mem --latency past the cache is "not
#    verifiable" (the pointer chase), with no probe run.
#  - cpu and mem --bandwidth: one thread's "one core" and "memory
#    bandwidth" are tested with a second thread (shape asserted; the
#    outcome is the box's and goes to the matrix).
#  - watch, an observer: not verifiable (observing only), with what the
#    operator could change to test it.
. "$(dirname "$0")/lib.sh"
need_cmd ss

# rr: the round trip, confirmed.
new_port
bg "$T_TMP/server.out" "$ENGPASS" net server --port "$PORT" --idle-timeout 60s --no-history -q --delay 1ms
SP=$BG_PID
if wait_listen "$PORT"; then
	CMD="net client 127.0.0.1 --port $PORT --mode rr --block 60K --depth 1 --time 2s --verify"
	# shellcheck disable=SC2086
	ep "$T_TMP/rr.json" "$ENGPASS" $CMD $EP_OPTS
	matrix "server --delay 1ms, --verify" "engpass $CMD" \
		'"\(.metrics.throughput_bytes_per_second / 1e6 | floor) MB/s; probe \(.verdict.verification.parameters): \(.verdict.verification.figure / 1e6 | floor) MB/s, x\(.verdict.verification.ratio * 100 | floor / 100) \(.verdict.verification.outcome)"' \
		"$T_TMP/rr.json"
	expect_ran "$T_TMP/rr.json" "rr depth 1"
	expect_named "round trip" "$T_TMP/rr.json" "rr depth 1"
	expect_figure "rr depth 1: the probe at --depth 2 confirmed the round trip (beyond the noise band)" \
		'.verdict.verification.resource == "round trip" and .verdict.verification.outcome == "confirmed" and
		 .verdict.verification.parameters == "--depth 2" and .verdict.verification.figure > .verdict.verification.interval[1] and
		 .verdict.verification.ratio > 1.1 and .verdict.verification.probe_seconds > 0' "$T_TMP/rr.json"
	# Stored, then shown: the table of the stored document says it too.
	ep "$T_TMP/rr.txt" "$ENGPASS" $CMD -q --db "$T_TMP/h.db"
	ep "$T_TMP/show.txt" "$ENGPASS" show 1 --db "$T_TMP/h.db"
	if grep -q "^  checked     confirmed (x[0-9.]* with 2 requests in flight)" "$T_TMP/rr.txt" &&
		grep -q "^  checked     confirmed (x[0-9.]* with 2 requests in flight)" "$T_TMP/show.txt"; then
		ok "rr depth 1: the table and 'show' say 'confirmed (xN with 2 requests in flight)'"
	else
		not_ok "rr depth 1: the table and 'show' say 'confirmed (xN with 2 requests in flight)'" \
			"$(grep -h checked "$T_TMP/rr.txt" "$T_TMP/show.txt")"
	fi
	# compare: a run without --verify beside it; each says its verdict and check.
	ep "$T_TMP/rr2.txt" "$ENGPASS" net client 127.0.0.1 --port "$PORT" --mode rr --block 60K --depth 1 --time 1s -q \
		--db "$T_TMP/h.db"
	ep "$T_TMP/cmp.txt" "$ENGPASS" compare 1 2 --db "$T_TMP/h.db"
	if grep -q "^  checked   A  round trip -- confirmed (x[0-9.]* with 2 requests in flight)" "$T_TMP/cmp.txt" &&
		grep -q "^            B  [a-z ]* -- not checked (no --verify)" "$T_TMP/cmp.txt"; then
		ok "compare: each input's verdict and how it was checked, under the step"
	else
		not_ok "compare: each input's verdict and how it was checked, under the step" "$(head -8 "$T_TMP/cmp.txt")"
	fi
else
	not_ok "rr: server listens"
fi
stop_pid "$SP"

# fetch: the round trip named, refuted by its probe, re-ranked.
if command -v python3 >/dev/null 2>&1; then
	rm -f "$T_TMP/http.port"
	bg "$T_TMP/http.out" python3 "$VT_DIR/delay_http.py" "$T_TMP/http.port" 20 6291456
	HP=$BG_PID
	_n=0
	while [ ! -s "$T_TMP/http.port" ] && [ $_n -lt 100 ]; do sleep 0.1; _n=$((_n + 1)); done
	CMD="fetch http://127.0.0.1:$(cat "$T_TMP/http.port" 2>/dev/null)/data --block 60K --depth 1 --output /dev/null --verify"
	# shellcheck disable=SC2086
	ep "$T_TMP/fetch.json" "$ENGPASS" $CMD $EP_OPTS
	matrix "a server answering 20 ms after each request, one at a time, --verify" "engpass $CMD" \
		'"\(.metrics.rate_bytes_per_second / 1e6 * 100 | floor / 100) MB/s; probe \(.verdict.verification.parameters): x\(.verdict.verification.ratio * 100 | floor / 100) \(.verdict.verification.outcome); refuted \(.verdict.verification.refuted); now \(.verdict.resource)"' \
		"$T_TMP/fetch.json"
	expect_ran "$T_TMP/fetch.json" "fetch, a serial server"
	expect_figure "fetch, a serial server: the first verdict was round trip and --depth 2 did not confirm it" \
		'.verdict.verification.resource == "round trip" and .verdict.verification.outcome == "not confirmed" and
		 .verdict.verification.parameters == "--depth 2" and .verdict.verification.figure <= .verdict.verification.interval[1]' \
		"$T_TMP/fetch.json"
	expect_figure "fetch, a serial server: re-ranked (round trip refuted, last of the candidates, the next tested)" \
		'.verdict.verification.refuted == "round trip" and .verdict.candidates[-1].resource == "round trip" and
		 (.verdict.verification.probes | length) >= 1' "$T_TMP/fetch.json"
	stop_pid "$HP"
else
	skip "fetch, a serial server" "python3 is not installed (the delaying HTTP server)"
fi

# disk: queue depth 1 on vda, which serves many requests at once.
mkdir -p "$T_TMP/disk"
CMD="disk $T_TMP/disk --workload rand-read --bs 4K --qd 1 --size 64M --time 1s --verify"
# shellcheck disable=SC2086
ep "$T_TMP/disk.json" "$ENGPASS" $CMD $EP_OPTS
matrix "queue depth 1 on the test directory's disk, --verify" "engpass $CMD" \
	'"\(.metrics.io_per_second | floor) IOPS; \(.verdict.verification.probes | map("\(.resource): \(.parameters // "-") x\((.ratio // 0) * 100 | floor / 100) \(.outcome)") | join("; ")); now \(.verdict.resource)"' \
	"$T_TMP/disk.json"
expect_ran "$T_TMP/disk.json" "disk qd 1"
if jq -e '.results[0].verdict.verification.probes | any(.resource == "device" or .resource == "device latency")' "$T_TMP/disk.json" >/dev/null 2>&1; then
	expect_figure "disk qd 1: the device's probe at --qd 2 confirmed it" \
		'.verdict.verification.probes | map(select(.resource == "device" or .resource == "device latency"))[0] |
		 .parameters == "--qd 2" and .outcome == "confirmed"' "$T_TMP/disk.json"
else
	skip "disk qd 1: the device's probe at --qd 2" \
		"the device was not tested: $(jq -r '.results[0].verdict.verification.probes | map("\(.resource) \(.outcome)") | join(", ")' "$T_TMP/disk.json" 2>/dev/null)"
fi

# net: one stream over loopback.
new_port
bg "$T_TMP/server2.out" "$ENGPASS" net server --port "$PORT" --idle-timeout 60s --no-history -q
SP=$BG_PID
if wait_listen "$PORT"; then
	CMD="net client 127.0.0.1 --port $PORT --time 2s --verify"
	# shellcheck disable=SC2086
	ep "$T_TMP/stream.json" "$ENGPASS" $CMD $EP_OPTS
	matrix "one stream over loopback, --verify" "engpass $CMD" \
		'"\(.metrics.throughput_bits_per_second / 1e9 * 10 | floor / 10) Gbit/s; \(.verdict.verification.probes | map("\(.resource): \(.parameters // "-") x\((.ratio // 0) * 100 | floor / 100) \(.outcome) \(.why // "")") | join("; "))"' \
		"$T_TMP/stream.json"
	expect_ran "$T_TMP/stream.json" "stream"
	expect_figure "stream: every verdict tested has an outcome, a probe has its figure, a not verifiable one its why" \
		'.verdict.verification.probes | length >= 1 and all(.[];
		 (.outcome == "confirmed" or .outcome == "not confirmed") and .figure != null and .probe_seconds > 0 or
		 .outcome == "not verifiable" and (.why | length) > 0 or .outcome == "confirmed by counters")' "$T_TMP/stream.json"
	if jq -e '.results[0].verdict.verification.resource == "one core"' "$T_TMP/stream.json" >/dev/null 2>&1; then
		expect_figure "stream: one core is tested with 2 streams, or said not verifiable for want of an idle CPU" \
			'.verdict.verification | .parameters == "--parallel 2" and .figure != null or
			 .outcome == "not verifiable" and (.why | test("idle|one CPU"))' "$T_TMP/stream.json"
	else
		skip "stream: one core tested with 2 streams" \
			"the verdict was $(jq -r '.results[0].verdict.resource' "$T_TMP/stream.json" 2>/dev/null), not one core (a loaded box)"
	fi
else
	not_ok "stream: server listens"
fi
stop_pid "$SP"

# mem --latency: the method is the limit.
CMD="mem --latency --size 64M --passes 1 --verify"
# shellcheck disable=SC2086
ep "$T_TMP/mem.json" "$ENGPASS" $CMD $EP_OPTS
expect_ran "$T_TMP/mem.json" "mem --latency"
if jq -e '.results[0].verdict.resource | test("latency")' "$T_TMP/mem.json" >/dev/null 2>&1; then
	expect_figure "mem --latency: its latency is not verifiable (the method is the limit), no probe run" \
		'.verdict.verification.outcome == "not verifiable" and (.verdict.verification.why | test("method is the limit")) and
		 .verdict.verification.probe_seconds == 0' "$T_TMP/mem.json"
else
	skip "mem --latency: not verifiable" "the verdict was $(jq -r '.results[0].verdict.resource' "$T_TMP/mem.json" 2>/dev/null)"
fi

# cpu: one cipher thread is "one core"; tested with twice the threads, the
# work per wall second compared (its headline, per CPU-second, is the
# method's). A second thread on the other, idle CPU about doubles it.
CMD="cpu --cipher chacha20-poly1305 --size 1400 --lib openssl --time 1s --verify"
# shellcheck disable=SC2086
ep "$T_TMP/cpu.json" "$ENGPASS" $CMD $EP_OPTS
matrix "one cipher thread, --verify" "engpass $CMD" \
	'"\(.metrics.wall_throughput_bytes_per_second / 1e6 | floor) MB/s wall; \(.verdict.verification.probes | map("\(.resource): \(.parameters // "-") x\((.ratio // 0) * 100 | floor / 100) \(.outcome) \(.why // "")") | join("; ")); now \(.verdict.resource)"' \
	"$T_TMP/cpu.json"
expect_ran "$T_TMP/cpu.json" "cpu, one thread"
if jq -e '.results[0].verdict.verification.probes | any(.resource == "one core")' "$T_TMP/cpu.json" >/dev/null 2>&1; then
	expect_figure "cpu, one thread: one core tested with 2 threads on the work per wall second, or not verifiable for want of an idle CPU" \
		'.verdict.verification.probes | map(select(.resource == "one core"))[0] |
		 .parameters == "--threads 2" and .metric == "wall_throughput" and .figure != null and .probe_seconds > 0 and
		 (.outcome == "confirmed" or .outcome == "not confirmed") or
		 .outcome == "not verifiable" and (.why | test("idle|one CPU"))' "$T_TMP/cpu.json"
else
	skip "cpu, one thread: one core tested with 2 threads" \
		"one core was not tested: the verdict was $(jq -r '.results[0].verdict.resource' "$T_TMP/cpu.json" 2>/dev/null) (a loaded box)"
fi

# mem --bandwidth: one thread's triad is "memory bandwidth"; tested with a
# second thread over arrays of the step's size, their triad together.
CMD="mem --bandwidth --size 64M --time 2s --verify"
# shellcheck disable=SC2086
ep "$T_TMP/membw.json" "$ENGPASS" $CMD $EP_OPTS
matrix "mem --bandwidth, one thread, --verify" "engpass $CMD" \
	'"triad \(.metrics.triad_bytes_per_second / 1e9 * 10 | floor / 10) GB/s; \(.verdict.verification.probes | map("\(.resource): \(.parameters // "-") x\((.ratio // 0) * 100 | floor / 100) \(.outcome) \(.why // "")") | join("; ")); now \(.verdict.resource)"' \
	"$T_TMP/membw.json"
expect_ran "$T_TMP/membw.json" "mem --bandwidth"
if jq -e '.results[0].verdict.verification.probes | any(.resource == "memory bandwidth" or .resource == "one core")' "$T_TMP/membw.json" >/dev/null 2>&1; then
	expect_figure "mem --bandwidth: a second thread over the step's 64 MiB arrays, their triad together against one thread's" \
		'.verdict.verification.probes | map(select(.resource == "memory bandwidth" or .resource == "one core"))[0] |
		 .parameters == "--threads 2 --size 67108864" and .metric == "triad" and .figure != null and
		 (.outcome == "confirmed" or .outcome == "not confirmed") or
		 .outcome == "not verifiable" and (.why | test("idle|one CPU"))' "$T_TMP/membw.json"
else
	skip "mem --bandwidth: a second thread" \
		"neither memory bandwidth nor one core was tested: the verdict was $(jq -r '.results[0].verdict.resource' "$T_TMP/membw.json" 2>/dev/null)"
fi

# watch: an observer relaxes nothing of a daemon's. A busy shell loop is
# "one core" (or "other processes" on a loaded box): not verifiable
# (observing only), with what the operator could change where the view
# makes it checkable, and no probe run.
bg /dev/null sh -c 'while :; do :; done'
LOOP=$BG_PID
CMD="watch --pid $LOOP --time 2s --verify"
# shellcheck disable=SC2086
ep "$T_TMP/watch.json" "$ENGPASS" $CMD $EP_OPTS
stop_pid "$LOOP"
matrix "watch a busy loop, --verify" "engpass watch --pid PID --time 2s --verify" \
	'"\(.verdict.resource): \(.verdict.verification.outcome) (\(.verdict.verification.why // ""))"' "$T_TMP/watch.json"
expect_ran "$T_TMP/watch.json" "watch"
expect_figure "watch: every candidate tested is not verifiable (observing only) or judged by counters, and no probe ran" \
	'.verdict.verification.probes | length >= 1 and all(.[];
	 .outcome == "not verifiable" and (.why | test("^observing only: ")) and .probe_seconds == 0 or
	 (.outcome | test("counters")) or .why != null and (.why | test("method|nothing to relax|not judged")))' "$T_TMP/watch.json"
if jq -e '.results[0].verdict.resource == "one core"' "$T_TMP/watch.json" >/dev/null 2>&1; then
	expect_figure "watch: one core says whether another CPU was idle to test it, and what to change" \
		'.verdict.verification.why | test("a second worker thread or process of process [0-9]+ on another CPU would test it|no other CPU was idle")' \
		"$T_TMP/watch.json"
else
	skip "watch: one core's hint" "the verdict was $(jq -r '.results[0].verdict.resource' "$T_TMP/watch.json" 2>/dev/null) (a loaded box)"
fi

done_testing
