/* SPDX-License-Identifier: MIT */
/*
 * The server's side of a download on this box (--server-pid): the CPU of
 * the server process and of its children and theirs (nginx's workers under
 * its master, a forking server's per-client processes), and the CPU quota
 * of the server's cpu cgroup with its throttling, read at the download's
 * two edges (fetch_server.c). The quota and its counters come from
 * core/limits (limits_discover() for the server's PID, then
 * limits_counters_read()), the same code that reads the work's own quota;
 * the process tree is read here, since core/procwatch follows one process
 * and core/tstate's child scan is private to the time budget.
 *
 * What the verdict's "server" candidate needs from it is in struct
 * fetch_server_view: plain numbers, NaN where unknown.
 */
#ifndef ENGPASS_FETCH_SERVER_H
#define ENGPASS_FETCH_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/compiler.h"

/* Processes of the server followed (the process, its children and theirs). */
#define FETCH_SERVER_MAX_PROCS 256

/* One process of the tree at one edge. */
struct fetch_server_proc {
	pid_t pid;
	uint64_t starttime;	/* with pid, the process's identity */
	uint64_t ticks;		/* utime + stime + cutime + cstime, USER_HZ */
};

/*
 * The CPU ticks the tree used between edge A (NA processes) and edge B
 * (NB): for a process at both edges (same pid and starttime) the
 * difference, for one only at B (born during the download) all its
 * ticks; one only at A (exited) is lost, and *GONE counts them. Children
 * reaped by a process of the tree during the download are in that
 * process's cutime/cstime. Pure.
 */
uint64_t fetch_server_ticks(const struct fetch_server_proc *a, size_t na, const struct fetch_server_proc *b, size_t nb,
			    unsigned *gone);

struct fetch_server;

/*
 * Follows process PID under PROC_ROOT ("/proc"; SYS_ROOT "" for the real
 * cgroup files). *OUT is freed with fetch_server_free(). Returns 0;
 * -ESRCH when there is no such process, -errno when it cannot be read.
 * The cgroup quota is discovered here (once): a server moved to another
 * cgroup during the download is not followed.
 */
MUST_CHECK int fetch_server_new(struct fetch_server **out, const char *proc_root, pid_t pid);
void fetch_server_free(struct fetch_server *s);

/* Reads the tree's CPU and the quota's counters now: EDGE 0 at the first request, 1 after the last byte. */
void fetch_server_read(struct fetch_server *s, int edge);

/* What the two readings say. Percentages are of one CPU; NaN unknown. */
struct fetch_server_view {
	bool ok;			/* both edges read, the process still there at the second */
	pid_t pid;
	char comm[64];			/* the process's name at the first edge */
	unsigned nproc;			/* processes counted: the process and its descendants */
	unsigned gone;			/* of those at the first edge, exited before the second */
	double seconds;			/* between the edges */
	double cpu_s;			/* the tree's CPU */
	long clk_tck;
	uint64_t ticks;
	/* The cpu quota of the server's cgroup (core/limits). */
	int quota_state;		/* enum limit_state: LIMIT_NONE, LIMIT_SET, LIMIT_UNKNOWN */
	double quota_cpus;		/* CPUs: 0.01 = 1 % of one */
	char quota_source[192];		/* the files, or where none was found; for unknown the reason */
	double cg_usage_pct;		/* the quota's cgroup's usage over the download (NaN when unknown) */
	char cg_usage_source[192];
	double periods, throttled;	/* NaN when the counters were not read */
	double throttled_s;
};
void fetch_server_view(const struct fetch_server *s, struct fetch_server_view *out);

/*
 * The round trip TCP measures on the connection FD now: *SRTT_US the
 * smoothed one (what a request's answer took, server's quick answers
 * included: the request's ACK rides on the answer when it comes within
 * the delayed-ACK time), *MIN_RTT_US the least sample since the connect
 * (the handshake's, which the server's kernel answers: the path alone;
 * 0 when the kernel does not report it). Returns 0 or -errno.
 */
MUST_CHECK int fetch_tcp_rtt(int fd, uint32_t *srtt_us, uint32_t *min_rtt_us);

#endif
