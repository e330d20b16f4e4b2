/* SPDX-License-Identifier: MIT */
/*
 * Pure helpers of the disk benchmark; see disk_spec.h.
 */
#include "bench/disk/disk_spec.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>

#include "core/work/rng.h"

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

uint64_t disk_fill_plan(uint64_t asked, uint64_t min_bytes, uint64_t done, uint64_t done_ns, uint64_t left_ns,
			uint64_t align)
{
	double more;
	uint64_t plan;

	if (!done_ns || done >= asked)
		return asked;
	/* In double: a fast device's rate times a long allowance can pass 2^64. */
	more = (double)done * ((double)left_ns / (double)done_ns);
	plan = more >= (double)(asked - done) ? asked : done + (uint64_t)more;
	if (plan < asked)
		plan -= plan % align;
	if (plan < min_bytes)
		plan = min_bytes;
	return plan < asked ? plan : asked;
}

const char *const disk_workload_names[] = { "seq-read", "seq-write", "rand-read", "rand-write", "mixed", "torrent",
					    NULL };

const char *disk_workload_name(int wl)
{
	return wl >= 0 && wl < (int)(sizeof(disk_workload_names) / sizeof(disk_workload_names[0])) - 1
		       ? disk_workload_names[wl]
		       : "none";
}

/* The generic mount options: set or clear FLAG. */
static const struct {
	const char *name;
	unsigned long flag;
	bool set;
} mount_flags[] = {
	{ "sync", MS_SYNCHRONOUS, true },	{ "async", MS_SYNCHRONOUS, false },
	{ "dirsync", MS_DIRSYNC, true },	{ "noatime", MS_NOATIME, true },
	{ "atime", MS_NOATIME, false },		{ "nodiratime", MS_NODIRATIME, true },
	{ "diratime", MS_NODIRATIME, false },	{ "relatime", MS_RELATIME, true },
	{ "norelatime", MS_RELATIME, false },	{ "strictatime", MS_STRICTATIME, true },
	{ "lazytime", MS_LAZYTIME, true },	{ "nolazytime", MS_LAZYTIME, false },
	{ "nosuid", MS_NOSUID, true },		{ "nodev", MS_NODEV, true },
	{ "noexec", MS_NOEXEC, true },		{ "defaults", 0, true },
	{ "rw", 0, true },
};

/* Operations of mount(8), not options of a new mount. */
static const char *const mount_refused[] = { "ro", "remount", "bind", "rbind", "move", "loop", NULL };

/* Appends ITEM to the comma list BUF of LEN bytes; -E2BIG when it does not fit. */
static int list_append(char *buf, size_t len, const char *item, size_t ilen)
{
	size_t n = strlen(buf);
	int w = snprintf(buf + n, len - n, "%s%.*s", n ? "," : "", (int)ilen, item);

	return w < 0 || (size_t)w >= len - n ? -E2BIG : 0;
}

int disk_mount_opts_parse(const char *s, struct disk_mount_opts *out, char *bad, size_t badlen)
{
	memset(out, 0, sizeof(*out));
	if (bad && badlen)
		bad[0] = 0;
	if (!s || !*s) {
		snprintf(out->text, sizeof(out->text), "defaults");
		return 0;
	}
	while (1) {
		size_t len = strcspn(s, ",+"), i;
		bool known = false;

		if (!len) {
			if (bad && badlen)
				snprintf(bad, badlen, "(empty)");
			return -EINVAL;
		}
		for (i = 0; mount_refused[i]; i++)
			if (strlen(mount_refused[i]) == len && !strncmp(s, mount_refused[i], len)) {
				if (bad && badlen)
					snprintf(bad, badlen, "%.*s", (int)len, s);
				return -EINVAL;
			}
		for (i = 0; i < sizeof(mount_flags) / sizeof(mount_flags[0]); i++) {
			if (strlen(mount_flags[i].name) != len || strncmp(s, mount_flags[i].name, len))
				continue;
			known = true;
			if (mount_flags[i].set)
				out->flags |= mount_flags[i].flag;
			else
				out->flags &= ~mount_flags[i].flag;
			/* The atime modes exclude each other: the last one given wins. */
			if (mount_flags[i].set && (mount_flags[i].flag & (MS_NOATIME | MS_RELATIME | MS_STRICTATIME)))
				out->flags &= ~((MS_NOATIME | MS_RELATIME | MS_STRICTATIME) & ~mount_flags[i].flag);
		}
		if (!known && list_append(out->data, sizeof(out->data), s, len) < 0)
			return -E2BIG;
		if (list_append(out->text, sizeof(out->text), s, len) < 0)
			return -E2BIG;
		s += len;
		if (!*s)
			return 0;
		s++;
		if (!*s) {
			if (bad && badlen)
				snprintf(bad, badlen, "(empty)");
			return -EINVAL;
		}
	}
}

uint64_t disk_fs_image_size(uint64_t need)
{
	uint64_t s = need + need / 4 + 32 * DISK_MIB;

	return (s + DISK_MIB - 1) / DISK_MIB * DISK_MIB;
}

int disk_region_offset(uint64_t size, int region, uint64_t offset, uint64_t align, uint64_t min_len, uint64_t *off)
{
	uint64_t o;

	if (offset != UINT64_MAX) {
		if (offset % align || offset > size || size - offset < min_len)
			return -EINVAL;
		*off = offset;
		return 0;
	}
	switch (region) {
	case DISK_REGION_MIDDLE:
		o = size / 2;
		break;
	case DISK_REGION_END:
		o = size - (size / 3 < DISK_REGION_END_MAX ? size / 3 : DISK_REGION_END_MAX);
		break;
	default:
		o = 0;
		break;
	}
	o -= o % align;
	if (size - o < min_len)
		o = size < min_len ? 0 : (size - min_len) - (size - min_len) % align;
	*off = o;
	return size - o < min_len ? -EINVAL : 0;
}
