/* SPDX-License-Identifier: MIT */
/*
 * Tests of the table and JSON renderers over a hand-built run: units in
 * keys, unknown figures as null, repetitions, histograms, verdict, and the
 * human formatting of each unit.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/result/result.h"
#include "out/render.h"

static struct run *sample_run(unsigned reps)
{
	char *argv[] = { "engpass", "disk" };
	struct run *run = run_new("1.2.3", 2, argv);
	struct result *r = result_new("disk", "seq-read");
	struct metric *m;
	struct hist h;

	result_param(r, "bs", "2M");
	result_method(r, "cache", "O_DIRECT");
	m = result_metric(r, "read", UNIT_BYTES_PER_S, 104857600.0, "sequential read");
	m->min = 100e6;
	m->max = 110e6;
	m->reps = reps;
	result_metric(r, "unknown", UNIT_NS, NAN, NULL);
	hist_init(&h);
	for (uint64_t v = 1000; v <= 2000; v++)
		hist_record(&h, v);
	result_hist(r, "lat", UNIT_NS, &h);
	result_note(r, "a loop device may still cache");
	r->reps = reps;
	r->have_view = true;
	memset(&r->view, 0, sizeof(r->view));
	r->view.samples = 4;
	r->view.ncpu = 2;
	r->view.busiest_cpu = 1;
	r->view.busiest_cpu_busy_pct = 98;
	r->view.disk_util_pct = NAN;
	snprintf(r->verdict.resource, sizeof(r->verdict.resource), "one core");
	snprintf(r->verdict.evidence, sizeof(r->verdict.evidence), "cpu1 98 %% busy");
	run_add(run, r);
	return run;
}

/* RUN as text with FLAGS (render_text). Caller frees. */
static char *to_text(const struct run *run, unsigned flags)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	render_text(f, run, flags);
	fclose(f);
	return buf;
}

/* RUN as JSON, or as the text with its details (-v). Caller frees. */
static char *to_string(const struct run *run, bool json)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	if (!json)
		return to_text(run, RENDER_DETAILS);
	f = open_memstream(&buf, &len);
	render_json(f, run, false, true);
	fclose(f);
	return buf;
}

static void test_json(void **state)
{
	struct run *run = sample_run(1);
	char *s = to_string(run, true);

	(void)state;
	assert_non_null(strstr(s, "{\"schema\":\"engpass/1\","));
	assert_non_null(strstr(s, "\"read_bytes_per_second\":104857600"));
	assert_non_null(strstr(s, "\"unknown_ns\":null"));
	assert_non_null(strstr(s, "\"lat_ns\":{\"count\":1001,\"min\":1000,\"max\":2000"));
	assert_non_null(strstr(s, "\"busiest_cpu\":1"));
	assert_non_null(strstr(s, "\"disk_util_percent\":null"));
	assert_non_null(strstr(s, "\"resource\":\"one core\""));
	assert_non_null(strstr(s, "\"method\":{\"cache\":\"O_DIRECT\"}"));
	assert_null(strstr(s, "\"spread\""));	/* only with repetitions */
	assert_null(strstr(s, "\"info\":{"));
	free(s);
	run_free(run);
}

static void test_json_reps(void **state)
{
	struct run *run = sample_run(3);
	char *s = to_string(run, true);

	(void)state;
	assert_non_null(strstr(s, "\"spread\":{\"read_bytes_per_second\":{\"median\":104857600,\"min\":100000000,"
				  "\"max\":110000000,\"n\":3,\"ci_low\":null,\"ci_high\":null,\"ci_coverage\":null,"
				  "\"unstable\":false}"));
	free(s);
	run_free(run);
}

/* The interval of the median: its fields in JSON, low/high/cover and the unstable mark in the table. */
static void test_interval(void **state)
{
	struct run *run = sample_run(6);
	struct metric *m = &run->results[0]->metrics[0];
	char *s;

	(void)state;
	m->ci_lo = 95e6;	/* 9.4 % below the median of 104857600: unstable */
	m->ci_hi = 108e6;
	m->ci_coverage = 0.96875;
	s = to_string(run, true);
	assert_non_null(strstr(s, "\"n\":6,\"ci_low\":95000000,\"ci_high\":108000000,\"ci_coverage\":0.96875,"
				  "\"unstable\":true}"));
	free(s);
	s = to_string(run, false);
	/*
	 * A disk's byte rate: the median with fio's decimal pairing, the
	 * interval's columns binary only (issue 36: both paired left the label
	 * five columns), then the mark.
	 */
	assert_non_null(strstr(s, "100.00 MiB/s (104.9 MB/s)   90.60 MiB/s  103.00 MiB/s   96.9 %  6 unstable\n"));
	assert_non_null(strstr(s, "low..high: the median's order-statistic interval; unstable: it reaches beyond 5 % "
				  "of the median\n"));
	free(s);
	m->ci_lo = 102e6;	/* within 5 % on both sides */
	s = to_string(run, false);
	assert_null(strstr(s, "unstable"));
	free(s);
	run_free(run);
}

static void test_table(void **state)
{
	struct run *run = sample_run(3);
	char *s = to_string(run, false);

	(void)state;
	assert_non_null(strstr(s, "disk / seq-read: ok (3 repetitions)"));
	assert_non_null(strstr(s, "method      cache: O_DIRECT"));
	assert_non_null(strstr(s, "100.00 MiB/s"));
	assert_non_null(strstr(s, "95.37 MiB/s"));	/* min 100e6 B/s */
	assert_non_null(strstr(s, "bound by: one core -- cpu1 98 % busy"));
	assert_non_null(strstr(s, "note        a loop device may still cache"));
	assert_non_null(strstr(s, "n/a"));
	free(s);
	run_free(run);
}

/* How many times NEEDLE occurs in HAY. */
static int count(const char *hay, const char *needle)
{
	size_t len = strlen(hay), nlen = strlen(needle);
	int n = 0;

	for (size_t i = 0; i + nlen <= len; i++)
		n += !strncmp(hay + i, needle, nlen);
	return n;
}

static char *to_prom(const struct run *run)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	render_prom(f, run);
	fclose(f);
	return buf;
}

/*
 * Heat: a box without sensors says so once per run, not per step; one
 * with them gets a heat and a throttling line, the JSON keys and the
 * Prometheus gauges (the sensor's name as a label).
 */
static void test_heat(void **state)
{
	struct run *run = sample_run(1);
	struct result *r2 = result_new("null", "null");
	struct sysview *v;
	char *s;

	(void)state;
	r2->have_view = true;
	r2->view.samples = 3;
	r2->view.temp_sensors = r2->view.throttle_cpus = r2->view.cooling_devices = 0;
	run_add(run, r2);
	s = to_string(run, false);
	assert_int_equal(count(s, "no temperature sensors"), 1);
	assert_null(strstr(s, "  heat "));
	free(s);
	run_free(run);

	run = sample_run(1);
	v = &run->results[0]->view;
	v->temp_sensors = 5;
	snprintf(v->temps[0].name, sizeof(v->temps[0].name), "cpu-thermal");
	v->temps[0].start_c = 50;
	v->temps[0].end_c = 60;
	v->temps[0].max_c = 70;
	v->temps[0].trip_c = 85;
	snprintf(v->temps[0].trip, sizeof(v->temps[0].trip), "passive");
	v->throttle_cpus = 0;
	v->cooling_devices = 1;
	snprintf(v->cooling_name, sizeof(v->cooling_name), "cpufreq-cpu0");
	v->cooling_state_max = 2;
	v->cooling_state_limit = 4;
	v->throttle_core_events = v->throttle_package_events = NAN;
	s = to_string(run, false);
	assert_non_null(strstr(s, "heat cpu-thermal max 70 C (50 -> 60, passive 85 C) (hottest 4 of 5 sensors)"));
	assert_non_null(strstr(s, "throttling: cpufreq-cpu0 cooling state up to 2 of 4"));
	assert_null(strstr(s, "no temperature sensors"));
	free(s);
	s = to_string(run, true);
	assert_non_null(strstr(s, "\"temperatures\":[{\"name\":\"cpu-thermal\",\"start_celsius\":50"));
	assert_non_null(strstr(s, "\"cooling_state_max\":2"));
	free(s);
	s = to_prom(run);
	assert_non_null(strstr(s, ",command=\"disk\",step=\"seq-read\","
				  "bs=\"2M\",sensor=\"cpu-thermal\"} 70\n"));
	assert_non_null(strstr(s, "\nengpass_system_temperature_max_celsius{host="));
	assert_non_null(strstr(s, "engpass_system_cooling_state_max{"));
	free(s);
	/* Two steps of one benchmark are a grid: heat by step under it. */
	r2 = result_new("disk", "seq-write");
	r2->have_view = true;
	r2->view = *v;
	run_add(run, r2);
	s = to_string(run, false);
	assert_non_null(strstr(s, "disk: 2 steps"));
	assert_non_null(strstr(s, "\n  heat        seq-read:\n              heat cpu-thermal max 70 C"));
	assert_non_null(strstr(s, "\n              seq-write:\n"));
	assert_int_equal(count(s, "heat cpu-thermal max 70 C"), 2);
	free(s);
	run_free(run);
}

/* Prometheus: the run's start and each step's time; a run's own things are no labels. */
static void test_prom_time_labels(void **state)
{
	struct run *run = sample_run(1);
	struct result *r = run->results[0];
	char *s;

	(void)state;
	run->time_ns = 1796219200LL * 1000000000LL;
	r->time_ns = run->time_ns + 2500000000LL;
	result_param(r, "target", "/tmp/tmp.QYKlmCjF0f");
	result_param(r, "seed", "5");
	result_param(r, "port", "5201");
	result_param(r, "target_kind", "directory");
	result_param(r, "note", "/var/lib/x");
	s = to_prom(run);
	assert_non_null(strstr(s, "\nengpass_run_timestamp_seconds 1796219200.000\n"));
	assert_non_null(strstr(s, ",command=\"disk\",step=\"seq-read\",bs=\"2M\","
				  "target_kind=\"directory\"} 1796219202.5\n"));
	assert_non_null(strstr(s, "\nengpass_step_timestamp_seconds{host="));
	assert_null(strstr(s, "target=\""));
	assert_null(strstr(s, "seed="));
	assert_null(strstr(s, "port="));
	assert_null(strstr(s, "note="));
	free(s);
	/* Unknown times: no 1970 run timestamp, no step timestamp. */
	run->time_ns = r->time_ns = 0;
	s = to_prom(run);
	assert_null(strstr(s, "engpass_run_timestamp_seconds"));
	assert_null(strstr(s, "engpass_step_timestamp_seconds"));
	free(s);
	run_free(run);
}

/*
 * A failed step prints its reason and notes, once; not what it set up, the
 * system while it failed, or a verdict over that (issue 23).
 */
static void test_table_failed(void **state)
{
	struct run *run = sample_run(1);
	char *s;

	(void)state;
	result_set_status(run->results[0], RESULT_FAILED, "cannot connect: Connection refused");
	s = to_string(run, false);
	assert_non_null(strstr(s, "disk / seq-read: failed: cannot connect: Connection refused\n"));
	assert_non_null(strstr(s, "note        a loop device may still cache"));
	assert_null(strstr(s, "system"));
	assert_null(strstr(s, "bound by"));
	assert_null(strstr(s, "method"));
	assert_null(strstr(s, "100.00 MiB/s"));
	assert_int_equal(count(s, "Connection refused"), 1);	/* said once */
	free(s);

	/* In a grid of steps: a row with the reason, and no verdict for it. */
	run_add(run, result_new("disk", "rand-read"));
	snprintf(run->results[1]->verdict.resource, sizeof(run->results[1]->verdict.resource), "device");
	s = to_string(run, false);
	assert_non_null(strstr(s, "failed: cannot connect: Connection refused\n"));
	assert_non_null(strstr(s, "rand-read: bound by device"));
	assert_null(strstr(s, "seq-read: bound by"));
	free(s);
	run_free(run);
}

/* The widest line of S, in bytes. */
static size_t widest(const char *s)
{
	size_t w = 0;

	for (const char *p = s; *p;) {
		size_t n = strcspn(p, "\n");

		w = n > w ? n : w;
		p += n + (p[n] == '\n');
	}
	return w;
}

/*
 * The concise default (issue 23): a limit in effect in one line, none of
 * the "none" ones, no method; a note said once per run, one that steps say
 * with their own figures once with how many say it alike; whole step names;
 * 100 columns. The details say each step's own note.
 */
static void test_concise(void **state)
{
	char *argv[] = { "engpass", "cpu" };
	struct run *run = run_new("1.2.3", 2, argv);
	static const char long_step[] = "chacha20-poly1305/16384B/openssl/1 thread";
	char *s;

	(void)state;
	for (int i = 0; i < 3; i++) {
		struct result *r = result_new("cpu", i == 2 ? long_step : "none/64B/builtin/1 thread");

		if (i == 1)
			result_set_step(r, "none/1400B/builtin/1 thread");
		result_method(r, "timing", "100 ms per run");
		result_method(r, "limit cpu quota", "0.50 CPU (cpu.cfs_quota_us 50000 / 100000 in /sys/fs/cgroup/cpu/x)");
		result_method(r, "limit memory", "none (memory.limit_in_bytes unlimited)");
		result_metric(r, "cpu_throughput", UNIT_BYTES_PER_S, 1e8 * (i + 1), "per CPU-second");
		result_metric(r, "cpu_packets", UNIT_PER_S, 121221.7 * (i + 1), "packets per CPU-second");
		result_note(r, "in this VM /proc/cpuinfo says 2096 MHz; per-GHz figures use %d MHz", 3150 + i);
		result_note(r, "libsodium's salsa2012 is portable C");
		snprintf(r->verdict.resource, sizeof(r->verdict.resource), "cpu quota");
		snprintf(r->verdict.evidence, sizeof(r->verdict.evidence), "throttled in 90 %% of the periods, a long "
			 "sentence of evidence that goes on well past the width of one line of text output");
		run_add(run, r);
	}
	s = to_text(run, 0);
	assert_true(widest(s) <= 100);
	assert_non_null(strstr(s, "cpu: 3 steps\n"));
	assert_non_null(strstr(s, "\n  limit       cpu quota: 0.50 CPU (cpu.cfs_quota_us"));
	assert_null(strstr(s, "limit memory"));
	assert_null(strstr(s, "memory: none"));
	assert_null(strstr(s, "method"));
	assert_null(strstr(s, "timing"));
	assert_null(strstr(s, "cpu_throughput"));
	assert_non_null(strstr(s, long_step));
	assert_non_null(strstr(s, "121k /s"));
	assert_int_equal(count(s, "libsodium's salsa2012"), 1);
	assert_int_equal(count(s, "per-GHz figures use"), 1);
	assert_non_null(strstr(s, "2 more steps say it with their own figures"));
	free(s);
	s = to_text(run, RENDER_DETAILS);
	assert_true(widest(s) <= 100);
	assert_non_null(strstr(s, "method      timing: 100 ms per run"));
	assert_non_null(strstr(s, "limit memory: none"));
	assert_int_equal(count(s, "per-GHz figures use"), 3);
	assert_int_equal(count(s, "libsodium's salsa2012"), 1);
	free(s);
	run_free(run);

	/* Many short figures of one step: two to a line, lat_mem_rd's 3 decimals below 10 ns. */
	run = run_new("1.2.3", 2, argv);
	{
		struct result *r = result_new("mem", "latency");

		for (int i = 0; i < 30; i++) {
			char name[16], label[32];

			snprintf(name, sizeof(name), "lat_%d", i);
			snprintf(label, sizeof(label), "load latency, %d KiB", 4 << i % 20);
			result_metric(r, name, UNIT_NS, 1.165 * (i + 1), label);
		}
		run_add(run, r);
	}
	s = to_text(run, 0);
	assert_true(widest(s) <= 100);
	assert_non_null(strstr(s, "\n  load latency, 4 KiB        1.165 ns    load latency, 131072 KiB    18.6 ns\n"));
	assert_int_equal(count(s, "\n  load latency"), 15);
	free(s);
	run_free(run);
}

static const struct {
	double v;
	enum unit u;
	const char *want;
} values[] = {
	{ 512, UNIT_BYTES, "512 B" },
	{ 1536, UNIT_BYTES, "1.50 KiB" },
	{ 3.0 * 1024 * 1024 * 1024, UNIT_BYTES_PER_S, "3.00 GiB/s" },
	{ 943.1e6, UNIT_BITS_PER_S, "943.1 Mbit/s" },
	{ 999, UNIT_NS, "999.0 ns" },
	{ 1.1654, UNIT_NS, "1.165 ns" },
	{ 9019.4, UNIT_PER_S, "9019 /s" },
	{ 121221.7, UNIT_PER_S, "121k /s" },
	{ 6023428.2, UNIT_PER_S, "6.02M /s" },
	{ 0.25, UNIT_PER_S, "0.2 /s" },
	{ 12345, UNIT_COUNT, "12.3k" },
	{ 100000, UNIT_COUNT, "100k" },
	{ 9999, UNIT_COUNT, "9999" },
	{ 1500, UNIT_NS, "1.50 us" },
	{ 2.5e6, UNIT_NS, "2.50 ms" },
	{ 3e9, UNIT_NS, "3.000 s" },
	{ 12.345, UNIT_PERCENT, "12.3 %" },
	{ 42, UNIT_COUNT, "42" },
	{ 0.5, UNIT_COUNT, "0.5" },
	{ 2.5, UNIT_RATIO, "2.50x" },
	{ NAN, UNIT_BYTES, "n/a" },
};

/* Whether a line of S begins with START and holds WORD. */
static bool line_has(const char *s, const char *start, const char *word)
{
	char line[256];

	while (*s) {
		size_t n = strcspn(s, "\n");

		snprintf(line, sizeof(line), "%.*s", (int)n, s);
		if (!strncmp(line, start, strlen(start)) && strstr(line, word))
			return true;
		s += n + (s[n] == '\n');
	}
	return false;
}

/*
 * Steps FROM..TO of a run as disk -T -t makes it: one metric name, "read",
 * labelled after each step's method.
 */
static struct run *hdparm_run(size_t from, size_t to)
{
	char *argv[] = { "engpass", "disk" };
	struct run *run = run_new("1.2.3", 2, argv);
	static const struct {
		const char *step, *label;
		double v;
	} st[] = { { "cached", "cached read (memory copy)", 4.5e9 }, { "device", "device read (O_DIRECT)", 150e6 } };

	for (size_t i = from; i < to; i++) {
		struct result *r = result_new("disk", st[i].step);

		result_metric(r, "read", UNIT_BYTES_PER_S, st[i].v, st[i].label);
		result_headline(r, "read");
		result_metric(r, "ios", UNIT_COUNT, 100, "2 MiB reads");
		run_add(run, r);
	}
	return run;
}

/*
 * disk -tT (issue 36): the device's read must not sit in a row labelled
 * "cached read (memory copy)". A row whose steps label it differently is
 * named by its key, and each step's label follows the table.
 */
static void test_grid_mixed_labels(void **state)
{
	struct run *run = hdparm_run(0, 2);
	char *s = to_text(run, 0);

	(void)state;
	assert_true(line_has(s, "  read ", "4.19 GiB/s"));
	assert_null(strstr(s, "  cached read (memory copy)  "));
	assert_non_null(strstr(s, "read: cached: cached read (memory copy); device: device read (O_DIRECT)"));
	/* A row the steps label alike keeps its label. */
	assert_non_null(strstr(s, "\n  2 MiB reads "));
	free(s);
	run_free(run);
}

/* The figures of a step with repetitions, their labels whole words (issue 36: "devic / e / (O_DI"). */
static void test_reps_labels(void **state)
{
	struct run *run = hdparm_run(1, 2);
	static const char *const words[] = { "device read (O_DIRECT)", "2 MiB reads", NULL };
	struct result *r = run->results[0];
	char *s;

	(void)state;
	r->reps = 3;
	for (size_t i = 0; i < r->nmetrics; i++) {
		r->metrics[i].reps = 3;
		r->metrics[i].min = r->metrics[i].value * 0.9;
		r->metrics[i].max = r->metrics[i].value * 1.1;
	}
	s = to_text(run, 0);
	for (const char *const *w = words; *w; w++) {
		char line[64];

		snprintf(line, sizeof(line), "\n  %s ", *w);
		assert_non_null(strstr(s, line));
	}
	assert_true(widest(s) <= 100);
	free(s);
	run_free(run);
}

static void test_values(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		char buf[64];

		render_value(buf, sizeof(buf), values[i].v, values[i].u);
		if (strcmp(buf, values[i].want))
			fail_msg("case %zu: '%s' != '%s'", i, buf, values[i].want);
	}
}

/* S written as one CSV field. Caller frees. */
static char *csv_of(const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	csv_field(f, s);
	fclose(f);
	return buf;
}

static void test_csv_field(void **state)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "plain", "plain" },
		{ "", "" },
		{ "a,b", "\"a,b\"" },
		{ "say \"hi\"", "\"say \"\"hi\"\"\"" },
		{ "two\nlines", "\"two\nlines\"" },
		{ "cr\r", "\"cr\r\"" },
		{ "\"", "\"\"\"\"" },
		{ "no quote needed: 12 % (pid 3)", "no quote needed: 12 % (pid 3)" },
	};
	char *s;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		s = csv_of(cases[i].in);
		assert_string_equal(s, cases[i].out);
		free(s);
	}
	s = csv_of(NULL);
	assert_string_equal(s, "");
	free(s);
}

/* Two benchmarks in one run: one header, the union of their columns, empty cells where a step has no figure. */
static void test_csv_union(void **state)
{
	struct run *run = sample_run(1);
	struct result *r = result_new("cpu", "aes,gcm");
	char *buf = NULL, *line2, *line3;
	size_t len = 0;
	FILE *f;

	(void)state;
	result_metric(r, "ops", UNIT_PER_S, 2.5e6, NULL);
	result_metric(r, "read", UNIT_BYTES_PER_S, 1e9, NULL);
	result_headline(r, "ops");
	run_add(run, r);
	f = open_memstream(&buf, &len);
	render_csv(f, run);
	fclose(f);
	line2 = strchr(buf, '\n') + 1;
	line3 = strchr(line2, '\n') + 1;
	assert_memory_equal(buf, "host,time,bench,step,sweep,status,reason,incomplete,repetitions,duration_seconds,"
			    "headline,read_bytes_per_second,unknown_ns,ops_per_second,verdict_resource,"
			    "verdict_evidence,verdict_next_step\n", (size_t)(line2 - buf));
	/* disk: its read, an unknown figure as an empty cell, no ops; its verdict. */
	assert_non_null(strstr(line2, ",disk,seq-read,,ok,,false,1,0,,104857600,,,one core,cpu1 98 % busy,\n"));
	/* cpu: the step's comma quoted, read in the shared column, ops in its own. */
	assert_non_null(strstr(line3, ",cpu,\"aes,gcm\",,ok,,false,1,0,ops_per_second,1000000000,,2500000,,,\n"));
	/* Two rows and nothing after them. */
	assert_ptr_equal(strchr(line3, '\n') + 1, buf + len);
	free(buf);
	run_free(run);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_json_reps),
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_interval),
		cmocka_unit_test(test_heat),
		cmocka_unit_test(test_prom_time_labels),
		cmocka_unit_test(test_table_failed),
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_concise),
		cmocka_unit_test(test_csv_field),
		cmocka_unit_test(test_csv_union),
		cmocka_unit_test(test_grid_mixed_labels),
		cmocka_unit_test(test_reps_labels),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
