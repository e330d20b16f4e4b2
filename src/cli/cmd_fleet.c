/* SPDX-License-Identifier: MIT */
/*
 * `engpass fleet [RUN...]`: the hosts of a fleet side by side. By default
 * the newest run of each host in the history (with --command, of that
 * command); or the runs given. One table, grouped by step: for every step
 * any of the runs has, one line per host with the step's headline figure
 * and its verdict (beside it, when the run was checked with --verify, the
 * outcome in verify_brief()'s words), and the hosts whose figure lies
 * beyond the fleet's spread marked. The spread is median ± K × MAD over
 * the hosts that have the figure (histfmt.h's fleet_band(): MAD scaled to
 * a standard deviation, at least 1 % of the median); with fewer than three hosts it says that
 * no spread can be judged. Every figure is the stored run's, formatted.
 *
 * With --mesh, the network between the hosts instead: from every stored
 * net client run (its host, its server_host from --peer, its direction),
 * N x N matrices of throughput, RTT and verdict, rows sending, columns
 * receiving, the newest run of each directed pair. The host table carries
 * the field report's capacity estimate: one core's cipher figure (a cpu
 * run) x online CPUs, capped by the host's best throughput out in the mesh.
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
#include "core/kernel/sysinfo.h"
#include "core/result/verify.h"
#include "lib/jw.h"
#include "lib/units.h"
#include "lib/xalloc.h"
#include "out/render.h"
#include "store/history.h"

struct fleet_opts {
	const char *command;
	int64_t k;
	const char *db;
	bool mesh, json;
	bool help;
};

const struct opt fleet_options[] = {
	OPT_STRING("command", 0, struct fleet_opts, command, "NAME",
		   "the newest run of each host of this command as typed (quick, mem, ...)"),
	OPT_INT("k", 'k', struct fleet_opts, k, 1, 100, "K",
		"mark hosts beyond median ± K × MAD (default 3)"),
	OPT_STRING("db", 0, struct fleet_opts, db, "PATH",
		   "history database (default $XDG_DATA_HOME/engpass/history.db)"),
	OPT_FLAG("mesh", 0, struct fleet_opts, mesh,
		 "the network between the hosts: sender x receiver matrices of throughput, RTT and verdict from the "
		 "stored net client runs"),
	OPT_FLAG("json", 0, struct fleet_opts, json, "with --mesh: the matrices and the capacity as one JSON document"),
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

/*
 * The headline metric of R when R is ok and has one, else NULL. A watch
 * stored before it had a headline stands by its capacity figure: the
 * daemon's own (cap), else seed 004's rule of three per core.
 */
static const struct metric *headline(const struct result *r)
{
	const struct metric *m;

	if (!r || r->status != RESULT_OK)
		return NULL;
	if (r->headline)
		return result_find_metric(r, r->headline);
	if (strcmp(r->bench, "watch"))
		return NULL;
	m = result_find_metric(r, "cap");
	return m ? m : result_find_metric(r, "est_per_core");
}

/*
 * The capacity of one host: from its stored watch of a daemon when it has
 * one (the daemon's own CPU, else seed 004's rule of three), else the
 * field report's: one core's cipher figure x cores; capped by the
 * measured uplink either way.
 */
enum cap_source { CAP_CIPHER, CAP_WATCH_OWN, CAP_WATCH_RULE3 };

struct capacity {
	bool ok;
	enum cap_source source;
	char daemon[96];		/* watch: "fastd (pid 123)" */
	double daemon_bps, headroom_bps, load_pct;	/* watch: the daemon's capacity as configured; NaN unknown */
	const char *verdict;		/* watch: its verdict resource; NULL none */
	double per_core_bps, total_bps, uplink_bps;
	int cores;
	int64_t cpu_run;
	char step[96];
	const char *uplink_to;
	bool capped;
	char why[160];			/* when !ok */
};

/* Column widths of the table. */
enum { FW_HOST = 16, FW_FIG = 12, FW_VERDICT = 18, FW_CAP = 13 };

/* The host table: which run stands for each host. */
static void print_hosts(const struct fleet_host *hosts, size_t n, const struct fleet_opts *o, bool given,
			const struct capacity *cap)
{
	if (given)
		printf("fleet: %zu run%s as given\n", n, n == 1 ? "" : "s");
	else if (o->command)
		printf("fleet: the newest run of each of %zu host%s (command '%s')\n", n, n == 1 ? "" : "s",
		       o->command);
	else
		printf("fleet: the newest run of each of %zu host%s\n", n, n == 1 ? "" : "s");
	printf("  %-*s  %5s  %-16s  %-8s  %-*s  %s\n", FW_HOST, "host", "run", "time (UTC)", "engpass", FW_CAP, "capacity",
	       "command");
	for (size_t i = 0; i < n; i++) {
		const struct run *r = hosts[i].run;
		char when[32], host[64], cmd[96], ver[32], capv[48];

		hist_fmt_time(when, sizeof(when), r->time_ns, false);
		if (cap[i].ok)
			units_fmt_bits(capv, sizeof(capv), cap[i].total_bps);
		else
			snprintf(capv, sizeof(capv), "unknown");
		printf("  %s  %5" PRId64 "  %-16s  %s  %-*s  %s\n", hist_fit(host, sizeof(host), r->host, FW_HOST, true),
		       hosts[i].id, when, hist_fit(ver, sizeof(ver), r->tool_version, 8, true), FW_CAP, capv,
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

/* The --verify outcome of R in a few words into BUF (verify_brief()); "" when none, or R did not run. */
static void checked_of(char *buf, size_t len, const struct result *r)
{
	buf[0] = 0;
	if (r && r->status == RESULT_OK)
		verify_brief(&r->verdict, buf, len);
}

/*
 * One host's line of a step. CW: the width of the checked column (the
 * --verify outcome beside the verdict), the widest of the step's hosts;
 * 0 when none of them has one, and the line is as without --verify.
 */
static void print_step_host(const struct fleet_host *fh, const struct result *r, const struct metric *ref,
			    const struct fleet_band *b, size_t cw)
{
	const struct metric *m = headline(r);
	char host[64], fig[48], verdict[64], chk[256], chkw[320];
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
	checked_of(chk, sizeof(chk), r);
	hist_fit(verdict, sizeof(verdict), r->verdict.resource[0] ? r->verdict.resource : "-", FW_VERDICT,
		 chk[0] != 0);
	side = m && ref && m->unit == ref->unit ? fleet_side(b, m->value) : 0;
	if (!side) {
		printf("  %s  %*s  %s%s%s%s\n", host, FW_FIG, fig, verdict, chk[0] ? "  " : "", chk,
		       r->incomplete ? "  (incomplete)" : "");
		return;
	}
	/* The outlier's mark stays in one column: the checked column padded to the step's widest. */
	if (cw)
		snprintf(chkw, sizeof(chkw), "%-*s  ", (int)cw, chk);
	else
		chkw[0] = 0;
	{
		enum better dir = metric_better(ref->name, ref->unit);
		const char *judge = dir == BETTER_UNKNOWN ? "" : (side > 0) == (dir == BETTER_HIGHER) ? " (better)" : " (worse)";

		printf("  %s  %*s  %-*s  %s! %s the fleet's spread%s%s\n", host, FW_FIG, fig, FW_VERDICT, verdict, chkw,
		       side > 0 ? "above" : "below", judge, r->incomplete ? ", incomplete" : "");
	}
}

/* Whether any step of the N hosts' runs was checked with --verify. */
static bool any_checked(const struct fleet_host *hosts, size_t n)
{
	for (size_t h = 0; h < n; h++)
		for (size_t i = 0; i < hosts[h].run->nresults; i++)
			if (hosts[h].run->results[i]->verdict.verify.n)
				return true;
	return false;
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
			size_t cw = 0;

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
			for (size_t e = 0; e < n; e++) {
				char chk[256];

				checked_of(chk, sizeof(chk), find_step(hosts[e].run, first->bench, first->step));
				cw = strlen(chk) > cw ? strlen(chk) : cw;
			}
			for (size_t e = 0; e < n; e++)
				print_step_host(&hosts[e], find_step(hosts[e].run, first->bench, first->step), m, &b,
						cw);
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

/* ---------------------------------------------------------------- the mesh and the capacity */

/* One directed pair of the mesh: the newest net client run that moved data FROM -> TO. */
struct mesh_cell {
	bool have;
	int64_t run_id, time_ns;
	double bps;			/* the receiver's count, all streams */
	double rtt_ms;			/* the sender's TCP_INFO smoothed rtt; NaN unknown */
	double queue_wait_s;		/* NaN unknown */
	char verdict[64];
	bool reversed;			/* a -R run: the server sent */
	bool incomplete;
};

/* The hosts of the net client runs (clients and --peer names), sorted, and their N x N cells. */
struct mesh {
	char **hosts;
	size_t n;
	struct mesh_cell *cells;	/* [from * n + to] */
	size_t runs, bidir, not_ok;	/* net client results read; left out: both ways, failed */
};

/* The value of parameter KEY of R, or NULL. */
static const char *param(const struct result *r, const char *key)
{
	for (size_t i = 0; i < r->nparams; i++)
		if (!strcmp(r->params[i].key, key))
			return r->params[i].value;
	return NULL;
}

/* The index of NAME among the mesh's hosts, added (sorted) when ADD; -1 if absent. */
static ssize_t mesh_host(struct mesh *m, const char *name, bool add)
{
	size_t i = 0;

	while (i < m->n && strcmp(m->hosts[i], name) < 0)
		i++;
	if (i < m->n && !strcmp(m->hosts[i], name))
		return (ssize_t)i;
	if (!add)
		return -1;
	m->hosts = xrealloc(m->hosts, (m->n + 1) * sizeof(*m->hosts));
	memmove(&m->hosts[i + 1], &m->hosts[i], (m->n - i) * sizeof(*m->hosts));
	m->hosts[i] = xstrdup(name);
	m->n++;
	return (ssize_t)i;
}

/* A loaded run of the history, kept for both the mesh and the capacity. */
struct stored {
	int64_t id;
	struct run *run;
	int cpus;			/* the document's info.cpu.online_cpus; -1 unknown */
};

/*
 * The online CPUs a stored document records (info.cpu.online_cpus), or -1.
 * The rebuilt run does not carry the system info, so the key is looked up
 * in the text: engpass writes it once, in the info block, as a number.
 */
static int doc_online_cpus(struct history *h, int64_t id)
{
	char err[256], *doc, *at, *end;
	long v = -1;

	if (history_document(h, id, &doc, err, sizeof(err)) < 0)
		return -1;
	if ((at = strstr(doc, "\"online_cpus\":"))) {
		at += strlen("\"online_cpus\":");
		while (*at == ' ')
			at++;
		v = strtol(at, &end, 10);
		if (end == at || v <= 0 || v > 1 << 20)
			v = -1;
	}
	free(doc);
	return (int)v;
}

/* Loads every stored run with a result of BENCH, newest id first. Returns 0 or an exit status. */
static int load_bench(struct history *h, const char *bench, struct stored **out, size_t *nout)
{
	struct history_run *runs = NULL;
	char err[256];
	size_t n = 0;
	int rc = 0;

	*out = NULL;
	*nout = 0;
	if (history_list(h, (size_t)INT64_MAX, NULL, bench, &runs, &n, err, sizeof(err)) < 0) {
		fprintf(stderr, "engpass fleet: %s\n", err);
		return EXIT_MEASURE_FAILED;
	}
	*out = xcalloc(n ? n : 1, sizeof(**out));
	for (size_t i = 0; i < n && !rc; i++) {
		struct fleet_host fh;

		if (!(rc = load_host(h, runs[i].id, &fh)))
			(*out)[(*nout)++] = (struct stored){ fh.id, fh.run, strcmp(bench, "cpu") ? -1 :
							     doc_online_cpus(h, fh.id) };
	}
	history_runs_free(runs, n);
	return rc;
}

static void stored_free(struct stored *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		run_free(s[i].run);
	free(s);
}

/* Places net client result R of run S in M: the newest run of each directed pair wins. */
static void mesh_place(struct mesh *m, const struct stored *s, const struct result *r, bool count_only)
{
	const char *dir = param(r, "direction"), *peer = param(r, "server_host");
	const struct metric *thr = result_find_metric(r, "throughput"), *rtt;
	bool rev;
	ssize_t c, p, from, to;
	struct mesh_cell *cell;

	if (!peer || !dir)
		return;
	c = mesh_host(m, s->run->host, true);
	p = mesh_host(m, peer, true);
	if (count_only)
		return;
	m->runs++;
	if (!strcmp(dir, "both ways")) {
		m->bidir++;
		return;
	}
	if (r->status != RESULT_OK || !thr) {
		m->not_ok++;
		return;
	}
	rev = !strcmp(dir, "server -> client");
	from = rev ? p : c;
	to = rev ? c : p;
	if (from == to)
		return;
	cell = &m->cells[(size_t)from * m->n + (size_t)to];
	if (cell->have && (cell->time_ns > s->run->time_ns || (cell->time_ns == s->run->time_ns && cell->run_id > s->id)))
		return;
	rtt = result_find_metric(r, rev ? "down_tcp_rtt" : "up_tcp_rtt");
	*cell = (struct mesh_cell){
		.have = true, .run_id = s->id, .time_ns = s->run->time_ns, .bps = thr->value,
		.rtt_ms = rtt ? rtt->value / 1e6 : NAN, .reversed = rev, .incomplete = r->incomplete,
	};
	{
		const struct metric *q = result_find_metric(r, "queue_wait");

		cell->queue_wait_s = q ? q->value : NAN;
	}
	snprintf(cell->verdict, sizeof(cell->verdict), "%s", r->verdict.resource[0] ? r->verdict.resource : "unknown");
	/* Which end's core or CPUs: the verdict's evidence names the side ("... on the sender (client)"). */
	if ((!strcmp(r->verdict.resource, "one core") || !strcmp(r->verdict.resource, "cpu"))) {
		const char *e = r->verdict.evidence;
		const char *side = strstr(e, "(client)") ? "client" : strstr(e, "(server)") ? "server"
				 : strstr(e, "share") ? "shared box" : NULL;

		if (side)
			snprintf(cell->verdict, sizeof(cell->verdict), "%s (%s)", r->verdict.resource, side);
	}
}

/* Builds the mesh from the stored net runs NET (two passes: the hosts, then the cells). */
static void mesh_build(struct mesh *m, const struct stored *net, size_t nnet)
{
	memset(m, 0, sizeof(*m));
	for (int pass = 0; pass < 2; pass++) {
		if (pass == 1)
			m->cells = xcalloc(m->n ? m->n * m->n : 1, sizeof(*m->cells));
		for (size_t i = 0; i < nnet; i++)
			for (size_t k = 0; k < net[i].run->nresults; k++) {
				const struct result *r = net[i].run->results[k];

				if (!strcmp(r->bench, "net") && !strcmp(r->step, "client"))
					mesh_place(m, &net[i], r, pass == 0);
			}
	}
}

static void mesh_free(struct mesh *m)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->hosts[i]);
	free(m->hosts);
	free(m->cells);
}

static size_t mesh_measured(const struct mesh *m)
{
	size_t k = 0;

	for (size_t i = 0; i < m->n * m->n; i++)
		k += m->cells[i].have;
	return k;
}

/* The best throughput out of host NAME in the mesh (its measured uplink), or NaN; *TO the receiver. */
static double mesh_uplink(const struct mesh *m, const char *name, const char **to)
{
	ssize_t i = mesh_host((struct mesh *)m, name, false);
	double best = NAN;

	*to = NULL;
	for (size_t j = 0; i >= 0 && j < m->n; j++) {
		const struct mesh_cell *c = &m->cells[(size_t)i * m->n + j];

		if (c->have && (isnan(best) || c->bps > best)) {
			best = c->bps;
			*to = m->hosts[j];
		}
	}
	return best;
}


/* The ciphers whose one-thread packet figure stands for a core, in order of preference. */
static const char *const capacity_ciphers[] = { "chacha20-poly1305/", "salsa2012/", NULL };

/* The watch result of RUN with a capacity figure, or NULL. */
static const struct result *watch_of(const struct run *run)
{
	for (size_t i = 0; run && i < run->nresults; i++) {
		const struct result *r = run->results[i];

		if (!strcmp(r->bench, "watch") && r->status == RESULT_OK &&
		    (result_find_metric(r, "cap_per_core") || result_find_metric(r, "est_per_core")))
			return r;
	}
	return NULL;
}

static const char *param_of(const struct result *r, const char *name)
{
	for (size_t i = 0; i < r->nparams; i++)
		if (!strcmp(r->params[i].key, name))
			return r->params[i].value;
	return NULL;
}

static double metric_value(const struct result *r, const char *name)
{
	const struct metric *m = result_find_metric(r, name);

	return m ? m->value : NAN;
}

/* The capacity from a stored watch W (the daemon's own CPU, else seed 004's method). */
static void capacity_watch(const struct result *w, int cores, const struct mesh *m, const char *host,
			   struct capacity *c)
{
	const char *proc = param_of(w, "process"), *pid = param_of(w, "pid");
	bool own = result_find_metric(w, "cap_per_core") != NULL;

	c->source = own ? CAP_WATCH_OWN : CAP_WATCH_RULE3;
	snprintf(c->daemon, sizeof(c->daemon), "%s%s%s%s", proc ? proc : "?", pid ? " (pid " : "", pid ? pid : "",
		 pid ? ")" : "");
	c->per_core_bps = metric_value(w, own ? "cap_per_core" : "est_per_core");
	c->daemon_bps = own ? metric_value(w, "cap") : NAN;
	c->headroom_bps = own ? metric_value(w, "cap_headroom") : NAN;
	c->load_pct = own ? metric_value(w, "cap_load") : NAN;
	/* The cores the watch multiplied by: its box figure over its per-core one, else the seed's count. */
	c->cores = cores;
	if (own && metric_value(w, "cap_total") > 0 && c->per_core_bps > 0)
		c->cores = (int)lround(metric_value(w, "cap_total") / c->per_core_bps);
	else if (metric_value(w, "est_cores") > 0)
		c->cores = (int)metric_value(w, "est_cores");
	c->verdict = w->verdict.resource[0] ? w->verdict.resource : NULL;
	snprintf(c->step, sizeof(c->step), "%s", own ? "the daemon's own CPU" : "the field report's rule of three");
	if (c->cores <= 0) {
		snprintf(c->why, sizeof(c->why), "the watch does not say how many CPUs are online");
		return;
	}
	c->ok = true;
	c->total_bps = c->per_core_bps * c->cores;
	c->uplink_bps = mesh_uplink(m, host, &c->uplink_to);
	if (!isnan(c->uplink_bps) && c->uplink_bps < c->total_bps) {
		c->total_bps = c->uplink_bps;
		c->capped = true;
	}
}

static void capacity_of(const char *host, const struct run *own_run, const struct stored *cpu, size_t ncpu,
			const struct mesh *m, struct capacity *c)
{
	const struct stored *best_run = NULL;
	const struct result *w = watch_of(own_run);

	memset(c, 0, sizeof(*c));
	c->per_core_bps = NAN;
	c->daemon_bps = c->headroom_bps = c->load_pct = NAN;
	if (w) {
		capacity_watch(w, own_run->info && own_run->info->cpu.online > 0 ? own_run->info->cpu.online : -1, m,
			       host, c);
		return;
	}
	/* The newest cpu run of the host with a one-thread figure of the first cipher it has. */
	for (size_t ci = 0; capacity_ciphers[ci] && !best_run; ci++) {
		for (size_t i = 0; i < ncpu; i++) {
			const struct stored *s = &cpu[i];
			double fig = NAN;
			char step[96] = "";

			if (strcmp(s->run->host, host) || (best_run && best_run->run->time_ns >= s->run->time_ns))
				continue;
			for (size_t k = 0; k < s->run->nresults; k++) {
				const struct result *r = s->run->results[k];
				const struct metric *x = result_find_metric(r, "cpu_bitrate");

				if (!strcmp(r->bench, "cpu") && r->status == RESULT_OK && x &&
				    !strncmp(r->step, capacity_ciphers[ci], strlen(capacity_ciphers[ci])) &&
				    strstr(r->step, "/1 thread") && (isnan(fig) || x->value > fig)) {
					fig = x->value;
					snprintf(step, sizeof(step), "%s", r->step);
				}
			}
			if (!isnan(fig)) {
				best_run = s;
				c->per_core_bps = fig;
				c->cpu_run = s->id;
				snprintf(c->step, sizeof(c->step), "%s", step);
			}
		}
	}
	if (!best_run) {
		snprintf(c->why, sizeof(c->why), "no stored cpu run with a one-thread chacha20-poly1305 or salsa2012 "
			 "figure (engpass cpu --cipher chacha20-poly1305 --size 1400)");
		return;
	}
	c->cores = best_run->cpus;
	if (c->cores <= 0) {
		snprintf(c->why, sizeof(c->why), "cpu run %" PRId64 " does not say how many CPUs are online", c->cpu_run);
		return;
	}
	c->ok = true;
	c->total_bps = c->per_core_bps * c->cores;
	c->uplink_bps = mesh_uplink(m, host, &c->uplink_to);
	if (!isnan(c->uplink_bps) && c->uplink_bps < c->total_bps) {
		c->total_bps = c->uplink_bps;
		c->capped = true;
	}
}

/* The capacity lines under the host table, one per host, with their method. */
static void print_capacity(const struct fleet_host *hosts, size_t n, const struct capacity *cap)
{
	printf("capacity: from the host's watch of a daemon when it has one (the daemon's own CPU, else the field report's "
	       "rule of three), else one core's cipher figure (cpu: bits per CPU-second, one thread); per core x "
	       "online CPUs, capped by the host's best measured net throughput out (fleet --mesh)\n");
	for (size_t i = 0; i < n; i++) {
		const struct capacity *c = &cap[i];
		char host[64], a[48], b[48], u[48];

		hist_fit(host, sizeof(host), hosts[i].run->host, FW_HOST, true);
		if (!c->ok) {
			printf("  %s  unknown: %s\n", host, c->why);
			continue;
		}
		units_fmt_bits(a, sizeof(a), c->per_core_bps);
		units_fmt_bits(b, sizeof(b), c->per_core_bps * c->cores);
		if (c->source != CAP_CIPHER) {
			printf("  %s  watch of %s: %s per core (%s, run %" PRId64 ") x %d = %s", host, c->daemon, a, c->step,
			       hosts[i].id, c->cores, b);
		} else {
			printf("  %s  %s per core (%s, run %" PRId64 ") x %d = %s", host, a, c->step, c->cpu_run, c->cores,
			       b);
		}
		if (isnan(c->uplink_bps))
			printf("; not capped: no net run out of this host is stored\n");
		else
			printf("; uplink %s (to %s) %s\n", units_fmt_bits(u, sizeof(u), c->uplink_bps), c->uplink_to,
			       c->capped ? "caps it" : "does not cap it");
		if (c->source == CAP_WATCH_OWN && !isnan(c->daemon_bps))
			printf("  %*s  %s: capacity %s as configured, headroom %s (its traffic was %.0f %% of it); verdict %s\n",
			       FW_HOST, "", c->daemon, units_fmt_bits(a, sizeof(a), c->daemon_bps),
			       units_fmt_bits(b, sizeof(b), c->headroom_bps), c->load_pct, c->verdict ? c->verdict : "-");
		else if (c->source == CAP_WATCH_RULE3)
			printf("  %*s  %s: no figure from its own CPU in this watch (stored before it, or no --pid); verdict "
			       "%s\n", FW_HOST, "", c->daemon, c->verdict ? c->verdict : "-");
	}
}

/* The text of cell (I, J) for matrix WHAT (0 throughput, 1 RTT, 2 verdict). */
static const char *cell_text(const struct mesh *m, size_t i, size_t j, int what, char *buf, size_t len)
{
	const struct mesh_cell *c = &m->cells[i * m->n + j];

	if (i == j || !c->have)
		return "-";
	if (what == 0)
		units_fmt_bits(buf, len, c->bps);
	else if (what == 1 && isnan(c->rtt_ms))
		snprintf(buf, len, "?");
	else if (what == 1)
		snprintf(buf, len, "%.3g ms", c->rtt_ms);
	else
		snprintf(buf, len, "%s", c->verdict);
	if (c->incomplete && what == 0 && strlen(buf) + 2 < len)
		memcpy(buf + strlen(buf), " *", 3);
	return buf;
}

static void print_matrix(const struct mesh *m, const char *title, int what)
{
	size_t w0 = strlen("from \\ to"), w = 0;
	char buf[96];

	for (size_t i = 0; i < m->n; i++) {
		w0 = strlen(m->hosts[i]) > w0 ? strlen(m->hosts[i]) : w0;
		w = strlen(m->hosts[i]) > w ? strlen(m->hosts[i]) : w;
		for (size_t j = 0; j < m->n; j++)
			w = strlen(cell_text(m, i, j, what, buf, sizeof(buf))) > w ? strlen(buf) : w;
	}
	printf("\n%s\n  %-*s", title, (int)w0, "from \\ to");
	/* The last column unpadded: no trailing blanks. */
	for (size_t j = 0; j < m->n; j++)
		printf("  %-*s", j + 1 < m->n ? (int)w : 0, m->hosts[j]);
	printf("\n");
	for (size_t i = 0; i < m->n; i++) {
		printf("  %-*s", (int)w0, m->hosts[i]);
		for (size_t j = 0; j < m->n; j++)
			printf("  %-*s", j + 1 < m->n ? (int)w : 0, cell_text(m, i, j, what, buf, sizeof(buf)));
		printf("\n");
	}
}

static void print_mesh(const struct mesh *m)
{
	size_t pairs = m->n > 1 ? m->n * (m->n - 1) : 0;

	printf("mesh: %zu host%s; %zu of %zu directed pairs measured (the newest net client run of each pair; rows "
	       "send, columns receive)\n", m->n, m->n == 1 ? "" : "s", mesh_measured(m), pairs);
	if (m->bidir || m->not_ok)
		printf("left out: %zu --bidir run%s (both ways at once), %zu failed run%s\n", m->bidir,
		       m->bidir == 1 ? "" : "s", m->not_ok, m->not_ok == 1 ? "" : "s");
	if (!m->n)
		return;
	print_matrix(m, "throughput (the receiver's count, all streams; * incomplete)", 0);
	print_matrix(m, "RTT (the sender's TCP_INFO smoothed rtt, mean of streams)", 1);
	print_matrix(m, "verdict (what bounded the run; a -R run is placed server -> client)", 2);
}

static void json_mesh(const struct mesh *m, const struct stored *cpu, size_t ncpu)
{
	struct jw w = JW_INIT(stdout, true);
	char when[32];

	jw_obj_begin(&w, NULL);
	jw_str(&w, "schema", "engpass-mesh/1");
	jw_arr_begin(&w, "hosts");
	for (size_t i = 0; i < m->n; i++)
		jw_str(&w, NULL, m->hosts[i]);
	jw_arr_end(&w);
	jw_uint(&w, "pairs", m->n > 1 ? m->n * (m->n - 1) : 0);
	jw_uint(&w, "pairs_measured", mesh_measured(m));
	jw_uint(&w, "left_out_bidir", m->bidir);
	jw_uint(&w, "left_out_failed", m->not_ok);
	jw_obj_begin(&w, "method");
	jw_str(&w, "cell", "the newest stored net client run (by start time) whose data flowed from -> to: a run "
	       "from the client's host to its --peer (server_host), a -R run the other way; --bidir runs left out");
	jw_str(&w, "throughput_bits_per_second", "the receiver's count, all streams (the run's headline)");
	jw_str(&w, "rtt_ms", "the sender's TCP_INFO smoothed rtt at the end of the transfer, mean of streams");
	jw_str(&w, "verdict", "the run's verdict resource; one core and cpu name the side");
	jw_obj_end(&w);
	jw_arr_begin(&w, "cells");
	for (size_t i = 0; i < m->n; i++)
		for (size_t j = 0; j < m->n; j++) {
			const struct mesh_cell *c = &m->cells[i * m->n + j];

			if (i == j || !c->have)
				continue;
			hist_fmt_time(when, sizeof(when), c->time_ns, true);
			jw_obj_begin(&w, NULL);
			jw_str(&w, "from", m->hosts[i]);
			jw_str(&w, "to", m->hosts[j]);
			jw_int(&w, "run", c->run_id);
			jw_str(&w, "time", when);
			jw_num(&w, "throughput_bits_per_second", c->bps);
			jw_num(&w, "rtt_ms", c->rtt_ms);
			jw_str(&w, "verdict", c->verdict);
			jw_bool(&w, "reversed", c->reversed);
			jw_bool(&w, "incomplete", c->incomplete);
			jw_num(&w, "queue_wait_seconds", c->queue_wait_s);
			jw_obj_end(&w);
		}
	jw_arr_end(&w);
	jw_arr_begin(&w, "capacity");
	for (size_t i = 0; i < m->n; i++) {
		struct capacity c;

		capacity_of(m->hosts[i], NULL, cpu, ncpu, m, &c);
		jw_obj_begin(&w, NULL);
		jw_str(&w, "host", m->hosts[i]);
		if (c.ok) {
			jw_num(&w, "bits_per_second", c.total_bps);
			jw_num(&w, "per_core_bits_per_second", c.per_core_bps);
			jw_str(&w, "per_core_step", c.step);
			jw_int(&w, "cpu_run", c.cpu_run);
			jw_int(&w, "cpus", c.cores);
			jw_num(&w, "uplink_bits_per_second", c.uplink_bps);
			jw_bool(&w, "capped_by_uplink", c.capped);
		} else {
			jw_null(&w, "bits_per_second");
			jw_str(&w, "unknown", c.why);
		}
		jw_obj_end(&w);
	}
	jw_arr_end(&w);
	jw_obj_end(&w);
	jw_finish(&w);
}

int cmd_fleet(int argc, char **argv)
{
	struct fleet_opts o = { .k = 3 };
	struct opt_group g = { fleet_options, &o };
	struct opt_seen seen;
	struct fleet_host *hosts;
	struct history *h;
	struct stored *net = NULL, *cpu = NULL;
	size_t nnet = 0, ncpu = 0;
	struct mesh mesh;
	char **pos = xcalloc((size_t)argc + 1, sizeof(char *)), err[256];
	int64_t *ids = NULL;
	size_t npos, n = 0;
	int rc = EXIT_OK;

	if (opt_parse(argc, argv, &g, 1, 1, pos, (size_t)argc + 1, &npos, &seen, err, sizeof(err))) {
		free(pos);
		return usage_error("fleet", "%s", err);
	}
	if (o.help) {
		printf("usage: engpass fleet [RUN...] [--command NAME] [--k K] [--db PATH]\n"
		       "       engpass fleet --mesh [--json] [--db PATH]\n\n"
		       "Puts hosts side by side: the newest stored run of each host (with --command, of\n"
		       "that command), or the runs given. For every step, one line per host with the\n"
		       "step's headline figure and its verdict, and beside it the outcome of --verify\n"
		       "when the run checked it (confirmed x1.93, not confirmed x1.02, confirmed by\n"
		       "counters, not verifiable, not verified); a host whose figure lies beyond the\n"
		       "fleet's spread, median ± K × MAD (the MAD scaled by 1.4826 to read as a\n"
		       "standard deviation, and at least 1 %% of the median), is marked '!' above or\n"
		       "below it, and better or worse where the figure has a direction. With fewer\n"
		       "than 3 hosts having a figure no spread is judged, and the line says so.\n"
		       "A capacity column estimates each host's capacity: from the run's watch of a\n"
		       "daemon when it has one (the daemon's capacity per core from its own CPU, else the\n"
		       "field report's rule of three), else as the field report did: one core's\n"
		       "chacha20-poly1305 (else salsa2012) figure of its newest stored cpu run; x its\n"
		       "online CPUs, capped by its best measured throughput out in the mesh; the lines\n"
		       "under the table say which, how, or why it is unknown, and for a watched daemon\n"
		       "its capacity as configured, its headroom and its verdict.\n"
		       "--mesh reads every stored 'engpass net client' run (each host's, imported):\n"
		       "rows send, columns receive (a -R run's data flowed server -> client), the newest\n"
		       "run of each directed pair, with throughput, RTT and verdict; '-' on the diagonal\n"
		       "and for pairs not measured. The server's host is the client's --peer NAME.\n"
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
	if (o.json && !o.mesh) {
		free(ids);
		return usage_error("fleet", "--json is for --mesh (the host table has no JSON form; each run has its own)");
	}
	if (o.mesh && (npos || o.command)) {
		free(ids);
		return usage_error("fleet", "--mesh reads every stored net client run: no run ids or --command");
	}
	if ((rc = cmd_history_open("fleet", o.db, &h)) >= 0) {
		free(ids);
		return rc;
	}
	rc = EXIT_OK;
	if ((rc = load_bench(h, "net", &net, &nnet)) == EXIT_OK)
		rc = load_bench(h, "cpu", &cpu, &ncpu);
	mesh_build(&mesh, net, nnet);
	if (rc == EXIT_OK && o.mesh) {
		if (o.json)
			json_mesh(&mesh, cpu, ncpu);
		else
			print_mesh(&mesh);
	}
	if (rc != EXIT_OK || o.mesh) {
		mesh_free(&mesh);
		stored_free(net, nnet);
		stored_free(cpu, ncpu);
		history_close(h);
		free(ids);
		return rc;
	}
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
		struct capacity *cap = xcalloc(n, sizeof(*cap));

		for (size_t i = 0; i < n; i++)
			capacity_of(hosts[i].run->host, hosts[i].run, cpu, ncpu, &mesh, &cap[i]);
		print_hosts(hosts, n, &o, npos > 0, cap);
		print_capacity(hosts, n, cap);
		free(cap);
		printf("spread: median ± %" PRId64 " × MAD (MAD × 1.4826, at least 1 %% of the median); '!' marks a "
		       "host beyond it\n", o.k);
		if (any_checked(hosts, n))
			printf("checked: beside the verdict, the outcome of the run's --verify (docs/verdict.md, \"Checking "
			       "the verdict\"): confirmed or not confirmed xRATIO (the probe's figure / the step's), "
			       "confirmed by counters, not verifiable, not verified; nothing for a run without --verify\n");
		print_steps(hosts, n, (double)o.k);
	}
	for (size_t i = 0; i < n; i++)
		run_free(hosts[i].run);
	free(hosts);
	free(ids);
	mesh_free(&mesh);
	stored_free(net, nnet);
	stored_free(cpu, ncpu);
	history_close(h);
	return rc;
}
