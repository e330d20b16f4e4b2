/* SPDX-License-Identifier: MIT */
/*
 * The background loads of `engpass latency`, started before a cell is
 * measured and always stopped and reaped after it (also after a soft stop
 * by SIGINT): CPU hogs, file writing and reading that reaches the device,
 * a memory load in a child process, and the simulated tasks themselves.
 *
 *  - burn: one spinning thread per CPU this process may run on (after
 *    --pin), or --burners N.
 *  - write: rewrites an engpass temp file in 1 MiB O_DIRECT writes,
 *    truncating it when it reaches its size (interbench rewrites its file
 *    the same way, but buffered, so much of it never leaves the page cache).
 *  - read: re-reads an engpass temp file, filled before the cell, in 1 MiB
 *    O_DIRECT reads. On a file system that refuses O_DIRECT the loads fall
 *    back to buffered I/O with fdatasync() every 8 MiB (write) and
 *    POSIX_FADV_DONTNEED before every pass (read), and say so. A tmpfs or
 *    ramfs directory is refused: nothing there reaches a device.
 *  - memload: a child process maps anonymous memory sized by
 *    lat_memload_size(), fills it with a pseudo-random pattern, copies
 *    block i from block i + n/2 (interbench's pattern), unmaps it and starts
 *    again. It stops growing while MemAvailable + SwapFree is below the
 *    margin, gives memory back when it falls below half of it, sets its
 *    oom_score_adj to 1000 so that it is the OOM killer's first choice, and
 *    dies with engpass (PR_SET_PDEATHSIG).
 *  - audio, video, x, gaming: the simulated tasks as threads.
 *
 * Threads are created with the stop signals blocked (lat_spawn()), so a
 * SIGINT reaches the main thread; the memory child ignores them and is
 * killed with SIGKILL when the cell ends (or when engpass dies).
 */
#ifndef ENGPASS_LATENCY_LOAD_H
#define ENGPASS_LATENCY_LOAD_H

#include <stdint.h>

#include "lib/compiler.h"
#include "core/result/result.h"

struct tmpfile_reg;
struct lat_loads;

struct lat_load_cfg {
	unsigned parts;			/* enum lat_part bits */
	struct tmpfile_reg *tmp;	/* temp files are created and removed here */
	const char *dir;		/* directory of the file loads */
	uint64_t file_size;		/* bytes per file; 0 = automatic */
	uint64_t memload_size;		/* bytes; 0 = automatic (110 % of effective memory) */
	int burners;			/* 0 = one per CPU we may run on */
	uint64_t sandbox_limit;		/* > 0: engpass runs in a memory sandbox of this limit, memload is sized from it */
};

/* Size of the file loads when not given: min(256 MiB, free space / 8 per file). */
#define LAT_FILE_SIZE_MAX (256ULL << 20)
#define LAT_FILE_SIZE_MIN (8ULL << 20)

/*
 * Starts every part of CFG->parts (none: nothing to do) and describes them
 * in RES (parameters and method). Returns 0 with *OUT set (stop it with
 * lat_loads_stop()); or a negative errno with RES marked skipped (the
 * machine cannot host the load: no memory to spare, tmpfs, no free space)
 * or failed (a system call failed), everything already started stopped
 * again, and *OUT NULL.
 */
MUST_CHECK int lat_loads_start(struct lat_loads **out, const struct lat_load_cfg *cfg, struct result *res);

/*
 * Stops every part, joins and reaps it, removes the temp files, adds what
 * each part achieved to RES (metrics such as load_write_bytes_per_second,
 * notes; RES->incomplete when a part ended before the cell did) and frees
 * L. NULL is a no-op.
 */
void lat_loads_stop(struct lat_loads *l, struct result *res);

#endif
