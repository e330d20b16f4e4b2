/* SPDX-License-Identifier: MIT */
/*
 * Progress line; the behaviour is described in progress.h.
 *
 * Erasing uses spaces and '\r' rather than the ANSI "erase line" sequence,
 * so it works on any terminal, including a serial console on a router.
 * A redraw pads with spaces when the new line is shorter than the old one.
 */
#include "progress.h"

#include "lib/units.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>

void progress_init(struct progress *p, FILE *f, bool enabled,
		   const char *label)
{
	memset(p, 0, sizeof(*p));
	p->f = f;
	p->enabled = enabled && f;
	atomic_store_explicit(&p->done_bp, -1, memory_order_relaxed);
	snprintf(p->label, sizeof(p->label), "%s", label ? label : "");
}

/* "m:ss" below an hour, "h:mm:ss" from there on. */
static void fmt_clock(char *buf, size_t len, uint64_t ns)
{
	uint64_t s = ns / NS_PER_SEC;

	if (s < 3600)
		snprintf(buf, len, "%u:%02u", (unsigned)(s / 60),
			 (unsigned)(s % 60));
	else
		snprintf(buf, len, "%llu:%02u:%02u",
			 (unsigned long long)(s / 3600),
			 (unsigned)(s / 60 % 60), (unsigned)(s % 60));
}

bool progress_time_left(uint64_t elapsed, uint64_t done, uint64_t total, uint64_t *left)
{
	double est;

	if (done >= total) {
		*left = 0;
		return true;
	}
	if (done == 0 || elapsed == 0)
		return false;
	est = (double)elapsed * ((double)(total - done) / (double)done);
	if (!(est < 1.8e19))
		return false;
	*left = (uint64_t)est;
	return true;
}

/* Length of what snprintf() left in a buffer of size 'size' (n its return). */
static size_t fitted(int n, size_t size)
{
	if (n < 0)
		return 0;
	return (size_t)n < size ? (size_t)n : size - 1;
}

/* Redraws the line as LINE (LEN characters), padding over a longer one. */
static void put_line(struct progress *p, mono_ns now, const char *line, size_t len)
{
	fprintf(p->f, "\r%.*s%*s", (int)len, line,
		p->width > len ? (int)(p->width - len) : 0, "");
	fflush(p->f);
	/* the padding stays on the line until overwritten */
	if (len > p->width)
		p->width = len;
	p->last_draw = now;
	p->force = false;
}

static void draw(struct progress *p, mono_ns now, uint64_t done,
		 uint64_t total, const char *extra)
{
	char line[PROGRESS_WIDTH + 1];
	char el[32], lf[32] = "--:--";
	const char *sep = *p->label ? "  " : "";
	uint64_t elapsed = elapsed_ns(p->start, now), left;
	int n;

	fmt_clock(el, sizeof(el), elapsed);
	if (total) {
		double pct = done >= total ? 100.0 :
			     100.0 * (double)done / (double)total;

		/* the rate of this phase: what was done before it started is not its work */
		if (done >= total)
			fmt_clock(lf, sizeof(lf), 0);
		else if (done >= p->start_done &&
			 progress_time_left(elapsed, done - p->start_done, total - p->start_done, &left))
			fmt_clock(lf, sizeof(lf), left);
		n = snprintf(line, sizeof(line),
			     "%s%s%5.1f%%  %s elapsed  %s left%s%s",
			     p->label, sep, pct, el, lf,
			     extra ? "  " : "", extra ? extra : "");
	} else {
		n = snprintf(line, sizeof(line), "%s%s%s elapsed%s%s",
			     p->label, sep, el,
			     extra ? "  " : "", extra ? extra : "");
	}
	/* a line cut at PROGRESS_WIDTH is intended */
	put_line(p, now, line, fitted(n, sizeof(line)));
}

void progress_update(struct progress *p, mono_ns now, uint64_t done,
		     uint64_t total, const char *extra)
{
	if (total)
		atomic_store_explicit(&p->done_bp, done >= total ? 10000 : (int)((double)done / (double)total * 10000),
				      memory_order_relaxed);
	if (!p->enabled)
		return;
	/* A new phase: the time the last one took is not this one's. */
	if (p->started && (done < p->last_done || total != p->last_total))
		p->started = false;
	p->last_done = done;
	p->last_total = total;
	if (!p->started) {
		p->start = now;
		p->start_done = done < total ? done : 0;
		p->started = true;
		p->force = true;
	}
	if (!p->force && elapsed_ns(p->last_draw, now) < PROGRESS_INTERVAL_NS)
		return;
	draw(p, now, done, total, extra);
}

void progress_show(struct progress *p, mono_ns now, const char *line)
{
	size_t len;

	if (!p->enabled)
		return;
	if (!p->started) {
		p->start = now;
		p->started = true;
		p->force = true;
	}
	if (!p->force && elapsed_ns(p->last_draw, now) < PROGRESS_INTERVAL_NS)
		return;
	len = strlen(line);
	put_line(p, now, line, len > PROGRESS_WIDTH ? PROGRESS_WIDTH : len);
}

void progress_clear(struct progress *p)
{
	if (!p->enabled)
		return;
	if (p->width) {
		fprintf(p->f, "\r%*s\r", (int)p->width, "");
		fflush(p->f);
		p->width = 0;
	}
	p->force = true;
}

void progress_say(struct progress *p, const char *line)
{
	if (!p || !p->say || !p->f)
		return;
	progress_clear(p);
	fprintf(p->f, "%s\n", line);
	fflush(p->f);
}

void progress_phase(struct progress *p, const char *fmt, ...)
{
	va_list ap;

	if (!p)
		return;
	p->started = false;
	p->last_done = p->last_total = 0;
	if (!p->say || !p->f)
		return;
	progress_clear(p);
	fprintf(p->f, "engpass %s%s", p->label, *p->label ? ": " : "");
	va_start(ap, fmt);
	vfprintf(p->f, fmt, ap);
	va_end(ap);
	fputc('\n', p->f);
	fflush(p->f);
}

/* "200 ms", "2 s", else as units_fmt_duration() ("1.50 ms"). */
static void fmt_short(char *buf, size_t len, uint64_t ns)
{
	if (ns && ns % NS_PER_SEC == 0)
		snprintf(buf, len, "%llu s", (unsigned long long)(ns / NS_PER_SEC));
	else if (ns && ns % NS_PER_MS == 0 && ns < NS_PER_SEC)
		snprintf(buf, len, "%llu ms", (unsigned long long)(ns / NS_PER_MS));
	else
		units_fmt_duration(buf, len, ns);
}

/* A time of the step lines: "5.4 s" below 10 s (a clock would say 0:05, or 0:00), "m:ss" from there. */
static void fmt_span(char *buf, size_t len, uint64_t ns)
{
	if (ns < 10 * NS_PER_SEC)
		snprintf(buf, len, "%.1f s", (double)ns / 1e9);
	else
		fmt_clock(buf, len, ns);
}

void progress_step(struct progress *p, mono_ns now, size_t i, size_t n, uint64_t step_ns, unsigned reps)
{
	char each[32], left[32], el[32], rep[48] = "";
	uint64_t declared, paced;

	if (n < 2)
		return;
	reps = reps ? reps : 1;
	declared = (uint64_t)((double)(n - i) * reps * (double)step_ns);
	if (i == 0) {
		p->steps_t0 = now;
		if (!step_ns) {
			progress_phase(p, "step 1 of %zu", n);
			return;
		}
		if (reps > 1)
			snprintf(rep, sizeof(rep), " x %u repetitions", reps);
		fmt_short(each, sizeof(each), step_ns);
		fmt_span(left, sizeof(left), declared);
		progress_phase(p, "%zu steps%s x %s measured (--time is per step): at least %s in all", n, rep, each,
			       left);
		progress_phase(p, "step 1 of %zu (at least %s left)", n, left);
		return;
	}
	/* The pace of the steps done so far, carried over the steps left. */
	paced = (uint64_t)((double)elapsed_ns(p->steps_t0, now) / (double)i * (double)(n - i));
	fmt_span(el, sizeof(el), elapsed_ns(p->steps_t0, now));
	fmt_span(left, sizeof(left), paced > declared ? paced : declared);
	progress_phase(p, "step %zu of %zu (%s elapsed, %s %s left)", i + 1, n, el,
		       paced >= declared ? "about" : "at least", left);
}

void progress_finish(struct progress *p)
{
	progress_clear(p);
	p->enabled = false;
}

double progress_percent(const struct progress *p)
{
	int bp = atomic_load_explicit(&p->done_bp, memory_order_relaxed);

	return bp < 0 ? NAN : bp / 100.0;
}

void progress_percent_reset(struct progress *p)
{
	atomic_store_explicit(&p->done_bp, -1, memory_order_relaxed);
}
