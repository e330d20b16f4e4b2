#!/bin/sh
# SPDX-License-Identifier: MIT
# engpass latency: interbench's tasks under loads. The machine is shared and
# noisy, so no latency value is asserted; what is asserted holds anywhere:
# every requested cell exists with its fields, percentages are percentages,
# percentiles are ordered, the SD is the true SD (not interbench's RMS), a
# burn load shows up as CPU stall, a 5 % task keeps its CPU under burn,
# loads are stopped and their temp files removed (also on SIGINT), and bad
# input is a usage error with one clear line.
. "$(dirname "$0")/lib.sh"
not_emulated "deadlines timed on an emulated CPU say nothing, and every cell takes seconds"

# no_procs PATTERN: no process runs whose command line matches PATTERN. The
# pattern holds a directory unique to this test run, so a concurrent run of
# the same test elsewhere cannot match it.
no_procs() { ! pgrep -f -- "$1" >/dev/null; }

# ---------------------------------------------------------------- bad input
bad() {
	want=$1; shift
	run latency "$@"
	if [ "$RC" = 2 ] && [ "$(wc -l <"$T_TMP/err")" = 1 ] && grep -q -- "$want" "$T_TMP/err" && [ ! -s "$T_TMP/out" ]; then
		ok "latency $* -> exit 2: $want"
	else
		not_ok "latency $* -> exit 2: $want" "rc=$RC" "$(cat "$T_TMP/err")"
	fi
}
bad "unknown task 'foo'" --task foo
bad "unknown load 'fire'" --load none,fire
bad "names itself" --load desktop=desktop+read
bad "redefine the built-in" --load burn=read+write
bad "'none' cannot be combined" --load none+burn
bad "shorter than one period of task 'audio'" --task audio --time 20ms
bad "exclude each other" --fifo 10 --nice 5
bad "not a directory" --load write --dir /nonexistent/dir
bad "option '--swap' needs --sandbox" --swap file:/var/tmp
bad "option '--mkswap-ok' needs --sandbox" --mkswap-ok
# cyclictest's knobs (tests/cli/latency_knobs.sh runs them).
bad "0 means 'the default' to the kernel" --timerslack 0
bad "option '--timerslack': '-5' is out of range" --timerslack -5
bad "option '--timerslack': '2000000000' is out of range" --timerslack 2000000000
bad "is not on, off or a number of microseconds" --pm-qos fast
bad "is not on, off or a number of microseconds" --pm-qos 3000000000
bad "is not on, off or a number of microseconds" --pm-qos -1
bad "'--laptop' (no PM QoS hold) and '--pm-qos 0' exclude each other" --laptop --pm-qos 0
bad "option '--missed-periods': 'often' is not one of skip, sample" --missed-periods often
if [ "$(id -u)" = 0 ]; then
	bad "is not file, file:DIR, dev:DEVICE or none" --sandbox 64M --swap disk:/dev/null
	bad "is not a block device" --sandbox 64M --swap dev:/dev/null
	bad "more than the memory of this box" --sandbox 100T
else
	for t in "bad --swap" "--swap dev: not a block device" "--sandbox above the memory"; do skip "$t" "not root"; done
fi
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	mkdir -p "$T_TMP/cwd"
	RC=0
	(cd "$T_TMP/cwd" && setpriv --reuid 65534 --regid 65534 --clear-groups "$ENGPASS" latency --fifo 10) \
		>"$T_TMP/out" 2>"$T_TMP/err" </dev/null || RC=$?
	if [ "$RC" = 2 ] && grep -q "needs root or an RLIMIT_RTPRIO" "$T_TMP/err"; then
		ok "--fifo without the right -> exit 2"
	else
		not_ok "--fifo without the right -> exit 2" "rc=$RC" "$(cat "$T_TMP/err")"
	fi
else
	skip "--fifo without the right -> exit 2" "needs root and setpriv to drop the right"
fi

# ------------------------------------------------- the grid: audio,video x none,burn
run latency --task audio,video --load none,burn --time 3s --warmup 300ms --json
J="$T_TMP/grid.json"
cp "$T_TMP/out" "$J"
check "grid exits 0" [ "$RC" = 0 ]
jqt "grid is one JSON document" '.schema == "engpass/1"' "$J"
jqt "every requested cell exists, in order" \
	'[.results[].step] == ["audio/none", "audio/burn", "video/none", "video/burn"]' "$J"
jqt "every cell is ok and complete" '[.results[] | .status == "ok" and .incomplete == false] | all' "$J"
# What each cell said, for the log when a cell was not ok.
jq -r '.results[] | "# \(.step): \(.status) \(.reason // "") incomplete=\(.incomplete) \(.notes | join("; "))"' "$J" 2>/dev/null
jqt "every cell has interbench's columns and the percentiles" '[.results[].metrics |
	has("lat_mean_ns") and has("lat_sd_ns") and has("lat_max_ns") and has("desired_cpu_percent")
	and has("deadlines_met_percent") and has("lat_p50_ns") and has("lat_p90_ns") and has("lat_p99_ns")
	and has("lat_p999_ns")] | all' "$J"
jqt "interbench's columns come first, in its order" '[.results[] | [.labels | keys_unsorted[]][0:9]] |
	all(. == ["lat_mean_ns", "lat_sd_ns", "lat_max_ns", "desired_cpu_percent", "deadlines_met_percent",
		  "lat_p50_ns", "lat_p90_ns", "lat_p99_ns", "lat_p999_ns"])' "$J"
jqt "% deadlines met and % desired CPU are within 0..100" '[.results[].metrics |
	.deadlines_met_percent >= 0 and .deadlines_met_percent <= 100 and
	.desired_cpu_percent >= 0 and .desired_cpu_percent <= 100] | all' "$J"
jqt "p50 <= p90 <= p99 <= p99.9 <= max" '[.results[].metrics |
	.lat_p50_ns <= .lat_p90_ns and .lat_p90_ns <= .lat_p99_ns and .lat_p99_ns <= .lat_p999_ns
	and .lat_p999_ns <= .lat_max_ns] | all' "$J"
jqt "mean, SD and max are the histogram's (true SD)" '[.results[] | .metrics as $m | .histograms.lat_ns |
	($m.lat_mean_ns == .mean) and ($m.lat_sd_ns == .stddev) and ($m.lat_max_ns == .max)] | all' "$J"
jqt "interbench's '+/- SD' is reported apart and is not the SD" '[.results[].metrics |
	.lat_interbench_sd_ns >= .lat_sd_ns and (.lat_mean_ns == 0 or .lat_interbench_sd_ns > .lat_sd_ns)] | all' "$J"
jqt "one sample per frame; frames ran" '[.results[] | .histograms.lat_ns.count == .metrics.frames and .metrics.frames > 0] | all' "$J"
jqt "wake-up latency without penalty is reported" '[.results[].histograms | has("wake_ns")] | all' "$J"
# Tolerance: on a shared VM one 50 ms deadline in 60 may slip; 90 % is documented in docs/latency.md.
jqt "audio with no load meets its deadlines (>= 90 %)" \
	'.results[0].metrics.deadlines_met_percent >= 90' "$J"
# The issue's claim holds when engpass's own load is what competes; on a box
# that other work already keeps busy (audio with no load of ours waited for
# a CPU > 2 % of the time, or PSI cpu some > 20 %) frames are lost to that
# work instead, so the check is skipped and says why (docs/latency.md).
if jq -e '.results[0].metrics | (.runqueue_wait_percent // 0) > 2 or (.stall_cpu_percent // 0) > 20' "$J" >/dev/null; then
	skip "audio under burn at equal nice keeps >= 90 % of its desired CPU" \
		"box busy before our load: $(jq -r '.results[0].metrics | "audio/none waited \(.runqueue_wait_percent | floor) % for a CPU, PSI cpu \(.stall_cpu_percent // 0 | floor) %"' "$J")"
else
	jqt "audio under burn at equal nice keeps >= 90 % of its desired CPU" \
		'.results[1].metrics.desired_cpu_percent >= 90' "$J"
fi
jqt "burn cells report what the burn load got; none cells do not" \
	'(.results[1].metrics | has("load_burn_cpu_share_percent")) and (.results[0].metrics | has("load_burn_cpu_share_percent") | not)' "$J"
if [ -r /proc/pressure/cpu ]; then
	jqt "burn makes the CPU stall visible (PSI in the cell and in the system view)" \
		'[.results[1], .results[3]] | all(.metrics.stall_cpu_percent > 0 and .system.psi_cpu_some_percent > 0)' "$J"
else
	skip "burn makes the CPU stall visible" "no /proc/pressure on this kernel"
fi
jqt "burn cells say how the load was made" '.results[1].method["load burn"] | test("one per CPU")' "$J"

# The table: interbench's columns, then the percentiles, labelled.
run latency --task audio --load none --time 1s --warmup 0
check "table run exits 0" [ "$RC" = 0 ]
if awk '/Latency \(mean\)/{a=NR} /\+\/- SD \(true SD\)/{b=NR} /Max Latency/{c=NR} /% Desired CPU/{d=NR}
	/% Deadlines Met/{e=NR} /latency p99.9/{f=NR} END{exit !(a && a<b && b<c && c<d && d<e && e<f)}' "$T_TMP/out"; then
	ok "table prints interbench's columns in order, then the percentiles"
else
	not_ok "table prints interbench's columns in order, then the percentiles" "$(head -40 "$T_TMP/out")"
fi

# ------------------------------------------------------------ x and gaming
run latency --task x,gaming --load none --time 1s --warmup 0 --json
check "x,gaming exits 0" [ "$RC" = 0 ]
jqt "gaming has no deadlines column, x has" '(.results[1].metrics | has("deadlines_met_percent") | not)
	and (.results[0].metrics | has("deadlines_met_percent"))' "$T_TMP/out"
jqt "gaming's desired CPU is a percentage" '.results[1].metrics.desired_cpu_percent | . > 0 and . <= 100' "$T_TMP/out"
jqt "a short x cell says how much of its ramp ran" '.results[0].notes | any(test("ramp"))' "$T_TMP/out"

# ------------------------------------------- file loads reach a device, then vanish
D=$(mktemp -d "$T_TMP/dir.XXXXXX")
if [ "$(stat -f -c %T "$D")" = tmpfs ]; then
	rmdir "$D"
	D=$(mktemp -d "$PWD/latency-test.XXXXXX")
	trap 'rm -rf "$T_TMP" "$D"' EXIT INT TERM
fi
run latency --task audio --load write,read,compile --time 1s --warmup 200ms --file-size 16M --dir "$D" --json
check "file loads exit 0" [ "$RC" = 0 ]
jqt "write, read and compile cells are ok" '[.results[] | .status == "ok"] | all and length == 3' "$T_TMP/out"
jqt "the file loads moved data" '(.results[0].metrics.load_write_bytes_per_second > 0) and
	(.results[1].metrics.load_read_bytes_per_second > 0) and (.results[2].metrics.load_write_bytes_per_second > 0)
	and (.results[2].metrics.load_read_bytes_per_second > 0) and (.results[2].metrics.load_burn_cpu_share_percent > 0)' "$T_TMP/out"
jqt "the file loads say how they defeat the cache" '.results[1].method["load read"] | test("O_DIRECT|DONTNEED")' "$T_TMP/out"
check "the temp files of the write/read loads are gone" [ -z "$(ls -A "$D")" ]
if [ -d /dev/shm ] && [ "$(stat -f -c %T /dev/shm)" = tmpfs ]; then
	run latency --task audio --load write --time 1s --warmup 0 --dir /dev/shm --json
	jqt "a tmpfs directory is refused: skipped with the reason" \
		'.results[0].status == "skipped" and (.results[0].reason | test("tmpfs"))' "$T_TMP/out"
else
	skip "a tmpfs directory is refused" "no tmpfs at /dev/shm"
fi

# ------------------------------------------------------ memload, named combinations
run latency --task audio --load memload,desktop=burn+audio --memload-size 64M --time 1s --warmup 200ms --json \
	--dir "$D"
check "memload and a named combination exit 0" [ "$RC" = 0 ]
jqt "memload is the size asked and held some of it" '.results[0].metrics |
	.load_memload_target_bytes == 67108864 and .load_memload_peak_bytes > 0
	and .load_memload_peak_bytes <= .load_memload_target_bytes' "$T_TMP/out"
jqt "memload says how it was sized" '.results[0].method["load memload"] | test("MemAvailable")' "$T_TMP/out"
jqt "a named combination is its own cell, with its parts" '.results[1].step == "audio/desktop" and
	.results[1].parameters.load == "desktop = audio+burn" and (.results[1].metrics |
	has("load_burn_cpu_share_percent") and has("load_audio_desired_cpu_percent"))' "$T_TMP/out"
check "no load process is left behind" no_procs "--dir $D"

# ----------------------------------------------------------------- --nice, --fifo
run latency --task audio --load none --time 500ms --warmup 0 --nice 5 --repeat 2 --json
jqt "--nice is applied and said" '.results[0].parameters.scheduling | test("nice 5")' "$T_TMP/out"
jqt "--repeat 2 merges two repetitions" '.results[0].repetitions == 2 and .results[0].histograms.lat_ns.count > 0' "$T_TMP/out"
if [ "$(id -u)" = 0 ]; then
	run latency --task audio --load none --time 500ms --warmup 0 --fifo 10 --json
	jqt "--fifo as root: measured SCHED_FIFO, or skipped with the reason" '.results[0] |
		(.status == "ok" and (.parameters.scheduling | test("SCHED_FIFO priority 10"))) or
		(.status == "skipped" and (.reason | test("SCHED_FIFO")))' "$T_TMP/out"
else
	skip "--fifo as root" "not root"
fi

# ------------------------------------------------- SIGINT: loads stopped, files gone
D2=$(mktemp -d "$(dirname "$D")/latency-int.XXXXXX")
(cd "$D2" && exec env --default-signal=INT "$ENGPASS" latency --task audio,video --load all=memload+compile \
	--memload-size 64M --file-size 16M --time 20s --warmup 200ms --dir "$D2" --json) >"$T_TMP/out" 2>"$T_TMP/err" &
pid=$!
sleep 2
# Not vacuous: the files and the memload child exist before the signal.
check "before SIGINT: the loads' temp files exist" [ -n "$(ls -A "$D2")" ]
check "before SIGINT: the memload child runs" [ "$(pgrep -c -f -- "--dir $D2")" -ge 2 ]
kill -INT $pid
RC=0
wait $pid || RC=$?
check "SIGINT exits 130" [ "$RC" = 130 ]
jqt "SIGINT reports the cell that ran, marked incomplete, and no more" \
	'(.results | length == 1) and .results[0].incomplete == true and .results[0].metrics.frames > 0' "$T_TMP/out"
check "SIGINT removed the temp files" [ -z "$(ls -A "$D2")" ]
check "SIGINT left no load process" no_procs "--dir $D2"
rm -rf "$D2" "$D"

done_testing
