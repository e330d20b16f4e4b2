/* SPDX-License-Identifier: MIT */
/*
 * The download's block assembler; see dl_blocks.h.
 */
#include "bench/download/dl_blocks.h"

#include <stdlib.h>
#include <string.h>

#include "core/work/torrent.h"
#include "lib/xalloc.h"

void dl_blocks_init(struct dl_blocks *b, dl_chunk_fn chunk, dl_block_fn block, void *arg)
{
	memset(b, 0, sizeof(*b));
	b->blk = xaligned_alloc(4096, TORRENT_BLOCK);
	b->chunk = chunk;
	b->block = block;
	b->arg = arg;
}

void dl_blocks_release(struct dl_blocks *b)
{
	free(b->blk);
	b->blk = NULL;
}

int dl_blocks_feed(struct dl_blocks *b, const void *p, size_t n)
{
	const unsigned char *in = p;
	int r;

	while (n) {
		size_t m = TORRENT_BLOCK - b->fill < n ? TORRENT_BLOCK - b->fill : n;

		memcpy(b->blk + b->fill, in, m);
		if (b->chunk && (r = b->chunk(b->arg, b->blk + b->fill, m)) < 0)
			return r;
		b->fill += m;
		b->bytes += m;
		in += m;
		n -= m;
		if (b->fill == TORRENT_BLOCK) {
			b->fill = 0;
			b->blocks++;
			if ((r = b->block(b->arg, b->blk, TORRENT_BLOCK)) < 0)
				return r;
		}
	}
	return 0;
}

int dl_blocks_finish(struct dl_blocks *b)
{
	size_t len = b->fill;

	if (!len)
		return 0;
	memset(b->blk + len, 0, TORRENT_BLOCK - len);
	b->fill = 0;
	b->blocks++;
	return b->block(b->arg, b->blk, len);
}
