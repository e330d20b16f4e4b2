/* SPDX-License-Identifier: MIT */
/*
 * The CSV renderer: one header row, then one row per step. Fields are
 * quoted as RFC 4180 says (a field holding a comma, a double quote, CR or
 * LF is enclosed in double quotes, its quotes doubled); records end with
 * LF, which RFC 4180 readers accept as well as CRLF. Figures are in base
 * units, the unit in the column name (read_bytes_per_second), as in the
 * JSON document; an unknown figure is an empty cell, never 0.
 *
 * Steps of different benchmarks in one run (engpass quick, a sweep) share
 * one header: the union of their metric columns in the order they first
 * appear, a step without a figure leaving its cell empty. docs/json.md
 * lists the columns.
 */
#include "render.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/units.h"
#include "lib/xalloc.h"

void csv_field(FILE *f, const char *s)
{
	if (!s)
		return;
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

/* A figure in the shortest form that reads back the same (as the JSON has it); unknown: empty. */
static void csv_num(FILE *f, double v)
{
	char buf[40];

	if (!isfinite(v))
		return;
	snprintf(buf, sizeof(buf), "%.15g", v);
	if (strtod(buf, NULL) != v)
		snprintf(buf, sizeof(buf), "%.17g", v);
	fputs(buf, f);
}

/* The columns before the figures and after them; docs/json.md describes each. */
static const char *const lead_cols[] = {
	"host", "time", "bench", "step", "sweep", "status", "reason", "incomplete", "repetitions",
	"duration_seconds", "headline",
};
static const char *const tail_cols[] = { "verdict_resource", "verdict_evidence", "verdict_next_step" };

#define NCOLS(a) (sizeof(a) / sizeof((a)[0]))

void csv_cols_init(struct csv_cols *c, const struct run *run)
{
	char key[160];
	size_t cap = 0;

	memset(c, 0, sizeof(*c));
	for (size_t i = 0; i < run->nresults; i++) {
		const struct result *r = run->results[i];

		for (size_t m = 0; m < r->nmetrics; m++) {
			size_t k;

			snprintf(key, sizeof(key), "%s%s", r->metrics[m].name, unit_suffix(r->metrics[m].unit));
			for (k = 0; k < c->n && strcmp(c->name[k], key); k++)
				;
			if (k < c->n)
				continue;
			if (c->n == cap) {
				cap = cap ? 2 * cap : 16;
				c->name = xrealloc(c->name, cap * sizeof(*c->name));
			}
			c->name[c->n++] = xstrdup(key);
		}
	}
}

void csv_cols_release(struct csv_cols *c)
{
	for (size_t k = 0; k < c->n; k++)
		free(c->name[k]);
	free(c->name);
	memset(c, 0, sizeof(*c));
}

/* The metric of R whose key is KEY, or NULL. */
static const struct metric *metric_by_key(const struct result *r, const char *key)
{
	char k[160];

	for (size_t m = 0; m < r->nmetrics; m++) {
		snprintf(k, sizeof(k), "%s%s", r->metrics[m].name, unit_suffix(r->metrics[m].unit));
		if (!strcmp(k, key))
			return &r->metrics[m];
	}
	return NULL;
}

void csv_header(FILE *f, const struct csv_cols *c)
{
	for (size_t i = 0; i < NCOLS(lead_cols); i++)
		fprintf(f, "%s%s", i ? "," : "", lead_cols[i]);
	for (size_t k = 0; k < c->n; k++) {
		fputc(',', f);
		csv_field(f, c->name[k]);
	}
	for (size_t i = 0; i < NCOLS(tail_cols); i++)
		fprintf(f, ",%s", tail_cols[i]);
	fputc('\n', f);
}

void csv_row(FILE *f, const struct run *run, const struct result *r, const struct csv_cols *c)
{
	const struct metric *h = r->headline ? result_find_metric(r, r->headline) : NULL;
	char when[40] = "", key[160] = "";
	struct tm tm;
	time_t t = (time_t)((r->time_ns ? r->time_ns : run->time_ns) / 1000000000);

	if (gmtime_r(&t, &tm))
		units_fmt_tm(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	if (h)
		snprintf(key, sizeof(key), "%s%s", h->name, unit_suffix(h->unit));
	csv_field(f, run->host);
	fputc(',', f);
	csv_field(f, when);
	fputc(',', f);
	csv_field(f, r->bench);
	fputc(',', f);
	csv_field(f, r->step);
	fputc(',', f);
	csv_field(f, r->sweep);
	fputc(',', f);
	csv_field(f, result_status_name(r->status));
	fputc(',', f);
	csv_field(f, r->reason);
	fprintf(f, ",%s,%u,", r->incomplete ? "true" : "false", r->reps);
	csv_num(f, r->duration_s);
	fputc(',', f);
	csv_field(f, key);
	for (size_t k = 0; k < c->n; k++) {
		const struct metric *m = metric_by_key(r, c->name[k]);

		fputc(',', f);
		if (m)
			csv_num(f, m->value);
	}
	fputc(',', f);
	csv_field(f, r->verdict.resource);
	fputc(',', f);
	csv_field(f, r->verdict.evidence);
	fputc(',', f);
	csv_field(f, r->verdict.next_step);
	fputc('\n', f);
}

void render_csv(FILE *f, const struct run *run)
{
	struct csv_cols c;

	csv_cols_init(&c, run);
	csv_header(f, &c);
	for (size_t i = 0; i < run->nresults; i++)
		csv_row(f, run, run->results[i], &c);
	csv_cols_release(&c);
}
