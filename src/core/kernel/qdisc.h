/* SPDX-License-Identifier: MIT */
/*
 * Queueing disciplines and classes of one interface, read over rtnetlink
 * (RTM_GETQDISC and RTM_GETTCLASS dumps, through libmnl): their kind, the
 * rate a shaping one enforces (tbf rate, htb class rate and ceil, cake
 * bandwidth; an htb class judged by what it can reach, qdisc_reach_bps())
 * and their counters (TCA_STATS2: bytes, packets, drops, overlimits,
 * backlog). Not by parsing tc's output.
 *
 * qdisc_parse() is the pure part (a buffer of netlink messages in,
 * entries out) for the fuzz target and the unit tests; qdisc_dump() talks
 * to the kernel. Built without libmnl, both return -ENOSYS.
 *
 * Cost: a dump is two requests on a fresh socket, a few milliseconds; it
 * is meant for the edges of a measurement span, not for every sample.
 */
#ifndef ENGPASS_QDISC_H
#define ENGPASS_QDISC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct qdisc_info {
	char kind[16];			/* "tbf", "htb", "cake", "fq_codel", "noqueue", ... */
	bool is_class;			/* an htb (or other) class, not a qdisc */
	uint32_t handle, parent;	/* tcm_handle, tcm_parent */
	double rate_bps;		/* bits/s it shapes to; 0 = it does not shape */
	double ceil_bps;		/* htb ceil, bits/s; 0 = none */
	bool have_stats;
	uint64_t bytes, packets, drops, overlimits, requeues;
	uint32_t qlen, backlog;		/* packets, bytes queued now */
};

struct qdisc_list {
	struct qdisc_info *v;
	size_t n;
};

/*
 * Appends the entries of the RTM_NEWQDISC / RTM_NEWTCLASS messages in BUF
 * (LEN bytes) for interface IFINDEX (0 = any) to OUT. Other messages are
 * skipped (an NLMSG_ERROR of 0, an acknowledgement, too); NLMSG_DONE ends.
 * Returns 1 when NLMSG_DONE was seen, 0 when more may follow, -EINVAL on a
 * malformed message (entries before it stay): a message or attribute cut
 * short, bytes after the last whole message, a missing or over-long
 * TCA_KIND, an option or counter attribute shorter than its structure.
 * Returns -errno of an NLMSG_ERROR, -ENOSYS built without libmnl. BUF is
 * aligned as a struct nlmsghdr (a malloc()ed or receive buffer). OUT
 * starts as { NULL, 0 } or a list from before.
 */
int qdisc_parse(const void *buf, size_t len, int ifindex, struct qdisc_list *out);

/*
 * Dumps the qdiscs and classes of IFINDEX into OUT (emptied first; OUT is
 * { NULL, 0 } or a list from before). Each receive waits at most 2 s.
 * Returns 0, or -errno with ERR describing it and OUT empty: -ENOSYS
 * without libmnl ("built without libmnl"), -ETIMEDOUT when the kernel
 * does not answer, -EPROTO for an answer to another request, -EINVAL for
 * a malformed one or an IFINDEX <= 0.
 */
int qdisc_dump(int ifindex, struct qdisc_list *out, char *err, size_t errlen);

void qdisc_list_free(struct qdisc_list *l);

/*
 * Where the incoming traffic of an interface is redirected to be shaped:
 * OpenWrt's SQM (and most ingress shaping) puts an ingress qdisc on the
 * WAN interface with a filter whose action is `mirred egress redirect dev
 * ifb0`, and the shaper (tbf, htb, cake) on ifb0's egress.
 */
struct qdisc_redirect {
	int ifindex;			/* the device of the first mirred egress redirect; 0 = none */
	char classifier[16];		/* the filter that carries it: "u32", "matchall", "flower", ... */
};

/*
 * Parses the RTM_NEWTFILTER messages in BUF (LEN bytes, as qdisc_parse())
 * for interface IFINDEX (0 = any) into OUT, which keeps the first
 * redirect found (OUT starts zeroed). The actions of u32, matchall,
 * flower, basic, bpf and fw filters are read; a mirror (a copy) is no
 * redirect. Returns 1 at NLMSG_DONE, 0 when more may follow, -EINVAL on
 * a malformed message (an action list, a kind, a struct tc_mirred cut
 * short), -errno of an NLMSG_ERROR, -ENOSYS without libmnl.
 */
int qdisc_parse_filters(const void *buf, size_t len, int ifindex, struct qdisc_redirect *out);

/*
 * Dumps the filters on the ingress side of IFINDEX (RTM_GETTFILTER, parent
 * ffff:fff2) into OUT. No ingress qdisc is no redirect (0, OUT zeroed).
 * Returns 0, or -errno with ERR as qdisc_dump().
 */
int qdisc_ingress_redirect(int ifindex, struct qdisc_redirect *out, char *err, size_t errlen);

/*
 * What entry Q of L can pass, in bits/s: its rate_bps, except an htb
 * class with a ceil above its rate. Such a class passes more than its
 * rate only by borrowing from its parent class, which lends at most what
 * it can pass itself: reach = max(rate, min(ceil, the parent's reach)). A
 * class directly under the qdisc (no parent class: nothing lends) reaches
 * its rate, whatever its ceil says; its children can reach their ceils
 * only up to it. 0 = it does not shape.
 */
double qdisc_reach_bps(const struct qdisc_list *l, const struct qdisc_info *q);

/* The parent class of class Q in L (the same kind), or NULL: a qdisc, a class under the qdisc itself. */
const struct qdisc_info *qdisc_parent(const struct qdisc_list *l, const struct qdisc_info *q);

/*
 * The entry that bounds egress: the shaping one with the lowest reach
 * (qdisc_reach_bps()). Deliberately simple: in an htb tree this is the
 * lowest reach of any class, leaf or inner, whichever class the traffic
 * takes (the first of equal ones). NULL when none shapes.
 */
const struct qdisc_info *qdisc_limiting(const struct qdisc_list *l);

/* The entry of L with the same kind, class-ness, handle and parent as KEY; NULL if gone. */
const struct qdisc_info *qdisc_find(const struct qdisc_list *l, const struct qdisc_info *key);

#endif
