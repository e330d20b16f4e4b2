/* SPDX-License-Identifier: MIT */
/*
 * `engpass report RUN|FILE.json --html FILE`: one self-contained HTML page
 * with SVG charts, made from a stored run (its JSON document in the
 * history) or from an engpass JSON file. The page is rendered by
 * src/out/html.c; this file chooses the input, checks it, and writes the
 * page atomically: into an O_EXCL temp file in the target's directory
 * (removed again on error and on SIGINT/SIGTERM/SIGHUP), flushed to disk,
 * then renamed over FILE, so a reader sees the old page or the new one,
 * never half of one. On success it prints FILE's path.
 *
 * Exit status: 0 written; 2 usage error (no such run or file, not an
 * engpass result, --html missing or into a directory that cannot be
 * written); 1 when writing failed midway or this build has no jansson.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cmd.h"
#include "lib/units.h"
#include "config.h"
#include "core/work/tmpfile.h"
#include "lib/xalloc.h"
#include "out/html.h"
#include "out/render.h"
#include "store/history.h"

/* Runs one page puts side by side, at most. */
#define REPORT_MAX_RUNS 256

struct report_opts {
	const char *html;
	const char *db;
	bool help;
};

const struct opt report_options[] = {
	OPT_STRING("html", 0, struct report_opts, html, "FILE",
		   "write the report to FILE (atomically: a temp file beside it, then rename)"),
	OPT_STRING("db", 0, struct report_opts, db, "PATH",
		   "history database for a run id (default $XDG_DATA_HOME/engpass/history.db)"),
	OPT_FLAG("help", 'h', struct report_opts, help, "show this help"),
	OPT_END,
};

#if HAVE_JANSSON
/* The directory FILE is in ("." when it names none). Caller frees. */
static char *dir_of(const char *file)
{
	char *dir = xstrdup(file), *slash = strrchr(dir, '/');

	if (!slash) {
		free(dir);
		return xstrdup(".");
	}
	if (slash == dir)
		slash[1] = 0;
	else
		*slash = 0;
	return dir;
}

/* 0 when DIR is a directory this process may write into, else -errno. */
static int dir_writable(const char *dir)
{
	struct stat st;

	if (stat(dir, &st) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	return access(dir, W_OK) < 0 ? -errno : 0;
}

/*
 * Loads the document named by ARG: a run id from the history at DB, else a
 * JSON file. Returns the parsed document, or NULL with one line printed
 * and *RC set to the exit status.
 */
static json_t *load(const char *arg, const char *db, int *rc)
{
	char err[256] = "", *path, *text = NULL;
	json_error_t jerr;
	struct history *h;
	json_t *doc;
	int64_t id;
	int r;

	if (units_parse_int64(arg, 1, INT64_MAX, &id)) {
		doc = json_load_file(arg, JSON_REJECT_DUPLICATES, &jerr);
		if (!doc) {
			if (access(arg, R_OK) < 0)
				fprintf(stderr, "engpass report: cannot read '%s': %s\n", arg, strerror(errno));
			else
				fprintf(stderr, "engpass report: '%s' is not JSON: %s (line %d)\n", arg, jerr.text,
					jerr.line);
			*rc = EXIT_USAGE;
		}
		return doc;
	}
	path = db ? xstrdup(db) : history_default_path();
	if (!path) {
		*rc = usage_error("report", "neither XDG_DATA_HOME nor HOME is set; use --db PATH");
		return NULL;
	}
	r = history_open(&h, path, false, err, sizeof(err));
	free(path);
	if (r < 0) {
		fprintf(stderr, "engpass report: %s\n", err);
		*rc = r == -ENOENT ? EXIT_USAGE : EXIT_MEASURE_FAILED;
		return NULL;
	}
	r = history_document(h, id, &text, err, sizeof(err));
	history_close(h);
	if (r < 0) {
		fprintf(stderr, "engpass report: %s\n", err);
		*rc = r == -ENOENT ? EXIT_USAGE : EXIT_MEASURE_FAILED;
		return NULL;
	}
	doc = json_loads(text, JSON_REJECT_DUPLICATES, &jerr);
	free(text);
	if (!doc) {
		fprintf(stderr, "engpass report: run %" PRId64 " has a stored document that is not JSON: %s\n", id,
			jerr.text);
		*rc = EXIT_MEASURE_FAILED;
	}
	return doc;
}

/*
 * Writes the report of DOC to FILE in DIR atomically. Returns 0, or
 * -errno; *STAGE says which step failed ("create" when the temp file
 * could not be made: the directory is the problem).
 */
static int write_atomic(const char *file, const char *dir, json_t **docs, const char *const *sources, size_t n,
			const char **stage)
{
	struct tmpfile_reg *reg = tmpfile_reg_new();
	char *tmp = NULL;
	mode_t mask;
	FILE *f;
	int fd, r;

	*stage = "create";
	r = tmpfile_install_handlers(reg);
	if (r < 0 && r != -EBUSY)
		goto out;
	r = tmpfile_create(reg, dir, "report", 0, &fd, &tmp);
	if (r < 0)
		goto out;
	*stage = "write";
	mask = umask(0);
	umask(mask);
	if (fchmod(fd, 0666 & ~mask) < 0) {
		r = -errno;
		close(fd);
		goto out;
	}
	f = fdopen(fd, "w");
	if (!f) {
		r = -errno;
		close(fd);
		goto out;
	}
	r = n == 1 ? render_html(f, docs[0], sources[0]) : render_html_hosts(f, docs, sources, n);
	if (!r && (fflush(f) != 0 || fsync(fd) < 0))
		r = -errno;
	if (fclose(f) != 0 && !r)
		r = -errno;
	if (!r) {
		*stage = "rename";
		if (rename(tmp, file) < 0)
			r = -errno;
	}
out:
	/* After the rename the temp name is gone; removing it only unregisters it. */
	if (tmp && tmpfile_remove(reg, tmp) < 0 && !r)
		r = -EIO;
	free(tmp);
	tmpfile_reg_free(reg);
	return r;
}

int report_write_run(const char *file, const struct run *run, const char *source, const char **stage)
{
	char *dir, *text = NULL;
	size_t len = 0;
	json_t *doc;
	FILE *f;
	int r;

	/* The page is made from the JSON document, the same one the history keeps. */
	*stage = "render";
	f = open_memstream(&text, &len);
	if (!f)
		return -errno;
	render_json(f, run, false, true);
	if (fclose(f) != 0) {
		free(text);
		return -errno;
	}
	doc = json_loads(text, 0, NULL);
	free(text);
	if (!doc)
		return -EPROTO;
	dir = dir_of(file);
	r = write_atomic(file, dir, &doc, &source, 1, stage);
	free(dir);
	json_decref(doc);
	return r;
}
#else
int report_write_run(const char *file, const struct run *run, const char *source, const char **stage)
{
	(void)file, (void)run, (void)source;
	*stage = "render";
	return -ENOTSUP;
}
#endif

int cmd_report(int argc, char **argv)
{
	struct report_opts o = { 0 };
	struct opt_group g = { report_options, &o };
	struct opt_seen seen;
	char *pos[REPORT_MAX_RUNS + 1], err[256];
	size_t npos;

	if (opt_parse(argc, argv, &g, 1, 1, pos, REPORT_MAX_RUNS + 1, &npos, &seen, err, sizeof(err)))
		return usage_error("report", "%s", err);
	if (o.help) {
		printf("usage: engpass report RUN|FILE.json... --html FILE [--db PATH]\n\n"
		       "Writes one self-contained HTML page (inline CSS and SVG, no script, nothing fetched)\n"
		       "for a stored run or an engpass JSON file: a summary table, charts across steps,\n"
		       "and per step throughput and CPU over time with a heat strip per core, latency\n"
		       "histograms and percentile bars. Given several runs (hosts of a fleet), one page\n"
		       "with them side by side: every step's headline figure and verdict per host, and\n"
		       "one bar chart per headline figure across the hosts (at most %d runs).\n"
		       "See docs/report.md and docs/fleet.md.\n\noptions:\n", REPORT_MAX_RUNS);
		opt_help(stdout, report_options);
		return EXIT_OK;
	}
	if (npos == 0)
		return usage_error("report", "needs a run id (see 'engpass history') or an engpass JSON file");
	if (npos > REPORT_MAX_RUNS)
		return usage_error("report", "takes at most %d runs, not '%s' too", REPORT_MAX_RUNS, pos[REPORT_MAX_RUNS]);
	if (!o.html || !*o.html)
		return usage_error("report", "needs --html FILE, the page to write");
#if !HAVE_JANSSON
	fprintf(stderr, "engpass report: built without jansson: cannot read JSON documents\n");
	return EXIT_MEASURE_FAILED;
#else
	{
		char *dir = dir_of(o.html), *sources[REPORT_MAX_RUNS] = { 0 };
		json_t *docs[REPORT_MAX_RUNS] = { 0 };
		const char *stage;
		struct stat st;
		size_t n = 0;
		int rc = EXIT_OK, r;

		if ((r = dir_writable(dir)) < 0) {
			free(dir);
			return usage_error("report", "option '--html': cannot write into the directory of '%s': %s", o.html,
					   strerror(-r));
		}
		if (stat(o.html, &st) == 0 && S_ISDIR(st.st_mode)) {
			free(dir);
			return usage_error("report", "option '--html': '%s' is a directory", o.html);
		}
		for (; n < npos; n++) {
			int64_t id;

			docs[n] = load(pos[n], o.db, &rc);
			if (!docs[n])
				goto out;
			if (html_check_document(docs[n], err, sizeof(err)) < 0) {
				fprintf(stderr, "engpass report: '%s': %s\n", pos[n], err);
				rc = EXIT_USAGE;
				n++;
				goto out;
			}
			sources[n] = units_parse_int64(pos[n], 1, INT64_MAX, &id) ? xstrdup(pos[n])
										   : xasprintf("run %" PRId64, id);
		}
		r = write_atomic(o.html, dir, docs, (const char *const *)sources, n, &stage);
		if (r < 0) {
			fprintf(stderr, "engpass report: cannot %s '%s': %s\n",
				!strcmp(stage, "create") ? "write into the directory of" : "write", o.html, strerror(-r));
			rc = !strcmp(stage, "create") ? EXIT_USAGE : EXIT_MEASURE_FAILED;
		} else {
			printf("%s\n", o.html);
		}
out:
		for (size_t i = 0; i < n; i++) {
			free(sources[i]);
			json_decref(docs[i]);
		}
		free(dir);
		return rc;
	}
#endif
}
