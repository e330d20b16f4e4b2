/* SPDX-License-Identifier: MIT */
/*
 * Thread cycle counter over perf_event_open(2); see cpu_cycles.h. The
 * counter is opened for pid 0 (the calling thread) on any CPU, read with
 * the enabled and running times so multiplexing can be detected and
 * corrected.
 */
#include "bench/cpu/cpu_cycles.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static int open_counter(bool exclude_kernel)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_HARDWARE;
	a.size = sizeof(a);
	a.config = PERF_COUNT_HW_CPU_CYCLES;
	a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	a.exclude_hv = 1;
	a.exclude_kernel = exclude_kernel;
	return (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

int cpu_cycles_open(struct cpu_cycles *c)
{
	c->user_only = false;
	c->fd = open_counter(false);
	if (c->fd < 0 && (errno == EACCES || errno == EPERM)) {
		c->user_only = true;
		c->fd = open_counter(true);
	}
	if (c->fd < 0)
		return -errno;
	return 0;
}

int cpu_cycles_read(const struct cpu_cycles *c, uint64_t *cycles, bool *scaled)
{
	uint64_t v[3];
	ssize_t n;

	if (scaled)
		*scaled = false;
	if (c->fd < 0)
		return -EBADF;
	n = read(c->fd, v, sizeof(v));
	if (n < 0)
		return -errno;
	if (n != (ssize_t)sizeof(v))
		return -EIO;
	if (!v[2])
		return -ENODATA;
	if (v[2] < v[1]) {
		*cycles = (uint64_t)((double)v[0] * (double)v[1] / (double)v[2]);
		if (scaled)
			*scaled = true;
	} else {
		*cycles = v[0];
	}
	return 0;
}

void cpu_cycles_close(struct cpu_cycles *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
}
