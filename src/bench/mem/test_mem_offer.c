/* SPDX-License-Identifier: MIT */
/*
 * Tests of the candidate limiters the mem steps offer (mem_bw.c): the
 * pointer chase is "memory latency" and says where its set stands against
 * the last-level cache; the bandwidth step is "memory bandwidth" and asks
 * for more threads while CPUs are left.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "bench/mem/mem_bw.h"
#include "core/result/result.h"

static void test_latency(void **state)
{
	struct result *r = result_new("mem", "latency");
	const struct verdict_candidate *k;

	(void)state;
	mem_latency_offer(r, 92.5, 1.2, 256ULL << 20, 32ULL << 20);
	assert_int_equal(r->verdict.ncand, 1);
	k = &r->verdict.cand[0];
	assert_string_equal(k->resource, "memory latency");
	assert_true(k->share == 1.0);
	assert_non_null(strstr(k->evidence, "92.5 ns per load"));
	assert_non_null(strstr(k->evidence, "8 x the 32"));
	assert_non_null(strstr(k->evidence, "DRAM"));
	assert_true(k->next_step[0]);
	assert_false(result_has_verdict(r));
	result_free(r);

	r = result_new("mem", "latency");
	mem_latency_offer(r, 4.0, 1.2, 1ULL << 20, 32ULL << 20);
	assert_non_null(strstr(r->verdict.cand[0].evidence, "within the"));
	assert_string_equal(r->verdict.cand[0].resource, "cache latency");
	result_free(r);
	r = result_new("mem", "latency");
	mem_latency_offer(r, 80, 1.2, 64ULL << 20, 0);
	assert_non_null(strstr(r->verdict.cand[0].evidence, "last-level cache size is unknown"));
	assert_string_equal(r->verdict.cand[0].resource, "memory latency");
	result_free(r);
	/* Unknown cache sizes and 3.4 x the L1 latency: a cache. */
	r = result_new("mem", "latency");
	mem_latency_offer(r, 4.1, 1.2, 256ULL << 10, 0);
	assert_string_equal(r->verdict.cand[0].resource, "cache latency");
	result_free(r);
}

static void test_bandwidth(void **state)
{
	struct result *r = result_new("mem", "bandwidth");
	const struct verdict_candidate *k;

	(void)state;
	mem_bandwidth_offer(r, 12.3e9, 1, 1, 8, 64ULL << 20, 0);
	k = &r->verdict.cand[0];
	assert_string_equal(k->resource, "memory bandwidth");
	assert_true(k->share == 1.0);
	assert_non_null(strstr(k->evidence, "12.3 GB/s"));
	assert_non_null(strstr(k->next_step, "more threads (--threads 8) would show whether the one core's "
				"outstanding misses or DRAM bound it"));
	result_free(r);

	r = result_new("mem", "bandwidth");
	mem_bandwidth_offer(r, 24.1e9, 8, 8, 8, 256ULL << 20, 32ULL << 20);
	assert_non_null(strstr(r->verdict.cand[0].evidence, "DRAM bandwidth: 24.1 GB/s (triad) with 8 threads"));
	result_free(r);

	/* --threads all ran, the threads added nothing: no "more threads" next step. */
	r = result_new("mem", "bandwidth");
	mem_bandwidth_offer(r, 9.7e9, 1, 2, 2, 256ULL << 20, 32ULL << 20);
	k = &r->verdict.cand[0];
	assert_non_null(strstr(k->evidence, "9.7 GB/s (triad) with 1 thread: 2 threads, one per CPU, added nothing"));
	assert_null(strstr(k->next_step, "--threads"));
	result_free(r);

	r = result_new("mem", "bandwidth");
	mem_bandwidth_offer(r, NAN, 1, 1, 8, 64ULL << 20, 0);
	assert_int_equal(r->verdict.ncand, 0);
	result_free(r);
	/* Arrays that fit in the cache: no memory bandwidth, the core's figure. */
	r = result_new("mem", "bandwidth");
	mem_bandwidth_offer(r, 75e9, 1, 1, 8, 64ULL << 10, 0);
	assert_int_equal(r->verdict.ncand, 0);
	result_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_latency),
		cmocka_unit_test(test_bandwidth),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
