/* SPDX-License-Identifier: MIT */
/* libcrypto on demand; see ossl.h. */
#define OSSL_NO_REDIRECT
#include "core/work/ossl.h"

#include <errno.h>
#include <stdio.h>

#if HAVE_OPENSSL
#include "core/work/dlib.h"

struct ossl_api ossl_api_;

static const char *const names[] = {
#define OSSL_NAME_(f) #f,
	OSSL_FUNCS(OSSL_NAME_)
#undef OSSL_NAME_
};

/* The table holds only function pointers, in OSSL_FUNCS order: a void * each. */
_Static_assert(sizeof(struct ossl_api) == sizeof(names) / sizeof(names[0]) * sizeof(void *),
	       "struct ossl_api is not one pointer per name");

static struct dlib lib = { .soname = OSSL_SONAME, .names = names, .slots = (void **)&ossl_api_,
			   .n = sizeof(names) / sizeof(names[0]) };

int ossl_load(char *why, size_t whylen)
{
	return dlib_load(&lib, why, whylen);
}
#else
int ossl_load(char *why, size_t whylen)
{
	snprintf(why, whylen, "built without OpenSSL");
	return -ENOTSUP;
}
#endif
