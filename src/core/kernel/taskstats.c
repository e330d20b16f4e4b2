/* SPDX-License-Identifier: MIT */
/*
 * Delay accounting over the TASKSTATS generic netlink family; see
 * taskstats.h. libmnl builds the two requests (CTRL_CMD_GETFAMILY once,
 * TASKSTATS_CMD_GET per query) and walks the replies' attributes; the
 * struct taskstats inside is read here, field by field, each field only
 * when the reply's version has it and the attribute is long enough to
 * hold it (memcpy(), as payloads need not be 8-byte aligned: a MIPS
 * kernel pads with a TASKSTATS_TYPE_NULL attribute, which is skipped).
 * A reply cut short or inconsistent with its own version is refused
 * whole (-EINVAL), never half-used.
 */
#include "taskstats.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "core/kernel/proc.h"
#include "lib/xalloc.h"

#if HAVE_LIBMNL
#include <stddef.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <libmnl/libmnl.h>

#include "core/kernel/nlattr.h"
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/taskstats.h>

#if TASKSTATS_VERSION < 13
#error "linux/taskstats.h older than version 13 (Linux 6.2): the field offsets below need wpcopy_delay_total"
#endif
#endif

const char *taskstats_off_hint(void)
{
	return "kernel.task_delayacct=0; sysctl -w kernel.task_delayacct=1 turns it on";
}

int taskstats_delayacct_enabled(const char *proc_root)
{
	char path[256], line[32];
	int rc;

	rc = proc_path(path, sizeof(path), "%s/sys/kernel/task_delayacct", proc_root ? proc_root : "/proc");
	if (rc)
		return rc;
	rc = proc_read_line(path, line, sizeof(line));
	if (rc)
		return rc;
	if (!strcmp(line, "0"))
		return 0;
	if (!strcmp(line, "1"))
		return 1;
	return -EINVAL;
}

#if HAVE_LIBMNL

/* The largest attribute type read at any level (CTRL_ATTR_*, TASKSTATS_TYPE_*). */
#define ATTR_MAX 16
/* Seconds a receive waits for the kernel's answer. */
#define TASKSTATS_RECV_TIMEOUT_S 2
/* The receive buffer: a reply is under 1 KiB (596 bytes for version 16). */
#define TASKSTATS_BUF 8192

struct taskstats_conn {
	struct mnl_socket *nl;
	uint16_t family;
	unsigned portid, seq;
	union {
		char c[TASKSTATS_BUF];
		struct nlmsghdr align;
	} buf;
};

/*
 * Where each figure lies in struct taskstats: OFF in the layout of every
 * version but 15, SINCE the version that added it, SHIFT15 the number of
 * max/min pairs (16 bytes each) version 15 inserted before it (after
 * each *_delay_total from cpu to irq), DST its place in taskstats_delays.
 */
#if TASKSTATS_VERSION >= 14
#define OFF_IRQ_COUNT offsetof(struct taskstats, irq_count)
#define OFF_IRQ_TOTAL offsetof(struct taskstats, irq_delay_total)
#else
/* Version 14 appended irq_count and irq_delay_total after wpcopy_delay_total. */
#define OFF_IRQ_COUNT (offsetof(struct taskstats, wpcopy_delay_total) + 8)
#define OFF_IRQ_TOTAL (offsetof(struct taskstats, wpcopy_delay_total) + 16)
#endif

struct ts_field {
	uint16_t off;
	uint8_t since, shift15;
	uint16_t dst;
};

#define F(field, since, shift, dst) \
	{ (uint16_t)offsetof(struct taskstats, field), since, shift, (uint16_t)offsetof(struct taskstats_delays, dst) }

static const struct ts_field ts_fields[] = {
	F(cpu_count, 2, 0, cpu_count),
	F(cpu_delay_total, 2, 0, cpu_ns),
	F(blkio_count, 2, 1, blkio_count),
	F(blkio_delay_total, 2, 1, blkio_ns),
	F(swapin_count, 2, 2, swapin_count),
	F(swapin_delay_total, 2, 2, swapin_ns),
	F(cpu_run_real_total, 2, 3, cpu_run_ns),
	F(ac_etime, 2, 3, ac_etime_us),
	F(freepages_count, 7, 3, freepages_count),
	F(freepages_delay_total, 7, 3, freepages_ns),
	F(thrashing_count, 9, 4, thrashing_count),
	F(thrashing_delay_total, 9, 4, thrashing_ns),
	F(compact_count, 11, 5, compact_count),
	F(compact_delay_total, 11, 5, compact_ns),
	F(wpcopy_count, 13, 6, wpcopy_count),
	F(wpcopy_delay_total, 13, 6, wpcopy_ns),
	{ (uint16_t)OFF_IRQ_COUNT, 14, 7, (uint16_t)offsetof(struct taskstats_delays, irq_count) },
	{ (uint16_t)OFF_IRQ_TOTAL, 14, 7, (uint16_t)offsetof(struct taskstats_delays, irq_ns) },
};
#undef F

/*
 * Version 1 (2.6.18 release candidates only) had padding where version 2
 * put ac_exitcode, and its delay fields 8 bytes earlier: refused.
 */
#define TS_VERSION_MIN 2
/* The version that broke the layout (fixed by 16: "taskstats: fix struct taskstats breaks backward compatibility"). */
#define TS_VERSION_SHIFTED 15

/* The attributes in [p, p + len) by type into TB[0..ATTR_MAX]: nlattr_table(). */
static int attr_table(const void *p, size_t len, const struct nlattr **tb)
{
	return nlattr_table(p, len, tb, ATTR_MAX);
}

/*
 * One message in BUF (LEN bytes): NLH checked whole, with nothing after
 * it but its alignment padding. Returns 0 or -EINVAL.
 */
static int one_msg(const void *buf, size_t len, const struct nlmsghdr **nlh)
{
	*nlh = buf;
	if (len > INT_MAX || !nlattr_msg_ok(*nlh, (int)len))
		return -EINVAL;
	if (len > MNL_ALIGN((*nlh)->nlmsg_len))
		return -EINVAL;
	return 0;
}

/* The attributes after a message's genetlink header into TB; -EINVAL when it has none or they are cut. */
static int genl_table(const struct nlmsghdr *nlh, const struct genlmsghdr **g, const struct nlattr **tb)
{
	size_t plen = mnl_nlmsg_get_payload_len(nlh);

	if (plen < MNL_ALIGN(sizeof(**g)))
		return -EINVAL;
	*g = mnl_nlmsg_get_payload(nlh);
	return attr_table((const char *)*g + MNL_ALIGN(sizeof(**g)), plen - MNL_ALIGN(sizeof(**g)), tb);
}

/* struct taskstats in ATTR into OUT: the fields its version has, each inside the attribute. */
static int parse_stats(const struct nlattr *attr, struct taskstats_delays *out)
{
	const char *p = mnl_attr_get_payload(attr);
	size_t len = mnl_attr_get_payload_len(attr);
	uint16_t version;

	if (len < sizeof(version))
		return -EINVAL;
	memcpy(&version, p, sizeof(version));
	if (version < TS_VERSION_MIN)
		return -EINVAL;
	for (size_t i = 0; i < ARRAY_SIZE(ts_fields); i++) {
		const struct ts_field *f = &ts_fields[i];
		size_t off = f->off + (version == TS_VERSION_SHIFTED ? 16u * f->shift15 : 0);

		if (version < f->since)
			continue;
		if (off + sizeof(uint64_t) > len)
			return -EINVAL;	/* shorter than its version says */
		memcpy((char *)out + f->dst, p + off, sizeof(uint64_t));
	}
	out->version = version;
	out->have_freepages = version >= 7;
	out->have_thrashing = version >= 9;
	out->have_compact = version >= 11;
	out->have_wpcopy = version >= 13;
	out->have_irq = version >= 14;
	return 0;
}

/*
 * For one thread, a delay total longer than its life cannot be (1 ms of
 * slack for the elapsed time's truncation to microseconds).
 */
static uint32_t suspect_bits(const struct taskstats_delays *d)
{
	const struct {
		uint64_t ns;
		uint32_t bit;
	} v[] = {
		{ d->cpu_ns, TSD_SUSPECT_CPU },		{ d->blkio_ns, TSD_SUSPECT_BLKIO },
		{ d->swapin_ns, TSD_SUSPECT_SWAPIN },	{ d->freepages_ns, TSD_SUSPECT_FREEPAGES },
		{ d->thrashing_ns, TSD_SUSPECT_THRASHING }, { d->compact_ns, TSD_SUSPECT_COMPACT },
		{ d->wpcopy_ns, TSD_SUSPECT_WPCOPY },	{ d->irq_ns, TSD_SUSPECT_IRQ },
	};
	uint64_t life_ns;
	uint32_t bits = 0;

	if (d->is_tgid || d->ac_etime_us > (UINT64_MAX - 1000000) / 1000)
		return 0;
	life_ns = d->ac_etime_us * 1000 + 1000000;
	for (size_t i = 0; i < ARRAY_SIZE(v); i++)
		if (v[i].ns > life_ns)
			bits |= v[i].bit;
	return bits;
}

int taskstats_parse(const void *buf, size_t len, uint16_t family, struct taskstats_delays *out)
{
	const struct nlattr *tb[ATTR_MAX + 1], *nest[ATTR_MAX + 1], *aggr;
	const struct genlmsghdr *g;
	const struct nlmsghdr *nlh;
	uint16_t id_type;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = one_msg(buf, len, &nlh);
	if (rc)
		return rc;
	if (nlh->nlmsg_type == NLMSG_ERROR) {
		rc = nlattr_msg_error(nlh);
		return rc ? rc : -ENOMSG;	/* an acknowledgement is not a reply */
	}
	if (nlh->nlmsg_type != family || family < NLMSG_MIN_TYPE)
		return -ENOMSG;
	if (genl_table(nlh, &g, tb))
		return -EINVAL;
	if (g->cmd != TASKSTATS_CMD_NEW)
		return -ENOMSG;
	/* Exactly one aggregate: a thread's or a process's. */
	if (!!tb[TASKSTATS_TYPE_AGGR_PID] == !!tb[TASKSTATS_TYPE_AGGR_TGID])
		return -EINVAL;
	out->is_tgid = tb[TASKSTATS_TYPE_AGGR_TGID] != NULL;
	aggr = out->is_tgid ? tb[TASKSTATS_TYPE_AGGR_TGID] : tb[TASKSTATS_TYPE_AGGR_PID];
	id_type = out->is_tgid ? TASKSTATS_TYPE_TGID : TASKSTATS_TYPE_PID;
	if (attr_table(mnl_attr_get_payload(aggr), mnl_attr_get_payload_len(aggr), nest))
		goto bad;
	if (!nest[id_type] || mnl_attr_validate(nest[id_type], MNL_TYPE_U32) < 0 || !nest[TASKSTATS_TYPE_STATS])
		goto bad;
	out->id = mnl_attr_get_u32(nest[id_type]);
	if (parse_stats(nest[TASKSTATS_TYPE_STATS], out))
		goto bad;
	out->suspect = suspect_bits(out);
	return 0;
bad:
	memset(out, 0, sizeof(*out));
	return -EINVAL;
}

/* Sends NLH (in C's buffer); 0 or -errno. */
static int send_msg(struct taskstats_conn *c, const struct nlmsghdr *nlh)
{
	if (mnl_socket_sendto(c->nl, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	return 0;
}

/*
 * Receives the answer to request SEQ into C's buffer, skipping late
 * answers to earlier requests (a query that timed out). Returns the
 * length, or -errno (-ETIMEDOUT when nothing came within the timeout).
 */
static ssize_t recv_answer(struct taskstats_conn *c, unsigned seq)
{
	for (;;) {
		ssize_t n = mnl_socket_recvfrom(c->nl, c->buf.c, sizeof(c->buf.c));
		const struct nlmsghdr *h = &c->buf.align;

		if (n < 0)
			return errno == EAGAIN || errno == EWOULDBLOCK ? -ETIMEDOUT : -errno;
		if ((size_t)n >= sizeof(*h) && h->nlmsg_seq != seq)
			continue;
		if ((size_t)n >= sizeof(*h) && h->nlmsg_pid != c->portid && h->nlmsg_pid != 0)
			return -EPROTO;
		return n;
	}
}

static int query(struct taskstats_conn *c, uint16_t attr, pid_t id, struct taskstats_delays *out)
{
	struct nlmsghdr *nlh;
	struct genlmsghdr *g;
	ssize_t n;
	int rc;

	memset(out, 0, sizeof(*out));
	if (!c || id <= 0)
		return -EINVAL;
	nlh = mnl_nlmsg_put_header(c->buf.c);
	nlh->nlmsg_type = c->family;
	nlh->nlmsg_flags = NLM_F_REQUEST;
	nlh->nlmsg_seq = ++c->seq;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = TASKSTATS_CMD_GET;
	g->version = TASKSTATS_GENL_VERSION;
	mnl_attr_put_u32(nlh, attr, (uint32_t)id);
	rc = send_msg(c, nlh);
	if (rc)
		return rc;
	n = recv_answer(c, c->seq);
	if (n < 0)
		return (int)n;
	rc = taskstats_parse(c->buf.c, (size_t)n, c->family, out);
	if (rc == -ENOMSG ||
	    (!rc && (out->id != (uint32_t)id || out->is_tgid != (attr == TASKSTATS_CMD_ATTR_TGID))))
		rc = -EPROTO;
	if (rc)
		memset(out, 0, sizeof(*out));
	return rc;
}

int taskstats_tid(struct taskstats_conn *c, pid_t tid, struct taskstats_delays *out)
{
	return query(c, TASKSTATS_CMD_ATTR_PID, tid, out);
}

int taskstats_tgid(struct taskstats_conn *c, pid_t tgid, struct taskstats_delays *out)
{
	return query(c, TASKSTATS_CMD_ATTR_TGID, tgid, out);
}

/* CTRL_CMD_GETFAMILY for "TASKSTATS": C's family, or -errno with WHY. */
static int resolve_family(struct taskstats_conn *c, char *why, size_t whylen)
{
	const struct nlattr *tb[ATTR_MAX + 1];
	const struct genlmsghdr *rg;
	const struct nlmsghdr *rh;
	struct nlmsghdr *nlh;
	struct genlmsghdr *g;
	ssize_t n;
	int rc;

	nlh = mnl_nlmsg_put_header(c->buf.c);
	nlh->nlmsg_type = GENL_ID_CTRL;
	nlh->nlmsg_flags = NLM_F_REQUEST;
	nlh->nlmsg_seq = ++c->seq;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = CTRL_CMD_GETFAMILY;
	g->version = 1;
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, TASKSTATS_GENL_NAME);
	rc = send_msg(c, nlh);
	n = rc ? rc : recv_answer(c, c->seq);
	if (n < 0) {
		snprintf(why, whylen, "generic netlink family lookup: %s",
			 n == -ETIMEDOUT ? "no answer within 2 s" : strerror((int)-n));
		return (int)n;
	}
	if (one_msg(c->buf.c, (size_t)n, &rh)) {
		snprintf(why, whylen, "generic netlink family lookup: a malformed answer");
		return -EINVAL;
	}
	if (rh->nlmsg_type == NLMSG_ERROR) {
		rc = nlattr_msg_error(rh);
		if (rc == -ENOENT)
			snprintf(why, whylen, "the kernel has no TASKSTATS netlink family (CONFIG_TASKSTATS off)");
		else
			snprintf(why, whylen, "generic netlink family lookup: %s",
				 rc ? strerror(-rc) : "an acknowledgement, not an answer");
		return rc ? rc : -EPROTO;
	}
	if (rh->nlmsg_type != GENL_ID_CTRL || genl_table(rh, &rg, tb) || !tb[CTRL_ATTR_FAMILY_ID] ||
	    mnl_attr_validate(tb[CTRL_ATTR_FAMILY_ID], MNL_TYPE_U16) < 0 ||
	    mnl_attr_get_u16(tb[CTRL_ATTR_FAMILY_ID]) < NLMSG_MIN_TYPE) {
		snprintf(why, whylen, "generic netlink family lookup: a malformed answer");
		return -EINVAL;
	}
	c->family = mnl_attr_get_u16(tb[CTRL_ATTR_FAMILY_ID]);
	return 0;
}

int taskstats_open(struct taskstats_conn **out, char *why, size_t whylen)
{
	struct timeval tv = { TASKSTATS_RECV_TIMEOUT_S, 0 };
	struct taskstats_conn *c = xcalloc(1, sizeof(*c));
	struct taskstats_delays self;
	int rc;

	*out = NULL;
	c->nl = mnl_socket_open2(NETLINK_GENERIC, SOCK_CLOEXEC);
	if (!c->nl || setsockopt(mnl_socket_get_fd(c->nl), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0 ||
	    mnl_socket_bind(c->nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		rc = -errno;
		snprintf(why, whylen, "generic netlink socket: %s", strerror(-rc));
		goto fail;
	}
	c->portid = mnl_socket_get_portid(c->nl);
	c->seq = (unsigned)time(NULL);
	rc = resolve_family(c, why, whylen);
	if (rc)
		goto fail;
	rc = taskstats_tid(c, gettid(), &self);
	if (rc) {
		if (rc == -EPERM)
			snprintf(why, whylen, "taskstats query: permission denied (it needs CAP_NET_ADMIN)");
		else
			snprintf(why, whylen, "taskstats query of this thread: %s",
				 rc == -ETIMEDOUT ? "no answer within 2 s" : strerror(-rc));
		goto fail;
	}
	*out = c;
	return 0;
fail:
	taskstats_close(c);
	return rc;
}

void taskstats_close(struct taskstats_conn *c)
{
	if (!c)
		return;
	if (c->nl)
		mnl_socket_close(c->nl);
	free(c);
}

#else /* !HAVE_LIBMNL */

int taskstats_open(struct taskstats_conn **out, char *why, size_t whylen)
{
	*out = NULL;
	snprintf(why, whylen, "built without libmnl");
	return -ENOTSUP;
}

void taskstats_close(struct taskstats_conn *c)
{
	free(c);
}

int taskstats_tid(struct taskstats_conn *c, pid_t tid, struct taskstats_delays *out)
{
	(void)c;
	(void)tid;
	memset(out, 0, sizeof(*out));
	return -ENOTSUP;
}

int taskstats_tgid(struct taskstats_conn *c, pid_t tgid, struct taskstats_delays *out)
{
	(void)c;
	(void)tgid;
	memset(out, 0, sizeof(*out));
	return -ENOTSUP;
}

int taskstats_parse(const void *buf, size_t len, uint16_t family, struct taskstats_delays *out)
{
	(void)buf;
	(void)len;
	(void)family;
	memset(out, 0, sizeof(*out));
	return -ENOTSUP;
}

#endif
