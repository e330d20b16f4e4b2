/* SPDX-License-Identifier: MIT */
/*
 * The top-level command table: what `engpass --help` lists and main.c
 * dispatches. A name not in it is looked up in the benchmark registry
 * (src/bench/bench.h).
 */
#include <stdio.h>
#include <string.h>

#include "cli/cmd.h"

const struct cmd cmd_table[] = {
	{ "quick", cmd_quick, "[--skip LIST] [--report FILE]", "the whole-box profile in about a minute (the main job)", quick_options, false },
	{ "info", cmd_info, "[--json]", "describe the box: CPU, memory, swap, disks, mounts, network", info_options, false },
#if !ENGPASS_MINIMAL
	{ "history", cmd_history, "[--limit N] [--command NAME]", "list the stored runs", history_options, false },
	{ "show", cmd_show, "RUN [--json]", "show a stored run", history_options, false },
	{ "import", cmd_import, "FILE... [--db PATH]", "store JSON documents of this or other hosts in the history", import_options, true },
	{ "fleet", cmd_fleet, "[RUN...] [--command NAME] [--k K]", "hosts side by side: each step's figure, verdict, outliers", fleet_options, false },
	{ "compare", cmd_compare, "RUN|FILE.json RUN|FILE.json ...", "put runs side by side with ratios", history_options, true },
	{ "report", cmd_report, "RUN|FILE.json... --html FILE", "write an HTML report with SVG charts (several: hosts side by side)", report_options, true },
	{ "sweep", cmd_sweep, "'CMD ARGS' --OPT a,b,c ...", "run a command over a parameter matrix, one table", NULL, false },
	{ "exporter", cmd_exporter, "[--listen ADDR:PORT] [--db PATH] [--max-connections N] [--header-timeout D] [--request-timeout D]", "serve the newest results as Prometheus metrics", exporter_options, false },
#endif
	{ "list", cmd_list, "", "list the benchmarks and whether this build and machine can run them", NULL, false },
	{ "help", cmd_help, "[COMMAND]", "show help for engpass or for one command", NULL, false },
	{ "version", cmd_version, "", "print the version", NULL, false },
	{ NULL, NULL, NULL, NULL, NULL, false },
};

/*
 * What the minimal router build (-Dminimal=true, the OpenWrt package
 * engpass) leaves out, commands and benchmarks: main.c says so when one is
 * called, engpass -V lists them. Empty in every other build.
 */
const char *const cmd_not_built[] = {
#if ENGPASS_MINIMAL
	"history", "show", "import", "fleet", "compare", "report", "sweep", "exporter",
	"cpu", "watch", "fetch", "download",
#endif
	NULL,
};

int cmd_not_built_say(const char *name)
{
	for (size_t i = 0; cmd_not_built[i]; i++)
		if (!strcmp(cmd_not_built[i], name)) {
			fprintf(stderr, "engpass %s: " CMD_NOT_BUILT_WHY "\n", name);
			return EXIT_MEASURE_FAILED;
		}
	return -1;
}
