/* SPDX-License-Identifier: MIT */
/*
 * `engpass sweep 'CMD ARGS' --OPT a,b,c [--OPT2 x,y] ...`: runs one
 * benchmark command over the cross product of option values and prints one
 * comparison table (rows: the figures, columns: the combinations) -- seed
 * 000's eight hand-made tests as one command.
 *
 * Each combination runs in this process through the runner (bench_call_*
 * in run.c), exactly as `engpass CMD ARGS` would run it, and gives its
 * results back as a struct run: no JSON is read, so a build without
 * jansson sweeps too. Every combination is checked with the benchmark's
 * own option table before the first one runs, so a bad value is a usage
 * error up front. Each combination is stored in the history as its own
 * run, as if it had been run by hand.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cmd.h"
#include "core/work/tmpfile.h"
#include "lib/xalloc.h"
#include "out/render.h"

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
	bool csv;		/* --format csv */
};

static void sweep_help(FILE *f)
{
	fprintf(f,
		"usage: engpass sweep 'COMMAND [ARGS]' --OPTION a,b,c [--OPTION2 x,y ...] [--repeat N]\n"
		"                     [--json | --format table|json|csv] [--no-history] [--db PATH]\n\n"
		"Runs a benchmark command once for every combination of the listed option values and\n"
		"prints one table: a row per figure, a column per combination. Any option of the\n"
		"command can be swept, e.g.\n"
		"  engpass sweep 'disk --workload torrent' --cache 0,2M,8M,15M --sync none,osync\n"
		"Values are split at ','; inside one value an option's own list takes '+' instead, e.g.\n"
		"  engpass sweep 'disk DIR --workload torrent --fs ext2' --mount-options sync+noatime,defaults\n"
		"Each step's rows start with its verdict and, for disk, device writes per MiB written and\n"
		"write amplification.\n"
		"Each combination runs as the command would on its own and is stored in the history;\n"
		"--repeat N is passed to each run: each figure is then its median, with the interval\n"
		"of the median in a low..high row under it and 'unstable' where that reaches beyond 5 %%.\n"
		"With --json, one document whose results are the combinations' results, each step\n"
		"labelled with its combination; with --format csv, a row per step and combination\n"
		"(its 'sweep' column names the combination). The figures come when all ran, so\n"
		"--format jsonl is for a benchmark command on its own.\n");
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
		if (!strcmp(name, "format")) {
			/* The sweep's own output, not an axis: every combination renders into it. */
			if (!strcmp(val, "json") || !strcmp(val, "csv"))
				*(strcmp(val, "json") ? &sw->csv : &sw->json) = true;
			else if (strcmp(val, "table"))
				return usage_error("sweep", "option '--format': '%s' is not one of table, json, csv%s", val,
						   !strcmp(val, "jsonl") ? " (a sweep writes when all combinations ran)" : "");
			continue;
		}
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
			struct opt_list vals;
			int r = opt_list_split(&vals, val, SWEEP_MAX_VALUES);

			ax->opt = xasprintf("--%s", name);
			if (r == -E2BIG && strlen(val) < sizeof(vals.text))
				return usage_error("sweep", "option '--%s': at most %d values", name, SWEEP_MAX_VALUES);
			if (r == -E2BIG)
				return usage_error("sweep", "option '--%s': the values '%.40s...' are too long", name, val);
			if (r < 0)
				return usage_error("sweep", "option '--%s': empty value in '%s'", name, val);
			for (size_t v = 0; v < vals.n; v++)
				ax->values[ax->n++] = xstrdup(opt_list_item(&vals, v));
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

/*
 * The command line of combination K into ARGV (NULL-terminated; strings
 * borrowed): the benchmark's name, its arguments, the swept options,
 * --repeat and --quiet. Returns the count.
 */
static size_t combo_argv(const struct sweep *sw, size_t k, char **argv)
{
	size_t n = 0;

	for (size_t i = 0; i < sw->nbase; i++)
		argv[n++] = sw->base[i];
	for (size_t a = 0; a < sw->naxes; a++) {
		const struct axis *ax = &sw->axes[a];

		argv[n++] = ax->opt;
		argv[n++] = ax->values[k % ax->n];
		k /= ax->n;
	}
	if (sw->repeat) {
		argv[n++] = (char *)"--repeat";
		argv[n++] = (char *)sw->repeat;
	}
	argv[n++] = (char *)"--quiet";
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

#define SWEEP_ARGV_MAX (SWEEP_MAX_ARGS + 2 * SWEEP_MAX_AXES + 4)

/*
 * Checks every combination with the benchmark's own parser and check()
 * before anything runs. Returns -1 when all are good, else the exit
 * status of the usage error (printed).
 */
static int check_all(const struct sweep *sw, const struct bench *b, size_t ncombo)
{
	for (size_t k = 0; k < ncombo; k++) {
		char *cargv[SWEEP_ARGV_MAX], err[256];
		size_t cargc = combo_argv(sw, k, cargv);
		struct bench_call call;
		int r = bench_call_prepare(&call, b, (int)cargc - 1, cargv + 1, err, sizeof(err));

		bench_call_release(&call);
		if (r < 0) {
			char *label = combo_label(sw, k);

			r = usage_error("sweep", "%s (with %s)", err, label);
			free(label);
			return r;
		}
	}
	return -1;
}

/*
 * One row of the table: bench/step/name, values per combination (or
 * texts, for the verdict). With repetitions a figure's value is its
 * median, with the interval of the median (low, high; NaN where none)
 * and whether it is unstable (core/result/result.h), as the table of a run.
 */
struct row {
	char *step, *name;
	enum unit unit;
	double *v, *lo, *hi;
	bool *unstable;
	bool interval;		/* some combination gave an interval */
	char **text;		/* a text row: one string per combination (NULL = none); NULL for figures */
};

struct table {
	struct row *rows;
	size_t nrows, ncombo;
	unsigned reps;		/* the most repetitions of any result (1: none) */
};

/* The row STEP/NAME, added (empty) when it is new. */
static struct row *find_row(struct table *t, const char *step, const char *name, enum unit unit)
{
	size_t i;

	for (i = 0; i < t->nrows; i++)
		if (!strcmp(t->rows[i].step, step) && !strcmp(t->rows[i].name, name))
			return &t->rows[i];
	t->rows = xrealloc(t->rows, (t->nrows + 1) * sizeof(*t->rows));
	t->rows[i].step = xstrdup(step);
	t->rows[i].name = xstrdup(name);
	t->rows[i].unit = unit;
	t->rows[i].v = xmalloc(t->ncombo * sizeof(double));
	t->rows[i].lo = xmalloc(t->ncombo * sizeof(double));
	t->rows[i].hi = xmalloc(t->ncombo * sizeof(double));
	t->rows[i].unstable = xcalloc(t->ncombo, sizeof(bool));
	t->rows[i].interval = false;
	t->rows[i].text = NULL;
	for (size_t j = 0; j < t->ncombo; j++)
		t->rows[i].v[j] = t->rows[i].lo[j] = t->rows[i].hi[j] = NAN;
	t->nrows++;
	return &t->rows[i];
}

static void add_value(struct table *t, size_t k, const char *step, const char *name, enum unit unit, double value)
{
	find_row(t, step, name, unit)->v[k] = value;
}

/*
 * Metric M of combination K under NAME: over REPS > 1 repetitions its
 * median with the interval the table of a run shows (the order-statistic
 * interval, or [min, max] where there is none) and its unstable mark.
 */
static void add_metric(struct table *t, size_t k, const char *step, const char *name, const struct metric *m,
		       unsigned reps)
{
	struct row *row = find_row(t, step, name, m->unit);

	row->v[k] = m->value;
	if (reps < 2 || m->reps < 2)
		return;
	row->lo[k] = isnan(m->ci_lo) ? m->min : m->ci_lo;
	row->hi[k] = isnan(m->ci_hi) ? m->max : m->ci_hi;
	row->unstable[k] = metric_unstable(m);
	row->interval |= !isnan(row->lo[k]) && !isnan(row->hi[k]);
}

static void add_text(struct table *t, size_t k, const char *step, const char *name, const char *text)
{
	struct row *row = find_row(t, step, name, UNIT_COUNT);

	if (!row->text)
		row->text = xcalloc(t->ncombo, sizeof(*row->text));
	free(row->text[k]);
	row->text[k] = xstrdup(text);
}

/* Metric NAME of R, or NAN. */
static double metric_of(const struct result *r, const char *name)
{
	for (size_t i = 0; i < r->nmetrics; i++)
		if (!strcmp(r->metrics[i].name, name))
			return r->metrics[i].value;
	return NAN;
}

/*
 * The rows a reader compares first, as they read them: the bound each
 * combination hit (its verdict), and where a step wrote through a device
 * it watched (disk), the device's write requests per MiB the workload
 * wrote and the write amplification (device bytes / workload bytes).
 */
static void add_summary(struct table *t, size_t k, const char *step, const struct result *r)
{
	double reqs = metric_of(r, "device_write_requests"), wrote = metric_of(r, "write_total");
	double wa = metric_of(r, "write_amplification");

	if (r->status == RESULT_OK && r->verdict.resource[0])
		add_text(t, k, step, "verdict: bound by", r->verdict.resource);
	else if (r->status != RESULT_OK)
		add_text(t, k, step, "verdict: bound by", r->status == RESULT_SKIPPED ? "(skipped)" : "(failed)");
	if (!isnan(reqs) && wrote > 0) {
		double per = reqs / (wrote / (1024.0 * 1024.0));

		/* Whole requests once there are many: "1219", not "1.22e+03". */
		add_value(t, k, step, "dev writes/MiB written", UNIT_COUNT, per >= 100 ? round(per) : per);
	}
	if (!isnan(wa)) {
		for (size_t i = 0; i < r->nmetrics; i++)
			if (!strcmp(r->metrics[i].name, "write_amplification"))
				add_metric(t, k, step, "write amplification", &r->metrics[i], r->reps);
	}
}

/* The figures of result R of combination K: its metrics, then the system view the table shows. */
static void add_result(struct table *t, size_t k, const struct result *r)
{
	const struct sysview *v = &r->view;
	const char *step = r->step ? r->step : "?";

	if (r->reps > t->reps)
		t->reps = r->reps;
	add_summary(t, k, step, r);
	for (size_t i = 0; i < r->nmetrics; i++) {
		/* Shown with its reader's label by add_summary(). */
		if (!strcmp(r->metrics[i].name, "write_amplification"))
			continue;
		add_metric(t, k, step, r->metrics[i].name, &r->metrics[i], r->reps);
	}
	if (!r->have_view)
		return;
	if (!isnan(v->cpu_busy_pct))
		add_value(t, k, step, "system: cpu busy", UNIT_PERCENT, v->cpu_busy_pct);
	if (!isnan(v->cpu_iowait_pct))
		add_value(t, k, step, "system: iowait", UNIT_PERCENT, v->cpu_iowait_pct);
	if (v->busiest_cpu >= 0)
		add_value(t, k, step, "system: busiest cpu", UNIT_COUNT, v->busiest_cpu);
	if (!isnan(v->busiest_cpu_busy_pct))
		add_value(t, k, step, "system: busiest cpu busy", UNIT_PERCENT, v->busiest_cpu_busy_pct);
	add_value(t, k, step, "system: disk write requests", UNIT_COUNT, (double)v->disk_write_requests);
	if (v->have_proc)
		add_value(t, k, step, "system: rss max", UNIT_BYTES, (double)v->proc_rss_max_bytes);
}

/* A verdict's widest column (a text is cut there); the name column's widest before a name wraps at its spaces. */
#define CELL_MAX 24
#define NAME_MAX_W 48

/* "1.20..1.35 ms" of LO and HI in UNIT (the unit once where both give it), into BUF. */
static void interval_text(char *buf, size_t len, double lo, double hi, enum unit unit)
{
	char a[48], b[48];
	const char *ua, *ub;

	if (isnan(lo) || isnan(hi)) {
		snprintf(buf, len, "-");
		return;
	}
	render_value(a, sizeof(a), lo, unit);
	render_value(b, sizeof(b), hi, unit);
	ua = strchr(a, ' ');
	ub = strchr(b, ' ');
	if (ua && ub && !strcmp(ua, ub))
		snprintf(buf, len, "%.*s..%s", (int)(ua - a), a, b);
	else
		snprintf(buf, len, "%s..%s", a, b);
}

/* Cell K of figure row ROW: its value, " unstable" after an unstable one. */
static void value_text(char *buf, size_t len, const struct row *row, size_t k)
{
	size_t n;

	render_value(buf, len, row->v[k], row->unit);
	n = strlen(buf);
	if (row->unstable[k])
		snprintf(buf + n, len - n, " unstable");
}

/*
 * Splits NAME into lines of at most W columns at its spaces (a word
 * longer than W alone is broken); LINES[i] (each 128 long) for up to MAX;
 * returns how many it takes.
 */
static size_t name_lines(const char *name, size_t w, char (*lines)[128], size_t max)
{
	size_t n = 0;

	while (*name) {
		size_t len = strlen(name), cut = len;

		if (len > w) {
			for (cut = w; cut > 0 && name[cut] != ' '; cut--)
				;
			if (!cut)
				cut = w;
		}
		if (n < max)
			snprintf(lines[n], 128, "%.*s", (int)cut, name);
		n++;
		name += cut;
		while (*name == ' ')
			name++;
	}
	return n;
}

static void table_print(const struct table *t, const struct bench *b, char **labels)
{
	unsigned reps = t->reps;
	int w = 14, nw = 6;
	bool any_interval = false, any_unstable = false, short_cov = false;
	char cell[128];

	/* Columns as wide as the widest cell (a verdict up to CELL_MAX); the name column as the longest name. */
	for (size_t i = 0; i < t->nrows; i++) {
		const struct row *row = &t->rows[i];
		bool own = !strcmp(row->step, b->name);
		int len = (int)strlen(row->name) + (own ? 0 : (int)strlen(row->step) + 2);

		nw = len > nw ? len : nw;
		for (size_t k = 0; k < t->ncombo; k++) {
			if (row->text) {
				len = row->text[k] ? (int)strlen(row->text[k]) : 1;
				len = len > CELL_MAX ? CELL_MAX : len;
			} else {
				value_text(cell, sizeof(cell), row, k);
				len = (int)strlen(cell);
				if (row->interval) {
					interval_text(cell, sizeof(cell), row->lo[k], row->hi[k], row->unit);
					len = (int)strlen(cell) > len ? (int)strlen(cell) : len;
				}
				any_unstable |= row->unstable[k];
			}
			w = len > w ? len : w;
		}
		any_interval |= row->interval;
	}
	nw = nw > NAME_MAX_W ? NAME_MAX_W : nw;
	printf("%-*s", nw, "figure");
	for (size_t k = 0; k < t->ncombo; k++) {
		char head[32];

		snprintf(head, sizeof(head), "(%zu)", k + 1);
		printf("  %*s", w, head);
	}
	printf("\n");
	for (size_t i = 0; i < t->nrows; i++) {
		const struct row *row = &t->rows[i];
		bool own = !strcmp(row->step, b->name);
		char name[160], lines[4][128];
		size_t nl;

		snprintf(name, sizeof(name), "%s%s%s", own ? "" : row->step, own ? "" : ": ", row->name);
		/* A long name wraps at its spaces, never cut inside a word. */
		nl = name_lines(name, (size_t)nw, lines, 4);
		printf("%-*s", nw, lines[0]);
		for (size_t k = 0; k < t->ncombo; k++) {
			if (row->text)
				snprintf(cell, sizeof(cell), "%.*s", w, row->text[k] ? row->text[k] : "-");
			else
				value_text(cell, sizeof(cell), row, k);
			printf("  %*s", w, cell);
		}
		printf("\n");
		for (size_t l = 1; l < nl && l < 4; l++)
			printf("  %s\n", lines[l]);
		if (!row->interval)
			continue;
		printf("%-*s", nw, "  low..high");
		for (size_t k = 0; k < t->ncombo; k++) {
			interval_text(cell, sizeof(cell), row->lo[k], row->hi[k], row->unit);
			printf("  %*s", w, cell);
		}
		printf("\n");
	}
	short_cov = reps > 1 && reps < 6;
	printf("\n");
	for (size_t k = 0; k < t->ncombo; k++)
		printf("(%zu) %s %s\n", k + 1, b->name, labels[k]);
	if (reps > 1) {
		char share[32], *key;

		snprintf(share, sizeof(share), "%.0f %% of the median", 100 * RESULT_UNSTABLE_SHARE);
		key = xasprintf("each figure is the median of %u repetitions%s%s%s%s", reps,
				      any_interval ? "; low..high: the median's order-statistic interval" : "",
				      any_interval && short_cov ? " (95 % needs --repeat 6 or more; fewer: [min, max], "
								  "--json has its coverage)" : "",
				      any_unstable ? "; unstable: it reaches beyond " : "", any_unstable ? share : "");

		printf("\n");
		render_wrap(stdout, 0, 2, key);
		free(key);
	}
}

static void table_release(struct table *t)
{
	for (size_t i = 0; i < t->nrows; i++) {
		free(t->rows[i].step);
		free(t->rows[i].name);
		free(t->rows[i].v);
		free(t->rows[i].lo);
		free(t->rows[i].hi);
		free(t->rows[i].unstable);
		for (size_t k = 0; t->rows[i].text && k < t->ncombo; k++)
			free(t->rows[i].text[k]);
		free(t->rows[i].text);
	}
	free(t->rows);
}

/*
 * Runs combination K (labelled LABEL) into ALL, stores it in the history
 * as a run of its own, adds its figures to T and labels its results with
 * the combination. Returns 0 when it ran, 1 when a step failed (or its
 * --prom could not be written).
 */
static int run_one(const struct sweep *sw, const struct bench *b, size_t k, const char *label, struct run *all,
		   struct tmpfile_reg *tmp, volatile sig_atomic_t *stop, struct table *t)
{
	char *cargv[SWEEP_ARGV_MAX], err[256];
	size_t cargc = combo_argv(sw, k, cargv), first = all->nresults;
	struct bench_call call;
	struct run one;
	int rc = 0, r;

	/* Checked before the first combination ran: cannot fail now. */
	if (bench_call_prepare(&call, b, (int)cargc - 1, cargv + 1, err, sizeof(err)) < 0 ||
	    bench_call_run(&call, tmp, stop, all, err, sizeof(err)) < 0) {
		fprintf(stderr, "engpass sweep: %s: %s\n", label, err);
		bench_call_release(&call);
		return 1;
	}
	/*
	 * The combination as a run of its own (its command line, its results;
	 * the box and host of ALL): a view into ALL for the history and
	 * --prom, which only read it. ALL keeps ownership.
	 */
	one = *all;
	one.command = NULL;
	one.results = all->results + first;
	one.nresults = all->nresults - first;
	{
		/* As the user would type it: without the --quiet the sweep adds. */
		struct run *cmdline = run_new(ENGPASS_VERSION, (int)cargc - 1, cargv);

		one.command = cmdline->command;
		one.time_ns = cmdline->time_ns;
		if (!sw->no_history && !call.common.no_history)
			(void)cmd_store_run("sweep", &one, sw->db ? sw->db : call.common.db);
		if (call.common.prom && (r = prom_write(call.common.prom, &one)) < 0) {
			fprintf(stderr, "engpass sweep: cannot write '%s': %s\n", call.common.prom, strerror(-r));
			rc = 1;
		}
		run_free(cmdline);
	}
	for (size_t i = first; i < all->nresults; i++) {
		struct result *res = all->results[i];
		char *step = xstrdup(res->step ? res->step : "?");

		add_result(t, k, res);
		if (res->status == RESULT_FAILED)
			rc = 1;
		result_set_step(res, "%s [%s]", step, label);
		result_set_sweep(res, label);
		free(step);
	}
	bench_call_release(&call);
	return rc;
}

int cmd_sweep(int argc, char **argv)
{
	struct sweep sw;
	const struct bench *b = NULL;
	struct table t = { 0 };
	char **labels;
	struct tmpfile_reg *tmp;
	static volatile sig_atomic_t stop;
	struct run *all;
	int rc, worst = EXIT_OK;

	if ((rc = parse(argc, argv, &sw, &b)) >= 0 || (t.ncombo = combinations(&sw)) == 0 ||
	    (rc = check_all(&sw, b, t.ncombo)) >= 0) {
		if (rc < 0)
			rc = usage_error("sweep", "more than %d combinations", SWEEP_MAX_RUNS);
		sweep_release(&sw);
		return rc;
	}
	labels = xcalloc(t.ncombo, sizeof(*labels));
	for (size_t k = 0; k < t.ncombo; k++)
		labels[k] = combo_label(&sw, k);
	tmp = tmpfile_reg_new();
	if ((rc = tmpfile_install_handlers(tmp)) < 0)
		fprintf(stderr, "engpass sweep: cannot catch signals (%s); a signal stops the sweep at once\n",
			strerror(-rc));
	tmpfile_set_stop_flag(tmp, &stop);
	all = run_new(ENGPASS_VERSION, 1, (char *[]){ (char *)"sweep", NULL });
	run_collect_info(all);
	for (size_t k = 0; k < t.ncombo; k++) {
		if (stop) {
			fprintf(stderr, "engpass sweep: stopped by signal %d before %s\n", (int)stop, labels[k]);
			break;
		}
		if (!sw.json && !sw.csv)
			fprintf(stderr, "engpass sweep: %zu/%zu %s\n", k + 1, t.ncombo, labels[k]);
		if (run_one(&sw, b, k, labels[k], all, tmp, &stop, &t))
			worst = EXIT_MEASURE_FAILED;
		if (stop) {
			fprintf(stderr, "engpass sweep: stopped (%s ended by signal %d)\n", labels[k], (int)stop);
			break;
		}
	}
	/* Restores the default signal actions: a signal while printing ends engpass at once. */
	tmpfile_reg_free(tmp);
	if (stop)
		worst = 128 + (int)stop;
	if (sw.json)
		render_json(stdout, all, true, true);
	else if (sw.csv)
		render_csv(stdout, all);
	else
		table_print(&t, b, labels);
	table_release(&t);
	for (size_t k = 0; k < t.ncombo; k++)
		free(labels[k]);
	free(labels);
	run_free(all);
	sweep_release(&sw);
	return worst;
}
