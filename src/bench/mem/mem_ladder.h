/* SPDX-License-Identifier: MIT */
/*
 * One rung of engpass mem's swaptest ladder: fill an area of the rung's
 * size with random data (timed write pass), read every page back (timed
 * read passes, in address or random order), and report both rates with
 * the process's major faults, the system's swap-in/out and memory stall,
 * and whether the area stayed resident. Optionally inside a sandbox (a
 * memory cgroup with a limit and its own swap file, src/core/work/sandbox.h)
 * made for the rung and torn down after it.
 */
#ifndef ENGPASS_MEM_LADDER_H
#define ENGPASS_MEM_LADDER_H

#include <stdbool.h>
#include <stdint.h>

#include "bench/bench.h"
#include "bench/mem/mem_sizes.h"
#include "core/kernel/proc.h"

enum mem_order {
	MEM_ORDER_SEQ,
	MEM_ORDER_RANDOM,
};

struct mem_ladder_cfg {
	struct mem_size size;		/* the rung */
	int order;			/* enum mem_order, of the read passes */
	unsigned passes;		/* read passes, >= 1 */
	unsigned margin_pct;		/* safety margin, percent */
	bool force;			/* run rows beyond the budget anyway */
	bool swaptest_format;		/* add swaptest's line as a note */
	uint64_t sandbox_limit;		/* 0 = no sandbox */
	uint64_t swap_bytes;		/* own swap file in the sandbox; 0 = none */
	const char *swap_dir;
	const char *swap_dev;		/* a block device to swap on in the sandbox instead; NULL = none */
	uint64_t swap_dev_new_bytes;	/* its size when it is not active swap already (adds to the budget) */
	bool mkswap_ok;			/* swap_dev may get a swap signature */
	uint64_t seed;			/* of the page keys and the random order */
	uint64_t time_ns;		/* --time: the rung's measuring keeps it (0: none) */
};

/*
 * With --time a rung's measuring child keeps it: the write pass stops at
 * half of it (the area written is then smaller than the rung, and the
 * rung says how much did not fit), the read passes over what was written
 * at its end. Outside it are the sandbox's set-up and teardown and the
 * child's start and exit, within this allowance (measured: docs/mem.md).
 */
#define MEM_LADDER_ALLOWANCE_NS (1500 * 1000000ULL)

/*
 * Reads /proc/meminfo into MI. Returns false when it cannot be read or
 * lacks MemAvailable or SwapFree (kernels before 3.14).
 */
bool mem_read_meminfo(struct proc_meminfo *mi);

/*
 * Runs the rung described by CFG into RES: parameters, method, metrics
 * (size, write and read rates and times, major faults per pass, swap
 * in/out pages, memory stall, resident share and flag, sandbox peaks),
 * notes, status. A row beyond the safety budget is skipped with the
 * reason unless CFG->force. The measuring is done by a child process (in
 * the sandbox's cgroup when there is one); a stop request (*env->stop)
 * ends it early and the row is marked incomplete. Never prints.
 */
void mem_ladder_run(const struct bench_env *env, const struct mem_ladder_cfg *cfg, struct result *res);

#endif
