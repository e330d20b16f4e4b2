/* SPDX-License-Identifier: MIT */
/*
 * The benchmark interface and the one registry of benchmarks. Each
 * benchmark is a folder src/bench/NAME/ whose NAME.c exports exactly one
 * `const struct bench bench_NAME` written with designated initializers;
 * everything else in it is static or private to the folder. Adding a
 * benchmark touches three places: its folder (with its own meson.build),
 * one line of BENCHES below, and one subdir() in src/bench/meson.build
 * (docs/architecture.md has the recipe).
 *
 * A benchmark never prints and never exits: it fills the result it is
 * given (metrics, method, notes, status). The command layer parses its
 * options from its table, runs it (repeatedly for --repeat) under the
 * sampler, judges the verdict and renders.
 */
#ifndef ENGPASS_BENCH_H
#define ENGPASS_BENCH_H

#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "lib/opt.h"
#include "core/result/result.h"
#include "core/observe/sampler.h"

struct progress;
struct sysinfo;
struct tmpfile_reg;
struct window;

/*
 * The registry: one X(name) per benchmark. The minimal router build
 * (-Dminimal=true) registers only those of its commands; the others are
 * named in cmd_not_built (src/cli/commands.c), which says so when called.
 */
#if ENGPASS_MINIMAL
#define BENCHES(X) \
	X(disk) \
	X(mem) \
	X(latency) \
	X(net) \
	X(null)
#else
#define BENCHES(X) \
	X(disk) \
	X(mem) \
	X(latency) \
	X(net) \
	X(cpu) \
	X(watch) \
	X(fetch) \
	X(download) \
	X(null)
#endif

/*
 * Capabilities the command layer acts on (never on names); `engpass list`
 * shows them.
 */
enum bench_flags {
	BENCH_NEEDS_ROOT = 1 << 0,	/* skipped with a reason when not root */
	/*
	 * Measures the block device its TARGET (the first positional
	 * argument, default ".") is or lives on: the runner resolves that
	 * device and samples it instead of the busiest disk (sample_config()
	 * may still name another: a benchmark whose TARGET is not its first
	 * argument names its device there, and the runner then looks up
	 * that device's throttles too).
	 */
	BENCH_BLOCKDEV = 1 << 1,
	/*
	 * Opens sockets: the runner ignores SIGPIPE while it runs, so a write,
	 * send or sendfile() to a vanished peer is an EPIPE error the
	 * benchmark reports, never the death of the process.
	 */
	BENCH_NETWORK = 1 << 2,
	/* May write to what it is pointed at (it asks for --destructive itself); shown by `list`. */
	BENCH_DESTRUCTIVE = 1 << 3,
	/*
	 * Touches no files or devices: the runner refuses positional
	 * arguments (there is nothing to point it at) and hands it no
	 * temp-file registry (env->tmp is NULL).
	 */
	BENCH_NO_IO = 1 << 4,
	/*
	 * Runs until a signal ends it (a watch without --time, like ping):
	 * SIGINT/SIGTERM is the normal end, the benchmark says itself whether
	 * its result is incomplete, and the exit status is the ordinary one.
	 */
	BENCH_UNTIL_SIGNAL = 1 << 5,
	/* Has no use for --time (its steps take as long as their size costs): refuse it. */
	BENCH_NO_TIME = 1 << 6,
	/*
	 * Its child processes do the work (mem --ladder's measuring child):
	 * the time budget follows them. Without it engpass's children are
	 * not the work (latency's loads, quick's net server peer).
	 */
	BENCH_CHILD_WORK = 1 << 7,
	/*
	 * Measures scheduling latency: the work's thread states are sampled
	 * with the system snapshots (--interval), not at their own 100 Hz,
	 * so that engpass's observer adds no wake-ups of its own to what is
	 * measured (unless --state-interval is given).
	 */
	BENCH_LOW_NOISE = 1 << 8,
};

/*
 * A verb of a benchmark that has subcommands (`net server`, `net client
 * HOST`). The first positional argument names it; its option table joins
 * the benchmark's shared one (both fill the same private struct), so an
 * option may come before or after the verb. An option of another verb's
 * table is a usage error that names the verb it belongs to ("option
 * '--bind' is for the server"), and `engpass NAME VERB --help` shows the
 * verb's options only. An option name appears in one table only: options
 * every verb takes go into the benchmark's shared table.
 */
struct bench_verb {
	const char *name;	/* "client" */
	const char *args;	/* its positional arguments, e.g. "HOST"; "" none */
	const char *summary;	/* one line for the benchmark's --help */
	const struct opt *opts;	/* the verb's own options, OPT_END terminated; NULL = none */
};

/* What a running benchmark may use; owned by the command layer. */
struct bench_env {
	/*
	 * The common options a benchmark may read (the command layer parses
	 * them; the output options are none of a benchmark's business).
	 */
	uint64_t time_ns;	/* --time: 0 = the benchmark's default */
	uint64_t interval_ns;	/* --interval: the sampling interval */
	bool sample;		/* false with --no-sample: do not sample the system */
	const cpu_set_t *pin;	/* --pin: the CPUs given, NULL without --pin */
	char **pos;		/* positional arguments after the command (the verb first) */
	size_t npos;
	const struct bench_verb *verb;	/* the verb given (pos[0]); NULL for a benchmark without verbs */
	struct tmpfile_reg *tmp;	/* register temp files here; NULL for BENCH_NO_IO */
	struct progress *progress;	/* stderr progress; may be disabled */
	int ncpu;		/* CPUs configured */
	/*
	 * Where the box's description is read from: "/sys", or the tree
	 * $ENGPASS_SYS_ROOT names (a fixture: another box's cache sizes, for
	 * tests). Set for check() too. The sampler always reads /sys.
	 */
	const char *sys_root;
	unsigned step;		/* step index, 0-based (see bench.nsteps) */
	unsigned rep;		/* repetition index, 0-based */
	/*
	 * The step's measurement window (core/observe/window.h), sampled by the
	 * runner's one sampler. Without marks it is the whole run(); a
	 * benchmark that measures only part of it marks that part with
	 * window_begin()/window_end() (per repetition, per test served) and
	 * reads the system view of it with window_view() for figures of its
	 * own. The runner attaches the window to the result and judges the
	 * verdict over it; emit() attaches the window marked since the last
	 * emit to the result it emits.
	 */
	struct window *window;
	/*
	 * Set to the signal number when SIGINT/SIGTERM/SIGHUP asked the run
	 * to stop. A benchmark polls it in its loops (blocking calls return
	 * EINTR), stops, keeps what it measured and marks the result
	 * incomplete; the runner then renders, cleans up and exits 128 + sig.
	 */
	volatile sig_atomic_t *stop;
	/*
	 * For long-running commands (a server serving test after test, a
	 * watch printing intervals): hands one finished result to the
	 * renderer now instead of at the end. Takes ownership of R. The
	 * window marked since the previous emit (or, unmarked, the time since
	 * then) becomes R's system view, and the verdict is judged over it
	 * unless R has one. The result is rendered alone, in the chosen
	 * format (JSON: one compact document per line), and stdout is
	 * flushed.
	 */
	void (*emit)(const struct bench_env *env, struct result *r);
};

/*
 * A benchmark's part of `engpass quick`, the whole-box profile
 * (src/cli/cmd_quick.c runs it, docs/quick.md describes it): a few runs of
 * the benchmark with fixed arguments, and a hook that turns their results
 * into plain sentences. quick knows no benchmark's step or metric names;
 * what it runs and says comes from these declarations.
 */
#define BENCH_QUICK_MAXARGS 16

struct bench_quick_step {
	const char *group;	/* the part of the profile, the name --skip takes ("disk") */
	int order;		/* where the part runs in the profile: lower first; ties keep registry order */
	const char *why;	/* one line for the progress and --help: what the step shows */
	/* The arguments after the benchmark's name; "@PORT" stands for a free loopback port. */
	const char *args[BENCH_QUICK_MAXARGS];
	const char *label;	/* appended to the step names of its results, or NULL */
	const char *needs_root;	/* why the step needs root ("a swap file"), NULL = it does not */
	/*
	 * For quick's ETA: what the step takes beyond its declared --time x
	 * its steps (a warm-up per step, a data file's fill), or all it takes
	 * when it declares no --time (a ladder rung's size sets its length),
	 * in ms, as measured on the development VM. 0 = nothing beyond --time.
	 */
	unsigned extra_ms;
	/*
	 * A peer the step talks to: the arguments of an engpass command
	 * ("@PORT" as above) that quick starts as its own process before the
	 * step, output discarded, and ends after it (it should end by itself,
	 * e.g. `net server --one-off`; else SIGTERM). Empty = none.
	 */
	const char *peer[BENCH_QUICK_MAXARGS];
};

/* One result of a benchmark's quick steps, as its findings hook sees it. */
struct bench_quick_result {
	size_t step;			/* index into bench_quick.steps */
	const struct result *res;	/* status ok */
};

#define BENCH_FINDINGS_MAX 16

/* The sentences a findings hook gives back; initialize with { 0 }. */
struct bench_findings {
	char *line[BENCH_FINDINGS_MAX];	/* owned, one plain sentence each, no newline */
	size_t n;
};

struct bench_quick {
	const struct bench_quick_step *steps;
	size_t nsteps;
	/*
	 * The findings about this benchmark's figures: R holds the ok results
	 * of its steps that ran (N of them, in order). Each sentence says what
	 * it compares and is only added when its figures exist. Must not
	 * print. NULL = no findings.
	 */
	void (*findings)(const struct bench_quick_result *r, size_t n, struct bench_findings *out);
};

/* Adds one formatted sentence to F (copied); beyond BENCH_FINDINGS_MAX it is dropped. */
void bench_finding(struct bench_findings *f, const char *fmt, ...) PRINTF_LIKE(2, 3);
/* Frees F's sentences; F is empty again. */
void bench_findings_release(struct bench_findings *f);
/*
 * The first of R's results that came from quick step STEP and, unless
 * NAME is NULL, whose step name is NAME; NULL when there is none.
 */
const struct result *bench_quick_find(const struct bench_quick_result *r, size_t n, size_t step, const char *name);
/* Metric NAME of RES (the median); NAN when RES is NULL or has no such metric. */
double bench_quick_metric(const struct result *res, const char *name);

/*
 * What a --verify probe relaxes (docs/verdict.md "Checking the verdict"):
 * the benchmark's relax() hook fills it beside the probe's options.
 */
struct bench_relax {
	char what[64];		/* the verdict line's words: "2 streams", "2 requests in flight" */
	char params[96];	/* the changed options as typed: "--parallel 2" */
	char why[192];		/* when it cannot relax the candidate: why not, here */
	/*
	 * The figures compared when not the step's headline in both: the
	 * step's (BASE) and the probe's (PROBE, "" = BASE): cpu compares the
	 * work per wall second (its headline is per CPU-second, which a second
	 * thread does not move), mem one thread's triad with two threads'
	 * together. "" = the headline.
	 */
	char base_metric[32];
	char probe_metric[32];
};

struct bench {
	const char *name;
	const char *summary;		/* one line for `engpass --help` */
	const char *usage;		/* e.g. "[TARGET] [options]" */
	const char *description;	/* paragraph for `engpass NAME --help` */
	unsigned flags;			/* enum bench_flags */
	const struct opt *opts;		/* option table (with verbs: the options every verb takes), OPT_END terminated */
	/*
	 * The verbs, NULL-name terminated; NULL = none. With verbs, a command
	 * needs one, and check() sees env->verb set.
	 */
	const struct bench_verb *verbs;
	size_t opts_size;		/* sizeof the private options struct */
	/* Fills defaults into a zeroed options struct; NULL = all zero. */
	void (*defaults)(void *opts);
	/*
	 * Checks positional arguments (env->pos, env->npos) and option
	 * combinations before anything runs, with the common options in ENV
	 * (time_ns, interval_ns, sample, pin); nothing else of ENV is set yet.
	 * Returns 0, or -EINVAL with a one-line message in ERR (a usage error:
	 * exit status 2). NULL = no positional arguments allowed.
	 */
	int (*check)(void *opts, const struct bench_env *env, char *err, size_t errlen);
	/*
	 * Number of steps this invocation runs (e.g. disk -T and -t); each
	 * step is its own result with its own system view and verdict. NULL
	 * means one step. Called after check().
	 */
	size_t (*nsteps)(const void *opts);
	/*
	 * Adjusts the sampler for STEP: the disk, interface or process the
	 * step is about (default: the busiest of each, no process). NULL =
	 * defaults.
	 */
	void (*sample_config)(const void *opts, unsigned step, struct sampler_config *cfg);
	/*
	 * What the steps of one invocation share and the sampler must see
	 * from the first window on (disk --fs: a scratch file system on a
	 * loop device). setup() runs once after check(), before the first
	 * step, with ENV as run() gets it (env->step 0); it returns 0, or
	 * -errno with RES (a result of its own, added to the run) failed with
	 * the reason, and then no step runs. teardown() runs always: after
	 * the last step, after a failed setup and after a stop, once the
	 * temp files are removed; what it could not undo it says on RES (the
	 * invocation's last result, or one of its own, added when it has
	 * something to say). NULL = none.
	 */
	int (*setup)(void *opts, const struct bench_env *env, struct result *res);
	void (*teardown)(void *opts, const struct bench_env *env, struct result *res);
	/*
	 * BENCH_BLOCKDEV: the path whose block device the runner samples, when
	 * it is not TARGET (disk --fs: the scratch mount). Called per step,
	 * after setup(); NULL (or a NULL return) = TARGET.
	 */
	const char *(*device_path)(const void *opts);
	/*
	 * Runs one repetition of step env->step into RES (status ok by default). Sets
	 * RESULT_SKIPPED or RESULT_FAILED with a reason when it cannot give a
	 * figure. Must not print.
	 */
	void (*run)(const struct bench_env *env, const void *opts, struct result *res);
	/*
	 * --verify: relaxes candidate limiter RESOURCE of the finished step
	 * RES (env->step, run with OPTS) in PROBE, a copy of OPTS, changing
	 * only the benchmark's own parameters (one core: a second stream;
	 * round trip: twice the requests in flight; device latency: twice
	 * the queue depth; own pacing: none). Returns 1 with OUT's what and
	 * params when PROBE is to be run; 0 with OUT->why when this
	 * candidate cannot be relaxed here (a method that is the limit, a
	 * peer's setting). Limits configured outside engpass never reach it
	 * (the runner reads their counters). Must not print. NULL = no
	 * probes: every candidate but a configured limit is "not verifiable".
	 */
	int (*relax)(const void *opts, void *probe, const char *resource, const struct result *res,
		     const struct bench_env *env, struct bench_relax *out);
	/* Non-NULL when this build cannot run the benchmark at all. */
	const char *unsupported_reason;
	/* Its part of `engpass quick` (NAME_quick.c); NULL = none. */
	const struct bench_quick *quick;
};

#define BENCH_EXTERN_(n) extern const struct bench bench_##n;
BENCHES(BENCH_EXTERN_)
#undef BENCH_EXTERN_

/* All registered benchmarks, in BENCHES order, NULL terminated. */
extern const struct bench *const bench_table[];

/* Looks a benchmark up by name; NULL when there is none. */
const struct bench *bench_find(const char *name);

#endif
