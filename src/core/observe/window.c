/* SPDX-License-Identifier: MIT */
/*
 * The measurement window; see window.h for the contract. A window is a
 * sampler created at its first span and paused between spans (sampler_start
 * on a stopped sampler resumes without sampling the pause), plus the few
 * flags that tell the runner's implicit span from the benchmark's own.
 */
#include "core/observe/window.h"

#include <errno.h>
#include <stdlib.h>

#include "lib/xalloc.h"

struct window {
	struct sampler_config cfg;	/* its strings point at the copies below */
	char *proc_root, *sys_root, *disk, *iface;
	char *watch_iface;		/* window_watch_iface(); NULL = cfg.iface */
	struct limits_config lcfg;	/* cfg.limits points here when limits are discovered */
	char *lroot, *ldev, *lown;
	bool sample;			/* sampling wanted and not failed */
	struct sampler *smp;		/* NULL until the window's first span */
	bool open;			/* a span is open */
	bool implicit;			/* the open span is the runner's */
	bool marked;			/* the benchmark marks its own spans */
};

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

struct window *window_new(const struct sampler_config *cfg, bool sample)
{
	struct window *w = xcalloc(1, sizeof(*w));

	if (cfg)
		w->cfg = *cfg;
	w->cfg.proc_root = w->proc_root = dup_or_null(w->cfg.proc_root);
	w->cfg.sys_root = w->sys_root = dup_or_null(w->cfg.sys_root);
	w->cfg.disk = w->disk = dup_or_null(w->cfg.disk);
	w->cfg.iface = w->iface = dup_or_null(w->cfg.iface);
	if (w->cfg.limits) {
		w->lcfg = *w->cfg.limits;
		w->lcfg.root = w->lroot = dup_or_null(w->lcfg.root);
		w->lcfg.dev_name = w->ldev = dup_or_null(w->lcfg.dev_name);
		w->lcfg.own_mem_dir = w->lown = dup_or_null(w->lcfg.own_mem_dir);
		w->lcfg.iface = NULL;	/* the window's: set at each sampler's creation */
		w->cfg.limits = &w->lcfg;
	}
	w->sample = sample;
	return w;
}

void window_free(struct window *w)
{
	if (!w)
		return;
	sampler_free(w->smp);
	free(w->proc_root);
	free(w->sys_root);
	free(w->disk);
	free(w->iface);
	free(w->watch_iface);
	free(w->lroot);
	free(w->ldev);
	free(w->lown);
	free(w);
}

void window_watch_iface(struct window *w, const char *iface)
{
	free(w->watch_iface);
	w->watch_iface = dup_or_null(iface);
}

void window_work(struct window *w, pid_t pid, const char *own_mem_dir)
{
	if (!w->cfg.limits)
		return;
	free(w->lown);
	w->lcfg.own_mem_dir = w->lown = dup_or_null(own_mem_dir);
	w->lcfg.pid = pid;
	if (w->smp)
		sampler_limits_target(w->smp, pid, own_mem_dir);
}

/* Opens a span: creates the sampler at a window's first span, else resumes it. */
static void span_open(struct window *w)
{
	w->open = true;
	if (!w->sample)
		return;
	if (!w->smp) {
		struct sampler_config cfg = w->cfg;

		if (w->watch_iface)
			cfg.iface = w->watch_iface;
		/* The limits are those of the interface this sampler watches. */
		w->lcfg.iface = cfg.iface;
		if (sampler_new(&w->smp, &cfg) < 0) {
			/* The measurement still stands without the system view. */
			w->sample = false;
			return;
		}
	}
	if (sampler_start(w->smp) < 0) {
		sampler_free(w->smp);
		w->smp = NULL;
		w->sample = false;
	}
}

static void span_close(struct window *w)
{
	w->open = false;
	if (w->smp && sampler_stop(w->smp) < 0) {
		/* The series lacks its end: no view rather than a wrong one. */
		sampler_free(w->smp);
		w->smp = NULL;
	}
}

int window_begin(struct window *w)
{
	if (w->open && !w->implicit)
		return -EALREADY;
	if (w->open) {
		/* The benchmark marks its own: the runner's implicit span goes. */
		span_close(w);
		sampler_free(w->smp);
		w->smp = NULL;
	}
	w->marked = true;
	w->implicit = false;
	span_open(w);
	return 0;
}

int window_end(struct window *w)
{
	if (!w->open || w->implicit)
		return -EINVAL;
	span_close(w);
	return 0;
}

const struct limits *window_limits(const struct window *w)
{
	return w->smp && !w->open ? sampler_limits(w->smp) : NULL;
}

int window_view(const struct window *w, struct sysview *out)
{
	if (w->open)
		return -EBUSY;
	if (!w->smp)
		return -ENODATA;
	sampler_summary(w->smp, out);
	return 0;
}

void window_run_begin(struct window *w)
{
	if (w->marked || w->open)
		return;
	w->implicit = true;
	span_open(w);
}

void window_run_end(struct window *w)
{
	if (w->open)
		span_close(w);
	w->implicit = false;
}

struct sampler *window_take(struct window *w)
{
	bool again = w->open && w->implicit;
	struct sampler *s;

	if (w->open)
		span_close(w);
	s = w->smp;
	w->smp = NULL;
	if (again)
		span_open(w);
	return s;
}

void window_discard(struct window *w)
{
	sampler_free(window_take(w));
}
