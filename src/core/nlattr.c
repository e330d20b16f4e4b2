/* SPDX-License-Identifier: MIT */
/* The shared netlink attribute walk; see nlattr.h. */
#include "core/nlattr.h"

#include "config.h"

#if HAVE_LIBMNL
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>

#include <libmnl/libmnl.h>

int nlattr_table(const void *p, size_t len, const struct nlattr **tb, unsigned max)
{
	const struct nlattr *attr;
	const char *end = (const char *)p + len;

	memset(tb, 0, ((size_t)max + 1) * sizeof(*tb));
	if (len > INT_MAX)
		return -EINVAL;
	mnl_attr_for_each_payload(p, len) {
		uint16_t type = mnl_attr_get_type(attr);

		if (type <= max)
			tb[type] = attr;
	}
	/* The loop stops at the first attribute that does not fit: there must be none. */
	if ((const char *)attr < end)
		return -EINVAL;
	return 0;
}
#endif
