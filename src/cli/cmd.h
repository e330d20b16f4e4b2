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

#include "bench/bench.h"

#define EXIT_OK 0
#define EXIT_MEASURE_FAILED 1
#define EXIT_USAGE 2

#define ENGPASS_VERSION "0.1.0"

enum output_format {
	FORMAT_TABLE,
	FORMAT_JSON,
};

/*
 * Options every benchmark command takes; filled from common_opts_table.
 * The runner hands a benchmark only what it measures by (struct
 * bench_env: time, interval, sampling, pinning); the output and storage
 * options stay here.
 */
struct common_opts {
	bool json;
	int format;		/* enum output_format */
	bool quiet;
	uint64_t time_ns;	/* --time: 0 = the benchmark's default */
	int64_t repeat;		/* --repeat N, >= 1 */
	cpu_set_t pin;		/* --pin CPUS */
	bool pin_set;
	uint64_t interval_ns;	/* --interval: sampler interval */
	bool no_sample;		/* --no-sample: do not run the sampler */
	const char *prom;	/* --prom FILE: also write Prometheus text format */
	bool no_history;	/* --no-history: do not store the run */
	const char *db;		/* --db PATH: history database */
	bool help;
};

struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *usage;
	const char *summary;
};

/* The top-level command table, NULL-name terminated (commands.c). */
extern const struct cmd cmd_table[];

int cmd_info(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_help(int argc, char **argv);
int cmd_version(int argc, char **argv);
int cmd_history(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_quick(int argc, char **argv);

struct json_t;
/*
 * Writes the HTML report of the engpass document DOC to FILE atomically
 * (built with jansson only). Returns 0 or -errno; *STAGE names the step
 * that failed.
 */
int report_write_file(const char *file, struct json_t *doc, const char *source, const char **stage);

/*
 * Runs this engpass binary (/proc/self/exe) with ARGV (argv[0] is a
 * name), collecting its stdout into *OUT (caller frees; may be NULL).
 * Returns the exit status, 128 + N when killed by signal N, or -errno.
 */
int child_run_engpass(char **argv, char **out);

/*
 * While a command runs children (child.c): SIGINT, SIGTERM and SIGHUP are
 * caught, recorded and forwarded to the child being run, or to the one
 * given to child_track() (e.g. a server the command started; 0 = none).
 * child_stop_signal() is the first signal received (0 none): the caller's
 * loop stops on it and exits 128 + it. Install returns 0 or -errno.
 */
int child_signals_install(void);
void child_signals_restore(void);
int child_stop_signal(void);
void child_track(pid_t pid);
int cmd_sweep(int argc, char **argv);
int cmd_exporter(int argc, char **argv);

/*
 * Stores RUN in the history database DB (NULL = the default path) through
 * history_store_run(); on failure prints one line on stderr naming CMD and
 * returns -errno. Built without SQLite it stores nothing and returns 0.
 */
int cmd_store_run(const char *cmd, const struct run *run, const char *db);
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

/* Prints the top-level usage, generated from the tables, to F. */
void help_top(FILE *f);
/*
 * Prints `engpass NAME --help` for a benchmark to F; with VERB (one of
 * b->verbs), `engpass NAME VERB --help`: that verb's options only.
 */
void help_bench(FILE *f, const struct bench *b, const struct bench_verb *verb);

/* Options every benchmark command takes (struct common_opts). */
extern const struct opt common_opts_table[];
/* Fills the defaults of the common options. */
void common_opts_defaults(struct common_opts *c);

/* Prints "engpass: MSG" on stderr; returns EXIT_USAGE. */
int usage_error(const char *cmd, const char *fmt, ...) PRINTF_LIKE(2, 3);

#endif
