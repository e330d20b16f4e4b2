/* SPDX-License-Identifier: MIT */
/*
 * Streaming JSON writer; see jw.h.
 */
#include "jw.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

static void indent(struct jw *w)
{
	if (!w->pretty)
		return;
	fputc('\n', w->f);
	for (int i = 0; i < w->depth; i++)
		fputs("  ", w->f);
}

static void put_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"': fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\n': fputs("\\n", f); break;
		case '\r': fputs("\\r", f); break;
		case '\t': fputs("\\t", f); break;
		case '\b': fputs("\\b", f); break;
		case '\f': fputs("\\f", f); break;
		default:
			if (*p < 0x20)
				fprintf(f, "\\u%04x", *p);
			else
				fputc(*p, f);
		}
	}
	fputc('"', f);
}

/* Writes the separator, indentation and key that precede a value. */
static void lead(struct jw *w, const char *key)
{
	if (w->depth > 0) {
		if (w->need_comma[w->depth])
			fputc(',', w->f);
		w->need_comma[w->depth] = true;
		indent(w);
	}
	if (key) {
		put_string(w->f, key);
		fputs(w->pretty ? ": " : ":", w->f);
	}
}

static void open(struct jw *w, const char *key, char c)
{
	lead(w, key);
	fputc(c, w->f);
	if (w->depth + 1 >= JW_MAX_DEPTH)
		abort(); /* BUG: nesting deeper than any engpass document */
	w->depth++;
	w->need_comma[w->depth] = false;
}

static void close_(struct jw *w, char c)
{
	bool had = w->need_comma[w->depth];
	w->depth--;
	if (had)
		indent(w);
	fputc(c, w->f);
}

void jw_obj_begin(struct jw *w, const char *key) { open(w, key, '{'); }
void jw_obj_end(struct jw *w) { close_(w, '}'); }
void jw_arr_begin(struct jw *w, const char *key) { open(w, key, '['); }
void jw_arr_end(struct jw *w) { close_(w, ']'); }

void jw_str(struct jw *w, const char *key, const char *val)
{
	lead(w, key);
	if (val)
		put_string(w->f, val);
	else
		fputs("null", w->f);
}

void jw_num(struct jw *w, const char *key, double val)
{
	char buf[40];

	lead(w, key);
	if (!isfinite(val)) {
		fputs("null", w->f);
		return;
	}
	/* Shortest of %.15g / %.17g that reads back to the same double. */
	snprintf(buf, sizeof(buf), "%.15g", val);
	if (strtod(buf, NULL) != val)
		snprintf(buf, sizeof(buf), "%.17g", val);
	fputs(buf, w->f);
}

void jw_int(struct jw *w, const char *key, int64_t val)
{
	lead(w, key);
	fprintf(w->f, "%" PRId64, val);
}

void jw_uint(struct jw *w, const char *key, uint64_t val)
{
	lead(w, key);
	fprintf(w->f, "%" PRIu64, val);
}

void jw_bool(struct jw *w, const char *key, bool val)
{
	lead(w, key);
	fputs(val ? "true" : "false", w->f);
}

void jw_null(struct jw *w, const char *key)
{
	lead(w, key);
	fputs("null", w->f);
}

void jw_finish(struct jw *w)
{
	fputc('\n', w->f);
}
