/* SPDX-License-Identifier: MIT */
/*
 * Tests of the generic option parser: every type, both spellings, limits,
 * missing values, unknown options, positionals and the compile-time typed
 * tables.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/opt.h"

struct o {
	bool flag;
	uint64_t size;
	double rate;
	uint64_t dur;
	int64_t n;
	cpu_set_t cpus;
	const char *name;
	int choice;
	struct opt_list list;
};

static const char *const words[] = { "alpha", "beta", NULL };

static const struct opt table[] = {
	OPT_FLAG("flag", 'f', struct o, flag, "a flag"),
	OPT_SIZE("size", 's', struct o, size, 0, 0, "a size"),
	OPT_RATE("rate", 0, struct o, rate, "a rate"),
	OPT_DURATION("time", 't', struct o, dur, 0, 0, "a duration"),
	OPT_INT("n", 0, struct o, n, 1, 10, "N", "a number"),
	OPT_CPULIST("pin", 0, struct o, cpus, "cpus"),
	OPT_STRING("name", 0, struct o, name, "NAME", "a name"),
	OPT_CHOICE("mode", 0, struct o, choice, words, "WORD", "a choice"),
	OPT_LIST("list", 'l', struct o, list, 3, "LIST", "a list"),
	OPT_END,
};

static int parse(struct o *o, char **pos, size_t *npos, char *err, int argc, char **argv)
{
	struct opt_group g = { table, o };
	struct opt_seen seen;

	memset(o, 0, sizeof(*o));
	return opt_parse(argc, argv, &g, 1, 2, pos, 4, npos, &seen, err, 256);
}

static void test_good(void **state)
{
	char *argv[] = { "--flag", "-s", "1M", "--rate=1Gbit/s", "-t5s", "--n", "7",
			 "--pin", "0-1", "--name", "x", "--mode", "beta", "pos1", "-la,bb,c", "--", "--pos2" };
	struct o o;
	char *pos[4], err[256];
	size_t npos;

	(void)state;
	assert_int_equal(parse(&o, pos, &npos, err, 17, argv), 0);
	assert_true(o.flag);
	assert_int_equal(o.size, 1024 * 1024);
	assert_true(o.rate > 124e6 && o.rate < 126e6);
	assert_int_equal(o.dur, 5000000000ULL);
	assert_int_equal(o.n, 7);
	assert_true(CPU_ISSET(0, &o.cpus) && CPU_ISSET(1, &o.cpus));
	assert_string_equal(o.name, "x");
	assert_int_equal(o.choice, 1);
	assert_int_equal(o.list.n, 3);
	assert_string_equal(opt_list_item(&o.list, 0), "a");
	assert_string_equal(opt_list_item(&o.list, 1), "bb");
	assert_string_equal(opt_list_item(&o.list, 2), "c");
	assert_string_equal(o.list.text, "a,bb,c");
	assert_int_equal(npos, 2);
	assert_string_equal(pos[0], "pos1");
	assert_string_equal(pos[1], "--pos2");
}

static const struct {
	const char *argv[4];
	int argc;
	const char *want;	/* must appear in the message */
} bad[] = {
	{ { "--nope" }, 1, "unknown option '--nope'" },
	{ { "-x" }, 1, "unknown option '-x'" },
	{ { "--size", "5q" }, 2, "'5q'" },
	{ { "--size" }, 1, "option '--size' needs" },
	{ { "--time", "-1" }, 2, "'-1'" },
	{ { "--n", "11" }, 2, "out of range [1, 10]" },
	{ { "--n", "0" }, 2, "'0'" },
	{ { "--pin", "2" }, 2, "CPU this machine does not have" },
	{ { "--mode", "gamma" }, 2, "not one of alpha, beta" },
	{ { "--flag=2" }, 1, "takes no value" },
	{ { "--flag=0" }, 1, "off when it is left out" },
	{ { "-fx" }, 1, "unknown option '-x'" },
	{ { "-sz" }, 1, "'z' is not a size" },
	{ { "-f", "-s" }, 2, "option '-s' needs" },
	{ { "--sise", "1" }, 2, "did you mean '--size'?" },
	{ { "--nme", "x" }, 2, "did you mean '--name'?" },
	{ { "--xyzzy" }, 1, "unknown option '--xyzzy'" },
	{ { "--name", "" }, 2, "empty value" },
	{ { "--n", "1", "--n=2" }, 3, "option '--n' given twice" },
	{ { "--list", "a,,b" }, 2, "option '--list': empty item in 'a,,b'" },
	{ { "--list=a," }, 1, "empty item in 'a,'" },
	{ { "-l", ",a" }, 2, "option '-l': empty item" },
	{ { "--list", "" }, 2, "empty item in ''" },
	{ { "--list", "a,b,c,d" }, 2, "more than 3 items in 'a,b,c,d'" },
	{ { "--list" }, 1, "option '--list' needs a comma-separated list" },
	{ { "--list", "a", "--list", "b" }, 4, "given twice (use one comma list)" },
};

static void test_bad(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct o o;
		char *pos[4], err[256] = "";
		size_t npos;

		assert_int_equal(parse(&o, pos, &npos, err, bad[i].argc, (char **)bad[i].argv), -22);
		if (!strstr(err, bad[i].want))
			fail_msg("case %zu: '%s' lacks '%s'", i, err, bad[i].want);
	}
}

/* getopt's bundling: flags together, a value in the same word or the next one, "--" ends options. */
static void test_bundling(void **state)
{
	char *argv[] = { "-fl", "a,b", "-s4K", "-ft1s", "x", "--", "-f" };
	struct o o;
	char *pos[4], err[256];
	size_t npos;

	(void)state;
	assert_int_equal(parse(&o, pos, &npos, err, 7, argv), 0);
	assert_true(o.flag);
	assert_int_equal(o.list.n, 2);
	assert_int_equal(o.size, 4096);
	assert_int_equal(o.dur, 1000000000ULL);
	assert_int_equal(npos, 2);
	assert_string_equal(pos[0], "x");
	assert_string_equal(pos[1], "-f");
	/* The value as the next word after a bundle. */
	{
		char *argv2[] = { "-fs", "2K", "--flag=1" };

		assert_int_equal(parse(&o, pos, &npos, err, 3, argv2), 0);
		assert_true(o.flag);
		assert_int_equal(o.size, 2048);
		assert_int_equal(npos, 0);
	}
}

/* Aliases, another table's option by a short letter, words as options, refusals. */
struct a {
	int64_t qd;
	int wl;
	bool json;
	double bits;
};
static const char *const wls[] = { "seq-read", "rand-read", NULL };
static const char *const fio_wls[] = { "read=seq-read", "randread=rand-read", "rw=!no sequential mix", NULL };
static const struct opt atable[] = {
	OPT_INT("qd", 0, struct a, qd, 1, 64, "N", "queue depth", .alias = "iodepth"),
	OPT_CHOICE("workload", 0, struct a, wl, wls, "W", "workload", .alias = "rw", .choice_alias = fio_wls),
	OPT_BITRATE("bitrate", 'b', struct a, bits, "bits"),
	OPT_VERB("client", 'c', "HOST", "the client verb"),
	OPT_VERB("server", 's', NULL, "the server verb"),
	OPT_POS("filename", 0, "TARGET", "the target"),
	OPT_SAME('J', "json", "iperf3's -J"),
	OPT_REFUSED("numjobs", 0, "one job only; use --qd"),
	OPT_REFUSED("-m", 'm', "no mlockall"),
	OPT_END,
};
static const struct opt ctable[] = {
	OPT_FLAG("json", 0, struct a, json, "JSON"),
	OPT_END,
};

static int aparse(struct a *a, char **pos, size_t *npos, char *err, int argc, char **argv)
{
	struct opt_group g[2] = { { atable, a }, { ctable, a } };
	struct opt_seen seen;

	memset(a, 0, sizeof(*a));
	return opt_parse(argc, argv, g, 2, 1, pos, 4, npos, &seen, err, 256);
}

static void test_aliases(void **state)
{
	char *argv[] = { "--iodepth=8", "--rw", "randread", "-Jc", "host", "-b", "100M" };
	char *argv2[] = { "-s", "--filename=/dev/x", "--workload=read" };
	struct a a;
	char *pos[4], err[256] = "";
	size_t npos;

	(void)state;
	assert_int_equal(aparse(&a, pos, &npos, err, 7, argv), 0);
	assert_int_equal(a.qd, 8);
	assert_int_equal(a.wl, 1);
	assert_true(a.json);
	assert_true(a.bits == 100e6);
	assert_int_equal(npos, 2);
	assert_string_equal(pos[0], "client");
	assert_string_equal(pos[1], "host");
	assert_int_equal(aparse(&a, pos, &npos, err, 3, argv2), 0);
	assert_int_equal(a.wl, 0);
	assert_int_equal(npos, 2);
	assert_string_equal(pos[0], "server");
	assert_string_equal(pos[1], "/dev/x");
	{
		static const struct {
			const char *arg, *want;
		} no[] = {
			{ "--numjobs=2", "option '--numjobs' is not taken: one job only; use --qd" },
			{ "-m", "option '-m' is not taken: no mlockall" },
			{ "---m", "unknown option" },	/* a short-only refusal is no long name */
			{ "--rw=rw", "option '--rw': no sequential mix" },
			{ "--rw=randwrite", "is not one of seq-read, rand-read" },
			{ "-b100M/s", "two readings" },
			{ "--iodpeth=2", "did you mean '--iodepth'?" },
			{ "--jsno", "did you mean '--json'?" },
		};

		for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
			char *v[] = { (char *)no[i].arg };

			assert_int_equal(aparse(&a, pos, &npos, err, 1, v), -22);
			if (!strstr(err, no[i].want))
				fail_msg("'%s': '%s' lacks '%s'", no[i].arg, err, no[i].want);
		}
	}
}

static void test_suggest(void **state)
{
	struct opt_suggest sg;

	(void)state;
	assert_int_equal(opt_edit_distance("dsik", "disk"), 1);	/* a swap is one edit */
	assert_int_equal(opt_edit_distance("", "abc"), 3);
	assert_int_equal(opt_edit_distance("kitten", "sitting"), 3);
	opt_suggest_init(&sg, "dsik");
	opt_suggest_add(&sg, "", "disk");
	opt_suggest_add(&sg, "", "mem");
	assert_int_equal(sg.n, 1);
	assert_string_equal(sg.text, "'disk'");
	/* Equally near: both listed; a nearer one replaces them. */
	opt_suggest_init(&sg, "lst");
	opt_suggest_add(&sg, "", "list");
	opt_suggest_add(&sg, "", "last");
	opt_suggest_add(&sg, "", "list");
	assert_string_equal(sg.text, "'list' or 'last'");
	opt_suggest_init(&sg, "ab");
	opt_suggest_add(&sg, "--", "xy");	/* 2 edits of 2 letters: too far */
	assert_int_equal(sg.n, 0);
	assert_string_equal(sg.text, "");
}

static void test_too_many_positionals(void **state)
{
	char *argv[] = { "a", "b", "c", "d", "e" };
	struct o o;
	char *pos[4], err[256];
	size_t npos;

	(void)state;
	assert_int_equal(parse(&o, pos, &npos, err, 5, argv), -22);
	assert_non_null(strstr(err, "'e'"));
}

static void test_seen_and_groups(void **state)
{
	struct o a, b;
	struct opt_group g[2] = { { table, &a }, { table, &b } };
	struct opt_seen seen;
	char *argv[] = { "--n", "3" }, *pos[1], err[256];
	size_t npos;

	(void)state;
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	assert_int_equal(opt_parse(2, argv, g, 2, 1, pos, 0, &npos, &seen, err, sizeof(err)), 0);
	assert_int_equal(a.n, 3);	/* first group wins */
	assert_int_equal(b.n, 0);
	assert_true(opt_was_seen(&seen, 0, 4));
	assert_false(opt_was_seen(&seen, 0, 3));
	assert_false(opt_was_seen(&seen, 1, 4));
	assert_ptr_equal(opt_find(table, "mode"), &table[7]);
	assert_null(opt_find(table, "nope"));
}

/* The splitter itself: limits, a copy that stays valid, nothing written on error. */
static void test_list_split(void **state)
{
	struct opt_list l, copy;
	char big[OPT_LIST_TEXT + 1];

	(void)state;
	assert_int_equal(opt_list_split(&l, "x", 0), 0);
	assert_int_equal(l.n, 1);
	copy = l;	/* items are offsets: a copy is self-contained */
	memset(&l, 0, sizeof(l));
	assert_string_equal(opt_list_item(&copy, 0), "x");
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	assert_int_equal(opt_list_split(&l, big, 0), -E2BIG);
	big[OPT_LIST_TEXT - 1] = '\0';	/* the longest that fits */
	assert_int_equal(opt_list_split(&l, big, 0), 0);
	for (size_t i = 0; i < 2 * OPT_LIST_MAX; i += 2) {
		big[i] = 'a';
		big[i + 1] = ',';
	}
	big[2 * OPT_LIST_MAX - 1] = '\0';	/* OPT_LIST_MAX items */
	assert_int_equal(opt_list_split(&l, big, 0), 0);
	assert_int_equal(l.n, OPT_LIST_MAX);
	big[2 * OPT_LIST_MAX - 1] = ',';
	big[2 * OPT_LIST_MAX] = 'a';
	big[2 * OPT_LIST_MAX + 1] = '\0';	/* one more */
	memset(&l, 0, sizeof(l));
	assert_int_equal(opt_list_split(&l, big, 0), -E2BIG);
	assert_int_equal(l.n, 0);	/* untouched */
	assert_int_equal(opt_list_split(&l, "a,b", 1), -E2BIG);
	assert_int_equal(opt_list_split(&l, ",", 0), -EINVAL);
	/* opt_list_or(): the given list, else the default */
	assert_ptr_equal(opt_list_or(&copy, "a,b", &l), &copy);
	assert_int_equal(opt_list_or(NULL, "a,b", &l)->n, 2);
	memset(&copy, 0, sizeof(copy));
	assert_string_equal(opt_list_item(opt_list_or(&copy, "a,b", &l), 1), "b");
}

/* The help of TABLE as one string (caller frees). */
static char *help_text(const struct opt *t)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	opt_help(f, t);
	fclose(f);
	return buf;
}

static void test_help(void **state)
{
	char *buf = help_text(table);

	(void)state;
	assert_non_null(strstr(buf, "-s, --size SIZE"));
	assert_non_null(strstr(buf, "(alpha, beta)"));
	free(buf);
	buf = help_text(atable);
	assert_non_null(strstr(buf, "--qd, --iodepth N"));
	assert_non_null(strstr(buf, "-c, --client HOST"));
	assert_non_null(strstr(buf, "-J                          same as --json (iperf3's -J)"));
	assert_non_null(strstr(buf, "-m                          not taken: no mlockall"));
	assert_null(strstr(buf, "---m"));
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_bad),
		cmocka_unit_test(test_bundling),
		cmocka_unit_test(test_aliases),
		cmocka_unit_test(test_suggest),
		cmocka_unit_test(test_too_many_positionals),
		cmocka_unit_test(test_seen_and_groups),
		cmocka_unit_test(test_list_split),
		cmocka_unit_test(test_help),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
