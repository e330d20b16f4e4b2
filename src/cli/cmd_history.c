/* SPDX-License-Identifier: MIT */
/*
 * History commands: storing each run; `engpass history` (one capped line
 * per run: command as typed, steps, worst verdict, status with the first
 * failure's reason); `engpass show RUN` (a header, then the run rebuilt
 * from its document and rendered by render_table); `engpass compare A B
 * ...` (side by side per metric, with which direction is better, the
 * ratio to the first, whether a difference is beyond the noise that
 * --repeat measured, and one-line warnings on unlike or incomplete
 * inputs). The rules are pure functions in histfmt.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cmd.h"
#include "cli/histfmt.h"
#include "core/result/verify.h"
#include "lib/units.h"
#include "core/kernel/proc.h"
#include "lib/xalloc.h"
#include "out/render.h"
#include "store/history.h"

/* The database path: --db, else the default. Caller frees. */
static char *db_path(const char *opt)
{
	return opt ? xstrdup(opt) : history_default_path();
}

int cmd_store_run(const char *cmd, const struct run *run, const char *db)
{
	char err[320] = "";
	int64_t id;
	int r = history_store_run(run, db, &id, err, sizeof(err));

	if (r < 0 && r != -ENOTSUP)
		fprintf(stderr, "engpass %s: history not stored: %s\n", cmd, err);
	return r == -ENOTSUP ? 0 : r;
}

struct history_opts {
	int64_t limit;
	const char *command;
	const char *bench;
	const char *db;
	bool json;
	bool details;
	bool help;
};

const struct opt history_options[] = {
	OPT_INT("limit", 'n', struct history_opts, limit, 1, 1000000, "N", "list at most N runs (default 20)"),
	OPT_STRING("command", 0, struct history_opts, command, "NAME",
		   "history: only runs of this command as typed (quick, disk, ...)"),
	OPT_STRING("bench", 0, struct history_opts, bench, "NAME",
		   "history: only runs with a result of this benchmark (quick runs several)"),
	OPT_STRING("db", 0, struct history_opts, db, "PATH",
		   "history database (default $XDG_DATA_HOME/engpass/history.db)"),
	OPT_FLAG("json", 0, struct history_opts, json, "show: print the stored JSON document"),
	OPT_FLAG("details", 'v', struct history_opts, details,
		 "show: also the parameters, the method and the system view, as the command's -v"),
	OPT_FLAG("help", 'h', struct history_opts, help, "show this help"),
	OPT_END,
};

/* Parses the history options; returns -1 on success, else the exit status. */
static int parse(const char *cmd, int argc, char **argv, struct history_opts *o, char **pos, size_t maxpos,
		 size_t *npos, const char *usage, const char *text)
{
	struct opt_group g = { history_options, o };
	struct opt_seen seen;
	char err[256];

	memset(o, 0, sizeof(*o));
	o->limit = 20;
	if (opt_parse(argc, argv, &g, 1, 1, pos, maxpos, npos, &seen, err, sizeof(err)))
		return usage_error(cmd, "%s", err);
	if (o->help) {
		printf("usage: engpass %s %s\n\n%s\n\noptions:\n", cmd, usage, text);
		opt_help(stdout, history_options);
		return EXIT_OK;
	}
	return -1;
}

#if HAVE_SQLITE
int cmd_history_open(const char *cmd, const char *db, struct history **h)
#else
int cmd_history_unavailable(const char *cmd, const char *db, struct history **h)
#endif
{
	char *path = db_path(db), err[256] = "";
	int r;

	if (!path)
		return usage_error(cmd, "neither XDG_DATA_HOME nor HOME is set; use --db PATH");
	r = history_open(h, path, false, err, sizeof(err));
	free(path);
	if (r < 0) {
		fprintf(stderr, "engpass %s: %s\n", cmd, err);
		return r == -ENOENT ? EXIT_USAGE : EXIT_MEASURE_FAILED;
	}
	return -1;
}

static int parse_run_id(const char *s, int64_t *id)
{
	return units_parse_int64(s, 1, INT64_MAX, id);
}

/* The command as typed, without the program's name ("engpass quick" is stored whole). */
static const char *typed(const char *command)
{
	if (!command)
		return "?";
	return strncmp(command, "engpass ", 8) ? command : command + 8;
}

/* What stopped a step early, short: "SIGTERM" of "stopped by SIGTERM". */
static const char *stopped_by(const char *reason)
{
	return strncmp(reason, "stopped by ", 11) ? reason : reason + 11;
}

/*
 * A run's status in a few words: "failed: REASON" (the first failure),
 * "incomplete: REASON" (a step stopped early, and why when it was said), "skipped: REASON" (every step was
 * skipped), "ok (2 skipped)" or "ok".
 */
static void run_status(char *buf, size_t len, const struct history_run *r)
{
	if (r->nfailed)
		snprintf(buf, len, "failed: %s", r->reason ? r->reason : "?");
	else if (r->nincomplete)
		snprintf(buf, len, "incomplete%s%s", r->stopped ? ": " : "", r->stopped ? stopped_by(r->stopped) : "");
	else if (r->nskipped && r->nskipped == r->nresults)
		snprintf(buf, len, "skipped: %s", r->reason ? r->reason : "?");
	else if (r->nskipped)
		snprintf(buf, len, "ok (%zu skipped)", r->nskipped);
	else
		snprintf(buf, len, "ok");
}

/* Column widths of `history`: the line fits 100 columns. */
enum { HW_RUN = 5, HW_TIME = 16, HW_HOST = 8, HW_CMD = 18, HW_STEPS = 5, HW_VERDICT = 16, HW_STATUS = 20 };

int cmd_history(int argc, char **argv)
{
	struct history_opts o;
	struct history *h;
	struct history_run *runs;
	char *pos[1], err[256];
	size_t npos, n;
	int rc;

	if ((rc = parse("history", argc, argv, &o, pos, 0, &npos,
			"[--limit N] [--command NAME] [--bench NAME] [--db PATH]",
			"Lists the stored runs, newest first, one line each: run id, time (UTC), host, the\n"
			"command as typed, its step count, the worst verdict (the first step bound by\n"
			"something) and its status (ok, incomplete, or failed with the first reason).\n"
			"Long fields are cut with ...; 'engpass show RUN' has them whole.")) >= 0)
		return rc;
	if ((rc = cmd_history_open("history", o.db, &h)) >= 0)
		return rc;
	if (history_list(h, (size_t)o.limit, o.command, o.bench, &runs, &n, err, sizeof(err)) < 0) {
		fprintf(stderr, "engpass history: %s\n", err);
		history_close(h);
		return EXIT_MEASURE_FAILED;
	}
	printf("%*s  %-*s  %-*s  %-*s  %*s  %-*s  %s\n", HW_RUN, "run", HW_TIME, "time (UTC)", HW_HOST, "host",
	       HW_CMD, "command", HW_STEPS, "steps", HW_VERDICT, "bound by", "status");
	for (size_t i = 0; i < n; i++) {
		char when[32], st[320], host[64], cmd[96], verdict[64], status[96];

		hist_fmt_time(when, sizeof(when), runs[i].time_ns, false);
		run_status(st, sizeof(st), &runs[i]);
		printf("%*" PRId64 "  %-*s  %s  %s  %*zu  %s  %s\n", HW_RUN, runs[i].id, HW_TIME, when,
		       hist_fit(host, sizeof(host), runs[i].host ? runs[i].host : "?", HW_HOST, true),
		       hist_fit(cmd, sizeof(cmd), typed(runs[i].command), HW_CMD, true), HW_STEPS, runs[i].nresults,
		       hist_fit(verdict, sizeof(verdict), runs[i].worst ? runs[i].worst : "-", HW_VERDICT, true),
		       hist_fit(status, sizeof(status), st, HW_STATUS, false));
	}
	history_runs_free(runs, n);
	history_close(h);
	return EXIT_OK;
}

/* True when resource RES names a limit ("none observed" and "unknown" do not). */
static bool bound(const char *res)
{
	return *res && strcmp(res, "none observed") && strcmp(res, "unknown");
}

/*
 * The "bound by" line of show's header, as history's column: the first
 * step bound by something, with how many steps were; else "none observed"
 * or "unknown" when a step said so; nothing when no step has a verdict.
 */
static void show_worst(FILE *f, const struct run *run)
{
	const struct result *first = NULL, *other = NULL;
	size_t nbound = 0;

	for (size_t i = 0; i < run->nresults; i++) {
		const struct result *r = run->results[i];

		if (bound(r->verdict.resource)) {
			first = first ? first : r;
			nbound++;
		} else if (r->verdict.resource[0] && (!other || !strcmp(r->verdict.resource, "none observed"))) {
			other = r;
		}
	}
	if (first) {
		fprintf(f, "  %-8s  %s (%s%s%s)", "bound by", first->verdict.resource, first->bench,
			strcmp(first->bench, first->step) ? " / " : "", strcmp(first->bench, first->step) ? first->step : "");
		if (nbound > 1)
			fprintf(f, ", the first of %zu bound steps", nbound);
		fputc('\n', f);
	}
	else if (other)
		fprintf(f, "  %-8s  %s\n", "bound by", other->verdict.resource);
}

/*
 * The header of `show`: run id and command, time, host and tool version,
 * the status, the worst verdict, and every failed or skipped step with
 * its reason whole.
 */
static void show_header(FILE *f, int64_t id, const struct run *run)
{
	size_t failed = 0, skipped = 0, incomplete = 0;
	char when[32];

	for (size_t i = 0; i < run->nresults; i++) {
		failed += run->results[i]->status == RESULT_FAILED;
		skipped += run->results[i]->status == RESULT_SKIPPED;
		incomplete += run->results[i]->incomplete;
	}
	hist_fmt_time(when, sizeof(when), run->time_ns, true);
	fprintf(f, "run %" PRId64 ": engpass %s\n", id, typed(run->command));
	fprintf(f, "  %-8s  %s UTC on %s, engpass %s\n", "time", when, run->host ? run->host : "?",
		run->tool_version ? run->tool_version : "?");
	fprintf(f, "  %-8s  ", "status");
	if (failed)
		fprintf(f, "failed (%zu of %zu steps)", failed, run->nresults);
	else if (incomplete)
		fprintf(f, "incomplete (%zu of %zu steps stopped early; figures cover what ran)", incomplete,
			run->nresults);
	else if (skipped)
		fprintf(f, "%s (%zu of %zu steps skipped)", skipped == run->nresults ? "skipped" : "ok", skipped,
			run->nresults);
	else
		fprintf(f, "ok (%zu step%s)", run->nresults, run->nresults == 1 ? "" : "s");
	fputc('\n', f);
	show_worst(f, run);
	for (size_t i = 0; i < run->nresults; i++) {
		const struct result *r = run->results[i];

		bool sub = strcmp(r->bench, r->step) != 0;

		if (!r->reason)
			continue;
		if (r->status != RESULT_OK)
			fprintf(f, "  %-8s  %s%s%s: %s\n", result_status_name(r->status), r->bench, sub ? " / " : "",
				sub ? r->step : "", r->reason);
		else if (r->incomplete)
			fprintf(f, "  %-8s  %s%s%s: %s; its figures cover what ran\n", "stopped", r->bench,
				sub ? " / " : "", sub ? r->step : "", r->reason);
	}
	fputc('\n', f);
}

/* The stored metrics as rows: `show` without jansson to rebuild the run. */
static int show_metrics(struct history *h, int64_t id, char *err, size_t errlen)
{
	struct history_metrics m;
	int rc = history_metrics(h, id, &m, err, errlen);

	if (rc < 0)
		return rc;
	printf("run %" PRId64 "\n", id);
	for (size_t i = 0; i < m.n; i++) {
		char v[48];

		render_value(v, sizeof(v), m.v[i].value, m.v[i].unit);
		printf("  %-28s %-28s %16s\n", m.v[i].step, m.v[i].name, v);
	}
	history_metrics_release(&m);
	return 0;
}

int cmd_show(int argc, char **argv)
{
	struct history_opts o;
	struct history *h;
	char *pos[1], err[384], *doc;
	size_t npos;
	int64_t id;
	int rc;

	if ((rc = parse("show", argc, argv, &o, pos, 1, &npos, "RUN [-v] [--json] [--db PATH]",
			"Shows a stored run: a header (command, time, host, version, status and every\n"
			"failure's reason), then its results as the command printed them (with -v as the\n"
			"command's -v did); with --json the whole stored document.")) >= 0)
		return rc;
	if (npos != 1)
		return usage_error("show", "needs one run id (see 'engpass history')");
	if (parse_run_id(pos[0], &id))
		return usage_error("show", "'%s' is not a run id", pos[0]);
	if ((rc = cmd_history_open("show", o.db, &h)) >= 0)
		return rc;
	rc = history_document(h, id, &doc, err, sizeof(err));
	if (!rc && o.json) {
		fputs(doc, stdout);
	} else if (!rc) {
		struct run *run;
		char lerr[256];

		rc = run_from_json(doc, &run, lerr, sizeof(lerr));
		if (!rc) {
			show_header(stdout, id, run);
			render_text(stdout, run, o.details ? RENDER_DETAILS : 0);
			run_free(run);
		} else if (rc == -ENOTSUP) {
			rc = show_metrics(h, id, err, sizeof(err));
		} else {
			snprintf(err, sizeof(err), "run %" PRId64 ": stored document unreadable: %s", id, lerr);
		}
	}
	free(doc);
	history_close(h);
	if (rc < 0) {
		fprintf(stderr, "engpass show: %s\n", err);
		return rc == -ENOENT ? EXIT_USAGE : EXIT_MEASURE_FAILED;
	}
	return EXIT_OK;
}

/* Reads a whole file (at most PROC_BUF_MAX); caller frees. NULL with errno set on failure. */
static char *slurp(const char *path)
{
	struct proc_buf b = PROC_BUF_INIT;
	int r = proc_buf_read_file(&b, path);

	if (r < 0) {
		proc_buf_release(&b);
		errno = -r;
		return NULL;
	}
	return b.data;
}

static const struct history_metric *find(const struct history_metrics *m, const struct history_metric *x)
{
	for (size_t i = 0; i < m->n; i++)
		if (!strcmp(m->v[i].bench, x->bench) && !strcmp(m->v[i].step, x->step) &&
		    !strcmp(m->v[i].name, x->name))
			return &m->v[i];
	return NULL;
}

/* Whether A and B differ beyond the noise their repetitions measured (intervals of the medians). */
static enum noise noise(const struct history_metric *a, const struct history_metric *b)
{
	return compare_noise(a->ci_lo, a->ci_hi, b->ci_lo, b->ci_hi);
}

/* True when M's interval covers less than 95 % ([min, max] of 3 to 5 repetitions). */
static bool short_coverage(const struct history_metric *m)
{
	return !isnan(m->ci_coverage) && m->ci_coverage < 0.95;
}

/* Metrics of SETS[0] that set S also has. */
static size_t common_metrics(const struct history_metrics *sets, size_t s)
{
	size_t k = 0;

	for (size_t i = 0; i < sets[0].n; i++)
		k += find(&sets[s], &sets[0].v[i]) != NULL;
	return k;
}

/* "bench" or "bench / step" of M into BUF. */
static const char *step_name(char *buf, size_t len, const struct history_metric *m)
{
	if (strcmp(m->bench, m->step))
		snprintf(buf, len, "%s / %s", m->bench, m->step);
	else
		snprintf(buf, len, "%s", m->bench);
	return buf;
}

/* The benchmarks of set M, each once, in order ("disk, cpu") into BUF. */
static const char *bench_names(char *buf, size_t len, const struct history_metrics *m)
{
	size_t o = 0;

	buf[0] = 0;
	for (size_t i = 0; i < m->n; i++) {
		bool seen = false;
		int k;

		for (size_t j = 0; j < i && !seen; j++)
			seen = !strcmp(m->v[j].bench, m->v[i].bench);
		if (seen || o >= len)
			continue;
		k = snprintf(buf + o, len - o, "%s%s", o ? ", " : "", m->v[i].bench);
		o += k > 0 ? (size_t)k : 0;
	}
	return buf;
}

/*
 * One line per warning that makes the comparison less than it looks:
 * inputs with nothing in common with the first, incomplete or failed
 * inputs, metrics the first input lacks.
 */
static void compare_warnings(const struct history_metrics *sets, size_t nsets)
{
	for (size_t s = 0; s < nsets; s++) {
		char a[160], b[160];

		if (s && sets[0].n && sets[s].n && !common_metrics(sets, s))
			printf("warning: A and %c are unlike runs, with no step and metric in common: A ran %s, %c ran %s\n",
			       (int)('A' + s), bench_names(a, sizeof(a), &sets[0]), (int)('A' + s),
			       bench_names(b, sizeof(b), &sets[s]));
		else if (s && sets[s].n > common_metrics(sets, s))
			printf("warning: %c has %zu metrics that A lacks (not shown; compare %c first to see them)\n",
			       (int)('A' + s), sets[s].n - common_metrics(sets, s), (int)('A' + s));
		if (sets[s].nincomplete)
			printf("warning: %c is incomplete: %zu step%s stopped early, %s figures cover only what ran\n",
			       (int)('A' + s), sets[s].nincomplete, sets[s].nincomplete == 1 ? "" : "s",
			       sets[s].nincomplete == 1 ? "its" : "their");
		if (sets[s].nfailed)
			printf("warning: %c has %zu failed step%s (no figures from %s)\n", (int)('A' + s), sets[s].nfailed,
			       sets[s].nfailed == 1 ? "" : "s", sets[s].nfailed == 1 ? "it" : "them");
		if (!sets[s].n)
			printf("warning: %c has no metrics\n", (int)('A' + s));
	}
}

/*
 * The metrics of stored run ID, read from its stored document (they carry
 * their human labels there); from the database rows when this engpass
 * cannot read JSON. Returns 0 or -errno with ERR filled.
 */
static int run_metrics(struct history *h, int64_t id, struct history_metrics *out, struct run **run, char *err,
		       size_t errlen)
{
	char *doc, label[32], e2[64];
	int rc = history_document(h, id, &doc, err, errlen);

	*run = NULL;
	if (rc < 0) {
		memset(out, 0, sizeof(*out));
		return rc;
	}
	snprintf(label, sizeof(label), "run %" PRId64, id);
	rc = history_metrics_from_json(doc, label, out, err, errlen);
	/* The verdicts and their checks; without them compare shows the figures only. */
	if (rc >= 0 && run_from_json(doc, run, e2, sizeof(e2)) < 0)
		*run = NULL;
	free(doc);
	if (rc == -ENOTSUP)
		rc = history_metrics(h, id, out, err, errlen);
	else if (rc < 0)
		rc = -EIO;	/* a stored document that does not read back is not a usage error */
	return rc;
}

/* The result of RUN (NULL: none) for the step of metric M; NULL when it has none. */
static const struct result *step_result(const struct run *run, const struct history_metric *m)
{
	for (size_t i = 0; run && i < run->nresults; i++) {
		const struct result *r = run->results[i];

		if (!strcmp(r->bench, m->bench) && !strcmp(r->step ? r->step : "", m->step))
			return r;
	}
	return NULL;
}

/*
 * Under a step's heading, when any input checked its verdict (--verify):
 * each input's verdict and how it was checked, by letter.
 */
static void compare_verdicts(struct run *const *runs, size_t nsets, const struct history_metric *m)
{
	const struct result *r[8];
	bool any = false;
	char buf[1024];

	for (size_t s = 0; s < nsets; s++) {
		r[s] = step_result(runs[s], m);
		any |= r[s] && r[s]->verdict.verify.n;
	}
	if (!any)
		return;
	for (size_t s = 0; s < nsets; s++) {
		printf("  %-8s  %c  ", s ? "" : "checked", (int)('A' + s));
		if (!r[s] || !r[s]->verdict.resource[0]) {
			printf("-\n");
			continue;
		}
		verify_describe(&r[s]->verdict, buf, sizeof(buf));
		printf("%s -- %s\n", r[s]->verdict.resource, buf[0] ? buf : "not checked (no --verify)");
	}
}

/* What a row of compare calls metric M: its human label, else its name. */
static const char *metric_shown(const struct history_metric *m)
{
	return m->label && *m->label ? m->label : m->name;
}

/* Width of the metric column: the longest name, at most CMP_NAME_MAX. */
#define CMP_NAME_MAX 30
#define CMP_VALUE_W 13
#define CMP_RATIO_W 12

int cmd_compare(int argc, char **argv)
{
	struct history_opts o;
	struct history *h = NULL;
	struct history_metrics sets[8];
	struct run *runs[8] = { 0 };
	char *pos[8], err[256], e2[64], prev[160] = "";
	size_t npos, nsets = 0, namew = 6;
	bool judged = false, short_cov = false, diff = false, common = false;
	int rc;

	if ((rc = parse("compare", argc, argv, &o, pos, 8, &npos, "RUN|FILE.json RUN|FILE.json ... [--db PATH]",
			"Puts runs side by side per metric of the first (A): which direction is better, each\n"
			"input's value, the ratio to A and, where --repeat N gave both runs an interval of\n"
			"the median (N >= 6 for 95 %), whether the difference is beyond the noise (the\n"
			"intervals do not overlap; then B is better or worse) or not distinguishable.\n"
			"Where a run checked its verdicts (--verify), each step says per input what bound\n"
			"it and how that was checked. Warns on inputs with nothing in common, incomplete\n"
			"or failed.")) >= 0)
		return rc;
	if (npos < 2)
		return usage_error("compare", "needs at least two runs or JSON files");
	for (size_t i = 0; i < npos; i++) {
		int64_t id;

		if (!parse_run_id(pos[i], &id)) {
			if (!h && (rc = cmd_history_open("compare", o.db, &h)) >= 0)
				goto out;
			rc = run_metrics(h, id, &sets[nsets], &runs[nsets], err, sizeof(err));
		} else {
			char *text = slurp(pos[i]);

			if (!text) {
				snprintf(err, sizeof(err), "cannot read '%s': %s", pos[i], strerror(errno));
				rc = -ENOENT;
			} else {
				rc = history_metrics_from_json(text, pos[i], &sets[nsets], err, sizeof(err));
				if (rc >= 0 && run_from_json(text, &runs[nsets], e2, sizeof(e2)) < 0)
					runs[nsets] = NULL;
				free(text);
			}
		}
		if (rc < 0) {
			fprintf(stderr, "engpass compare: %s\n", err);
			rc = rc == -ENOENT || rc == -EPROTO ? EXIT_USAGE : EXIT_MEASURE_FAILED;
			goto out;
		}
		nsets++;
	}
	/* The inputs by letter, their names whole. */
	for (size_t s = 0; s < nsets; s++)
		printf("%c  %s\n", (int)('A' + s), sets[s].label);
	compare_warnings(sets, nsets);
	/* Unlike runs: a table of n/a would say nothing more. */
	for (size_t s = 1; s < nsets && !common; s++)
		common = common_metrics(sets, s) > 0;
	if (!common) {
		printf("nothing to put side by side: compare runs of the same benchmark (engpass history --bench NAME)\n");
		rc = EXIT_OK;
		goto out;
	}
	for (size_t i = 0; i < sets[0].n; i++) {
		size_t l = hist_cols(metric_shown(&sets[0].v[i]));

		if (l > namew)
			namew = l > CMP_NAME_MAX ? CMP_NAME_MAX : l;
	}
	printf("\n  %-*s  %-6s", (int)namew, "metric", "better");
	for (size_t s = 0; s < nsets; s++)
		printf(" %*c", CMP_VALUE_W, (int)('A' + s));
	for (size_t s = 1; s < nsets; s++)
		printf("  %*c/A", CMP_RATIO_W - 2, (int)('A' + s));
	if (nsets == 2)
		printf("  %-6s  %s", "B is", "noise");
	putchar('\n');
	for (size_t i = 0; i < sets[0].n; i++) {
		const struct history_metric *a = &sets[0].v[i], *b = NULL;
		enum better dir = metric_better(a->name, a->unit);
		char v[160], step[160];

		step_name(step, sizeof(step), a);
		if (strcmp(step, prev)) {
			printf("%s\n", step);
			snprintf(prev, sizeof(prev), "%s", step);
			compare_verdicts(runs, nsets, a);
		}
		/* A name longer than the column has a line of its own: never cut. */
		if (hist_cols(metric_shown(a)) > namew)
			printf("  %s\n  %-*s", metric_shown(a), (int)namew, "");
		else
			printf("  %s", hist_fit(v, sizeof(v), metric_shown(a), namew, true));
		printf("  %-6s", better_name(dir));
		render_value(v, sizeof(v), a->value, a->unit);
		printf(" %*s", CMP_VALUE_W, v);
		for (size_t s = 1; s < nsets; s++) {
			const struct history_metric *x = find(&sets[s], a);

			render_value(v, sizeof(v), x ? x->value : NAN, a->unit);
			printf(" %*s", CMP_VALUE_W, v);
			if (s == 1)
				b = x;
		}
		for (size_t s = 1; s < nsets; s++) {
			const struct history_metric *x = find(&sets[s], a);

			printf("  %*s", CMP_RATIO_W, compare_ratio(v, sizeof(v), a->value, x ? x->value : NAN, a->unit));
			diff |= x && compare_as_difference(a->value, x->value, a->unit);
		}
		if (nsets == 2) {
			enum noise nj = b ? noise(a, b) : NOISE_UNKNOWN;
			const char *nz = noise_name(nj);
			const char *ch = b ? compare_change(a->value, b->value, dir, nj) : "";

			judged |= *nz != 0;
			short_cov |= *nz && (short_coverage(a) || short_coverage(b));
			/* No trailing blanks. */
			if (*nz)
				printf("  %-6s  %s", ch, nz);
			else if (*ch)
				printf("  %s", ch);
		}
		putchar('\n');
	}
	if (diff)
		printf("X/A: the ratio; +N or -N: the difference X - A instead, where a figure is zero or too "
		       "small for a ratio\n");
	if (nsets == 2 && !judged && common_metrics(sets, 1))
		printf("noise: no interval: run with --repeat 6 or more (both runs)\n");
	else if (short_cov)
		printf("noise: some intervals are [min, max] of fewer than 6 repetitions, covering less than 95 %%\n");
	rc = EXIT_OK;
out:
	for (size_t s = 0; s < nsets; s++) {
		history_metrics_release(&sets[s]);
		if (runs[s])
			run_free(runs[s]);
	}
	history_close(h);
	return rc;
}
