/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for src/core/kernel/qdisc.c. qdisc_parse() on netlink messages built
 * here with libmnl, as the kernel lays them out: a tbf with its 32-bit
 * rate and with TCA_TBF_RATE64, an htb qdisc and classes (rate and ceil,
 * 32- and 64-bit), cake with a base rate and unlimited, fq_codel (does not
 * shape), TCA_STATS2 and the old TCA_STATS, and the refusals: attributes
 * and messages cut short, a kind without its NUL or too long, a u64 of
 * the wrong size, bytes after the last message; NLMSG_DONE, NLMSG_ERROR
 * and another interface's messages. Then qdisc_limiting(), qdisc_find()
 * and what an htb class can reach (qdisc_reach_bps(): its rate without a
 * parent class to lend, up to its ceil with one) on what was parsed.
 *
 * As root, qdisc_dump() against the kernel: a forked child enters a new
 * network namespace (unshare(CLONE_NEWNET)), adds a dummy device d0 (or,
 * without the dummy module, uses the namespace's own lo), puts a tbf and
 * then an htb tree on it with ip(8) and tc(8) and dumps them. The
 * namespace ends with the child. Without root, unshare or the tools, the
 * reason is printed and the test is left out.
 *
 * Built without libmnl: both functions say -ENOSYS.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "config.h"
#include "core/kernel/qdisc.h"
#include "lib/compiler.h"

#if HAVE_LIBMNL
#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <libmnl/libmnl.h>
#include <linux/gen_stats.h>
#include <linux/pkt_sched.h>
#include <linux/pkt_cls.h>
#include <linux/rtnetlink.h>
#include <linux/tc_act/tc_mirred.h>

/* ------------------------------------------------------------------ */
/* Building messages */

/* A buffer of netlink messages, aligned as the kernel's are. */
struct msgs {
	union {
		char c[16384];
		struct nlmsghdr align;
	} u;
	size_t len;
};

static struct nlmsghdr *msg_start(struct msgs *m, uint16_t type)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(m->u.c + m->len);

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_MULTI;
	nlh->nlmsg_seq = 7;
	return nlh;
}

static void msg_end(struct msgs *m, struct nlmsghdr *nlh)
{
	m->len += MNL_ALIGN(nlh->nlmsg_len);
}

/* The header and struct tcmsg of an RTM_NEWQDISC or RTM_NEWTCLASS, and its TCA_KIND. */
static struct nlmsghdr *tc_start(struct msgs *m, uint16_t type, int ifindex, uint32_t handle, uint32_t parent,
				 const char *kind)
{
	struct nlmsghdr *nlh = msg_start(m, type);
	struct tcmsg *tcm = mnl_nlmsg_put_extra_header(nlh, sizeof(*tcm));

	tcm->tcm_family = AF_UNSPEC;
	tcm->tcm_ifindex = ifindex;
	tcm->tcm_handle = handle;
	tcm->tcm_parent = parent;
	if (kind)
		mnl_attr_put_strz(nlh, TCA_KIND, kind);
	return nlh;
}

static void put_done(struct msgs *m)
{
	struct nlmsghdr *nlh = msg_start(m, NLMSG_DONE);
	int zero = 0;

	mnl_nlmsg_put_extra_header(nlh, sizeof(zero));
	msg_end(m, nlh);
}

static void put_error(struct msgs *m, int error)
{
	struct nlmsghdr *nlh = msg_start(m, NLMSG_ERROR);
	struct nlmsgerr *e = mnl_nlmsg_put_extra_header(nlh, sizeof(*e));

	e->error = error;
	msg_end(m, nlh);
}

/* A tbf qdisc with RATE bytes/s in TCA_TBF_PARMS, and TCA_TBF_RATE64 when R64 is not 0. */
static void put_tbf(struct msgs *m, int ifindex, uint32_t handle, uint32_t rate, uint64_t r64)
{
	struct nlmsghdr *nlh = tc_start(m, RTM_NEWQDISC, ifindex, handle, TC_H_ROOT, "tbf");
	struct tc_tbf_qopt qopt = { 0 };
	struct nlattr *opts;

	qopt.rate.rate = rate;
	qopt.limit = 100000;
	qopt.buffer = 2000;
	opts = mnl_attr_nest_start(nlh, TCA_OPTIONS);
	mnl_attr_put(nlh, TCA_TBF_PARMS, sizeof(qopt), &qopt);
	if (r64)
		mnl_attr_put_u64(nlh, TCA_TBF_RATE64, r64);
	mnl_attr_nest_end(nlh, opts);
	msg_end(m, nlh);
}

/* An htb class; RATE64 and CEIL64 are added when not 0. */
static void put_htb_class(struct msgs *m, int ifindex, uint32_t handle, uint32_t parent, uint32_t rate,
			  uint32_t ceil, uint64_t rate64, uint64_t ceil64)
{
	struct nlmsghdr *nlh = tc_start(m, RTM_NEWTCLASS, ifindex, handle, parent, "htb");
	struct tc_htb_opt hopt = { 0 };
	struct nlattr *opts;

	hopt.rate.rate = rate;
	hopt.ceil.rate = ceil;
	hopt.quantum = 1500;
	opts = mnl_attr_nest_start(nlh, TCA_OPTIONS);
	mnl_attr_put(nlh, TCA_HTB_PARMS, sizeof(hopt), &hopt);
	if (rate64)
		mnl_attr_put_u64(nlh, TCA_HTB_RATE64, rate64);
	if (ceil64)
		mnl_attr_put_u64(nlh, TCA_HTB_CEIL64, ceil64);
	mnl_attr_nest_end(nlh, opts);
	msg_end(m, nlh);
}

static void put_htb_qdisc(struct msgs *m, int ifindex)
{
	struct nlmsghdr *nlh = tc_start(m, RTM_NEWQDISC, ifindex, 0x10000, TC_H_ROOT, "htb");
	struct tc_htb_glob g = { .version = 3, .rate2quantum = 10, .defcls = 0x10 };
	struct nlattr *opts;

	opts = mnl_attr_nest_start(nlh, TCA_OPTIONS);
	mnl_attr_put(nlh, TCA_HTB_INIT, sizeof(g), &g);
	mnl_attr_put_u32(nlh, TCA_HTB_DIRECT_QLEN, 1000);
	mnl_attr_nest_end(nlh, opts);
	msg_end(m, nlh);
}

static void put_cake(struct msgs *m, int ifindex, uint64_t base)
{
	struct nlmsghdr *nlh = tc_start(m, RTM_NEWQDISC, ifindex, 0x80010000, TC_H_ROOT, "cake");
	struct nlattr *opts;

	opts = mnl_attr_nest_start(nlh, TCA_OPTIONS);
	mnl_attr_put_u64(nlh, TCA_CAKE_BASE_RATE64, base);
	mnl_attr_put_u32(nlh, TCA_CAKE_DIFFSERV_MODE, 1);
	mnl_attr_put_u32(nlh, TCA_CAKE_RTT, 100000);
	mnl_attr_nest_end(nlh, opts);
	msg_end(m, nlh);
}

/* fq_codel with its options and both kinds of counters, as a kernel sends them. */
static void put_fq_codel(struct msgs *m, int ifindex)
{
	struct nlmsghdr *nlh = tc_start(m, RTM_NEWQDISC, ifindex, 0, TC_H_ROOT, "fq_codel");
	struct gnet_stats_basic b = { .bytes = 123456789012ULL, .packets = 4242 };
	struct gnet_stats_queue q = { .qlen = 3, .backlog = 4500, .drops = 17, .requeues = 2, .overlimits = 9 };
	struct tc_stats old = { .bytes = 1, .packets = 1, .drops = 1, .overlimits = 1, .qlen = 1, .backlog = 1 };
	struct nlattr *nest;

	nest = mnl_attr_nest_start(nlh, TCA_OPTIONS);
	mnl_attr_put_u32(nlh, TCA_FQ_CODEL_TARGET, 4999);
	mnl_attr_put_u32(nlh, TCA_FQ_CODEL_LIMIT, 10240);
	mnl_attr_nest_end(nlh, nest);
	nest = mnl_attr_nest_start(nlh, TCA_STATS2);
	mnl_attr_put(nlh, TCA_STATS_BASIC, sizeof(b), &b);
	mnl_attr_put(nlh, TCA_STATS_QUEUE, sizeof(q), &q);
	mnl_attr_nest_end(nlh, nest);
	mnl_attr_put(nlh, TCA_STATS, sizeof(old), &old);
	msg_end(m, nlh);
}

static struct msgs *msgs_new(void)
{
	return calloc(1, sizeof(struct msgs));
}

/* ------------------------------------------------------------------ */
/* qdisc_parse on crafted messages */

static void test_tbf_rate(void **state)
{
	struct msgs *m = msgs_new();
	struct qdisc_list l = { 0 };

	(void)state;
	put_tbf(m, 2, 0x80090000, 12500000, 0);	/* rate 100mbit */
	put_done(m);
	assert_int_equal(qdisc_parse(m->u.c, m->len, 2, &l), 1);
	assert_int_equal(l.n, 1);
	assert_string_equal(l.v[0].kind, "tbf");
	assert_false(l.v[0].is_class);
	assert_int_equal(l.v[0].handle, 0x80090000);
	assert_int_equal(l.v[0].parent, TC_H_ROOT);
	assert_true(l.v[0].rate_bps == 100e6);
	assert_true(l.v[0].ceil_bps == 0);
	assert_false(l.v[0].have_stats);
	assert_ptr_equal(qdisc_limiting(&l), &l.v[0]);
	qdisc_list_free(&l);
	assert_null(l.v);
	assert_int_equal(l.n, 0);
	free(m);
}

static void test_tbf_rate64(void **state)
{
	struct msgs *m = msgs_new();
	struct qdisc_list l = { 0 };

	(void)state;
	/* 40 Gbit/s: the 32-bit field holds ~0U, TCA_TBF_RATE64 the rate. */
	put_tbf(m, 2, 0x10000, UINT32_MAX, 5000000000ULL);
	assert_int_equal(qdisc_parse(m->u.c, m->len, 2, &l), 0);
	assert_int_equal(l.n, 1);
	assert_true(l.v[0].rate_bps == 40e9);
	qdisc_list_free(&l);
	free(m);
}

static void test_htb(void **state)
{
	struct msgs *m = msgs_new();
	struct qdisc_list l = { 0 };
	const struct qdisc_info *lim;

	(void)state;
	put_htb_qdisc(m, 3);
	/* 1:1 the parent, 200 Mbit/s both; 1:10 10 Mbit/s, may borrow to 50; 1:20 64-bit rates. */
	put_htb_class(m, 3, 0x10001, TC_H_ROOT, 25000000, 25000000, 0, 0);
	put_htb_class(m, 3, 0x10010, 0x10001, 1250000, 6250000, 0, 0);
	put_htb_class(m, 3, 0x10020, 0x10001, UINT32_MAX, UINT32_MAX, 6250000000ULL, 12500000000ULL);
	put_done(m);
	assert_int_equal(qdisc_parse(m->u.c, m->len, 3, &l), 1);
	assert_int_equal(l.n, 4);
	assert_string_equal(l.v[0].kind, "htb");
	assert_false(l.v[0].is_class);
	assert_true(l.v[0].rate_bps == 0);	/* the qdisc itself does not shape */
	assert_true(l.v[1].is_class);
	assert_true(l.v[1].rate_bps == 200e6 && l.v[1].ceil_bps == 200e6);
	assert_true(l.v[2].rate_bps == 10e6 && l.v[2].ceil_bps == 50e6);
	assert_int_equal(l.v[2].handle, 0x10010);
	assert_int_equal(l.v[2].parent, 0x10001);
	assert_true(l.v[3].rate_bps == 50e9 && l.v[3].ceil_bps == 100e9);
	/* The lowest reach: 1:10 borrows from 1:1 up to its ceil, 50 Mbit/s. */
	lim = qdisc_limiting(&l);
	assert_ptr_equal(lim, &l.v[2]);
	assert_true(qdisc_reach_bps(&l, &l.v[2]) == 50e6);
	assert_ptr_equal(qdisc_parent(&l, &l.v[2]), &l.v[1]);
	assert_null(qdisc_parent(&l, &l.v[1]));
	assert_null(qdisc_parent(&l, &l.v[0]));
	/* 1:20's rate is above what 1:1 lends: its own rate, 50 Gbit/s. */
	assert_true(qdisc_reach_bps(&l, &l.v[3]) == 50e9);
	qdisc_list_free(&l);
	free(m);
}

/*
 * What an htb class can reach (issue 34): beyond its rate only by
 * borrowing from a parent class, and no more than the parent can pass.
 */
static void test_htb_reach(void **state)
{
	static const struct {
		const char *what;
		struct {
			uint32_t handle, parent;
			double rate, ceil;	/* Mbit/s */
		} c[4];
		size_t n;
		double reach[4];	/* Mbit/s, per class */
		size_t limiting;	/* index among the classes */
	} k[] = {
		{ "a class under the qdisc: its rate, not its ceil",
		  { { 0x10010, TC_H_ROOT, 30, 60 } }, 1, { 30 }, 0 },
		{ "a parent of 60 lends the child its ceil",
		  { { 0x10001, TC_H_ROOT, 60, 60 }, { 0x10010, 0x10001, 30, 60 } }, 2, { 60, 60 }, 0 },
		{ "a parent that reaches 40 lends up to 40",
		  { { 0x10001, TC_H_ROOT, 40, 100 }, { 0x10010, 0x10001, 30, 60 } }, 2, { 40, 40 }, 0 },
		{ "a parent not above the child's rate lends nothing",
		  { { 0x10001, TC_H_ROOT, 20, 20 }, { 0x10010, 0x10001, 30, 60 } }, 2, { 20, 30 }, 0 },
		{ "three levels: the grandparent's rate bounds",
		  { { 0x10001, TC_H_ROOT, 50, 50 }, { 0x10002, 0x10001, 10, 80 }, { 0x10010, 0x10002, 5, 90 } }, 3,
		  { 50, 50, 50 }, 0 },
		{ "a child whose ceil is below what its parent lends",
		  { { 0x10001, TC_H_ROOT, 100, 100 }, { 0x10010, 0x10001, 10, 25 } }, 2, { 100, 25 }, 1 },
		{ "a loop (a fuzzed dump) ends, at a rate of the loop",
		  { { 0x10001, 0x10002, 10, 80 }, { 0x10002, 0x10001, 20, 90 } }, 2, { 20, 20 }, 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++) {
		struct msgs *m = msgs_new();
		struct qdisc_list l = { 0 };

		put_htb_qdisc(m, 3);
		for (size_t j = 0; j < k[i].n; j++)
			put_htb_class(m, 3, k[i].c[j].handle, k[i].c[j].parent, (uint32_t)(k[i].c[j].rate * 125000),
				      (uint32_t)(k[i].c[j].ceil * 125000), 0, 0);
		assert_int_equal(qdisc_parse(m->u.c, m->len, 3, &l), 0);
		assert_int_equal(l.n, k[i].n + 1);
		for (size_t j = 0; j < k[i].n; j++) {
			double r = qdisc_reach_bps(&l, &l.v[j + 1]);

			if (r != k[i].reach[j] * 1e6)
				fail_msg("%s: class %zu reaches %.0f, want %.0f", k[i].what, j, r, k[i].reach[j] * 1e6);
		}
		if (qdisc_limiting(&l) != &l.v[k[i].limiting + 1])
			fail_msg("%s: limiting is not class %zu", k[i].what, k[i].limiting);
		qdisc_list_free(&l);
		free(m);
	}
}

static void test_cake(void **state)
{
	struct msgs *m = msgs_new();
	struct qdisc_list l = { 0 };

	(void)state;
	put_cake(m, 4, 2500000);	/* bandwidth 20mbit */
	assert_int_equal(qdisc_parse(m->u.c, m->len, 4, &l), 0);
	assert_int_equal(l.n, 1);
	assert_string_equal(l.v[0].kind, "cake");
	assert_true(l.v[0].rate_bps == 20e6);
	assert_ptr_equal(qdisc_limiting(&l), &l.v[0]);
	qdisc_list_free(&l);

	/* cake unlimited: base rate 0, nothing shapes. */
	memset(m, 0, sizeof(*m));
	put_cake(m, 4, 0);
	assert_int_equal(qdisc_parse(m->u.c, m->len, 4, &l), 0);
	assert_int_equal(l.n, 1);
	assert_true(l.v[0].rate_bps == 0);
	assert_null(qdisc_limiting(&l));
	qdisc_list_free(&l);
	free(m);
}

static void test_fq_codel_and_stats(void **state)
{
	struct msgs *m = msgs_new();
	struct qdisc_list l = { 0 };
	const struct qdisc_info *q;

	(void)state;
	put_fq_codel(m, 5);
	put_done(m);
	assert_int_equal(qdisc_parse(m->u.c, m->len, 5, &l), 1);
	assert_int_equal(l.n, 1);
	q = &l.v[0];
	assert_string_equal(q->kind, "fq_codel");
	assert_true(q->rate_bps == 0);
	assert_null(qdisc_limiting(&l));
	/* TCA_STATS2 wins over the old TCA_STATS. */
	assert_true(q->have_stats);
	assert_int_equal(q->bytes, 123456789012ULL);
	assert_int_equal(q->packets, 4242);
	assert_int_equal(q->qlen, 3);
	assert_int_equal(q->backlog, 4500);
	assert_int_equal(q->drops, 17);
	assert_int_equal(q->requeues, 2);
	assert_int_equal(q->overlimits, 9);
	qdisc_list_free(&l);
	free(m);
}

/* Only the old TCA_STATS (struct tc_stats). */
static void test_old_stats(void **state)
{
	struct msgs *m = msgs_new();
	struct qdisc_list l = { 0 };
	struct nlmsghdr *nlh = tc_start(m, RTM_NEWQDISC, 1, 0, TC_H_ROOT, "pfifo_fast");
	struct tc_stats st = { .bytes = 5000000000ULL, .packets = 7, .drops = 1, .overlimits = 2, .qlen = 3,
			       .backlog = 300 };

	(void)state;
	mnl_attr_put(nlh, TCA_STATS, sizeof(st), &st);
	msg_end(m, nlh);
	assert_int_equal(qdisc_parse(m->u.c, m->len, 0, &l), 0);
	assert_int_equal(l.n, 1);
	assert_true(l.v[0].have_stats);
	assert_int_equal(l.v[0].bytes, 5000000000ULL);
	assert_int_equal(l.v[0].packets, 7);
	assert_int_equal(l.v[0].drops, 1);
	assert_int_equal(l.v[0].overlimits, 2);
	assert_int_equal(l.v[0].qlen, 3);
	assert_int_equal(l.v[0].backlog, 300);
	qdisc_list_free(&l);
	free(m);
}

/* A 12-byte struct gnet_stats_basic, as a 32-bit x86 kernel sends it, is read. */
static void test_short_basic_stats(void **state)
{
	struct msgs *m = msgs_new();
	struct qdisc_list l = { 0 };
	struct nlmsghdr *nlh = tc_start(m, RTM_NEWQDISC, 1, 0, TC_H_ROOT, "noqueue");
	struct gnet_stats_basic b = { .bytes = 99, .packets = 3 };
	struct nlattr *nest;

	(void)state;
	nest = mnl_attr_nest_start(nlh, TCA_STATS2);
	mnl_attr_put(nlh, TCA_STATS_BASIC, 12, &b);
	mnl_attr_nest_end(nlh, nest);
	msg_end(m, nlh);
	assert_int_equal(qdisc_parse(m->u.c, m->len, 1, &l), 0);
	assert_int_equal(l.n, 1);
	assert_int_equal(l.v[0].bytes, 99);
	assert_int_equal(l.v[0].packets, 3);
	qdisc_list_free(&l);
	free(m);
}

/* A message of another interface is skipped; 0 takes every interface. */
static void test_ifindex(void **state)
{
	struct msgs *m = msgs_new();
	struct qdisc_list l = { 0 };

	(void)state;
	put_tbf(m, 7, 0x10000, 125000, 0);
	put_fq_codel(m, 2);
	put_cake(m, 7, 1000);
	assert_int_equal(qdisc_parse(m->u.c, m->len, 2, &l), 0);
	assert_int_equal(l.n, 1);
	assert_string_equal(l.v[0].kind, "fq_codel");
	qdisc_list_free(&l);
	assert_int_equal(qdisc_parse(m->u.c, m->len, 0, &l), 0);
	assert_int_equal(l.n, 3);
	/* Appended to what OUT held. */
	assert_int_equal(qdisc_parse(m->u.c, m->len, 7, &l), 0);
	assert_int_equal(l.n, 5);
	qdisc_list_free(&l);
	free(m);
}

static void test_done_and_error(void **state)
{
	struct msgs *m = msgs_new();
	struct qdisc_list l = { 0 };

	(void)state;
	/* Nothing after NLMSG_DONE is read. */
	put_done(m);
	put_tbf(m, 1, 0x10000, 125000, 0);
	assert_int_equal(qdisc_parse(m->u.c, m->len, 0, &l), 1);
	assert_int_equal(l.n, 0);

	memset(m, 0, sizeof(*m));
	put_tbf(m, 1, 0x10000, 125000, 0);
	put_error(m, -EPERM);
	assert_int_equal(qdisc_parse(m->u.c, m->len, 0, &l), -EPERM);
	assert_int_equal(l.n, 1);	/* what came before stays */
	qdisc_list_free(&l);

	/* An acknowledgement (error 0) is no error. */
	memset(m, 0, sizeof(*m));
	put_error(m, 0);
	put_done(m);
	assert_int_equal(qdisc_parse(m->u.c, m->len, 0, &l), 1);

	/* A positive or absurd error, an error message too short for struct nlmsgerr. */
	memset(m, 0, sizeof(*m));
	put_error(m, 5);
	assert_int_equal(qdisc_parse(m->u.c, m->len, 0, &l), -EINVAL);
	memset(m, 0, sizeof(*m));
	put_error(m, -100000);
	assert_int_equal(qdisc_parse(m->u.c, m->len, 0, &l), -EINVAL);
	memset(m, 0, sizeof(*m));
	{
		struct nlmsghdr *nlh = msg_start(m, NLMSG_ERROR);

		mnl_nlmsg_put_extra_header(nlh, sizeof(int));
		msg_end(m, nlh);
	}
	assert_int_equal(qdisc_parse(m->u.c, m->len, 0, &l), -EINVAL);

	/* Empty input: nothing, and more may follow. */
	assert_int_equal(qdisc_parse(m->u.c, 0, 0, &l), 0);
	assert_int_equal(l.n, 0);
	free(m);
}

/* TCA_TBF_PARMS shorter than struct tc_tbf_qopt. */
static void test_truncated_attribute(void **state)
{
	struct msgs *m = msgs_new();
	struct qdisc_list l = { 0 };
	struct nlmsghdr *nlh;
	struct nlattr *opts;
	struct tc_tbf_qopt qopt = { .rate.rate = 125000 };

	(void)state;
	put_fq_codel(m, 1);
	nlh = tc_start(m, RTM_NEWQDISC, 1, 0x10000, TC_H_ROOT, "tbf");
	opts = mnl_attr_nest_start(nlh, TCA_OPTIONS);
	mnl_attr_put(nlh, TCA_TBF_PARMS, sizeof(qopt) - 4, &qopt);
	mnl_attr_nest_end(nlh, opts);
	msg_end(m, nlh);
	assert_int_equal(qdisc_parse(m->u.c, m->len, 0, &l), -EINVAL);
	assert_int_equal(l.n, 1);	/* the fq_codel before it stays */
	qdisc_list_free(&l);

	/* htb parameters and a queue-stats structure cut short. */
	memset(m, 0, sizeof(*m));
	nlh = tc_start(m, RTM_NEWTCLASS, 1, 0x10010, 0x10000, "htb");
	opts = mnl_attr_nest_start(nlh, TCA_OPTIONS);
	mnl_attr_put(nlh, TCA_HTB_PARMS, 8, &qopt);
	mnl_attr_nest_end(nlh, opts);
	msg_end(m, nlh);
	assert_int_equal(qdisc_parse(m->u.c, m->len, 0, &l), -EINVAL);
	memset(m, 0, sizeof(*m));
	nlh = tc_start(m, RTM_NEWQDISC, 1, 0, TC_H_ROOT, "noqueue");
	opts = mnl_attr_nest_start(nlh, TCA_STATS2);
	mnl_attr_put(nlh, TCA_STATS_QUEUE, 16, &qopt);
	mnl_attr_nest_end(nlh, opts);
	msg_end(m, nlh);
	assert_int_equal(qdisc_parse(m->u.c, m->len, 0, &l), -EINVAL);
	assert_int_equal(l.n, 0);
	free(m);
}

/* A u64 rate of 4 bytes, and one of 12. */
static void test_bad_u64(void **state)
{
	struct msgs *m = msgs_new();
	struct qdisc_list l = { 0 };
	uint32_t four[3] = { 1, 2, 3 };

	(void)state;
	for (size_t len = 4; len <= 12; len += 8) {
		struct nlmsghdr *nlh;
		struct nlattr *opts;

		memset(m, 0, sizeof(*m));
		nlh = tc_start(m, RTM_NEWQDISC, 1, 0x10000, TC_H_ROOT, "cake");
		opts = mnl_attr_nest_start(nlh, TCA_OPTIONS);
		mnl_attr_put(nlh, TCA_CAKE_BASE_RATE64, len, four);
		mnl_attr_nest_end(nlh, opts);
		msg_end(m, nlh);
		assert_int_equal(qdisc_parse(m->u.c, m->len, 0, &l), -EINVAL);
	}
	assert_int_equal(l.n, 0);
	free(m);
}

/* A message cut anywhere inside is refused, never read past LEN. */
static void test_cut_message(void **state)
{
	struct msgs *m = msgs_new();
	struct qdisc_list l = { 0 };

	(void)state;
	put_htb_class(m, 1, 0x10010, 0x10000, 1250000, 6250000, 0, 0);
	for (size_t cut = 1; cut < m->len; cut++) {
		char *copy = malloc(cut);

		memcpy(copy, m->u.c, cut);
		assert_int_equal(qdisc_parse(copy, cut, 0, &l), -EINVAL);
		free(copy);
	}
	assert_int_equal(l.n, 0);
	/* nlmsg_len shortened so the last attribute runs past it. */
	((struct nlmsghdr *)m->u.c)->nlmsg_len -= 4;
	assert_int_equal(qdisc_parse(m->u.c, m->len, 0, &l), -EINVAL);
	/* A nested attribute longer than its parent. */
	memset(m, 0, sizeof(*m));
	put_tbf(m, 1, 0x10000, 125000, 0);
	{
		struct nlmsghdr *nlh = (struct nlmsghdr *)m->u.c;
		struct nlattr *a;

		mnl_attr_for_each(a, nlh, sizeof(struct tcmsg)) {
			if (mnl_attr_get_type(a) == TCA_OPTIONS) {
				struct nlattr *inner = mnl_attr_get_payload(a);

				inner->nla_len = (uint16_t)(mnl_attr_get_payload_len(a) + 4);
			}
		}
	}
	assert_int_equal(qdisc_parse(m->u.c, m->len, 0, &l), -EINVAL);
	assert_int_equal(l.n, 0);
	free(m);
}

static void test_bad_kind(void **state)
{
	struct msgs *m = msgs_new();
	struct qdisc_list l = { 0 };
	struct nlmsghdr *nlh;

	(void)state;
	/* No TCA_KIND. */
	nlh = tc_start(m, RTM_NEWQDISC, 1, 0, TC_H_ROOT, NULL);
	msg_end(m, nlh);
	assert_int_equal(qdisc_parse(m->u.c, m->len, 0, &l), -EINVAL);
	/* No NUL. */
	memset(m, 0, sizeof(*m));
	nlh = tc_start(m, RTM_NEWQDISC, 1, 0, TC_H_ROOT, NULL);
	mnl_attr_put(nlh, TCA_KIND, 3, "tbf");
	msg_end(m, nlh);
	assert_int_equal(qdisc_parse(m->u.c, m->len, 0, &l), -EINVAL);
	/* Empty, and 16 characters (no room for the NUL in kind[16]). */
	memset(m, 0, sizeof(*m));
	nlh = tc_start(m, RTM_NEWQDISC, 1, 0, TC_H_ROOT, "");
	msg_end(m, nlh);
	assert_int_equal(qdisc_parse(m->u.c, m->len, 0, &l), -EINVAL);
	memset(m, 0, sizeof(*m));
	nlh = tc_start(m, RTM_NEWQDISC, 1, 0, TC_H_ROOT, "abcdefghijklmnop");
	msg_end(m, nlh);
	assert_int_equal(qdisc_parse(m->u.c, m->len, 0, &l), -EINVAL);
	/* 15 is fine. */
	memset(m, 0, sizeof(*m));
	nlh = tc_start(m, RTM_NEWQDISC, 1, 0, TC_H_ROOT, "abcdefghijklmno");
	msg_end(m, nlh);
	assert_int_equal(qdisc_parse(m->u.c, m->len, 0, &l), 0);
	assert_int_equal(l.n, 1);
	assert_string_equal(l.v[0].kind, "abcdefghijklmno");
	qdisc_list_free(&l);
	/* A message too short for struct tcmsg. */
	memset(m, 0, sizeof(*m));
	nlh = msg_start(m, RTM_NEWQDISC);
	mnl_nlmsg_put_extra_header(nlh, 8);
	msg_end(m, nlh);
	assert_int_equal(qdisc_parse(m->u.c, m->len, 0, &l), -EINVAL);
	assert_int_equal(l.n, 0);
	free(m);
}

/* Bytes after the last whole message; other message types are skipped. */
static void test_trailing_and_other(void **state)
{
	struct msgs *m = msgs_new();
	struct qdisc_list l = { 0 };
	struct nlmsghdr *nlh;

	(void)state;
	nlh = msg_start(m, RTM_NEWLINK);
	mnl_nlmsg_put_extra_header(nlh, 16);
	msg_end(m, nlh);
	nlh = msg_start(m, NLMSG_NOOP);
	msg_end(m, nlh);
	put_tbf(m, 1, 0x10000, 125000, 0);
	assert_int_equal(qdisc_parse(m->u.c, m->len, 0, &l), 0);
	assert_int_equal(l.n, 1);
	assert_int_equal(qdisc_parse(m->u.c, m->len + 8, 0, &l), -EINVAL);
	qdisc_list_free(&l);

	/*
	 * A message length of 2^31 or more, which libmnl's own check lets
	 * through, on a message that is skipped (so only the step to the
	 * next one would read it).
	 */
	memset(m, 0, sizeof(*m));
	put_tbf(m, 1, 0x10000, 125000, 0);
	nlh = (struct nlmsghdr *)(m->u.c + m->len);
	put_tbf(m, 1, 0x20000, 125000, 0);
	nlh->nlmsg_type = RTM_NEWLINK;
	nlh->nlmsg_len = 0xe0e0e0e0;
	assert_int_equal(qdisc_parse(m->u.c, m->len, 0, &l), -EINVAL);
	assert_int_equal(l.n, 1);
	qdisc_list_free(&l);
	free(m);
}

/*
 * A filter on an interface's ingress whose action list holds one mirred
 * action (EACTION to IFB); ACT is the classifier's action attribute.
 * MIRRED_LEN cuts struct tc_mirred short when below its size.
 */
static void put_filter(struct msgs *m, int ifindex, const char *kind, uint16_t act, int eaction, uint32_t ifb,
		       size_t mirred_len)
{
	struct nlmsghdr *nlh = tc_start(m, RTM_NEWTFILTER, ifindex, 0x800, 0xfffffff2, kind);
	struct tc_mirred mir = { .eaction = eaction, .ifindex = ifb };
	struct nlattr *opts, *acts, *one, *aopts;

	opts = mnl_attr_nest_start(nlh, TCA_OPTIONS);
	acts = mnl_attr_nest_start(nlh, act);
	one = mnl_attr_nest_start(nlh, 1);
	mnl_attr_put_strz(nlh, TCA_ACT_KIND, "mirred");
	aopts = mnl_attr_nest_start(nlh, TCA_ACT_OPTIONS);
	mnl_attr_put(nlh, TCA_MIRRED_PARMS, mirred_len, &mir);
	mnl_attr_nest_end(nlh, aopts);
	mnl_attr_nest_end(nlh, one);
	mnl_attr_nest_end(nlh, acts);
	mnl_attr_nest_end(nlh, opts);
	msg_end(m, nlh);
}

/* Ingress redirects (ifb): the first egress redirect counts, a mirror does not. */
static void test_filters(void **state)
{
	struct msgs *m = msgs_new();
	struct qdisc_redirect rd = { 0 };

	(void)state;
	/* The u32 hash table's own message (no options), a mirror, then the redirect. */
	msg_end(m, tc_start(m, RTM_NEWTFILTER, 3, 0x800, 0xfffffff2, "u32"));
	put_filter(m, 3, "u32", TCA_U32_ACT, TCA_EGRESS_MIRROR, 8, sizeof(struct tc_mirred));
	put_filter(m, 3, "u32", TCA_U32_ACT, TCA_EGRESS_REDIR, 9, sizeof(struct tc_mirred));
	put_filter(m, 3, "matchall", TCA_MATCHALL_ACT, TCA_EGRESS_REDIR, 10, sizeof(struct tc_mirred));
	put_done(m);
	assert_int_equal(qdisc_parse_filters(m->u.c, m->len, 3, &rd), 1);
	assert_int_equal(rd.ifindex, 9);
	assert_string_equal(rd.classifier, "u32");

	/* Another interface's filters are not read. */
	memset(&rd, 0, sizeof(rd));
	assert_int_equal(qdisc_parse_filters(m->u.c, m->len, 4, &rd), 1);
	assert_int_equal(rd.ifindex, 0);

	/* matchall alone. */
	memset(m, 0, sizeof(*m));
	memset(&rd, 0, sizeof(rd));
	put_filter(m, 3, "matchall", TCA_MATCHALL_ACT, TCA_EGRESS_REDIR, 10, sizeof(struct tc_mirred));
	assert_int_equal(qdisc_parse_filters(m->u.c, m->len, 3, &rd), 0);
	assert_int_equal(rd.ifindex, 10);
	assert_string_equal(rd.classifier, "matchall");

	/* A struct tc_mirred cut short: the message is refused. */
	memset(m, 0, sizeof(*m));
	memset(&rd, 0, sizeof(rd));
	put_filter(m, 3, "u32", TCA_U32_ACT, TCA_EGRESS_REDIR, 9, sizeof(struct tc_mirred) - 4);
	assert_int_equal(qdisc_parse_filters(m->u.c, m->len, 3, &rd), -EINVAL);
	assert_int_equal(rd.ifindex, 0);
	free(m);
}

static void test_find(void **state)
{
	struct msgs *m = msgs_new();
	struct qdisc_list a = { 0 }, b = { 0 };
	struct qdisc_info key;

	(void)state;
	put_htb_qdisc(m, 3);
	put_htb_class(m, 3, 0x10010, 0x10000, 1250000, 6250000, 0, 0);
	put_htb_class(m, 3, 0x10020, 0x10000, 1250000, 12500000, 0, 0);
	assert_int_equal(qdisc_parse(m->u.c, m->len, 3, &a), 0);
	memset(m, 0, sizeof(*m));
	put_htb_class(m, 3, 0x10020, 0x10000, 1250000, 12500000, 0, 0);
	put_htb_qdisc(m, 3);
	assert_int_equal(qdisc_parse(m->u.c, m->len, 3, &b), 0);
	assert_ptr_equal(qdisc_find(&b, &a.v[0]), &b.v[1]);
	assert_null(qdisc_find(&b, &a.v[1]));	/* 1:10 is gone */
	assert_ptr_equal(qdisc_find(&b, &a.v[2]), &b.v[0]);
	key = a.v[2];
	key.is_class = false;
	assert_null(qdisc_find(&b, &key));
	key = a.v[2];
	memcpy(key.kind, "hfsc", 5);
	assert_null(qdisc_find(&b, &key));
	qdisc_list_free(&a);
	assert_null(qdisc_find(&a, &key));
	assert_null(qdisc_limiting(&a));
	qdisc_list_free(&b);
	free(m);
}

static void test_dump_bad_ifindex(void **state)
{
	struct qdisc_list l = { 0 };
	char err[128] = "";

	(void)state;
	assert_int_equal(qdisc_dump(0, &l, err, sizeof(err)), -EINVAL);
	assert_true(err[0] != '\0');
	assert_int_equal(l.n, 0);
}

/* ------------------------------------------------------------------ */
/* qdisc_dump against the kernel, in a network namespace of a child */

/* Why the real test cannot run here, or NULL. */
static const char *no_real_dump(void)
{
	if (geteuid() != 0)
		return "not root";
	if (system("command -v ip >/dev/null 2>&1 && command -v tc >/dev/null 2>&1") != 0)
		return "no ip or tc (iproute2)";
	return NULL;
}

/* Runs CMD quietly (its output would break the TAP stream). */
static int run(const char *cmd)
{
	char line[512];

	snprintf(line, sizeof(line), "%s >/dev/null 2>&1", cmd);
	return system(line);
}

/* Sends a few datagrams out of DEV's namespace over loopback-style routing. */
static void send_some(void)
{
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons(9) };
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	char payload[100] = { 0 };

	if (fd < 0)
		return;
	to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	for (int i = 0; i < 5; i++)
		if (sendto(fd, payload, sizeof(payload), 0, (struct sockaddr *)&to, sizeof(to)) < 0)
			break;
	close(fd);
}

/*
 * The child: a network namespace of its own, a device there, a tbf then an
 * htb tree, each dumped. Writes "ok ...", "skip REASON" or "fail REASON"
 * to FD and exits.
 */
static void real_child(int fd)
{
	char msg[512], err[256];
	const char *dev = "d0";
	struct qdisc_list l = { 0 };
	const struct qdisc_info *lim;
	int ifindex, rc;

#define SAY(...) do { snprintf(msg, sizeof(msg), __VA_ARGS__); goto out; } while (0)
	if (unshare(CLONE_NEWNET) < 0)
		SAY("skip unshare(CLONE_NEWNET): %s", strerror(errno));
	if (run("ip link add d0 type dummy") != 0)
		dev = "lo";	/* no dummy module (a container): the namespace's own lo */
	snprintf(msg, sizeof(msg), "ip link set %s up", dev);
	if (run(msg) != 0)
		SAY("skip cannot bring %s up", dev);
	ifindex = (int)if_nametoindex(dev);
	if (ifindex <= 0)
		SAY("fail no index for %s", dev);

	snprintf(msg, sizeof(msg), "tc qdisc add dev %s root tbf rate 100mbit burst 32k latency 50ms", dev);
	if (run(msg) != 0)
		SAY("skip tc cannot add a tbf (sch_tbf missing?)");
	if (!strcmp(dev, "lo"))
		send_some();
	rc = qdisc_dump(ifindex, &l, err, sizeof(err));
	if (rc)
		SAY("fail qdisc_dump: %d %s", rc, err);
	lim = qdisc_limiting(&l);
	if (!lim || strcmp(lim->kind, "tbf") || lim->is_class || lim->parent != TC_H_ROOT)
		SAY("fail tbf: no limiting tbf among %zu entries", l.n);
	/* 100mbit is 12500000 bytes/s, which tbf keeps exactly. */
	if (fabs(lim->rate_bps - 100e6) > 8)
		SAY("fail tbf: rate %.0f bit/s, not 100e6", lim->rate_bps);
	if (!lim->have_stats)
		SAY("fail tbf: no counters");
	if (!strcmp(dev, "lo") && lim->packets < 5)
		SAY("fail tbf: %llu packets counted, sent 5", (unsigned long long)lim->packets);

	snprintf(msg, sizeof(msg), "tc qdisc del dev %s root", dev);
	run(msg);
	snprintf(msg, sizeof(msg), "tc qdisc add dev %s root handle 1: htb default 10", dev);
	if (run(msg) != 0)
		SAY("skip tc cannot add an htb (sch_htb missing?)");
	snprintf(msg, sizeof(msg), "tc class add dev %s parent 1: classid 1:10 htb rate 10mbit ceil 50mbit", dev);
	if (run(msg) != 0)
		SAY("fail tc cannot add the htb class");
	rc = qdisc_dump(ifindex, &l, err, sizeof(err));
	if (rc)
		SAY("fail qdisc_dump (htb): %d %s", rc, err);
	lim = qdisc_limiting(&l);
	if (!lim || strcmp(lim->kind, "htb") || !lim->is_class || lim->handle != 0x10010)
		SAY("fail htb: class 1:10 is not the limit among %zu entries", l.n);
	if (lim->ceil_bps != 50e6 || lim->rate_bps != 10e6)
		SAY("fail htb: rate %.0f ceil %.0f, not 10e6 and 50e6", lim->rate_bps, lim->ceil_bps);
	/* Under the qdisc itself: no parent class lends, so its rate. */
	if (qdisc_reach_bps(&l, lim) != 10e6)
		SAY("fail htb: class 1:10 (no parent class) reaches %.0f, not its rate 10e6", qdisc_reach_bps(&l, lim));
	snprintf(msg, sizeof(msg), "ok on %s: tbf and htb", dev);
#undef SAY
out:
	qdisc_list_free(&l);
	if (write(fd, msg, strlen(msg)) < 0)
		_exit(2);
	_exit(0);
}

static void test_real_dump(void **state)
{
	char msg[512];
	int p[2], status;
	ssize_t n;
	size_t got = 0;
	pid_t pid;

	(void)state;
	fflush(NULL);
	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(p[0]);
		real_child(p[1]);
	}
	close(p[1]);
	while (got < sizeof(msg) - 1 && (n = read(p[0], msg + got, sizeof(msg) - 1 - got)) > 0)
		got += (size_t)n;
	msg[got] = '\0';
	close(p[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	if (!strncmp(msg, "skip ", 5)) {
		printf("# skipped test_real_dump: %s\n", msg + 5);
		return;
	}
	if (strncmp(msg, "ok", 2))
		fail_msg("%s", got ? msg : "the child said nothing");
	printf("# %s\n", msg);
}

int main(void)
{
	const struct CMUnitTest pure[] = {
		cmocka_unit_test(test_tbf_rate),
		cmocka_unit_test(test_tbf_rate64),
		cmocka_unit_test(test_htb),
		cmocka_unit_test(test_htb_reach),
		cmocka_unit_test(test_cake),
		cmocka_unit_test(test_fq_codel_and_stats),
		cmocka_unit_test(test_old_stats),
		cmocka_unit_test(test_short_basic_stats),
		cmocka_unit_test(test_ifindex),
		cmocka_unit_test(test_done_and_error),
		cmocka_unit_test(test_truncated_attribute),
		cmocka_unit_test(test_bad_u64),
		cmocka_unit_test(test_cut_message),
		cmocka_unit_test(test_bad_kind),
		cmocka_unit_test(test_trailing_and_other),
		cmocka_unit_test(test_find),
		cmocka_unit_test(test_filters),
		cmocka_unit_test(test_dump_bad_ifindex),
	};
	struct CMUnitTest tests[ARRAY_SIZE(pure) + 1];
	size_t n = 0;
	const char *why = no_real_dump();

	/* A skipped cmocka test is "not ok" in TAP: left out, the reason printed instead. */
	for (size_t i = 0; i < ARRAY_SIZE(pure); i++)
		tests[n++] = pure[i];
	if (why)
		printf("# skipped test_real_dump: %s\n", why);
	else
		tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_real_dump);
	return _cmocka_run_group_tests("qdisc", tests, n, NULL, NULL);
}

#else /* !HAVE_LIBMNL */

static void test_without_libmnl(void **state)
{
	struct qdisc_list l = { 0 };
	char err[64] = "";

	(void)state;
	assert_int_equal(qdisc_parse("", 0, 0, &l), -ENOSYS);
	assert_int_equal(qdisc_dump(1, &l, err, sizeof(err)), -ENOSYS);
	assert_string_equal(err, "built without libmnl");
	assert_int_equal(l.n, 0);
	assert_null(qdisc_limiting(&l));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_without_libmnl),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

#endif
