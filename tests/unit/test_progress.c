/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for src/core/base/progress.c. The line is written to an
 * open_memstream() buffer and the time is simulated, so the tests check
 * what is drawn and how often without a terminal and without sleeping.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/progress.h"

#define MS NS_PER_MS
#define SEC NS_PER_SEC

struct sink {
	FILE *f;
	char *buf;
	size_t len;
};

static void sink_open(struct sink *s)
{
	s->buf = NULL;
	s->len = 0;
	s->f = open_memstream(&s->buf, &s->len);
	assert_non_null(s->f);
}

/* The text written so far (valid until the next write or sink_close). */
static const char *sink_text(struct sink *s)
{
	fflush(s->f);
	return s->buf;
}

static void sink_close(struct sink *s)
{
	fclose(s->f);
	free(s->buf);
}

static size_t count_char(const char *s, char c)
{
	size_t n = 0;

	for (; *s; s++)
		n += *s == c;
	return n;
}

/* Length of the i-th segment that follows a '\r' (0-based), or -1. */
static long segment_len(const char *s, size_t i)
{
	const char *p = s, *end;

	for (size_t k = 0; k <= i; k++) {
		p = strchr(p, '\r');
		if (!p)
			return -1;
		p++;
	}
	end = strchr(p, '\r');
	return end ? end - p : (long)strlen(p);
}

static void test_disabled_writes_nothing(void **state)
{
	struct progress p;
	struct sink s;

	(void)state;
	sink_open(&s);
	progress_init(&p, s.f, false, "disk");
	for (uint64_t t = 0; t < 5 * SEC; t += 10 * MS)
		progress_update(&p, t, t, 5 * SEC, "1.0 MiB/s");
	progress_clear(&p);
	progress_finish(&p);
	assert_int_equal(strlen(sink_text(&s)), 0);
	sink_close(&s);

	/* no stream at all: enabled, but nothing to write to */
	progress_init(&p, NULL, true, "disk");
	progress_update(&p, 0, 1, 2, NULL);
	progress_finish(&p);
}

static void test_rate_limited(void **state)
{
	struct progress p;
	struct sink s;
	size_t draws;

	(void)state;
	sink_open(&s);
	progress_init(&p, s.f, true, "disk");
	/* 200 updates over 2 simulated seconds */
	for (uint64_t t = 0; t < 2 * SEC; t += 10 * MS)
		progress_update(&p, 1000 * SEC + t, t, 2 * SEC, NULL);
	draws = count_char(sink_text(&s), '\r');
	assert_true(draws >= 2 * PROGRESS_HZ);
	assert_true(draws <= 2 * PROGRESS_HZ + 1);
	/* many updates at one instant draw once */
	for (int i = 0; i < 100; i++)
		progress_update(&p, 1000 * SEC + 2 * SEC, 1, 2, NULL);
	assert_int_equal(count_char(sink_text(&s), '\r'), draws + 1);
	sink_close(&s);
}

static void test_content(void **state)
{
	struct progress p;
	struct sink s;
	const char *text;

	(void)state;
	sink_open(&s);
	progress_init(&p, s.f, true, "fetch");
	progress_update(&p, 50 * SEC, 0, 1000, NULL);
	text = sink_text(&s);
	assert_non_null(strstr(text, "fetch"));
	assert_non_null(strstr(text, "0.0%"));
	assert_non_null(strstr(text, "0:00 elapsed"));
	assert_non_null(strstr(text, "--:-- left"));	/* no rate yet */
	progress_update(&p, 54 * SEC, 500, 1000, "117.2 MiB/s");
	text = sink_text(&s);
	assert_non_null(strstr(text, "50.0%"));
	assert_non_null(strstr(text, "0:04 elapsed"));
	assert_non_null(strstr(text, "0:04 left"));
	assert_non_null(strstr(text, "117.2 MiB/s"));
	/* 600 done in 75 s: 50 s left */
	progress_update(&p, 125 * SEC, 600, 1000, NULL);
	assert_non_null(strstr(sink_text(&s), "1:15 elapsed  0:50 left"));
	/* past an hour */
	progress_update(&p, 50 * SEC + 3725 * SEC, 999, 1000, NULL);
	assert_non_null(strstr(sink_text(&s), "99.9%  1:02:05 elapsed"));
	/* more than asked for never shows more than 100 % */
	progress_update(&p, 10000 * SEC, 2000, 1000, NULL);
	assert_non_null(strstr(sink_text(&s), "100.0%"));
	assert_non_null(strstr(sink_text(&s), "0:00 left"));
	sink_close(&s);
}

static void test_unknown_total(void **state)
{
	struct progress p;
	struct sink s;

	(void)state;
	sink_open(&s);
	progress_init(&p, s.f, true, "watch");
	progress_update(&p, 0, 12345, 0, "3 req/s");
	progress_update(&p, 90 * SEC, 99999, 0, NULL);
	assert_null(strchr(sink_text(&s), '%'));
	assert_null(strstr(sink_text(&s), "left"));
	assert_non_null(strstr(sink_text(&s), "1:30 elapsed"));
	sink_close(&s);
}

/* A shorter line overwrites all of the longer one; finish blanks the line. */
static void test_padding_and_erase(void **state)
{
	struct progress p;
	struct sink s;
	const char *text;
	long l0, l1, last;
	size_t n;

	(void)state;
	sink_open(&s);
	progress_init(&p, s.f, true, "net");
	progress_update(&p, 0, 1, 2, "a long extra field, 1234.5 MiB/s");
	progress_update(&p, SEC, 1, 2, "short");
	text = sink_text(&s);
	l0 = segment_len(text, 0);
	l1 = segment_len(text, 1);
	assert_true(l0 > 0);
	assert_true(l1 >= l0);
	progress_finish(&p);
	text = sink_text(&s);
	n = count_char(text, '\r');
	assert_int_equal(n, 4);		/* two draws, erase = '\r' blanks '\r' */
	assert_int_equal(text[strlen(text) - 1], '\r');
	last = segment_len(text, n - 2);
	assert_true(last >= l0);
	for (long i = 0; i < last; i++)
		assert_int_equal(strrchr(text, '\r')[-1 - i], ' ');
	/* after finish, nothing more */
	progress_update(&p, 100 * SEC, 2, 2, NULL);
	progress_clear(&p);
	assert_int_equal(count_char(sink_text(&s), '\r'), n);
	sink_close(&s);
}

static void test_clear_forces_redraw(void **state)
{
	struct progress p;
	struct sink s;

	(void)state;
	sink_open(&s);
	progress_init(&p, s.f, true, "disk");
	progress_update(&p, 0, 1, 4, NULL);
	progress_clear(&p);
	assert_int_equal(count_char(sink_text(&s), '\r'), 3);
	/* well within the interval, but the line is gone: draw again */
	progress_update(&p, 1 * MS, 2, 4, NULL);
	assert_int_equal(count_char(sink_text(&s), '\r'), 4);
	progress_update(&p, 2 * MS, 3, 4, NULL);
	assert_int_equal(count_char(sink_text(&s), '\r'), 4);
	/* clearing an empty line writes nothing */
	progress_clear(&p);
	progress_clear(&p);
	assert_int_equal(count_char(sink_text(&s), '\r'), 6);
	sink_close(&s);
}

static void test_width_limit(void **state)
{
	char extra[300], label[100];
	struct progress p;
	struct sink s;

	(void)state;
	memset(extra, 'x', sizeof(extra) - 1);
	extra[sizeof(extra) - 1] = '\0';
	memset(label, 'L', sizeof(label) - 1);
	label[sizeof(label) - 1] = '\0';
	sink_open(&s);
	progress_init(&p, s.f, true, label);
	assert_int_equal(strlen(p.label), PROGRESS_LABEL_MAX);
	progress_update(&p, 0, 1, 2, extra);
	assert_int_equal(segment_len(sink_text(&s), 0), PROGRESS_WIDTH);
	progress_finish(&p);
	assert_int_equal(segment_len(sink_text(&s), 1), PROGRESS_WIDTH);
	sink_close(&s);
}

/* progress_show(): the caller's line as given, at the same pace, cut to the width. */
static void test_show_own_line(void **state)
{
	char longline[200];
	struct progress p;
	struct sink s;

	(void)state;
	sink_open(&s);
	progress_init(&p, s.f, true, "fetch");
	progress_show(&p, 10 * SEC, "55.11% done; got 382.9MiB of 694.7MiB in 7 sec (54.7MiB/sec), 5 sec to go.");
	assert_string_equal(sink_text(&s),
			    "\r55.11% done; got 382.9MiB of 694.7MiB in 7 sec (54.7MiB/sec), 5 sec to go.");
	/* too soon: nothing drawn */
	progress_show(&p, 10 * SEC + 10 * MS, "x");
	assert_int_equal(count_char(sink_text(&s), '\r'), 1);
	/* later, a shorter line pads over the longer one; a long one is cut */
	memset(longline, 'y', sizeof(longline) - 1);
	longline[sizeof(longline) - 1] = 0;
	progress_show(&p, 11 * SEC, longline);
	assert_null(strstr(sink_text(&s), "yyyyy\n"));
	assert_int_equal(strlen(strrchr(sink_text(&s), '\r') + 1), PROGRESS_WIDTH);
	progress_finish(&p);
	progress_show(&p, 20 * SEC, "after finish");
	assert_null(strstr(sink_text(&s), "after finish"));
	sink_close(&s);
}

/* The share done is kept for --format jsonl whether or not the line is drawn; a total of 0 leaves it. */
static void test_percent(void **state)
{
	struct progress p;

	(void)state;
	progress_init(&p, NULL, false, "x");
	assert_true(isnan(progress_percent(&p)));
	progress_update(&p, 0, 25, 100, NULL);
	assert_true(progress_percent(&p) == 25);
	progress_update(&p, 1, 7, 0, NULL);
	assert_true(progress_percent(&p) == 25);
	progress_update(&p, 2, 150, 100, NULL);
	assert_true(progress_percent(&p) == 100);
	progress_percent_reset(&p);
	assert_true(isnan(progress_percent(&p)));
}

/* The arithmetic of the time left: the rate so far, going on. */
static void test_time_left(void **state)
{
	uint64_t left = 12345;

	(void)state;
	/* 250 of 1000 in 75 s: 225 s left */
	assert_true(progress_time_left(75 * SEC, 250, 1000, &left));
	assert_int_equal(left, 225 * SEC);
	/* 1 % of a 1-s step after 10 ms: 990 ms left, not minutes */
	assert_true(progress_time_left(10 * MS, 1, 100, &left));
	assert_int_equal(left, 990 * MS);
	/* done, or more than asked for: nothing left */
	assert_true(progress_time_left(3 * SEC, 100, 100, &left));
	assert_int_equal(left, 0);
	assert_true(progress_time_left(3 * SEC, 200, 100, &left));
	assert_int_equal(left, 0);
	/* nothing done yet, or no time elapsed: unknown */
	assert_false(progress_time_left(3 * SEC, 0, 100, &left));
	assert_false(progress_time_left(0, 5, 100, &left));
	/* beyond what 64 bits of ns hold: unknown, never a wrapped figure */
	assert_false(progress_time_left(1000 * SEC, 1, UINT64_MAX, &left));
}

/*
 * A phase after another (a 1 GiB fill of 2.5 s, then a 1-s step) counts
 * its own time: the step 10 ms in at 1 % says 0:00 left, not the 4:07
 * that the fill's 2.5 s would give (the "14:41 left" of a 1-s disk run).
 */
static void test_new_phase_restarts_the_clock(void **state)
{
	struct progress p;
	struct sink s;
	const char *text;

	(void)state;
	sink_open(&s);
	progress_init(&p, s.f, true, "disk");
	progress_update(&p, 100 * SEC, 0, 1024, "filling the data file");
	progress_update(&p, 100 * SEC + 2500 * MS, 1024, 1024, "filling the data file");
	/* the step: done went back, the total changed; nothing said */
	progress_update(&p, 103 * SEC, 0, SEC, NULL);
	progress_update(&p, 103 * SEC + 300 * MS, 300 * MS, SEC, NULL);
	text = strrchr(sink_text(&s), '\r');
	assert_non_null(strstr(text, "30.0%  0:00 elapsed  0:00 left"));
	/* the same total, done back to 0: the next step of the same length */
	progress_update(&p, 110 * SEC, 0, SEC, NULL);
	progress_update(&p, 110 * SEC + 500 * MS, 500 * MS, SEC, NULL);
	assert_non_null(strstr(strrchr(sink_text(&s), '\r'), "50.0%  0:00 elapsed  0:00 left"));
	/* a named phase restarts it too (the rate counts from the 50 done then), and says its line on a line of its own */
	progress_update(&p, 200 * SEC, 10, 100, NULL);
	p.say = true;
	progress_phase(&p, "warm-up %d s", 1);
	progress_update(&p, 250 * SEC, 50, 100, NULL);
	progress_update(&p, 252 * SEC, 60, 100, NULL);
	text = sink_text(&s);
	assert_non_null(strstr(text, "\rengpass disk: warm-up 1 s\n"));
	assert_non_null(strstr(strrchr(text, '\r'), "60.0%  0:02 elapsed  0:08 left"));
	sink_close(&s);
}

/* Phase lines: off a terminal too (SAY without ENABLED), none without SAY (--quiet); a plan of steps. */
static void test_phase_lines(void **state)
{
	struct progress p;
	struct sink s;

	(void)state;
	sink_open(&s);
	progress_init(&p, s.f, false, "cpu");
	progress_phase(&p, "quiet");
	progress_step(&p, 0, 0, 27, 200 * MS, 1);
	assert_string_equal(sink_text(&s), "");
	p.say = true;
	/* one step: nothing to count */
	progress_step(&p, 0, 0, 1, 200 * MS, 1);
	assert_string_equal(sink_text(&s), "");
	progress_step(&p, 10 * SEC, 0, 27, 200 * MS, 1);
	assert_string_equal(sink_text(&s),
			    "engpass cpu: 27 steps x 200 ms measured (--time is per step): at least 5.4 s in all\n"
			    "engpass cpu: step 1 of 27 (at least 5.4 s left)\n");
	/* 2 steps took 800 ms: 25 more at that pace take 10 s, more than the 5 s they measure */
	progress_step(&p, 10 * SEC + 800 * MS, 2, 27, 200 * MS, 1);
	assert_non_null(strstr(sink_text(&s), "\nengpass cpu: step 3 of 27 (0.8 s elapsed, about 0:10 left)\n"));
	/* faster than declared (a step cut short): what the steps left measure, at least */
	progress_step(&p, 11 * SEC, 20, 27, 200 * MS, 1);
	assert_non_null(strstr(sink_text(&s), "\nengpass cpu: step 21 of 27 (1.0 s elapsed, at least 1.4 s left)\n"));
	sink_close(&s);
	/* without --time: counted, and paced from the second step on */
	sink_open(&s);
	progress_init(&p, s.f, false, "mem");
	p.say = true;
	progress_step(&p, 0, 0, 3, 0, 1);
	progress_step(&p, 20 * SEC, 1, 3, 0, 1);
	assert_string_equal(sink_text(&s), "engpass mem: step 1 of 3\n"
			    "engpass mem: step 2 of 3 (0:20 elapsed, about 0:40 left)\n");
	sink_close(&s);
	sink_open(&s);
	progress_init(&p, s.f, false, "disk");
	p.say = true;
	progress_step(&p, 0, 0, 5, 2 * SEC, 3);
	assert_string_equal(sink_text(&s),
			    "engpass disk: 5 steps x 3 repetitions x 2 s measured (--time is per step): at least 0:30 "
			    "in all\nengpass disk: step 1 of 5 (at least 0:30 left)\n");
	sink_close(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_disabled_writes_nothing),
		cmocka_unit_test(test_percent),
		cmocka_unit_test(test_rate_limited),
		cmocka_unit_test(test_content),
		cmocka_unit_test(test_unknown_total),
		cmocka_unit_test(test_padding_and_erase),
		cmocka_unit_test(test_clear_forces_redraw),
		cmocka_unit_test(test_width_limit),
		cmocka_unit_test(test_show_own_line),
		cmocka_unit_test(test_time_left),
		cmocka_unit_test(test_new_phase_restarts_the_clock),
		cmocka_unit_test(test_phase_lines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
