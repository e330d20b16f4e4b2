/* SPDX-License-Identifier: MIT */
/*
 * Option tables. Each benchmark declares a table of typed options with
 * offsetof() into its own private options struct (as fio engines do); one
 * generic parser fills the struct, checks limits and strict units, and the
 * help text is generated from the same table. The OPT_* macros check at
 * compile time that the field has the type the parser will write, so a
 * table can never write a uint64_t into an int.
 */
#ifndef ENGPASS_OPT_H
#define ENGPASS_OPT_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/compiler.h"

enum opt_type {
	OPT_T_FLAG,	/* bool, no argument */
	OPT_T_SIZE,	/* uint64_t bytes: 4K 60KiB 1M 2G 1MB */
	OPT_T_RATE,	/* double bytes per second: 200K/s 1Gbit/s */
	OPT_T_BITRATE,	/* double bits per second: 100M (iperf3's -b) 1Gbit/s 12MB/s */
	OPT_T_DURATION,	/* uint64_t nanoseconds: 500ms 5s 2m */
	OPT_T_INT,	/* int64_t within [min, max] */
	OPT_T_CPULIST,	/* cpu_set_t, every CPU must exist */
	OPT_T_STRING,	/* const char *, points into argv */
	OPT_T_CHOICE,	/* int index into a NULL-terminated list of names */
	OPT_T_LIST,	/* struct opt_list: a comma-separated list of words */
	/*
	 * Entries that fill no field. OPT_T_VERB: another tool's spelling
	 * of a positional word (iperf3's -s for `net server`, -c HOST for
	 * `net client HOST`): the parser adds the entry's name, then its
	 * value when it has a metavar, to the positional arguments.
	 * OPT_T_SAME: a short letter or long name standing for an option of
	 * another table (net's -t for the common --time). OPT_T_REFUSED:
	 * another tool's option that engpass cannot take with its meaning;
	 * giving it is an error whose text (the help) says what to use.
	 */
	OPT_T_VERB,
	OPT_T_POS,	/* like OPT_T_VERB, but only the value is added (fio's --filename=TARGET) */
	OPT_T_SAME,
	OPT_T_REFUSED,
};

/* Most items an OPT_T_LIST holds, and the longest list text (with its NUL). */
#define OPT_LIST_MAX 32
#define OPT_LIST_TEXT 512

/*
 * The value of an OPT_T_LIST option: the text as given and its items,
 * split strictly at commas (an empty item, as in "a,,b", "a," or ",a", is
 * an error, not skipped). Items are kept as offsets into the struct's own
 * buffer, so the struct can be copied by value. n == 0 means the option
 * was not given (the zeroed default): the benchmark applies its default.
 * What an item means (a size, a cipher name...) is the benchmark's to
 * check, item by item, naming the bad one.
 */
struct opt_list {
	size_t n;
	unsigned short off[OPT_LIST_MAX];	/* item i starts at items + off[i] */
	char items[OPT_LIST_TEXT];		/* the items, each NUL-terminated */
	char text[OPT_LIST_TEXT];		/* the list as given, for messages */
};

/* Item I (< L->n) of L, NUL-terminated; points into L. */
static inline const char *opt_list_item(const struct opt_list *l, size_t i)
{
	return l->items + l->off[i];
}

/*
 * Splits TEXT at commas into L, keeping at most MAX items (1 to
 * OPT_LIST_MAX; 0 means OPT_LIST_MAX). Returns 0; -EINVAL for an empty
 * item (an empty TEXT included); -E2BIG for more than MAX items or a TEXT
 * of OPT_LIST_TEXT bytes or more. L is written only on success. The
 * option parser calls it for OPT_T_LIST values; benchmarks call it for
 * their default lists.
 */
MUST_CHECK int opt_list_split(struct opt_list *l, const char *text, size_t max);

/*
 * The list to use for an OPT_T_LIST option: L when it was given
 * (L->n > 0), else (L empty or NULL) the default DEFLT split into *BUF. DEFLT is the
 * benchmark's constant; one that does not split (a bug, caught by the
 * benchmark's tests) gives an empty list. Returns L or BUF.
 */
const struct opt_list *opt_list_or(const struct opt_list *l, const char *deflt, struct opt_list *buf);

struct opt {
	const char *name;	/* long name without the dashes */
	char shortc;		/* single-letter alias or 0 */
	enum opt_type type;
	size_t off;		/* offsetof() into the options struct */
	int64_t min, max;	/* limits for OPT_T_INT/SIZE/DURATION (0,0 = none); items of OPT_T_LIST */
	const char *const *choices;	/* OPT_T_CHOICE names */
	const char *metavar;	/* shown in help, e.g. "SIZE" */
	const char *help;
	/*
	 * Another tool's long name for the same option and meaning (fio's
	 * "iodepth" on --qd), or NULL. A name lives in one entry only: the
	 * alias is part of its option's entry, and help shows both.
	 */
	const char *alias;
	/*
	 * OPT_T_CHOICE: other tools' words for the choices, NULL-terminated
	 * "theirs=ours" pairs ("randread=rand-read"); "theirs=!why" refuses
	 * the word with WHY. OPT_T_SAME: the long name it stands for (target).
	 */
	const char *const *choice_alias;
	const char *target;
};

/*
 * Compile-time check that FIELD of struct ST has type T; evaluates to 0.
 * A struct may hold a _Static_assert (C11), so sizeof of such a struct is a
 * constant expression that fails to compile when the types differ.
 */
#define OPT_CHECK_(st, field, T) \
	(0 * sizeof(struct { _Static_assert(__builtin_types_compatible_p(__typeof__(((st *)0)->field), T), \
					     "option field " #field " has the wrong type"); char c_; }))
#define OPT_OFF_(st, field, T) (offsetof(st, field) + OPT_CHECK_(st, field, T))

/*
 * Each macro takes, after the help, optional designated fields of struct
 * opt: OPT_INT("qd", 0, ..., "queue depth", .alias = "iodepth").
 */
#define OPT_E_(n, s, t, o, lo, hi, ch, mv, h, ...) \
	{ .name = n, .shortc = s, .type = t, .off = o, .min = lo, .max = hi, .choices = ch, .metavar = mv, \
	  .help = h, __VA_ARGS__ }
#define OPT_FLAG(n, s, st, f, h, ...) OPT_E_(n, s, OPT_T_FLAG, OPT_OFF_(st, f, bool), 0, 0, NULL, NULL, h, __VA_ARGS__)
#define OPT_SIZE(n, s, st, f, lo, hi, h, ...) \
	OPT_E_(n, s, OPT_T_SIZE, OPT_OFF_(st, f, uint64_t), lo, hi, NULL, "SIZE", h, __VA_ARGS__)
#define OPT_RATE(n, s, st, f, h, ...) \
	OPT_E_(n, s, OPT_T_RATE, OPT_OFF_(st, f, double), 0, 0, NULL, "RATE", h, __VA_ARGS__)
/* Bits per second into a double: iperf3's -b grammar (units_parse_bitrate()). */
#define OPT_BITRATE(n, s, st, f, h, ...) \
	OPT_E_(n, s, OPT_T_BITRATE, OPT_OFF_(st, f, double), 0, 0, NULL, "BITS/S", h, __VA_ARGS__)
#define OPT_DURATION(n, s, st, f, lo, hi, h, ...) \
	OPT_E_(n, s, OPT_T_DURATION, OPT_OFF_(st, f, uint64_t), lo, hi, NULL, "DURATION", h, __VA_ARGS__)
#define OPT_INT(n, s, st, f, lo, hi, mv, h, ...) \
	OPT_E_(n, s, OPT_T_INT, OPT_OFF_(st, f, int64_t), lo, hi, NULL, mv, h, __VA_ARGS__)
#define OPT_CPULIST(n, s, st, f, h, ...) \
	OPT_E_(n, s, OPT_T_CPULIST, OPT_OFF_(st, f, cpu_set_t), 0, 0, NULL, "CPUS", h, __VA_ARGS__)
#define OPT_STRING(n, s, st, f, mv, h, ...) \
	OPT_E_(n, s, OPT_T_STRING, OPT_OFF_(st, f, const char *), 0, 0, NULL, mv, h, __VA_ARGS__)
#define OPT_CHOICE(n, s, st, f, list, mv, h, ...) \
	OPT_E_(n, s, OPT_T_CHOICE, OPT_OFF_(st, f, int), 0, 0, list, mv, h, __VA_ARGS__)
/* A comma list of at most MAX items (<= OPT_LIST_MAX) into a struct opt_list. */
#define OPT_LIST(n, s, st, f, max, mv, h, ...) \
	OPT_E_(n, s, OPT_T_LIST, OPT_OFF_(st, f, struct opt_list), 1, max, NULL, mv, h, __VA_ARGS__)
/* Positional word N (and a value MV, when not NULL) spelled as an option; see OPT_T_VERB. */
#define OPT_VERB(n, s, mv, h, ...) OPT_E_(n, s, OPT_T_VERB, 0, 0, 0, NULL, mv, h, __VA_ARGS__)
/*
 * Short letter S (and .alias, a long name, when given) for option TARGET
 * of another table; its name is TARGET's, for help, never matched itself.
 */
#define OPT_SAME(s, target_, h, ...) \
	OPT_E_(target_, s, OPT_T_SAME, 0, 0, 0, NULL, NULL, h, .target = target_, __VA_ARGS__)
/* Another tool's spelling of positional argument MV (only its value is added; see OPT_T_POS). */
#define OPT_POS(n, s, mv, h, ...) OPT_E_(n, s, OPT_T_POS, 0, 0, 0, NULL, mv, h, __VA_ARGS__)
/*
 * Another tool's option N / S that engpass refuses with WHY (what to use
 * instead). A short-only one is named "-x": such a name is never matched
 * as a long option (engpass's own --x may mean something else).
 */
#define OPT_REFUSED(n, s, why, ...) OPT_E_(n, s, OPT_T_REFUSED, 0, 0, 0, NULL, NULL, why, __VA_ARGS__)
#define OPT_END { .name = NULL }

/* One table together with the struct it fills. */
struct opt_group {
	const struct opt *opts;
	void *dst;
};

/*
 * Bit for each option that was given on the command line, so a caller can
 * tell a default from an explicit value. Indexed as group * 64 + index;
 * groups and options past these bounds are parsed but not recorded.
 */
#define OPT_SEEN_GROUPS 8
struct opt_seen {
	uint64_t bits[OPT_SEEN_GROUPS];
};

/*
 * Parses ARGV[0..ARGC) against the option groups (searched in order; the
 * first table that knows a name wins). "--name value", "--name=value", "-x
 * value" and "-xvalue" are accepted, short options bundle as getopt's do
 * ("-tT" is "-t -T", "-uP4" is "-u -P 4": a short option that takes a
 * value takes the rest of the word, or the next argument), a flag takes
 * "--flag=1" (fio's --direct=1), and "--" ends options. An unknown name
 * gets a "did you mean" from the groups' names (opt_suggest_*). Arguments that are
 * not options are collected in order into POS (capacity MAXPOS), their count
 * into *NPOS. NCPU is the number of CPUs a CPU list may name.
 * Returns 0, or -EINVAL with a one-line message naming the option and the
 * offending text in ERR (no trailing newline).
 */
MUST_CHECK int opt_parse(int argc, char **argv, const struct opt_group *groups, size_t ngroups,
			 int ncpu, char **pos, size_t maxpos, size_t *npos, struct opt_seen *seen,
			 char *err, size_t errlen);

/* True when the option at INDEX of group GROUP was given. */
bool opt_was_seen(const struct opt_seen *seen, size_t group, size_t index);

/* Writes the help lines of a table to F, one option per line (or two). */
void opt_help(FILE *f, const struct opt *opts);

/*
 * True when O's name is its own long spelling: not an OPT_T_SAME's target
 * (another table's option), not a short-only "-x" of OPT_REFUSED.
 */
bool opt_own_long(const struct opt *o);

/* Looks up an option by long name (or its alias) in a table; NULL when absent. */
const struct opt *opt_find(const struct opt *opts, const char *name);

/*
 * Edit distance between A and B: Damerau-Levenshtein in its optimal
 * string alignment form (insert, delete, substitute, swap two neighbours:
 * 1 each), the measure git's "did you mean" uses. Words longer than 63
 * characters compare as far apart (SIZE_MAX).
 */
size_t opt_edit_distance(const char *a, const char *b);

/*
 * "Did you mean": feed every candidate to opt_suggest_add(); TEXT then
 * holds the nearest ones ("'--qd'" or "'disk' or 'dist'"), those at the
 * smallest distance, when that distance is small enough for WORD's length
 * (1 for up to 3 characters, 2 up to 6, 3 beyond), else "". PREFIX ("--",
 * "" ...) is written before each candidate.
 */
struct opt_suggest {
	const char *word;
	size_t best;		/* distance of the candidates in TEXT */
	size_t n;		/* how many are in TEXT */
	char text[160];
};
void opt_suggest_init(struct opt_suggest *s, const char *word);
void opt_suggest_add(struct opt_suggest *s, const char *prefix, const char *cand);

#endif
