/* SPDX-License-Identifier: MIT */
/*
 * The download's block assembler, pure so it can be tested without a
 * socket: body bytes arrive in pieces of any size (what one recv() gave
 * the HTTP parser) and leave as whole 16 KiB blocks (TORRENT_BLOCK), the
 * unit the torrent write cache takes. Each arriving piece is first copied
 * into the block being filled and handed to CHUNK there, in place, split
 * at block boundaries (the download decrypts it there, as an MSE client
 * decrypts what it read before the piece is assembled); a block that is
 * full goes to BLOCK. dl_blocks_finish() hands the last, partial block
 * over padded with zeros.
 */
#ifndef ENGPASS_DL_BLOCKS_H
#define ENGPASS_DL_BLOCKS_H

#include <stddef.h>
#include <stdint.h>

/* Called on LEN (> 0) bytes just copied into the block, in place; returns 0 or -errno. */
typedef int (*dl_chunk_fn)(void *arg, unsigned char *p, size_t len);
/* Called with a full block (TORRENT_BLOCK bytes, LEN of them data); returns 0 or -errno. */
typedef int (*dl_block_fn)(void *arg, const unsigned char *blk, size_t len);

struct dl_blocks {
	unsigned char *blk;	/* TORRENT_BLOCK bytes; owned */
	size_t fill;		/* bytes of blk filled */
	uint64_t bytes, blocks;	/* taken in, handed out */
	dl_chunk_fn chunk;	/* may be NULL: nothing done in place */
	dl_block_fn block;
	void *arg;
};

/* Sets up an empty assembler calling CHUNK (may be NULL) and BLOCK with ARG. Release with dl_blocks_release(). */
void dl_blocks_init(struct dl_blocks *b, dl_chunk_fn chunk, dl_block_fn block, void *arg);
void dl_blocks_release(struct dl_blocks *b);

/* Takes N bytes at P. Returns 0, or the first -errno CHUNK or BLOCK returned. */
int dl_blocks_feed(struct dl_blocks *b, const void *p, size_t n);

/*
 * Hands the partial block, if any, to BLOCK padded with zeros to a whole
 * block (with its data length). Returns 0 or BLOCK's -errno.
 */
int dl_blocks_finish(struct dl_blocks *b);

#endif
