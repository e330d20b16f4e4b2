/* SPDX-License-Identifier: MIT */
/*
 * Pure helpers of the disk benchmark; see disk_spec.h.
 */
#include "bench/disk/disk_spec.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"

void disk_pattern(void *buf, size_t len, uint64_t seed, uint64_t index)
{
	uint64_t s = seed * 0xD1342543DE82EF95ULL + index * 0x9E3779B97F4A7C15ULL + 1;
	unsigned char *p = buf;
	size_t i = 0;

	for (; i + 8 <= len; i += 8) {
		uint64_t v = rng_next(&s);
		memcpy(p + i, &v, 8);
	}
	if (i < len) {
		uint64_t v = rng_next(&s);
		memcpy(p + i, &v, len - i);
	}
}

/* Parses "=N" after a prefix: N a decimal count >= 1. */
static int parse_every(const char *s, uint64_t *every)
{
	char *end;
	unsigned long long v;

	if (*s != '=' || s[1] < '0' || s[1] > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s + 1, &end, 10);
	if (errno || *end || v < 1)
		return -EINVAL;
	*every = v;
	return 0;
}

int disk_sync_parse(const char *s, enum disk_sync *mode, uint64_t *every)
{
	uint64_t n = 0;

	if (!strcmp(s, "none")) {
		*mode = DISK_SYNC_NONE;
	} else if (!strcmp(s, "end")) {
		*mode = DISK_SYNC_END;
	} else if (!strcmp(s, "osync")) {
		*mode = DISK_SYNC_OSYNC;
	} else if (!strcmp(s, "odsync")) {
		*mode = DISK_SYNC_ODSYNC;
	} else if (!strncmp(s, "fdatasync", 9) && !parse_every(s + 9, &n)) {
		*mode = DISK_SYNC_FDATASYNC;
	} else if (!strncmp(s, "fsync", 5) && !parse_every(s + 5, &n)) {
		*mode = DISK_SYNC_FSYNC;
	} else {
		return -EINVAL;
	}
	*every = n;
	return 0;
}

const char *disk_sync_name(enum disk_sync mode, uint64_t every, char *buf, size_t len)
{
	switch (mode) {
	case DISK_SYNC_NONE: snprintf(buf, len, "none"); break;
	case DISK_SYNC_END: snprintf(buf, len, "end"); break;
	case DISK_SYNC_FDATASYNC: snprintf(buf, len, "fdatasync=%llu", (unsigned long long)every); break;
	case DISK_SYNC_FSYNC: snprintf(buf, len, "fsync=%llu", (unsigned long long)every); break;
	case DISK_SYNC_OSYNC: snprintf(buf, len, "osync"); break;
	case DISK_SYNC_ODSYNC: snprintf(buf, len, "odsync"); break;
	}
	return buf;
}

uint64_t disk_default_size(uint64_t free_bytes)
{
	uint64_t s = free_bytes / 4;

	if (s > DISK_DEFAULT_MAX)
		s = DISK_DEFAULT_MAX;
	s -= s % DISK_MIB;
	return s < DISK_DEFAULT_MIN ? 0 : s;
}

const char *const disk_workload_names[] = { "seq-read", "seq-write", "rand-read", "rand-write", "mixed", "torrent",
					    NULL };

const char *disk_workload_name(int wl)
{
	return wl >= 0 && wl < (int)(sizeof(disk_workload_names) / sizeof(disk_workload_names[0])) - 1
		       ? disk_workload_names[wl]
		       : "none";
}
