/* SPDX-License-Identifier: MIT */
/*
 * TEMP limits stub: lets the sampler branch link until the real limits.c
 * lands on main. Discovers nothing (every limit LIMIT_UNKNOWN), reads no
 * counters and leaves the view's cg_* and qdisc_* fields unknown. Drop this
 * commit when merging.
 */
#include "core/limits.h"

#include <stdio.h>
#include <string.h>

static void unknown(struct limit *l)
{
	memset(l, 0, sizeof(*l));
	l->state = LIMIT_UNKNOWN;
	l->value = NAN;
	snprintf(l->why, sizeof(l->why), "not implemented (stub)");
}

void limits_discover(const struct limits_config *cfg, struct limits *out)
{
	(void)cfg;
	memset(out, 0, sizeof(*out));
	out->discovered = true;
	out->online_cpus = -1;
	unknown(&out->cpu_quota);
	unknown(&out->cpuset);
	unknown(&out->mem_max);
	unknown(&out->mem_high);
	unknown(&out->swap_max);
	unknown(&out->io_rbps);
	unknown(&out->io_wbps);
	unknown(&out->io_riops);
	unknown(&out->io_wiops);
	unknown(&out->shaper);
	unknown(&out->link);
	unknown(&out->mtu);
	unknown(&out->memlock);
	unknown(&out->nofile);
}

void limits_counters_read(const struct limits_config *cfg, const struct limits *lim, struct limits_counters *out)
{
	(void)cfg;
	(void)lim;
	memset(out, 0, sizeof(*out));
}

void limits_span_add(struct limits_span *acc, const struct limits_counters *a, const struct limits_counters *b)
{
	(void)acc;
	(void)a;
	(void)b;
}

void limits_span_view(const struct limits_span *acc, struct sysview *v)
{
	(void)acc;
	(void)v;
}

void limit_describe(const struct limit *l, const char *unit, char *buf, size_t len)
{
	(void)unit;
	snprintf(buf, len, "unknown (%s)", l->why);
}
