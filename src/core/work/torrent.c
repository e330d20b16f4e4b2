/* SPDX-License-Identifier: MIT */
/*
 * The torrent write order and the application write cache; see
 * torrent.h.
 */
#include "core/work/torrent.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/work/rng.h"
#include "lib/xalloc.h"

int torrent_order_init(struct torrent_order *o, uint64_t nblocks, uint32_t bpp, unsigned k, uint64_t seed)
{
	uint64_t s = seed;

	memset(o, 0, sizeof(*o));
	if (!nblocks || !bpp || !k)
		return -EINVAL;
	o->nblocks = nblocks;
	o->bpp = bpp;
	o->npieces = (nblocks + bpp - 1) / bpp;
	o->perm = xcalloc(o->npieces, sizeof(*o->perm));
	for (uint64_t i = 0; i < o->npieces; i++)
		o->perm[i] = i;
	/* Fisher-Yates: position i takes a uniform choice among i..n-1. */
	for (uint64_t i = 0; i + 1 < o->npieces; i++) {
		uint64_t j = i + rng_below(&s, o->npieces - i), t = o->perm[i];

		o->perm[i] = o->perm[j];
		o->perm[j] = t;
	}
	o->k = k;
	o->slot = xcalloc(k, sizeof(*o->slot));
	while (o->active < k && o->next_perm < o->npieces) {
		struct torrent_slot *sl = &o->slot[o->active++];
		uint64_t first;

		sl->piece = o->perm[o->next_perm++];
		torrent_piece_range(o, sl->piece, &first, &sl->count);
		sl->next = 0;
	}
	return 0;
}

void torrent_piece_range(const struct torrent_order *o, uint64_t piece, uint64_t *first, uint32_t *count)
{
	uint64_t f = piece * o->bpp, left = o->nblocks - f;

	*first = f;
	*count = left < o->bpp ? (uint32_t)left : o->bpp;
}

bool torrent_order_next(struct torrent_order *o, struct torrent_block *out)
{
	struct torrent_slot *sl;
	unsigned i;

	if (!o->active)
		return false;
	i = o->rr % o->active;
	sl = &o->slot[i];
	out->piece = sl->piece;
	out->block = sl->piece * o->bpp + sl->next;
	out->piece_done = ++sl->next == sl->count;
	if (!out->piece_done) {
		o->rr = i + 1;
	} else if (o->next_perm < o->npieces) {
		uint64_t first;

		sl->piece = o->perm[o->next_perm++];
		torrent_piece_range(o, sl->piece, &first, &sl->count);
		sl->next = 0;
		o->rr = i + 1;
	} else {
		/* No piece left to start: the last slot takes this one's place. */
		*sl = o->slot[--o->active];
		o->rr = i;
	}
	if (o->active)
		o->rr %= o->active;
	return true;
}

void torrent_order_release(struct torrent_order *o)
{
	free(o->perm);
	free(o->slot);
	memset(o, 0, sizeof(*o));
}

int torrent_cache_init(struct torrent_cache *c, size_t max_blocks, torrent_write_fn write, void *arg)
{
	void *pool = NULL;

	memset(c, 0, sizeof(*c));
	c->write = write;
	c->arg = arg;
	c->max = max_blocks;
	c->iov = xcalloc(TORRENT_IOV_MAX, sizeof(*c->iov));
	if (!max_blocks)
		return 0;
	/* The user sized it (--cache): failing is an answer, not a broken invariant (lib/xalloc.h). */
	if (posix_memalign(&pool, 4096, max_blocks * (size_t)TORRENT_BLOCK)) {
		free(c->iov);
		c->iov = NULL;
		return -ENOMEM;
	}
	c->pool = pool;
	c->ent = xcalloc(max_blocks, sizeof(*c->ent));
	c->freel = xcalloc(max_blocks, sizeof(*c->freel));
	for (size_t i = 0; i < max_blocks; i++)
		c->freel[i] = (uint32_t)(max_blocks - 1 - i);
	c->nfree = max_blocks;
	return 0;
}

static unsigned char *slot_data(const struct torrent_cache *c, uint32_t slot)
{
	return c->pool + (size_t)slot * TORRENT_BLOCK;
}

/* Index of the first entry with block >= B (binary search). */
static size_t lower_bound(const struct torrent_cache *c, uint64_t b)
{
	size_t lo = 0, hi = c->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->ent[mid].block < b)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Writes entries [from, from + len), adjacent blocks, and drops them from the cache. */
static int write_span(struct torrent_cache *c, size_t from, size_t len)
{
	size_t done = 0;

	while (done < len) {
		size_t n = len - done < TORRENT_IOV_MAX ? len - done : TORRENT_IOV_MAX;
		int r;

		for (size_t i = 0; i < n; i++) {
			c->iov[i].iov_base = slot_data(c, c->ent[from + done + i].slot);
			c->iov[i].iov_len = TORRENT_BLOCK;
		}
		r = c->write(c->arg, c->ent[from + done].block, c->iov, (int)n);
		c->spans++;
		if (r) {
			/* Keep what was not written: drop only the written part. */
			len = done;
			if (!len)
				return r;
			for (size_t i = 0; i < len; i++)
				c->freel[c->nfree++] = c->ent[from + i].slot;
			memmove(&c->ent[from], &c->ent[from + len], (c->n - from - len) * sizeof(*c->ent));
			c->n -= len;
			return r;
		}
		done += n;
	}
	for (size_t i = 0; i < len; i++)
		c->freel[c->nfree++] = c->ent[from + i].slot;
	memmove(&c->ent[from], &c->ent[from + len], (c->n - from - len) * sizeof(*c->ent));
	c->n -= len;
	return 0;
}

/* Writes out the longest run of adjacent cached blocks (the first such on ties). */
static int flush_biggest(struct torrent_cache *c)
{
	size_t best = 0, best_len = 0, i = 0;

	while (i < c->n) {
		size_t j = i + 1;

		while (j < c->n && c->ent[j].block == c->ent[j - 1].block + 1)
			j++;
		if (j - i > best_len) {
			best = i;
			best_len = j - i;
		}
		i = j;
	}
	return best_len ? write_span(c, best, best_len) : 0;
}

int torrent_cache_put(struct torrent_cache *c, uint64_t block, const void *data)
{
	size_t pos;
	uint32_t slot;
	int r;

	if (!c->max) {
		struct iovec v = { .iov_base = (void *)data, .iov_len = TORRENT_BLOCK };

		c->spans++;
		return c->write(c->arg, block, &v, 1);
	}
	pos = lower_bound(c, block);
	if (pos < c->n && c->ent[pos].block == block) {
		memcpy(slot_data(c, c->ent[pos].slot), data, TORRENT_BLOCK);
		return 0;
	}
	while (c->n >= c->max)
		if ((r = flush_biggest(c)))
			return r;
	pos = lower_bound(c, block);
	slot = c->freel[--c->nfree];
	memcpy(slot_data(c, slot), data, TORRENT_BLOCK);
	memmove(&c->ent[pos + 1], &c->ent[pos], (c->n - pos) * sizeof(*c->ent));
	c->ent[pos].block = block;
	c->ent[pos].slot = slot;
	c->n++;
	return 0;
}

const void *torrent_cache_get(const struct torrent_cache *c, uint64_t block)
{
	size_t pos;

	if (!c->max)
		return NULL;
	pos = lower_bound(c, block);
	return pos < c->n && c->ent[pos].block == block ? slot_data(c, c->ent[pos].slot) : NULL;
}

int torrent_cache_flush_all(struct torrent_cache *c)
{
	while (c->n) {
		size_t j = 1;
		int r;

		while (j < c->n && c->ent[j].block == c->ent[j - 1].block + 1)
			j++;
		if ((r = write_span(c, 0, j)))
			return r;
	}
	return 0;
}

void torrent_cache_release(struct torrent_cache *c)
{
	free(c->pool);
	free(c->ent);
	free(c->freel);
	free(c->iov);
	memset(c, 0, sizeof(*c));
}
