/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for the torrent write order and the application write cache
 * (src/core/work/torrent.c, used by the disk and download benchmarks) and the
 * generator behind the order (src/core/work/rng.c).
 *
 * The cache writes into an in-memory "file" through its callback, so the
 * tests check exactly what reached the file and in how many calls.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/work/rng.h"
#include "core/work/torrent.h"

/* ---- order ---- */

/* Runs an order to the end and checks its invariants; returns blocks seen. */
static uint64_t check_order(uint64_t nblocks, uint32_t bpp, unsigned k, uint64_t seed, uint64_t *first_blocks,
			    size_t nfirst)
{
	struct torrent_order o;
	struct torrent_block b;
	uint64_t npieces = (nblocks + bpp - 1) / bpp, seen = 0, done_pieces = 0;
	unsigned char *got = calloc(nblocks, 1);
	uint32_t *next = calloc(npieces, sizeof(*next));
	unsigned char *started = calloc(npieces, 1), *finished = calloc(npieces, 1);
	unsigned inflight = 0;

	assert_non_null(got);
	assert_non_null(next);
	assert_int_equal(torrent_order_init(&o, nblocks, bpp, k, seed), 0);
	while (torrent_order_next(&o, &b)) {
		uint64_t p = b.block / bpp, first;
		uint32_t count;

		assert_true(b.block < nblocks);
		assert_int_equal(b.piece, p);
		assert_false(got[b.block]);
		got[b.block] = 1;
		/* Blocks in order within a piece. */
		assert_int_equal(b.block, p * bpp + next[p]);
		next[p]++;
		if (!started[p]) {
			started[p] = 1;
			inflight++;
		}
		assert_true(inflight <= k);
		torrent_piece_range(&o, p, &first, &count);
		assert_int_equal(first, p * bpp);
		assert_int_equal(b.piece_done, next[p] == count);
		if (b.piece_done) {
			assert_false(finished[p]);
			finished[p] = 1;
			inflight--;
			done_pieces++;
		}
		if (seen < nfirst)
			first_blocks[seen] = b.block;
		seen++;
	}
	assert_int_equal(seen, nblocks);
	assert_int_equal(done_pieces, npieces);
	assert_int_equal(inflight, 0);
	torrent_order_release(&o);
	free(got);
	free(next);
	free(started);
	free(finished);
	return seen;
}

static void test_order_invariants(void **state)
{
	uint64_t first[8];

	(void)state;
	check_order(1024, 64, 4, 1, first, 8);
	check_order(1000, 64, 4, 2, first, 8);	/* last piece shorter */
	check_order(7, 64, 4, 3, first, 8);	/* one short piece */
	check_order(4096, 1, 16, 4, first, 8);	/* piece = block */
	check_order(640, 64, 100, 5, first, 8);	/* more peers than pieces */
}

static void test_order_interleaves(void **state)
{
	uint64_t a[8], b[8];

	(void)state;
	/* K = 1: a whole piece, block after block, before the next one. */
	check_order(256, 64, 1, 9, a, 8);
	for (int i = 1; i < 8; i++)
		assert_int_equal(a[i], a[0] + (uint64_t)i);
	/* K = 4: the first four blocks come from four different pieces. */
	check_order(256 * 64, 64, 4, 9, b, 8);
	for (int i = 0; i < 4; i++)
		for (int j = i + 1; j < 4; j++)
			assert_true(b[i] / 64 != b[j] / 64);
	assert_int_equal(b[4], b[0] + 1);
}

static void test_order_seed(void **state)
{
	uint64_t a[16], b[16], c[16];

	(void)state;
	check_order(64 * 64, 64, 2, 42, a, 16);
	check_order(64 * 64, 64, 2, 42, b, 16);
	check_order(64 * 64, 64, 2, 43, c, 16);
	assert_memory_equal(a, b, sizeof(a));
	assert_memory_not_equal(a, c, sizeof(a));
	assert_int_equal(torrent_order_init(&(struct torrent_order){ 0 }, 0, 64, 1, 1), -EINVAL);
}

/* ---- cache ---- */

struct mem_file {
	unsigned char *data;
	unsigned char *written;		/* times each block was written */
	uint64_t nblocks;
	uint64_t calls, blocks;
	int max_iov;
	int fail_at;			/* fail the Nth call (1-based); 0 never */
};

static int mem_write(void *arg, uint64_t first, const struct iovec *iov, int iovcnt)
{
	struct mem_file *f = arg;

	f->calls++;
	if (f->fail_at && f->calls == (uint64_t)f->fail_at)
		return -ENOSPC;
	assert_true(iovcnt >= 1 && iovcnt <= TORRENT_IOV_MAX);
	if (iovcnt > f->max_iov)
		f->max_iov = iovcnt;
	for (int i = 0; i < iovcnt; i++) {
		assert_int_equal(iov[i].iov_len, TORRENT_BLOCK);
		assert_true(first + (uint64_t)i < f->nblocks);
		memcpy(f->data + (first + (uint64_t)i) * TORRENT_BLOCK, iov[i].iov_base, TORRENT_BLOCK);
		f->written[first + (uint64_t)i]++;
		f->blocks++;
	}
	return 0;
}

static struct mem_file *mem_new(uint64_t nblocks)
{
	struct mem_file *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	f->nblocks = nblocks;
	f->data = calloc(nblocks, TORRENT_BLOCK);
	f->written = calloc(nblocks, 1);
	assert_non_null(f->data);
	return f;
}

static void mem_free(struct mem_file *f)
{
	free(f->data);
	free(f->written);
	free(f);
}

/* Block INDEX's test content: its own splitmix64 stream, so no two blocks match. */
static void fill_block(unsigned char *blk, uint64_t index)
{
	uint64_t s = index;

	for (size_t i = 0; i + 8 <= TORRENT_BLOCK; i += 8) {
		uint64_t v = rng_next(&s);

		memcpy(blk + i, &v, 8);
	}
}

/* Writes a torrent of NBLOCKS through a cache of CACHE blocks; returns write calls. */
static uint64_t torrent_through(uint64_t nblocks, size_t cache, unsigned k)
{
	struct mem_file *f = mem_new(nblocks);
	struct torrent_order o;
	struct torrent_cache c;
	struct torrent_block b;
	unsigned char blk[TORRENT_BLOCK], want[TORRENT_BLOCK];
	uint64_t calls;

	assert_int_equal(torrent_order_init(&o, nblocks, 64, k, 7), 0);
	assert_int_equal(torrent_cache_init(&c, cache, mem_write, f), 0);
	while (torrent_order_next(&o, &b)) {
		fill_block(blk, b.block);
		assert_int_equal(torrent_cache_put(&c, b.block, blk), 0);
		assert_true(c.n <= cache);
		if (cache)
			assert_memory_equal(torrent_cache_get(&c, b.block), blk, TORRENT_BLOCK);
	}
	assert_int_equal(torrent_cache_flush_all(&c), 0);
	assert_int_equal(c.n, 0);
	/* Every block reached the file exactly once, with the intended bytes. */
	for (uint64_t i = 0; i < nblocks; i++) {
		assert_int_equal(f->written[i], 1);
		fill_block(want, i);
		assert_memory_equal(f->data + i * TORRENT_BLOCK, want, TORRENT_BLOCK);
	}
	assert_int_equal(f->blocks, nblocks);
	assert_int_equal(c.spans, f->calls);
	calls = f->calls;
	torrent_cache_release(&c);
	torrent_order_release(&o);
	mem_free(f);
	return calls;
}

static void test_cache_zero_writes_every_block(void **state)
{
	(void)state;
	assert_int_equal(torrent_through(512, 0, 4), 512);
}

static void test_cache_coalesces(void **state)
{
	uint64_t small, big;

	(void)state;
	small = torrent_through(1024, 128, 4);	/* 2 MiB cache, 1 MiB pieces */
	big = torrent_through(1024, 1024, 4);	/* the whole file fits */
	assert_true(small < 1024 / 8);
	/* Everything cached: written at the end as one contiguous run. */
	assert_int_equal(big, 1);
	/* A cache smaller than K pieces still helps. */
	assert_true(torrent_through(1024, 16, 4) < 1024);
}

static void test_cache_biggest_span_first(void **state)
{
	struct mem_file *f = mem_new(64);
	struct torrent_cache c;
	unsigned char blk[TORRENT_BLOCK] = { 0 };

	(void)state;
	assert_int_equal(torrent_cache_init(&c, 4, mem_write, f), 0);
	assert_int_equal(torrent_cache_put(&c, 20, blk), 0);
	assert_int_equal(torrent_cache_put(&c, 11, blk), 0);
	assert_int_equal(torrent_cache_put(&c, 10, blk), 0);
	assert_int_equal(torrent_cache_put(&c, 12, blk), 0);
	assert_int_equal(f->calls, 0);
	/* Full: putting 30 writes out 10..12 in one call, 20 stays. */
	assert_int_equal(torrent_cache_put(&c, 30, blk), 0);
	assert_int_equal(f->calls, 1);
	assert_int_equal(f->max_iov, 3);
	assert_int_equal(f->written[10] + f->written[11] + f->written[12], 3);
	assert_non_null(torrent_cache_get(&c, 20));
	assert_null(torrent_cache_get(&c, 11));
	/* A block put twice is replaced, not stored twice. */
	blk[0] = 9;
	assert_int_equal(torrent_cache_put(&c, 20, blk), 0);
	assert_int_equal(c.n, 2);
	assert_int_equal(((const unsigned char *)torrent_cache_get(&c, 20))[0], 9);
	assert_int_equal(torrent_cache_flush_all(&c), 0);
	assert_int_equal(f->data[20 * TORRENT_BLOCK], 9);
	torrent_cache_release(&c);
	mem_free(f);
}

static void test_cache_write_error(void **state)
{
	struct mem_file *f = mem_new(64);
	struct torrent_cache c;
	unsigned char blk[TORRENT_BLOCK] = { 0 };

	(void)state;
	f->fail_at = 1;
	assert_int_equal(torrent_cache_init(&c, 2, mem_write, f), 0);
	assert_int_equal(torrent_cache_put(&c, 1, blk), 0);
	assert_int_equal(torrent_cache_put(&c, 2, blk), 0);
	/* The flush fails: the error comes back and the blocks stay cached. */
	assert_int_equal(torrent_cache_put(&c, 5, blk), -ENOSPC);
	assert_int_equal(c.n, 2);
	assert_int_equal(torrent_cache_flush_all(&c), 0);
	assert_int_equal(f->written[1] + f->written[2], 2);
	torrent_cache_release(&c);
	/* Write-through reports the error too. */
	f->fail_at = (int)f->calls + 1;
	assert_int_equal(torrent_cache_init(&c, 0, mem_write, f), 0);
	assert_int_equal(torrent_cache_put(&c, 3, blk), -ENOSPC);
	torrent_cache_release(&c);
	mem_free(f);
}

/* ---- rng ---- */

static void test_rng_below(void **state)
{
	uint64_t s = 5, t = 5, hits[10] = { 0 };

	(void)state;
	/* The same seed gives the same stream. */
	for (int i = 0; i < 100; i++)
		assert_int_equal(rng_next(&s), rng_next(&t));
	for (int i = 0; i < 100000; i++) {
		uint64_t v = rng_below(&s, 10);

		assert_true(v < 10);
		hits[v]++;
	}
	/* Roughly uniform: each value within 10 % of 10000. */
	for (int i = 0; i < 10; i++)
		assert_true(hits[i] > 9000 && hits[i] < 11000);
	assert_int_equal(rng_below(&s, 0), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order_invariants),
		cmocka_unit_test(test_order_interleaves),
		cmocka_unit_test(test_order_seed),
		cmocka_unit_test(test_cache_zero_writes_every_block),
		cmocka_unit_test(test_cache_coalesces),
		cmocka_unit_test(test_cache_biggest_span_first),
		cmocka_unit_test(test_cache_write_error),
		cmocka_unit_test(test_rng_below),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
