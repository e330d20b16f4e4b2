/* SPDX-License-Identifier: MIT */
/*
 * Runs a fuzz target once over every file named on the command line, or
 * every file inside a directory named there, without fuzzing: the seed
 * corpus and the regression inputs (fuzz/regress/TARGET/, each an input
 * that once crashed) are replayed this way by `meson test` in every build,
 * gcc or clang, sanitized or not. A path that does not exist is skipped,
 * so every target can name its regression directory before it has one.
 * Exits 0 when every input ran; a crash ends the process as it would in
 * the fuzzer.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

/* Reads PATH whole and runs it. Returns 0, or -1 after saying why. */
static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0, n;

	if (!f) {
		fprintf(stderr, "replay: cannot open '%s': %s\n", path, strerror(errno));
		return -1;
	}
	do {
		if (len == cap) {
			cap = cap ? 2 * cap : 4096;
			buf = xrealloc(buf, cap);
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
	} while (n);
	fclose(f);
	LLVMFuzzerTestOneInput(buf, len);
	free(buf);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned ran = 0;
	int rc = 0;

	for (int i = 1; i < argc; i++) {
		struct stat st;
		DIR *d;
		struct dirent *e;

		if (stat(argv[i], &st) < 0) {
			if (errno == ENOENT)
				continue;	/* a target without regression inputs yet */
			fprintf(stderr, "replay: cannot stat '%s': %s\n", argv[i], strerror(errno));
			rc = 1;
			continue;
		}
		if (!S_ISDIR(st.st_mode)) {
			rc |= replay_file(argv[i]) ? 1 : 0;
			ran++;
			continue;
		}
		d = opendir(argv[i]);
		if (!d) {
			fprintf(stderr, "replay: cannot open '%s': %s\n", argv[i], strerror(errno));
			rc = 1;
			continue;
		}
		while ((e = readdir(d))) {
			char *p;

			if (e->d_name[0] == '.')
				continue;
			p = xasprintf("%s/%s", argv[i], e->d_name);
			rc |= replay_file(p) ? 1 : 0;
			ran++;
			free(p);
		}
		closedir(d);
	}
	printf("replay: %u inputs\n", ran);
	return rc;
}
