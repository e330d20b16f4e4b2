/* SPDX-License-Identifier: MIT */
/*
 * The qdiscs and classes of one interface over rtnetlink; see qdisc.h.
 * libmnl walks the messages and attributes and holds the socket; what an
 * attribute means (struct tc_tbf_qopt, struct tc_htb_opt, cake's base
 * rate, struct gnet_stats_*) is read here, each length checked before a
 * byte of it is read. A message that is cut short, an attribute whose
 * length runs past its parent, a kind that is not a NUL-terminated name:
 * the whole message is refused (-EINVAL), never half-used.
 *
 * Structures are read with memcpy() (payloads need not be aligned for
 * their 64-bit fields, which matters on MIPS) and need only be as long as
 * the fields read from them: struct gnet_stats_basic is 12 bytes on a
 * 32-bit x86 kernel and 16 on a 64-bit one, so an exact-length check
 * (mnl_attr_validate2) would refuse a 32-bit tool on a 64-bit kernel.
 */
#include "qdisc.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "lib/xalloc.h"

#if HAVE_LIBMNL
#include <stddef.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <libmnl/libmnl.h>

#include "core/kernel/nlattr.h"
#include <linux/gen_stats.h>
#include <linux/netlink.h>
#include <linux/pkt_sched.h>
#include <linux/pkt_cls.h>
#include <linux/rtnetlink.h>
#include <linux/tc_act/tc_mirred.h>
#endif

/* The minor part of a handle (TC_H_MIN of linux/pkt_sched.h, which a build without libmnl lacks). */
#define TC_H_MIN_(h) ((h) & 0xffffu)

void qdisc_list_free(struct qdisc_list *l)
{
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

const struct qdisc_info *qdisc_parent(const struct qdisc_list *l, const struct qdisc_info *q)
{
	if (!q->is_class || TC_H_MIN_(q->parent) == 0)
		return NULL;
	for (size_t i = 0; i < l->n; i++) {
		const struct qdisc_info *p = &l->v[i];

		if (p != q && p->is_class && p->handle == q->parent && !strcmp(p->kind, q->kind))
			return p;
	}
	return NULL;
}

/*
 * An htb class may pass its rate on its own tokens and more, up to its
 * ceil, only with what its parent class lends: the parent's own reach.
 * So reach(C) = max(rate, min(ceil, reach(parent))), and a class with no
 * parent class (under the qdisc itself) reaches its rate, whatever its
 * ceil says. Walked from the top of the chain down; a chain longer than
 * htb's 8 levels (a loop, in a fuzzed dump) is cut there.
 */
#define QDISC_MAX_DEPTH 16

double qdisc_reach_bps(const struct qdisc_list *l, const struct qdisc_info *q)
{
	const struct qdisc_info *chain[QDISC_MAX_DEPTH];
	size_t n = 0;
	double reach;

	if (!q->is_class || q->ceil_bps <= q->rate_bps)
		return q->rate_bps;
	for (const struct qdisc_info *c = q; c && n < QDISC_MAX_DEPTH; c = qdisc_parent(l, c))
		chain[n++] = c;
	reach = chain[n - 1]->rate_bps;
	for (size_t i = n - 1; i-- > 0;) {
		const struct qdisc_info *c = chain[i];
		double ceil = c->ceil_bps > 0 ? c->ceil_bps : c->rate_bps;

		reach = ceil < reach ? ceil : reach;
		if (c->rate_bps > reach)
			reach = c->rate_bps;
	}
	return reach;
}

const struct qdisc_info *qdisc_limiting(const struct qdisc_list *l)
{
	const struct qdisc_info *best = NULL;
	double best_r = 0;

	for (size_t i = 0; i < l->n; i++) {
		double r = qdisc_reach_bps(l, &l->v[i]);

		if (r > 0 && (!best || r < best_r)) {
			best = &l->v[i];
			best_r = r;
		}
	}
	return best;
}

const struct qdisc_info *qdisc_find(const struct qdisc_list *l, const struct qdisc_info *key)
{
	for (size_t i = 0; i < l->n; i++) {
		const struct qdisc_info *q = &l->v[i];

		if (q->is_class == key->is_class && q->handle == key->handle && q->parent == key->parent &&
		    !strcmp(q->kind, key->kind))
			return q;
	}
	return NULL;
}

#if HAVE_LIBMNL

/* The largest attribute type read at any level (TCA_*, TCA_STATS_*, TCA_TBF_*, ...). */
#define ATTR_MAX 32

/* The attributes in [p, p + len) by type into TB[0..ATTR_MAX]: nlattr_table(). */
static int attr_table(const void *p, size_t len, const struct nlattr **tb)
{
	return nlattr_table(p, len, tb, ATTR_MAX);
}

/* The nested attributes of NEST into TB, as attr_table(). */
static int nest_table(const struct nlattr *nest, const struct nlattr **tb)
{
	return attr_table(mnl_attr_get_payload(nest), mnl_attr_get_payload_len(nest), tb);
}

/* Copies the payload of ATTR into DST (SIZE bytes, zeroed first) if it holds at least MIN bytes. */
static int attr_struct(const struct nlattr *attr, void *dst, size_t size, size_t min)
{
	size_t len = mnl_attr_get_payload_len(attr);

	if (len < min)
		return -EINVAL;
	memset(dst, 0, size);
	memcpy(dst, mnl_attr_get_payload(attr), len < size ? len : size);
	return 0;
}

/* A u64 attribute of exactly 8 bytes. */
static int attr_u64(const struct nlattr *attr, uint64_t *v)
{
	if (mnl_attr_validate(attr, MNL_TYPE_U64) < 0)
		return -EINVAL;
	*v = mnl_attr_get_u64(attr);
	return 0;
}

/* tbf: TCA_TBF_PARMS' rate, or TCA_TBF_RATE64 (rates of 2^32 bytes/s and more). */
static int parse_tbf(const struct nlattr *opts, struct qdisc_info *q)
{
	const struct nlattr *tb[ATTR_MAX + 1];
	struct tc_tbf_qopt qopt;
	uint64_t r64;

	if (nest_table(opts, tb))
		return -EINVAL;
	if (tb[TCA_TBF_PARMS]) {
		if (attr_struct(tb[TCA_TBF_PARMS], &qopt, sizeof(qopt), sizeof(qopt)))
			return -EINVAL;
		q->rate_bps = 8.0 * qopt.rate.rate;
	}
	if (tb[TCA_TBF_RATE64]) {
		if (attr_u64(tb[TCA_TBF_RATE64], &r64))
			return -EINVAL;
		q->rate_bps = 8.0 * (double)r64;
	}
	return 0;
}

/* An htb class: TCA_HTB_PARMS' rate and ceil, or their 64-bit forms. */
static int parse_htb_class(const struct nlattr *opts, struct qdisc_info *q)
{
	const struct nlattr *tb[ATTR_MAX + 1];
	struct tc_htb_opt hopt;
	uint64_t r64;

	if (nest_table(opts, tb))
		return -EINVAL;
	if (tb[TCA_HTB_PARMS]) {
		if (attr_struct(tb[TCA_HTB_PARMS], &hopt, sizeof(hopt), sizeof(hopt)))
			return -EINVAL;
		q->rate_bps = 8.0 * hopt.rate.rate;
		q->ceil_bps = 8.0 * hopt.ceil.rate;
	}
	if (tb[TCA_HTB_RATE64]) {
		if (attr_u64(tb[TCA_HTB_RATE64], &r64))
			return -EINVAL;
		q->rate_bps = 8.0 * (double)r64;
	}
	if (tb[TCA_HTB_CEIL64]) {
		if (attr_u64(tb[TCA_HTB_CEIL64], &r64))
			return -EINVAL;
		q->ceil_bps = 8.0 * (double)r64;
	}
	return 0;
}

/* cake: TCA_CAKE_BASE_RATE64 in bytes/s; 0 is "unlimited", which does not shape. */
static int parse_cake(const struct nlattr *opts, struct qdisc_info *q)
{
	const struct nlattr *tb[ATTR_MAX + 1];
	uint64_t r64;

	if (nest_table(opts, tb))
		return -EINVAL;
	if (tb[TCA_CAKE_BASE_RATE64]) {
		if (attr_u64(tb[TCA_CAKE_BASE_RATE64], &r64))
			return -EINVAL;
		q->rate_bps = 8.0 * (double)r64;
	}
	return 0;
}

/* TCA_STATS2: TCA_STATS_BASIC and TCA_STATS_QUEUE. */
static int parse_stats2(const struct nlattr *nest, struct qdisc_info *q)
{
	const struct nlattr *tb[ATTR_MAX + 1];
	struct gnet_stats_basic b;
	struct gnet_stats_queue s;

	if (nest_table(nest, tb))
		return -EINVAL;
	if (tb[TCA_STATS_BASIC]) {
		if (attr_struct(tb[TCA_STATS_BASIC], &b, sizeof(b),
				offsetof(struct gnet_stats_basic, packets) + sizeof(b.packets)))
			return -EINVAL;
		q->bytes = b.bytes;
		q->packets = b.packets;
		q->have_stats = true;
	}
	if (tb[TCA_STATS_QUEUE]) {
		if (attr_struct(tb[TCA_STATS_QUEUE], &s, sizeof(s), sizeof(s)))
			return -EINVAL;
		q->qlen = s.qlen;
		q->backlog = s.backlog;
		q->drops = s.drops;
		q->requeues = s.requeues;
		q->overlimits = s.overlimits;
		q->have_stats = true;
	}
	return 0;
}

/* The old TCA_STATS (struct tc_stats), for a kernel that sends no TCA_STATS2. */
static int parse_stats(const struct nlattr *attr, struct qdisc_info *q)
{
	struct tc_stats st;

	if (attr_struct(attr, &st, sizeof(st), offsetof(struct tc_stats, backlog) + sizeof(st.backlog)))
		return -EINVAL;
	q->bytes = st.bytes;
	q->packets = st.packets;
	q->drops = st.drops;
	q->overlimits = st.overlimits;
	q->qlen = st.qlen;
	q->backlog = st.backlog;
	q->requeues = 0;	/* not in struct tc_stats */
	q->have_stats = true;
	return 0;
}

/*
 * One RTM_NEWQDISC or RTM_NEWTCLASS message into Q. Returns 1 with Q
 * filled, 0 when it is another interface's, -EINVAL when malformed.
 */
static int parse_tc(const struct nlmsghdr *nlh, int ifindex, struct qdisc_info *q)
{
	const struct nlattr *tb[ATTR_MAX + 1];
	const struct tcmsg *tcm;
	const char *kind;
	size_t klen;
	int rc = 0;

	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(*tcm))
		return -EINVAL;
	tcm = mnl_nlmsg_get_payload(nlh);
	if (ifindex && tcm->tcm_ifindex != ifindex)
		return 0;
	if (attr_table((const char *)tcm + MNL_ALIGN(sizeof(*tcm)),
		       mnl_nlmsg_get_payload_len(nlh) - MNL_ALIGN(sizeof(*tcm)), tb))
		return -EINVAL;
	/* Every qdisc and class has a kind: a name that fits, NUL-terminated. */
	if (!tb[TCA_KIND] || mnl_attr_validate(tb[TCA_KIND], MNL_TYPE_NUL_STRING) < 0)
		return -EINVAL;
	kind = mnl_attr_get_str(tb[TCA_KIND]);
	klen = strlen(kind);
	if (klen == 0 || klen >= sizeof(q->kind))
		return -EINVAL;

	memset(q, 0, sizeof(*q));
	memcpy(q->kind, kind, klen + 1);
	q->is_class = nlh->nlmsg_type == RTM_NEWTCLASS;
	q->handle = tcm->tcm_handle;
	q->parent = tcm->tcm_parent;

	/*
	 * Only these options carry a rate: a tbf or cake qdisc and an htb
	 * class. An htb qdisc (TCA_HTB_INIT) does not shape by itself, and
	 * the classes tbf and cake show for their children carry no options.
	 */
	if (tb[TCA_OPTIONS]) {
		if (!q->is_class && !strcmp(q->kind, "tbf"))
			rc = parse_tbf(tb[TCA_OPTIONS], q);
		else if (q->is_class && !strcmp(q->kind, "htb"))
			rc = parse_htb_class(tb[TCA_OPTIONS], q);
		else if (!q->is_class && !strcmp(q->kind, "cake"))
			rc = parse_cake(tb[TCA_OPTIONS], q);
	}
	if (!rc && tb[TCA_STATS2])
		rc = parse_stats2(tb[TCA_STATS2], q);
	else if (!rc && tb[TCA_STATS])
		rc = parse_stats(tb[TCA_STATS], q);
	return rc ? -EINVAL : 1;
}

int qdisc_parse(const void *buf, size_t len, int ifindex, struct qdisc_list *out)
{
	const struct nlmsghdr *nlh = buf;
	int left;

	if (len > INT_MAX)
		return -EINVAL;
	left = (int)len;
	while (nlattr_msg_ok(nlh, left)) {
		struct qdisc_info q;
		int rc;

		switch (nlh->nlmsg_type) {
		case NLMSG_DONE:
			return 1;
		case NLMSG_ERROR:
			rc = nlattr_msg_error(nlh);
			if (rc)
				return rc;
			break;
		case RTM_NEWQDISC:
		case RTM_NEWTCLASS:
			rc = parse_tc(nlh, ifindex, &q);
			if (rc < 0)
				return rc;
			if (rc) {
				out->v = xrealloc(out->v, (out->n + 1) * sizeof(*out->v));
				out->v[out->n++] = q;
			}
			break;
		default:
			break;	/* NLMSG_NOOP, other families' messages */
		}
		nlh = mnl_nlmsg_next(nlh, &left);
	}
	/* Bytes left over that do not make a whole message: a cut buffer. */
	return left > 0 ? -EINVAL : 0;
}

/* The attribute of each classifier's options that holds its action list. */
static const struct {
	const char *kind;
	uint16_t act;
} filter_acts[] = {
	{ "u32", TCA_U32_ACT }, { "matchall", TCA_MATCHALL_ACT }, { "flower", TCA_FLOWER_ACT },
	{ "basic", TCA_BASIC_ACT }, { "bpf", TCA_BPF_ACT }, { "fw", TCA_FW_ACT },
};

/*
 * The action list ACTS (nested, one nest per action in order): the
 * device of the first mirred egress redirect, into OUT when it has none
 * yet. A mirror is not a redirect: the packet goes on unshaped.
 */
static int parse_actions(const struct nlattr *acts, const char *kind, struct qdisc_redirect *out)
{
	const struct nlattr *tb[ATTR_MAX + 1], *a[ATTR_MAX + 1], *o[ATTR_MAX + 1];
	struct tc_mirred m;

	if (nest_table(acts, tb))
		return -EINVAL;
	for (int i = 1; i <= ATTR_MAX; i++) {
		if (!tb[i])
			continue;
		if (nest_table(tb[i], a))
			return -EINVAL;
		if (!a[TCA_ACT_KIND] || mnl_attr_validate(a[TCA_ACT_KIND], MNL_TYPE_NUL_STRING) < 0)
			return -EINVAL;
		if (strcmp(mnl_attr_get_str(a[TCA_ACT_KIND]), "mirred") || !a[TCA_ACT_OPTIONS])
			continue;
		if (nest_table(a[TCA_ACT_OPTIONS], o))
			return -EINVAL;
		if (!o[TCA_MIRRED_PARMS])
			continue;
		if (attr_struct(o[TCA_MIRRED_PARMS], &m, sizeof(m), sizeof(m)))
			return -EINVAL;
		if (m.eaction == TCA_EGRESS_REDIR && m.ifindex > 0 && m.ifindex <= INT32_MAX && !out->ifindex) {
			out->ifindex = (int)m.ifindex;
			snprintf(out->classifier, sizeof(out->classifier), "%s", kind);
		}
	}
	return 0;
}

/* One RTM_NEWTFILTER message: its redirect, if any. 1 parsed, 0 another interface's, -EINVAL. */
static int parse_filter(const struct nlmsghdr *nlh, int ifindex, struct qdisc_redirect *out)
{
	const struct nlattr *tb[ATTR_MAX + 1], *opt[ATTR_MAX + 1];
	const struct tcmsg *tcm;
	const char *kind;

	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(*tcm))
		return -EINVAL;
	tcm = mnl_nlmsg_get_payload(nlh);
	if (ifindex && tcm->tcm_ifindex != ifindex)
		return 0;
	if (attr_table((const char *)tcm + MNL_ALIGN(sizeof(*tcm)),
		       mnl_nlmsg_get_payload_len(nlh) - MNL_ALIGN(sizeof(*tcm)), tb))
		return -EINVAL;
	if (!tb[TCA_KIND] || mnl_attr_validate(tb[TCA_KIND], MNL_TYPE_NUL_STRING) < 0)
		return -EINVAL;
	kind = mnl_attr_get_str(tb[TCA_KIND]);
	if (!kind[0] || strlen(kind) >= sizeof(out->classifier))
		return -EINVAL;
	if (!tb[TCA_OPTIONS])
		return 1;
	for (size_t i = 0; i < sizeof(filter_acts) / sizeof(filter_acts[0]); i++) {
		if (strcmp(kind, filter_acts[i].kind))
			continue;
		if (nest_table(tb[TCA_OPTIONS], opt))
			return -EINVAL;
		if (opt[filter_acts[i].act] && parse_actions(opt[filter_acts[i].act], kind, out))
			return -EINVAL;
	}
	return 1;
}

int qdisc_parse_filters(const void *buf, size_t len, int ifindex, struct qdisc_redirect *out)
{
	const struct nlmsghdr *nlh = buf;
	int left, rc;

	if (len > INT_MAX)
		return -EINVAL;
	left = (int)len;
	while (nlattr_msg_ok(nlh, left)) {
		switch (nlh->nlmsg_type) {
		case NLMSG_DONE:
			return 1;
		case NLMSG_ERROR:
			rc = nlattr_msg_error(nlh);
			if (rc)
				return rc;
			break;
		case RTM_NEWTFILTER:
			rc = parse_filter(nlh, ifindex, out);
			if (rc < 0)
				return rc;
			break;
		default:
			break;
		}
		nlh = mnl_nlmsg_next(nlh, &left);
	}
	return left > 0 ? -EINVAL : 0;
}

/* qdisc_parse() with the dump_one() signature. */
static int parse_tc_dump(const void *buf, size_t len, int ifindex, void *out)
{
	return qdisc_parse(buf, len, ifindex, out);
}

static int parse_filter_dump(const void *buf, size_t len, int ifindex, void *out)
{
	return qdisc_parse_filters(buf, len, ifindex, out);
}

/* Seconds a receive may wait before the dump gives up. */
#define QDISC_RECV_TIMEOUT_S 2

/*
 * Sends one dump request of TYPE (RTM_GETQDISC, RTM_GETTCLASS) for
 * IFINDEX and parses the answers into OUT until NLMSG_DONE.
 */
static int dump_one(struct mnl_socket *nl, uint16_t type, int ifindex, uint32_t parent, unsigned seq, char *buf,
		    size_t bufsize, int (*parse)(const void *, size_t, int, void *), void *out, char *err,
		    size_t errlen)
{
	unsigned portid = mnl_socket_get_portid(nl);
	const char *what = type == RTM_GETQDISC ? "qdisc" : type == RTM_GETTCLASS ? "class" : "filter";
	struct nlmsghdr *nlh;
	struct tcmsg *tcm;

	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	nlh->nlmsg_seq = seq;
	tcm = mnl_nlmsg_put_extra_header(nlh, sizeof(*tcm));
	tcm->tcm_family = AF_UNSPEC;
	tcm->tcm_ifindex = ifindex;
	tcm->tcm_parent = parent;
	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0) {
		int e = errno;

		snprintf(err, errlen, "rtnetlink %s dump request: %s", what, strerror(e));
		return -e;
	}
	for (;;) {
		ssize_t n = mnl_socket_recvfrom(nl, buf, bufsize);
		const struct nlmsghdr *h;
		int left, rc;

		if (n < 0) {
			int e = errno == EAGAIN || errno == EWOULDBLOCK ? ETIMEDOUT : errno;

			snprintf(err, errlen, "rtnetlink %s dump: %s", what,
				 e == ETIMEDOUT ? "no answer within 2 s" : strerror(e));
			return -e;
		}
		/* Every message must answer this request. */
		left = (int)n;
		for (h = (const struct nlmsghdr *)buf; nlattr_msg_ok(h, left); h = mnl_nlmsg_next(h, &left)) {
			if (!mnl_nlmsg_seq_ok(h, seq) || !mnl_nlmsg_portid_ok(h, portid)) {
				snprintf(err, errlen, "rtnetlink %s dump: a message that answers another request",
					 what);
				return -EPROTO;
			}
		}
		rc = parse(buf, (size_t)n, ifindex, out);
		if (rc == 1)
			return 0;
		if (rc < 0) {
			if (rc == -EINVAL)
				snprintf(err, errlen, "rtnetlink %s dump: a malformed message", what);
			else
				snprintf(err, errlen, "rtnetlink %s dump: %s", what, strerror(-rc));
			return rc;
		}
	}
}

/* A bound rtnetlink socket with the receive timeout, or NULL with ERR and errno. */
static struct mnl_socket *nl_open(char *err, size_t errlen)
{
	struct timeval tv = { QDISC_RECV_TIMEOUT_S, 0 };
	struct mnl_socket *nl = mnl_socket_open2(NETLINK_ROUTE, SOCK_CLOEXEC);
	int e;

	if (!nl) {
		e = errno;
		snprintf(err, errlen, "rtnetlink socket: %s", strerror(e));
		errno = e;
		return NULL;
	}
	if (setsockopt(mnl_socket_get_fd(nl), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0 ||
	    mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		e = errno;
		snprintf(err, errlen, "rtnetlink socket: %s", strerror(e));
		mnl_socket_close(nl);
		errno = e;
		return NULL;
	}
	return nl;
}

int qdisc_dump(int ifindex, struct qdisc_list *out, char *err, size_t errlen)
{
	size_t bufsize = (size_t)MNL_SOCKET_BUFFER_SIZE;
	struct mnl_socket *nl;
	unsigned seq;
	char *buf;
	int rc;

	qdisc_list_free(out);
	if (ifindex <= 0) {
		snprintf(err, errlen, "no interface (index %d)", ifindex);
		return -EINVAL;
	}
	nl = nl_open(err, errlen);
	if (!nl)
		return -errno;
	buf = xmalloc(bufsize);
	seq = (unsigned)time(NULL);
	rc = dump_one(nl, RTM_GETQDISC, ifindex, 0, seq, buf, bufsize, parse_tc_dump, out, err, errlen);
	/* The kernel dumps the classes of every qdisc of the device named in tcm_ifindex. */
	if (!rc)
		rc = dump_one(nl, RTM_GETTCLASS, ifindex, 0, seq + 1, buf, bufsize, parse_tc_dump, out, err, errlen);
	free(buf);
	mnl_socket_close(nl);
	if (rc)
		qdisc_list_free(out);
	return rc;
}

int qdisc_ingress_redirect(int ifindex, struct qdisc_redirect *out, char *err, size_t errlen)
{
	size_t bufsize = (size_t)MNL_SOCKET_BUFFER_SIZE;
	struct mnl_socket *nl;
	char *buf;
	int rc;

	memset(out, 0, sizeof(*out));
	if (ifindex <= 0) {
		snprintf(err, errlen, "no interface (index %d)", ifindex);
		return -EINVAL;
	}
	nl = nl_open(err, errlen);
	if (!nl)
		return -errno;
	buf = xmalloc(bufsize);
	/*
	 * ffff:fff2 is the ingress side of an ingress or clsact qdisc (as
	 * `tc filter show dev IF ingress` asks); without one the kernel
	 * answers EINVAL or an empty dump: no redirect.
	 */
	rc = dump_one(nl, RTM_GETTFILTER, ifindex, TC_H_MAKE(TC_H_CLSACT, TC_H_MIN_INGRESS), (unsigned)time(NULL), buf,
		      bufsize, parse_filter_dump, out, err, errlen);
	free(buf);
	mnl_socket_close(nl);
	if (rc == -EINVAL || rc == -ENOENT) {
		memset(out, 0, sizeof(*out));
		rc = 0;
	}
	if (rc)
		memset(out, 0, sizeof(*out));
	return rc;
}

#else /* !HAVE_LIBMNL */

int qdisc_parse(const void *buf, size_t len, int ifindex, struct qdisc_list *out)
{
	(void)buf;
	(void)len;
	(void)ifindex;
	(void)out;
	return -ENOSYS;
}

int qdisc_dump(int ifindex, struct qdisc_list *out, char *err, size_t errlen)
{
	(void)ifindex;
	qdisc_list_free(out);
	snprintf(err, errlen, "built without libmnl");
	return -ENOSYS;
}

int qdisc_parse_filters(const void *buf, size_t len, int ifindex, struct qdisc_redirect *out)
{
	(void)buf;
	(void)len;
	(void)ifindex;
	(void)out;
	return -ENOSYS;
}

int qdisc_ingress_redirect(int ifindex, struct qdisc_redirect *out, char *err, size_t errlen)
{
	(void)ifindex;
	memset(out, 0, sizeof(*out));
	snprintf(err, errlen, "built without libmnl");
	return -ENOSYS;
}

#endif
