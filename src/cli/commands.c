/* SPDX-License-Identifier: MIT */
/*
 * The top-level command table: what `engpass --help` lists and main.c
 * dispatches. A name not in it is looked up in the benchmark registry
 * (src/bench/bench.h).
 */
#include "cli/cmd.h"

const struct cmd cmd_table[] = {
	{ "quick", cmd_quick, "[--skip LIST] [--report FILE]", "the whole-box profile in about a minute (the main job)", quick_options, false },
	{ "info", cmd_info, "[--json]", "describe the box: CPU, memory, swap, disks, mounts, network", info_options, false },
	{ "history", cmd_history, "[--limit N] [--command NAME]", "list the stored runs", history_options, false },
	{ "show", cmd_show, "RUN [--json]", "show a stored run", history_options, false },
	{ "import", cmd_import, "FILE... [--db PATH]", "store JSON documents of this or other hosts in the history", import_options, true },
	{ "fleet", cmd_fleet, "[RUN...] [--command NAME] [--k K]", "hosts side by side: each step's figure, verdict, outliers", fleet_options, false },
	{ "compare", cmd_compare, "RUN|FILE.json RUN|FILE.json ...", "put runs side by side with ratios", history_options, true },
	{ "report", cmd_report, "RUN|FILE.json... --html FILE", "write an HTML report with SVG charts (several: hosts side by side)", report_options, true },
	{ "sweep", cmd_sweep, "'CMD ARGS' --OPT a,b,c ...", "run a command over a parameter matrix, one table", NULL, false },
	{ "exporter", cmd_exporter, "[--listen ADDR:PORT] [--db PATH] [--max-connections N] [--header-timeout D] [--request-timeout D]", "serve the newest results as Prometheus metrics", exporter_options, false },
	{ "list", cmd_list, "", "list the benchmarks and whether this build and machine can run them", NULL, false },
	{ "help", cmd_help, "[COMMAND]", "show help for engpass or for one command", NULL, false },
	{ "version", cmd_version, "", "print the version", NULL, false },
	{ NULL, NULL, NULL, NULL, NULL, false },
};
