/* SPDX-License-Identifier: MIT */
/*
 * A shared library loaded on first use (dlopen), for the optional
 * libraries whose load-time relocations would otherwise make every engpass
 * process pay their resident pages (issue 11's 4 MiB RSS budget): OpenSSL's
 * libcrypto (core/work/ossl.h) and SQLite (store/sqlite_dl.h).
 *
 * The caller keeps a table of function pointers and a list of their
 * names in the same order; dlib_load() fills the table once per process
 * (under a lock) and remembers why it could not.
 *
 * Global state, deliberately. The core keeps no global mutable state
 * (docs/architecture.md, "The core never exits and keeps no global mutable
 * state"); these tables -- struct dlib, ossl_api_ (core/work/ossl.h) and
 * sqlite_api_ (store/sqlite_dl.h) -- are the third documented exception,
 * beside xmalloc()'s abort and tmpfile's signal-handler pointer. They
 * stand in for what the dynamic linker would have filled at start-up had
 * the library been linked normally: each is written once per process,
 * by the first dlib_load(), and never changes after (a loaded library is
 * not closed; a library that failed to load stays failed, with its
 * reason). So they carry no state between runs, steps or callers, and
 * behaviour cannot depend on who called first: every caller gets the
 * same answer. Thread safety: the one write happens under a mutex inside
 * dlib_load(), and a thread reads the table only after its own
 * dlib_load() (or the load of a thread that created it) returned 0, so
 * the mutex orders every read after the write; after that the table is
 * read-only and needs no lock. A process that never asks for the library
 * never loads it, which is the point (the resident-memory budget).
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
