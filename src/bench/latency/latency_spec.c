/* SPDX-License-Identifier: MIT */
/*
 * Task profiles, load lists and memload sizing for `engpass latency`; see
 * latency_spec.h. The profiles are interbench 0.31's (emulate_audio,
 * emulate_video, emulate_x, emulate_game), re-expressed in nanoseconds of
 * CPU time instead of calibrated loops.
 */
#include "latency_spec.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/base/clock.h"
#include "lib/opt.h"

static const struct lat_task_info tasks[LAT_NTASKS] = {
	[LAT_TASK_AUDIO] = { "audio", "5 % CPU every 50 ms", 50 * NS_PER_MS, 2500 * NS_PER_US, 5, true },
	/* 60 Hz: a frame is 1/60 s = 16,666,667 ns, 40 % of it is work. */
	[LAT_TASK_VIDEO] = { "video", "40 % CPU at 60 Hz", 16666667, 16666667ULL * 40 / 100, 40, true },
	/*
	 * Step i of 0..100 works i ms with a (100 - i) ms period, then gives
	 * itself i ms more: a ramp from 0 to 100 % CPU over about 10 s whose
	 * mean asks for 50 %.
	 */
	[LAT_TASK_X] = { "x", "bursty, 0 to 100 % CPU over about 10 s", 100 * NS_PER_MS, 100 * NS_PER_MS, 50, true },
	[LAT_TASK_GAMING] = { "gaming", "all the CPU it can get, in 100 ms chunks", 100 * NS_PER_MS,
			      100 * NS_PER_MS, 100, false },
	[LAT_TASK_CUSTOM] = { "custom", "0 % CPU every 1 ms", NS_PER_MS, 0, 0, true },
};

const struct lat_task_info *lat_task_info(enum lat_task_kind k)
{
	return &tasks[k < LAT_NTASKS ? k : 0];
}

static const struct {
	const char *name;
	unsigned parts;
} builtin[] = {
	{ "none", 0 },
	{ "audio", LAT_PART_AUDIO },
	{ "video", LAT_PART_VIDEO },
	{ "x", LAT_PART_X },
	{ "gaming", LAT_PART_GAMING },
	{ "burn", LAT_PART_BURN },
	{ "write", LAT_PART_WRITE },
	{ "read", LAT_PART_READ },
	{ "compile", LAT_PART_BURN | LAT_PART_WRITE | LAT_PART_READ },
	{ "memload", LAT_PART_MEMLOAD },
};

static const struct {
	unsigned bit;
	const char *name;
} part_names[] = {
	{ LAT_PART_AUDIO, "audio" }, { LAT_PART_VIDEO, "video" }, { LAT_PART_X, "x" },
	{ LAT_PART_GAMING, "gaming" }, { LAT_PART_BURN, "burn" }, { LAT_PART_WRITE, "write" },
	{ LAT_PART_READ, "read" }, { LAT_PART_MEMLOAD, "memload" },
};

void lat_parts_format(char *buf, size_t len, unsigned parts)
{
	size_t used = 0;

	if (!len)
		return;
	buf[0] = '\0';
	if (!parts) {
		snprintf(buf, len, "none");
		return;
	}
	for (unsigned i = 0; i < sizeof(part_names) / sizeof(part_names[0]); i++) {
		int n;

		if (!(parts & part_names[i].bit))
			continue;
		n = snprintf(buf + used, len - used, "%s%s", used ? "+" : "", part_names[i].name);
		if (n < 0 || (size_t)n >= len - used)
			return;
		used += (size_t)n;
	}
}

uint64_t lat_plan_longest_period(const struct lat_plan *plan, uint64_t custom_period_ns)
{
	uint64_t p = 0;

	for (unsigned i = 0; i < plan->ntasks; i++) {
		uint64_t q = plan->tasks[i] == LAT_TASK_CUSTOM ? custom_period_ns : tasks[plan->tasks[i]].period_ns;

		if (q > p)
			p = q;
	}
	return p;
}

bool lat_plan_has_task(const struct lat_plan *plan, enum lat_task_kind k)
{
	for (unsigned i = 0; i < plan->ntasks; i++)
		if (plan->tasks[i] == k)
			return true;
	return false;
}

/* Copies [S, S+N) lower-cased into BUF of LEN; false if it does not fit. */
static bool lower_copy(char *buf, size_t len, const char *s, size_t n)
{
	if (n >= len)
		return false;
	for (size_t i = 0; i < n; i++)
		buf[i] = (char)tolower((unsigned char)s[i]);
	buf[n] = '\0';
	return true;
}

static int find_builtin(const char *name)
{
	for (size_t i = 0; i < sizeof(builtin) / sizeof(builtin[0]); i++)
		if (!strcmp(builtin[i].name, name))
			return (int)i;
	return -1;
}

static int find_load(const struct lat_plan *p, const char *name)
{
	for (unsigned i = 0; i < p->nloads; i++)
		if (!strcmp(p->loads[i].name, name))
			return (int)i;
	return -1;
}

/* Formats the one-line error into ERR; returns -EINVAL. */
static int PRINTF_LIKE(3, 4) fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

#define LOAD_NAMES "none, audio, video, x, gaming, burn, write, read, compile, memload"

/* Resolves one component of a combination into parts; NAME is the definition's name or NULL. */
static int component(const struct lat_plan *p, const char *comp, const char *name, const char *item,
		     unsigned *parts, char *err, size_t errlen)
{
	int b, l;

	if (!comp[0])
		return fail(err, errlen, "option '--load': empty name in '%s'", item);
	if (name && !strcmp(comp, name))
		return fail(err, errlen, "option '--load': custom load '%s' names itself", name);
	if (!strcmp(comp, "none"))
		return fail(err, errlen, "option '--load': 'none' cannot be combined with other loads (in '%s')",
			    item);
	b = find_builtin(comp);
	if (b >= 0) {
		*parts |= builtin[b].parts;
		return 0;
	}
	l = find_load(p, comp);
	if (l >= 0 && p->loads[l].custom) {
		*parts |= p->loads[l].parts;
		return 0;
	}
	snprintf(err, errlen, "option '--load': unknown load '%s' in '%s' (loads: %s, or a name defined earlier)",
		 comp, item, LOAD_NAMES);
	return -EINVAL;
}

/* Parses one item of the load list (lower case, no commas) and appends it. */
static int load_item(struct lat_plan *p, const char *item, char *err, size_t errlen)
{
	struct lat_load_def *d;
	const char *eq = strchr(item, '=');
	const char *body = item;
	char name[LAT_NAME_MAX];
	unsigned parts = 0;
	bool combo;

	if (p->nloads >= LAT_MAX_LOADS) {
		snprintf(err, errlen, "option '--load': more than %d loads", LAT_MAX_LOADS);
		return -EINVAL;
	}
	if (eq) {
		size_t n = (size_t)(eq - item);

		if (!n)
			return fail(err, errlen, "option '--load': '%s' has no name before '='", item);
		if (n >= LAT_NAME_MAX) {
			snprintf(err, errlen, "option '--load': name '%.*s' is longer than %d characters", (int)n, item,
				 LAT_NAME_MAX - 1);
			return -EINVAL;
		}
		memcpy(name, item, n);
		name[n] = '\0';
		for (size_t i = 0; i < n; i++)
			if (!isalnum((unsigned char)name[i]) && name[i] != '-' && name[i] != '_')
				return fail(err, errlen, "option '--load': name '%s' may hold only letters, digits, "
					    "'-' and '_'", name);
		if (find_builtin(name) >= 0)
			return fail(err, errlen, "option '--load': custom load '%s' would redefine the built-in "
				    "load of that name", name);
		body = eq + 1;
		if (!body[0])
			return fail(err, errlen, "option '--load': custom load '%s' is empty", name);
		combo = true;
	} else {
		size_t n = strlen(item);

		if (n >= LAT_NAME_MAX) {
			snprintf(err, errlen, "option '--load': '%.64s' is longer than %d characters", item,
				 LAT_NAME_MAX - 1);
			return -EINVAL;
		}
		memcpy(name, item, n + 1);
		combo = strchr(item, '+') != NULL;
	}
	if (find_load(p, name) >= 0)
		return fail(err, errlen, "option '--load': load '%s' is given twice", name);

	if (combo) {
		const char *s = body;

		for (;;) {
			const char *plus = strchr(s, '+');
			size_t n = plus ? (size_t)(plus - s) : strlen(s);
			char comp[LAT_NAME_MAX];
			int r;

			if (n >= sizeof(comp)) {
				snprintf(err, errlen, "option '--load': unknown load '%.*s' in '%s'", (int)n, s, item);
				return -EINVAL;
			}
			memcpy(comp, s, n);
			comp[n] = '\0';
			r = component(p, comp, eq ? name : NULL, item, &parts, err, errlen);
			if (r)
				return r;
			if (!plus)
				break;
			s = plus + 1;
		}
	} else {
		int b = find_builtin(name);

		if (b < 0) {
			snprintf(err, errlen, "option '--load': unknown load '%s' (loads: %s, or NAME=A+B)", name,
				 LOAD_NAMES);
			return -EINVAL;
		}
		parts = builtin[b].parts;
	}
	d = &p->loads[p->nloads++];
	snprintf(d->name, sizeof(d->name), "%s", name);
	d->parts = parts;
	d->custom = combo;
	return 0;
}

/*
 * Calls FN on each item of LIST, lower-cased. Items longer than the
 * scratch buffer are reported as too long.
 */
static int each_item(struct lat_plan *p, const struct opt_list *list, const char *opt,
		     int (*fn)(struct lat_plan *, const char *, char *, size_t), char *err, size_t errlen)
{
	for (size_t i = 0; i < list->n; i++) {
		const char *s = opt_list_item(list, i);
		char item[256];
		int r;

		if (!lower_copy(item, sizeof(item), s, strlen(s))) {
			snprintf(err, errlen, "option '%s': item '%.40s...' is too long", opt, s);
			return -EINVAL;
		}
		r = fn(p, item, err, errlen);
		if (r)
			return r;
	}
	return 0;
}

static int task_item(struct lat_plan *p, const char *item, char *err, size_t errlen)
{
	for (unsigned k = 0; k < LAT_NTASKS; k++) {
		if (strcmp(item, tasks[k].name))
			continue;
		for (unsigned i = 0; i < p->ntasks; i++)
			if (p->tasks[i] == k)
				return fail(err, errlen, "option '--task': task '%s' is given twice", item);
		p->tasks[p->ntasks++] = (uint8_t)k;
		return 0;
	}
	return fail(err, errlen, "option '--task': unknown task '%s' (tasks: %s)", item,
		    "audio, video, x, gaming, custom");
}

int lat_plan_parse(struct lat_plan *plan, const struct opt_list *task_list, const struct opt_list *load_list,
		   char *err, size_t errlen)
{
	bool loads_given = load_list && load_list->n;
	struct opt_list def;
	int r;

	memset(plan, 0, sizeof(*plan));
	r = each_item(plan, opt_list_or(task_list, LAT_DEFAULT_TASKS, &def), "--task", task_item, err, errlen);
	if (r)
		return r;
	r = each_item(plan, opt_list_or(load_list, LAT_DEFAULT_LOADS, &def), "--load", load_item, err, errlen);
	if (r)
		return r;
	for (unsigned t = 0; t < plan->ntasks; t++) {
		for (unsigned l = 0; l < plan->nloads; l++) {
			const struct lat_load_def *d = &plan->loads[l];

			if (!loads_given && !d->custom && plan->tasks[t] < LAT_NLOAD_TASKS &&
			    d->parts == (1u << plan->tasks[t]))
				continue;
			plan->cells[plan->ncells].task = plan->tasks[t];
			plan->cells[plan->ncells].load = (uint8_t)l;
			plan->ncells++;
		}
	}
	if (!plan->ncells)
		return fail(err, errlen, "option '--load': no (task, load) cell left to measure");
	return 0;
}

int lat_memload_size(uint64_t effective, uint64_t available, uint64_t swap_free, uint64_t asked,
		     struct lat_memload_size *out)
{
	uint64_t room;

	memset(out, 0, sizeof(*out));
	if (!effective)
		return -EINVAL;
	/* 110 % without overflow for any effective below 2^64 / 11. */
	out->target = asked ? asked : effective / 10 * 11 + effective % 10 * 11 / 10;
	out->margin = effective / 16 > LAT_MEMLOAD_MIN ? effective / 16 : LAT_MEMLOAD_MIN;
	room = available + swap_free;
	if (room < available)	/* overflow: absurd input, stay safe */
		room = available;
	out->ceiling = room > out->margin ? room - out->margin : 0;
	out->size = out->target < out->ceiling ? out->target : out->ceiling;
	out->limited = out->size < out->target;
	out->size &= ~((1ULL << 20) - 1);
	return out->size < LAT_MEMLOAD_MIN ? -ENOMEM : 0;
}
