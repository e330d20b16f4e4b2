/* SPDX-License-Identifier: MIT */
/*
 * Run history in SQLite; see history.h. Every statement is prepared with
 * bound parameters; nothing is pasted into SQL text.
 */
#include "history.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "config.h"
#include "lib/xalloc.h"
#include "out/render.h"

char *history_default_path(void)
{
	const char *x = getenv("XDG_DATA_HOME"), *home = getenv("HOME");

	if (x && x[0] == '/')
		return xasprintf("%s/engpass/history.db", x);
	if (home && home[0])
		return xasprintf("%s/.local/share/engpass/history.db", home);
	return NULL;
}

void history_runs_free(struct history_run *runs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(runs[i].host);
		free(runs[i].command);
		free(runs[i].version);
		free(runs[i].reason);
		free(runs[i].stopped);
		free(runs[i].worst);
	}
	free(runs);
}

void history_metrics_release(struct history_metrics *m)
{
	for (size_t i = 0; i < m->n; i++) {
		free(m->v[i].bench);
		free(m->v[i].step);
		free(m->v[i].name);
		free(m->v[i].label);
	}
	free(m->v);
	free(m->label);
	memset(m, 0, sizeof(*m));
}

int history_store_run(const struct run *run, const char *db, int64_t *id, char *err, size_t errlen)
{
	char *path = db ? xstrdup(db) : history_default_path(), *doc = NULL, e[256] = "";
	size_t len = 0;
	struct history *h;
	FILE *f;
	int r;

	if (!path) {
		snprintf(err, errlen, "neither XDG_DATA_HOME nor HOME is set (use --db or --no-history)");
		return -ENOENT;
	}
	r = history_open(&h, path, true, e, sizeof(e));
	if (r < 0) {
		if (r == -ENOTSUP)
			snprintf(err, errlen, "%s", e);
		else
			snprintf(err, errlen, "'%s': %s", path, e);
		free(path);
		return r;
	}
	f = open_memstream(&doc, &len);
	if (!f) {
		r = -errno;
		snprintf(err, errlen, "'%s': %s", path, strerror(-r));
	} else {
		render_json(f, run, false, true);
		if (fclose(f) != 0) {
			r = -errno;
			snprintf(err, errlen, "'%s': %s", path, strerror(-r));
		} else if ((r = history_store(h, run, doc, NULL, id, e, sizeof(e))) < 0) {
			snprintf(err, errlen, "'%s': %s", path, e);
		}
	}
	history_close(h);
	free(doc);
	free(path);
	return r;
}

#if HAVE_SQLITE
#include "store/sqlite_dl.h"

struct history {
	sqlite3 *db;
};

static void seterr(char *err, size_t len, const char *fmt, ...) PRINTF_LIKE(3, 4);
static void seterr(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
}

/* Maps an SQLite result code to -errno. */
static int sql_errno(int rc)
{
	switch (rc & 0xff) {
	case SQLITE_READONLY: return -EROFS;
	case SQLITE_PERM:
	case SQLITE_AUTH:
	case SQLITE_CANTOPEN: return -EACCES;
	case SQLITE_NOTADB:
	case SQLITE_CORRUPT: return -EPROTO;
	case SQLITE_BUSY:
	case SQLITE_LOCKED: return -EBUSY;
	case SQLITE_FULL: return -ENOSPC;
	case SQLITE_NOMEM: return -ENOMEM;
	default: return -EIO;
	}
}

static int exec(struct history *h, const char *sql, char *err, size_t errlen)
{
	int rc = sqlite3_exec(h->db, sql, NULL, NULL, NULL);

	if (rc != SQLITE_OK) {
		seterr(err, errlen, "%s", sqlite3_errmsg(h->db));
		return sql_errno(rc);
	}
	return 0;
}

/* mkdir -p of the directory part of PATH. */
static int make_parent(const char *path)
{
	char *dir = xstrdup(path);
	int r = 0;

	for (char *p = dir + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(dir, 0700) < 0 && errno != EEXIST) {
			r = -errno;
			break;
		}
		*p = '/';
	}
	free(dir);
	return r;
}

/* The version 1 schema; each migration step moves user_version by one. */
static const char *const migrations[] = {
	/* 0 -> 1 */
	"CREATE TABLE engpass_meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
	"INSERT INTO engpass_meta VALUES ('application', 'engpass history');"
	"CREATE TABLE runs(id INTEGER PRIMARY KEY, time_ns INTEGER NOT NULL, host TEXT, command TEXT,"
	" version TEXT, document TEXT NOT NULL);"
	"CREATE TABLE results(id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL REFERENCES runs(id)"
	" ON DELETE CASCADE, idx INTEGER NOT NULL, bench TEXT NOT NULL, step TEXT NOT NULL,"
	" status TEXT NOT NULL, reason TEXT, incomplete INTEGER NOT NULL, resource TEXT, evidence TEXT);"
	"CREATE TABLE metrics(result_id INTEGER NOT NULL REFERENCES results(id) ON DELETE CASCADE,"
	" name TEXT NOT NULL, unit INTEGER NOT NULL, value REAL, min REAL, max REAL, reps INTEGER);"
	"CREATE INDEX results_run ON results(run_id);"
	"CREATE INDEX metrics_result ON metrics(result_id);",
	/* 1 -> 2: imports (engpass import). A run is identified by host, start time and command; the
	 * index finds one fast. It is not UNIQUE, so that a version 1 database that somehow holds two
	 * rows alike still migrates; history_store() checks inside its transaction instead. source
	 * names the file an imported run came from (NULL: measured and stored by this engpass). */
	"ALTER TABLE runs ADD COLUMN source TEXT;"
	"CREATE INDEX runs_identity ON runs(host, time_ns, command);",
	/* 2 -> 3: the interval of the median over --repeat N (struct metric); NULL = none, as for
	 * every run stored before. */
	"ALTER TABLE metrics ADD COLUMN ci_low REAL;"
	"ALTER TABLE metrics ADD COLUMN ci_high REAL;"
	"ALTER TABLE metrics ADD COLUMN ci_coverage REAL;",
};

_Static_assert(sizeof(migrations) / sizeof(migrations[0]) == HISTORY_SCHEMA_VERSION,
	       "one migration per schema version");

static int query_int(struct history *h, const char *sql, int64_t *out)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(h->db, sql, -1, &st, NULL);

	if (rc != SQLITE_OK)
		return sql_errno(rc);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*out = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : rc == SQLITE_DONE ? -ENOENT : sql_errno(rc);
}

/* Checks the file is ours (or empty) and brings its schema up to date. */
static int migrate(struct history *h, bool writable, char *err, size_t errlen)
{
	int64_t version = 0, tables = 0, ours = 0;
	int r;

	if ((r = query_int(h, "PRAGMA user_version", &version)) < 0 ||
	    (r = query_int(h, "SELECT count(*) FROM sqlite_master", &tables)) < 0) {
		seterr(err, errlen, "not an SQLite database, or a corrupt one: %s", sqlite3_errmsg(h->db));
		return r == -EIO ? -EPROTO : r;
	}
	if (tables > 0 &&
	    query_int(h, "SELECT count(*) FROM sqlite_master WHERE name = 'engpass_meta'", &ours) == 0 && !ours) {
		seterr(err, errlen, "not an engpass history database (it has other tables)");
		return -EPROTO;
	}
	if (version > HISTORY_SCHEMA_VERSION) {
		seterr(err, errlen, "history schema %lld is newer than this engpass understands (%d)",
		       (long long)version, HISTORY_SCHEMA_VERSION);
		return -EPROTONOSUPPORT;
	}
	if (version == HISTORY_SCHEMA_VERSION)
		return 0;
	if (!writable) {
		seterr(err, errlen, "history schema %lld needs migrating, and the database is read-only",
		       (long long)version);
		return -EROFS;
	}
	if ((r = exec(h, "BEGIN IMMEDIATE", err, errlen)) < 0)
		return r;
	/* Re-read inside the transaction: another process may have migrated. */
	if (query_int(h, "PRAGMA user_version", &version) < 0)
		version = 0;
	for (int64_t v = version; v < HISTORY_SCHEMA_VERSION; v++) {
		char pragma[64];

		if ((r = exec(h, migrations[v], err, errlen)) < 0)
			goto fail;
		snprintf(pragma, sizeof(pragma), "PRAGMA user_version = %lld", (long long)v + 1);
		if ((r = exec(h, pragma, err, errlen)) < 0)
			goto fail;
	}
	return exec(h, "COMMIT", err, errlen);
fail:
	exec(h, "ROLLBACK", NULL, 0);
	return r;
}

int history_open(struct history **out, const char *path, bool create, char *err, size_t errlen)
{
	struct history *h = xcalloc(1, sizeof(*h));
	struct stat stbuf;
	int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_FULLMUTEX;
	int rc, r;

	*out = NULL;
	if ((r = sqlite_load(err, errlen)) < 0) {
		free(h);
		return r;
	}
	if (stat(path, &stbuf) < 0) {
		if (!create) {
			seterr(err, errlen, "no history database at '%s'", path);
			free(h);
			return -ENOENT;
		}
		if ((r = make_parent(path)) < 0) {
			seterr(err, errlen, "cannot create the directory of '%s': %s", path, strerror(-r));
			free(h);
			return r;
		}
		flags |= SQLITE_OPEN_CREATE;
	}
	rc = sqlite3_open_v2(path, &h->db, flags, NULL);
	if (rc != SQLITE_OK) {
		seterr(err, errlen, "cannot open '%s': %s", path, h->db ? sqlite3_errmsg(h->db) : "out of memory");
		r = sql_errno(rc);
		history_close(h);
		return r;
	}
	sqlite3_busy_timeout(h->db, 10000);
	if ((r = migrate(h, !sqlite3_db_readonly(h->db, "main"), err, errlen)) < 0 ||
	    (r = exec(h, "PRAGMA journal_mode = WAL", err, errlen)) < 0 ||
	    (r = exec(h, "PRAGMA foreign_keys = ON", err, errlen)) < 0) {
		history_close(h);
		return r;
	}
	*out = h;
	return 0;
}

void history_close(struct history *h)
{
	if (!h)
		return;
	sqlite3_close(h->db);
	free(h);
}

static int bind_text(sqlite3_stmt *st, int i, const char *s)
{
	return s ? sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT) : sqlite3_bind_null(st, i);
}

/*
 * The id of the stored run with RUN's identity (host, start time, command)
 * into *ID: 1 when there is one, 0 when not, or an SQLite error code
 * (negated). Called inside history_store()'s transaction.
 */
static int find_same(struct history *h, const struct run *run, int64_t *id)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(h->db, "SELECT id FROM runs WHERE host IS ? AND time_ns = ? AND command IS ?"
					   " ORDER BY id LIMIT 1", -1, &st, NULL);

	if (rc != SQLITE_OK)
		return -rc;
	bind_text(st, 1, run->host);
	sqlite3_bind_int64(st, 2, run->time_ns);
	bind_text(st, 3, run->command);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*id = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -rc;
}

int history_store(struct history *h, const struct run *run, const char *doc, const char *source, int64_t *id,
		  char *err, size_t errlen)
{
	sqlite3_stmt *srun = NULL, *sres = NULL, *smet = NULL;
	int r, rc;

	if ((r = exec(h, "BEGIN IMMEDIATE", err, errlen)) < 0)
		return r;
	r = find_same(h, run, id);
	if (r == 1) {
		exec(h, "ROLLBACK", NULL, 0);
		return 1;
	}
	if (r < 0) {
		rc = -r;
		goto fail;
	}
	rc = sqlite3_prepare_v2(h->db, "INSERT INTO runs(time_ns, host, command, version, document, source)"
				       " VALUES (?, ?, ?, ?, ?, ?)", -1, &srun, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v2(h->db, "INSERT INTO results(run_id, idx, bench, step, status, reason,"
					       " incomplete, resource, evidence) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
					-1, &sres, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v2(h->db, "INSERT INTO metrics(result_id, name, unit, value, min, max, reps,"
					       " ci_low, ci_high, ci_coverage) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", -1, &smet, NULL);
	if (rc != SQLITE_OK)
		goto fail;
	sqlite3_bind_int64(srun, 1, run->time_ns);
	bind_text(srun, 2, run->host);
	bind_text(srun, 3, run->command);
	bind_text(srun, 4, run->tool_version);
	bind_text(srun, 5, doc);
	bind_text(srun, 6, source);
	if ((rc = sqlite3_step(srun)) != SQLITE_DONE)
		goto fail;
	*id = sqlite3_last_insert_rowid(h->db);
	for (size_t i = 0; i < run->nresults; i++) {
		const struct result *res = run->results[i];
		int64_t rid;

		sqlite3_reset(sres);
		sqlite3_bind_int64(sres, 1, *id);
		sqlite3_bind_int64(sres, 2, (int64_t)i);
		bind_text(sres, 3, res->bench);
		bind_text(sres, 4, res->step);
		bind_text(sres, 5, result_status_name(res->status));
		bind_text(sres, 6, res->reason);
		sqlite3_bind_int(sres, 7, res->incomplete);
		bind_text(sres, 8, res->verdict.resource[0] ? res->verdict.resource : NULL);
		bind_text(sres, 9, res->verdict.evidence[0] ? res->verdict.evidence : NULL);
		if ((rc = sqlite3_step(sres)) != SQLITE_DONE)
			goto fail;
		rid = sqlite3_last_insert_rowid(h->db);
		for (size_t m = 0; m < res->nmetrics; m++) {
			const struct metric *mt = &res->metrics[m];

			sqlite3_reset(smet);
			sqlite3_bind_int64(smet, 1, rid);
			bind_text(smet, 2, mt->name);
			sqlite3_bind_int(smet, 3, (int)mt->unit);
			sqlite3_bind_double(smet, 4, mt->value);	/* NaN binds as NULL */
			sqlite3_bind_double(smet, 5, mt->min);
			sqlite3_bind_double(smet, 6, mt->max);
			sqlite3_bind_int(smet, 7, (int)mt->reps);
			sqlite3_bind_double(smet, 8, mt->ci_lo);
			sqlite3_bind_double(smet, 9, mt->ci_hi);
			sqlite3_bind_double(smet, 10, mt->ci_coverage);
			if ((rc = sqlite3_step(smet)) != SQLITE_DONE)
				goto fail;
		}
	}
	sqlite3_finalize(srun);
	sqlite3_finalize(sres);
	sqlite3_finalize(smet);
	return exec(h, "COMMIT", err, errlen);
fail:
	seterr(err, errlen, "cannot store the run: %s", sqlite3_errmsg(h->db));
	r = sql_errno(rc);
	sqlite3_finalize(srun);
	sqlite3_finalize(sres);
	sqlite3_finalize(smet);
	exec(h, "ROLLBACK", NULL, 0);
	return r;
}

/*
 * SQL: whether the command as typed in column COL starts with the word
 * ?1 (every command when ?1 is NULL). `engpass quick` records its command
 * as "engpass quick", a benchmark without the program name: both match.
 */
#define CMD_MATCH(col)                                                                                     \
	"(?1 IS NULL OR " col " = ?1 OR substr(" col ", 1, length(?1) + 1) = ?1 || ' ' OR " col            \
	" = 'engpass ' || ?1 OR substr(" col ", 1, length(?1) + 9) = 'engpass ' || ?1 || ' ')"

/* Column I as a number; NULL (NaN stored, or a column from before it existed) is NaN. */
static double col_num(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

static char *col_dup(sqlite3_stmt *st, int i)
{
	const unsigned char *s = sqlite3_column_text(st, i);

	return s ? xstrdup((const char *)s) : NULL;
}

int history_list(struct history *h, size_t limit, const char *command, const char *bench,
		 struct history_run **runs, size_t *n, char *err, size_t errlen)
{
	sqlite3_stmt *st;
	size_t cap = 0;
	int rc = sqlite3_prepare_v2(
		h->db,
		"SELECT r.id, r.time_ns, r.host, r.command, r.version,"
		" (SELECT count(*) FROM results x WHERE x.run_id = r.id),"
		" (SELECT count(*) FROM results x WHERE x.run_id = r.id AND x.status = 'failed'),"
		" (SELECT count(*) FROM results x WHERE x.run_id = r.id AND x.status = 'skipped'),"
		" (SELECT count(*) FROM results x WHERE x.run_id = r.id AND x.incomplete),"
		" (SELECT x.reason FROM results x WHERE x.run_id = r.id AND x.status <> 'ok'"
		"  ORDER BY x.status = 'failed' DESC, x.idx LIMIT 1),"
		" coalesce((SELECT x.resource FROM results x WHERE x.run_id = r.id AND x.resource IS NOT NULL"
		"   AND x.resource NOT IN ('none observed', 'unknown') ORDER BY x.idx LIMIT 1),"
		"  (SELECT x.resource FROM results x WHERE x.run_id = r.id AND x.resource = 'none observed'"
		"   LIMIT 1),"
		"  (SELECT x.resource FROM results x WHERE x.run_id = r.id AND x.resource = 'unknown' LIMIT 1)),"
		" (SELECT x.reason FROM results x WHERE x.run_id = r.id AND x.status = 'ok' AND x.incomplete"
		"  ORDER BY x.idx LIMIT 1)"
		" FROM runs r WHERE " CMD_MATCH("r.command")
		" AND (?3 IS NULL OR EXISTS (SELECT 1 FROM results z WHERE z.run_id = r.id AND z.bench = ?3))"
		" ORDER BY r.id DESC LIMIT ?2",
		-1, &st, NULL);

	*runs = NULL;
	*n = 0;
	if (rc != SQLITE_OK) {
		seterr(err, errlen, "%s", sqlite3_errmsg(h->db));
		return sql_errno(rc);
	}
	bind_text(st, 1, command);
	sqlite3_bind_int64(st, 2, (int64_t)limit);
	bind_text(st, 3, bench);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct history_run *x;

		if (*n == cap) {
			cap = cap ? 2 * cap : 16;
			*runs = xrealloc(*runs, cap * sizeof(**runs));
		}
		x = &(*runs)[(*n)++];
		x->id = sqlite3_column_int64(st, 0);
		x->time_ns = sqlite3_column_int64(st, 1);
		x->host = col_dup(st, 2);
		x->command = col_dup(st, 3);
		x->version = col_dup(st, 4);
		x->nresults = (size_t)sqlite3_column_int64(st, 5);
		x->nfailed = (size_t)sqlite3_column_int64(st, 6);
		x->nskipped = (size_t)sqlite3_column_int64(st, 7);
		x->nincomplete = (size_t)sqlite3_column_int64(st, 8);
		x->reason = col_dup(st, 9);
		x->worst = col_dup(st, 10);
		x->stopped = col_dup(st, 11);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		seterr(err, errlen, "%s", sqlite3_errmsg(h->db));
		history_runs_free(*runs, *n);
		*runs = NULL;
		*n = 0;
		return sql_errno(rc);
	}
	return 0;
}

int history_document(struct history *h, int64_t id, char **doc, char *err, size_t errlen)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(h->db, "SELECT document FROM runs WHERE id = ?", -1, &st, NULL);

	*doc = NULL;
	if (rc != SQLITE_OK) {
		seterr(err, errlen, "%s", sqlite3_errmsg(h->db));
		return sql_errno(rc);
	}
	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*doc = col_dup(st, 0);
	sqlite3_finalize(st);
	if (rc == SQLITE_DONE) {
		seterr(err, errlen, "no run %lld in the history", (long long)id);
		return -ENOENT;
	}
	return rc == SQLITE_ROW ? 0 : sql_errno(rc);
}

int history_metrics(struct history *h, int64_t id, struct history_metrics *out, char *err, size_t errlen)
{
	sqlite3_stmt *st;
	size_t cap = 0;
	int64_t exists = 0;
	char q[112];
	int rc;

	memset(out, 0, sizeof(*out));
	snprintf(q, sizeof(q), "SELECT count(*) FROM runs WHERE id = %lld", (long long)id);
	if (query_int(h, q, &exists) < 0 || !exists) {
		seterr(err, errlen, "no run %lld in the history", (long long)id);
		return -ENOENT;
	}
	rc = sqlite3_prepare_v2(h->db,
				"SELECT r.bench, r.step, m.name, m.unit, m.value, m.min, m.max, m.reps,"
				" m.ci_low, m.ci_high, m.ci_coverage"
				" FROM results r JOIN metrics m ON m.result_id = r.id"
				" WHERE r.run_id = ? ORDER BY r.idx, m.rowid",
				-1, &st, NULL);
	if (rc != SQLITE_OK) {
		seterr(err, errlen, "%s", sqlite3_errmsg(h->db));
		return sql_errno(rc);
	}
	sqlite3_bind_int64(st, 1, id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct history_metric *m;
		int unit = sqlite3_column_int(st, 3);

		if (out->n == cap) {
			cap = cap ? 2 * cap : 32;
			out->v = xrealloc(out->v, cap * sizeof(*out->v));
		}
		m = &out->v[out->n++];
		m->bench = col_dup(st, 0);
		m->step = col_dup(st, 1);
		m->name = col_dup(st, 2);
		m->unit = unit >= UNIT_COUNT && unit <= UNIT_RATIO ? (enum unit)unit : UNIT_COUNT;
		m->value = sqlite3_column_type(st, 4) == SQLITE_NULL ? NAN : sqlite3_column_double(st, 4);
		m->min = sqlite3_column_type(st, 5) == SQLITE_NULL ? NAN : sqlite3_column_double(st, 5);
		m->max = sqlite3_column_type(st, 6) == SQLITE_NULL ? NAN : sqlite3_column_double(st, 6);
		m->reps = (unsigned)sqlite3_column_int(st, 7);
		m->ci_lo = col_num(st, 8);
		m->ci_hi = col_num(st, 9);
		m->ci_coverage = col_num(st, 10);
		m->label = NULL;
	}
	sqlite3_finalize(st);
	out->label = xasprintf("run %lld", (long long)id);
	if (rc == SQLITE_DONE) {
		int64_t k = 0;

		snprintf(q, sizeof(q), "SELECT count(*) FROM results WHERE run_id = %lld AND incomplete",
			 (long long)id);
		if (query_int(h, q, &k) == 0)
			out->nincomplete = (size_t)k;
		snprintf(q, sizeof(q), "SELECT count(*) FROM results WHERE run_id = %lld AND status = 'failed'",
			 (long long)id);
		k = 0;
		if (query_int(h, q, &k) == 0)
			out->nfailed = (size_t)k;
	}
	if (rc != SQLITE_DONE) {
		seterr(err, errlen, "%s", sqlite3_errmsg(h->db));
		history_metrics_release(out);
		return sql_errno(rc);
	}
	return 0;
}

/* Steps prepared statement ST (finalizing it), collecting the first column of every row into *IDS. */
static int collect_ids(struct history *h, sqlite3_stmt *st, int64_t **ids, size_t *n, char *err, size_t errlen)
{
	int rc;

	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		*ids = xrealloc(*ids, (*n + 1) * sizeof(**ids));
		(*ids)[(*n)++] = sqlite3_column_int64(st, 0);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		seterr(err, errlen, "%s", sqlite3_errmsg(h->db));
		free(*ids);
		*ids = NULL;
		*n = 0;
		return sql_errno(rc);
	}
	return 0;
}

int history_latest(struct history *h, int64_t **ids, size_t *n, char *err, size_t errlen)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(h->db, "SELECT DISTINCT max(run_id) FROM results GROUP BY bench ORDER BY 1",
				    -1, &st, NULL);

	*ids = NULL;
	*n = 0;
	if (rc != SQLITE_OK) {
		seterr(err, errlen, "%s", sqlite3_errmsg(h->db));
		return sql_errno(rc);
	}
	return collect_ids(h, st, ids, n, err, errlen);
}

int history_latest_by_host(struct history *h, const char *command, int64_t **ids, size_t *n, char *err,
			   size_t errlen)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(
		h->db,
		"SELECT r.id FROM runs r WHERE " CMD_MATCH("r.command")
		" AND NOT EXISTS (SELECT 1 FROM runs s WHERE s.host IS r.host AND " CMD_MATCH("s.command")
		"  AND (s.time_ns > r.time_ns OR (s.time_ns = r.time_ns AND s.id > r.id)))"
		" ORDER BY r.host, r.id",
		-1, &st, NULL);

	*ids = NULL;
	*n = 0;
	if (rc != SQLITE_OK) {
		seterr(err, errlen, "%s", sqlite3_errmsg(h->db));
		return sql_errno(rc);
	}
	bind_text(st, 1, command);
	return collect_ids(h, st, ids, n, err, errlen);
}

#else /* !HAVE_SQLITE */

int history_latest_by_host(struct history *h, const char *command, int64_t **ids, size_t *n, char *err,
			   size_t errlen)
{
	(void)h, (void)command;
	*ids = NULL;
	*n = 0;
	snprintf(err, errlen, "built without sqlite");
	return -ENOTSUP;
}

int history_latest(struct history *h, int64_t **ids, size_t *n, char *err, size_t errlen)
{
	(void)h;
	*ids = NULL;
	*n = 0;
	snprintf(err, errlen, "built without sqlite");
	return -ENOTSUP;
}



void history_close(struct history *h)
{
	(void)h;
}

int history_store(struct history *h, const struct run *run, const char *doc, const char *source, int64_t *id,
		  char *err, size_t errlen)
{
	(void)h, (void)run, (void)doc, (void)source, (void)id;
	snprintf(err, errlen, "built without sqlite");
	return -ENOTSUP;
}

int history_list(struct history *h, size_t limit, const char *command, const char *bench,
		 struct history_run **runs, size_t *n, char *err, size_t errlen)
{
	(void)h, (void)limit, (void)command, (void)bench;
	*runs = NULL;
	*n = 0;
	snprintf(err, errlen, "built without sqlite");
	return -ENOTSUP;
}

int history_document(struct history *h, int64_t id, char **doc, char *err, size_t errlen)
{
	(void)h, (void)id;
	*doc = NULL;
	snprintf(err, errlen, "built without sqlite");
	return -ENOTSUP;
}

int history_metrics(struct history *h, int64_t id, struct history_metrics *out, char *err, size_t errlen)
{
	(void)h, (void)id;
	memset(out, 0, sizeof(*out));
	snprintf(err, errlen, "built without sqlite");
	return -ENOTSUP;
}

#endif
