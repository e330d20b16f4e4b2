/* SPDX-License-Identifier: MIT */
/*
 * CPU affinity helpers over sched_setaffinity()/sched_getaffinity() and
 * sched_getcpu(); see affinity.h.
 *
 * The raw system calls take a thread id: on Linux, affinity is a property
 * of a thread, and "pid 0" is the calling thread, not the process.
 */
#include "affinity.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <unistd.h>

int affinity_pin_pid(pid_t tid, const cpu_set_t *set)
{
	if (sched_setaffinity(tid, sizeof(*set), set) < 0)
		return -errno;
	return 0;
}

int affinity_pin_self(const cpu_set_t *set)
{
	return affinity_pin_pid(0, set);
}

int affinity_get_pid(pid_t tid, cpu_set_t *out)
{
	CPU_ZERO(out);
	if (sched_getaffinity(tid, sizeof(*out), out) < 0)
		return -errno;
	return 0;
}

int affinity_get_self(cpu_set_t *out)
{
	return affinity_get_pid(0, out);
}

int affinity_current_cpu(void)
{
	int cpu = sched_getcpu();

	if (cpu < 0)
		return errno ? -errno : -ENOSYS;
	return cpu;
}

static int cpus_from_sysconf(int name)
{
	long n;

	errno = 0;
	n = sysconf(name);
	if (n < 1)
		return errno ? -errno : -ENOSYS;
	return n > INT_MAX ? INT_MAX : (int)n;
}

int affinity_online_cpus(void)
{
	return cpus_from_sysconf(_SC_NPROCESSORS_ONLN);
}

int affinity_configured_cpus(void)
{
	return cpus_from_sysconf(_SC_NPROCESSORS_CONF);
}

int affinity_format(char *buf, size_t len, const cpu_set_t *set)
{
	size_t pos = 0;
	bool first = true;

	if (len == 0)
		return -ENOSPC;
	buf[0] = '\0';
	for (int a = 0; a < CPU_SETSIZE; a++) {
		int b = a, n;

		if (!CPU_ISSET(a, set))
			continue;
		while (b + 1 < CPU_SETSIZE && CPU_ISSET(b + 1, set))
			b++;
		if (a == b)
			n = snprintf(buf + pos, len - pos, "%s%d",
				     first ? "" : ",", a);
		else
			n = snprintf(buf + pos, len - pos, "%s%d-%d",
				     first ? "" : ",", a, b);
		if (n < 0 || (size_t)n >= len - pos)
			return -ENOSPC;
		pos += (size_t)n;
		first = false;
		a = b;
	}
	return 0;
}
