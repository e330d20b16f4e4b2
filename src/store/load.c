/* SPDX-License-Identifier: MIT */
/*
 * Reading an engpass JSON document (schema engpass/1) back into the
 * metric rows that `compare` needs. Outside input, so it is parsed with
 * jansson and checked field by field; anything unexpected is an error with
 * one line, never a guess. Built without jansson it returns -ENOTSUP.
 */
#include "store/history.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "core/xalloc.h"

/* Splits KEY into name and unit by its suffix, longest suffix first. */
static enum unit split_key(const char *key, char **name)
{
	size_t klen = strlen(key), best = 0;
	enum unit unit = UNIT_COUNT;

	for (int u = UNIT_COUNT; u <= UNIT_RATIO; u++) {
		const char *suf = unit_suffix((enum unit)u);
		size_t slen = strlen(suf);

		if (slen > best && klen > slen && !strcmp(key + klen - slen, suf)) {
			best = slen;
			unit = (enum unit)u;
		}
	}
	*name = xstrdup(key);
	(*name)[klen - best] = 0;
	return unit;
}

#if HAVE_JANSSON
#include <jansson.h>

int history_metrics_from_json(const char *text, const char *label, struct history_metrics *out, char *err,
			      size_t errlen)
{
	json_error_t jerr;
	json_t *root = json_loads(text, JSON_REJECT_DUPLICATES, &jerr), *results, *r;
	size_t i, cap = 0;
	const char *schema = NULL;

	memset(out, 0, sizeof(*out));
	if (!root) {
		snprintf(err, errlen, "not JSON: %s (line %d)", jerr.text, jerr.line);
		return -EPROTO;
	}
	if (json_unpack(root, "{s:s}", "schema", &schema) || strcmp(schema, "engpass/1")) {
		snprintf(err, errlen, "not an engpass result (no \"schema\": \"engpass/1\")");
		json_decref(root);
		return -EPROTO;
	}
	results = json_object_get(root, "results");
	if (!json_is_array(results)) {
		snprintf(err, errlen, "engpass result without a \"results\" array");
		json_decref(root);
		return -EPROTO;
	}
	json_array_foreach(results, i, r) {
		const char *bench = NULL, *step = NULL, *key;
		json_t *metrics = NULL, *spread, *v;

		if (json_unpack(r, "{s:s, s:s, s:o}", "bench", &bench, "step", &step, "metrics", &metrics) ||
		    !json_is_object(metrics)) {
			snprintf(err, errlen, "result %zu lacks bench, step or metrics", i);
			history_metrics_release(out);
			json_decref(root);
			return -EPROTO;
		}
		spread = json_object_get(r, "spread");
		json_object_foreach(metrics, key, v) {
			struct history_metric *m;
			json_t *s = spread ? json_object_get(spread, key) : NULL;

			if (!json_is_number(v) && !json_is_null(v))
				continue;
			if (out->n == cap) {
				cap = cap ? 2 * cap : 32;
				out->v = xrealloc(out->v, cap * sizeof(*out->v));
			}
			m = &out->v[out->n++];
			m->bench = xstrdup(bench);
			m->step = xstrdup(step);
			m->unit = split_key(key, &m->name);
			m->value = json_is_number(v) ? json_number_value(v) : NAN;
			m->min = m->max = m->value;
			m->reps = 1;
			if (json_is_object(s)) {
				json_t *lo = json_object_get(s, "min"), *hi = json_object_get(s, "max");
				json_t *n = json_object_get(s, "n");

				if (json_is_number(lo) && json_is_number(hi)) {
					m->min = json_number_value(lo);
					m->max = json_number_value(hi);
				}
				if (json_is_integer(n))
					m->reps = (unsigned)json_integer_value(n);
			}
		}
	}
	out->label = xstrdup(label);
	json_decref(root);
	return 0;
}

#else

int history_metrics_from_json(const char *text, const char *label, struct history_metrics *out, char *err,
			      size_t errlen)
{
	(void)text, (void)label, (void)split_key;
	memset(out, 0, sizeof(*out));
	snprintf(err, errlen, "built without jansson: cannot read JSON files");
	return -ENOTSUP;
}

#endif
