/* SPDX-License-Identifier: MIT */
/*
 * Allocation wrappers. engpass has one out-of-memory policy: an allocation
 * that fails is a broken invariant of the process (we size every load from
 * the memory we measured), so these wrappers abort() with a message instead
 * of returning NULL. Callers therefore never check for NULL. This is the one
 * place the core may end the process, and it does so through abort(), never
 * exit().
 */
#ifndef ENGPASS_XALLOC_H
#define ENGPASS_XALLOC_H

#include <stddef.h>

/* Like malloc/calloc/realloc/strdup, but abort on failure. Caller frees with free(). */
void *xmalloc(size_t size);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t size);
char *xstrdup(const char *s);
/*
 * SIZE bytes aligned to ALIGN (a power of two, at least sizeof(void *)),
 * for O_DIRECT and other I/O buffers; aborts on failure like xmalloc().
 * Caller frees with free(). This is the one policy for the fixed-size
 * aligned buffers of the benchmarks; buffers that must be huge-page backed
 * come from core/work/iobuf.h instead. A size the user chose (disk's --cache)
 * is not a broken invariant when it fails: such a caller uses
 * posix_memalign() itself and fails the step naming the size.
 */
void *xaligned_alloc(size_t align, size_t size);
/* Formatted string in a new allocation; caller frees with free(). */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
