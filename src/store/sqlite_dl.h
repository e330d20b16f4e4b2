/* SPDX-License-Identifier: MIT */
/*
 * SQLite, loaded when the history is opened (core/work/dlib.h says why: its
 * load-time relocations cost every process 256 KiB of resident pages,
 * runs with --no-history included). history.c includes this instead of
 * <sqlite3.h>; the functions it calls are redirected through a table that
 * sqlite_load() fills.
 *
 * sqlite_api_ is process-global on purpose, like core/work/ossl.h's table:
 * written once under dlib_load()'s lock, read-only afterwards; see
 * core/work/dlib.h for why this is an accepted exception to "no global
 * mutable state" and why it is thread-safe.
 */
#ifndef ENGPASS_SQLITE_DL_H
#define ENGPASS_SQLITE_DL_H

#include <stddef.h>
#include <sqlite3.h>

#define SQLITE_SONAME "libsqlite3.so.0"

#define SQLITE_FUNCS(X) \
	X(sqlite3_bind_double) \
	X(sqlite3_bind_int) \
	X(sqlite3_bind_int64) \
	X(sqlite3_bind_null) \
	X(sqlite3_bind_text) \
	X(sqlite3_busy_timeout) \
	X(sqlite3_close) \
	X(sqlite3_column_double) \
	X(sqlite3_column_int) \
	X(sqlite3_column_int64) \
	X(sqlite3_column_text) \
	X(sqlite3_column_type) \
	X(sqlite3_db_readonly) \
	X(sqlite3_errmsg) \
	X(sqlite3_exec) \
	X(sqlite3_finalize) \
	X(sqlite3_last_insert_rowid) \
	X(sqlite3_open_v2) \
	X(sqlite3_prepare_v2) \
	X(sqlite3_reset) \
	X(sqlite3_step)

struct sqlite_api {
#define SQLITE_MEMBER_(f) __typeof__(f) *f;
	SQLITE_FUNCS(SQLITE_MEMBER_)
#undef SQLITE_MEMBER_
};

extern struct sqlite_api sqlite_api_;

#ifndef SQLITE_NO_REDIRECT
#define sqlite3_bind_double sqlite_api_.sqlite3_bind_double
#define sqlite3_bind_int sqlite_api_.sqlite3_bind_int
#define sqlite3_bind_int64 sqlite_api_.sqlite3_bind_int64
#define sqlite3_bind_null sqlite_api_.sqlite3_bind_null
#define sqlite3_bind_text sqlite_api_.sqlite3_bind_text
#define sqlite3_busy_timeout sqlite_api_.sqlite3_busy_timeout
#define sqlite3_close sqlite_api_.sqlite3_close
#define sqlite3_column_double sqlite_api_.sqlite3_column_double
#define sqlite3_column_int sqlite_api_.sqlite3_column_int
#define sqlite3_column_int64 sqlite_api_.sqlite3_column_int64
#define sqlite3_column_text sqlite_api_.sqlite3_column_text
#define sqlite3_column_type sqlite_api_.sqlite3_column_type
#define sqlite3_db_readonly sqlite_api_.sqlite3_db_readonly
#define sqlite3_errmsg sqlite_api_.sqlite3_errmsg
#define sqlite3_exec sqlite_api_.sqlite3_exec
#define sqlite3_finalize sqlite_api_.sqlite3_finalize
#define sqlite3_last_insert_rowid sqlite_api_.sqlite3_last_insert_rowid
#define sqlite3_open_v2 sqlite_api_.sqlite3_open_v2
#define sqlite3_prepare_v2 sqlite_api_.sqlite3_prepare_v2
#define sqlite3_reset sqlite_api_.sqlite3_reset
#define sqlite3_step sqlite_api_.sqlite3_step
#endif

/* Loads SQLite once per process. Returns 0, or -ENOTSUP with the reason in WHY. */
int sqlite_load(char *why, size_t whylen);

#endif
