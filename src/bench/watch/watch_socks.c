/* SPDX-License-Identifier: MIT */
/*
 * The watched daemon's sockets over the watch; see watch_socks.h for what
 * is read, when, and what is reported.
 */
#include "bench/watch/watch_socks.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lib/units.h"
#include "lib/xalloc.h"
#include "core/kernel/fdres.h"
#include "core/kernel/proc.h"
#include "core/observe/tstate.h"
#include "core/result/verdict.h"
#include "core/observe/window.h"

struct sock_ent {
	uint64_t inode;
	bool tcp, udp;
	bool have_a;
	struct sockdiag_tcp a, b;	/* TCP: the first and the last reading */
	uint64_t ta, tb;
	uint64_t drops_a, drops_b;	/* UDP */
	char udp_local[64];
};

struct watch_socks {
	char *root;
	pid_t pid;
	struct sockdiag *sd;
	bool sd_failed;
	char sd_why[96];
	struct sock_ent *e;
	size_t n;
	unsigned readings, over_cap;
	uint64_t t_first, t_last;
	uint64_t *ino;			/* scratch: the inodes of one listing */
	struct sockdiag_tcp *tcp;	/* scratch: their TCP readings */
};

struct watch_socks *watch_socks_new(const char *proc_root, pid_t pid)
{
	struct watch_socks *w = xcalloc(1, sizeof(*w));

	w->root = xstrdup(proc_root ? proc_root : "/proc");
	w->pid = pid;
	w->e = xcalloc(WATCH_SOCKS_MAX, sizeof(*w->e));
	w->ino = xcalloc(WATCH_SOCKS_MAX, sizeof(*w->ino));
	w->tcp = xcalloc(WATCH_SOCKS_MAX, sizeof(*w->tcp));
	return w;
}

void watch_socks_free(struct watch_socks *w)
{
	if (!w)
		return;
	sockdiag_close(w->sd);
	free(w->root);
	free(w->e);
	free(w->ino);
	free(w->tcp);
	free(w);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* Adds the socket inodes of process P's fds to W->ino (at most WATCH_SOCKS_MAX). Returns -errno when none could be listed. */
static int list_fds(struct watch_socks *w, pid_t p, size_t *n)
{
	char path[96], lp[128], link[64];
	struct dirent *de;
	DIR *d;

	if (proc_path(path, sizeof(path), "%s/%d/fd", w->root, (int)p) || !(d = opendir(path)))
		return -errno ? -errno : -ENOENT;
	while ((de = readdir(d)) && *n < WATCH_SOCKS_MAX) {
		enum fd_kind kind;
		uint64_t inode = 0;
		ssize_t len;

		if (de->d_name[0] < '0' || de->d_name[0] > '9' ||
		    proc_path(lp, sizeof(lp), "%s/%d/fd/%s", w->root, (int)p, de->d_name))
			continue;
		len = readlink(lp, link, sizeof(link) - 1);
		if (len <= 0)
			continue;
		link[len] = 0;
		if (fdres_parse_link(link, (size_t)len, &kind, &inode) == 0 && kind == FD_SOCKET && inode)
			w->ino[(*n)++] = inode;
	}
	closedir(d);
	return 0;
}

/* The child processes of W->pid, from its threads' children files, into KIDS (at most MAX). */
static size_t children(const struct watch_socks *w, pid_t *kids, size_t max)
{
	char path[96], file[128];
	struct dirent *de;
	size_t n = 0;
	DIR *d;

	if (proc_path(path, sizeof(path), "%s/%d/task", w->root, (int)w->pid) || !(d = opendir(path)))
		return 0;
	while ((de = readdir(d)) && n < max) {
		FILE *f;
		long v;

		if (de->d_name[0] < '0' || de->d_name[0] > '9' ||
		    proc_path(file, sizeof(file), "%s/%s/children", path, de->d_name) || !(f = fopen(file, "re")))
			continue;
		while (n < max && fscanf(f, "%ld", &v) == 1)
			if (v > 0)
				kids[n++] = (pid_t)v;
		fclose(f);
	}
	closedir(d);
	return n;
}

static struct sock_ent *find(struct watch_socks *w, uint64_t inode, bool add)
{
	for (size_t i = 0; i < w->n; i++)
		if (w->e[i].inode == inode)
			return &w->e[i];
	if (!add)
		return NULL;
	if (w->n == WATCH_SOCKS_MAX) {
		w->over_cap++;
		return NULL;
	}
	w->e[w->n].inode = inode;
	return &w->e[w->n++];
}

int watch_socks_udp_line(const char *line, size_t len, uint64_t *inode, uint64_t *drops)
{
	const char *p = line, *end = line + len;
	unsigned field = 0;
	char tok[32];

	*inode = *drops = 0;
	while (p < end) {
		const char *s;
		size_t l;
		char *e;
		unsigned long long v;

		while (p < end && (*p == ' ' || *p == '\t' || *p == '\n'))
			p++;
		if (p == end)
			break;
		s = p;
		while (p < end && *p != ' ' && *p != '\t' && *p != '\n')
			p++;
		l = (size_t)(p - s);
		field++;
		if (field != 10 && field < 13)
			continue;
		if (l >= sizeof(tok))
			return -EINVAL;
		memcpy(tok, s, l);
		tok[l] = 0;
		errno = 0;
		v = strtoull(tok, &e, 10);
		if (errno || *e || e == tok)
			return -EINVAL;
		if (field == 10)
			*inode = v;
		else
			*drops = v;	/* the last field wins */
	}
	return field >= 13 ? 0 : -EINVAL;
}

/* The UDP sockets among W->ino[0..N) from PID's /proc/PID/net/udp and udp6: their drops. */
static void read_udp(struct watch_socks *w, size_t n)
{
	static const char *const files[] = { "udp", "udp6" };
	char path[96], *line = NULL;
	size_t cap = 0;

	for (int f = 0; f < 2; f++) {
		FILE *fp;
		ssize_t len;

		if (proc_path(path, sizeof(path), "%s/%d/net/%s", w->root, (int)w->pid, files[f]) ||
		    !(fp = fopen(path, "re")))
			continue;
		while ((len = getline(&line, &cap, fp)) > 0) {
			uint64_t inode, drops;
			struct fdres_inet in;
			struct sock_ent *e;

			if (watch_socks_udp_line(line, (size_t)len, &inode, &drops) || !inode ||
			    !bsearch(&inode, w->ino, n, sizeof(*w->ino), cmp_u64) || !(e = find(w, inode, true)))
				continue;
			if (!e->udp) {
				e->udp = true;
				e->drops_a = drops;
				if (fdres_parse_inet_line(line, (size_t)len, f ? AF_INET6 : AF_INET, &in) == 0)
					fdres_format_addr(in.family, in.local, in.lport, e->udp_local, sizeof(e->udp_local));
			}
			e->drops_b = drops;
		}
		fclose(fp);
	}
	free(line);
}

int watch_socks_read(struct watch_socks *w, uint64_t now_ns)
{
	pid_t kids[WATCH_SOCKS_CHILDREN];
	size_t n = 0, nk, u = 0;
	int r, found;

	r = list_fds(w, w->pid, &n);
	if (r < 0)
		return r;
	nk = children(w, kids, WATCH_SOCKS_CHILDREN);
	for (size_t i = 0; i < nk; i++)
		(void)list_fds(w, kids[i], &n);	/* a child that exited meanwhile has none */
	/* Sorted and unique: a socket shared by the master and its workers is one. */
	qsort(w->ino, n, sizeof(*w->ino), cmp_u64);
	for (size_t i = 0; i < n; i++)
		if (!u || w->ino[u - 1] != w->ino[i])
			w->ino[u++] = w->ino[i];
	n = u;
	if (!w->readings)
		w->t_first = now_ns;
	w->t_last = now_ns;
	w->readings++;
	if (!w->sd && !w->sd_failed && sockdiag_open_ns(&w->sd, w->pid, w->sd_why, sizeof(w->sd_why)) < 0) {
		w->sd = NULL;
		w->sd_failed = true;
	}
	if (w->sd && n) {
		found = sockdiag_tcp_by_inode(w->sd, w->ino, n, w->tcp, w->sd_why, sizeof(w->sd_why));
		for (size_t i = 0; found > 0 && i < n; i++) {
			struct sock_ent *e;

			if (!w->tcp[i].found || !(e = find(w, w->ino[i], true)))
				continue;
			e->tcp = true;
			if (!e->have_a) {
				e->a = w->tcp[i];
				e->ta = now_ns;
				e->have_a = true;
			}
			e->b = w->tcp[i];
			e->tb = now_ns;
		}
	}
	read_udp(w, n);
	return 0;
}

/* ------------------------------------------------------------------ */
/* The report */

struct peer {
	const struct sock_ent *e;
	double sent, recv;	/* bytes over its readings */
	double dt;		/* seconds between its first and last reading */
};

static double delta(uint64_t a, uint64_t b)
{
	return b >= a ? (double)(b - a) : 0;
}

static int by_moved(const void *pa, const void *pb)
{
	const struct peer *a = pa, *b = pb;
	double x = a->sent + a->recv, y = b->sent + b->recv;

	return x < y ? 1 : x > y ? -1 : 0;
}

static struct metric *peer_metric(struct result *res, unsigned i, const char *name, enum unit u, double v,
				  bool higher, const char *label)
{
	char key[48], lab[96];
	struct metric *m;

	snprintf(key, sizeof(key), "peer%u_%s", i, name);
	snprintf(lab, sizeof(lab), "peer %u: %s", i, label);
	m = result_metric(res, key, u, v, lab);
	m->higher_is_better = higher;
	return m;
}

static void peer_report(struct result *res, unsigned i, const struct peer *p)
{
	const struct sockdiag_tcp *a = &p->e->a, *b = &p->e->b;
	double busy = b->have_limits ? delta(a->busy_time_us, b->busy_time_us) : NAN;
	double span_us = p->dt * 1e6;
	char key[16];

	snprintf(key, sizeof(key), "peer%u", i);
	result_param(res, key, "tcp %s > %s%s%s%s", b->local, b->peer[0] ? b->peer : "?", b->cong[0] ? " (" : "",
		     b->cong, b->cong[0] ? ")" : "");
	peer_metric(res, i, "received", UNIT_BITS_PER_S, p->dt > 0 ? p->recv * 8 / p->dt : NAN, true,
		    "received (bytes_received)");
	peer_metric(res, i, "sent", UNIT_BITS_PER_S, p->dt > 0 ? p->sent * 8 / p->dt : NAN, true,
		    "sent and acknowledged (bytes_acked)");
	if (!b->have_info)
		return;
	peer_metric(res, i, "rtt", UNIT_NS, b->rtt_us * 1000, false, "smoothed round trip (rtt)");
	if (b->min_rtt_us > 0)
		peer_metric(res, i, "min_rtt", UNIT_NS, b->min_rtt_us * 1000, false, "lowest round trip (min_rtt)");
	if (b->rcv_rtt_us > 0)
		peer_metric(res, i, "rcv_rtt", UNIT_NS, b->rcv_rtt_us * 1000, false, "receiver's round trip (rcv_rtt)");
	peer_metric(res, i, "cwnd", UNIT_COUNT, b->snd_cwnd, true, "congestion window, segments (cwnd)");
	if (b->have_bytes)
		peer_metric(res, i, "delivery_rate", UNIT_BITS_PER_S, (double)b->delivery_rate * 8, true,
			    "last delivery rate sample (delivery_rate)");
	if (b->have_limits && span_us > 0) {
		peer_metric(res, i, "busy", UNIT_PERCENT, 100 * busy / span_us, false,
			    "of the time with data in flight (busy_time)");
		peer_metric(res, i, "rwnd_limited", UNIT_PERCENT,
			    busy > 0 ? 100 * delta(a->rwnd_limited_us, b->rwnd_limited_us) / busy : NAN, false,
			    "of busy time limited by the peer's window");
		peer_metric(res, i, "sndbuf_limited", UNIT_PERCENT,
			    busy > 0 ? 100 * delta(a->sndbuf_limited_us, b->sndbuf_limited_us) / busy : NAN, false,
			    "of busy time limited by the send buffer");
	}
	peer_metric(res, i, "retransmits", UNIT_COUNT, delta(a->total_retrans, b->total_retrans), false,
		    "segments retransmitted (total_retrans)");
	peer_metric(res, i, "recv_queue", UNIT_BYTES, b->rqueue, false, "unread at the last reading (Recv-Q)");
	if (b->have_skmem)
		peer_metric(res, i, "rcvbuf", UNIT_BYTES, b->rcvbuf, true, "receive buffer (skmem rb)");
	if (b->have_snd_wnd)
		peer_metric(res, i, "peer_window", UNIT_BYTES, b->snd_wnd, true, "peer's advertised window (snd_wnd)");
}

void watch_socks_report(const struct watch_socks *w, struct result *res, struct watch_socks_judged *j)
{
	struct peer *p = xcalloc(w->n + 1, sizeof(*p));
	size_t np = 0, nlisten = 0, nudp = 0;
	double retrans = 0, sent_all = 0, drops = 0;
	char d[32];

	memset(j, 0, sizeof(*j));
	result_method(res, "sockets",
		      "the socket inodes of /proc/PID/fd (and of its child processes), read at the start, every %s and "
		      "at the end: TCP over sock_diag (inet_diag, as ss -ti) from the process's network namespace, "
		      "UDP drops from /proc/PID/net/udp and udp6; per peer the difference of its first and last "
		      "reading (bytes_acked, bytes_received, total_retrans, busy/rwnd/sndbuf-limited time), the rest "
		      "as last read; peers ranked by bytes moved; the busiest judged as the time budget judges a "
		      "socket (core/kernel/sockdiag.h)",
		      units_fmt_duration(d, sizeof(d), WATCH_SOCKS_EVERY_NS));
	for (size_t i = 0; i < w->n; i++) {
		const struct sock_ent *e = &w->e[i];

		if (e->udp) {
			nudp++;
			drops += delta(e->drops_a, e->drops_b);
		}
		if (!e->tcp || !e->have_a)
			continue;
		if (e->b.state == 10 /* LISTEN */) {
			nlisten++;
			continue;
		}
		p[np].e = e;
		p[np].sent = delta(e->a.bytes_acked, e->b.bytes_acked);
		p[np].recv = delta(e->a.bytes_received, e->b.bytes_received);
		p[np].dt = e->tb > e->ta ? (double)(e->tb - e->ta) / 1e9 : 0;
		retrans += delta(e->a.total_retrans, e->b.total_retrans) * (e->b.snd_mss ? e->b.snd_mss : 1448);
		sent_all += p[np].sent;
		np++;
	}
	qsort(p, np, sizeof(*p), by_moved);
	result_metric(res, "sockets_tcp", UNIT_COUNT, (double)np, "sockets: TCP connections seen");
	result_metric(res, "sockets_tcp_listening", UNIT_COUNT, (double)nlisten, "sockets: TCP listeners");
	result_metric(res, "sockets_udp", UNIT_COUNT, (double)nudp, "sockets: UDP sockets");
	if (nudp)
		result_metric(res, "udp_drops", UNIT_COUNT, drops, "sockets: UDP datagrams dropped (/proc/net/udp drops)")
			->higher_is_better = false;
	if (np)
		result_metric(res, "tcp_retransmitted", UNIT_BYTES, retrans,
			      "sockets: TCP bytes retransmitted (total_retrans x mss)")->higher_is_better = false;
	for (size_t i = 0; i < np && i < WATCH_SOCKS_TOP && p[i].sent + p[i].recv > 0; i++)
		peer_report(res, (unsigned)i + 1, &p[i]);
	if (w->sd_failed)
		result_note(res, "the daemon's TCP connections are not reported: sock_diag: %s", w->sd_why);
	if (w->over_cap)
		result_note(res, "the daemon had more than %d sockets: the later ones are not followed", WATCH_SOCKS_MAX);
	if (np && p[0].sent + p[0].recv > 0) {
		const struct sock_ent *e = p[0].e;
		bool recv = p[0].recv > p[0].sent;
		char moved[UNITS_FMT_LEN];

		units_fmt_bits(moved, sizeof(moved), p[0].dt > 0 ? (p[0].sent + p[0].recv) * 8 / p[0].dt : NAN);
		if (w->readings > 1 && p[0].dt > 0 && e->a.have_info && e->b.have_info) {
			j->judged = true;
			j->why = sockdiag_judge(&e->a, &e->b, p[0].dt, recv, j->evidence, sizeof(j->evidence));
			snprintf(j->what, sizeof(j->what), "tcp %s", e->b.peer[0] ? e->b.peer : e->b.local);
			result_note(res, "busiest peer %s (%s %s, of %zu TCP connections): %s -- %s", j->what,
				    recv ? "received" : "sent", moved, np, sockdiag_why_name(j->why), j->evidence);
		}
	}
	if (retrans > 0 && sent_all > 0)
		result_note(res, "the daemon's TCP connections retransmitted %.0f bytes, %.2f %% of what they sent: "
			    "loss on the path or a full queue at this load; the capacity beyond it may be lower than "
			    "the estimate", retrans, 100 * retrans / sent_all);
	if (drops > 0)
		result_note(res, "the daemon's UDP sockets dropped %.0f datagrams (their receive buffers were full: the "
			    "daemon did not read fast enough at this load)", drops);
	free(p);
}

void watch_socks_verdict(const struct watch_socks_judged *j, const struct window *win, struct result *res)
{
	const struct sysview_budget *b;
	struct verdict_candidate c;
	struct sysview *v;
	double pct = 0;

	if (!j->judged || !win)
		return;
	v = xcalloc(1, sizeof(*v));
	if (window_view(win, v) == 0) {
		b = &v->budget;
		for (unsigned i = 0; i < b->n; i++)
			if (!strcmp(b->e[i].state, tstate_kind_name(TS_NET)))
				pct += b->e[i].pct;
		/* A socket the budget judged itself is the verdict's already (budget_net). */
		if ((!b->net_why[0] || !strcmp(b->net_why, "unknown")) &&
		    verdict_net_candidate(sockdiag_why_name(j->why), pct, j->what, j->evidence, &c))
			result_verdict_candidate(res, c.resource, c.share, c.next_step, "%s", c.evidence);
	}
	free(v);
}
