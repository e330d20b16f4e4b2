/* SPDX-License-Identifier: MIT */
/*
 * `engpass quick`: the whole-box profile in about a minute, the README's
 * `make run`. It runs a short, fixed list of benchmark steps, then prints
 * one summary table -- a row per step, its headline figure and what bound
 * it -- and a few plain sentences of findings, stores the whole profile as
 * one run in the history and writes an HTML report.
 *
 * The list is not here: each benchmark declares its part of the profile
 * (struct bench_quick in bench/bench.h: its steps, the part --skip names,
 * a peer process a step needs, and a findings hook over its own results),
 * and this file walks the registry. It knows no benchmark's step or metric
 * names. A step whose benchmark this build lacks, or that needs root, is a
 * row that says why it was skipped; nothing is dropped silently.
 *
 * The steps run in this process through the runner (bench_call_* in
 * run.c), so quick gets real results back and needs no JSON parser. What a
 * process per step gave for free is done here: one temp-file registry in
 * soft-stop mode for the whole profile (the first SIGINT, SIGTERM or
 * SIGHUP ends the running step, which keeps what it measured, and quick
 * stops after it; the runner removes what each step left), and --pin is
 * undone by the runner after each call. A peer (the net server a client
 * step talks to) is still a process of its own.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/cmd.h"
#include "core/base/clock.h"
#include "core/result/verify.h"
#include "core/work/tmpfile.h"
#include "lib/units.h"
#include "lib/xalloc.h"
#include "out/render.h"
#include "store/history.h"

struct quick_opts {
	struct opt_list skip;	/* parts to leave out; none when not given */
	const char *report;
	bool no_report;
	bool no_net;
	bool json;
	int format;		/* enum output_format; --json folded in */
	bool no_history;
	const char *db;
	const char *prom;
	bool plan;
	bool no_verify;
	bool help;
};

/* jsonl is not offered: quick's figures are composed when the whole profile ran. */
static const char *const quick_formats[] = { "table", "json", "csv", NULL };

const struct opt quick_options[] = {
	OPT_LIST("skip", 0, struct quick_opts, skip, 0, "LIST", "leave out these parts of the profile (listed above)"),
	OPT_FLAG("no-net", 0, struct quick_opts, no_net,
		 "leave out the steps of benchmarks that use the network"),
	OPT_STRING("report", 0, struct quick_opts, report, "FILE",
		   "HTML report path (default engpass-quick-TIME.html in the current directory)"),
	OPT_FLAG("no-report", 0, struct quick_opts, no_report, "do not write the HTML report"),
	OPT_FLAG("json", 0, struct quick_opts, json, "print the whole profile as one JSON document"),
	OPT_CHOICE("format", 0, struct quick_opts, format, quick_formats, "FMT",
		   "output format: table (default), json (same as --json) or csv (a row per step)"),
	OPT_FLAG("no-history", 0, struct quick_opts, no_history, "do not store the profile in the history"),
	OPT_STRING("db", 0, struct quick_opts, db, "PATH", "history database"),
	OPT_STRING("prom", 0, struct quick_opts, prom, "FILE", "also write Prometheus text format to FILE"),
	OPT_FLAG("no-verify", 0, struct quick_opts, no_verify,
		 "do not check each step's verdict with a short probe (--verify, on by default here: at most "
		 "25 % more time)"),
	OPT_FLAG("plan", 0, struct quick_opts, plan,
		 "print the steps that would run and what each is expected to take, and run nothing"),
	OPT_FLAG("help", 'h', struct quick_opts, help, "show this help"),
	OPT_END,
};

/* One step of the profile: a benchmark and one of the steps it declares. */
struct qstep {
	const struct bench *b;
	size_t i;				/* index into b->quick->steps */
	const struct bench_quick_step *s;
};

/*
 * What the runner adds to each result beyond the benchmark's run(): the
 * window and its sampler, the verdict, the temp files' removal (measured
 * here: 40.2 s of quick's wall time against 38.3 s of its 20 steps'
 * run()s, with 0.9 s of peers' start).
 */
#define STEP_OVERHEAD_NS (100 * NS_PER_MS)
#define PEER_START_NS (300 * NS_PER_MS)	/* peer_spawn()'s wait for the peer to listen */
/*
 * --verify in quick (docs/quick.md "Checking each verdict"): the probes
 * may add at most QUICK_VERIFY_SHARE to the profile's time. Each step
 * adds that share of its expected time to the probes' budget when it
 * starts (what an earlier step left over carries on); each probe runs
 * for QUICK_PROBE_SHARE of its step's time per repetition, at least
 * QUICK_PROBE_MIN_NS, and runs only when it fits what is left.
 */
#define QUICK_VERIFY_SHARE 0.25
#define QUICK_PROBE_SHARE 0.2
#define QUICK_PROBE_MIN_NS (250 * NS_PER_MS)

/* One profile being run. */
struct quick {
	struct quick_opts o;
	struct qstep *steps;		/* in profile order */
	size_t nsteps;
	struct run *run;
	size_t *origin;			/* per result of RUN: its index in STEPS, SIZE_MAX for a skipped row */
	char port[16];			/* "@PORT": for the loopback peers, away from iperf3's 5201 */
	struct tmpfile_reg *tmp;
	volatile sig_atomic_t *stop;
	uint64_t *est_ns;		/* per step: its declared --time and probes, 0 unknown or not run */
	uint64_t *probe_ns;		/* per step: what its --verify probes are expected to take (in est_ns too) */
	bool *runs;			/* per step: it will run (not left out, not skipped here) */
	int64_t probe_left_ns;		/* --verify: the probes' time left (a step adds its share, a probe spends) */
	uint64_t probe_given_ns;	/* the shares added so far: what the probes were allowed */
	bool machine;			/* --format json or csv: stdout is the document only */
};

/* The profile: every benchmark's declared steps, by their part's order, then registry order. */
static struct qstep *profile(size_t *n)
{
	struct qstep *p = NULL;

	*n = 0;
	for (size_t k = 0; bench_table[k]; k++) {
		const struct bench_quick *q = bench_table[k]->quick;

		for (size_t i = 0; q && i < q->nsteps; i++) {
			size_t at = *n;

			p = xrealloc(p, (*n + 1) * sizeof(*p));
			/* An insertion sort: stable, and the list is a dozen steps. */
			while (at > 0 && p[at - 1].s->order > q->steps[i].order) {
				p[at] = p[at - 1];
				at--;
			}
			p[at] = (struct qstep){ bench_table[k], i, &q->steps[i] };
			(*n)++;
		}
	}
	return p;
}

/* The part names in profile order, SEP between them, into BUF. */
static void parts(const struct qstep *p, size_t n, const char *sep, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = 0;
	for (size_t i = 0; i < n && used < len; i++)
		if (!i || strcmp(p[i].s->group, p[i - 1].s->group))
			used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? sep : "", p[i].s->group);
}

static void quick_help(const struct qstep *p, size_t n)
{
	printf("usage: engpass quick [options]\n\n"
	       "The whole-box profile in about a minute: the steps below, then a summary table (a row per\n"
	       "step, its headline figure, what bound it and how a short probe checked that: --verify,\n"
	       "at most 25 %% more time) and a few plain findings. It stores the\n"
	       "profile in the history as one run and writes an HTML report (not in a build without\n"
	       "jansson nor in the minimal router build: it says so). Disk steps use temp files in the\n"
	       "current directory.\n\n"
	       "the profile (part, benchmark, what the step shows):\n");
	for (size_t i = 0; i < n; i++)
		printf("  %-8s %-8s %s%s\n", p[i].s->group, p[i].b->name, p[i].s->why,
		       p[i].s->needs_root ? " (as root)" : "");
	if (ENGPASS_MINIMAL)
		printf("  cpu      cpu      " CMD_NOT_BUILT_WHY "\n");
	printf("\noptions:\n");
	opt_help(stdout, quick_options);
}

/* True when GROUP is named in SKIP. */
static bool skipped(const struct opt_list *skip, const char *group)
{
	for (size_t i = 0; i < skip->n; i++)
		if (!strcmp(opt_list_item(skip, i), group))
			return true;
	return false;
}

/* Checks every name in SKIP against the parts; returns the first unknown one (in SKIP) or NULL. */
static const char *bad_skip(const struct opt_list *skip, const struct qstep *p, size_t np)
{
	for (size_t k = 0; k < skip->n; k++) {
		bool ok = false;

		for (size_t i = 0; i < np; i++)
			ok |= !strcmp(opt_list_item(skip, k), p[i].s->group);
		if (!ok)
			return opt_list_item(skip, k);
	}
	return NULL;
}

/* Copies ARGS into ARGV from index N on, "@PORT" replaced by PORT; returns the new count. */
static size_t fill_args(char **argv, size_t n, const char *const *args, const char *port)
{
	for (size_t k = 0; k < BENCH_QUICK_MAXARGS && args[k]; k++)
		argv[n++] = (char *)(strcmp(args[k], "@PORT") ? args[k] : port);
	return n;
}

/* Ends the peer: it ends by itself after its one test; else SIGTERM. */
static void peer_stop(pid_t pid)
{
	int st;

	for (int i = 0; i < 50; i++) {
		if (waitpid(pid, &st, WNOHANG) == pid)
			return;
		usleep(20000);
	}
	kill(pid, SIGTERM);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
}

/* Appends R to the profile as coming from step I (SIZE_MAX: a row that did not run). */
static void add_result(struct quick *q, struct result *r, size_t i)
{
	q->origin = xrealloc(q->origin, (q->run->nresults + 1) * sizeof(*q->origin));
	q->origin[q->run->nresults] = i;
	run_add(q->run, r);
}

/* A row for step S that did not run or could not give a result, WHY: the part's name (and label) as its step. */
static void status_row(struct quick *q, const struct qstep *s, enum result_status st, const char *why)
{
	struct result *r = result_new(s->b->name, s->s->group);

	if (s->s->label)
		result_set_step(r, "%s %s", s->s->group, s->s->label);
	result_set_status(r, st, "%s", why);
	add_result(q, r, SIZE_MAX);
}

/*
 * Starts the peer of step S, `engpass PEER-ARGS --quiet --no-history`, as
 * a process of its own with its output discarded; it dies with quick.
 * Returns its pid; 0 with why in WHY and *SKIPPED when the peer could not
 * start (false) or ended at once with exit status 0 (true: it skipped
 * itself, e.g. in a build without what it needs).
 */
static pid_t peer_spawn(const struct quick *q, const struct qstep *s, char *why, size_t len, bool *skipped)
{
	char *argv[BENCH_QUICK_MAXARGS + 4];
	size_t n = fill_args(argv, 1, s->s->peer, q->port);
	pid_t pid;
	int st;

	argv[0] = (char *)"engpass";
	argv[n++] = (char *)"--quiet";
	argv[n++] = (char *)"--no-history";
	argv[n] = NULL;
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR | O_CLOEXEC);

		if (null >= 0) {
			dup2(null, 1);
			dup2(null, 2);
		}
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		execv("/proc/self/exe", argv);
		_exit(127);
	}
	*skipped = false;
	if (pid < 0) {
		snprintf(why, len, "cannot start its peer 'engpass %s %s': %s", argv[1], argv[2] ? argv[2] : "",
			 strerror(errno));
		return 0;
	}
	usleep(PEER_START_NS / 1000);	/* time to listen; a client also retries until its --connect-timeout */
	if (waitpid(pid, &st, WNOHANG) != pid)
		return pid;
	snprintf(why, len, "its peer 'engpass %s %s' ended before the step began (exit status %d)", argv[1],
		 argv[2] ? argv[2] : "", WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
	*skipped = WIFEXITED(st) && !WEXITSTATUS(st);
	return 0;
}

/*
 * peer_spawn() for step S, or 0 with a row for the step when the peer
 * could not start or ended before the step began: the step cannot run.
 */
static pid_t peer_start(struct quick *q, const struct qstep *s)
{
	char why[320];
	bool skip;
	pid_t pid = peer_spawn(q, s, why, sizeof(why), &skip);

	if (!pid)
		status_row(q, s, skip ? RESULT_SKIPPED : RESULT_FAILED, why);
	return pid;
}

/* A step's peer across its --verify probes: a --one-off peer serves one test, so each probe starts another. */
struct quick_peer {
	const struct quick *q;
	const struct qstep *s;
	pid_t pid;		/* the one running or ended, not yet reaped; 0 none */
};

/* The probe_peer hook of struct bench_call: ends the last peer and starts a new one. */
static int peer_again(void *arg, char *why, size_t len)
{
	struct quick_peer *p = arg;
	bool skip;

	if (p->pid > 0)
		peer_stop(p->pid);
	p->pid = peer_spawn(p->q, p->s, why, len, &skip);
	return p->pid > 0 ? 0 : -1;
}

/* The arguments step S runs with into ARGV (BENCH_QUICK_MAXARGS + 2 long); returns their count. */
static size_t step_argv(const struct quick *q, const struct qstep *s, char **argv)
{
	size_t argc = fill_args(argv, 0, s->s->args, q->port);

	argv[argc++] = (char *)"--quiet";
	argv[argc] = NULL;
	return argc;
}

/* Runs step I of the profile into Q->run, with its peer when it declares one. */
static void run_step(struct quick *q, size_t i)
{
	const struct qstep *s = &q->steps[i];
	char *argv[BENCH_QUICK_MAXARGS + 2], err[256];
	size_t argc = step_argv(q, s, argv), first = q->run->nresults;
	struct bench_call call;
	struct quick_peer qp = { q, s, 0 };
	pid_t peer = -1;
	double peer_s = 0;
	int r;

	if (bench_call_prepare(&call, s->b, (int)argc, argv, err, sizeof(err))) {
		char *why = xasprintf("its benchmark refuses the declared arguments: %s", err);

		/* A bug in the declaration, shown rather than hidden. */
		status_row(q, s, RESULT_FAILED, why);
		free(why);
		bench_call_release(&call);
		return;
	}
	if (s->s->peer[0]) {
		mono_ns t0 = clock_mono();

		if ((peer = peer_start(q, s)) == 0) {
			bench_call_release(&call);
			return;
		}
		peer_s = elapsed_s(t0, clock_mono());
	}
	if (!q->o.no_verify) {
		uint64_t add = (uint64_t)((double)(q->est_ns[i] - q->probe_ns[i]) * QUICK_VERIFY_SHARE);

		call.common.verify = true;
		call.probe_share = QUICK_PROBE_SHARE;
		call.probe_min_ns = QUICK_PROBE_MIN_NS;
		call.probe_budget_ns = &q->probe_left_ns;
		call.probe_extra_ns = STEP_OVERHEAD_NS + (peer > 0 ? PEER_START_NS : 0);
		q->probe_left_ns += (int64_t)add;
		q->probe_given_ns += add;
		if (peer > 0) {
			qp.pid = peer;
			call.probe_peer = peer_again;
			call.probe_peer_arg = &qp;
		}
	}
	r = bench_call_run(&call, q->tmp, q->stop, q->run, err, sizeof(err));
	if (qp.pid > 0)
		peer = qp.pid;	/* the last probe's */
	if (peer > 0)
		peer_stop(peer);
	bench_call_release(&call);
	if (r < 0) {
		/* Nothing ran. */
		status_row(q, s, RESULT_FAILED, err);
		return;
	}
	q->origin = xrealloc(q->origin, (q->run->nresults + 1) * sizeof(*q->origin));
	for (size_t k = first; k < q->run->nresults; k++) {
		struct result *res = q->run->results[k];

		q->origin[k] = i;
		/* The peer's start is the step's: the first result carries it. */
		if (k == first)
			res->wall_s += peer_s;
		if (s->s->label) {
			char *step = xstrdup(res->step ? res->step : "?");

			result_set_step(res, "%s %s", step, s->s->label);
			free(step);
		}
	}
}


/*
 * What the probes of a step of N results of --time T are expected to take
 * (its ETA's part, not its budget): half of one probe per result at
 * QUICK_PROBE_SHARE of T (at least QUICK_PROBE_MIN_NS), with the runner's
 * overhead and its peer's start, at most the step's share of BASE (its
 * expected time without probes). Half: a result's verdict is one a probe
 * tests (round trip, one core, device latency) or not (confirmed by a
 * limit's counters, not verifiable, the method's own limit), and which is
 * not known before the step; on this VM about half of quick's results
 * were probed (3.6 s of the 6.8 s one each would take, 2026-12-06), and
 * between none and all the ETA is off by at most half their time. Only
 * for a benchmark with probes of its own (a relax() hook); the runner's
 * "other processes" probe, on a loaded box, is not foreseen.
 */
static uint64_t probe_expected(const struct qstep *s, uint64_t t, size_t n, uint64_t base)
{
	uint64_t each = (uint64_t)((double)t * QUICK_PROBE_SHARE), all, cap;

	if (each < QUICK_PROBE_MIN_NS)
		each = QUICK_PROBE_MIN_NS;
	all = n * (each + STEP_OVERHEAD_NS + (s->s->peer[0] ? PEER_START_NS : 0)) / 2;
	cap = (uint64_t)((double)base * QUICK_VERIFY_SHARE);
	return all < cap ? all : cap;
}

/*
 * Plans the profile: which steps will run (not left out by --skip or
 * --no-net, not skipped in this build or for want of root), and for each
 * what it is expected to take: --time applies to each of a benchmark's
 * steps, so the parsed call's step count times its --time, plus what the
 * step declares beyond that (extra_ms: a warm-up, a fill), its peer's
 * start and the runner's overhead per step. A step that declares neither
 * a --time nor extra_ms is unknown (0). Parsing twice is harmless:
 * bench_call_prepare() only reads and checks.
 */
static void plan(struct quick *q)
{
	q->est_ns = xcalloc(q->nsteps ? q->nsteps : 1, sizeof(*q->est_ns));
	q->probe_ns = xcalloc(q->nsteps ? q->nsteps : 1, sizeof(*q->probe_ns));
	q->runs = xcalloc(q->nsteps ? q->nsteps : 1, sizeof(*q->runs));
	for (size_t i = 0; i < q->nsteps; i++) {
		const struct qstep *s = &q->steps[i];
		char *argv[BENCH_QUICK_MAXARGS + 2], err[256];
		size_t argc = step_argv(q, s, argv), n = 1;
		struct bench_call call;
		uint64_t t = 0;

		if (skipped(&q->o.skip, s->s->group) || (q->o.no_net && (s->b->flags & BENCH_NETWORK)) ||
		    s->b->unsupported_reason || (s->s->needs_root && geteuid() != 0))
			continue;
		q->runs[i] = true;
		if (bench_call_prepare(&call, s->b, (int)argc, argv, err, sizeof(err)) == 0) {
			n = s->b->nsteps ? s->b->nsteps(call.opts) : 1;
			t = call.common.time_ns;
		}
		bench_call_release(&call);
		if (!t && !s->s->extra_ms)
			continue;
		q->est_ns[i] = t * n + s->s->extra_ms * NS_PER_MS + n * STEP_OVERHEAD_NS +
			       (s->s->peer[0] ? PEER_START_NS : 0);
		if (!q->o.no_verify && s->b->relax && t)
			q->probe_ns[i] = probe_expected(s, t, n, q->est_ns[i]);
	}
	/* The step's time is its base and its probes': the ETA counts both. */
	for (size_t i = 0; i < q->nsteps; i++)
		q->est_ns[i] += q->probe_ns[i];
}

/* "m:ss" for NS. */
static void fmt_mss(char *buf, size_t len, uint64_t ns)
{
	uint64_t sec = (ns + NS_PER_SEC / 2) / NS_PER_SEC;

	snprintf(buf, len, "%llu:%02u", (unsigned long long)(sec / 60), (unsigned)(sec % 60));
}

/*
 * The line that names step I when it starts, on stderr: "step K of N",
 * the time so far, and what the declared times of this and the later
 * steps add up to -- "about" when every one of them declares its time,
 * "at least" when some do not (their sizes set their length).
 */
static void announce(const struct quick *q, size_t i, mono_ns t0)
{
	const struct qstep *s = &q->steps[i];
	size_t k = 0, n = 0;
	uint64_t left = 0;
	bool unknown = false;
	char el[24], lf[24];

	for (size_t j = 0; j < q->nsteps; j++) {
		if (!q->runs[j])
			continue;
		n++;
		k += j <= i;
		if (j >= i) {
			left += q->est_ns[j];
			unknown |= !q->est_ns[j];
		}
	}
	fmt_mss(el, sizeof(el), elapsed_ns(t0, clock_mono()));
	fmt_mss(lf, sizeof(lf), left);
	if (!left)
		fprintf(stderr, "engpass quick: step %zu of %zu (%s elapsed): %s (%s)\n", k, n, el, s->s->group,
			s->s->why);
	else
		fprintf(stderr, "engpass quick: step %zu of %zu (%s elapsed, %s %s left): %s (%s)\n", k, n, el,
			unknown ? "at least" : "about", lf, s->s->group, s->s->why);
}

/*
 * --plan: the steps that would run, each with what it is expected to take
 * ("?" when it declares no time), and the total; runs nothing.
 */
static void print_plan(struct quick *q)
{
	uint64_t total = 0, probes = 0, base = 0;
	bool unknown = false;
	char t[24];

	plan(q);
	printf("%-8s %-8s %8s  %s\n", "part", "bench", "expected", "step");
	for (size_t i = 0; i < q->nsteps; i++) {
		const struct qstep *s = &q->steps[i];

		if (!q->runs[i])
			continue;
		total += q->est_ns[i];
		probes += q->probe_ns[i];
		base += q->est_ns[i] - q->probe_ns[i];
		unknown |= !q->est_ns[i];
		snprintf(t, sizeof(t), "%.1f s", (double)q->est_ns[i] / 1e9);
		printf("%-8s %-8s %8s  %s\n", s->s->group, s->b->name, q->est_ns[i] ? t : "?", s->s->why);
	}
	printf("total: %s%.1f s\n", unknown ? "at least " : "", (double)total / 1e9);
	if (!q->o.no_verify)
		printf("of it --verify probes: %.1f s expected; their budget %.1f s (%.0f %% of the %.1f s without "
		       "them)\n",
		       (double)probes / 1e9, (double)base / 1e9 * QUICK_VERIFY_SHARE, QUICK_VERIFY_SHARE * 100,
		       (double)base / 1e9);
}

/* Runs the profile, minus what --skip and --no-net leave out. Returns 0, or 128 + the signal that stopped it. */
static int run_profile(struct quick *q)
{
	mono_ns t0 = clock_mono();

	plan(q);
	/* The minimal router build has no cpu benchmark: its quick steps are left out, and said so. */
	if (ENGPASS_MINIMAL && !skipped(&q->o.skip, "cpu"))
		fprintf(stderr, "engpass quick: the cpu steps: " CMD_NOT_BUILT_WHY "\n");
	for (size_t i = 0; i < q->nsteps; i++) {
		const struct qstep *s = &q->steps[i];

		if (skipped(&q->o.skip, s->s->group) || (q->o.no_net && (s->b->flags & BENCH_NETWORK)))
			continue;
		if (*q->stop) {
			fprintf(stderr, "engpass quick: stopped by signal %d before %s\n", (int)*q->stop, s->s->group);
			return 128 + (int)*q->stop;
		}
		if (s->b->unsupported_reason) {
			status_row(q, s, RESULT_SKIPPED, s->b->unsupported_reason);
			continue;
		}
		if (s->s->needs_root && geteuid() != 0) {
			char *why = xasprintf("needs root (%s)", s->s->needs_root);

			status_row(q, s, RESULT_SKIPPED, why);
			free(why);
			continue;
		}
		if (!q->machine)
			announce(q, i, t0);
		run_step(q, i);
		if (*q->stop) {
			fprintf(stderr, "engpass quick: stopped by signal %d during %s; its figures cover what ran\n",
				(int)*q->stop, s->s->group);
			return 128 + (int)*q->stop;
		}
	}
	return 0;
}

/* R's headline figure (else its first) as the text table shows it; "" without one. */
static void headline(char *buf, size_t len, const struct result *r)
{
	const struct metric *m = r->headline ? result_find_metric(r, r->headline) : NULL;

	if (!m && r->nmetrics)
		m = &r->metrics[0];
	buf[0] = '\0';
	if (m)
		render_metric(buf, len, r, m, m->value);
}

/*
 * The table: a row per result with its headline figure (else its first),
 * right-aligned in one column, what bound it and, with --verify, how
 * that was checked; step names whole.
 */
static void print_summary(const struct run *run, bool verified)
{
	size_t sw = 4, vw = 8, bw = 8;
	char val[64], chk[256];

	for (size_t i = 0; i < run->nresults; i++) {
		const struct result *r = run->results[i];

		sw = r->step && strlen(r->step) > sw ? strlen(r->step) : sw;
		headline(val, sizeof(val), r);
		vw = strlen(val) > vw ? strlen(val) : vw;
		if (r->status == RESULT_OK && strlen(r->verdict.resource) > bw)
			bw = strlen(r->verdict.resource);
	}
	printf("%-8s %-*s  %*s  %-*s%s\n", "bench", (int)sw, "step", (int)vw, "headline", verified ? (int)bw : 0,
	       "bound by", verified ? "  checked" : "");
	for (size_t i = 0; i < run->nresults; i++) {
		const struct result *r = run->results[i];

		printf("%-8.8s %-*s  ", r->bench, (int)sw, r->step ? r->step : "");
		if (r->status != RESULT_OK) {
			printf("%s: %s\n", result_status_name(r->status), r->reason ? r->reason : "");
			continue;
		}
		headline(val, sizeof(val), r);
		if (!verified) {
			printf("%*s  %s\n", (int)vw, val, r->verdict.resource);
			continue;
		}
		verify_brief(&r->verdict, chk, sizeof(chk));
		printf("%*s  %-*s  %s\n", (int)vw, val, (int)bw, r->verdict.resource, chk[0] ? chk : "not tested");
	}
}

/* One finding: "- TEXT", wrapped within 100 columns under its first word. */
static void finding(const char *text)
{
	fputs("- ", stdout);
	render_wrap(stdout, 2, 2, text);
}

/* One sentence per benchmark whose steps were bound by one core; returns how many. */
static size_t one_core_findings(const struct run *run)
{
	size_t n = 0;

	for (size_t i = 0; i < run->nresults; i++) {
		const struct result *r = run->results[i];
		size_t same = 0, earlier = 0;

		if (strcmp(r->verdict.resource, "one core"))
			continue;
		for (size_t j = 0; j < run->nresults; j++) {
			const struct result *o = run->results[j];

			if (!strcmp(o->verdict.resource, "one core") && !strcmp(o->bench, r->bench)) {
				same++;
				earlier += j < i;
			}
		}
		if (earlier)
			continue;
		char line[1024];

		snprintf(line, sizeof(line), "%zu %s step%s bound by one core, e.g. %s: %s.", same, r->bench,
			 same > 1 ? "s were" : " was", r->step, r->verdict.evidence);
		finding(line);
		n++;
	}
	return n;
}

/*
 * The findings: the one-core sentences, then each benchmark's own (its
 * findings hook over the ok results of its steps), in profile order.
 */
static void print_findings(const struct quick *q)
{
	struct bench_quick_result *mine = xcalloc(q->run->nresults + 1, sizeof(*mine));
	size_t n;

	printf("\nfindings\n");
	n = one_core_findings(q->run);
	for (size_t i = 0; i < q->nsteps; i++) {
		const struct bench *b = q->steps[i].b;
		struct bench_findings f = { 0 };
		size_t nmine = 0;
		bool first = true;

		for (size_t k = 0; k < i; k++)
			first &= q->steps[k].b != b;
		if (!first || !b->quick->findings)
			continue;
		for (size_t k = 0; k < q->run->nresults; k++) {
			const struct result *r = q->run->results[k];

			if (q->origin[k] != SIZE_MAX && q->steps[q->origin[k]].b == b && r->status == RESULT_OK)
				mine[nmine++] = (struct bench_quick_result){ q->steps[q->origin[k]].i, r };
		}
		b->quick->findings(mine, nmine, &f);
		for (size_t k = 0; k < f.n; k++)
			finding(f.line[k]);
		n += f.n;
		bench_findings_release(&f);
	}
	if (!n)
		printf("- nothing stood out.\n");
	free(mine);
}

/* The steps that scaled their sizes down to fit this box, with what they scaled (their "scaled down" notes). */
static void print_scaled(const struct run *run)
{
	size_t n = 0;

	for (size_t i = 0; i < run->nresults; i++) {
		const struct result *r = run->results[i];

		for (size_t j = 0; j < r->nnotes; j++) {
			if (strncmp(r->notes[j], "scaled down", 11))
				continue;
			if (!n++)
				printf("\nscaled to fit this box\n");
			char line[1024];

			snprintf(line, sizeof(line), "%s %s: %s", r->bench, r->step, r->notes[j]);
			finding(line);
		}
	}
}

/*
 * Keeps the profile: the history (one run, through the one history
 * path), --prom and the HTML report. Returns 0, or EXIT_MEASURE_FAILED
 * when --prom or the report could not be written.
 */
static int keep(const struct quick *q, const char *report)
{
	FILE *says = q->machine ? stderr : stdout;
	const char *stage;
	char err[320];
	int64_t id;
	int rc = 0, r;

	if (!q->o.no_history) {
		if (history_store_run(q->run, q->o.db, &id, err, sizeof(err)) < 0)
			fprintf(stderr, "engpass quick: history not stored: %s\n", err);
		else if (!q->machine)
			printf("stored as run %lld (engpass show %lld)\n", (long long)id, (long long)id);
	}
	if (q->o.prom && (r = prom_write(q->o.prom, q->run)) < 0) {
		fprintf(stderr, "engpass quick: cannot write '%s': %s\n", q->o.prom, strerror(-r));
		rc = EXIT_MEASURE_FAILED;
	}
	if (!report)
		return rc;
#if ENGPASS_MINIMAL
	/* Not even called: the report's code stays out of the minimal binary. */
	(void)stage, (void)r;
	fprintf(says, "report: not written: the HTML report is " CMD_NOT_BUILT_WHY "; --json has every figure\n");
	return rc;
#endif
	r = report_write_run(report, q->run, "engpass quick", &stage);
	if (r == -ENOTSUP) {
		fprintf(says, "report: not written: this engpass is built without jansson, which the HTML report "
			      "needs (engpass show RUN has every figure)\n");
	} else if (r < 0) {
		fprintf(stderr, "engpass quick: cannot write the report '%s' (%s): %s\n", report, stage, strerror(-r));
		rc = EXIT_MEASURE_FAILED;
	} else if (!q->machine) {
		printf("report: %s\n", report);
	}
	return rc;
}

/*
 * Parses the options into Q and makes the profile. Returns -1 to go on,
 * else the exit status (help printed, or a usage error).
 */
static int quick_setup(struct quick *q, int argc, char **argv)
{
	struct opt_group g = { quick_options, &q->o };
	struct opt_seen seen;
	char err[256], *pos[1], list[128];
	const char *bad;
	size_t npos;

	if (opt_parse(argc, argv, &g, 1, 1, pos, 0, &npos, &seen, err, sizeof(err)))
		return usage_error("quick", "%s", err);
	if (q->o.json && q->o.format == FORMAT_CSV)
		return usage_error("quick", "options '--json' and '--format csv' name different formats");
	if (q->o.json)
		q->o.format = FORMAT_JSON;
	/* Stdout is the document: what quick says on the way goes to stderr or away. */
	q->machine = q->o.format != FORMAT_TABLE;
	q->steps = profile(&q->nsteps);
	if (q->o.help) {
		quick_help(q->steps, q->nsteps);
		return EXIT_OK;
	}
	if ((bad = bad_skip(&q->o.skip, q->steps, q->nsteps))) {
		parts(q->steps, q->nsteps, ", ", list, sizeof(list));
		return usage_error("quick", "option '--skip': '%s' is not one of %s", bad, list);
	}
	snprintf(q->port, sizeof(q->port), "%d", 30000 + (int)(getpid() % 20000));
	return -1;
}

/*
 * The report's path: --report, else engpass-quick-LOCALTIME.html, the
 * time quick started. Without jansson no report is written (keep() says
 * so) and the default name, never shown, is not made: localtime_r() would
 * bring musl's time zone code, 8 KiB, into the router's static binary.
 */
static char *report_path(const char *opt)
{
	char when[32];
	time_t now = time(NULL);
	struct tm tm;

	if (opt)
		return xstrdup(opt);
	if (!HAVE_JANSSON || ENGPASS_MINIMAL)
		return xstrdup("engpass-quick.html");
	units_fmt_tm(when, sizeof(when), "%Y%m%d-%H%M%S", localtime_r(&now, &tm) ? &tm : &tm);
	return xasprintf("engpass-quick-%s.html", when);
}

int cmd_quick(int argc, char **argv)
{
	struct quick q = { 0 };
	static volatile sig_atomic_t stop;
	mono_ns t0 = clock_mono();
	char *report = NULL;
	int rc, r;

	if ((rc = quick_setup(&q, argc, argv)) >= 0) {
		free(q.steps);
		return rc;
	}
	if (q.o.plan) {
		print_plan(&q);
		free(q.est_ns);
		free(q.probe_ns);
		free(q.runs);
		free(q.steps);
		return EXIT_OK;
	}
	if (!q.o.no_report)
		report = report_path(q.o.report);
	q.run = run_new(ENGPASS_VERSION, 2, (char *[]){ (char *)"engpass", (char *)"quick", NULL });
	q.tmp = tmpfile_reg_new();
	q.stop = &stop;
	if ((r = tmpfile_install_handlers(q.tmp)) < 0)
		fprintf(stderr, "engpass quick: cannot catch signals (%s); a signal stops quick at once\n",
			strerror(-r));
	tmpfile_set_stop_flag(q.tmp, &stop);
	rc = run_profile(&q);
	/* Removes what is left and restores the default signal actions. */
	tmpfile_reg_free(q.tmp);
	run_collect_info(q.run);

	if (q.o.format == FORMAT_CSV) {
		render_csv(stdout, q.run);
	} else if (q.o.format == FORMAT_JSON) {
		render_json(stdout, q.run, true, true);
	} else {
		print_summary(q.run, !q.o.no_verify);
		print_findings(&q);
		print_scaled(q.run);
		if (!q.o.no_verify)
			printf("\n(%.0f s, of it %.1f s checking verdicts, %s their budget of %.1f s; every figure with "
			       "its method: engpass show RUN, or the report)\n", elapsed_s(t0, clock_mono()),
			       (double)((int64_t)q.probe_given_ns - q.probe_left_ns) / 1e9,
			       q.probe_left_ns >= 0 ? "within" : "past", (double)q.probe_given_ns / 1e9);
		else
			printf("\n(%.0f s; every figure with its method: engpass show RUN, or the report)\n",
			       elapsed_s(t0, clock_mono()));
	}
	fflush(stdout);
	r = keep(&q, report);
	if (!rc)
		rc = r;
	free(report);
	free(q.origin);
	free(q.est_ns);
	free(q.probe_ns);
	free(q.runs);
	free(q.steps);
	run_free(q.run);
	return rc;
}
