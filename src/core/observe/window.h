/* SPDX-License-Identifier: MIT */
/*
 * The measurement window: the spans of time a step's figures cover, and
 * the system sampled over exactly those spans. The runner owns one window
 * per step (and hands it to the benchmark as env->window); its sampler is
 * the only one, so the system view, the verdict judged over it and a
 * benchmark's own figures drawn from it (net's per-side busiest core) all
 * describe the same time.
 *
 * Who marks what:
 * - The runner opens an implicit span around each run() (window_run_begin,
 *   window_run_end). A benchmark that never marks measures its whole run().
 * - A benchmark that measures only part of its run() (the data transfer,
 *   not the connection set-up and the results exchange) marks it with
 *   window_begin() and window_end(). Its first window_begin() in a step
 *   drops the implicit span, and the runner opens none for the rest of the
 *   step. Several begin/end pairs (one per repetition) add up: the time
 *   between an end and the next begin is not sampled.
 * - window_view() gives the benchmark the summary of its window so far
 *   (between spans), for figures of its own.
 * - window_take() closes the window and hands its sampler to a result: the
 *   runner does it after the step, and env->emit() for each result a
 *   long-running command emits (a server's test, an interval), so every
 *   emitted result carries the window of its own. A benchmark whose run
 *   produced nothing to emit drops what it marked with window_discard().
 *
 * Without sampling (--no-sample, or a sampler that cannot start) the
 * marks cost nothing and the window has no view. One window is driven
 * from one thread.
 */
#ifndef ENGPASS_WINDOW_H
#define ENGPASS_WINDOW_H

#include <stdbool.h>
#include <sys/types.h>

#include "lib/compiler.h"
#include "core/observe/sampler.h"
#include "core/base/sysview.h"

struct window;

/*
 * New window sampling with CFG (copied, strings included) when SAMPLE;
 * nothing is opened or started yet. Caller frees with window_free().
 */
struct window *window_new(const struct sampler_config *cfg, bool sample);
/* Stops and frees everything the window holds. NULL is ignored. */
void window_free(struct window *w);

/*
 * The interface the window's sampler reports instead of the busiest one
 * (e.g. that of an accepted connection), from the next window on (a window
 * already sampling keeps its own). Copied; NULL = the configured default.
 */
void window_watch_iface(struct window *w, const char *iface);

/*
 * The work whose limits the window's next span reads: PID's cgroups, and
 * OWN_MEM_DIR (copied; NULL none) a memory cgroup engpass made for it (a
 * sandbox: its high-water mark may be reset, core/observe/limits.h). For a work
 * that is not the process the runner named: mem --ladder's measuring child
 * in its sandbox, latency's cell after engpass joined its sandbox. Call it
 * before window_begin(); it takes effect at the next span.
 */
void window_work(struct window *w, pid_t pid, const char *own_mem_dir);

/*
 * Begins a span of the benchmark's own measurement now: starts (or
 * resumes) sampling. Drops an implicit span the runner opened. Returns 0,
 * or -EALREADY when a span is open already (it goes on).
 */
int window_begin(struct window *w);
/* Ends the open span now (sampling pauses). Returns 0, or -EINVAL when none is open. */
int window_end(struct window *w);
/*
 * Fills OUT with the summary of the window so far. Returns 0; -EBUSY while
 * a span is open; -ENODATA when nothing was sampled (no span yet, or
 * sampling off or failed).
 */
MUST_CHECK int window_view(const struct window *w, struct sysview *out);

/*
 * The limits discovered for the window so far (core/observe/limits.h), owned by
 * the window and valid until the window is taken or freed; NULL when
 * nothing was sampled or no limits were asked for. Between spans, as
 * window_view().
 */
const struct limits *window_limits(const struct window *w);

/* The runner, around each run(): an implicit span, unless the benchmark marks its own. */
void window_run_begin(struct window *w);
void window_run_end(struct window *w);

/*
 * Closes the window (ending an open span) and returns the sampler of all
 * it covered, stopped: the caller owns it (result_attach_sampler() takes
 * it). NULL when nothing was sampled. The next span begins a new window;
 * an implicit span that was open begins again at once, so the next result
 * emitted covers the time from now.
 */
struct sampler *window_take(struct window *w);
/* Drops what the window covered so far (a test that gave no result). */
void window_discard(struct window *w);

#endif
