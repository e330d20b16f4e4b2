/* SPDX-License-Identifier: MIT */
/*
 * sockdiag_probe PID SECONDS: the TCP sockets of process PID read twice
 * with core/sockdiag, SECONDS apart, from PID's own network namespace
 * (sockdiag_open_ns()), and what sockdiag_judge() says of each that is
 * established. For tests/verdict/sockdiag.sh, which watches daemons in
 * namespaces of their own, as engpass's watch --pid will.
 *
 * One line per socket, tab-separated: inode, local, peer, dir ("send"
 * when more was acked than received, else "recv"), the judgement's name,
 * bytes/s moved that way, rtt, min_rtt and rcv_rtt in us, busy,
 * rwnd_limited and sndbuf_limited in ms over the interval, the receive
 * queue at the second reading, the congestion control, the evidence.
 * Exit 0; 1 with a message on stderr when the process or its namespace
 * cannot be read.
 */
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/kernel/sockdiag.h"

#define MAX_SOCKS 256

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	static struct sockdiag_tcp a[MAX_SOCKS], b[MAX_SOCKS];
	uint64_t inodes[MAX_SOCKS];
	char path[64], link[128], why[256], ev[512];
	struct sockdiag *d;
	struct timespec ts;
	struct dirent *e;
	size_t n = 0;
	double secs, t0, dt;
	DIR *dir;
	int pid, rc;

	if (argc != 3 || (pid = atoi(argv[1])) <= 0 || !((secs = atof(argv[2])) > 0) || secs > 60) {
		fprintf(stderr, "usage: sockdiag_probe PID SECONDS\n");
		return 2;
	}
	snprintf(path, sizeof(path), "/proc/%d/fd", pid);
	dir = opendir(path);
	if (!dir) {
		fprintf(stderr, "sockdiag_probe: cannot open '%s': %s\n", path, strerror(errno));
		return 1;
	}
	while ((e = readdir(dir)) && n < MAX_SOCKS) {
		char fdpath[sizeof(path) + 260];
		unsigned long long ino;
		ssize_t l;

		snprintf(fdpath, sizeof(fdpath), "%s/%s", path, e->d_name);
		l = readlink(fdpath, link, sizeof(link) - 1);
		if (l <= 0)
			continue;
		link[l] = '\0';
		if (sscanf(link, "socket:[%llu]", &ino) == 1)
			inodes[n++] = ino;
	}
	closedir(dir);
	rc = sockdiag_open_ns(&d, pid, why, sizeof(why));
	if (rc) {
		fprintf(stderr, "sockdiag_probe: %s\n", why);
		return 1;
	}
	if (sockdiag_tcp_by_inode(d, inodes, n, a, why, sizeof(why)) < 0) {
		fprintf(stderr, "sockdiag_probe: %s\n", why);
		sockdiag_close(d);
		return 1;
	}
	t0 = now_s();
	ts.tv_sec = (time_t)secs;
	ts.tv_nsec = (long)((secs - (double)ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
	rc = sockdiag_tcp_by_inode(d, inodes, n, b, why, sizeof(why));
	dt = now_s() - t0;
	sockdiag_close(d);
	if (rc < 0) {
		fprintf(stderr, "sockdiag_probe: %s\n", why);
		return 1;
	}
	for (size_t i = 0; i < n; i++) {
		bool recv;
		uint64_t acked, got;
		enum sockdiag_why w;

		if (!a[i].have_info || !b[i].have_info || b[i].state != 1)
			continue;
		acked = b[i].bytes_acked - a[i].bytes_acked;
		got = b[i].bytes_received - a[i].bytes_received;
		recv = got > acked;
		w = sockdiag_judge(&a[i], &b[i], dt, recv, ev, sizeof(ev));
		printf("%llu\t%s\t%s\t%s\t%s\t%.0f\t%.0f\t%.0f\t%.0f\t%.0f\t%.0f\t%.0f\t%u\t%s\t%s\n",
		       (unsigned long long)b[i].inode, b[i].local, b[i].peer, recv ? "recv" : "send",
		       sockdiag_why_name(w), (double)(recv ? got : acked) / dt, b[i].rtt_us, b[i].min_rtt_us,
		       b[i].rcv_rtt_us, (double)(b[i].busy_time_us - a[i].busy_time_us) / 1000,
		       (double)(b[i].rwnd_limited_us - a[i].rwnd_limited_us) / 1000,
		       (double)(b[i].sndbuf_limited_us - a[i].sndbuf_limited_us) / 1000, b[i].rqueue, b[i].cong, ev);
	}
	return 0;
}
