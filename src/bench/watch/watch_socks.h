/* SPDX-License-Identifier: MIT */
/*
 * The watched daemon's own sockets (watch --pid/--name): what `ss -ti`
 * shows of its TCP connections, read over sock_diag (core/kernel/sockdiag.h)
 * from the daemon's network namespace, and its UDP sockets' drops, over
 * the watch.
 *
 * Which sockets: the socket inodes of /proc/PID/fd and of its child
 * processes' (/proc/PID/task/TID/children: nginx's workers under the
 * master), listed again at every reading, so connections opened during
 * the watch are seen from their first reading on and closed ones keep
 * their last. A reading is one sock_diag dump of the namespace's TCP
 * sockets (kept by inode: core/kernel/sockdiag.h's cost, linear in the TCP
 * sockets of the namespace) and one pass over /proc/PID/net/udp and udp6
 * (the drops column, the last field, by inode). watch reads at its start,
 * every WATCH_SOCKS_EVERY_NS and at its end.
 *
 * What a socket moved over the watch is the difference of its first and
 * last readings: bytes_acked (sent and acknowledged) and bytes_received,
 * retransmitted segments (total_retrans), the chrono counters (busy,
 * rwnd_limited, sndbuf_limited); round trip, congestion window, delivery
 * rate and queues are the last reading's. The peers are ranked by the
 * bytes they moved (either way), the first WATCH_SOCKS_TOP are reported,
 * and the first is judged with sockdiag_judge() (receiving when it
 * received more than it sent).
 *
 * Errors are data: a namespace that cannot be entered or a sock_diag
 * that fails leaves the TCP part out with the reason (watch_socks_report()
 * says it); nothing prints or exits. Allocation aborts on OOM (xmalloc).
 */
#ifndef ENGPASS_WATCH_SOCKS_H
#define ENGPASS_WATCH_SOCKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/compiler.h"
#include "core/result/result.h"
#include "core/kernel/sockdiag.h"

#define WATCH_SOCKS_MAX		1024	/* sockets followed; past it new ones are not */
#define WATCH_SOCKS_TOP		5	/* peers reported */
#define WATCH_SOCKS_EVERY_NS	1000000000ULL	/* a reading a second between the edges */
#define WATCH_SOCKS_CHILDREN	64	/* child processes whose fds are listed */

struct watch_socks;

/*
 * Starts following the sockets of PID (and its children) under PROC_ROOT
 * (NULL = "/proc"). Nothing is read yet. Never NULL; caller frees with
 * watch_socks_free().
 */
struct watch_socks *watch_socks_new(const char *proc_root, pid_t pid);
void watch_socks_free(struct watch_socks *w);

/*
 * One reading at NOW_NS (monotonic): the sockets listed again, TCP over
 * sock_diag (opened in PID's namespace at the first reading; a failure is
 * kept as the reason and the TCP part left out), UDP drops from
 * /proc/PID/net. Returns 0, or -errno when the process's fds could not be
 * listed at all (it exited: the readings so far stay).
 */
int watch_socks_read(struct watch_socks *w, uint64_t now_ns);

/* The judgement of the busiest peer, for the verdict. */
struct watch_socks_judged {
	bool judged;
	char what[72];			/* "tcp 10.0.0.1:51413" */
	enum sockdiag_why why;
	char evidence[160];
};

/*
 * Into RES: the parameters (the peers), the method, the metrics of the
 * top peers and the totals, and the notes (retransmits, drops, the
 * judgement, a reason the TCP part is missing). *J gets the busiest
 * peer's judgement (judged false when there was none: no TCP peer moved
 * data, or one reading only).
 */
void watch_socks_report(const struct watch_socks *w, struct result *res, struct watch_socks_judged *j);

struct window;

/*
 * The busiest peer's judgement J as a candidate for the verdict
 * (verdict_net_candidate(), the time budget's own rules), weighted by the
 * share of the daemon's time its threads waited on the network in WIN's
 * view (the window must be between spans). Nothing when J was not
 * judged, the judgement names no limit, the window has no view, or the
 * budget judged a socket of its own (the verdict has that one).
 */
void watch_socks_verdict(const struct watch_socks_judged *j, const struct window *win, struct result *res);

/*
 * The drops field of one line of /proc/net/udp or udp6 (the last of its
 * fields) and its inode (the tenth), for the unit tests. Returns 0, or
 * -EINVAL for the header or a line with fewer than 13 fields.
 */
MUST_CHECK int watch_socks_udp_line(const char *line, size_t len, uint64_t *inode, uint64_t *drops);

#endif
