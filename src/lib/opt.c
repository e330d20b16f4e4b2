/* SPDX-License-Identifier: MIT */
/*
 * The generic option parser behind every command; see opt.h. It never
 * prints: errors come back as one line in a caller buffer, so the command
 * layer decides how to report them (exit status 2).
 */
#include "opt.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "units.h"

static const struct opt *find(const struct opt_group *groups, size_t ngroups, const char *name,
			      size_t namelen, char shortc, size_t *gi, size_t *oi)
{
	for (size_t g = 0; g < ngroups; g++) {
		for (size_t i = 0; groups[g].opts[i].name; i++) {
			const struct opt *o = &groups[g].opts[i];
			bool hit = shortc ? o->shortc == shortc
					  : (strlen(o->name) == namelen && !strncmp(o->name, name, namelen));
			if (hit) {
				*gi = g;
				*oi = i;
				return o;
			}
		}
	}
	return NULL;
}

static const char *type_word(enum opt_type t)
{
	switch (t) {
	case OPT_T_SIZE: return "a size such as 4K, 60KiB, 1M, 2G or 1MB";
	case OPT_T_RATE: return "a rate such as 200K/s, 500KB/s or 1Gbit/s";
	case OPT_T_DURATION: return "a duration such as 500ms, 5s or 2m";
	case OPT_T_INT: return "an integer";
	case OPT_T_CPULIST: return "a CPU list such as 0, 0,2 or 1-3 of existing CPUs";
	case OPT_T_LIST: return "a comma-separated list";
	default: return "a value";
	}
}

/* Stores VAL into the option's field; returns 0 or fills ERR. */
static int store(const struct opt *o, void *dst, const char *label, const char *val, int ncpu,
		 char *err, size_t errlen)
{
	char *field = (char *)dst + o->off;
	int r = 0;

	switch (o->type) {
	case OPT_T_FLAG:
		*(bool *)field = true;
		return 0;
	case OPT_T_SIZE: {
		uint64_t v;
		r = units_parse_size(val, &v);
		if (!r && (o->min || o->max) && (v < (uint64_t)o->min || v > (uint64_t)o->max))
			r = -ERANGE;
		if (!r)
			*(uint64_t *)field = v;
		break;
	}
	case OPT_T_DURATION: {
		uint64_t v;
		r = units_parse_duration(val, &v);
		if (!r && (o->min || o->max) && (v < (uint64_t)o->min || v > (uint64_t)o->max))
			r = -ERANGE;
		if (!r)
			*(uint64_t *)field = v;
		break;
	}
	case OPT_T_RATE: {
		double v;
		r = units_parse_rate(val, &v);
		if (!r)
			*(double *)field = v;
		break;
	}
	case OPT_T_INT: {
		int64_t v;
		r = units_parse_int64(val, o->min, o->max, &v);
		if (!r)
			*(int64_t *)field = v;
		break;
	}
	case OPT_T_CPULIST: {
		cpu_set_t set;
		r = units_cpulist_parse(val, &set, ncpu);
		if (!r)
			*(cpu_set_t *)field = set;
		if (r == -ERANGE) {
			snprintf(err, errlen, "option '%s': '%s' names a CPU this machine does not have (CPUs 0-%d)",
				 label, val, ncpu - 1);
			return -EINVAL;
		}
		break;
	}
	case OPT_T_STRING:
		if (!*val) {
			snprintf(err, errlen, "option '%s': empty value", label);
			return -EINVAL;
		}
		*(const char **)field = val;
		return 0;
	case OPT_T_LIST: {
		struct opt_list *l = (struct opt_list *)field;

		r = opt_list_split(l, val, (size_t)o->max);
		if (r == -E2BIG && strlen(val) >= sizeof(l->text))
			snprintf(err, errlen, "option '%s': list '%.64s...' is too long", label, val);
		else if (r == -E2BIG)
			snprintf(err, errlen, "option '%s': more than %lld items in '%s'", label,
				 (long long)(o->max ? o->max : OPT_LIST_MAX), val);
		else if (r)
			snprintf(err, errlen, "option '%s': empty item in '%s'", label, val);
		return r ? -EINVAL : 0;
	}
	case OPT_T_CHOICE:
		for (int i = 0; o->choices[i]; i++) {
			if (!strcmp(o->choices[i], val)) {
				*(int *)field = i;
				return 0;
			}
		}
		{
			size_t n = (size_t)snprintf(err, errlen, "option '%s': '%s' is not one of", label, val);
			for (int i = 0; o->choices[i] && n < errlen; i++)
				n += (size_t)snprintf(err + n, errlen - n, "%s %s", i ? "," : "", o->choices[i]);
		}
		return -EINVAL;
	}
	if (r == -ERANGE && (o->min || o->max) && o->type == OPT_T_INT)
		snprintf(err, errlen, "option '%s': '%s' is out of range [%lld, %lld]", label, val,
			 (long long)o->min, (long long)o->max);
	else if (r == -ERANGE)
		snprintf(err, errlen, "option '%s': '%s' is out of range", label, val);
	else if (r)
		snprintf(err, errlen, "option '%s': '%s' is not %s", label, val, type_word(o->type));
	return r ? -EINVAL : 0;
}

int opt_list_split(struct opt_list *l, const char *text, size_t max)
{
	size_t len = strlen(text), n = 0, start = 0;
	struct opt_list tmp;

	if (!max || max > OPT_LIST_MAX)
		max = OPT_LIST_MAX;
	if (len >= sizeof(tmp.text))
		return -E2BIG;
	memcpy(tmp.text, text, len + 1);
	memcpy(tmp.items, text, len + 1);
	for (size_t i = 0; i <= len; i++) {
		if (text[i] != ',' && text[i] != '\0')
			continue;
		if (i == start)
			return -EINVAL;
		if (n == max)
			return -E2BIG;
		tmp.items[i] = '\0';
		tmp.off[n++] = (unsigned short)start;
		start = i + 1;
	}
	tmp.n = n;
	*l = tmp;
	return 0;
}

const struct opt_list *opt_list_or(const struct opt_list *l, const char *deflt, struct opt_list *buf)
{
	if (l && l->n)
		return l;
	if (opt_list_split(buf, deflt, 0))
		buf->n = 0;
	return buf;
}

int opt_parse(int argc, char **argv, const struct opt_group *groups, size_t ngroups, int ncpu,
	      char **pos, size_t maxpos, size_t *npos, struct opt_seen *seen, char *err, size_t errlen)
{
	bool only_pos = false;

	*npos = 0;
	memset(seen, 0, sizeof(*seen));
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		const char *name, *val = NULL;
		char label[64];
		size_t namelen = 0, gi, oi;
		char shortc = 0;
		const struct opt *o;

		if (only_pos || a[0] != '-' || !a[1]) {
			if (*npos >= maxpos) {
				snprintf(err, errlen, "unexpected argument '%s'", a);
				return -EINVAL;
			}
			pos[(*npos)++] = argv[i];
			continue;
		}
		if (!strcmp(a, "--")) {
			only_pos = true;
			continue;
		}
		if (a[1] == '-') {
			const char *eq;
			name = a + 2;
			eq = strchr(name, '=');
			namelen = eq ? (size_t)(eq - name) : strlen(name);
			if (eq)
				val = eq + 1;
			snprintf(label, sizeof(label), "--%.*s", (int)(namelen > 40 ? 40 : namelen), name);
		} else {
			name = a + 1;
			shortc = a[1];
			if (a[2])
				val = a + 2;
			snprintf(label, sizeof(label), "-%c", shortc);
		}
		o = find(groups, ngroups, name, namelen, shortc, &gi, &oi);
		if (!o) {
			snprintf(err, errlen, "unknown option '%s'", label);
			return -EINVAL;
		}
		if (o->type == OPT_T_FLAG) {
			if (val) {
				snprintf(err, errlen, "option '%s' takes no value (got '%s')", label, val);
				return -EINVAL;
			}
		} else if (!val) {
			if (i + 1 >= argc) {
				snprintf(err, errlen, "option '%s' needs %s", label,
					 o->type == OPT_T_STRING || o->type == OPT_T_CHOICE ? "a value" : type_word(o->type));
				return -EINVAL;
			}
			val = argv[++i];
		}
		/* A value given twice would silently drop the first: say so instead. */
		if (o->type != OPT_T_FLAG && opt_was_seen(seen, gi, oi)) {
			snprintf(err, errlen, "option '%s' given twice (use one comma list)", label);
			return -EINVAL;
		}
		if (store(o, groups[gi].dst, label, val, ncpu, err, errlen))
			return -EINVAL;
		if (gi < OPT_SEEN_GROUPS && oi < 64)
			seen->bits[gi] |= UINT64_C(1) << oi;
	}
	return 0;
}

bool opt_was_seen(const struct opt_seen *seen, size_t group, size_t index)
{
	return group < OPT_SEEN_GROUPS && index < 64 && (seen->bits[group] >> index) & 1;
}

const struct opt *opt_find(const struct opt *opts, const char *name)
{
	for (size_t i = 0; opts[i].name; i++)
		if (!strcmp(opts[i].name, name))
			return &opts[i];
	return NULL;
}

void opt_help(FILE *f, const struct opt *opts)
{
	for (size_t i = 0; opts[i].name; i++) {
		const struct opt *o = &opts[i];
		char left[64];
		int n;

		if (o->shortc)
			n = snprintf(left, sizeof(left), "  -%c, --%s", o->shortc, o->name);
		else
			n = snprintf(left, sizeof(left), "      --%s", o->name);
		if (o->metavar && n > 0 && (size_t)n < sizeof(left))
			snprintf(left + n, sizeof(left) - (size_t)n, " %s", o->metavar);
		if (strlen(left) > 28)
			fprintf(f, "%s\n%30s%s\n", left, "", o->help);
		else
			fprintf(f, "%-30s%s\n", left, o->help);
		if (o->type == OPT_T_CHOICE) {
			fprintf(f, "%30s(", "");
			for (int c = 0; o->choices[c]; c++)
				fprintf(f, "%s%s", c ? ", " : "", o->choices[c]);
			fputs(")\n", f);
		}
	}
}
