/* SPDX-License-Identifier: MIT */
/*
 * nlattr: the one netlink attribute walk the libmnl users of core share
 * (qdisc's rtnetlink dumps, sockdiag's inet_diag replies, taskstats'
 * generic netlink answers). Built only with libmnl.
 */
#ifndef ENGPASS_NLATTR_H
#define ENGPASS_NLATTR_H

#include <stddef.h>

#include "lib/compiler.h"

struct nlattr;

/*
 * Sorts the attributes in [P, P + LEN) by type into TB[0..MAX] (zeroed
 * first; a later duplicate wins, as in the kernel; types above MAX are
 * ignored). Returns 0, or -EINVAL when the last attribute does not fit in
 * what is left (a cut message or a bad nla_len), or LEN is absurd.
 */
MUST_CHECK int nlattr_table(const void *p, size_t len, const struct nlattr **tb, unsigned max);

#endif
