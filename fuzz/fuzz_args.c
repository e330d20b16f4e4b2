/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target for the command-line parsers: opt_parse() over a table with
 * one option of every type, and the list parsers behind --tasks/--loads
 * (latency), --sync (disk) and --sizes (mem). The first byte picks the
 * parser; the rest is split at NUL bytes into arguments, as argv arrives.
 */
#include <sched.h>
#include <stdbool.h>
#include <stdlib.h>

#include "bench/disk/disk_spec.h"
#include "bench/latency/latency_spec.h"
#include "bench/mem/mem_sizes.h"
#include "lib/opt.h"
#include "fuzz.h"

#define FUZZ_MAX_ARGS 32

struct fuzz_opts {
	bool flag;
	uint64_t size, duration;
	double rate, bits;
	int64_t num;
	cpu_set_t cpus;
	const char *str;
	int choice;
	struct opt_list list;
};

static const char *const fuzz_choices[] = { "seq", "rand", "torrent", NULL };

static const struct opt fuzz_options[] = {
	OPT_FLAG("flag", 'f', struct fuzz_opts, flag, "a flag"),
	OPT_SIZE("size", 's', struct fuzz_opts, size, 512, 1LL << 40, "a size"),
	OPT_DURATION("time", 't', struct fuzz_opts, duration, 0, 0, "a duration"),
	OPT_RATE("rate", 'r', struct fuzz_opts, rate, "a rate"),
	OPT_INT("num", 'n', struct fuzz_opts, num, -5, 1000, "N", "a number"),
	OPT_CPULIST("pin", 'p', struct fuzz_opts, cpus, "a CPU list"),
	OPT_STRING("name", 0, struct fuzz_opts, str, "NAME", "a string"),
	OPT_CHOICE("mode", 'm', struct fuzz_opts, choice, fuzz_choices, "MODE", "a choice"),
	OPT_LIST("list", 'l', struct fuzz_opts, list, 4, "LIST", "a list"),
	OPT_END,
};

/* A second table, as a benchmark's options come after the common ones. */
static const struct opt fuzz_more[] = {
	OPT_FLAG("quiet", 'q', struct fuzz_opts, flag, "another flag"),
	OPT_SIZE("block", 'b', struct fuzz_opts, size, 0, 0, "another size", .alias = "bs"),
	OPT_BITRATE("bitrate", 'B', struct fuzz_opts, bits, "a bit rate"),
	OPT_VERB("client", 'c', "HOST", "a word with a value"),
	OPT_VERB("server", 'S', NULL, "a word"),
	OPT_POS("filename", 'F', "TARGET", "a positional"),
	OPT_SAME('T', "time", "a letter for another table's option", .alias = "runtime"),
	OPT_REFUSED("numjobs", 'j', "refused"),
	OPT_REFUSED("-k", 'k', "refused, short only"),
	OPT_END,
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text, *argv[FUZZ_MAX_ARGS + 1], *pos[4], err[256];
	struct fuzz_opts o = { 0 }, o2 = { 0 };
	struct opt_group g[2] = { { fuzz_options, &o }, { fuzz_more, &o2 } };
	struct opt_seen seen;
	struct lat_plan *plan;
	struct mem_size sizes[16];
	struct opt_list list, list2;
	enum disk_sync mode;
	uint64_t every;
	size_t npos, n;
	int argc = 0;

	if (size < 1)
		return 0;
	text = fuzz_cstr(data + 1, size - 1);
	/* Arguments at each NUL; fuzz_cstr() put one after the last. */
	for (size_t i = 0; i < size - 1 && argc < FUZZ_MAX_ARGS; i++)
		if (i == 0 || text[i - 1] == '\0')
			argv[argc++] = text + i;
	if (argc == 0)
		argv[argc++] = text;
	argv[argc] = NULL;
	switch (data[0] % 4) {
	case 0:
		if (opt_parse(argc, argv, g, 2, 4, pos, 4, &npos, &seen, err, sizeof(err)) == 0 && npos > 4)
			abort();	/* more positional arguments than room for them */
		if (o.list.n > 4)
			abort();	/* more items than the option allows */
		break;
	case 1:
		plan = xcalloc(1, sizeof(*plan));
		if (!opt_list_split(&list, argv[0], 0) && (argc < 2 || !opt_list_split(&list2, argv[1], 0)) &&
		    lat_plan_parse(plan, &list, argc > 1 ? &list2 : NULL, err, sizeof(err))) {
			/* rejected: nothing more to check */
		}
		free(plan);
		break;
	case 2:
		if (disk_sync_parse(argv[0], &mode, &every)) {
			/* rejected: nothing more to check */
		}
		break;
	default:
		if (!opt_list_split(&list, argv[0], 0) && mem_sizes_parse(&list, sizes, 16, &n, err, sizeof(err)) == 0 &&
		    n > 16)
			abort();
		break;
	}
	free(text);
	return 0;
}
