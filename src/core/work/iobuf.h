/* SPDX-License-Identifier: MIT */
/*
 * I/O buffers for O_DIRECT requests, physically contiguous when the kernel
 * allows it.
 *
 * A direct read or write hands the buffer's pages to the device one
 * scatter-gather segment per physically contiguous run. A 1 MiB buffer of
 * scattered 4 KiB pages is 256 segments; on the development VM's virtio
 * disk (max_segments 254) that is two requests, and each segment is one
 * descriptor the host walks. Measured there (2026-12-04, O_DIRECT 1 MiB
 * sequential reads, one thread): scattered pages 2.0-2.5 GB/s at 46-71 us
 * of CPU per read, a contiguous buffer 4.7-6.7 GB/s at 23-46 us. Which one
 * a plain malloc() gets is luck of the page allocator; fio's seq-read
 * figure moved between the two by it, run to run.
 *
 * So a multi-page buffer is mapped 2 MiB-aligned and advised MADV_HUGEPAGE
 * (the transparent-huge-page "madvise" mode is the common default); where
 * THP is off or memory is fragmented it stays 4 KiB pages and still works.
 * iobuf_huge_bytes() says afterwards which one it became, so the result
 * can name it. Buffers whose requests fit in one page (4 KiB random I/O)
 * gain nothing from contiguity and are mapped plainly.
 */
#ifndef ENGPASS_IOBUF_H
#define ENGPASS_IOBUF_H

#include <stdbool.h>
#include <stddef.h>

#define IOBUF_HUGE_SIZE ((size_t)2 << 20)

struct iobuf {
	void *buf;		/* len bytes, 4096-aligned (2 MiB-aligned if huge_asked) */
	size_t len;
	bool huge_asked;	/* MADV_HUGEPAGE was asked and accepted */
	void *map;		/* the whole mapping, for munmap */
	size_t map_len;
};

/* Map len bytes (len > 0) for requests of piece bytes each; huge pages are
 * asked for only when a piece spans more than one page. Returns 0 or
 * -errno; the pages are not touched. */
int iobuf_alloc(struct iobuf *b, size_t len, size_t piece);
/* Bytes of the buffer backed by transparent huge pages after it was
 * touched, from /proc/self/smaps; -1 when that cannot be read. */
long long iobuf_huge_bytes(const struct iobuf *b);
void iobuf_free(struct iobuf *b);

#endif
