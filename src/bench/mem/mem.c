/* SPDX-License-Identifier: MIT */
/*
 * engpass mem: where memory throughput goes. Three measurements, each a
 * step of its own (so each gets its own sampled system view and verdict):
 *
 *  --ladder     seed 003's swaptest: areas of growing size, filled with
 *               random data and read back, one step per rung, so the
 *               sampler shows swap in/out and memory stall per rung. A
 *               rung is either resident (a memory speed) or not (a swap
 *               speed), and says which. With --sandbox LIMIT the rungs run
 *               in a memory cgroup of that limit, optionally with an own
 *               swap file (src/core/work/sandbox.h): a 24 GB box plays a
 *               128 MB one.
 *  --bandwidth  STREAM-like write/read/copy/scale/add/triad (mem_bw.c).
 *  --latency    a pointer-chase curve from 4 KiB past the LLC (mem_bw.c).
 *
 * Without a mode, --bandwidth and --latency run (both are safe anywhere).
 * The ladder outside a sandbox needs --sizes: its default is relative to
 * the effective memory and on a big box would take most of it, which
 * nobody should get by accident. Every rung is held to a budget
 * (MemAvailable + SwapFree - margin; in a sandbox the limit + free swap -
 * margin) and skipped with the reason beyond it unless --force.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/bench.h"
#include "bench/mem/mem_bw.h"
#include "bench/mem/mem_ladder.h"
#include "bench/mem/mem_sizes.h"
#include "lib/units.h"
#include "core/work/sandbox.h"
#include "core/kernel/sysinfo.h"

#define DEFAULT_LADDER "0.25x,0.5x,0.75x,1x,1.5x,2x"
#define DEFAULT_SWAPDIR "/var/tmp"

struct mem_opts {
	bool ladder, bandwidth, latency;
	struct opt_list sizes;
	int order;
	int64_t passes;		/* 0 = the mode's default */
	bool swaptest_format;
	bool force;
	int64_t margin;
	uint64_t sandbox;
	uint64_t swapfile;
	const char *swapdir;
	const char *swap;	/* --swap file[:DIR] | dev:DEVICE | none */
	bool mkswap_ok;
	uint64_t size;
	const char *threads_arg;	/* --threads N|all */
	int simd;		/* enum mem_simd */
	int64_t seed;
	/* Filled by check(). */
	unsigned threads;	/* 0 = all */
	const char *swap_dev;	/* the DEVICE of --swap dev:DEVICE */
	uint64_t swap_dev_new;	/* its size when it is not active swap already */
	struct mem_size rungs[MEM_MAX_SIZES];
	size_t nrungs;
	bool swapdir_given;	/* --swapdir was given (else DEFAULT_SWAPDIR) */
	/*
	 * Why the ladder's rungs are skipped, or "": the default swap directory
	 * cannot hold a swap file (overlayfs, tmpfs in a container). That is the
	 * machine's condition, not a usage error; an explicit --swapdir there is.
	 */
	char skip_why[192];
};

static const char *const orders[] = { "seq", "random", NULL };

static const struct opt mem_options[] = {
	OPT_FLAG("ladder", 0, struct mem_opts, ladder, "swaptest ladder: fill and read back areas of growing size"),
	OPT_FLAG("bandwidth", 0, struct mem_opts, bandwidth,
		 "STREAM-like bandwidth: write, read, copy, scale, add, triad"),
	OPT_FLAG("latency", 0, struct mem_opts, latency, "load latency curve: pointer chase from 4 KiB past the LLC"),
	OPT_LIST("sizes", 0, struct mem_opts, sizes, MEM_MAX_SIZES, "LIST",
		   "ladder rungs: multiples of the base (0.5x) and/or sizes (85M), comma separated; "
		   "default " DEFAULT_LADDER " in a sandbox, required outside one"),
	OPT_CHOICE("order", 0, struct mem_opts, order, orders, "seq|random", "order of the ladder's read pass (default seq)"),
	OPT_INT("passes", 0, struct mem_opts, passes, 1, 1000, "N",
		"ladder: read passes per rung (default 1); bandwidth: timed passes per kernel, best kept (default "
		"10, or as many as --time holds); latency: runs per size (default 3)"),
	OPT_FLAG("swaptest-format", 0, struct mem_opts, swaptest_format,
		 "add swaptest's line (N iterations: X MB in T seconds = R MB/sec) to each rung"),
	OPT_FLAG("force", 0, struct mem_opts, force, "run sizes beyond MemAvailable + SwapFree - margin"),
	OPT_INT("margin", 0, struct mem_opts, margin, 0, 50, "PCT",
		"safety margin in percent of MemTotal (of the limit in a sandbox), default 5"),
	OPT_SIZE("sandbox", 0, struct mem_opts, sandbox, 16 << 20, INT64_MAX,
		 "run the ladder in a memory cgroup limited to SIZE (root); sizes are relative to it"),
	OPT_SIZE("swapfile", 0, struct mem_opts, swapfile, 1 << 20, INT64_MAX,
		 "size of the sandbox's own swap file (default twice the limit; removed afterwards)"),
	OPT_STRING("swapdir", 0, struct mem_opts, swapdir, "DIR",
		   "directory of the swap file, on a disk file system (default " DEFAULT_SWAPDIR ")"),
	OPT_STRING("swap", 0, struct mem_opts, swap, "file[:DIR]|dev:DEV|none",
		   "the sandbox's swap: its own file in DIR (the default; DIR " DEFAULT_SWAPDIR ", --swapfile SIZE, "
		   "default twice the limit), a block device swapped on at top priority for the run and restored afterwards, or "
		   "none of its own"),
	OPT_FLAG("mkswap-ok", 0, struct mem_opts, mkswap_ok,
		 "--swap dev: write a swap signature to a device that has none (never over a file system)"),
	OPT_SIZE("size", 0, struct mem_opts, size, 4096, INT64_MAX,
		 "bandwidth: bytes per array; latency: largest working set (default: up to 4 x LLC, at least 64M, "
		 "as large as the time holds)"),
	OPT_STRING("threads", 0, struct mem_opts, threads_arg, "N|all",
		   "bandwidth: also run the kernels on N threads (1-256) or on all, one pinned per CPU, reported "
		   "beside one thread's figures (default 1: one thread only)"),
	OPT_CHOICE("simd", 0, struct mem_opts, simd, mem_simd_names, "auto|scalar|avx2|avx512|neon",
		   "bandwidth: the read, write and copy kernels' instruction set (default auto: the widest this "
		   "CPU runs)"),
	OPT_INT("seed", 0, struct mem_opts, seed, 0, INT64_MAX, "N", "seed of the page keys and orders (default 1)"),
	OPT_END,
};

static void mem_defaults(void *p)
{
	struct mem_opts *o = p;

	o->margin = 5;
	o->threads = 1;
	o->simd = MEM_SIMD_AUTO;
	o->seed = 1;
}

static int fail(char *err, size_t errlen, const char *fmt, ...) PRINTF_LIKE(3, 4);
static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* Checks the sandbox options against this box (root, RAM, the swap directory). */
static int check_sandbox(struct mem_opts *o, char *err, size_t errlen)
{
	struct sysinfo_opts so = { "/proc", "/sys", false, false };
	struct sysinfo si;
	char b1[UNITS_FMT_LEN], b2[UNITS_FMT_LEN];
	const char *fs;
	int r = 0;

	if (geteuid() != 0)
		return fail(err, errlen, "option '--sandbox' needs root (it makes a cgroup and enables swap)");
	if (sysinfo_collect(&si, &so) == 0 && si.mem.effective_bytes > 0 &&
	    o->sandbox > (uint64_t)si.mem.effective_bytes)
		r = fail(err, errlen, "option '--sandbox': %s is more than the memory of this box (%s)",
			 units_fmt_bytes(b1, sizeof(b1), o->sandbox),
			 units_fmt_bytes(b2, sizeof(b2), (uint64_t)si.mem.effective_bytes));
	sysinfo_release(&si);
	if (!r && o->swap_dev) {
		struct sandbox_swapdev d;
		char why[512];

		if (sandbox_check_swapdev(o->swap_dev, o->mkswap_ok, "/proc", &d, why, sizeof(why)))
			return fail(err, errlen, "option '--swap': %s", why);
		o->swap_dev_new = d.active ? 0 : d.bytes;
	}
	if (r || !o->swapfile)
		return r;
	switch ((r = sandbox_check_swapdir(o->swapdir, o->swapfile, &fs))) {
	case 0:
		return 0;
	case -EINVAL:
		if (!o->swapdir_given) {
			snprintf(o->skip_why, sizeof(o->skip_why),
				 "the default swap directory '%s' is on %s, which cannot hold a swap file "
				 "(give --swapdir DIR on a disk file system)", o->swapdir,
				 fs ? fs : "a file system without swap support");
			return 0;
		}
		return fail(err, errlen, "option '--swapdir': '%s' is on %s, which cannot hold a swap file", o->swapdir,
			    fs ? fs : "a file system without swap support");
	case -ENOSPC:
		return fail(err, errlen, "option '--swapfile': no room for %s (+ 64 MiB to spare) in '%s'",
			    units_fmt_bytes(b1, sizeof(b1), o->swapfile), o->swapdir);
	default:
		return fail(err, errlen, "option '--swapdir': cannot use '%s': %s", o->swapdir, strerror(-r));
	}
}

/*
 * --swap: file[:DIR] is the own swap file (the older --swapfile SIZE and
 * --swapdir DIR still name its size and place), dev:DEVICE a block device,
 * none no own swap.
 */
static int resolve_swap(struct mem_opts *o, char *err, size_t errlen)
{
	struct sandbox_swap_spec sp;

	if (sandbox_swap_parse(o->swap, &sp))
		return fail(err, errlen, "option '--swap': '%s' is not file, file:DIR, dev:DEVICE or none", o->swap);
	switch (sp.kind) {
	case SANDBOX_SWAP_NONE:
		if (o->swapfile || o->swapdir)
			return fail(err, errlen, "option '--swap none' excludes --swapfile and --swapdir");
		break;
	case SANDBOX_SWAP_FILE:
		if (sp.dir && o->swapdir && strcmp(sp.dir, o->swapdir))
			return fail(err, errlen, "options '--swap file:%s' and '--swapdir %s' name different directories",
				    sp.dir, o->swapdir);
		if (sp.dir)
			o->swapdir = sp.dir;
		if (!o->swapfile)
			o->swapfile = o->sandbox * 2;
		break;
	case SANDBOX_SWAP_DEV:
		if (o->swapfile || o->swapdir)
			return fail(err, errlen, "option '--swap dev:': the whole device is the swap; --swapfile and "
				    "--swapdir are for a swap file");
		o->swap_dev = sp.dev;
		break;
	}
	return 0;
}

static int mem_check(void *p, const struct bench_env *env, char *err, size_t errlen)
{
	struct mem_opts *o = p;
	struct opt_list def;
	int r;

	if (env->npos)
		return fail(err, errlen, "unexpected argument '%s'", env->pos[0]);
	if (!o->ladder && !o->bandwidth && !o->latency)
		o->bandwidth = o->latency = true;
	if (!o->ladder) {
		const char *stray = o->sizes.n ? "--sizes" : o->order ? "--order" : o->swaptest_format ? "--swaptest-format"
				  : o->sandbox ? "--sandbox" : o->swapfile ? "--swapfile" : o->swapdir ? "--swapdir"
				  : o->swap ? "--swap" : o->mkswap_ok ? "--mkswap-ok" : NULL;

		if (stray)
			return fail(err, errlen, "option '%s' applies to --ladder only", stray);
	}
	if (!o->bandwidth && o->threads_arg)
		return fail(err, errlen, "option '--threads' applies to --bandwidth only");
	if (!o->bandwidth && o->simd != MEM_SIMD_AUTO)
		return fail(err, errlen, "option '--simd' applies to --bandwidth only");
	if (o->threads_arg && !strcmp(o->threads_arg, "all")) {
		o->threads = 0;
	} else if (o->threads_arg) {
		uint64_t n;

		if (units_parse_uint64(o->threads_arg, 1, 256, &n))
			return fail(err, errlen, "option '--threads': '%s' is not a number from 1 to 256 or 'all'",
				    o->threads_arg);
		o->threads = (unsigned)n;
	}
	if (!mem_simd_supported((enum mem_simd)o->simd))
		return fail(err, errlen, "option '--simd': this CPU (or this build for it) cannot run %s (auto picks %s "
			    "here)", mem_simd_names[o->simd], mem_simd_kernels(MEM_SIMD_AUTO)->name);
	if (o->size && !o->bandwidth && !o->latency)
		return fail(err, errlen, "option '--size' applies to --bandwidth and --latency");
	if ((o->swapfile || o->swap) && !o->sandbox)
		return fail(err, errlen, "option '%s' needs --sandbox (engpass sets up swap only for a sandbox)",
			    o->swap ? "--swap" : "--swapfile");
	if (o->swap && (r = resolve_swap(o, err, errlen)))
		return r;
	/*
	 * Without --swap or --swapfile the sandbox gets its own swap file of
	 * twice the limit, as latency's does: a ladder past the limit swaps
	 * to it, whatever swap the box has or lacks (issue 36, seed 003).
	 * --swap none keeps the box's swap only.
	 */
	if (o->sandbox && !o->swap && !o->swapfile && o->ladder)
		o->swapfile = o->sandbox * 2;
	if (o->mkswap_ok && !o->swap_dev)
		return fail(err, errlen, "option '--mkswap-ok' applies to --swap dev:DEVICE");
	if (o->swapdir && !o->swapfile)
		return fail(err, errlen, "option '--swapdir' needs --swapfile (or use --swap file:DIR)");
	o->swapdir_given = o->swapdir != NULL;
	if (!o->swapdir)
		o->swapdir = DEFAULT_SWAPDIR;
	if (!o->ladder)
		return 0;
	if (!o->sizes.n && !o->sandbox)
		return fail(err, errlen, "--ladder without --sandbox needs --sizes (the default ladder " DEFAULT_LADDER
			    " of the whole memory would take this box); e.g. --sizes 64M,128M or --sandbox 128M "
			    "--swapfile 256M");
	if (mem_sizes_parse(opt_list_or(&o->sizes, DEFAULT_LADDER, &def), o->rungs, MEM_MAX_SIZES, &o->nrungs, err,
			    errlen))
		return -EINVAL;
	return o->sandbox ? check_sandbox(o, err, errlen) : 0;
}

static size_t mem_nsteps(const void *p)
{
	const struct mem_opts *o = p;

	return (o->ladder ? o->nrungs : 0) + (o->bandwidth ? 1 : 0) + (o->latency ? 1 : 0);
}

static void mem_run(const struct bench_env *env, const void *p, struct result *res)
{
	const struct mem_opts *o = p;
	size_t step = env->step;

	if (o->ladder && step < o->nrungs && o->skip_why[0]) {
		result_set_status(res, RESULT_SKIPPED, "%s", o->skip_why);
		return;
	}
	if (o->ladder && step < o->nrungs) {
		struct mem_ladder_cfg c = {
			.size = o->rungs[step],
			.order = o->order,
			.passes = o->passes ? (unsigned)o->passes : 1,
			.margin_pct = (unsigned)o->margin,
			.force = o->force,
			.swaptest_format = o->swaptest_format,
			.sandbox_limit = o->sandbox,
			.swap_bytes = o->swapfile,
			.swap_dir = o->swapdir,
			.swap_dev = o->swap_dev,
			.swap_dev_new_bytes = o->swap_dev_new,
			.mkswap_ok = o->mkswap_ok,
			/* Each rung and repetition its own keys. */
			.seed = (uint64_t)o->seed * 1000003u + step * 131u + env->rep,
			.time_ns = env->time_ns,
		};

		mem_ladder_run(env, &c, res);
		return;
	}
	if (o->ladder)
		step -= o->nrungs;
	if (o->bandwidth && step == 0) {
		struct mem_bw_cfg c = {
			.array_bytes = o->size,
			.threads = o->threads,
			.simd = (enum mem_simd)o->simd,
			.passes = (unsigned)o->passes,
			.time_ns = env->time_ns,
			.sys_root = env->sys_root,
			.margin_pct = (unsigned)o->margin,
			.force = o->force,
		};

		mem_bandwidth_run(env, &c, res);
		return;
	}
	{
		struct mem_lat_cfg c = {
			.max_bytes = o->size,
			.passes = (unsigned)o->passes,
			.time_ns = env->time_ns,
			.sys_root = env->sys_root,
			.margin_pct = (unsigned)o->margin,
			.force = o->force,
		};

		mem_latency_run(env, &c, res);
	}
}

/*
 * --verify (docs/verdict.md "Checking the verdict"): the bandwidth step's
 * memory bandwidth is tested with a second thread (twice the step's, one
 * pinned per CPU) over arrays of the size the step used (a shorter probe
 * would size smaller ones, perhaps in cache), its threads' triad
 * together compared with the step's one-thread triad. The latency curve's
 * candidates are the method (core/result/verify.c says so), the ladder's have
 * no probe.
 */
static int mem_relax(const void *p, void *probe, const char *resource, const struct result *res,
		     const struct bench_env *env, struct bench_relax *out)
{
	const struct mem_opts *o = p;
	struct mem_opts *q = probe;
	size_t step = env->step - (o->ladder ? o->nrungs : 0);
	unsigned all = mem_bandwidth_all_threads(), n = o->threads ? o->threads : all;
	uint64_t bytes = 0;

	if ((o->ladder && env->step < o->nrungs) || !o->bandwidth || step != 0 ||
	    (strcmp(resource, "memory bandwidth") && strcmp(resource, "one core"))) {
		snprintf(out->why, sizeof(out->why), "mem has no probe for %s%s", resource,
			 o->bandwidth && step == 0 ? "" : " in this step");
		return 0;
	}
	if (n >= all) {
		snprintf(out->why, sizeof(out->why), "the step already ran a thread on each of the %u CPUs allowed", all);
		return 0;
	}
	for (size_t i = 0; i < res->nparams; i++)
		if (!strcmp(res->params[i].key, "array_bytes"))
			bytes = strtoull(res->params[i].value, NULL, 10);
	q->threads = 2 * n > all ? all : 2 * n;
	if (bytes)
		q->size = bytes;
	snprintf(out->what, sizeof(out->what), "%u threads", q->threads);
	snprintf(out->params, sizeof(out->params), "--threads %u%s%llu", q->threads, bytes ? " --size " : "",
		 (unsigned long long)bytes);
	if (!bytes)
		snprintf(out->params, sizeof(out->params), "--threads %u", q->threads);
	snprintf(out->base_metric, sizeof(out->base_metric), "%s", n > 1 ? "triad_threads" : "triad");
	snprintf(out->probe_metric, sizeof(out->probe_metric), "triad_threads");
	return 1;
}

extern const struct bench_quick mem_quick;	/* mem_quick.c */

const struct bench bench_mem = {
	.name = "mem",
	.summary = "memory and swap: swaptest ladder (optionally sandboxed), bandwidth, latency",
	.usage = "[--ladder [--sizes LIST] [--sandbox LIMIT [--swap file[:DIR]|dev:DEV]]] [--bandwidth] [--latency] "
		 "[options]",
	.description =
		"--ladder fills areas of growing size with random data and reads every page back, like\n"
		"swaptest: MB/s for both passes, major faults, swap in/out, memory stall, and whether the\n"
		"area stayed resident (then the read rate is a memory speed, not a swap speed). Sizes are\n"
		"multiples of the effective memory (the sandbox limit with --sandbox) or absolute.\n"
		"Outside a sandbox --sizes is required; rows beyond MemAvailable + SwapFree - margin are\n"
		"skipped unless --force. --sandbox LIMIT (root) runs each rung in a memory cgroup with\n"
		"that limit and, by default (as latency's), its own swap file (--swap file[:DIR],\n"
		"--swapfile SIZE, default twice the limit); --swap dev:DEVICE a partition or loop device\n"
		"swapped on at top priority for the run, --swap none only the box's. All is undone afterwards, also on errors, Ctrl-C and SIGKILL (a guardian\n"
		"process restores a device's previous swap state and priority).\n"
		"--bandwidth runs STREAM-like kernels over arrays of up to 4 x the last-level cache, read,\n"
		"write and copy with the widest SIMD path this CPU runs (--simd; the path is named in the\n"
		"result), ordinary and non-temporal stores side by side; --threads N|all adds the same\n"
		"kernels on N threads pinned one per CPU beside one thread's figures and says which of\n"
		"the two is the memory's;\n"
		"--latency a pointer chase from 4 KiB past the LLC. Without a mode: both.\n"
		"Each of the two keeps --time (default: at most 10 s, 10 passes and 3 runs per size): the\n"
		"arrays, the curve's sizes and the passes are the largest that fit, and the result names\n"
		"the sizes that did not. With --time each ladder rung keeps it too: its write pass stops\n"
		"at half of it (the rung names the area that did not fit), its read passes at its end.",
	.flags = BENCH_CHILD_WORK,
	.opts = mem_options,
	.opts_size = sizeof(struct mem_opts),
	.defaults = mem_defaults,
	.check = mem_check,
	.relax = mem_relax,
	.nsteps = mem_nsteps,
	.run = mem_run,
	.quick = &mem_quick,
};
