/* SPDX-License-Identifier: MIT */
/*
 * engpass: where does this box's throughput go? This file is the command
 * table and the dispatch, nothing else. Benchmarks are commands too: a name
 * not in the table below is looked up in the benchmark registry.
 */
#include <string.h>

#include "cli/cmd.h"

const struct cmd cmd_table[] = {
	{ "quick", cmd_quick, "[--skip LIST] [--report FILE]", "the whole-box profile in about a minute (the main job)" },
	{ "info", cmd_info, "[--json]", "describe the box: CPU, memory, swap, disks, mounts, network" },
	{ "history", cmd_history, "[--limit N] [--command NAME]", "list the stored runs" },
	{ "show", cmd_show, "RUN [--json]", "show a stored run" },
	{ "compare", cmd_compare, "RUN|FILE.json RUN|FILE.json ...", "put runs side by side with ratios" },
	{ "report", cmd_report, "RUN|FILE.json --html FILE", "write an HTML report with SVG charts" },
	{ "sweep", cmd_sweep, "'CMD ARGS' --OPT a,b,c ...", "run a command over a parameter matrix, one table" },
	{ "exporter", cmd_exporter, "[--listen ADDR:PORT] [--db PATH]", "serve the newest results as Prometheus metrics" },
	{ "list", cmd_list, "", "list the benchmarks and whether this build and machine can run them" },
	{ "help", cmd_help, "[COMMAND]", "show help for engpass or for one command" },
	{ "version", cmd_version, "", "print the version" },
	{ NULL, NULL, NULL, NULL },
};

int main(int argc, char **argv)
{
	const char *name = argc > 1 ? argv[1] : NULL;
	const struct bench *b;

	if (!name) {
		help_top(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(name, "--help") || !strcmp(name, "-h"))
		return cmd_help(0, NULL);
	if (!strcmp(name, "--version"))
		return cmd_version(0, NULL);
	for (size_t i = 0; cmd_table[i].name; i++)
		if (!strcmp(cmd_table[i].name, name))
			return cmd_table[i].fn(argc - 2, argv + 2);
	b = bench_find(name);
	if (b)
		return cmd_bench(b, argc - 2, argv + 2);
	return usage_error(NULL, "unknown command '%s' (see 'engpass --help')", name);
}
