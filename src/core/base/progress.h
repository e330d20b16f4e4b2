/* SPDX-License-Identifier: MIT */
/*
 * A one-line progress display for long steps, in the manner of dl and
 * curl: label, percent done, time elapsed, estimated time left, and a
 * caller-formatted extra field (usually the current rate). The line is
 * redrawn in place with '\r', at most PROGRESS_HZ times per second, and
 * erased (overwritten with spaces, then '\r') when the step ends, so the
 * results printed afterwards start on a clean line.
 *
 * This is the only way the core writes to a terminal, and it decides
 * nothing about whether it should: the CLI passes the stream (stderr) and
 * an 'enabled' flag it computed from isatty() and --quiet. Disabled, every
 * drawing call is a no-op. Lasting lines (progress_say(), and the phase
 * lines of progress_phase() and progress_step(): "engpass disk: filling
 * a 1 GiB data file in /tmp", "step 3 of 27") go to a pipe too, unless
 * the CLI leaves 'say' unset (--quiet).
 *
 * The elapsed time and the time left belong to a phase: they restart at
 * progress_phase() and whenever an update's done goes back or its total
 * changes, so a 1-s step after a 2.5-s fill does not inherit the fill's
 * time (it once said "14:41 left"). The module never reads a clock; the caller passes the
 * time, which keeps it testable.
 *
 * Lines are cut to PROGRESS_WIDTH columns so that they never wrap on an
 * 80-column terminal (a wrapped line cannot be redrawn with '\r'). Write
 * errors are ignored: progress is cosmetic and must never fail a run.
 * Not thread-safe: update from one thread.
 */
#ifndef ENGPASS_PROGRESS_H
#define ENGPASS_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

#include "core/base/clock.h"

#define PROGRESS_HZ 4
#define PROGRESS_INTERVAL_NS (NS_PER_SEC / PROGRESS_HZ)
#define PROGRESS_WIDTH 79
#define PROGRESS_LABEL_MAX 24

struct progress {
	FILE *f;			/* not owned */
	bool enabled;			/* false: every call does nothing */
	bool say;			/* progress_say() writes (off after init; the runner sets it unless --quiet) */
	bool started;			/* start is set */
	bool force;			/* draw at the next update, whatever the time */
	mono_ns start;			/* time of the first update (of this phase) */
	uint64_t start_done;		/* done at that update: the rate counts from there */
	mono_ns last_draw;
	size_t width;			/* characters now on the line, 0 if none */
	uint64_t last_done, last_total;	/* of the last progress_update(): a new phase starts when they go back */
	mono_ns steps_t0;		/* when progress_step() was called for the first step */
	char label[PROGRESS_LABEL_MAX + 1];
	_Atomic int done_bp;		/* last done/total of progress_update in 1/10000, -1 none; any thread reads */
};

/*
 * Set up p to draw on f when 'enabled' (a NULL f disables it too). label
 * (may be NULL) is copied, cut to PROGRESS_LABEL_MAX characters. The
 * elapsed time counts from the first progress_update(), so call that once
 * with done = 0 when the step starts. Nothing is allocated; f stays the
 * caller's and must stay open until progress_finish().
 */
void progress_init(struct progress *p, FILE *f, bool enabled,
		   const char *label);

/*
 * Report that 'done' of 'total' units (bytes, operations, nanoseconds:
 * only the ratio matters) are complete at time now, and redraw the line
 * if this is the first update, or the first after progress_clear(), or
 * at least PROGRESS_INTERVAL_NS after the last redraw; otherwise do
 * nothing. total = 0 means unknown: no percent and no time left are shown.
 * extra (may be NULL) is shown at the end of the line as given; it is
 * only read during the call.
 */
void progress_update(struct progress *p, mono_ns now, uint64_t done,
		     uint64_t total, const char *extra);

/*
 * Like progress_update(), at the same pace, but draws LINE as given (cut
 * to PROGRESS_WIDTH) instead of the label, percent and times: for a
 * benchmark whose progress has a format of its own (fetch prints dl's).
 * LINE is only read during the call.
 */
void progress_show(struct progress *p, mono_ns now, const char *line);

/*
 * Writes LINE and a newline to the stream as a lasting line (a server's
 * "listening on", iperf3 -i's per-interval lines), erasing the progress
 * line first, which the next update redraws. Unlike the progress line it
 * is written to a pipe too; nothing is written unless SAY is set.
 */
void progress_say(struct progress *p, const char *line);

/*
 * Starts a phase (a data-file fill, a warm-up, a step): writes "engpass
 * LABEL: " and the formatted text as a lasting line, as progress_say()
 * does (on a pipe too; nothing unless SAY is set), and restarts the
 * elapsed time and the estimate of the time left at the next update, so
 * the time a phase before took does not count against this one.
 * progress_update() also restarts them by itself when DONE goes back or
 * TOTAL changes (a new phase the caller did not name).
 */
void progress_phase(struct progress *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * The phase line of step I (0-based) of N at time NOW, for a command of
 * more than one step (one step says nothing): "step 3 of 27". STEP_NS is
 * how long each step measures when the user set it (--time, per step; 0 =
 * the benchmark's own length, unknown here) and REPS the repetitions of
 * each step (--repeat). With STEP_NS the first step is preceded by the
 * plan, "27 steps x 200 ms measured (--time is per step): at least 0:05
 * in all", and says "(at least 0:05 left)". From the second step on the
 * line says the time since the first and what the steps left would take
 * at the mean pace of the steps done so far ("about"), or what they
 * measure when that is longer ("at least": set-up, warm-up and fills come
 * on top of --time).
 */
void progress_step(struct progress *p, mono_ns now, size_t i, size_t n, uint64_t step_ns, unsigned reps);

/*
 * The estimate of the time left: ELAPSED ns since the phase started, DONE
 * of TOTAL units complete, the rate so far going on. Sets *LEFT and
 * returns true; false when it cannot be said (nothing done yet, no time
 * elapsed, an estimate beyond 500 years). DONE >= TOTAL: 0 left.
 */
bool progress_time_left(uint64_t elapsed, uint64_t done, uint64_t total, uint64_t *left);

/*
 * Erase the line, leaving the cursor at its start, so the caller can print
 * a message; the next progress_update() draws again at once.
 */
void progress_clear(struct progress *p);

/*
 * The share of the step done at the last progress_update() with a known
 * total, in percent (kept whether or not the line is drawn), or NaN when
 * none was given since init or progress_percent_reset(). Unlike the rest,
 * safe to call from any thread (--format jsonl reads it in its writer).
 */
double progress_percent(const struct progress *p);
void progress_percent_reset(struct progress *p);

/*
 * Erase the line for good: later updates do nothing until progress_init()
 * is called again.
 */
void progress_finish(struct progress *p);

#endif
