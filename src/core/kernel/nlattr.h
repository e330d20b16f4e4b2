/* SPDX-License-Identifier: MIT */
/*
 * nlattr: the netlink message checks and attribute walk the libmnl users of core share
 * (qdisc's rtnetlink dumps, sockdiag's inet_diag replies, taskstats'
 * generic netlink answers). Built only with libmnl.
 */
#ifndef ENGPASS_NLATTR_H
#define ENGPASS_NLATTR_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/compiler.h"

struct nlattr;
struct nlmsghdr;

/*
 * mnl_nlmsg_ok() with nlmsg_len compared unsigned first: libmnl 1.0.4
 * compares (int)nlmsg_len, so a length of 2^31 or more passes and
 * mnl_nlmsg_next() steps gigabytes away (found by fuzz_qdisc).
 */
bool nlattr_msg_ok(const struct nlmsghdr *nlh, int left);

/* The error of an NLMSG_ERROR: 0 (an acknowledgement), -errno, or -EINVAL if malformed. */
MUST_CHECK int nlattr_msg_error(const struct nlmsghdr *nlh);

/*
 * Sorts the attributes in [P, P + LEN) by type into TB[0..MAX] (zeroed
 * first; a later duplicate wins, as in the kernel; types above MAX are
 * ignored). Returns 0, or -EINVAL when the last attribute does not fit in
 * what is left (a cut message or a bad nla_len), or LEN is absurd.
 */
MUST_CHECK int nlattr_table(const void *p, size_t len, const struct nlattr **tb, unsigned max);

#endif
