/* SPDX-License-Identifier: MIT */
/*
 * Ladder sizes, budget, the resident rule and swaptest's line; see
 * mem_sizes.h.
 */
#include "mem_sizes.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lib/units.h"

/* Strictly parses DIGITS[.DIGITS] of [S, E) as a double; false otherwise. */
static bool parse_factor(const char *s, const char *e, double *out)
{
	double v = 0, scale = 1;
	bool digits = false, point = false;
	int frac = 0;

	for (const char *p = s; p < e; p++) {
		if (*p >= '0' && *p <= '9') {
			digits = true;
			if (point) {
				if (++frac > 9)
					return false;
				scale /= 10;
				v += (*p - '0') * scale;
			} else {
				v = v * 10 + (*p - '0');
				if (v > 1e6)
					return false;
			}
		} else if (*p == '.' && !point && digits) {
			point = true;
			if (p + 1 == e)
				return false;	/* "1.x" */
		} else {
			return false;
		}
	}
	if (!digits)
		return false;
	*out = v;
	return true;
}

int mem_sizes_parse(const struct opt_list *list, struct mem_size *out, size_t max, size_t *n, char *err,
		    size_t errlen)
{
	size_t k = 0;

	*n = 0;
	for (size_t i = 0; i < list->n; i++) {
		const char *p = opt_list_item(list, i);
		size_t len = strlen(p);
		struct mem_size s;

		memset(&s, 0, sizeof(s));
		if (len >= sizeof(s.text)) {
			snprintf(err, errlen, "option '--sizes': '%.*s' is too long", (int)len, p);
			return -EINVAL;
		}
		if (k == max) {
			snprintf(err, errlen, "option '--sizes': more than %zu sizes", max);
			return -ERANGE;
		}
		memcpy(s.text, p, len + 1);
		if (p[len - 1] == 'x') {
			s.relative = true;
			if (!parse_factor(p, p + len - 1, &s.factor)) {
				snprintf(err, errlen, "option '--sizes': '%s' is not a multiple such as 0.5x or 1.5x", s.text);
				return -EINVAL;
			}
			if (s.factor <= 0 || s.factor > MEM_MAX_FACTOR) {
				snprintf(err, errlen, "option '--sizes': '%s' is outside 0x..%gx", s.text, MEM_MAX_FACTOR);
				return -ERANGE;
			}
		} else {
			int r = units_parse_size(s.text, &s.bytes);

			if (r == -EINVAL) {
				snprintf(err, errlen,
					 "option '--sizes': '%s' is neither a multiple such as 0.5x nor a size such as 85M",
					 s.text);
				return r;
			}
			if (r || s.bytes < MEM_MIN_SIZE) {
				snprintf(err, errlen, "option '--sizes': '%s' is out of range (at least 4K)", s.text);
				return -ERANGE;
			}
		}
		out[k++] = s;
	}
	if (!k) {
		snprintf(err, errlen, "option '--sizes': no sizes");
		return -EINVAL;
	}
	*n = k;
	return 0;
}

uint64_t mem_size_resolve(const struct mem_size *s, uint64_t base, uint64_t page)
{
	uint64_t b = s->relative ? (uint64_t)(s->factor * (double)base) : s->bytes;

	if (!page)
		page = 4096;
	b = b / page * page;
	return b ? b : page;
}

uint64_t mem_budget(uint64_t avail, uint64_t swap_free, unsigned margin_pct, uint64_t margin_of)
{
	uint64_t margin = (uint64_t)((double)margin_of * margin_pct / 100.0), all = avail + swap_free;

	return all > margin ? all - margin : 0;
}

bool mem_row_resident(uint64_t write_majflt, uint64_t read_majflt, uint64_t resident_pages, uint64_t pages)
{
	return write_majflt == 0 && read_majflt == 0 && pages > 0 && resident_pages == pages;
}

const char *mem_swaptest_line(char *buf, size_t len, unsigned passes, uint64_t bytes, double seconds)
{
	double mb = (double)bytes * passes / (1024.0 * 1024.0);

	snprintf(buf, len, "%u iterations: %.2f MB in %.3f seconds = %.2f MB/sec", passes, mb, seconds,
		 seconds > 0 ? mb / seconds : 0.0);
	return buf;
}
