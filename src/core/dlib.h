/* SPDX-License-Identifier: MIT */
/*
 * A shared library loaded on first use (dlopen), for the optional
 * libraries whose load-time relocations would otherwise make every engpass
 * process pay their resident pages (issue 11's 4 MiB RSS budget): OpenSSL's
 * libcrypto (core/ossl.h) and SQLite (store/sqlite_dl.h).
 *
 * The caller keeps a table of function pointers and a list of their
 * names in the same order; dlib_load() fills the table once per process
 * (under a lock) and remembers why it could not.
 */
#ifndef ENGPASS_DLIB_H
#define ENGPASS_DLIB_H

#include <stdbool.h>
#include <stddef.h>

struct dlib {
	const char *soname;		/* e.g. "libcrypto.so.3" */
	const char *const *names;	/* NAMES[i] fills SLOTS[i] */
	void **slots;			/* N function pointers, stored as void * */
	size_t n;
	bool tried;			/* set by dlib_load() */
	char err[256];			/* why it failed; "" when loaded */
};

/* Loads D (once) and resolves every name. Returns 0, or -ENOTSUP with D's reason in WHY. */
int dlib_load(struct dlib *d, char *why, size_t whylen);

#endif
