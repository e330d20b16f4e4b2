/* SPDX-License-Identifier: MIT */
/*
 * What `engpass latency` measures, as data: the four simulated interactive
 * tasks with interbench's profiles, the background loads and their `+`
 * combinations, the grid of (task, load) cells a command line asks for,
 * and the size of the memory load. Everything here is a pure function of
 * its arguments (no clocks, no files), so the parsing rules and the memload
 * sizing are unit-tested without running anything.
 *
 * Names are matched case-insensitively, as interbench does, and stored in
 * lower case. A load list is comma-separated; each item is a built-in load
 * ("burn"), a combination ("burn+read", named by its own text), a named
 * combination ("desktop=memload+read+audio") or the name of a combination
 * defined earlier in the same list.
 */
#ifndef ENGPASS_LATENCY_SPEC_H
#define ENGPASS_LATENCY_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/compiler.h"
#include "lib/opt.h"

enum lat_task_kind {
	LAT_TASK_AUDIO,
	LAT_TASK_VIDEO,
	LAT_TASK_X,
	LAT_TASK_GAMING,
	/*
	 * interbench's -C PCT -I INTERVAL: PCT % of CPU every PERIOD, given by
	 * the caller (latency.c's --custom-cpu and --custom-period). With 0 %
	 * it is a cyclictest-style timer probe. A task only, never a load.
	 */
	LAT_TASK_CUSTOM,
	LAT_NTASKS,
};

/* The tasks that can also run as loads: audio, video, x, gaming. */
#define LAT_NLOAD_TASKS 4

/*
 * Parts a load is made of. The simulated tasks that can run as loads have
 * the bit 1 << their lat_task_kind.
 */
enum lat_part {
	LAT_PART_AUDIO = 1u << LAT_TASK_AUDIO,
	LAT_PART_VIDEO = 1u << LAT_TASK_VIDEO,
	LAT_PART_X = 1u << LAT_TASK_X,
	LAT_PART_GAMING = 1u << LAT_TASK_GAMING,
	LAT_PART_BURN = 1u << 8,	/* one CPU hog per CPU we may run on */
	LAT_PART_WRITE = 1u << 9,	/* rewriting a temp file, O_DIRECT */
	LAT_PART_READ = 1u << 10,	/* re-reading a temp file, O_DIRECT */
	LAT_PART_MEMLOAD = 1u << 11,	/* anonymous memory sized from effective memory */
};

#define LAT_PART_TASKS (LAT_PART_AUDIO | LAT_PART_VIDEO | LAT_PART_X | LAT_PART_GAMING)
#define LAT_PART_FILES (LAT_PART_WRITE | LAT_PART_READ)

/* A task's profile, as interbench defines it. */
struct lat_task_info {
	const char *name;	/* "audio" */
	const char *profile;	/* "5 % CPU every 50 ms" */
	uint64_t period_ns;	/* the frame; for x the longest step, for gaming the chunk */
	uint64_t run_ns;	/* CPU work per frame; for x the largest step */
	double cpu_pct;		/* the CPU share it asks for (x: mean over the ramp) */
	bool deadlines;		/* false for gaming: it has no deadlines */
};

/*
 * Profile of task K; returned pointer is static. For LAT_TASK_CUSTOM it
 * holds the defaults (0 % every 1 ms); the caller substitutes its own.
 */
const struct lat_task_info *lat_task_info(enum lat_task_kind k);

#define LAT_NAME_MAX 32		/* bytes of a load name, NUL included */
#define LAT_MAX_LOADS 16	/* loads in one list */
#define LAT_MAX_CELLS (LAT_NTASKS * LAT_MAX_LOADS)

/* The default lists, interbench's: every task, and its loads. */
#define LAT_DEFAULT_TASKS "audio,video,x,gaming"
#define LAT_DEFAULT_LOADS "none,video,x,burn,write,read,compile,memload"

struct lat_load_def {
	char name[LAT_NAME_MAX];	/* lower case */
	unsigned parts;			/* enum lat_part bits; 0 = none */
	bool custom;			/* a combination from the command line */
};

struct lat_cell {
	uint8_t task;	/* enum lat_task_kind */
	uint8_t load;	/* index into lat_plan.loads */
};

/* The grid a command line asks for. A plain value: no pointers, no owner. */
struct lat_plan {
	unsigned ntasks;
	uint8_t tasks[LAT_NTASKS];
	unsigned nloads;
	struct lat_load_def loads[LAT_MAX_LOADS];
	unsigned ncells;
	struct lat_cell cells[LAT_MAX_CELLS];
};

/*
 * Fills PLAN from a task list and a load list, as the option parser split
 * them (NULL or empty: the defaults; the custom task is never in the
 * default list, only when named). Items are matched case-insensitively. Cells
 * run task by task, each over the loads in order. With the default load
 * list a task is not run against itself as a load (interbench's rule:
 * video under video is skipped); a load list given explicitly is taken as
 * asked. Returns 0, or -EINVAL with one line in ERR for: an unknown task
 * or load, an empty item, a name given twice, a combination that names
 * itself or redefines a built-in load, 'none' inside a combination, a name
 * too long, too many loads, or a grid without cells.
 */
MUST_CHECK int lat_plan_parse(struct lat_plan *plan, const struct opt_list *tasks, const struct opt_list *loads,
			      char *err, size_t errlen);

/*
 * Writes PARTS as "burn+write+read" (in enum order; "none" for 0) into BUF
 * of LEN bytes, truncating if needed.
 */
void lat_parts_format(char *buf, size_t len, unsigned parts);

/*
 * The longest period among the plan's tasks (the shortest useful --time),
 * counting the custom task's as CUSTOM_PERIOD_NS.
 */
uint64_t lat_plan_longest_period(const struct lat_plan *plan, uint64_t custom_period_ns);

/* True when the plan measures the custom task. */
bool lat_plan_has_task(const struct lat_plan *plan, enum lat_task_kind k);

/*
 * Memory load sizing. interbench asks for 110 % of RAM (capped at 2930 MB,
 * a 32-bit leftover); engpass asks for 110 % of the effective memory (RAM,
 * or the cgroup limit when smaller), with no fixed cap, and never for more
 * than MemAvailable + SwapFree minus a safety margin.
 */
struct lat_memload_size {
	uint64_t target;	/* 110 % of effective, or the size asked for */
	uint64_t margin;	/* max(LAT_MEMLOAD_MIN, effective / 16) */
	uint64_t ceiling;	/* available + swap_free - margin (0 if negative) */
	uint64_t size;		/* min(target, ceiling), whole MiB */
	bool limited;		/* size < target: the ceiling decided */
};

#define LAT_MEMLOAD_MIN (16ULL << 20)	/* smallest useful load, and smallest margin */

/*
 * Sizes the memory load from EFFECTIVE memory, AVAILABLE memory (what
 * MemAvailable says) and SWAP_FREE, all in bytes; ASKED (0 = automatic)
 * replaces the 110 % target but not the ceiling. Returns 0, or -ENOMEM when
 * the size would be below LAT_MEMLOAD_MIN (OUT is filled either way), or
 * -EINVAL when EFFECTIVE is 0.
 */
MUST_CHECK int lat_memload_size(uint64_t effective, uint64_t available, uint64_t swap_free, uint64_t asked,
				struct lat_memload_size *out);

#endif
