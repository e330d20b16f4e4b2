/* SPDX-License-Identifier: MIT */
/*
 * jw: a small streaming JSON writer. engpass writes JSON on machines built
 * without any JSON library (routers), so emission is done here; parsing of
 * outside JSON is left to jansson. The writer tracks nesting and commas; the
 * caller says where objects and arrays begin and end. Keys are given with
 * each value and must be NULL inside arrays and at the top level.
 *
 * Numbers: doubles are written with up to 17 significant digits (%.17g is
 * avoided where a shorter form round-trips); NaN and infinities, which JSON
 * cannot express, are written as null.
 */
#ifndef ENGPASS_JW_H
#define ENGPASS_JW_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JW_MAX_DEPTH 32

struct jw {
	FILE *f;
	bool pretty;
	int depth;
	bool need_comma[JW_MAX_DEPTH];
};

/* Writer to F (not owned); PRETTY indents by two spaces per level. */
#define JW_INIT(f, pretty) { (f), (pretty), 0, { false } }

void jw_obj_begin(struct jw *w, const char *key);
void jw_obj_end(struct jw *w);
void jw_arr_begin(struct jw *w, const char *key);
void jw_arr_end(struct jw *w);
/* VAL NULL writes null. */
void jw_str(struct jw *w, const char *key, const char *val);
/* Non-finite values write null. */
void jw_num(struct jw *w, const char *key, double val);
void jw_int(struct jw *w, const char *key, int64_t val);
void jw_uint(struct jw *w, const char *key, uint64_t val);
void jw_bool(struct jw *w, const char *key, bool val);
void jw_null(struct jw *w, const char *key);
/* Ends the document with a newline (after the last jw_obj_end). */
void jw_finish(struct jw *w);

#endif
