/* SPDX-License-Identifier: MIT */
/*
 * The generic option parser behind every command; see opt.h. It never
 * prints: errors come back as one line in a caller buffer, so the command
 * layer decides how to report them (exit status 2).
 */
#include "opt.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "units.h"

/* True when O's name is its own long spelling (not an OPT_T_SAME's target, not a short-only "-x"). */
bool opt_own_long(const struct opt *o)
{
	return o->type != OPT_T_SAME && o->name[0] != '-';
}

/* True when NAME[0..NAMELEN) is WANT (may be NULL). */
static bool name_is(const char *want, const char *name, size_t namelen)
{
	return want && strlen(want) == namelen && !strncmp(want, name, namelen);
}

static const struct opt *find(const struct opt_group *groups, size_t ngroups, const char *name,
			      size_t namelen, char shortc, size_t *gi, size_t *oi)
{
	for (size_t g = 0; g < ngroups; g++) {
		for (size_t i = 0; groups[g].opts[i].name; i++) {
			const struct opt *o = &groups[g].opts[i];
			/* An OPT_T_SAME entry's name is its target's: not its own spelling. */
			bool hit = shortc ? o->shortc == shortc
					  : (opt_own_long(o) && name_is(o->name, name, namelen)) ||
						    name_is(o->alias, name, namelen);
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
	case OPT_T_BITRATE: return "a bit rate such as 100M (bits/s, as iperf3), 1.5Gbit/s or 12MB/s";
	case OPT_T_DURATION: return "a duration such as 500ms, 5s or 2m";
	case OPT_T_INT: return "an integer";
	case OPT_T_CPULIST: return "a CPU list such as 0, 0,2 or 1-3 of existing CPUs";
	case OPT_T_LIST: return "a comma-separated list";
	default: return "a value";
	}
}

/* What another tool's word VAL for a choice of O stands for: "ours", "!why", or VAL itself. */
static const char *choice_alias(const struct opt *o, const char *val)
{
	size_t n = strlen(val);

	for (size_t i = 0; o->choice_alias && o->choice_alias[i]; i++) {
		const char *a = o->choice_alias[i];

		if (!strncmp(a, val, n) && a[n] == '=')
			return a + n + 1;
	}
	return val;
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
	case OPT_T_BITRATE: {
		char why[160];
		double v;

		r = units_parse_bitrate(val, &v, why, sizeof(why));
		if (r == -EDOM) {
			snprintf(err, errlen, "option '%s': %s", label, why);
			return -EINVAL;
		}
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
	case OPT_T_VERB:
	case OPT_T_POS:
	case OPT_T_SAME:
	case OPT_T_REFUSED:
		return 0;	/* opt_parse() handles them; they fill no field */
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
		val = choice_alias(o, val);
		if (val[0] == '!') {
			snprintf(err, errlen, "option '%s': %s", label, val + 1);
			return -EINVAL;
		}
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

/* Fills ERR with "unknown option LABEL", and the nearest long names of GROUPS when some are near. */
static void unknown(const struct opt_group *groups, size_t ngroups, const char *label, const char *name,
		    size_t namelen, char *err, size_t errlen)
{
	char word[64];
	struct opt_suggest sg;

	snprintf(word, sizeof(word), "%.*s", (int)(namelen < sizeof(word) ? namelen : sizeof(word) - 1), name);
	opt_suggest_init(&sg, word);
	for (size_t g = 0; namelen && g < ngroups; g++) {
		for (size_t i = 0; groups[g].opts[i].name; i++) {
			if (opt_own_long(&groups[g].opts[i]))
				opt_suggest_add(&sg, "--", groups[g].opts[i].name);
			if (groups[g].opts[i].alias)
				opt_suggest_add(&sg, "--", groups[g].opts[i].alias);
		}
	}
	if (sg.n)
		snprintf(err, errlen, "unknown option '%s'; did you mean %s?", label, sg.text);
	else
		snprintf(err, errlen, "unknown option '%s'", label);
}

/* Adds A to the positional arguments; -EINVAL with ERR when they are full. */
static int add_pos(char **pos, size_t maxpos, size_t *npos, const char *a, char *err, size_t errlen)
{
	if (*npos >= maxpos) {
		snprintf(err, errlen, "unexpected argument '%s'", a);
		return -EINVAL;
	}
	/* The positional array is the caller's view of argv: read, never written through. */
	pos[(*npos)++] = (char *)(uintptr_t)a;
	return 0;
}

/* True when O (or the option an OPT_T_SAME stands for) takes a value. */
static bool takes_value(const struct opt_group *groups, size_t ngroups, const struct opt *o)
{
	size_t gi, oi;

	if (o->type == OPT_T_SAME) {
		const struct opt *t = find(groups, ngroups, o->target, strlen(o->target), 0, &gi, &oi);

		if (!t)
			return false;
		o = t;
	}
	return o->type != OPT_T_FLAG && o->type != OPT_T_REFUSED && !(o->type == OPT_T_VERB && !o->metavar);
}

/* The state opt_parse() passes to one_opt(). */
struct parse {
	const struct opt_group *groups;
	size_t ngroups;
	int ncpu;
	char **pos;
	size_t maxpos, *npos;
	struct opt_seen *seen;
	char *err;
	size_t errlen;
};

/*
 * One option O (found in group GI at OI) spelled LABEL, with VAL given in
 * the same word or NULL; *NEXT is the next argument (NULL: none), set to
 * NULL when taken as the value. Returns 0 or -EINVAL with P->err.
 */
static int one_opt(struct parse *p, const struct opt *o, size_t gi, size_t oi, const char *label, const char *val,
		   const char **next)
{
	char *err = p->err;
	size_t errlen = p->errlen;

	if (o->type == OPT_T_REFUSED) {
		snprintf(err, errlen, "option '%s' is not taken: %s", label, o->help);
		return -EINVAL;
	}
	if (o->type == OPT_T_SAME) {
		const struct opt *t = find(p->groups, p->ngroups, o->target, strlen(o->target), 0, &gi, &oi);

		if (!t) {
			snprintf(err, errlen, "option '%s': no option '--%s' here", label, o->target);
			return -EINVAL;
		}
		o = t;
	}
	if (o->type == OPT_T_FLAG || (o->type == OPT_T_VERB && !o->metavar)) {
		/* fio's --direct=1: a flag may say 1; anything else is a mistake. */
		if (val && strcmp(val, "1")) {
			snprintf(err, errlen, "option '%s' takes no value (got '%s')%s", label, val,
				 !strcmp(val, "0") ? ": a flag is off when it is left out" : "");
			return -EINVAL;
		}
	} else if (!val) {
		if (!*next) {
			snprintf(err, errlen, "option '%s' needs %s", label,
				 o->type == OPT_T_STRING || o->type == OPT_T_CHOICE || o->type == OPT_T_VERB ||
						 o->type == OPT_T_POS
					 ? "a value"
					 : type_word(o->type));
			return -EINVAL;
		}
		val = *next;
		*next = NULL;
	}
	/* A value given twice would silently drop the first: say so instead. */
	if (o->type != OPT_T_FLAG && opt_was_seen(p->seen, gi, oi)) {
		snprintf(err, errlen, "option '%s' given twice (use one comma list)", label);
		return -EINVAL;
	}
	if (o->type == OPT_T_VERB || o->type == OPT_T_POS) {
		if ((o->type == OPT_T_VERB && add_pos(p->pos, p->maxpos, p->npos, o->name, err, errlen)) ||
		    (o->metavar && add_pos(p->pos, p->maxpos, p->npos, val, err, errlen)))
			return -EINVAL;
	} else if (store(o, p->groups[gi].dst, label, val, p->ncpu, err, errlen)) {
		return -EINVAL;
	}
	if (gi < OPT_SEEN_GROUPS && oi < 64)
		p->seen->bits[gi] |= UINT64_C(1) << oi;
	return 0;
}

int opt_parse(int argc, char **argv, const struct opt_group *groups, size_t ngroups, int ncpu, char **pos,
	      size_t maxpos, size_t *npos, struct opt_seen *seen, char *err, size_t errlen)
{
	struct parse p = { groups, ngroups, ncpu, pos, maxpos, npos, seen, err, errlen };
	bool only_pos = false;

	*npos = 0;
	memset(seen, 0, sizeof(*seen));
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i], *next = i + 1 < argc ? argv[i + 1] : NULL;
		char label[64];
		size_t gi, oi;
		const struct opt *o;

		if (only_pos || a[0] != '-' || !a[1]) {
			if (add_pos(pos, maxpos, npos, a, err, errlen))
				return -EINVAL;
			continue;
		}
		if (!strcmp(a, "--")) {
			only_pos = true;
			continue;
		}
		if (a[1] == '-') {
			const char *name = a + 2, *eq = strchr(name, '=');
			size_t namelen = eq ? (size_t)(eq - name) : strlen(name);

			snprintf(label, sizeof(label), "--%.*s", (int)(namelen > 40 ? 40 : namelen), name);
			o = namelen ? find(groups, ngroups, name, namelen, 0, &gi, &oi) : NULL;
			if (!o) {
				unknown(groups, ngroups, label, name, namelen, err, errlen);
				return -EINVAL;
			}
			if (one_opt(&p, o, gi, oi, label, eq ? eq + 1 : NULL, &next))
				return -EINVAL;
		} else {
			/* A bundle of short options, as getopt: "-tT", "-uR", "-P4". */
			for (const char *c = a + 1; *c; c++) {
				const char *val;

				snprintf(label, sizeof(label), "-%c", *c);
				o = find(groups, ngroups, NULL, 0, *c, &gi, &oi);
				if (!o) {
					unknown(groups, ngroups, label, NULL, 0, err, errlen);
					return -EINVAL;
				}
				/* An option that takes a value takes the rest of the word. */
				val = c[1] && takes_value(groups, ngroups, o) ? c + 1 : NULL;
				if (one_opt(&p, o, gi, oi, label, val, &next))
					return -EINVAL;
				if (val)
					break;
			}
		}
		if (!next && i + 1 < argc)
			i++;	/* the value was the next argument */
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
		if ((opt_own_long(&opts[i]) && !strcmp(opts[i].name, name)) ||
		    (opts[i].alias && !strcmp(opts[i].alias, name)))
			return &opts[i];
	return NULL;
}

size_t opt_edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t d[64][64];

	if (la >= 64 || lb >= 64)
		return SIZE_MAX;
	for (size_t i = 0; i <= la; i++)
		d[i][0] = i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= la; i++) {
		for (size_t j = 1; j <= lb; j++) {
			size_t cost = a[i - 1] != b[j - 1], v = d[i - 1][j - 1] + cost;

			if (d[i - 1][j] + 1 < v)
				v = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < v)
				v = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < v)
				v = d[i - 2][j - 2] + 1;
			d[i][j] = v;
		}
	}
	return d[la][lb];
}

void opt_suggest_init(struct opt_suggest *s, const char *word)
{
	size_t len = strlen(word);

	memset(s, 0, sizeof(*s));
	s->word = word;
	/* The farthest a suggestion may be: git's rule of thumb, scaled to the word. */
	s->best = len <= 3 ? 1 : len <= 6 ? 2 : 3;
}

void opt_suggest_add(struct opt_suggest *s, const char *prefix, const char *cand)
{
	size_t d = opt_edit_distance(s->word, cand), len;
	char quoted[72];

	if (d == 0 || d > s->best)
		return;
	if (d < s->best || !s->n) {
		s->best = d;
		s->n = 0;
		s->text[0] = 0;
	}
	len = strlen(s->text);
	snprintf(quoted, sizeof(quoted), "'%s%s'", prefix, cand);
	/* A name that is already listed (an option in two verbs' tables) once. */
	if (strstr(s->text, quoted))
		return;
	snprintf(s->text + len, sizeof(s->text) - len, "%s%s", s->n ? " or " : "", quoted);
	s->n++;
}

void opt_help(FILE *f, const struct opt *opts)
{
	for (size_t i = 0; opts[i].name; i++) {
		const struct opt *o = &opts[i];
		char left[96];
		size_t n = 0;

		/* "  -p, --port PORT", "      --qd, --iodepth N", "  -t" (same as --time), "      --numjobs". */
		if (o->shortc)
			n = (size_t)snprintf(left, sizeof(left), "  -%c", o->shortc);
		else
			n = (size_t)snprintf(left, sizeof(left), "    ");
		if (opt_own_long(o) && n < sizeof(left))
			n += (size_t)snprintf(left + n, sizeof(left) - n, "%s--%s", o->shortc ? ", " : "  ", o->name);
		if (o->alias && n < sizeof(left))
			n += (size_t)snprintf(left + n, sizeof(left) - n, "%s--%s",
					      o->shortc || opt_own_long(o) ? ", " : "  ", o->alias);
		if (o->metavar && n < sizeof(left))
			snprintf(left + n, sizeof(left) - n, " %s", o->metavar);
		if (strlen(left) > 28)
			fprintf(f, "%s\n%30s", left, "");
		else
			fprintf(f, "%-30s", left);
		if (o->type == OPT_T_SAME)
			fprintf(f, "same as --%s (%s)\n", o->target, o->help);
		else if (o->type == OPT_T_REFUSED)
			fprintf(f, "not taken: %s\n", o->help);
		else
			fprintf(f, "%s\n", o->help);
		if (o->type == OPT_T_CHOICE) {
			fprintf(f, "%30s(", "");
			for (int c = 0; o->choices[c]; c++)
				fprintf(f, "%s%s", c ? ", " : "", o->choices[c]);
			fputs(")\n", f);
		}
	}
}
