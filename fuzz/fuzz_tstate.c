/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target for the thread-state parsers of src/core/observe/tstate.c: the text
 * of /proc/PID/task/TID/syscall (in a buffer of exactly its length, so a
 * read past LEN is caught by AddressSanitizer) and wait-channel names. The
 * first byte picks the parser.
 */
#include <stdlib.h>

#include "core/observe/tstate.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tstate_syscall sc;
	char name[32], *s;
	bool dirty, journal;
	enum tstate_kind k;

	if (size < 1)
		return 0;
	if (data[0] & 1) {
		char *buf = xmalloc(size - 1 ? size - 1 : 1);

		memcpy(buf, data + 1, size - 1);
		if (tstate_syscall_parse(buf, size - 1, &sc) == 0) {
			if (sc.where == TSC_IN && sc.nr < 0)
				abort();	/* a syscall number is never negative */
			(void)tstate_sc_classify(sc.nr, name, sizeof(name));
		}
		free(buf);
		return 0;
	}
	s = fuzz_cstr(data + 1, size - 1);
	k = tstate_wchan_family(s, &dirty, &journal);
	if ((dirty || journal) && k != TS_DISK)
		abort();	/* dirty-page throttling and journal waits are disk waits */
	free(s);
	return 0;
}
