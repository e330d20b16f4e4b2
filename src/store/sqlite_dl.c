/* SPDX-License-Identifier: MIT */
/* SQLite on demand; see sqlite_dl.h. */
#include "config.h"

#if HAVE_SQLITE
#define SQLITE_NO_REDIRECT
#include "store/sqlite_dl.h"

#include "core/work/dlib.h"

struct sqlite_api sqlite_api_;

static const char *const names[] = {
#define SQLITE_NAME_(f) #f,
	SQLITE_FUNCS(SQLITE_NAME_)
#undef SQLITE_NAME_
};

/* The table holds only function pointers, in SQLITE_FUNCS order: a void * each. */
_Static_assert(sizeof(struct sqlite_api) == sizeof(names) / sizeof(names[0]) * sizeof(void *),
	       "struct sqlite_api is not one pointer per name");

static struct dlib lib = { .soname = SQLITE_SONAME, .names = names, .slots = (void **)&sqlite_api_,
			   .n = sizeof(names) / sizeof(names[0]) };

int sqlite_load(char *why, size_t whylen)
{
	return dlib_load(&lib, why, whylen);
}
#endif
