/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target for taskstats_parse() (src/core/kernel/taskstats.c): the input is
 * what a receive from the TASKSTATS generic netlink socket would hold,
 * one message, in a heap buffer of exactly its length (aligned as a
 * struct nlmsghdr, nothing after it to hide an over-read). It is parsed
 * as family 31 (the captured seeds') and as the family the input's own
 * header names. A reply that parses has a version of 2 or more, have_
 * flags that follow its version, zeros where its version has no field,
 * and suspect bits only for one thread; a refused one leaves OUT zeroed.
 * Built only with libmnl.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/kernel/taskstats.h"
#include "fuzz.h"

static void check(int rc, const struct taskstats_delays *d)
{
	static const struct taskstats_delays zero;

	if (rc > 0 || rc < -4095)
		abort();
	if (rc) {
		if (memcmp(d, &zero, sizeof(zero)))
			abort();
		return;
	}
	if (d->version < 2)
		abort();
	if (d->have_freepages != (d->version >= 7) || d->have_thrashing != (d->version >= 9) ||
	    d->have_compact != (d->version >= 11) || d->have_wpcopy != (d->version >= 13) ||
	    d->have_irq != (d->version >= 14))
		abort();
	if ((!d->have_freepages && (d->freepages_ns || d->freepages_count)) ||
	    (!d->have_thrashing && (d->thrashing_ns || d->thrashing_count)) ||
	    (!d->have_compact && (d->compact_ns || d->compact_count)) ||
	    (!d->have_wpcopy && (d->wpcopy_ns || d->wpcopy_count)) || (!d->have_irq && (d->irq_ns || d->irq_count)))
		abort();
	if (d->is_tgid && d->suspect)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct taskstats_delays d;
	void *buf = xmalloc(size ? size : 1);
	uint16_t own = 0;

	memcpy(buf, data, size);
	check(taskstats_parse(buf, size, 31, &d), &d);
	if (size >= 6)
		memcpy(&own, (const char *)buf + 4, sizeof(own));	/* nlmsg_type */
	check(taskstats_parse(buf, size, own, &d), &d);
	free(buf);
	return 0;
}
