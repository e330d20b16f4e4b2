/* SPDX-License-Identifier: MIT */
/*
 * Helpers for the benchmarks' findings hooks (struct bench_quick in
 * bench.h): collecting sentences and looking up the results and figures
 * of their own quick steps.
 */
#include "bench.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/xalloc.h"

void bench_finding(struct bench_findings *f, const char *fmt, ...)
{
	va_list ap;
	char buf[512];

	if (f->n == BENCH_FINDINGS_MAX)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	f->line[f->n++] = xstrdup(buf);
}

void bench_findings_release(struct bench_findings *f)
{
	for (size_t i = 0; i < f->n; i++)
		free(f->line[i]);
	f->n = 0;
}

const struct result *bench_quick_find(const struct bench_quick_result *r, size_t n, size_t step, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (r[i].step == step && (!name || (r[i].res->step && !strcmp(r[i].res->step, name))))
			return r[i].res;
	return NULL;
}

double bench_quick_metric(const struct result *res, const char *name)
{
	const struct metric *m = res ? result_find_metric(res, name) : NULL;

	return m ? m->value : NAN;
}
