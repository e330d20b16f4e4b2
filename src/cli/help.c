/* SPDX-License-Identifier: MIT */
/*
 * Help, list and version: everything here is generated from the command
 * table, the benchmark registry and the option tables, so it cannot drift
 * from what the parser accepts.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "cli/cmd.h"
#include "core/work/ossl.h"
#if HAVE_SQLITE
#include "store/sqlite_dl.h"
#define SQLITE_LOAD sqlite_load
#else
#define SQLITE_LOAD NULL	/* no sqlite_load() in a build without SQLite (nor <sqlite3.h>) */
#endif

const char help_units_text[] =
	"Units are strict: sizes 4K 60KiB 1M 2G (K=1024; kB MB GB are decimal), rates 200K/s\n"
	"500KB/s 1Gbit/s, durations 500ms 5s 2m, CPU lists 0 0,2 1-3.\n";
const char help_exit_text[] = "Exit status: 0 ok or skipped, 1 measurement failed, 2 usage error.\n";

int usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "engpass%s%s: ", cmd ? " " : "", cmd ? cmd : "");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return EXIT_USAGE;
}

/* The commands this build leaves out (cmd_not_built), each after a space, then a newline. */
static void not_built_list(FILE *f)
{
	for (size_t i = 0; cmd_not_built[i]; i++)
		fprintf(f, " %s", cmd_not_built[i]);
	fputc('\n', f);
}

void help_top(FILE *f)
{
	fprintf(f, "usage: engpass COMMAND [options]\n\n"
		   "engpass measures where a Linux box's throughput goes and says what bounded it.\n\n"
		   "commands:\n");
	for (size_t i = 0; cmd_table[i].name; i++)
		fprintf(f, "  %-10s %s\n", cmd_table[i].name, cmd_table[i].summary);
	fprintf(f, "\nbenchmarks:\n");
	for (size_t i = 0; bench_table[i]; i++)
		fprintf(f, "  %-10s %s%s\n", bench_table[i]->name, bench_table[i]->summary,
			bench_table[i]->unsupported_reason ? " (not in this build)" : "");
	if (cmd_not_built[0]) {
		fprintf(f, "\nnot in this build (the minimal router build; the engpass-full package has them):\n ");
		not_built_list(f);
	}
	fprintf(f, "\nRun 'engpass COMMAND --help' for the options of one command, 'man engpass' for all.\n"
		   "'engpass --version' (-V) names the optional libraries this build has.\n");
	fputs(help_units_text, f);
	fputs(help_exit_text, f);
}

void help_bench(FILE *f, const struct bench *b, const struct bench_verb *verb)
{
	bool shared = b->opts && b->opts[0].name;

	if (verb)
		fprintf(f, "usage: engpass %s %s%s%s [options]\n\n%s\n", b->name, verb->name, verb->args[0] ? " " : "",
			verb->args, verb->summary);
	else
		fprintf(f, "usage: engpass %s %s\n\n%s\n", b->name, b->usage, b->summary);
	if (b->description)
		fprintf(f, "\n%s\n", b->description);
	if (b->unsupported_reason)
		fprintf(f, "\nThis build cannot run it: %s.\n", b->unsupported_reason);
	if (verb) {
		if ((verb->opts && verb->opts[0].name) || shared)
			fprintf(f, "\n%s %s options:\n", b->name, verb->name);
		if (verb->opts)
			opt_help(f, verb->opts);
		if (shared)
			opt_help(f, b->opts);
	} else {
		for (size_t i = 0; b->verbs && b->verbs[i].name; i++)
			fprintf(f, "%s  %s %s%s%s: %s\n", i ? "" : "\ncommands:\n", b->name, b->verbs[i].name,
				b->verbs[i].args[0] ? " " : "", b->verbs[i].args, b->verbs[i].summary);
		if (shared) {
			fprintf(f, "\n%s options%s:\n", b->name, b->verbs ? " (every command)" : "");
			opt_help(f, b->opts);
		}
		for (size_t i = 0; b->verbs && b->verbs[i].name; i++) {
			if (!b->verbs[i].opts || !b->verbs[i].opts[0].name)
				continue;
			fprintf(f, "\n%s %s options:\n", b->name, b->verbs[i].name);
			opt_help(f, b->verbs[i].opts);
		}
	}
	fprintf(f, "\ncommon options:\n");
	opt_help(f, common_opts_table);
}

int cmd_help(int argc, char **argv)
{
	const struct bench *b;
	int rc;

	if (argc < 1) {
		help_top(stdout);
		return EXIT_OK;
	}
	/* Hidden, for the build: the manual page and the completion scripts (gen.c). */
	if (!strcmp(argv[0], "--man") || !strcmp(argv[0], "--completion"))
		return argc > 2 ? usage_error("help", "unexpected argument '%s'", argv[2])
				: help_gen(stdout, argv[0], argc > 1 ? argv[1] : NULL);
	if (argc > 1)
		return usage_error("help", "unexpected argument '%s'", argv[1]);
	for (size_t i = 0; cmd_table[i].name; i++) {
		if (!strcmp(cmd_table[i].name, argv[0])) {
			char *args[] = { (char *)"--help", NULL };
			return cmd_table[i].fn(1, args);
		}
	}
	b = bench_find(argv[0]);
	if (!b && (rc = cmd_not_built_say(argv[0])) >= 0)
		return rc;
	if (!b)
		return usage_error("help", "unknown command '%s'", argv[0]);
	help_bench(stdout, b, NULL);
	return EXIT_OK;
}

int cmd_list(int argc, char **argv)
{
	if (argc > 0 && (!strcmp(argv[0], "--help") || !strcmp(argv[0], "-h"))) {
		printf("usage: engpass list\n\nLists the benchmarks, their capabilities and whether they can run here.\n");
		return EXIT_OK;
	}
	if (argc > 0)
		return usage_error("list", "unexpected argument '%s'", argv[0]);
	printf("%-10s %-28s %s\n", "benchmark", "needs", "state");
	for (size_t i = 0; bench_table[i]; i++) {
		const struct bench *b = bench_table[i];
		char needs[64] = "";
		size_t n = 0;

		if (b->flags & BENCH_NEEDS_ROOT)
			n += (size_t)snprintf(needs + n, sizeof(needs) - n, "root ");
		if (b->flags & BENCH_BLOCKDEV && n < sizeof(needs))
			n += (size_t)snprintf(needs + n, sizeof(needs) - n, "blockdev ");
		if (b->flags & BENCH_NETWORK && n < sizeof(needs))
			n += (size_t)snprintf(needs + n, sizeof(needs) - n, "network ");
		if (b->flags & BENCH_DESTRUCTIVE && n < sizeof(needs))
			n += (size_t)snprintf(needs + n, sizeof(needs) - n, "destructive ");
		if (b->flags & BENCH_NO_IO && n < sizeof(needs))
			snprintf(needs + n, sizeof(needs) - n, "no-io");
		if (b->unsupported_reason)
			printf("%-10s %-28s skipped: %s\n", b->name, needs, b->unsupported_reason);
		else if (b->flags & BENCH_NEEDS_ROOT && geteuid() != 0)
			printf("%-10s %-28s skipped: needs root\n", b->name, needs);
		else
			printf("%-10s %-28s ready\n", b->name, needs);
	}
	return EXIT_OK;
}

int cmd_version(int argc, char **argv)
{
	(void)argv;
	if (argc > 0)
		return usage_error("version", "unexpected argument");
	help_version(stdout);
	return EXIT_OK;
}

/*
 * The optional libraries (meson_options.txt): in this build or not, and
 * why not (meson.build writes the reason into config.h). libcrypto and
 * SQLite are loaded when a step needs them: for those, whether they load
 * on this machine now.
 */
void help_version(FILE *f)
{
	static const struct {
		const char *name;
		bool on;
		const char *off;	/* why not in this build */
		int (*load)(char *why, size_t whylen);	/* dlopen()ed at run time, or NULL */
	} feat[] = {
		{ "jansson", HAVE_JANSSON, ENGPASS_OFF_JANSSON, NULL },
		{ "libsodium", HAVE_LIBSODIUM, ENGPASS_OFF_LIBSODIUM, NULL },
		{ "openssl", HAVE_OPENSSL, ENGPASS_OFF_OPENSSL, ossl_load },
		{ "sqlite", HAVE_SQLITE, ENGPASS_OFF_SQLITE, SQLITE_LOAD },
		{ "liburing", HAVE_LIBURING, ENGPASS_OFF_LIBURING, NULL },
		{ "http-parser", HAVE_HTTP_PARSER, ENGPASS_OFF_HTTP_PARSER, NULL },
		{ "libmnl", HAVE_LIBMNL, ENGPASS_OFF_LIBMNL, NULL },
		{ "mbedtls", HAVE_MBEDTLS, ENGPASS_OFF_MBEDTLS, NULL },
	};

	fprintf(f, "engpass %s\nfeatures:\n", ENGPASS_VERSION);
	for (size_t i = 0; i < sizeof(feat) / sizeof(feat[0]); i++) {
		char why[256] = "";

		if (!feat[i].on)
			fprintf(f, "  %-12s off: %s\n", feat[i].name, feat[i].off);
		else if (!feat[i].load)
			fprintf(f, "  %-12s on\n", feat[i].name);
		else if (feat[i].load(why, sizeof(why)) == 0)
			fprintf(f, "  %-12s on (dlopen: loads here)\n", feat[i].name);
		else
			fprintf(f, "  %-12s on (dlopen), but not here: %s\n", feat[i].name, why);
	}
	if (cmd_not_built[0]) {
		fprintf(f, "the minimal router build (-Dminimal=true; the engpass-full package has the rest):\n"
			   "  not in this build:");
		not_built_list(f);
	}
}
