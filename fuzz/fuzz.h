/* SPDX-License-Identifier: MIT */
/*
 * What every fuzz target in fuzz/ shares: the libFuzzer entry point (built
 * into a fuzzer with clang -fsanitize=fuzzer, or into a replayer with
 * replay.c for the ordinary test builds) and a helper that turns the
 * fuzzer's bytes into the NUL-terminated text most parsers take.
 */
#ifndef ENGPASS_FUZZ_H
#define ENGPASS_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "lib/xalloc.h"

/* Runs one input; always returns 0 (a crash or a sanitizer report is the finding). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * A NUL-terminated copy of DATA[0..SIZE) (caller frees). A NUL inside the
 * data ends the string early, as it would for text from argv or a file
 * read with fgets().
 */
static inline char *fuzz_cstr(const uint8_t *data, size_t size)
{
	char *s = xmalloc(size + 1);

	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

#endif
