/* SPDX-License-Identifier: MIT */
/*
 * `engpass sweep 'CMD ARGS' --OPT a,b,c [--OPT2 x,y] ...`: runs one
 * benchmark command over the cross product of option values and prints one
 * comparison table (rows: the figures, columns: the combinations) -- seed
 * 000's eight hand-made tests as one command.
 *
 * Each combination runs as its own engpass process (this binary, through
 * /proc/self/exe) with --json, so a combination cannot disturb the next
 * one's state and the sweep reads exactly what a user would get. Every
 * combination is checked with the benchmark's own option table before the
 * first one runs, so a bad value is a usage error up front.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cmd.h"
#include "config.h"
#include "lib/xalloc.h"
#include "out/render.h"
#include "store/history.h"

#define SWEEP_MAX_AXES 8
#define SWEEP_MAX_VALUES 32
#define SWEEP_MAX_RUNS 256
#define SWEEP_MAX_ARGS 64

struct axis {
	char *opt;		/* "--cache" */
	char *values[SWEEP_MAX_VALUES];
	size_t n;
};

struct sweep {
	char *base[SWEEP_MAX_ARGS];	/* the command split into words */
	size_t nbase;
	struct axis axes[SWEEP_MAX_AXES];
	size_t naxes;
	const char *repeat, *db;
	bool json, no_history, help;
};

static void sweep_help(FILE *f)
{
	fprintf(f,
		"usage: engpass sweep 'COMMAND [ARGS]' --OPTION a,b,c [--OPTION2 x,y ...] [--repeat N]\n"
		"                     [--json] [--no-history] [--db PATH]\n\n"
		"Runs a benchmark command once for every combination of the listed option values and\n"
		"prints one table: a row per figure, a column per combination. Any option of the\n"
		"command can be swept, e.g.\n"
		"  engpass sweep 'disk --workload torrent' --cache 0,2M,8M,15M --sync none,osync\n"
		"Each combination runs as its own engpass process; --repeat N is passed to each run.\n"
		"With --json, one document whose results are the combinations' results, each step\n"
		"labelled with its combination.\n");
}

/* Splits S at blanks into WORDS (copies). Returns the count, or -1 if too many. */
static int split_words(const char *s, char **words, size_t max)
{
	size_t n = 0;

	while (*s) {
		size_t len;

		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s)
			break;
		len = strcspn(s, " \t");
		if (n == max)
			return -1;
		words[n] = xstrdup(s);
		words[n][len] = 0;
		n++;
		s += len;
	}
	return (int)n;
}

static void sweep_release(struct sweep *sw)
{
	for (size_t i = 0; i < sw->nbase; i++)
		free(sw->base[i]);
	for (size_t a = 0; a < sw->naxes; a++) {
		for (size_t v = 0; v < sw->axes[a].n; v++)
			free(sw->axes[a].values[v]);
		free(sw->axes[a].opt);
	}
}

/* Parses the sweep's arguments; returns -1 to go on, else an exit status. */
static int parse(int argc, char **argv, struct sweep *sw, const struct bench **b)
{
	int n;

	memset(sw, 0, sizeof(*sw));
	for (int i = 0; i < argc; i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			sweep_help(stdout);
			return EXIT_OK;
		}
	if (argc < 1 || argv[0][0] == '-')
		return usage_error("sweep", "needs the command to sweep first, e.g. 'disk --workload torrent'");
	n = split_words(argv[0], sw->base, SWEEP_MAX_ARGS);
	if (n <= 0)
		return usage_error("sweep", "'%s' is not a command", argv[0]);
	sw->nbase = (size_t)n;
	*b = bench_find(sw->base[0]);
	if (!*b)
		return usage_error("sweep", "'%s' is not a benchmark (see 'engpass list')", sw->base[0]);
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *val;
		char name[64];
		const char *eq;
		size_t len;
		const struct opt *o;

		if (strncmp(a, "--", 2) || !a[2])
			return usage_error("sweep", "unexpected argument '%s'", a);
		eq = strchr(a, '=');
		len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
		snprintf(name, sizeof(name), "%.*s", (int)(len > 60 ? 60 : len), a + 2);
		if (!strcmp(name, "json") || !strcmp(name, "no-history")) {
			if (eq)
				return usage_error("sweep", "option '--%s' takes no value", name);
			*(strcmp(name, "json") ? &sw->no_history : &sw->json) = true;
			continue;
		}
		val = eq ? eq + 1 : (i + 1 < argc ? argv[++i] : NULL);
		if (!val)
			return usage_error("sweep", "option '--%s' needs a value", name);
		if (!strcmp(name, "repeat")) {
			sw->repeat = val;
			continue;
		}
		if (!strcmp(name, "db")) {
			sw->db = val;
			continue;
		}
		o = (*b)->opts ? opt_find((*b)->opts, name) : NULL;
		/* A verb's option (net client --parallel); check_combo() refuses it for another verb. */
		for (size_t v = 0; !o && (*b)->verbs && (*b)->verbs[v].name; v++)
			o = (*b)->verbs[v].opts ? opt_find((*b)->verbs[v].opts, name) : NULL;
		if (!o)
			o = opt_find(common_opts_table, name);
		if (!o)
			return usage_error("sweep", "'%s' has no option '--%s'", (*b)->name, name);
		if (o->type == OPT_T_FLAG)
			return usage_error("sweep", "option '--%s' is a flag; sweep options that take values", name);
		if (sw->naxes == SWEEP_MAX_AXES)
			return usage_error("sweep", "at most %d swept options", SWEEP_MAX_AXES);
		{
			struct axis *ax = &sw->axes[sw->naxes++];
			char *copy = xstrdup(val), *p = copy, *tok;

			ax->opt = xasprintf("--%s", name);
			while ((tok = strsep(&p, ","))) {
				if (!*tok) {
					free(copy);
					return usage_error("sweep", "option '--%s': empty value in '%s'", name, val);
				}
				if (ax->n == SWEEP_MAX_VALUES) {
					free(copy);
					return usage_error("sweep", "option '--%s': at most %d values", name,
							   SWEEP_MAX_VALUES);
				}
				ax->values[ax->n++] = xstrdup(tok);
			}
			free(copy);
		}
	}
	if (!sw->naxes)
		return usage_error("sweep", "nothing to sweep: give at least one --OPTION a,b,...");
	return -1;
}

/* Number of combinations; 0 when more than SWEEP_MAX_RUNS. */
static size_t combinations(const struct sweep *sw)
{
	size_t n = 1;

	for (size_t a = 0; a < sw->naxes; a++) {
		n *= sw->axes[a].n;
		if (n > SWEEP_MAX_RUNS)
			return 0;
	}
	return n;
}

/* The argv of combination K (NULL-terminated; strings borrowed). */
static size_t combo_argv(const struct sweep *sw, size_t k, char **argv, bool for_child)
{
	size_t n = 0;

	if (for_child)
		argv[n++] = (char *)"engpass";
	for (size_t i = 0; i < sw->nbase; i++)
		argv[n++] = sw->base[i];
	for (size_t a = 0; a < sw->naxes; a++) {
		const struct axis *ax = &sw->axes[a];

		argv[n++] = ax->opt;
		argv[n++] = ax->values[k % ax->n];
		k /= ax->n;
	}
	if (for_child) {
		if (sw->repeat) {
			argv[n++] = (char *)"--repeat";
			argv[n++] = (char *)sw->repeat;
		}
		if (sw->db) {
			argv[n++] = (char *)"--db";
			argv[n++] = (char *)sw->db;
		}
		if (sw->no_history)
			argv[n++] = (char *)"--no-history";
		argv[n++] = (char *)"--json";
		argv[n++] = (char *)"--quiet";
	}
	argv[n] = NULL;
	return n;
}

/* Label of combination K: "--cache 0 --sync none". Caller frees. */
static char *combo_label(const struct sweep *sw, size_t k)
{
	char buf[512];
	size_t len = 0;

	buf[0] = 0;
	for (size_t a = 0; a < sw->naxes && len < sizeof(buf); a++) {
		const struct axis *ax = &sw->axes[a];

		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s %s", a ? " " : "", ax->opt,
					ax->values[k % ax->n]);
		k /= ax->n;
	}
	return xstrdup(buf);
}

/*
 * Checks a combination with the benchmark's own parser (into a scratch
 * options struct) so bad values are caught before anything runs.
 */
static int check_combo(const struct bench *b, char **argv, size_t argc, char *err, size_t errlen)
{
	void *opts = xcalloc(1, b->opts_size ? b->opts_size : 1);
	struct common_opts common;
	struct bench_env env;
	char *pos[BENCH_MAX_POS];
	int r;

	r = bench_parse(b, (int)argc - 1, argv + 1, opts, &common, pos, &env, err, errlen);
	free(opts);
	return r;
}

#if HAVE_JANSSON
#include <jansson.h>

/* One row of the table: bench/step/name, values per combination. */
struct row {
	char *step, *name;
	enum unit unit;
	double *v;
};

static void add_value(struct row **rows, size_t *nrows, size_t ncombo, size_t k, const char *step,
		      const char *name, enum unit unit, double value)
{
	size_t i;

	for (i = 0; i < *nrows; i++)
		if (!strcmp((*rows)[i].step, step) && !strcmp((*rows)[i].name, name))
			break;
	if (i == *nrows) {
		*rows = xrealloc(*rows, (*nrows + 1) * sizeof(**rows));
		(*rows)[i].step = xstrdup(step);
		(*rows)[i].name = xstrdup(name);
		(*rows)[i].unit = unit;
		(*rows)[i].v = xmalloc(ncombo * sizeof(double));
		for (size_t j = 0; j < ncombo; j++)
			(*rows)[i].v[j] = NAN;
		(*nrows)++;
	}
	(*rows)[i].v[k] = value;
}

/* The system-view figures the sweep table shows for each step. */
static const struct {
	const char *key, *name;
	enum unit unit;
} view_fields[] = {
	{ "cpu_busy_percent", "system: cpu busy", UNIT_PERCENT },
	{ "cpu_iowait_percent", "system: iowait", UNIT_PERCENT },
	{ "busiest_cpu", "system: busiest cpu", UNIT_COUNT },
	{ "busiest_cpu_busy_percent", "system: busiest cpu busy", UNIT_PERCENT },
	{ "disk_write_requests", "system: disk write requests", UNIT_COUNT },
	{ "proc_rss_max_bytes", "system: rss max", UNIT_BYTES },
};

int cmd_sweep(int argc, char **argv)
{
	struct sweep sw;
	const struct bench *b = NULL;
	size_t ncombo, nrows = 0;
	struct row *rows = NULL;
	char **labels;
	json_t *merged = NULL, *merged_results = NULL;
	int rc, worst = EXIT_OK;

	if ((rc = parse(argc, argv, &sw, &b)) >= 0) {
		sweep_release(&sw);
		return rc;
	}
	ncombo = combinations(&sw);
	if (!ncombo) {
		sweep_release(&sw);
		return usage_error("sweep", "more than %d combinations", SWEEP_MAX_RUNS);
	}
	for (size_t k = 0; k < ncombo; k++) {
		char *cargv[SWEEP_MAX_ARGS + 2 * SWEEP_MAX_AXES + 12], err[256];
		size_t cargc = combo_argv(&sw, k, cargv, false);

		if (check_combo(b, cargv, cargc, err, sizeof(err))) {
			char *label = combo_label(&sw, k);

			rc = usage_error("sweep", "%s (with %s)", err, label);
			free(label);
			sweep_release(&sw);
			return rc;
		}
	}
	labels = xcalloc(ncombo, sizeof(*labels));
	if (child_signals_install() < 0)
		fprintf(stderr, "engpass sweep: cannot catch signals; a signal stops the sweep at once\n");
	for (size_t k = 0; k < ncombo; k++) {
		char *cargv[SWEEP_MAX_ARGS + 2 * SWEEP_MAX_AXES + 12], *out = NULL;
		json_error_t jerr;
		json_t *doc, *results, *r;
		size_t i;

		labels[k] = combo_label(&sw, k);
		if (child_stop_signal()) {
			fprintf(stderr, "engpass sweep: stopped by signal %d before %s\n", child_stop_signal(), labels[k]);
			worst = 128 + child_stop_signal();
			break;
		}
		combo_argv(&sw, k, cargv, true);
		if (!sw.json)
			fprintf(stderr, "engpass sweep: %zu/%zu %s\n", k + 1, ncombo, labels[k]);
		rc = child_run_engpass(cargv, &out);
		if (rc != 0)
			worst = EXIT_MEASURE_FAILED;
		if (rc >= 128) {
			free(out);
			fprintf(stderr, "engpass sweep: stopped (%s ended by signal %d)\n", labels[k], rc - 128);
			worst = rc;
			break;
		}
		doc = out ? json_loads(out, 0, &jerr) : NULL;
		free(out);
		results = doc ? json_object_get(doc, "results") : NULL;
		if (!json_is_array(results)) {
			fprintf(stderr, "engpass sweep: %s gave no result (exit %d)\n", labels[k], rc);
			json_decref(doc);
			continue;
		}
		if (!merged) {
			merged = json_deep_copy(doc);
			merged_results = json_array();
			json_object_set_new(merged, "results", merged_results);
			json_object_set_new(merged, "command", json_string("sweep"));
		}
		json_array_foreach(results, i, r) {
			const char *step = json_string_value(json_object_get(r, "step"));
			json_t *metrics = json_object_get(r, "metrics"), *view = json_object_get(r, "system"), *v;
			const char *key;
			char *label = xasprintf("%s [%s]", step ? step : "?", labels[k]);

			json_object_foreach(metrics, key, v) {
				size_t nlen;
				enum unit u = unit_from_key(key, &nlen);
				char *name = xstrdup(key);

				name[nlen] = 0;
				add_value(&rows, &nrows, ncombo, k, step ? step : "?", name, u,
					  json_is_number(v) ? json_number_value(v) : NAN);
				free(name);
			}
			for (size_t f = 0; json_is_object(view) && f < ARRAY_SIZE(view_fields); f++) {
				json_t *x = json_object_get(view, view_fields[f].key);

				if (json_is_number(x))
					add_value(&rows, &nrows, ncombo, k, step ? step : "?", view_fields[f].name,
						  view_fields[f].unit, json_number_value(x));
			}
			{
				json_t *copy = json_deep_copy(r);

				json_object_set_new(copy, "step", json_string(label));
				json_object_set_new(copy, "sweep", json_string(labels[k]));
				json_array_append_new(merged_results, copy);
			}
			free(label);
		}
		json_decref(doc);
	}
	if (sw.json) {
		if (merged)
			json_dumpf(merged, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		fputc('\n', stdout);
	} else {
		printf("%-34s", "figure");
		for (size_t k = 0; k < ncombo; k++) {
			char head[32];

			snprintf(head, sizeof(head), "(%zu)", k + 1);
			printf("  %14s", head);
		}
		printf("\n");
		for (size_t i = 0; i < nrows; i++) {
			char name[80];

			snprintf(name, sizeof(name), "%s%s%s", strcmp(rows[i].step, b->name) ? rows[i].step : "",
				 strcmp(rows[i].step, b->name) ? ": " : "", rows[i].name);
			printf("%-34.34s", name);
			for (size_t k = 0; k < ncombo; k++) {
				char v[48];

				render_value(v, sizeof(v), rows[i].v[k], rows[i].unit);
				printf("  %14s", v);
			}
			printf("\n");
		}
		printf("\n");
		for (size_t k = 0; k < ncombo; k++)
			printf("(%zu) %s %s\n", k + 1, b->name, labels[k]);
	}
	for (size_t i = 0; i < nrows; i++) {
		free(rows[i].step);
		free(rows[i].name);
		free(rows[i].v);
	}
	free(rows);
	for (size_t k = 0; k < ncombo; k++)
		free(labels[k]);
	free(labels);
	json_decref(merged);
	sweep_release(&sw);
	child_signals_restore();
	return worst;
}

#else

int cmd_sweep(int argc, char **argv)
{
	(void)argc, (void)argv, (void)parse, (void)combinations, (void)combo_argv, (void)combo_label,
		(void)check_combo, (void)sweep_release;
	fprintf(stderr, "engpass sweep: built without jansson, which it needs to read each run's result\n");
	return EXIT_MEASURE_FAILED;
}

#endif
