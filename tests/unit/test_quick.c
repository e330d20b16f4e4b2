/* SPDX-License-Identifier: MIT */
/*
 * Tests of the benchmarks' parts of `engpass quick` (struct bench_quick):
 * every declared step and peer is accepted by its own benchmark's option
 * table and check(), so renaming an option breaks this test rather than
 * the profile; and the findings hooks say what they should from made-up
 * results, and nothing from none.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "cli/cmd.h"

/* Parses ARGS ("@PORT" a port) with B's table and check(); fails the test with the message. */
static void assert_accepted(const struct bench *b, const char *const *args, const char *what)
{
	char *argv[BENCH_QUICK_MAXARGS + 1], err[256] = "";
	struct bench_call call;
	int argc = 0, r;

	for (; argc < BENCH_QUICK_MAXARGS && args[argc]; argc++)
		argv[argc] = (char *)(strcmp(args[argc], "@PORT") ? args[argc] : "40000");
	argv[argc] = NULL;
	r = bench_call_prepare(&call, b, argc, argv, err, sizeof(err));
	bench_call_release(&call);
	if (r)
		fail_msg("%s %s: refused: %s", b->name, what, err);
}

static void test_declarations(void **state)
{
	size_t parts = 0;

	(void)state;
	for (size_t k = 0; bench_table[k]; k++) {
		const struct bench *b = bench_table[k];
		const struct bench_quick *q = b->quick;

		if (!q)
			continue;
		assert_true(q->nsteps > 0);
		for (size_t i = 0; i < q->nsteps; i++) {
			const struct bench_quick_step *s = &q->steps[i];

			assert_non_null(s->group);
			assert_true(s->group[0] && !strchr(s->group, ','));
			assert_true(s->why && s->why[0]);
			assert_accepted(b, s->args, s->why);
			if (s->peer[0]) {
				const struct bench *pb = bench_find(s->peer[0]);

				assert_non_null(pb);
				assert_accepted(pb, s->peer + 1, "peer");
			}
			parts++;
		}
	}
	/* The profile of the README: cpu, mem, disk, net, latency and the ladder. */
	assert_true(parts >= 6);
}

/* The index of B's quick step with LABEL (NULL: the first without one). */
static size_t step_of(const struct bench *b, const char *label)
{
	for (size_t i = 0; i < b->quick->nsteps; i++) {
		const char *l = b->quick->steps[i].label;

		if (label ? l && !strcmp(l, label) : !l)
			return i;
	}
	fail_msg("%s has no quick step labelled '%s'", b->name, label ? label : "(none)");
	return 0;
}

static struct result *made_up(const char *bench, const char *step, const char *metric, enum unit u, double v)
{
	struct result *r = result_new(bench, step);

	result_metric(r, metric, u, v, NULL);
	return r;
}

/* Runs B's findings hook over N results and checks the sentences contain WANT[0..NWANT). */
static void assert_findings(const struct bench *b, const struct bench_quick_result *r, size_t n,
			    const char *const *want, size_t nwant)
{
	struct bench_findings f = { 0 };

	b->quick->findings(r, n, &f);
	assert_int_equal(f.n, nwant);
	for (size_t i = 0; i < nwant; i++)
		if (!strstr(f.line[i], want[i]))
			fail_msg("%s finding '%s' lacks '%s'", b->name, f.line[i], want[i]);
	bench_findings_release(&f);
	assert_int_equal(f.n, 0);
}

static void test_no_results_no_findings(void **state)
{
	(void)state;
	for (size_t k = 0; bench_table[k]; k++)
		if (bench_table[k]->quick && bench_table[k]->quick->findings)
			assert_findings(bench_table[k], NULL, 0, NULL, 0);
}

static void test_net_rr_finding(void **state)
{
	const struct bench *b = bench_find("net");
	struct result *one = made_up("net", "client rr depth 1", "throughput", UNIT_BYTES_PER_S, 59e6);
	struct result *two = made_up("net", "client rr depth 2", "throughput", UNIT_BYTES_PER_S, 92e6);
	struct bench_quick_result r[] = { { step_of(b, "rr depth 1"), one }, { step_of(b, "rr depth 2"), two } };
	static const char *const want[] = { "one at a time moved 472 Mbit/s and two in flight 736 Mbit/s (1.6x)" };

	(void)state;
	assert_findings(b, r, 2, want, 1);
	result_free(one);
	result_free(two);
}

static void test_disk_findings(void **state)
{
	const struct bench *b = bench_find("disk");
	size_t hdparm = step_of(b, NULL);
	struct result *cached = made_up("disk", "cached", "read", UNIT_BYTES_PER_S, 10e9);
	struct result *device = made_up("disk", "device", "read", UNIT_BYTES_PER_S, 1e9);
	struct result *t0 = made_up("disk", "torrent cache 0", "device_write_requests", UNIT_COUNT, 35);
	struct result *t8 = made_up("disk", "torrent cache 8M", "device_write_requests", UNIT_COUNT, 19);
	struct bench_quick_result r[] = {
		{ hdparm, cached }, { hdparm, device }, { step_of(b, "cache 0"), t0 }, { step_of(b, "cache 8M"), t8 },
	};
	static const char *const want[] = { "is 10x faster than reading the device",
					    "35 write requests without a write cache and 19 with 8 MiB" };

	(void)state;
	result_metric(t0, "write_calls", UNIT_COUNT, 4096, NULL);
	result_metric(t8, "write_calls", UNIT_COUNT, 61, NULL);
	assert_findings(b, r, 4, want, 2);
	/* Only -T: nothing to compare it with. */
	assert_findings(b, r, 1, NULL, 0);
	result_free(cached);
	result_free(device);
	result_free(t0);
	result_free(t8);
}

static void test_mem_ladder_finding(void **state)
{
	const struct bench *b = bench_find("mem");
	size_t ladder = 0;
	struct result *res = result_new("mem", "0.5x"), *swap = result_new("mem", "1.5x");
	struct bench_quick_result r[2];
	static const char *const want[] = { "through swap is 40x slower than from RAM" };

	(void)state;
	while (ladder < b->quick->nsteps && !b->quick->steps[ladder].needs_root)
		ladder++;
	assert_true(ladder < b->quick->nsteps);
	result_metric(res, "read", UNIT_BYTES_PER_S, 4e9, "read pass: memory speed (resident)");
	result_metric(swap, "read", UNIT_BYTES_PER_S, 1e8, "read pass: through swap");
	r[0] = (struct bench_quick_result){ ladder, res };
	r[1] = (struct bench_quick_result){ ladder, swap };
	assert_findings(b, r, 2, want, 1);
	result_free(res);
	result_free(swap);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_declarations),
		cmocka_unit_test(test_no_results_no_findings),
		cmocka_unit_test(test_net_rr_finding),
		cmocka_unit_test(test_disk_findings),
		cmocka_unit_test(test_mem_ladder_finding),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
