/* SPDX-License-Identifier: MIT */
/*
 * `engpass import FILE...`: stores engpass JSON documents (this host's or
 * other hosts', fetched by a fleet run) in the history database, so that
 * `history`, `show`, `compare`, `fleet` and `report` see them like runs
 * measured here. Each file is checked whole and stored in one transaction
 * by history_import(): a file that is not JSON, of a foreign or newer
 * schema, or without the run's identity is refused with one line naming
 * it, and nothing of it is stored, while the other files still import. A
 * run already in the history (same host, start time and command) is not
 * stored twice. `-` reads standard input.
 *
 * Exit status: 0 when every file was imported or already stored; 1 when a
 * file was refused or could not be read, or the database failed; 2 usage
 * error (no file, no database path).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cmd.h"
#include "core/kernel/proc.h"
#include "lib/xalloc.h"
#include "store/history.h"

struct import_opts {
	const char *db;
	bool quiet;
	bool help;
};

const struct opt import_options[] = {
	OPT_STRING("db", 0, struct import_opts, db, "PATH",
		   "history database (default $XDG_DATA_HOME/engpass/history.db; created when missing)"),
	OPT_FLAG("quiet", 'q', struct import_opts, quiet, "print only refusals and errors"),
	OPT_FLAG("help", 'h', struct import_opts, help, "show this help"),
	OPT_END,
};

/* Reads standard input whole (at most PROC_BUF_MAX bytes); caller frees. NULL with errno set on failure. */
static char *read_stdin(void)
{
	size_t len = 0, cap = 65536;
	char *buf = xmalloc(cap);

	for (;;) {
		ssize_t n;

		if (len + 1 == cap) {
			if (cap >= PROC_BUF_MAX) {
				free(buf);
				errno = EFBIG;
				return NULL;
			}
			cap *= 2;
			buf = xrealloc(buf, cap);
		}
		n = read(STDIN_FILENO, buf + len, cap - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;

			free(buf);
			errno = e;
			return NULL;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	buf[len] = 0;
	return buf;
}

/* Reads FILE ("-": standard input) whole; caller frees. NULL with errno set on failure. */
static char *read_doc(const char *file)
{
	struct proc_buf b = PROC_BUF_INIT;
	int r;

	if (!strcmp(file, "-"))
		return read_stdin();
	r = proc_buf_read_file(&b, file);
	if (r < 0) {
		proc_buf_release(&b);
		errno = -r;
		return NULL;
	}
	return b.data;
}

int cmd_import(int argc, char **argv)
{
	struct import_opts o = { 0 };
	struct opt_group g = { import_options, &o };
	struct opt_seen seen;
	struct history *h;
	size_t npos, imported = 0, present = 0, refused = 0;
	char **pos = xcalloc((size_t)argc + 1, sizeof(char *)), err[512] = "", *path;
	int r, rc = EXIT_OK;

	if (opt_parse(argc, argv, &g, 1, 1, pos, (size_t)argc + 1, &npos, &seen, err, sizeof(err))) {
		free(pos);
		return usage_error("import", "%s", err);
	}
	if (o.help) {
		printf("usage: engpass import FILE... [--db PATH] [--quiet]\n\n"
		       "Stores engpass JSON documents (--json output of any command, from this host or\n"
		       "others) in the history database, for history, show, compare, fleet and report.\n"
		       "A run is identified by its host, start time and command: one already stored is\n"
		       "not stored again. A file that is not JSON, of a foreign schema or a newer one\n"
		       "than engpass/1, or without host, command and time_unix_ns is refused with one\n"
		       "line naming it and why; nothing of it is stored, and the other files still\n"
		       "import. '-' reads standard input. Prints one line per file, then the counts.\n"
		       "Exit status: 0 every file imported or already stored, 1 a file refused or the\n"
		       "database failed, 2 usage error. See docs/json.md and docs/fleet.md.\n\noptions:\n");
		opt_help(stdout, import_options);
		free(pos);
		return EXIT_OK;
	}
	if (npos == 0) {
		free(pos);
		return usage_error("import", "needs at least one JSON file ('-' for standard input)");
	}
	path = o.db ? xstrdup(o.db) : history_default_path();
	if (!path) {
		free(pos);
		return usage_error("import", "neither XDG_DATA_HOME nor HOME is set; use --db PATH");
	}
	r = history_open(&h, path, true, err, sizeof(err));
	if (r < 0) {
		fprintf(stderr, "engpass import: %s\n", err);
		free(path);
		free(pos);
		return EXIT_MEASURE_FAILED;
	}
	for (size_t i = 0; i < npos; i++) {
		const char *name = strcmp(pos[i], "-") ? pos[i] : "(standard input)";
		char *text = read_doc(pos[i]);
		int64_t id = 0;

		if (!text) {
			fprintf(stderr, "engpass import: '%s' refused: cannot read it: %s\n", name, strerror(errno));
			refused++;
			continue;
		}
		r = history_import(h, text, name, &id, err, sizeof(err));
		free(text);
		if (r == 0) {
			imported++;
			if (!o.quiet)
				printf("imported '%s' as run %" PRId64 "\n", name, id);
		} else if (r == 1) {
			present++;
			if (!o.quiet)
				printf("already stored '%s' as run %" PRId64 "\n", name, id);
		} else if (r == -EPROTO) {
			fprintf(stderr, "engpass import: '%s' refused: %s\n", name, err);
			refused++;
		} else {
			fprintf(stderr, "engpass import: '%s' not stored: %s: %s\n", name, path, err);
			refused++;
			if (r == -ENOTSUP)
				break;
		}
	}
	if (!o.quiet)
		printf("%zu imported, %zu already stored, %zu refused\n", imported, present, refused);
	if (refused)
		rc = EXIT_MEASURE_FAILED;
	history_close(h);
	free(path);
	free(pos);
	return rc;
}
