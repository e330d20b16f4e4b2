/* SPDX-License-Identifier: MIT */
/* I/O buffers, huge-page backed where possible; the contract is in iobuf.h. */
#include "iobuf.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/kernel/proc.h"

static size_t round_up(size_t v, size_t to)
{
	return (v + to - 1) / to * to;
}

int iobuf_alloc(struct iobuf *b, size_t len, size_t piece)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	bool huge = piece > page;
	size_t align = huge ? IOBUF_HUGE_SIZE : page;

	memset(b, 0, sizeof(*b));
	if (!len)
		return -EINVAL;
	/* For huge pages, one extra huge page of address space buys the alignment. */
	b->map_len = round_up(len, align) + (huge ? align : 0);
	b->map = mmap(NULL, b->map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (b->map == MAP_FAILED) {
		int err = errno;

		memset(b, 0, sizeof(*b));
		return -err;
	}
	b->buf = (void *)(((uintptr_t)b->map + align - 1) & ~(uintptr_t)(align - 1));
	b->len = len;
#ifdef MADV_HUGEPAGE
	/* EINVAL without THP in the kernel: the buffer is plain pages then. */
	if (huge)
		b->huge_asked = madvise(b->buf, round_up(len, align), MADV_HUGEPAGE) == 0;
#endif
	return 0;
}

long long iobuf_huge_bytes(const struct iobuf *b)
{
	uintptr_t want = (uintptr_t)b->buf, end = want + b->len;
	long long total = 0;
	bool inside = false, seen = false;
	char line[256];
	FILE *f;

	if (!b->buf)
		return -1;
	f = fopen("/proc/self/smaps", "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		uintmax_t lo, hi;
		uint64_t kb;
		char *e;

		/* A mapping's header line: "lo-hi perms offset dev inode path". */
		if (isxdigit((unsigned char)line[0])) {
			lo = strtoumax(line, &e, 16);
			if (*e == '-' && isxdigit((unsigned char)e[1])) {
				hi = strtoumax(e + 1, &e, 16);
				if (*e == ' ') {
					inside = lo < end && hi > want;
					seen |= inside;
					continue;
				}
			}
		}
		if (inside && proc_kb_line(line, "AnonHugePages", &kb))
			total += (long long)kb * 1024;
	}
	fclose(f);
	if (total > (long long)b->len)
		total = (long long)b->len;	/* one 2 MiB page under a smaller buffer */
	return seen ? total : -1;
}

void iobuf_free(struct iobuf *b)
{
	if (b->map)
		munmap(b->map, b->map_len);
	memset(b, 0, sizeof(*b));
}
