#!/bin/sh
# SPDX-License-Identifier: MIT
# Verdict injection (#18), cpuset: `engpass cpu --threads 2` confined to
# one CPU, twice -- by a cgroup v1 cpuset child with cpuset.cpus 0 (mems
# copied from the parent), and by affinity (taskset -c 0). Both must name
# "cpuset". The twin, with every CPU allowed, must not.
# With more threads than allowed CPUs, engpass's threads share them
# round robin (a note says so): the cpuset is what bounds the figure.
. "$(dirname "$0")/lib.sh"
need_root "cgroup v1 cpuset controller"
need_cmd taskset
[ "$(nproc --all)" -ge 2 ] || vt_skip_all "one CPU online: a cpuset of one CPU limits nothing"

BASE="cpu --cipher chacha20-poly1305 --size 1400 --lib openssl --time 1500ms"
FIG='"threads \(.parameters.threads) on cpus \(.parameters.cpus): \(.metrics.cpu_share_percent | floor) % cpu share, \(.metrics.wall_throughput_bytes_per_second / 1e6 | floor) MB/s wall"'

cg_new cpuset one || vt_skip_all "$CG_WHY"
cg_set "$CG" cpuset.cpus 0 || vt_skip_all "$CG_WHY"

# run_confined FILE WRAPPER...: --threads 2 under WRAPPER; sets $CMD.
run_confined() {
	_f=$1
	shift
	CMD="$BASE --threads 2"
	# shellcheck disable=SC2086
	ep "$_f" "$@" "$ENGPASS" $CMD $EP_OPTS
}
run_confined "$T_TMP/cg.json" cg_exec "$CG"
matrix "cpuset.cpus 0 (cgroup v1)" "engpass $CMD (in the cgroup)" "$FIG" "$T_TMP/cg.json"
expect_ran "$T_TMP/cg.json" "cpuset cgroup"
expect_named "cpuset" "$T_TMP/cg.json" "cpuset cgroup"

run_confined "$T_TMP/aff.json" taskset -c 0
matrix "affinity cpu 0 (taskset -c 0)" "taskset -c 0 engpass $CMD" "$FIG" "$T_TMP/aff.json"
expect_ran "$T_TMP/aff.json" "taskset"
expect_named "cpuset" "$T_TMP/aff.json" "taskset"

CMD="$BASE --threads 2"
# shellcheck disable=SC2086
ep "$T_TMP/twin.json" "$ENGPASS" $CMD $EP_OPTS
matrix "none (twin of cpuset)" "engpass $CMD" "$FIG" "$T_TMP/twin.json"
expect_ran "$T_TMP/twin.json" "twin"
expect_not_named "cpuset" "$T_TMP/twin.json" "twin"

done_testing
