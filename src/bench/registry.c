/* SPDX-License-Identifier: MIT */
/*
 * The benchmark table, expanded from the BENCHES list in bench.h.
 */
#include "bench.h"

#include <string.h>

#define BENCH_ELEM_(n) &bench_##n,
const struct bench *const bench_table[] = { BENCHES(BENCH_ELEM_) NULL };
#undef BENCH_ELEM_

const struct bench *bench_find(const char *name)
{
	for (size_t i = 0; bench_table[i]; i++)
		if (!strcmp(bench_table[i]->name, name))
			return bench_table[i];
	return NULL;
}
