#!/bin/sh
# SPDX-License-Identifier: MIT
# $PROBE is split into words on purpose:
# shellcheck disable=SC2086
# engpass latency's cyclictest knobs: --mlock (-m), --pm-qos, --timerslack,
# --fifo (-p) and --missed-periods. Asserted: each knob is accepted and
# named in the result's parameters and method, the measured thread's timer
# slack is in every latency result, the rights they need are checked before
# anything runs (exit 2 with one line), a missing /dev/cpu_dma_latency is
# said, the PM QoS request ends with the run, and the missed-period policy
# shows in the sample counts. No latency value is asserted. Their bad
# values are in tests/cli/latency.sh's bad-input part.
. "$(dirname "$0")/lib.sh"
not_emulated "the knobs are system calls of the host; timings under qemu say nothing"

PROBE="--task custom --custom-period 1ms --load none --time 300ms --warmup 0"

# Bad values of the knobs (exit 2, one line) are checked in tests/cli/latency.sh with the rest.

# As an ordinary user the knobs that need a right are refused before anything runs.
as_nobody() {
	mkdir -p "$T_TMP/cwd"
	RC=0
	(cd "$T_TMP/cwd" && setpriv --reuid 65534 --regid 65534 --clear-groups "$ENGPASS" latency "$@") \
		>"$T_TMP/out" 2>"$T_TMP/err" </dev/null || RC=$?
}
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	as_nobody --mlock $PROBE
	check "--mlock without root or an unlimited RLIMIT_MEMLOCK -> exit 2, says why" \
		sh -c "[ $RC = 2 ] && grep -q 'needs root (CAP_IPC_LOCK)' '$T_TMP/err'"
	as_nobody -p 10 $PROBE
	check "--fifo (-p) without root or RLIMIT_RTPRIO -> exit 2, says why" \
		sh -c "[ $RC = 2 ] && grep -q 'needs root or an RLIMIT_RTPRIO' '$T_TMP/err'"
	if [ -e /dev/cpu_dma_latency ]; then
		as_nobody --pm-qos 0 $PROBE
		check "--pm-qos without the right to write /dev/cpu_dma_latency -> exit 2, says why" \
			sh -c "[ $RC = 2 ] && grep -q 'cpu_dma_latency needs root' '$T_TMP/err'"
	else
		skip "--pm-qos without root" "no /dev/cpu_dma_latency here"
	fi
else
	for t in "--mlock without root" "--fifo without root" "--pm-qos without root"; do
		skip "$t" "needs root and setpriv to drop the right"
	done
fi

# ---------------------------------------------------- defaults: said, not silent
run latency --task audio,custom --custom-period 1ms --load none --time 300ms --warmup 0 --json
J=$T_TMP/default.json
cp "$T_TMP/out" "$J"
check "default run exits 0" [ "$RC" = 0 ]
slack=$(cat /proc/self/timerslack_ns 2>/dev/null || echo unknown)
jqt "every latency result has the measured thread's timer slack" \
	'[.results[] | .metrics.timerslack_ns >= 0 and (.parameters["timer slack"] | test("ns"))] | all and length == 2' "$J"
if [ "$slack" != unknown ]; then
	jqt "the default timer slack is the inherited one ($slack ns)" \
		"[.results[] | .metrics.timerslack_ns == $slack and (.parameters[\"timer slack\"] | test(\"inherited\"))] | all" "$J"
fi
jqt "defaults are named: memory not locked, no PM QoS hold, missed periods skipped" '[.results[] |
	(.parameters.memory | test("not locked")) and (.parameters["pm qos"] | test("not held"))
	and (.parameters["missed periods"] | test("^skip"))] | all' "$J"
jqt "the method says how slack and missed periods are handled" '[.results[] | .method |
	(.["timer slack"] | test("PR_GET_TIMERSLACK")) and (.["missed periods"] | test("cyclictest"))] | all' "$J"
jqt "skipping: one wake-up sample per frame; skipped periods counted" '[.results[] |
	.histograms.wake_ns.count == .metrics.frames and .metrics.periods_skipped >= 0] | all' "$J"

# ---------------------------------------------------- the knobs, as root
if [ "$(id -u)" != 0 ]; then
	skip "--mlock, --pm-qos, --timerslack, --missed-periods sample" "not root"
	skip "--fifo: SCHED_FIFO named, no timer slack" "not root"
	done_testing
	exit $?
fi
qos_before=""
[ -r /dev/cpu_dma_latency ] && qos_before=$(od -An -td4 /dev/cpu_dma_latency | tr -d ' ')
run latency $PROBE -m --pm-qos 20us --timerslack 1234 --missed-periods sample --json
K=$T_TMP/knobs.json
cp "$T_TMP/out" "$K"
check "knobs run exits 0" [ "$RC" = 0 ]
jq -r '.results[] | "# \(.step): \(.status) \(.reason // "") \(.notes | join("; "))"' "$K" 2>/dev/null
jqt "--mlock (-m) locks memory and says so" '.results[0].parameters.memory | test("locked: mlockall\\(MCL_CURRENT\\|MCL_FUTURE\\)")' "$K"
jqt "--timerslack 1234 is set, read back and named" '.results[0] | .metrics.timerslack_ns == 1234
	and (.parameters["timer slack"] | test("set by --timerslack 1234"))' "$K"
if [ -e /dev/cpu_dma_latency ]; then
	# The system's target is the least of all requests: at most ours while we held it.
	jqt "--pm-qos 20us holds /dev/cpu_dma_latency at 20 us; the target read back is at most 20 us" \
		'.results[0].parameters["pm qos"] | test("held at 20 us") and
		 (capture("target: (?<t>[0-9]+) us").t | tonumber) <= 20' "$K"
	qos_after=$(od -An -td4 /dev/cpu_dma_latency | tr -d ' ')
	check "the PM QoS request ends with the run ($qos_before before, $qos_after after)" [ "$qos_before" = "$qos_after" ]
else
	jqt "--pm-qos without /dev/cpu_dma_latency says nothing was held" \
		'(.results[0].parameters["pm qos"] | test("no /dev/cpu_dma_latency")) and (.results[0].notes | any(test("nothing was held")))' "$K"
	skip "the PM QoS request ends with the run" "no /dev/cpu_dma_latency here"
fi
jqt "--missed-periods sample: a wake-up sample per frame and per skipped period" '.results[0] |
	(.parameters["missed periods"] | test("^sample")) and (.method["missed periods"] | test("coordinated"))
	and .histograms.wake_ns.count == .metrics.frames + .metrics.periods_skipped' "$K"

run latency $PROBE -p 10 --timerslack 1000 --json
jqt "--fifo (-p) as root: SCHED_FIFO named, its timer slack reported, --timerslack said to do nothing (or skipped with the reason)" '.results[0] |
	(.status == "ok" and (.parameters.scheduling | test("SCHED_FIFO priority 10"))
	 and (.parameters["timer slack"] | test("SCHED_FIFO")) and .metrics.timerslack_ns >= 0
	 and (.notes | any(test("no effect on a SCHED_FIFO thread")))) or
	(.status == "skipped" and (.reason | test("SCHED_FIFO")))' "$T_TMP/out"

done_testing
