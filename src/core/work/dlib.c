/* SPDX-License-Identifier: MIT */
/* Shared libraries loaded on first use; see dlib.h. */
#include "core/work/dlib.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

int dlib_load(struct dlib *d, char *why, size_t whylen)
{
	pthread_mutex_lock(&lock);
	if (!d->tried) {
		void *h = dlopen(d->soname, RTLD_NOW | RTLD_LOCAL);

		d->tried = true;
		if (!h)
			snprintf(d->err, sizeof(d->err), "cannot load %s: %s", d->soname, dlerror());
		for (size_t i = 0; h && i < d->n && !d->err[0]; i++)
			if (!(d->slots[i] = dlsym(h, d->names[i])))
				snprintf(d->err, sizeof(d->err), "%s lacks %s", d->soname, d->names[i]);
		/* Loaded, it stays for the life of the process, as if linked. */
	}
	pthread_mutex_unlock(&lock);
	if (d->err[0]) {
		snprintf(why, whylen, "%s", d->err);
		return -ENOTSUP;
	}
	return 0;
}
