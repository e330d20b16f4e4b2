/* SPDX-License-Identifier: MIT */
/*
 * `engpass info`: the box description, as a table or one JSON document.
 */
#include <stdlib.h>
#include <string.h>

#include "cli/cmd.h"
#include "core/base/clock.h"
#include "core/kernel/sysinfo.h"
#include "lib/xalloc.h"
#include "out/render.h"

struct info_opts {
	bool json;
	int format;
	bool no_calibrate;
	bool no_history;
	const char *db;
	bool help;
};

static const char *const formats[] = { "table", "json", NULL };

const struct opt info_options[] = {
	OPT_FLAG("json", 0, struct info_opts, json, "write one JSON document (same as --format json)"),
	OPT_CHOICE("format", 0, struct info_opts, format, formats, "FMT", "output format (default table)"),
	OPT_FLAG("no-calibrate", 0, struct info_opts, no_calibrate,
		 "do not time the calibration loop for the CPU frequency"),
	OPT_FLAG("no-history", 0, struct info_opts, no_history, "do not store the run in the history"),
	OPT_STRING("db", 0, struct info_opts, db, "PATH",
		   "history database (default $XDG_DATA_HOME/engpass/history.db)"),
	OPT_FLAG("help", 'h', struct info_opts, help, "show this help"),
	OPT_END,
};

int cmd_info(int argc, char **argv)
{
	struct info_opts o = { 0 };
	struct opt_group g = { info_options, &o };
	struct opt_seen seen;
	char err[256], *pos[1];
	size_t npos;
	struct sysinfo_opts so = { .proc_root = "/proc", .sys_root = "/sys", .calibrate = true, .probe_uring = true };
	struct run *run;
	int r;

	if (opt_parse(argc, argv, &g, 1, 1, pos, 0, &npos, &seen, err, sizeof(err)))
		return usage_error("info", "%s", err);
	if (o.help) {
		printf("usage: engpass info [options]\n\n"
		       "Describes the box: CPU and its frequency (with the source of that figure), memory\n"
		       "and cgroup limit, swap devices, block devices and their queue settings (what\n"
		       "hdparm's flags tune) and the link each negotiated against what the device and\n"
		       "its port support (a USB 3 stick at 480 Mbit/s), mounts (flagging sync), network\n"
		       "interfaces, kernel, virtualisation and io_uring. ENGPASS_SYS_ROOT=DIR reads /sys\n"
		       "under DIR (the tests' fixture trees). See docs/info.md.\n\noptions:\n");
		opt_help(stdout, info_options);
		return EXIT_OK;
	}
	so.calibrate = !o.no_calibrate;
	/*
	 * The tests' fixture trees (tests/fixtures/sysfs/): $ENGPASS_SYS_ROOT
	 * makes info describe the box under it, as it does for a benchmark's
	 * view of the box (docs/info.md); /proc stays the real one.
	 */
	{
		const char *root = getenv("ENGPASS_SYS_ROOT");

		if (root && *root)
			so.sys_root = root;
	}
	run = run_new(ENGPASS_VERSION, argc + 1, argv - 1);
	run->info = xcalloc(1, sizeof(*run->info));
	r = sysinfo_collect(run->info, &so);
	if (r < 0) {
		fprintf(stderr, "engpass info: cannot describe the box: %s\n", strerror(-r));
		run_free(run);
		return EXIT_MEASURE_FAILED;
	}
	if (o.json || o.format == 1)
		render_json(stdout, run, true, false);
	else
		render_table(stdout, run);
	if (!o.no_history)
		(void)cmd_store_run("info", run, o.db);
	run_free(run);
	return EXIT_OK;
}
