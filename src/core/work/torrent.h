/* SPDX-License-Identifier: MIT */
/*
 * The torrent write pattern and an application write cache, modelled on
 * Transmission (research: cpu-crypto-router.md, section 2; seed 000).
 *
 * Order. A file of NBLOCKS 16 KiB blocks is cut into pieces of BPP blocks
 * (the last piece may be shorter). Pieces are taken in a random order (a
 * Fisher-Yates shuffle driven by the seed: rarest-first is close to random
 * for a fresh swarm); K pieces are in flight at once, as if K peers each
 * sent one piece; the next block comes from the in-flight pieces in turn
 * (round robin), and within a piece blocks arrive in order, lowest first,
 * as Transmission requests them. When a piece completes, the next piece
 * of the shuffled order takes its place.
 *
 * Cache. Blocks are held in memory (at most MAX_BLOCKS of them) sorted by
 * block index. Putting a block into a full cache first writes out the
 * longest run of adjacent cached blocks as one vectored write (4.x's
 * cache_trim() with find_biggest_span(); 2.94 ranked runs by length and
 * age), repeating until there is room. MAX_BLOCKS 0 writes every block
 * through at once: one write per block, as Transmission 4.x does with a
 * zero cache and current Transmission always does. flush_all() writes
 * every run, in file order.
 *
 * Both are pure: no files, no clocks. The writer is a callback, so the
 * unit tests can record the writes in memory.
 */
#ifndef ENGPASS_CORE_TORRENT_H
#define ENGPASS_CORE_TORRENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "lib/compiler.h"

#define TORRENT_BLOCK 16384u	/* Transmission's block size, 16 KiB */

struct torrent_slot {
	uint64_t piece;
	uint32_t next;		/* next block within the piece */
	uint32_t count;		/* blocks in this piece */
};

struct torrent_order {
	uint64_t nblocks, npieces;
	uint32_t bpp;			/* blocks per piece */
	uint64_t *perm;			/* shuffled piece order; owned */
	uint64_t next_perm;		/* index of the next piece to start */
	unsigned k, active, rr;
	struct torrent_slot *slot;	/* k entries, active in use; owned */
};

/* One block of the order. */
struct torrent_block {
	uint64_t block;		/* index in the file, in 16 KiB blocks */
	uint64_t piece;
	bool piece_done;	/* this block completes its piece */
};

/*
 * Sets up the order for NBLOCKS blocks, BPP blocks per piece, K pieces in
 * flight, shuffled with SEED. Returns 0, or -EINVAL when a count is 0.
 * Release with torrent_order_release().
 */
MUST_CHECK int torrent_order_init(struct torrent_order *o, uint64_t nblocks, uint32_t bpp, unsigned k,
				  uint64_t seed);

/* Next block into *OUT; false when every block has been given. */
bool torrent_order_next(struct torrent_order *o, struct torrent_block *out);

/* First block and block count of PIECE. */
void torrent_piece_range(const struct torrent_order *o, uint64_t piece, uint64_t *first, uint32_t *count);

void torrent_order_release(struct torrent_order *o);

/*
 * Writes IOVCNT buffers of whole blocks to the file, starting at block
 * FIRST, in one call. Returns 0 or -errno.
 */
typedef int (*torrent_write_fn)(void *arg, uint64_t first, const struct iovec *iov, int iovcnt);

struct torrent_cache_ent {
	uint64_t block;
	uint32_t slot;
};

struct torrent_cache {
	size_t max, n;
	unsigned char *pool;		/* max blocks, 4096-aligned; owned */
	struct torrent_cache_ent *ent;	/* n entries sorted by block; owned */
	uint32_t *freel;		/* free pool slots; owned */
	size_t nfree;
	struct iovec *iov;		/* scratch for one write; owned */
	torrent_write_fn write;
	void *arg;
	uint64_t spans;			/* write calls issued through the cache */
};

/* Most buffers handed to one write call (the kernel's IOV_MAX). */
#define TORRENT_IOV_MAX 1024

/*
 * Sets up a cache of MAX_BLOCKS blocks (0: write through) that writes
 * with WRITE(ARG, ...). Returns 0 or -ENOMEM (aligned pool not
 * available). Release with torrent_cache_release().
 */
MUST_CHECK int torrent_cache_init(struct torrent_cache *c, size_t max_blocks, torrent_write_fn write,
				  void *arg);

/*
 * Hands block BLOCK (TORRENT_BLOCK bytes at DATA, copied) to the cache:
 * written through at once when the cache size is 0, else stored (after
 * writing out the longest runs while the cache is full). A block already
 * cached is replaced. Returns 0 or the writer's -errno.
 */
MUST_CHECK int torrent_cache_put(struct torrent_cache *c, uint64_t block, const void *data);

/* The cached copy of BLOCK, or NULL when it is not in the cache. */
const void *torrent_cache_get(const struct torrent_cache *c, uint64_t block);

/*
 * Writes every cached run in file order and empties the cache. Returns 0
 * or the first -errno (the runs not written stay cached).
 */
MUST_CHECK int torrent_cache_flush_all(struct torrent_cache *c);

void torrent_cache_release(struct torrent_cache *c);

#endif
