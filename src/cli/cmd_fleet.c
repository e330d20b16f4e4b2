/* SPDX-License-Identifier: MIT */
/*
 * `engpass fleet [RUN...]`: the hosts of a fleet side by side. By default
 * the newest run of each host in the history (with --command, of that
 * command); or the runs given. One table, grouped by step: for every step
 * any of the runs has, one line per host with the step's headline figure
 * and its verdict, and the hosts whose figure lies beyond the fleet's
 * spread marked. The spread is median ± K × MAD over the hosts that have
 * the figure (histfmt.h's fleet_band(): MAD scaled to a standard deviation,
 * at least 1 % of the median); with fewer than three hosts it says that
 * no spread can be judged. Every figure is the stored run's, formatted.
 *
 * Exit status: 0 (also for an empty history), 1 the database or a stored
 * document failed, 2 usage error.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cmd.h"
#include "cli/histfmt.h"
#include "lib/units.h"
#include "lib/xalloc.h"
#include "out/render.h"
#include "store/history.h"

struct fleet_opts {
	const char *command;
	int64_t k;
	const char *db;
	bool help;
};

const struct opt fleet_options[] = {
	OPT_STRING("command", 0, struct fleet_opts, command, "NAME",
		   "the newest run of each host of this command as typed (quick, mem, ...)"),
	OPT_INT("k", 'k', struct fleet_opts, k, 1, 100, "K",
		"mark hosts beyond median ± K × MAD (default 3)"),
	OPT_STRING("db", 0, struct fleet_opts, db, "PATH",
		   "history database (default $XDG_DATA_HOME/engpass/history.db)"),
	OPT_FLAG("help", 'h', struct fleet_opts, help, "show this help"),
	OPT_END,
};

/* One host of the table: a stored run, rebuilt from its document. */
struct fleet_host {
	int64_t id;
	struct run *run;
};

/* The result of HOST for step (BENCH, STEP), or NULL. */
static const struct result *find_step(const struct run *run, const char *bench, const char *step)
{
	for (size_t i = 0; i < run->nresults; i++)
		if (!strcmp(run->results[i]->bench, bench) && !strcmp(run->results[i]->step, step))
			return run->results[i];
	return NULL;
}

/* The headline metric of R when R is ok and has one, else NULL. */
static const struct metric *headline(const struct result *r)
{
	if (!r || r->status != RESULT_OK || !r->headline)
		return NULL;
	return result_find_metric(r, r->headline);
}

/* Column widths of the table. */
enum { FW_HOST = 16, FW_FIG = 12, FW_VERDICT = 18 };

/* The host table: which run stands for each host. */
static void print_hosts(const struct fleet_host *hosts, size_t n, const struct fleet_opts *o, bool given)
{
	if (given)
		printf("fleet: %zu run%s as given\n", n, n == 1 ? "" : "s");
	else if (o->command)
		printf("fleet: the newest run of each of %zu host%s (command '%s')\n", n, n == 1 ? "" : "s",
		       o->command);
	else
		printf("fleet: the newest run of each of %zu host%s\n", n, n == 1 ? "" : "s");
	printf("  %-*s  %5s  %-16s  %-8s  %s\n", FW_HOST, "host", "run", "time (UTC)", "engpass", "command");
	for (size_t i = 0; i < n; i++) {
		const struct run *r = hosts[i].run;
		char when[32], host[64], cmd[96], ver[32];

		hist_fmt_time(when, sizeof(when), r->time_ns, false);
		printf("  %s  %5" PRId64 "  %-16s  %s  %s\n", hist_fit(host, sizeof(host), r->host, FW_HOST, true),
		       hosts[i].id, when, hist_fit(ver, sizeof(ver), r->tool_version, 8, true),
		       hist_fit(cmd, sizeof(cmd), r->command, 40, false));
	}
}

/* The heading line of one step: its name, the headline figure and the fleet's band. */
static void print_step_head(const struct result *first, const struct metric *m, const struct fleet_band *b,
			    size_t nhosts)
{
	char med[48], lo[48], hi[48];

	if (strcmp(first->bench, first->step))
		printf("\n%s / %s", first->bench, first->step);
	else
		printf("\n%s", first->bench);
	if (!m) {
		printf(": no headline figure\n");
		return;
	}
	printf(": %s (%s is better)", m->label ? m->label : m->name, better_name(metric_better(m->name, m->unit)));
	render_value(med, sizeof(med), b->median, m->unit);
	if (b->judged) {
		render_value(lo, sizeof(lo), b->lo, m->unit);
		render_value(hi, sizeof(hi), b->hi, m->unit);
		printf(", median %s, spread %s to %s\n", med, lo, hi);
	} else if (b->n) {
		printf(", median %s; no spread judged: %zu of %zu host%s %s the figure, it needs %d\n", med, b->n,
		       nhosts, nhosts == 1 ? "" : "s", b->n == 1 ? "has" : "have", FLEET_MIN_HOSTS);
	} else {
		printf(": no host has the figure\n");
	}
}

/* One host's line of a step. */
static void print_step_host(const struct fleet_host *fh, const struct result *r, const struct metric *ref,
			    const struct fleet_band *b)
{
	const struct metric *m = headline(r);
	char host[64], fig[48], verdict[64];
	int side;

	hist_fit(host, sizeof(host), fh->run->host, FW_HOST, true);
	if (!r) {
		printf("  %s  %*s  (no such step in run %" PRId64 ")\n", host, FW_FIG, "-", fh->id);
		return;
	}
	if (r->status != RESULT_OK) {
		printf("  %s  %s: %s\n", host, result_status_name(r->status), r->reason ? r->reason : "?");
		return;
	}
	if (m && ref && m->unit == ref->unit)
		render_value(fig, sizeof(fig), m->value, m->unit);
	else
		snprintf(fig, sizeof(fig), "-");
	hist_fit(verdict, sizeof(verdict), r->verdict.resource[0] ? r->verdict.resource : "-", FW_VERDICT, false);
	side = m && ref && m->unit == ref->unit ? fleet_side(b, m->value) : 0;
	if (!side) {
		printf("  %s  %*s  %s%s\n", host, FW_FIG, fig, verdict, r->incomplete ? "  (incomplete)" : "");
		return;
	}
	{
		enum better dir = metric_better(ref->name, ref->unit);
		const char *judge = dir == BETTER_UNKNOWN ? "" : (side > 0) == (dir == BETTER_HIGHER) ? " (better)" : " (worse)";

		printf("  %s  %*s  %-*s  ! %s the fleet's spread%s%s\n", host, FW_FIG, fig, FW_VERDICT, verdict,
		       side > 0 ? "above" : "below", judge, r->incomplete ? ", incomplete" : "");
	}
}

/* The table: every step any host has, in the order they first appear. */
static void print_steps(const struct fleet_host *hosts, size_t n, double k)
{
	for (size_t h = 0; h < n; h++) {
		const struct run *run = hosts[h].run;

		for (size_t i = 0; i < run->nresults; i++) {
			const struct result *first = run->results[i], *ref = NULL;
			const struct metric *m = NULL;
			struct fleet_band b;
			double *v = xcalloc(n, sizeof(*v));
			bool seen = false;

			/* Shown already by an earlier host, or earlier in this run. */
			for (size_t e = 0; e < h && !seen; e++)
				seen = find_step(hosts[e].run, first->bench, first->step) != NULL;
			if (!seen && find_step(run, first->bench, first->step) != first)
				seen = true;
			if (seen) {
				free(v);
				continue;
			}
			/* The reference figure: the first host's headline for this step. */
			for (size_t e = h; e < n && !m; e++) {
				ref = find_step(hosts[e].run, first->bench, first->step);
				m = headline(ref);
			}
			for (size_t e = 0; e < n; e++) {
				const struct metric *x = headline(find_step(hosts[e].run, first->bench, first->step));

				v[e] = x && m && x->unit == m->unit && !strcmp(x->name, m->name) ? x->value : NAN;
			}
			fleet_band(v, n, k, &b);
			print_step_head(first, m, &b, n);
			for (size_t e = 0; e < n; e++)
				print_step_host(&hosts[e], find_step(hosts[e].run, first->bench, first->step), m, &b);
			free(v);
		}
	}
}

/* Loads run ID of H into FH. Returns 0, or an exit status with one line printed. */
static int load_host(struct history *h, int64_t id, struct fleet_host *fh)
{
	char err[320] = "", lerr[256] = "", *doc;
	int r = history_document(h, id, &doc, err, sizeof(err));

	fh->id = id;
	fh->run = NULL;
	if (r < 0) {
		fprintf(stderr, "engpass fleet: %s\n", err);
		return r == -ENOENT ? EXIT_USAGE : EXIT_MEASURE_FAILED;
	}
	r = run_from_json(doc, &fh->run, lerr, sizeof(lerr));
	free(doc);
	if (r < 0) {
		fprintf(stderr, "engpass fleet: run %" PRId64 ": %s\n", id, lerr);
		return EXIT_MEASURE_FAILED;
	}
	return 0;
}

int cmd_fleet(int argc, char **argv)
{
	struct fleet_opts o = { .k = 3 };
	struct opt_group g = { fleet_options, &o };
	struct opt_seen seen;
	struct fleet_host *hosts;
	struct history *h;
	char **pos = xcalloc((size_t)argc + 1, sizeof(char *)), err[256];
	int64_t *ids = NULL;
	size_t npos, n = 0;
	int rc = EXIT_OK;

	if (opt_parse(argc, argv, &g, 1, 1, pos, (size_t)argc + 1, &npos, &seen, err, sizeof(err))) {
		free(pos);
		return usage_error("fleet", "%s", err);
	}
	if (o.help) {
		printf("usage: engpass fleet [RUN...] [--command NAME] [--k K] [--db PATH]\n\n"
		       "Puts hosts side by side: the newest stored run of each host (with --command, of\n"
		       "that command), or the runs given. For every step, one line per host with the\n"
		       "step's headline figure and its verdict; a host whose figure lies beyond the\n"
		       "fleet's spread, median ± K × MAD (the MAD scaled by 1.4826 to read as a\n"
		       "standard deviation, and at least 1 %% of the median), is marked '!' above or\n"
		       "below it, and better or worse where the figure has a direction. With fewer\n"
		       "than 3 hosts having a figure no spread is judged, and the line says so.\n"
		       "Other hosts' runs come in with 'engpass import' (docs/fleet.md).\n\noptions:\n");
		opt_help(stdout, fleet_options);
		free(pos);
		return EXIT_OK;
	}
	for (size_t i = 0; i < npos; i++) {
		int64_t id;

		if (units_parse_int64(pos[i], 1, INT64_MAX, &id)) {
			rc = usage_error("fleet", "'%s' is not a run id (see 'engpass history')", pos[i]);
			free(pos);
			free(ids);
			return rc;
		}
		ids = xrealloc(ids, (n + 1) * sizeof(*ids));
		ids[n++] = id;
	}
	free(pos);
	if (npos && o.command) {
		free(ids);
		return usage_error("fleet", "takes run ids or --command, not both");
	}
	if ((rc = cmd_history_open("fleet", o.db, &h)) >= 0) {
		free(ids);
		return rc;
	}
	rc = EXIT_OK;
	if (!npos && history_latest_by_host(h, o.command, &ids, &n, err, sizeof(err)) < 0) {
		fprintf(stderr, "engpass fleet: %s\n", err);
		history_close(h);
		return EXIT_MEASURE_FAILED;
	}
	hosts = xcalloc(n ? n : 1, sizeof(*hosts));
	for (size_t i = 0; i < n && rc == EXIT_OK; i++)
		rc = load_host(h, ids[i], &hosts[i]);
	if (rc == EXIT_OK && !n)
		printf("fleet: no stored runs%s%s%s\n", o.command ? " of command '" : "", o.command ? o.command : "",
		       o.command ? "'" : "");
	else if (rc == EXIT_OK) {
		print_hosts(hosts, n, &o, npos > 0);
		printf("spread: median ± %" PRId64 " × MAD (MAD × 1.4826, at least 1 %% of the median); '!' marks a "
		       "host beyond it\n", o.k);
		print_steps(hosts, n, (double)o.k);
	}
	for (size_t i = 0; i < n; i++)
		run_free(hosts[i].run);
	free(hosts);
	free(ids);
	history_close(h);
	return rc;
}
