/* SPDX-License-Identifier: MIT */
/*
 * The HTML report (`engpass report`): one self-contained page made from an
 * engpass JSON document (schema engpass/1), the stored form of a run. It
 * reads the parsed document rather than a struct run because the document
 * carries what the model loaded back does not: the sampled series and the
 * histogram buckets. The page is HTML with inline CSS and inline SVG, no
 * script and no external reference, so it reads the same offline, in a
 * mail attachment or with JavaScript off. docs/report.md describes the
 * charts and the conventions behind them.
 *
 * The document is outside input: every string from it is escaped, every
 * field is type-checked before use, and a field that is missing or of the
 * wrong type only leaves its part of the page out.
 *
 * Only built with jansson (HAVE_JANSSON); without it there is nothing to
 * declare, and `engpass report` says that it needs jansson.
 */
#ifndef ENGPASS_HTML_H
#define ENGPASS_HTML_H

#include "config.h"

#if HAVE_JANSSON
#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "lib/compiler.h"

/*
 * Checks that DOC is an engpass result: an object with "schema":
 * "engpass/1" and a "results" array whose members are objects with string
 * "bench" and "step". Returns 0, or -EPROTO with one line in ERR.
 */
MUST_CHECK int html_check_document(json_t *doc, char *err, size_t errlen);

/*
 * Writes the report of DOC (checked with html_check_document()) to F as
 * one HTML page. SOURCE names where the document came from ("run 12",
 * a file name) and is shown in the page; it is escaped like everything
 * else. Returns 0, or -EIO when writing to F failed (the caller removes
 * the half-written file). DOC is only read (it is not const because
 * jansson's iterators take a mutable json_t); F stays open.
 */
MUST_CHECK int render_html(FILE *f, json_t *doc, const char *source);

/*
 * Writes one HTML page of N hosts' runs side by side: DOCS[0..N) (each
 * checked with html_check_document()), SOURCES[i] naming where DOCS[i]
 * came from. A table of the runs, a table of every step's headline figure
 * and verdict per host, and per step one bar chart of its headline figure
 * across the hosts. Returns 0, or -EIO when writing to F failed.
 */
MUST_CHECK int render_html_hosts(FILE *f, json_t **docs, const char *const *sources, size_t n);

#endif

#endif
