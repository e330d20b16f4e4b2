/* SPDX-License-Identifier: MIT */
/*
 * --verify: a verdict that checks itself (issue 38, docs/verdict.md
 * "Checking the verdict"). After a step, the candidate it named is tested
 * the way an expert doing active benchmarking would: a limit configured
 * outside engpass (a quota, a throttle, a shaper) is never changed, its
 * own counters say whether it acted; any other is relaxed in a short
 * probe of the same benchmark (the benchmark's relax() hook changes only
 * its own parameters) and the probe's headline figure is compared with
 * the step's, against the noise band of core/result/verify.h. A refuted
 * candidate sends the next one to a probe, at most VERIFY_MAX_RUNS runs,
 * and the verdict is re-ranked.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cmd.h"
#include "core/kernel/affinity.h"
#include "core/base/clock.h"
#include "core/kernel/proc.h"
#include "core/result/verify.h"
#include "lib/xalloc.h"

/* Another allowed CPU counts as idle below this mean busy share (the others' mean, %). */
#define VERIFY_IDLE_CPU_PCT 75.0

/*
 * One core: a second thread or stream helps only where another CPU is
 * allowed and was not busy. Returns true, or false with WHY.
 */
static bool idle_cpu(const struct result *res, char *why, size_t len)
{
	const struct sysview *v = &res->view;
	cpu_set_t set;
	int allowed;
	double others;

	if (affinity_get_self(&set) < 0) {
		snprintf(why, len, "the CPUs allowed cannot be read");
		return false;
	}
	allowed = CPU_COUNT(&set);
	if (allowed < 2) {
		snprintf(why, len, "one CPU is allowed: a second stream or thread would share it");
		return false;
	}
	if (!res->have_view || v->ncpu < 2 || !isfinite(v->cpu_busy_pct) || !isfinite(v->busiest_cpu_busy_pct))
		return true;	/* unsampled: the probe will tell */
	others = (v->cpu_busy_pct * v->ncpu - v->busiest_cpu_busy_pct) / (v->ncpu - 1);
	if (others >= VERIFY_IDLE_CPU_PCT) {
		snprintf(why, len, "no other CPU was idle (the others %.0f %% busy on average): a second stream or "
			 "thread would take a busy one", others);
		return false;
	}
	return true;
}

/* How long the CPUs' load is looked at to find the least busy one for "other processes". */
#define VERIFY_LOAD_LOOK_NS (250 * 1000 * 1000)

/* Reads /proc/stat into ST. Returns 0 or -errno. */
static int read_stat(struct proc_stat *st)
{
	char buf[16384];
	ssize_t n;
	int fd = open("/proc/stat", O_RDONLY | O_CLOEXEC), r;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf));
	r = n < 0 ? -errno : 0;
	close(fd);
	return r ? r : proc_stat_parse(st, buf, (size_t)n);
}

/*
 * Other processes: the least busy of the CPUs allowed now, over a quarter
 * second (the neighbours still run). Returns the CPU, or -1 with WHY.
 */
static int least_busy_cpu(char *why, size_t len)
{
	struct proc_stat a, b;
	struct timespec ts = { 0, VERIFY_LOAD_LOOK_NS };
	cpu_set_t set;
	double best_busy = 2;
	int best = -1;

	if (affinity_get_self(&set) < 0 || CPU_COUNT(&set) < 2) {
		snprintf(why, len, "fewer than two CPUs are allowed: there is no other CPU to move to");
		return -1;
	}
	proc_stat_init(&a);
	proc_stat_init(&b);
	if (read_stat(&a) == 0 && nanosleep(&ts, NULL) == 0 && read_stat(&b) == 0) {
		for (size_t i = 0; i < b.ncpu; i++) {
			const struct proc_cpu_times *y = &b.cpu[i], *x = proc_stat_find_cpu(&a, y->cpu);
			double all = 0, idle;

			if (!x || y->cpu >= CPU_SETSIZE || !CPU_ISSET(y->cpu, &set))
				continue;
			for (int f = 0; f < PROC_CPU_NFIELDS; f++)
				all += (double)(y->t[f] - x->t[f]);
			idle = (double)(y->t[PROC_CPU_IDLE] - x->t[PROC_CPU_IDLE]) +
			       (double)(y->t[PROC_CPU_IOWAIT] - x->t[PROC_CPU_IOWAIT]);
			if (all > 0 && 1 - idle / all < best_busy) {
				best_busy = 1 - idle / all;
				best = y->cpu;
			}
		}
	}
	proc_stat_release(&a);
	proc_stat_release(&b);
	if (best < 0)
		snprintf(why, len, "the CPUs' load could not be read (/proc/stat)");
	return best;
}

/*
 * An observer runs none of the work it reports on (watch: a daemon's
 * process, an interface, a disk): it has no relax() hook and runs until a
 * signal or its --time. NEEDSWORK: a BENCH_OBSERVER flag would say it in
 * the descriptor; watch.c is being changed elsewhere.
 */
static bool observer(const struct bench *b)
{
	return !b->relax && (b->flags & BENCH_UNTIL_SIGNAL);
}

/* Parameter KEY of RES; NULL when it has none. */
static const char *param(const struct result *res, const char *key)
{
	for (size_t i = 0; i < res->nparams; i++)
		if (!strcmp(res->params[i].key, key))
			return res->params[i].value;
	return NULL;
}

/*
 * An observer cannot relax a daemon's limits: candidate RESOURCE of RES
 * is "not verifiable (observing only)", and where the step's view makes
 * its prediction checkable on this box (another CPU idle while the
 * daemon's thread held one; a disk not saturated), what the operator
 * could change to test it, into WHY.
 */
static void observer_why(const struct result *res, const char *resource, char *why, size_t len)
{
	const struct sysview *v = &res->view;
	const char *pid = param(res, "pid");
	char who[48];
	double others = NAN;
	int n;

	if (pid)
		snprintf(who, sizeof(who), "process %s", pid);
	else
		snprintf(who, sizeof(who), "the work");
	n = snprintf(why, len, "observing only: engpass runs none of the work and changes none of its settings");
	if (n < 0 || (size_t)n >= len || !res->have_view)
		return;
	if (v->ncpu >= 2 && isfinite(v->cpu_busy_pct) && isfinite(v->busiest_cpu_busy_pct))
		others = (v->cpu_busy_pct * v->ncpu - v->busiest_cpu_busy_pct) / (v->ncpu - 1);
	if (!strcmp(resource, "one core")) {
		if (isfinite(others) && others < VERIFY_IDLE_CPU_PCT && isfinite(v->work_thread_cpu_pct))
			snprintf(why + n, len - (size_t)n, "; the other CPUs averaged %.0f %% busy while thread %s held "
				 "cpu%d at %.0f %%: a second worker thread or process of %s on another CPU would test it "
				 "(one core predicts its figure rises)", others, v->work_thread_comm, v->work_thread_cpu,
				 v->work_thread_cpu_pct, who);
		else if (isfinite(others))
			snprintf(why + n, len - (size_t)n, "; no other CPU was idle (the others %.0f %% busy): a second "
				 "worker would take a busy one, so this box cannot test it", others);
	} else if (!strcmp(resource, "device latency") || !strcmp(resource, "device")) {
		if (v->busiest_disk[0] && isfinite(v->disk_util_pct) && v->disk_util_pct < 90 &&
		    isfinite(v->disk_queue_avg))
			snprintf(why + n, len - (size_t)n, "; %s was busy %.0f %% with %.1f requests in flight on "
				 "average: more requests in flight from %s (more I/O threads, a deeper queue, larger "
				 "blocks) would test it (device latency predicts its figure rises)", v->busiest_disk,
				 v->disk_util_pct, v->disk_queue_avg, who);
		else if (v->busiest_disk[0] && isfinite(v->disk_util_pct))
			snprintf(why + n, len - (size_t)n, "; %s was busy %.0f %% of the time: only a faster device "
				 "or another one would test it", v->busiest_disk, v->disk_util_pct);
	} else if (!strcmp(resource, "other processes")) {
		if (v->ncpu >= 2 && v->others[0].pid)
			snprintf(why + n, len - (size_t)n, "; %s pinned to the least busy CPU (taskset -a -p -c CPU "
				 "%s), or %s (pid %d, %.0f %% of one CPU) paused, would test it", who, pid ? pid : "PID",
				 v->others[0].comm, v->others[0].pid, v->others[0].cpu_pct);
	} else if (!strcmp(resource, "round trip")) {
		snprintf(why + n, len - (size_t)n, "; more requests in flight in %s's settings (pipelining, more "
			 "connections) would test it", who);
	} else if (!strcmp(resource, "own pacing")) {
		snprintf(why + n, len - (size_t)n, "; %s's own rate limit or timers, raised, would test it", who);
	}
}

/* The candidate of V named RESOURCE, or NULL. */
static const struct verdict_candidate *find_cand(const struct verdict *v, const char *resource)
{
	for (size_t i = 0; i < v->ncand; i++)
		if (!strcmp(v->cand[i].resource, resource))
			return &v->cand[i];
	return NULL;
}

/*
 * The probe's --time: the caller's, else its share of the step's time per
 * repetition (half unless the caller says), at least the minimum.
 */
static uint64_t probe_time(const struct bench_call *c, const struct result *res)
{
	uint64_t min = c->probe_min_ns ? c->probe_min_ns : VERIFY_PROBE_MIN_NS;
	double per;

	if (c->probe_time_ns)
		return c->probe_time_ns;
	per = res->duration_s / (res->reps ? res->reps : 1) * (c->probe_share > 0 ? c->probe_share : 0.5);
	if (!isfinite(per) || per * 1e9 < (double)min)
		return min;
	return (uint64_t)(per * 1e9);
}

/*
 * Whether a probe of COST_NS (its --time and what it needs besides) fits
 * what is left of the caller's budget for probes; if not, P is "not
 * verified" with why.
 */
static bool budget_allows(const struct bench_call *c, uint64_t cost_ns, struct verify_probe *p)
{
	if (!c->probe_budget_ns || (int64_t)cost_ns <= *c->probe_budget_ns)
		return true;
	p->outcome = VERIFY_NOT_VERIFIED;
	snprintf(p->why, sizeof(p->why), "time budget (the probe would take %.1f s, %.1f s of the probes' time is left)",
		 (double)cost_ns / 1e9, *c->probe_budget_ns > 0 ? (double)*c->probe_budget_ns / 1e9 : 0.0);
	return false;
}

/*
 * Tests candidate C of RES into P: counters, a method that is the limit,
 * or a probe. Returns true when a probe ran.
 */
static bool test_one(struct bench_call *c, const struct bench_env *env, const struct result *res,
		     const struct verdict_candidate *cand, const struct metric *m, struct verify_probe *p)
{
	const struct bench *b = c->b;
	struct bench_relax rx = { { 0 } };
	const struct metric *pm;
	const char *why, *pname;
	cpu_set_t before, one;
	int cpu = -1;
	struct result *pres;
	void *probe;
	mono_ns t0;
	int r;

	verify_probe_init(p, cand->resource, m);
	if (verify_is_configured(cand->resource)) {
		verify_counters(res->have_view ? &res->view : NULL, cand, p);
		return false;
	}
	p->outcome = VERIFY_NOT_VERIFIABLE;
	if ((why = verify_method_limit(cand->resource))) {
		snprintf(p->why, sizeof(p->why), "%s", why);
		return false;
	}
	if (observer(b)) {
		observer_why(res, cand->resource, p->why, sizeof(p->why));
		return false;
	}
	if (!m) {
		snprintf(p->why, sizeof(p->why), "the step has no headline figure to compare");
		return false;
	}
	if (!strcmp(cand->resource, "other processes")) {
		/* The runner's to relax: the same work pinned where the others leave room. */
		if (!budget_allows(c, VERIFY_LOAD_LOOK_NS + probe_time(c, res) + c->probe_extra_ns, p))
			return false;
		if ((cpu = least_busy_cpu(p->why, sizeof(p->why))) < 0 || affinity_get_self(&before) < 0)
			return false;
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		if (affinity_pin_self(&one) < 0) {
			snprintf(p->why, sizeof(p->why), "cannot pin to cpu%d", cpu);
			return false;
		}
		probe = xmalloc(b->opts_size ? b->opts_size : 1);
		memcpy(probe, c->opts, b->opts_size);
		snprintf(rx.what, sizeof(rx.what), "the work pinned to cpu%d, the least busy", cpu);
		snprintf(rx.params, sizeof(rx.params), "--pin %d", cpu);
		r = 1;
	} else {
		if (!b->relax) {
			snprintf(p->why, sizeof(p->why), "%s has no probe for %s", b->name, cand->resource);
			return false;
		}
		if (!strcmp(cand->resource, "one core") && !idle_cpu(res, p->why, sizeof(p->why)))
			return false;
		probe = xmalloc(b->opts_size ? b->opts_size : 1);
		memcpy(probe, c->opts, b->opts_size);
		r = b->relax(c->opts, probe, cand->resource, res, env, &rx);
	}
	if (r <= 0) {
		snprintf(p->why, sizeof(p->why), "%.191s", rx.why[0] ? rx.why : "the benchmark cannot relax it");
		free(probe);
		return false;
	}
	if (cpu < 0 && !budget_allows(c, probe_time(c, res) + c->probe_extra_ns, p)) {
		snprintf(p->probe, sizeof(p->probe), "%s", rx.what);
		snprintf(p->parameters, sizeof(p->parameters), "%s", rx.params);
		free(probe);
		return false;
	}
	snprintf(p->probe, sizeof(p->probe), "%s", rx.what);
	snprintf(p->parameters, sizeof(p->parameters), "%s", rx.params);
	if (rx.base_metric[0]) {
		/* The hook's figure: its noise band is that metric's own. */
		if (!(m = result_find_metric(res, rx.base_metric))) {
			snprintf(p->why, sizeof(p->why), "the step has no %s to compare", rx.base_metric);
			free(probe);
			return false;
		}
		verify_probe_init(p, cand->resource, m);
		p->outcome = VERIFY_NOT_VERIFIABLE;
		snprintf(p->probe, sizeof(p->probe), "%s", rx.what);
		snprintf(p->parameters, sizeof(p->parameters), "%s", rx.params);
	}
	pname = rx.probe_metric[0] ? rx.probe_metric : m->name;
	if (c->probe_peer && c->probe_peer(c->probe_peer_arg, p->why, sizeof(p->why)) < 0) {
		free(probe);
		/* Back on the CPUs it had: allowed a moment ago, so it does not fail. */
		if (cpu >= 0 && affinity_pin_self(&before) < 0)
			snprintf(p->why, sizeof(p->why), "could not restore the CPUs allowed after the probe");
		return false;
	}
	t0 = clock_mono();
	pres = bench_call_probe(c, env, probe, probe_time(c, res));
	p->probe_s = elapsed_s(t0, clock_mono());
	free(probe);
	/* Back on the CPUs it had (allowed before, so this cannot fail but for a hot unplug). */
	if (cpu >= 0 && affinity_pin_self(&before) < 0)
		snprintf(p->why, sizeof(p->why), "could not restore the CPUs allowed after the probe");
	if (pres->status != RESULT_OK) {
		snprintf(p->why, sizeof(p->why), "the probe %s: %s", result_status_name(pres->status),
			 pres->reason ? pres->reason : "no reason given");
	} else if (!(pm = result_find_metric(pres, pname))) {
		snprintf(p->why, sizeof(p->why), "the probe gave no %s", pname);
	} else {
		p->figure = pm->value;
		verify_probe_judge(p, m->higher_is_better);
	}
	result_free(pres);
	return true;
}

static bool holds(enum verify_outcome o)
{
	return o == VERIFY_CONFIRMED || o == VERIFY_COUNTERS;
}

/* test_one() with its wall time (the look, the peer's start, the probe) spent from C's budget. */
static bool test_spent(struct bench_call *c, const struct bench_env *env, const struct result *res,
		       const struct verdict_candidate *cand, const struct metric *m, struct verify_probe *p)
{
	mono_ns t0 = clock_mono();
	bool ran = test_one(c, env, res, cand, m, p);

	if (c->probe_budget_ns)
		*c->probe_budget_ns -= (int64_t)elapsed_ns(t0, clock_mono());
	return ran;
}

void verify_step(struct bench_call *c, const struct bench_env *env, struct result *res, volatile sig_atomic_t *stop)
{
	struct verdict *v = &res->verdict;
	struct verify *vf = &v->verify;
	const struct metric *m = res->headline ? result_find_metric(res, res->headline) : NULL;
	const struct verdict_candidate *named;
	struct verdict_candidate none = { { 0 } };
	unsigned runs = 0;
	size_t k;

	memset(vf, 0, sizeof(*vf));
	if (res->status != RESULT_OK)
		return;
	if (!(named = find_cand(v, v->resource))) {
		/* "none observed", "unknown", a benchmark's own verdict: no candidate to relax. */
		snprintf(none.resource, sizeof(none.resource), "%s", v->resource[0] ? v->resource : "unknown");
		none.share = NAN;
		named = &none;
	}
	runs += test_spent(c, env, res, named, m, &vf->p[vf->n++]);
	/* Refuted: the next candidates in rank, up to the bound. */
	for (k = 0; k < v->ncand && vf->p[0].outcome == VERIFY_NOT_CONFIRMED && !holds(vf->p[vf->n - 1].outcome) &&
		    vf->n < VERIFY_MAX_PROBES && runs < VERIFY_MAX_RUNS && !*stop; k++) {
		const struct verdict_candidate *cand = &v->cand[k];
		bool seen = false;

		for (size_t i = 0; i < vf->n; i++)
			seen |= !strcmp(vf->p[i].resource, cand->resource);
		if (seen || !isfinite(cand->share) || cand->share < VERIFY_NEXT_MIN_SHARE)
			continue;
		runs += test_spent(c, env, res, cand, m, &vf->p[vf->n++]);
	}
	verify_rerank(v);
}
