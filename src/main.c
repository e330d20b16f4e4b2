/* SPDX-License-Identifier: MIT */
/*
 * engpass: where does this box's throughput go? This file is the dispatch,
 * nothing else: the command table is src/cli/commands.c (help lists it, so
 * it lives in the layer that prints help), and a name not in it is looked
 * up in the benchmark registry, for benchmarks are commands too.
 */
#include <string.h>

#include "cli/cmd.h"

int main(int argc, char **argv)
{
	const char *name = argc > 1 ? argv[1] : NULL;
	const struct bench *b;
	int rc;
	struct opt_suggest sg;

	if (!name) {
		help_top(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(name, "--help") || !strcmp(name, "-h"))
		return cmd_help(0, NULL);
	if (!strcmp(name, "--version") || !strcmp(name, "-V"))
		return cmd_version(0, NULL);
	for (size_t i = 0; cmd_table[i].name; i++)
		if (!strcmp(cmd_table[i].name, name))
			return cmd_table[i].fn(argc - 2, argv + 2);
	b = bench_find(name);
	if (b)
		return cmd_bench(b, argc - 2, argv + 2);
	if ((rc = cmd_not_built_say(name)) >= 0)
		return rc;
	/* git's "did you mean", from both tables. */
	opt_suggest_init(&sg, name);
	for (size_t i = 0; cmd_table[i].name; i++)
		opt_suggest_add(&sg, "", cmd_table[i].name);
	for (size_t i = 0; bench_table[i]; i++)
		opt_suggest_add(&sg, "", bench_table[i]->name);
	if (sg.n)
		return usage_error(NULL, "unknown command '%s'; did you mean %s? (see 'engpass --help')", name,
				   sg.text);
	return usage_error(NULL, "unknown command '%s' (see 'engpass --help')", name);
}
