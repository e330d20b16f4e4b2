/* SPDX-License-Identifier: MIT */
/* The shared netlink attribute walk; see nlattr.h. */
#include "core/kernel/nlattr.h"

#include "config.h"

#if HAVE_LIBMNL
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>

#include <libmnl/libmnl.h>
#include <linux/netlink.h>

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

bool nlattr_msg_ok(const struct nlmsghdr *nlh, int left)
{
	return left >= (int)sizeof(*nlh) && nlh->nlmsg_len <= (unsigned)left && mnl_nlmsg_ok(nlh, left);
}

int nlattr_msg_error(const struct nlmsghdr *nlh)
{
	const struct nlmsgerr *e;

	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(*e))
		return -EINVAL;
	e = mnl_nlmsg_get_payload(nlh);
	if (e->error > 0 || e->error < -4095)
		return -EINVAL;
	return e->error;
}
#endif
