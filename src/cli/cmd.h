/* SPDX-License-Identifier: MIT */
/*
 * The commands behind the top-level table in main.c. Each takes the
 * arguments after its name and returns the process exit status:
 * 0 ok (also when a benchmark was skipped), 1 measurement failed,
 * 2 usage error. Only this layer prints errors and picks exit codes.
 */
#ifndef ENGPASS_CMD_H
#define ENGPASS_CMD_H

#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "config.h"
#include "bench/bench.h"

#define EXIT_OK 0
#define EXIT_MEASURE_FAILED 1
#define EXIT_USAGE 2

/* meson.build's project version (debian/changelog must match it: tests/cli/install.sh). */
#define ENGPASS_VERSION ENGPASS_VERSION_STRING

enum output_format {
	FORMAT_TABLE,
	FORMAT_JSON,
	FORMAT_CSV,	/* one row per step (out/csv.c) */
	FORMAT_JSONL,	/* JSON lines while running, then the document (--json-stream) */
};

/*
 * Options every benchmark command takes; filled from common_opts_table.
 * The runner hands a benchmark only what it measures by (struct
 * bench_env: time, interval, sampling, pinning); the output and storage
 * options stay here.
 */
struct common_opts {
	bool json;
	bool json_stream;	/* --json-stream: --format jsonl */
	int format;		/* enum output_format; --json and --json-stream folded in */
	bool quiet;
	bool details;		/* -v, --details: the text output's parameters, method and system view */
	uint64_t time_ns;	/* --time: 0 = the benchmark's default */
	int64_t repeat;		/* --repeat N, >= 1 */
	cpu_set_t pin;		/* --pin CPUS */
	bool pin_set;
	uint64_t interval_ns;	/* --interval: sampler interval */
	bool no_sample;		/* --no-sample: do not run the sampler */
	uint64_t state_interval_ns;	/* --state-interval: thread states; 0 = the default (100 Hz) */
	bool no_states;		/* --no-states: no thread-state sampling */
	const char *prom;	/* --prom FILE: also write Prometheus text format */
	bool no_history;	/* --no-history: do not store the run */
	const char *db;		/* --db PATH: history database */
	bool verify;		/* --verify: probe each step's verdict (cli/verify.c) */
	bool help;
};

struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *usage;
	const char *summary;
	/*
	 * Its option table, for the generated manual page and shell
	 * completion (help --man, help --completion); NULL = none.
	 */
	const struct opt *opts;
	/* Its positional arguments are files (completion offers them). */
	bool files;
};

/* The top-level command table, NULL-name terminated (commands.c). */
extern const struct cmd cmd_table[];
/* The commands and benchmarks this build leaves out (NULL terminated; src/cli/commands.c). */
extern const char *const cmd_not_built[];
/* What a left-out one says (after "engpass NAME: "), and -V after "not in this build: ...". */
#define CMD_NOT_BUILT_WHY                                                                                            \
	"not in this build (the minimal router build: net, disk, mem, latency, quick; the engpass-full package has it)"
/* When NAME is one of cmd_not_built: says so on stderr, returns EXIT_MEASURE_FAILED; else -1. */
int cmd_not_built_say(const char *name);

int cmd_info(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_help(int argc, char **argv);
int cmd_version(int argc, char **argv);
int cmd_history(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_fleet(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_quick(int argc, char **argv);

/*
 * Writes the HTML report of RUN to FILE atomically (through its JSON
 * document; SOURCE names where it came from). Returns 0, -ENOTSUP when
 * built without jansson (nothing written), or -errno; *STAGE names the
 * step that failed.
 */
int report_write_run(const char *file, const struct run *run, const char *source, const char **stage);
int cmd_sweep(int argc, char **argv);
int cmd_exporter(int argc, char **argv);

/*
 * Stores RUN in the history database DB (NULL = the default path) through
 * history_store_run(); on failure prints one line on stderr naming CMD and
 * returns -errno. Built without SQLite it stores nothing and returns 0.
 */
int cmd_store_run(const char *cmd, const struct run *run, const char *db);

struct history;
/*
 * Opens the history database DB (NULL = the default path) for a command
 * that reads it; on failure prints one line naming CMD and returns the
 * exit status (2 when there is no database, else 1). Returns -1 with *H
 * open on success.
 */
#if HAVE_SQLITE
int cmd_history_open(const char *cmd, const char *db, struct history **h);
#else
/*
 * Without SQLite it always fails, saying why: the same function under
 * another name, and this inline wrapper that lets the compiler see the
 * failure and leave out the code of the commands that read a history
 * (fleet, history, show: the router's static build, docs/embedded.md "Size").
 */
int cmd_history_unavailable(const char *cmd, const char *db, struct history **h);
static inline __attribute__((always_inline)) int cmd_history_open(const char *cmd, const char *db,
								  struct history **h)
{
	int rc = cmd_history_unavailable(cmd, db, h);

	return rc < 0 ? EXIT_MEASURE_FAILED : rc;
}
#endif
/* Runs benchmark B with the arguments after its name. */
int cmd_bench(const struct bench *b, int argc, char **argv);

/* Most positional arguments a benchmark command takes. */
#define BENCH_MAX_POS 16

/*
 * Parses ARGV[0..ARGC) (the arguments after the benchmark's name) for B:
 * its option table and the common options, then B's check() (or, without
 * one, refuses positional arguments). OPTS (B's options struct, zeroed) and
 * C get their defaults, then what was given; POS (BENCH_MAX_POS entries)
 * the positional arguments; ENV (zeroed by the call) the common options a
 * benchmark sees and the positional arguments, for check() and later the
 * run. With --help, C->help is set and nothing is checked. Returns 0, or
 * -EINVAL with a one-line message in ERR: a usage error.
 */
int bench_parse(const struct bench *b, int argc, char **argv, void *opts, struct common_opts *c, char **pos,
		struct bench_env *env, char *err, size_t errlen);

struct stream;
struct csv_cols;

/*
 * The runner behind cmd_bench, for commands that run benchmarks in this
 * process and want their results back (quick, sweep): prepare a call from
 * an argument vector, run it into a struct run, render or compose that as
 * they like, release the call.
 */
struct bench_call {
	const struct bench *b;
	void *opts;			/* b's options struct, filled from its table (owned) */
	struct common_opts common;
	char *pos[BENCH_MAX_POS];	/* positional arguments (borrowed from argv) */
	struct bench_env env;		/* what bench_parse() gave check(): the verb, env.pos = pos */
	int ncpu;
	struct stream *stream;		/* --format jsonl's interval writer (cmd_bench's); NULL = none */
	struct csv_cols *csv;		/* --format csv: the columns of the header emitted results wrote; NULL = none yet */
	/*
	 * --verify: the probe's --time (0: PROBE_SHARE of the step's own time
	 * per repetition, PROBE_SHARE 0 meaning half, at least
	 * VERIFY_PROBE_MIN_NS, or probe_min_ns when set), and what runs before
	 * each probe (quick restarts the step's one-off peer; NULL none),
	 * returning 0, or -1 with why the probe cannot run.
	 */
	uint64_t probe_time_ns;
	double probe_share;
	uint64_t probe_min_ns;
	int (*probe_peer)(void *arg, char *why, size_t len);
	void *probe_peer_arg;
	/*
	 * A time budget for the probes (quick's 25 %): *PROBE_BUDGET_NS is
	 * what is left, spent by each probe's wall time (its peer's start and
	 * the look at the CPUs' load included); a probe whose --time plus
	 * PROBE_EXTRA_NS (what it costs beyond its --time) does not fit is
	 * not run and its candidate is "not verified: time budget". NULL: no
	 * budget.
	 */
	int64_t *probe_budget_ns;
	uint64_t probe_extra_ns;
};

/* --verify: the shortest probe when the caller sets none (a step's first second is often its slow start). */
#define VERIFY_PROBE_MIN_NS (1000ull * 1000 * 1000)

/*
 * Runs one probe of call C's step ENV->step with options OPTS (a copy of
 * C's, relaxed) for TIME_NS (0: the benchmark's own; ignored for
 * BENCH_NO_TIME), once, unsampled, with no stream; returns its result
 * (caller frees with result_free()). cli/verify.c calls it.
 */
struct result *bench_call_probe(struct bench_call *c, const struct bench_env *env, const void *opts,
				uint64_t time_ns);

/*
 * --verify (cli/verify.c, docs/verdict.md "Checking the verdict"): tests
 * the verdict of RES, the finished step ENV->step of call C: a configured
 * limit by its counters, another by probes of the same benchmark with that
 * limit relaxed (C->b->relax), the next candidate when one is refuted (at
 * most VERIFY_MAX_RUNS probes), and re-ranks. Fills RES->verdict.verify.
 * Stops early when *STOP is set.
 */
void verify_step(struct bench_call *c, const struct bench_env *env, struct result *res,
		 volatile sig_atomic_t *stop);

/*
 * Parses ARGV (the ARGC arguments after B's name; borrowed, must outlive
 * the call) through bench_parse() (B's verbs, its option table, the common
 * options, B's check(), --time for BENCH_NO_TIME), and checks the --prom
 * directory. Returns 0
 * to go on, 1 for --help (nothing to run), or -EINVAL with one line in ERR
 * (a usage error). Release C with bench_call_release() in every case.
 */
int bench_call_prepare(struct bench_call *c, const struct bench *b, int argc, char **argv, char *err,
		       size_t errlen);

/*
 * Runs prepared call C: the capability checks (a skipped result with the
 * reason), --pin (for this call only: the caller's CPU set is restored),
 * each step under the sampler with its repetitions and verdict; appends
 * one result per step to RUN. TMP is the caller's temp-file registry with
 * its handlers installed in soft-stop mode on *STOP: the steps stop when
 * *STOP is set, and the files a step left in TMP are removed before this
 * returns. Prints nothing but the progress line (unless --quiet). Returns
 * 0, or -errno with ERR when --pin cannot be applied (nothing ran).
 */
int bench_call_run(struct bench_call *c, struct tmpfile_reg *tmp, volatile sig_atomic_t *stop, struct run *run,
		   char *err, size_t errlen);
void bench_call_release(struct bench_call *c);

/* Describes the box into RUN->info (no calibration loop); leaves it NULL when that fails. */
void run_collect_info(struct run *run);

/* Prints the top-level usage, generated from the tables, to F. */
void help_top(FILE *f);
/*
 * Prints `engpass NAME --help` for a benchmark to F; with VERB (one of
 * b->verbs), `engpass NAME VERB --help`: that verb's options only.
 */
void help_bench(FILE *f, const struct bench *b, const struct bench_verb *verb);

/* The option tables of the commands in cmd_table (their cmd_*.c). */
extern const struct opt quick_options[], info_options[], history_options[], import_options[], fleet_options[],
	report_options[], exporter_options[];

/*
 * The hidden `engpass help --man` and `engpass help --completion bash|zsh`
 * (gen.c): the manual page and the completion scripts, written to F from
 * the command table, the registry and the option tables; the build runs
 * them. Returns the exit status.
 */
int help_gen(FILE *f, const char *what, const char *arg);
/* The units and exit-status lines of `engpass --help`, shared with the manual page. */
extern const char help_units_text[], help_exit_text[];
/* Prints `engpass --version`: the version and the build's optional libraries. */
void help_version(FILE *f);

/* Options every benchmark command takes (struct common_opts). */
extern const struct opt common_opts_table[];
/* Fills the defaults of the common options. */
void common_opts_defaults(struct common_opts *c);

/* Prints "engpass: MSG" on stderr; returns EXIT_USAGE. */
int usage_error(const char *cmd, const char *fmt, ...) PRINTF_LIKE(2, 3);

#endif
