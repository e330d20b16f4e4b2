/* SPDX-License-Identifier: MIT */
/*
 * Renderers of the result model. Each walks a struct run and writes one
 * format; none of them computes a figure that is not in the model (unit
 * conversion for human reading is formatting, not a figure).
 */
#ifndef ENGPASS_RENDER_H
#define ENGPASS_RENDER_H

#include <stdbool.h>
#include <stdio.h>

#include "core/result/result.h"
#include "core/observe/sampler.h"

/*
 * Human-readable text, at most 100 columns wide: the box (`engpass info`)
 * or each benchmark's block. FLAGS 0 is the concise default every command
 * prints (the figures under human labels, the verdict and its "next:", the
 * notes once per run, the limits in effect); RENDER_DETAILS (-v,
 * --details) adds the parameters, the method with every limit looked at,
 * the system view, the histograms, the JSON keys and each step's notes.
 * `show` renders a stored run through the same entry point.
 */
#define RENDER_DETAILS 1u
void render_text(FILE *f, const struct run *run, unsigned flags);
/*
 * TEXT and a newline, the caller having written COL columns of the line:
 * broken at spaces within the text width (100 columns), continuation lines
 * indented to column HANG (a unit stays with its number).
 */
void render_wrap(FILE *f, size_t col, size_t hang, const char *text);
/* render_text(F, RUN, 0). */
void render_table(FILE *f, const struct run *run);

/*
 * One JSON document, "schema": "engpass/1", with units in key names.
 * SERIES includes the sampled time series of each result.
 */
void render_json(FILE *f, const struct run *run, bool pretty, bool series);

/*
 * JSON lines (--format jsonl, --json-stream): events in the shape of
 * iperf3 3.17's --json-stream, one object per line, {"event": NAME,
 * "data": {...}}: "start" (the run's header), "interval" (one sampling
 * interval while a step runs), "result" (a result a long-running command
 * emits), "end" (the whole document, as --format json gives it). Each
 * line is written whole and flushed. docs/json.md has the schema.
 */
struct stream_interval {
	unsigned step;		/* index of the step in the command's run, from 0 */
	char bench[32];
	int64_t time_ns;	/* wall clock when the interval was handed over (its end), ns since the epoch */
	double progress_pct;	/* of the step, as its progress line shows it; NaN = none */
	struct sample sample;	/* cpu_pct NULL; disk and iface point at the copies below, or NULL */
	char disk[32], iface[32];
};
void render_json_start(FILE *f, const struct run *run);
void render_json_interval(FILE *f, const struct stream_interval *x);
/* EVENT ("result", "end") with RUN's whole document as its data; SERIES as for render_json(). */
void render_json_event(FILE *f, const char *event, const struct run *run, bool series);

/*
 * CSV: a header row, then one row per step (docs/json.md lists the
 * columns). Steps of different benchmarks share the header: the union of
 * their metric columns, empty cells where a step has no such figure.
 */
void render_csv(FILE *f, const struct run *run);
/*
 * The parts of render_csv(), for a caller that writes rows as results
 * come (a server's tests): the metric columns of a run (csv_cols_init;
 * release with csv_cols_release()), the header row, one step's row (a
 * metric without a column is left out).
 */
struct csv_cols {
	char **name;		/* "read_bytes_per_second", ...; owned */
	size_t n;
};
void csv_cols_init(struct csv_cols *c, const struct run *run);
void csv_cols_release(struct csv_cols *c);
void csv_header(FILE *f, const struct csv_cols *c);
void csv_row(FILE *f, const struct run *run, const struct result *r, const struct csv_cols *c);
/* Writes S (NULL: nothing) as one CSV field, quoted as RFC 4180 says when it must be. */
void csv_field(FILE *f, const char *s);

/*
 * Prometheus text exposition format (node_exporter textfile collector):
 * engpass_BENCH_METRIC in base units, labels host, command, step and the
 * step's parameters; histograms as summaries; the system view and the
 * verdict as engpass_system_* and engpass_verdict_info.
 */
void render_prom(FILE *f, const struct run *run);

/*
 * Writes the Prometheus text of RUN to FILE atomically: a temp file in the
 * same directory, fsync, rename. A reader never sees half a file. Returns
 * 0 or -errno.
 */
MUST_CHECK int prom_write(const char *file, const struct run *run);

/*
 * Formats VALUE in UNIT for people ("1.50 MiB/s", "12.3 us", "121k /s");
 * docs/units.md ("Output units") has the rules.
 */
void render_value(char *buf, size_t len, double value, enum unit unit);
/*
 * Formats V, a figure of metric M of result R, as the text table shows it:
 * render_value(), except that a disk's bytes per second add the decimal
 * MB/s (fio's "54.37 MiB/s (57.0 MB/s)") and a network's are in bit/s.
 */
void render_metric(char *buf, size_t len, const struct result *r, const struct metric *m, double v);

#endif
