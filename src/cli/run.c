/* SPDX-License-Identifier: MIT */
/*
 * Running a benchmark command: parse its option table and the common
 * options, check capabilities declared in its descriptor, pin, start the
 * sampler, run the repetitions, merge them (median, min, max), judge the
 * verdict and render. This is the only place a benchmark's outcome becomes
 * an exit status.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cmd.h"
#include "core/kernel/affinity.h"
#include "core/kernel/blkdev.h"
#include "core/base/clock.h"
#include "core/observe/limits.h"
#include "core/kernel/proc.h"
#include "core/base/progress.h"
#include "core/observe/sampler.h"
#include "core/kernel/sysinfo.h"
#include "core/work/tmpfile.h"
#include "core/result/verdict.h"
#include "core/observe/window.h"
#include "lib/xalloc.h"
#include "out/render.h"

static const char *const formats[] = { "table", "json", "csv", "jsonl", NULL };

const struct opt common_opts_table[] = {
	OPT_FLAG("json", 0, struct common_opts, json, "write one JSON document (same as --format json)"),
	OPT_FLAG("json-stream", 0, struct common_opts, json_stream,
		 "JSON lines while running, then the document (same as --format jsonl)"),
	OPT_CHOICE("format", 0, struct common_opts, format, formats, "FMT",
		   "output format: table (default), json, csv (a row per step) or jsonl (a JSON line "
		   "per sampling interval, then the document)"),
	OPT_FLAG("quiet", 'q', struct common_opts, quiet,
		 "no progress line and no phase lines (fill, warm-up, step k of n) on stderr"),
	OPT_FLAG("details", 'v', struct common_opts, details,
		 "text output: also the parameters, the method, every limit looked at, the system view and "
		 "each step's notes (--json always has them)"),
	OPT_DURATION("time", 0, struct common_opts, time_ns, 1, 24 * 3600 * NS_PER_SEC,
		     "how long each step measures, per step: N steps take N times as long, as stderr says "
		     "before they start (default: the benchmark's own)"),
	OPT_INT("repeat", 0, struct common_opts, repeat, 1, 1000, "N",
		"run N times: each median with its interval (95 % from N = 6) (default 1)"),
	OPT_CPULIST("pin", 0, struct common_opts, pin, "run on these CPUs only"),
	OPT_DURATION("interval", 0, struct common_opts, interval_ns, 10 * NS_PER_MS, 10 * NS_PER_SEC,
		     "system sampling interval, 10ms..10s (default 250ms)"),
	OPT_DURATION("state-interval", 0, struct common_opts, state_interval_ns, NS_PER_MS, NS_PER_SEC,
		     "thread-state sampling interval for the time budget, 1ms..1s (default 10ms: 100 Hz)"),
	OPT_FLAG("no-states", 0, struct common_opts, no_states,
		 "do not sample the work's thread states (no time budget)"),
	OPT_FLAG("no-sample", 0, struct common_opts, no_sample, "do not sample the system while measuring"),
	OPT_STRING("prom", 0, struct common_opts, prom, "FILE",
		   "also write Prometheus text format to FILE, atomically (textfile collector)"),
	OPT_FLAG("no-history", 0, struct common_opts, no_history, "do not store the run in the history"),
	OPT_STRING("db", 0, struct common_opts, db, "PATH",
		   "history database (default $XDG_DATA_HOME/engpass/history.db)"),
	OPT_FLAG("verify", 0, struct common_opts, verify,
		 "check the verdict: run a short probe with the named limit relaxed (a second stream, twice the "
		 "requests in flight or the queue depth, no pacing) and say whether the figure moved; a limit "
		 "configured outside engpass is checked by its own counters (docs/verdict.md)"),
	OPT_FLAG("help", 'h', struct common_opts, help, "show this help"),
	OPT_END,
};

void common_opts_defaults(struct common_opts *c)
{
	memset(c, 0, sizeof(*c));
	c->repeat = 1;
	c->interval_ns = 250 * NS_PER_MS;
}

static int ncpu_configured(void)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);

	return n > 0 ? (int)n : 1;
}

/* Index of option NAME in the common table (for opt_was_seen). */
static size_t common_index(const char *name)
{
	return (size_t)(opt_find(common_opts_table, name) - common_opts_table);
}

/*
 * The runner's state around the environment it hands a benchmark: the
 * benchmark sees ENV only; emit_now() gets back to the output options
 * from it.
 */
struct runner {
	struct bench_env env;
	const struct common_opts *common;
	struct bench_call *call;	/* the call being run: its stream and CSV columns */
};

static const struct runner *env_runner(const struct bench_env *env)
{
	return (const struct runner *)((const char *)env - offsetof(struct runner, env));
}

static const struct common_opts *env_common(const struct bench_env *env)
{
	return env_runner(env)->common;
}

/*
 * --format jsonl: the sampler hands each interval to stream_on_sample() in
 * its own thread; the record waits in a bounded queue for the writer
 * thread, which writes and flushes one line per record. The sampling
 * thread only copies a record under a lock nobody holds across I/O, so a
 * stalled reader of stdout delays no snapshot: with the queue full the
 * record is dropped and counted (said on stderr at the end).
 */
#define STREAM_QUEUE 64

struct stream {
	FILE *f;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool stop;
	struct stream_interval q[STREAM_QUEUE];	/* ring: n records from head */
	size_t head, n;
	unsigned long dropped;
	/* What the next records carry; the runner sets them at each step (under mu). */
	unsigned step;
	char bench[32];
	struct progress *progress;
};

static void copy_name(char *dst, size_t len, const char *src)
{
	snprintf(dst, len, "%s", src ? src : "");
}

/* sampler_config.on_sample: queue the interval X, or count it dropped. */
static void stream_on_sample(void *arg, const struct sample *x)
{
	struct stream *st = arg;
	struct stream_interval *rec;

	pthread_mutex_lock(&st->mu);
	if (st->n == STREAM_QUEUE) {
		st->dropped++;
	} else {
		rec = &st->q[(st->head + st->n++) % STREAM_QUEUE];
		rec->step = st->step;
		rec->time_ns = clock_wall_ns();
		copy_name(rec->bench, sizeof(rec->bench), st->bench);
		rec->progress_pct = st->progress ? progress_percent(st->progress) : NAN;
		rec->sample = *x;
		rec->sample.cpu_pct = NULL;
		copy_name(rec->disk, sizeof(rec->disk), x->disk);
		copy_name(rec->iface, sizeof(rec->iface), x->iface);
		pthread_cond_signal(&st->cv);
	}
	pthread_mutex_unlock(&st->mu);
}

/* The writer: one line per queued record, each flushed, until stopped and drained. */
static void *stream_thread(void *arg)
{
	struct stream *st = arg;
	struct stream_interval rec;

	pthread_mutex_lock(&st->mu);
	for (;;) {
		while (!st->n && !st->stop)
			pthread_cond_wait(&st->cv, &st->mu);
		if (!st->n)
			break;
		rec = st->q[st->head];
		st->head = (st->head + 1) % STREAM_QUEUE;
		st->n--;
		pthread_mutex_unlock(&st->mu);
		rec.sample.disk = rec.disk[0] ? rec.disk : NULL;
		rec.sample.iface = rec.iface[0] ? rec.iface : NULL;
		/* Whole lines: the runner's own events (result, end) lock the stream too. */
		flockfile(st->f);
		render_json_interval(st->f, &rec);
		funlockfile(st->f);
		pthread_mutex_lock(&st->mu);
	}
	pthread_mutex_unlock(&st->mu);
	return NULL;
}

/* Starts the writer on F (signals blocked in it: they are the main thread's). NULL when it cannot start. */
static struct stream *stream_start(FILE *f)
{
	struct stream *st = xcalloc(1, sizeof(*st));
	sigset_t all, old;
	int r;

	st->f = f;
	pthread_mutex_init(&st->mu, NULL);
	pthread_cond_init(&st->cv, NULL);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	r = pthread_create(&st->thread, NULL, stream_thread, st);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r) {
		pthread_cond_destroy(&st->cv);
		pthread_mutex_destroy(&st->mu);
		free(st);
		return NULL;
	}
	return st;
}

/* Writes what is queued, stops the writer and frees it; returns the records dropped. */
static unsigned long stream_stop(struct stream *st)
{
	unsigned long dropped;

	pthread_mutex_lock(&st->mu);
	st->stop = true;
	pthread_cond_signal(&st->cv);
	pthread_mutex_unlock(&st->mu);
	pthread_join(st->thread, NULL);
	dropped = st->dropped;
	pthread_cond_destroy(&st->cv);
	pthread_mutex_destroy(&st->mu);
	free(st);
	return dropped;
}

/* The step the next intervals belong to: its index in the command's run, its benchmark. */
static void stream_step(struct stream *st, unsigned step, const char *bench, struct progress *p)
{
	pthread_mutex_lock(&st->mu);
	st->step = step;
	copy_name(st->bench, sizeof(st->bench), bench);
	st->progress = p;
	pthread_mutex_unlock(&st->mu);
}

/* "SIGINT" for the signals that stop a run, else "signal N" (in a static buffer). */
static const char *signal_name(int sig)
{
	static char buf[24];

	if (sig == SIGINT || sig == SIGTERM || sig == SIGHUP)
		return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "SIGHUP";
	snprintf(buf, sizeof(buf), "signal %d", sig);
	return buf;
}

/*
 * The sysfs root a benchmark reads the box's description from:
 * $ENGPASS_SYS_ROOT when set and not empty (a fixture tree in the tests:
 * another box's cache sizes), else "/sys". The string is the environment's
 * or static.
 */
static const char *sys_root(void)
{
	const char *r = getenv("ENGPASS_SYS_ROOT");

	return r && *r ? r : "/sys";
}

/* Runs the repetitions of one step; returns the merged result (caller owns). */
static struct result *run_reps(const struct bench *b, struct bench_env *env, const void *opts)
{
	const struct common_opts *c = env_common(env);
	struct result **reps = xcalloc((size_t)c->repeat, sizeof(*reps));
	struct result *merged;
	size_t n = 0;

	for (unsigned i = 0; i < (unsigned)c->repeat; i++) {
		struct result *r = result_new(b->name, NULL);
		mono_ns t0 = clock_mono();

		env->rep = i;
		window_run_begin(env->window);
		b->run(env, opts, r);
		window_run_end(env->window);
		r->duration_s = elapsed_s(t0, clock_mono());
		if (*env->stop && !(b->flags & BENCH_UNTIL_SIGNAL)) {
			r->incomplete = true;
			/* Why it stopped early, for history and show (an ok result has no other reason). */
			if (!r->reason)
				r->reason = xasprintf("stopped by %s", signal_name((int)*env->stop));
		}
		reps[n++] = r;
		if (r->status != RESULT_OK || *env->stop)
			break;
	}
	if (n == 1) {
		merged = reps[0];
	} else {
		merged = result_merge_reps(reps, n);
		for (size_t i = 0; i < n; i++)
			result_free(reps[i]);
	}
	free(reps);
	return merged;
}

/*
 * Writes the limits discovered for the step into RES's method block, each
 * with where it came from; a limit that could not be read says why. The
 * per-device and per-interface ones only when the step had one.
 */
static void method_limits(struct result *res, const struct limits *l)
{
	const struct {
		const char *key, *unit;
		const struct limit *lim;
		bool show;
	} k[] = {
		{ "limit cpu quota", "cpus", &l->cpu_quota, true },
		{ "limit cpu weight", "", &l->cpu_weight, l->cpu_weight.state == LIMIT_SET },
		{ "limit nice", "", &l->nice, l->nice.state == LIMIT_SET },
		{ "limit cpus allowed", "", &l->cpuset, true },
		{ "limit memory", "bytes", &l->mem_max, true },
		{ "limit memory high", "bytes", &l->mem_high, l->mem_high.state != LIMIT_NONE },
		{ "limit swap", "bytes", &l->swap_max, l->swap_max.state == LIMIT_SET },
		{ "limit io read", "bytes/s", &l->io_rbps, l->io_dev[0] },
		{ "limit io write", "bytes/s", &l->io_wbps, l->io_dev[0] },
		{ "limit io read iops", "", &l->io_riops, l->io_dev[0] && l->io_riops.state == LIMIT_SET },
		{ "limit io write iops", "", &l->io_wiops, l->io_dev[0] && l->io_wiops.state == LIMIT_SET },
		{ "limit shaper", "bits/s", &l->shaper, l->iface[0] },
		{ "limit shaper (ingress)", "bits/s", &l->shaper_in, l->iface[0] },
		{ "limit link", "bits/s", &l->link, l->iface[0] },
		{ "limit mtu", "bytes", &l->mtu, l->iface[0] },
		{ "limit memlock", "bytes", &l->memlock, true },
		{ "limit nofile", "", &l->nofile, true },
	};
	char buf[320];

	for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++) {
		if (!k[i].show)
			continue;
		limit_describe(k[i].lim, k[i].unit, buf, sizeof(buf));
		result_method(res, k[i].key, "%s", buf);
		/* The quota's usage is read from the group that holds it, or is unknown: say which. */
		if (k[i].lim == &l->cpu_quota && l->cpu_quota.state == LIMIT_SET && l->cpu_usage_source[0])
			result_method(res, "limit cpu quota usage", "%s", l->cpu_usage_source);
		/* The peak against the memory limit: the window's own, and how it was taken. */
		if (k[i].lim == &l->mem_max && l->mem_peak_how != LIMITS_PEAK_NONE && l->mem_peak_method[0])
			result_method(res, "limit memory peak", "%s", l->mem_peak_method);
	}
}

/*
 * Makes the sampler S of a closed window (NULL: nothing sampled) RES's
 * system view and judges the verdict over it, unless the benchmark named
 * the limit itself.
 */
static void attach_window(struct result *res, struct sampler *s)
{
	const struct limits *lim = s ? sampler_limits(s) : NULL;

	if (s)
		result_attach_sampler(res, s);
	if (lim)
		method_limits(res, lim);
	/* A skipped or failed step measured nothing to judge. */
	if (!result_has_verdict(res) && res->status == RESULT_OK) {
		struct verdict_input in = { .view = s ? &res->view : NULL, .limits = lim };

		verdict_judge(&in, &res->verdict);
	}
}

/* The MAJ:MIN of the whole disk holding DEV (its sysfs "dev" file). Returns 0 or -errno. */
static int whole_disk_devnum(const struct blkdev_info *dev, unsigned *maj, unsigned *min)
{
	char path[PATH_MAX + 8], line[32];
	int r;

	snprintf(path, sizeof(path), "%s/dev", dev->disk_dir);
	if ((r = proc_read_line(path, line, sizeof(line))) < 0)
		return r;
	return proc_devnum_parse(line, maj, min);
}

/* The block device called NAME in /proc/diskstats ("vda1", "loop3"), from its sysfs "dev" file. */
static int blkdev_from_name(const char *name, struct blkdev_info *out)
{
	char path[PATH_MAX], line[32];
	unsigned maj, min;
	int r;

	if (strchr(name, '/'))
		return -EINVAL;
	snprintf(path, sizeof(path), "/sys/class/block/%s/dev", name);
	if ((r = proc_read_line(path, line, sizeof(line))) < 0)
		return r;
	if (proc_devnum_parse(line, &maj, &min))
		return -EINVAL;
	return blkdev_from_devnum(NULL, maj, min, out);
}

/*
 * Runs one step in its measurement window and judges its verdict. The
 * capability flags act here: BENCH_BLOCKDEV samples the TARGET's device
 * (or the device of the benchmark's device_path(), e.g. a scratch mount),
 * BENCH_NETWORK ignores SIGPIPE while the benchmark runs.
 */
static struct result *run_step(const struct bench *b, struct bench_env *env, const void *opts)
{
	const struct common_opts *c = env_common(env);
	struct sampler_config cfg = { .proc_root = "/proc", .interval_ns = c->interval_ns };
	struct sigaction ign = { .sa_handler = SIG_IGN }, pipe_old;
	struct blkdev_info dev, named;
	struct result *res;

	struct limits_config lcfg = { 0 };
	const char *devpath = b->device_path ? b->device_path(opts) : NULL;
	mono_ns t0 = clock_mono();

	if (!devpath)
		devpath = env->npos ? env->pos[0] : ".";
	if ((b->flags & BENCH_BLOCKDEV) && blkdev_from_path(NULL, devpath, &dev) == 0) {
		cfg.disk = dev.name;
		/* Throttles are set on the whole disk. */
		if (whole_disk_devnum(&dev, &lcfg.dev_major, &lcfg.dev_minor) == 0)
			lcfg.dev_name = dev.disk;
	}
	if (b->sample_config)
		b->sample_config(opts, env->step, &cfg);
	/*
	 * A benchmark that names a device in sample_config() (download URL
	 * DIR's, watch --disk DEV's): its whole disk's throttles are looked
	 * up too, for the work's cgroup.
	 */
	if (!lcfg.dev_name && cfg.disk && (!(b->flags & BENCH_BLOCKDEV) || cfg.disk != dev.name) &&
	    blkdev_from_name(cfg.disk, &named) == 0 && whole_disk_devnum(&named, &lcfg.dev_major, &lcfg.dev_minor) == 0)
		lcfg.dev_name = named.disk;
	/* The work: the watched process (watch --pid), else engpass's own threads. */
	cfg.work_pid = cfg.pid ? cfg.pid : getpid();
	cfg.others = true;
	cfg.state_interval_ns = c->no_states ? UINT64_MAX : c->state_interval_ns;
	if (!c->no_states && !c->state_interval_ns && (b->flags & BENCH_LOW_NOISE))
		cfg.state_interval_ns = cfg.interval_ns;
	/*
	 * The work's child processes are part of it under a watched process
	 * (nginx's workers under the master), and under engpass when its
	 * benchmark says so (mem --ladder's measuring child).
	 */
	cfg.state_children = cfg.pid != 0 || (b->flags & BENCH_CHILD_WORK);
	cfg.state_own = cfg.pid == 0;
	lcfg.pid = cfg.work_pid;
	cfg.limits = &lcfg;
	if (env_runner(env)->call->stream) {
		cfg.on_sample = stream_on_sample;
		cfg.on_sample_arg = env_runner(env)->call->stream;
	}
	env->window = window_new(&cfg, !c->no_sample);
	if ((b->flags & BENCH_NETWORK) && sigaction(SIGPIPE, &ign, &pipe_old) < 0)
		pipe_old.sa_handler = SIG_ERR;	/* nothing to restore */
	res = run_reps(b, env, opts);
	if ((b->flags & BENCH_NETWORK) && pipe_old.sa_handler != SIG_ERR)
		(void)sigaction(SIGPIPE, &pipe_old, NULL);
	attach_window(res, window_take(env->window));
	if (!res->time_ns)
		res->time_ns = clock_wall_ns();
	window_free(env->window);
	env->window = NULL;
	res->wall_s = elapsed_s(t0, clock_mono());
	return res;
}

struct result *bench_call_probe(struct bench_call *c, const struct bench_env *env, const void *opts,
				uint64_t time_ns)
{
	struct bench_call pc = *c;
	struct runner rn = { .env = *env, .common = &pc.common, .call = &pc };
	struct result *res;

	pc.stream = NULL;
	pc.csv = NULL;
	pc.common.repeat = 1;
	pc.common.no_sample = true;
	pc.common.no_states = true;
	pc.common.verify = false;
	if (!(c->b->flags & BENCH_NO_TIME)) {
		pc.common.time_ns = time_ns;
		rn.env.time_ns = time_ns;
	}
	rn.env.sample = false;
	rn.env.window = NULL;
	res = run_step(c->b, &rn.env, opts);
	return res;
}

/*
 * Checks before anything runs that FILE's directory exists and is
 * writable, so --prom to an unwritable path is a usage error. Returns 0 or
 * -errno.
 */
static int prom_check(const char *file)
{
	char *dir = xstrdup(file), *slash = strrchr(dir, '/');
	int r = 0;

	if (slash == dir)
		slash[1] = 0;
	else if (slash)
		*slash = 0;
	if (access(slash ? dir : ".", W_OK) < 0)
		r = -errno;
	free(dir);
	return r;
}

static void render(const struct bench_call *call, const struct run *run)
{
	const struct common_opts *c = &call->common;

	switch (c->format) {
	case FORMAT_JSON:
		render_json(stdout, run, true, true);
		break;
	case FORMAT_CSV:
		/* After emitted results: their header's rows, not a second header. */
		if (call->csv)
			for (size_t i = 0; i < run->nresults; i++)
				csv_row(stdout, run, run->results[i], call->csv);
		else
			render_csv(stdout, run);
		break;
	case FORMAT_JSONL:
		render_json_event(stdout, "end", run, true);
		break;
	default:
		render_text(stdout, run, c->details ? RENDER_DETAILS : 0);
		break;
	}
	fflush(stdout);
}

/* bench_env.emit: render one result now, on its own. */
static void emit_now(const struct bench_env *env, struct result *r)
{
	const struct common_opts *c = env_common(env);
	struct bench_call *call = env_runner(env)->call;
	struct run *run = run_new(ENGPASS_VERSION, 0, NULL);

	attach_window(r, window_take(env->window));
	if (!r->time_ns)
		r->time_ns = clock_wall_ns();
	run_add(run, r);
	switch (c->format) {
	case FORMAT_JSON:
		render_json(stdout, run, false, false);
		break;
	case FORMAT_JSONL:
		flockfile(stdout);
		render_json_event(stdout, "result", run, false);
		funlockfile(stdout);
		break;
	case FORMAT_CSV:
		/*
		 * The header of the first result's columns, once; a later
		 * result's other figures, and those of the command's closing
		 * result (render_rows), are left out.
		 */
		if (!call->csv) {
			call->csv = xcalloc(1, sizeof(*call->csv));
			csv_cols_init(call->csv, run);
			csv_header(stdout, call->csv);
		}
		csv_row(stdout, run, r, call->csv);
		break;
	default:
		render_text(stdout, run, c->details ? RENDER_DETAILS : 0);
		break;
	}
	fflush(stdout);
	run_free(run);
}


/* Most verbs a benchmark may have: the option groups are its verbs', its own and the common table. */
#define MAX_VERBS (OPT_SEEN_GROUPS - 2)

/* "'server' or 'client HOST'": the verbs of B as a usage hint. */
static void verbs_hint(const struct bench *b, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = 0;
	for (size_t i = 0; b->verbs[i].name && n < len; i++) {
		const struct bench_verb *v = &b->verbs[i];

		n += (size_t)snprintf(buf + n, len - n, "%s'%s%s%s'", !i ? "" : b->verbs[i + 1].name ? ", " : " or ",
				      v->name, v->args[0] ? " " : "", v->args);
	}
}

/*
 * The verb named by the first positional argument, with the options given
 * that belong to another verb refused. Returns 0, or -EINVAL with ERR.
 */
static int pick_verb(const struct bench *b, const struct opt_seen *seen, char **pos, size_t npos,
		     const struct bench_verb **out, char *err, size_t errlen)
{
	char hint[160];
	size_t k;

	verbs_hint(b, hint, sizeof(hint));
	if (!npos) {
		snprintf(err, errlen, "expected %s", hint);
		return -EINVAL;
	}
	for (k = 0; b->verbs[k].name && strcmp(b->verbs[k].name, pos[0]); k++)
		;
	if (!b->verbs[k].name) {
		struct opt_suggest sg;

		opt_suggest_init(&sg, pos[0]);
		for (size_t i = 0; b->verbs[i].name; i++)
			opt_suggest_add(&sg, "", b->verbs[i].name);
		if (sg.n)
			snprintf(err, errlen, "unknown command '%s': did you mean %s?", pos[0], sg.text);
		else
			snprintf(err, errlen, "unknown command '%s': expected %s", pos[0], hint);
		return -EINVAL;
	}
	for (size_t g = 0; b->verbs[g].name; g++) {
		const struct opt *t = b->verbs[g].opts;

		if (g == k || !t)
			continue;
		for (size_t i = 0; t[i].name; i++) {
			if (opt_was_seen(seen, g, i)) {
				snprintf(err, errlen, "option '--%s' is for the %s", t[i].name, b->verbs[g].name);
				return -EINVAL;
			}
		}
	}
	*out = &b->verbs[k];
	return 0;
}

int bench_parse(const struct bench *b, int argc, char **argv, void *opts, struct common_opts *c, char **pos,
		struct bench_env *env, char *err, size_t errlen)
{
	static const struct opt no_opts[] = { OPT_END };
	struct opt_group groups[MAX_VERBS + 2];
	const struct bench_verb *verb = NULL;
	struct opt_seen seen;
	size_t ng = 0, npos = 0;

	/* Every verb's table, then the benchmark's own, then the common options. */
	for (size_t i = 0; b->verbs && b->verbs[i].name; i++) {
		if (ng == MAX_VERBS) {
			/* A broken descriptor, not a user's mistake. */
			fprintf(stderr, "BUG: benchmark '%s' has more than %d verbs\n", b->name, MAX_VERBS);
			abort();
		}
		groups[ng++] = (struct opt_group){ b->verbs[i].opts ? b->verbs[i].opts : no_opts, opts };
	}
	groups[ng++] = (struct opt_group){ b->opts ? b->opts : no_opts, opts };
	groups[ng++] = (struct opt_group){ common_opts_table, c };
	memset(env, 0, sizeof(*env));
	common_opts_defaults(c);
	if (b->defaults)
		b->defaults(opts);
	if (opt_parse(argc, argv, groups, ng, ncpu_configured(), pos, BENCH_MAX_POS, &npos, &seen, err, errlen))
		return -EINVAL;
	if (c->help) {
		/* Help for the verb named, if one is. */
		if (b->verbs && npos && pick_verb(b, &seen, pos, npos, &verb, err, errlen) == 0)
			env->verb = verb;
		return 0;
	}
	if (b->verbs && pick_verb(b, &seen, pos, npos, &verb, err, errlen))
		return -EINVAL;
	/* --json and --json-stream are spellings of --format: two that disagree are a mistake. */
	if ((c->json && c->json_stream) ||
	    ((c->json || c->json_stream) && opt_was_seen(&seen, ng - 1, common_index("format")) &&
	     c->format != (c->json ? FORMAT_JSON : FORMAT_JSONL))) {
		snprintf(err, errlen, "options '--json', '--json-stream' and '--format' name different formats");
		return -EINVAL;
	}
	if (c->json)
		c->format = FORMAT_JSON;
	if (c->json_stream)
		c->format = FORMAT_JSONL;
	c->pin_set = opt_was_seen(&seen, ng - 1, common_index("pin"));
	if ((b->flags & BENCH_NO_TIME) && opt_was_seen(&seen, ng - 1, common_index("time"))) {
		snprintf(err, errlen, "option '--time': %s steps take as long as their size costs; "
			 "set their sizes instead", b->name);
		return -EINVAL;
	}
	*env = (struct bench_env){
		.time_ns = c->time_ns, .interval_ns = c->interval_ns, .sample = !c->no_sample,
		.pin = c->pin_set ? &c->pin : NULL, .pos = pos, .npos = npos, .verb = verb,
		.sys_root = sys_root(),
	};
	/* Nothing to point a BENCH_NO_IO benchmark at; without check() no argument is expected. */
	if (npos && ((b->flags & BENCH_NO_IO) || !b->check)) {
		snprintf(err, errlen, "unexpected argument '%s'", pos[0]);
		return -EINVAL;
	}
	return b->check && b->check(opts, env, err, errlen) ? -EINVAL : 0;
}

void bench_call_release(struct bench_call *c)
{
	free(c->opts);
	c->opts = NULL;
	if (c->csv) {
		csv_cols_release(c->csv);
		free(c->csv);
		c->csv = NULL;
	}
}

int bench_call_prepare(struct bench_call *c, const struct bench *b, int argc, char **argv, char *err,
		       size_t errlen)
{
	int r;

	memset(c, 0, sizeof(*c));
	c->b = b;
	c->opts = xcalloc(1, b->opts_size ? b->opts_size : 1);
	c->ncpu = ncpu_configured();
	if (bench_parse(b, argc, argv, c->opts, &c->common, c->pos, &c->env, err, errlen))
		return -EINVAL;
	if (c->common.help)
		return 1;
	if (c->common.prom && (r = prom_check(c->common.prom)) < 0) {
		snprintf(err, errlen, "option '--prom': cannot write into the directory of '%s': %s", c->common.prom,
			 strerror(-r));
		return -EINVAL;
	}
	return 0;
}

int bench_call_run(struct bench_call *c, struct tmpfile_reg *tmp, volatile sig_atomic_t *stop, struct run *run,
		   char *err, size_t errlen)
{
	const struct bench *b = c->b;
	struct progress progress;
	struct runner rn;
	struct bench_env *env = &rn.env;
	cpu_set_t before;
	bool pinned = false, set_up = true;
	struct result *res;
	size_t first;
	int r;

	if (b->unsupported_reason) {
		res = result_new(b->name, NULL);
		result_set_status(res, RESULT_SKIPPED, "built without support: %s", b->unsupported_reason);
		run_add(run, res);
		return 0;
	}
	if ((b->flags & BENCH_NEEDS_ROOT) && geteuid() != 0) {
		res = result_new(b->name, NULL);
		result_set_status(res, RESULT_SKIPPED, "needs root");
		run_add(run, res);
		return 0;
	}
	if (c->common.pin_set) {
		/* Pinned for this call only: a caller that runs more calls gets its CPUs back. */
		pinned = affinity_get_self(&before) == 0;
		if ((r = affinity_pin_self(&c->common.pin)) < 0) {
			snprintf(err, errlen, "cannot pin to the CPUs given with --pin: %s", strerror(-r));
			return r;
		}
	}
	progress_init(&progress, stderr, !c->common.quiet && isatty(2), b->name);
	progress.say = !c->common.quiet;
	/* What bench_parse() gave check(), and what a run needs besides. */
	rn = (struct runner){ .env = c->env, .common = &c->common, .call = c };
	env->tmp = (b->flags & BENCH_NO_IO) ? NULL : tmp;
	env->progress = &progress;
	env->ncpu = c->ncpu;
	env->stop = stop;
	env->emit = emit_now;
	first = run->nresults;
	if (b->setup) {
		struct result *sres = result_new(b->name, NULL);

		set_up = b->setup(c->opts, env, sres) == 0;
		if (set_up)
			result_free(sres);
		else
			run_add(run, sres);
	}
	for (size_t i = 0, n = b->nsteps ? b->nsteps(c->opts) : 1; set_up && i < n && !*stop; i++) {
		env->step = (unsigned)i;
		progress_percent_reset(&progress);
		progress_step(&progress, clock_mono(), i, n, c->common.time_ns, (unsigned)c->common.repeat);
		if (c->stream)
			stream_step(c->stream, (unsigned)run->nresults, b->name, &progress);
		run_add(run, run_step(b, env, c->opts));
		if (c->common.verify && !*stop)
			verify_step(c, env, run->results[run->nresults - 1], stop);
	}
	/* The progress line goes with this call: later intervals carry none. */
	if (c->stream)
		stream_step(c->stream, (unsigned)run->nresults, b->name, NULL);
	progress_finish(&progress);
	/*
	 * What the benchmark left behind goes now, not when the caller's
	 * registry does; a file that cannot be removed stays registered for it.
	 */
	r = tmpfile_remove_all(tmp);
	if (b->teardown) {
		struct result *own = run->nresults > first ? NULL : result_new(b->name, NULL);

		b->teardown(c->opts, env, own ? own : run->results[run->nresults - 1]);
		if (own && (own->status != RESULT_OK || own->nnotes))
			run_add(run, own);
		else
			result_free(own);
	}
	/* Back on the CPUs the caller had (which it was allowed before, so this cannot fail but for a hot unplug). */
	if (pinned)
		r = affinity_pin_self(&before);
	(void)r;
	return 0;
}

void run_collect_info(struct run *run)
{
	/* The box as the result's context: no calibration loop, it would cost time. */
	struct sysinfo_opts so = { .proc_root = "/proc", .sys_root = "/sys", .calibrate = false,
				   .probe_uring = true };

	run->info = xcalloc(1, sizeof(*run->info));
	if (sysinfo_collect(run->info, &so) < 0) {
		free(run->info);
		run->info = NULL;
	}
}

int cmd_bench(const struct bench *b, int argc, char **argv)
{
	struct bench_call call;
	char err[256];
	struct tmpfile_reg *tmp;
	static volatile sig_atomic_t stop;
	struct run *run;
	bool failed = false, table;
	size_t nfailed = 0;
	int rc = EXIT_OK, r;

	r = bench_call_prepare(&call, b, argc, argv, err, sizeof(err));
	if (r) {
		bench_call_release(&call);
		if (r > 0) {
			help_bench(stdout, b, call.env.verb);
			return EXIT_OK;
		}
		return usage_error(b->name, "%s", err);
	}
	tmp = tmpfile_reg_new();
	if ((r = tmpfile_install_handlers(tmp)) < 0) {
		tmpfile_reg_free(tmp);
		bench_call_release(&call);
		fprintf(stderr, "engpass %s: cannot install signal handlers: %s\n", b->name, strerror(-r));
		return EXIT_MEASURE_FAILED;
	}
	tmpfile_set_stop_flag(tmp, &stop);
	run = run_new(ENGPASS_VERSION, argc + 1, argv - 1);
	if (call.common.format == FORMAT_JSONL) {
		render_json_start(stdout, run);
		/* Without its writer the stream still ends with the document; the intervals are missing. */
		if (!call.common.no_sample && !(call.stream = stream_start(stdout)))
			fprintf(stderr, "engpass %s: cannot start the interval writer; only the document follows\n",
				b->name);
	}
	r = bench_call_run(&call, tmp, &stop, run, err, sizeof(err));
	if (call.stream) {
		unsigned long dropped = stream_stop(call.stream);

		call.stream = NULL;
		if (dropped)
			fprintf(stderr, "engpass %s: %lu intervals not streamed: stdout was not read fast enough\n",
				b->name, dropped);
	}
	if (r < 0) {
		run_free(run);
		tmpfile_reg_free(tmp);
		bench_call_release(&call);
		return usage_error(b->name, "%s", err);
	}
	/* Removes what the benchmark left and restores the default signal actions. */
	tmpfile_reg_free(tmp);

	run_collect_info(run);
	for (size_t i = 0; i < run->nresults; i++)
		nfailed += run->results[i]->status == RESULT_FAILED;
	table = call.common.format == FORMAT_TABLE;
	/*
	 * A table of nothing but failures would repeat the reasons said on
	 * stderr below: a run that only failed is its error lines. JSON, CSV
	 * and the stream's end are always written whole.
	 */
	if (!table || !run->nresults || nfailed < run->nresults)
		render(&call, run);
	if (call.common.prom && (r = prom_write(call.common.prom, run)) < 0) {
		fprintf(stderr, "engpass %s: cannot write '%s': %s\n", b->name, call.common.prom, strerror(-r));
		failed = true;
	}
	/* A run that could not be stored is still a measurement: a warning, not a failure. */
	if (!call.common.no_history)
		(void)cmd_store_run(b->name, run, call.common.db);
	/*
	 * Each failure is said once: on stderr, unless the table printed
	 * OK steps too and with them the failed steps' reasons.
	 */
	if (table && nfailed && nfailed < run->nresults)
		fprintf(stderr, "engpass %s: %zu of %zu steps failed; the table says why\n", b->name, nfailed,
			run->nresults);
	for (size_t i = 0; i < run->nresults && (!table || nfailed == run->nresults); i++) {
		if (run->results[i]->status == RESULT_FAILED)
			fprintf(stderr, "engpass %s: failed: %s\n", b->name,
				run->results[i]->reason ? run->results[i]->reason : "unknown error");
	}
	if (failed || nfailed)
		rc = EXIT_MEASURE_FAILED;
	if (stop && !(b->flags & BENCH_UNTIL_SIGNAL)) {
		fprintf(stderr, "engpass %s: stopped by signal %d; the figures cover what ran\n", b->name, (int)stop);
		rc = 128 + (int)stop;
	}
	run_free(run);
	bench_call_release(&call);
	return rc;
}
