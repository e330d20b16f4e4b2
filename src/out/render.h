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

#include "core/result.h"

/* Human-readable text: the box (if collected) and each result. */
void render_table(FILE *f, const struct run *run);

/*
 * One JSON document, "schema": "engpass/1", with units in key names.
 * SERIES includes the sampled time series of each result.
 */
void render_json(FILE *f, const struct run *run, bool pretty, bool series);

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

/* Formats VALUE in UNIT for people ("1.50 MiB/s", "12.3 us"). */
void render_value(char *buf, size_t len, double value, enum unit unit);

#endif
