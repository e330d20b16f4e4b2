/* SPDX-License-Identifier: MIT */
/*
 * The CPU cycle counter of the calling thread, through perf_event_open(2)
 * with PERF_COUNT_HW_CPU_CYCLES, for `engpass cpu`'s cycles per byte and
 * its "perf cycles" frequency source. Many virtual machines expose no
 * hardware counters: opening then fails (ENOENT or EOPNOTSUPP) and the
 * caller says "no cycle counter" instead of inventing a figure.
 *
 * The counter follows the thread wherever it runs and counts user and,
 * where allowed, kernel cycles; when the kernel multiplexes counters the
 * value is scaled by time enabled / time running, and the caller is told.
 */
#ifndef ENGPASS_CPU_CYCLES_H
#define ENGPASS_CPU_CYCLES_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/compiler.h"

struct cpu_cycles {
	int fd;			/* -1 when closed */
	bool user_only;		/* kernel cycles were not allowed (perf_event_paranoid) */
};

/*
 * Opens and starts a cycle counter for the calling thread. Returns 0, or
 * -errno from perf_event_open (C->fd is then -1). Close with
 * cpu_cycles_close() either way.
 */
MUST_CHECK int cpu_cycles_open(struct cpu_cycles *c);

/*
 * Cycles counted since cpu_cycles_open(), scaled when the counter was
 * multiplexed (*SCALED set true then; SCALED may be NULL). Returns 0 or
 * -errno; -EBADF when the counter is not open, -ENODATA when it never ran.
 */
MUST_CHECK int cpu_cycles_read(const struct cpu_cycles *c, uint64_t *cycles, bool *scaled);

/* Stops and closes the counter; a closed one is left alone. */
void cpu_cycles_close(struct cpu_cycles *c);

#endif
