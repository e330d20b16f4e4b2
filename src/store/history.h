/* SPDX-License-Identifier: MIT */
/*
 * Run history in SQLite. Every run can be stored (the rendered JSON
 * document, plus its results and metrics as rows for queries), listed,
 * loaded back for `show` and `compare`. The database is opened in WAL mode
 * with a busy timeout, so two engpass processes can use it at once; each
 * run is written in one transaction, so a run is stored whole or not at
 * all; the schema carries a version (PRAGMA user_version) and is migrated
 * forward, and a database from a newer engpass, or one that is not an
 * engpass history, is refused rather than touched.
 *
 * Built without SQLite, every function returns -ENOTSUP.
 */
#ifndef ENGPASS_HISTORY_H
#define ENGPASS_HISTORY_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "config.h"
#include "lib/compiler.h"
#include "core/result/result.h"

#define HISTORY_SCHEMA_VERSION 3

struct history;

/* One stored run, as listed. Strings owned by the list. */
struct history_run {
	int64_t id;
	int64_t time_ns;
	char *host;
	char *command;
	char *version;
	size_t nresults;
	size_t nfailed, nskipped, nincomplete;	/* steps failed, skipped, stopped early */
	char *reason;		/* the first failed (else skipped) step's reason; NULL = none */
	char *stopped;		/* why the first ok but incomplete step stopped early ("stopped by
				 * signal 2"); NULL = none, or not said */
	char *worst;		/* the first step's verdict resource other than "none observed" and
				 * "unknown"; else "none observed", else "unknown", if any step said
				 * so; else NULL (no verdict stored) */
};

/* One stored metric of a run, for compare. Strings owned by the set. */
struct history_metric {
	char *bench, *step, *name;
	char *label;		/* the human label ("p99"), from a JSON document; NULL = none */
	enum unit unit;
	double value, min, max;
	double ci_lo, ci_hi, ci_coverage;	/* the median's interval (struct metric); NaN = none */
	unsigned reps;
};

struct history_metrics {
	struct history_metric *v;
	size_t n;
	char *label;		/* "run 12" or the file name */
	size_t nincomplete;	/* results that stopped early */
	size_t nfailed;		/* results that failed */
};

/*
 * Default database path: $XDG_DATA_HOME/engpass/history.db, else
 * $HOME/.local/share/engpass/history.db. Caller frees. NULL when neither
 * variable is set.
 */
char *history_default_path(void);

/*
 * Opens (creating the file and its directory when CREATE) the history at
 * PATH. Returns 0, or -errno: -ENOENT (no database and not CREATE),
 * -EPROTO (not an engpass history, or corrupt), -EPROTONOSUPPORT (schema
 * newer than this engpass), -EACCES/-EROFS (not writable), -ENOTSUP
 * (built without SQLite). On error ERR gets one line. Caller closes with
 * history_close().
 */
#if HAVE_SQLITE
MUST_CHECK int history_open(struct history **out, const char *path, bool create, char *err, size_t errlen);
#else
/*
 * Without SQLite nothing can be opened. Inline, so that the compiler sees
 * it fail and leaves out every caller's code that reads a history (the
 * bodies of history, show, fleet, import and the exporter's metrics: the
 * router's static build, docs/embedded.md "Size").
 */
static inline MUST_CHECK int history_open(struct history **out, const char *path, bool create, char *err,
					  size_t errlen)
{
	(void)path, (void)create;
	*out = NULL;
	snprintf(err, errlen, "built without sqlite");
	return -ENOTSUP;
}
#endif
void history_close(struct history *h);

/*
 * Stores RUN with its JSON document DOC in one transaction; *ID gets the
 * new run id. A run is identified by its host, start time (ns) and command:
 * when the history already holds a run with the same three, nothing is
 * stored, *ID gets that run's id and the call returns 1. SOURCE says where
 * an imported document came from (a file name; NULL for a run this engpass
 * measured). Returns 0 (stored), 1 (already stored) or -errno with ERR filled.
 */
MUST_CHECK int history_store(struct history *h, const struct run *run, const char *doc, const char *source,
			     int64_t *id, char *err, size_t errlen);

/*
 * Imports the engpass JSON document TEXT (from SOURCE, a file name) into
 * the history: checked whole first (JSON, "schema": "engpass/1", the run's
 * identity: host, time_unix_ns and command; every result readable by
 * run_from_json()), then stored as it is through history_store(). A
 * document of a newer schema (engpass/2...), of a foreign one, or garbage
 * is refused with -EPROTO and one line in ERR, and nothing of it is
 * stored. Returns 0 (stored, *ID the new run), 1 (already stored, *ID the
 * run that has it), -EPROTO (refused), -ENOTSUP (built without jansson or
 * SQLite) or another -errno from the database, with ERR filled.
 */
MUST_CHECK int history_import(struct history *h, const char *text, const char *source, int64_t *id, char *err,
			      size_t errlen);

/*
 * Stores RUN in the history database at DB (NULL = history_default_path()):
 * opens or creates it, renders the run's JSON document and stores both.
 * *ID gets the new run id. Returns 0, -ENOTSUP when built without SQLite
 * (nothing to keep; ERR says so), or -errno with one line in ERR naming
 * the database.
 */
MUST_CHECK int history_store_run(const struct run *run, const char *db, int64_t *id, char *err, size_t errlen);

/*
 * Lists the newest runs first, at most LIMIT; when COMMAND is not NULL,
 * only runs whose command as typed starts with that word ("quick",
 * "disk"; with or without a leading "engpass", as quick records it);
 * when BENCH is not NULL, only runs with a result of that benchmark. Caller frees with history_runs_free().
 */
MUST_CHECK int history_list(struct history *h, size_t limit, const char *command, const char *bench,
			    struct history_run **runs, size_t *n, char *err, size_t errlen);
void history_runs_free(struct history_run *runs, size_t n);

/*
 * The stored JSON document of run ID (caller frees), or -ENOENT when there
 * is no such run.
 */
MUST_CHECK int history_document(struct history *h, int64_t id, char **doc, char *err, size_t errlen);

/* The metrics of run ID; caller frees with history_metrics_release(). -ENOENT: no such run. */
MUST_CHECK int history_metrics(struct history *h, int64_t id, struct history_metrics *out, char *err,
			       size_t errlen);
void history_metrics_release(struct history_metrics *m);

/*
 * The id of the newest run of each benchmark (each kind of result), for
 * the exporter. Caller frees *IDS.
 */
MUST_CHECK int history_latest(struct history *h, int64_t **ids, size_t *n, char *err, size_t errlen);

/*
 * The id of the newest run (by start time, then id) of each host, ordered
 * by host; when COMMAND is not NULL, of the runs whose command as typed
 * starts with that word (as history_list()). Caller frees *IDS.
 */
MUST_CHECK int history_latest_by_host(struct history *h, const char *command, int64_t **ids, size_t *n,
				      char *err, size_t errlen);

/*
 * Reads the metrics of an engpass JSON document (schema engpass/1) from
 * TEXT, labelled LABEL. Returns 0, -EPROTO (not JSON, not an engpass
 * result) with ERR filled, or -ENOTSUP without jansson. Caller releases
 * with history_metrics_release().
 */
MUST_CHECK int history_metrics_from_json(const char *text, const char *label, struct history_metrics *out,
					 char *err, size_t errlen);

/*
 * Rebuilds a run from an engpass JSON document: results with their
 * parameters, method, metrics (with spreads and labels), notes, system
 * view and verdict. Histograms and the sampled series are not rebuilt
 * (their figures that matter are metrics too). Returns 0, -EPROTO with
 * ERR filled, or -ENOTSUP without jansson. Caller frees with run_free().
 */
MUST_CHECK int run_from_json(const char *text, struct run **out, char *err, size_t errlen);

#endif
