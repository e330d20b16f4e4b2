/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for the download's block assembler (dl_blocks.c): bytes fed
 * in pieces of any size come out as the same whole blocks as fed at once;
 * the in-place chunk callback sees every byte once, never across a block
 * boundary, and what it changes is what the block carries; the last
 * partial block is padded with zeros and says its length; an error of a
 * callback stops the feed.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bench/download/dl_blocks.h"
#include "core/work/torrent.h"

#define NBYTES (5 * TORRENT_BLOCK + 1000)

struct sink {
	unsigned char *out;	/* blocks in order, whole */
	size_t nblocks, last_len;
	uint64_t chunk_bytes;
	int fail_at;		/* block number whose callback fails; -1 never */
	const unsigned char *base;	/* the assembler's block buffer */
};

static int chunk_xor(void *arg, unsigned char *p, size_t len)
{
	struct sink *s = arg;
	/* In the block being filled, never past its end. */
	assert_true(p >= s->base && (size_t)(p - s->base) + len <= TORRENT_BLOCK);
	for (size_t i = 0; i < len; i++)
		p[i] ^= 0x5a;
	s->chunk_bytes += len;
	return 0;
}

static int block_keep(void *arg, const unsigned char *blk, size_t len)
{
	struct sink *s = arg;

	if ((int)s->nblocks == s->fail_at)
		return -ENOSPC;
	memcpy(s->out + s->nblocks * TORRENT_BLOCK, blk, TORRENT_BLOCK);
	s->nblocks++;
	s->last_len = len;
	return 0;
}

static unsigned char *source(void)
{
	unsigned char *src = malloc(NBYTES);
	uint32_t x = 12345;

	assert_non_null(src);
	for (size_t i = 0; i < NBYTES; i++) {
		x = x * 1103515245u + 12345u;
		src[i] = (unsigned char)(x >> 24);
	}
	return src;
}

/* Feeds SRC in pieces of STEP bytes (0: pieces of varying size); checks the blocks. */
static void feed_in(size_t step)
{
	unsigned char *src = source();
	struct sink s = { .out = calloc(6, TORRENT_BLOCK), .fail_at = -1 };
	struct dl_blocks b;
	size_t off = 0, k = 1;

	assert_non_null(s.out);
	dl_blocks_init(&b, chunk_xor, block_keep, &s);
	s.base = b.blk;
	while (off < NBYTES) {
		size_t n = step ? step : (k = k * 7 % 40009 + 1);

		if (n > NBYTES - off)
			n = NBYTES - off;
		assert_int_equal(dl_blocks_feed(&b, src + off, n), 0);
		off += n;
	}
	assert_int_equal(s.nblocks, 5);
	assert_int_equal(dl_blocks_finish(&b), 0);
	assert_int_equal(s.nblocks, 6);
	assert_int_equal(s.last_len, 1000);
	assert_int_equal(b.bytes, NBYTES);
	assert_int_equal(s.chunk_bytes, NBYTES);
	for (size_t i = 0; i < NBYTES; i++)
		assert_int_equal(s.out[i], src[i] ^ 0x5a);
	for (size_t i = NBYTES; i < 6 * TORRENT_BLOCK; i++)
		assert_int_equal(s.out[i], 0);
	/* Nothing more to hand over. */
	assert_int_equal(dl_blocks_finish(&b), 0);
	assert_int_equal(s.nblocks, 6);
	dl_blocks_release(&b);
	free(s.out);
	free(src);
}

static void test_whole(void **state)
{
	(void)state;
	feed_in(NBYTES);
}

static void test_bytes(void **state)
{
	(void)state;
	feed_in(1);
}

static void test_varying(void **state)
{
	(void)state;
	feed_in(0);
	feed_in(TORRENT_BLOCK);
	feed_in(TORRENT_BLOCK + 1);
}

static void test_error_stops(void **state)
{
	unsigned char *src = source();
	struct sink s = { .out = calloc(6, TORRENT_BLOCK), .fail_at = 2 };
	struct dl_blocks b;

	(void)state;
	dl_blocks_init(&b, NULL, block_keep, &s);
	assert_int_equal(dl_blocks_feed(&b, src, NBYTES), -ENOSPC);
	assert_int_equal(s.nblocks, 2);
	/* Without a chunk callback the bytes pass unchanged. */
	assert_memory_equal(s.out, src, 2 * TORRENT_BLOCK);
	dl_blocks_release(&b);
	free(s.out);
	free(src);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_whole),
		cmocka_unit_test(test_bytes),
		cmocka_unit_test(test_varying),
		cmocka_unit_test(test_error_stops),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
