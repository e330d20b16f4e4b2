/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target for qdisc_parse() (src/core/kernel/qdisc.c): the input is what a
 * receive from an rtnetlink socket would hold, netlink messages back to
 * back, handed over in a heap buffer of exactly its length (aligned as a
 * struct nlmsghdr, with nothing after it to hide an over-read). It is
 * parsed for any interface and for interface 1 (the captured seeds' lo);
 * every entry must have a kind and a sane rate, the filtered list must be
 * found in the whole one, every reach (qdisc_reach_bps()) must lie between
 * the entry's rate and ceil, and qdisc_limiting() must pick the lowest;
 * parsed as a filter dump (qdisc_parse_filters()), a redirect names a device.
 * Built only with libmnl.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/kernel/qdisc.h"
#include "fuzz.h"

static void check_rc(int rc)
{
	if (rc != 0 && rc != 1 && (rc >= 0 || rc < -4095))
		abort();
}

/*
 * What the entry reaches: never below its rate, never above the larger of
 * its rate and ceil (a parent lends at most up to the ceil), finite.
 */
static double effective(const struct qdisc_list *l, const struct qdisc_info *q)
{
	double r = qdisc_reach_bps(l, q);

	if (!isfinite(r) || r < q->rate_bps || r > (q->ceil_bps > q->rate_bps ? q->ceil_bps : q->rate_bps))
		abort();
	if (!qdisc_parent(l, q) && r != q->rate_bps)
		abort();	/* nothing lends: its rate */
	return r;
}

static void check_list(const struct qdisc_list *l)
{
	const struct qdisc_info *lim = qdisc_limiting(l);

	for (size_t i = 0; i < l->n; i++) {
		const struct qdisc_info *q = &l->v[i];

		if (!memchr(q->kind, '\0', sizeof(q->kind)) || !q->kind[0])
			abort();
		if (!isfinite(q->rate_bps) || q->rate_bps < 0 || !isfinite(q->ceil_bps) || q->ceil_bps < 0)
			abort();
		if (!qdisc_find(l, q))
			abort();
		if (effective(l, q) > 0 && (!lim || effective(l, q) < effective(l, lim)))
			abort();	/* a lower rate than the one called limiting */
	}
	if (lim && !(effective(l, lim) > 0))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct qdisc_list all = { 0 }, one = { 0 };
	void *buf = xmalloc(size ? size : 1);
	int rc;

	memcpy(buf, data, size);
	rc = qdisc_parse(buf, size, 0, &all);
	check_rc(rc);
	check_rc(qdisc_parse(buf, size, 1, &one));
	check_list(&all);
	check_list(&one);
	/*
	 * When every message parsed, interface 1's entries are among all of
	 * them. (Filtering skips other interfaces' messages unread, so past a
	 * malformed one it may find entries the unfiltered parse stopped before.)
	 */
	if (rc >= 0) {
		if (one.n > all.n)
			abort();
		for (size_t i = 0; i < one.n; i++)
			if (!qdisc_find(&all, &one.v[i]))
				abort();
	}
	/* The same bytes as a filter dump: any redirect found names a device. */
	{
		struct qdisc_redirect rd = { 0 };

		check_rc(qdisc_parse_filters(buf, size, 0, &rd));
		if (rd.ifindex < 0 || (rd.ifindex && !rd.classifier[0]) || !memchr(rd.classifier, 0, sizeof(rd.classifier)))
			abort();
	}
	qdisc_list_free(&all);
	qdisc_list_free(&one);
	free(buf);
	return 0;
}
