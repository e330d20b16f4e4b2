/* SPDX-License-Identifier: MIT */
/*
 * Tests of the JSON writer: nesting, commas, escaping, numbers that
 * round-trip, and null for what JSON cannot express.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/jw.h"

static char *render(void (*fn)(struct jw *), bool pretty)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct jw w = JW_INIT(f, pretty);

	fn(&w);
	fclose(f);
	return buf;
}

static void doc(struct jw *w)
{
	jw_obj_begin(w, NULL);
	jw_str(w, "s", "a\"b\\c\n\x01");
	jw_num(w, "pi", 3.25);
	jw_num(w, "tenth", 0.1);
	jw_num(w, "nan", NAN);
	jw_num(w, "inf", INFINITY);
	jw_int(w, "neg", -5);
	jw_uint(w, "big", UINT64_MAX);
	jw_bool(w, "t", true);
	jw_null(w, "z");
	jw_str(w, "nul", NULL);
	jw_arr_begin(w, "a");
	jw_int(w, NULL, 1);
	jw_arr_begin(w, NULL);
	jw_arr_end(w);
	jw_obj_begin(w, NULL);
	jw_obj_end(w);
	jw_arr_end(w);
	jw_obj_end(w);
	jw_finish(w);
}

static void test_compact(void **state)
{
	char *s = render(doc, false);

	(void)state;
	assert_string_equal(s, "{\"s\":\"a\\\"b\\\\c\\n\\u0001\",\"pi\":3.25,\"tenth\":0.1,\"nan\":null,"
			       "\"inf\":null,\"neg\":-5,\"big\":18446744073709551615,\"t\":true,\"z\":null,"
			       "\"nul\":null,\"a\":[1,[],{}]}\n");
	free(s);
}

static void test_pretty(void **state)
{
	char *s = render(doc, true);

	(void)state;
	assert_non_null(strstr(s, "{\n  \"s\": "));
	assert_non_null(strstr(s, "\"a\": [\n    1,\n    [],\n    {}\n  ]\n}\n"));
	free(s);
}

static void num_doc(struct jw *w)
{
	jw_arr_begin(w, NULL);
	jw_num(w, NULL, 1.0 / 3.0);
	jw_num(w, NULL, 1e300);
	jw_num(w, NULL, -2.5e-9);
	jw_arr_end(w);
}

static void test_numbers_round_trip(void **state)
{
	char *s = render(num_doc, false), *p = s + 1;

	(void)state;
	assert_true(strtod(p, &p) == 1.0 / 3.0);
	assert_true(strtod(p + 1, &p) == 1e300);
	assert_true(strtod(p + 1, &p) == -2.5e-9);
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_compact),
		cmocka_unit_test(test_pretty),
		cmocka_unit_test(test_numbers_round_trip),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
