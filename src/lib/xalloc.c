/* SPDX-License-Identifier: MIT */
/*
 * Allocation wrappers that abort on failure; see xalloc.h for the policy.
 */
#include "xalloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void oom(size_t size)
{
	char msg[80];
	int n = snprintf(msg, sizeof(msg), "engpass: out of memory (%zu bytes)\n", size);
	if (n > 0)
		(void)!write(2, msg, (size_t)n);
	abort();
}

void *xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);
	if (!p)
		oom(size);
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		oom(n * size);
	return p;
}

void *xrealloc(void *p, size_t size)
{
	void *q = realloc(p, size ? size : 1);
	if (!q)
		oom(size);
	return q;
}

char *xstrdup(const char *s)
{
	char *p = strdup(s);
	if (!p)
		oom(strlen(s) + 1);
	return p;
}

void *xaligned_alloc(size_t align, size_t size)
{
	void *p = NULL;

	if (posix_memalign(&p, align, size ? size : 1))
		oom(size);
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		oom(0);
	return s;
}
