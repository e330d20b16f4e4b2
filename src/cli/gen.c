/* SPDX-License-Identifier: MIT */
/*
 * The manual page and the shell completion scripts, generated from the
 * same tables the parser reads (the command table, the benchmark registry,
 * the option tables), so none of them can drift from what engpass accepts.
 * The build runs `engpass help --man` and `engpass help --completion
 * bash|zsh` (meson.build); they are hidden from --help, as they are for
 * the build, not for a person.
 */
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "cli/cmd.h"

/* One command as the generators see it: a row of cmd_table or a benchmark. */
struct gcmd {
	const char *name, *usage, *summary, *description;
	const struct opt *opts;		/* its own options (a benchmark's shared ones), or NULL */
	const struct bench_verb *verbs;	/* NULL-name terminated, or NULL */
	bool common;			/* takes common_opts_table (every benchmark) */
	bool files;			/* its positional arguments are files */
};

static size_t gcmd_count(void)
{
	size_t n = 0;

	while (cmd_table[n].name)
		n++;
	for (size_t i = 0; bench_table[i]; i++)
		n++;
	return n;
}

/* Command I: the rows of cmd_table first, then the benchmarks. */
static struct gcmd gcmd_get(size_t i)
{
	size_t ncmd = 0;
	const struct bench *b;

	while (cmd_table[ncmd].name)
		ncmd++;
	if (i < ncmd)
		return (struct gcmd){ .name = cmd_table[i].name, .usage = cmd_table[i].usage,
				      .summary = cmd_table[i].summary, .opts = cmd_table[i].opts,
				      .files = cmd_table[i].files };
	b = bench_table[i - ncmd];
	/* A benchmark that touches no files takes none; the others point at a TARGET or a DIR. */
	return (struct gcmd){ .name = b->name, .usage = b->usage, .summary = b->summary,
			      .description = b->description, .opts = b->opts, .verbs = b->verbs, .common = true,
			      .files = !(b->flags & (BENCH_NO_IO | BENCH_NETWORK)) };
}

/* The option an OPT_T_SAME entry stands for, among C's tables; NULL when none. */
static const struct opt *same_target(const struct gcmd *c, const struct opt *o)
{
	const struct opt *t = NULL;

	if (c->opts)
		t = opt_find(c->opts, o->target);
	for (size_t v = 0; !t && c->verbs && c->verbs[v].name; v++)
		t = c->verbs[v].opts ? opt_find(c->verbs[v].opts, o->target) : NULL;
	if (!t && c->common)
		t = opt_find(common_opts_table, o->target);
	return t;
}

/* True when O takes a value (an OPT_T_SAME: when its target does). */
static bool takes_value(const struct gcmd *c, const struct opt *o)
{
	if (o->type == OPT_T_SAME)
		o = same_target(c, o);
	return o && o->type != OPT_T_FLAG && o->type != OPT_T_REFUSED && !(o->type == OPT_T_VERB && !o->metavar);
}

/* What completes O's value: 'c' its choices, 'f' a file, 'd' a directory, 0 nothing. */
static char value_kind(const struct gcmd *c, const struct opt *o)
{
	static const char *const file_vars[] = { "FILE", "PATH", "TARGET", "DEV", "LIB", NULL };

	if (o->type == OPT_T_SAME)
		o = same_target(c, o);
	if (!o || !o->metavar)
		return o && o->type == OPT_T_CHOICE ? 'c' : 0;
	if (o->type == OPT_T_CHOICE)
		return 'c';
	if (!strcmp(o->metavar, "DIR"))
		return 'd';
	for (size_t i = 0; file_vars[i]; i++)
		if (!strcmp(o->metavar, file_vars[i]))
			return 'f';
	return 0;
}

/* The choices of O (or of its OPT_T_SAME target); NULL when none. */
static const char *const *choices_of(const struct gcmd *c, const struct opt *o)
{
	if (o->type == OPT_T_SAME)
		o = same_target(c, o);
	return o && o->type == OPT_T_CHOICE ? o->choices : NULL;
}

/* ---- the manual page ---------------------------------------------------------- */

/*
 * Writes S as roff text: backslashes and minus signs escaped, no line
 * starting a request, UTF-8 as \[uXXXX] (groff reads ASCII), and a break
 * point after a comma inside a word (a long list "a,b,c" may wrap).
 */
static void roff(FILE *f, const char *s, bool line_start)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (line_start && (c == '.' || c == '\''))
			fputs("\\&", f);
		line_start = c == '\n';
		if (c == '\\') {
			fputs("\\e", f);
		} else if (c == '-') {
			fputs("\\-", f);
		} else if (c == ',' && s[1] && s[1] != ' ') {
			fputs(",\\:", f);
		} else if (c >= 0xc0 && c < 0xf0) {
			/* A two- or three-byte sequence (all our text needs); a bad one ends the string. */
			unsigned cp = c >= 0xe0 ? c & 0x0f : c & 0x1f;
			int more = c >= 0xe0 ? 2 : 1;

			for (; more > 0 && ((unsigned char)s[1] & 0xc0) == 0x80; more--)
				cp = cp << 6 | ((unsigned char)*++s & 0x3f);
			if (more)
				return;
			fprintf(f, "\\[u%04X]", cp);
		} else if (c < 0x80) {
			fputc(c, f);
		}
	}
}

/* One option as a .TP paragraph: "-p, --port PORT" and its help. */
static void man_opt(FILE *f, const struct opt *o)
{
	const char *sep = "";

	fputs(".TP\n", f);
	if (o->shortc) {
		fprintf(f, "\\fB\\-%c\\fR", o->shortc);
		sep = ", ";
	}
	if (opt_own_long(o)) {
		fprintf(f, "%s\\fB\\-\\-", sep);
		roff(f, o->name, false);
		fputs("\\fR", f);
		sep = ", ";
	}
	if (o->alias) {
		fprintf(f, "%s\\fB\\-\\-", sep);
		roff(f, o->alias, false);
		fputs("\\fR", f);
	}
	if (o->metavar) {
		fputs(" \\fI", f);
		roff(f, o->metavar, false);
		fputs("\\fR", f);
	}
	fputc('\n', f);
	if (o->type == OPT_T_SAME) {
		fputs("Same as \\-\\-", f);
		roff(f, o->target, false);
		fputs(" (", f);
		roff(f, o->help, false);
		fputs(").\n", f);
		return;
	}
	if (o->type == OPT_T_REFUSED)
		fputs("Not taken: ", f);
	roff(f, o->help, true);
	fputc('\n', f);
	if (o->type == OPT_T_CHOICE) {
		fputs(".br\nOne of: ", f);
		for (int c = 0; o->choices[c]; c++) {
			fputs(c ? ", " : "", f);
			roff(f, o->choices[c], false);
		}
		fputs(".\n", f);
	}
}

static void man_opts(FILE *f, const struct opt *opts)
{
	for (size_t i = 0; opts && opts[i].name; i++)
		man_opt(f, &opts[i]);
}

/* The parts of `engpass quick` (its --help lists them in running order). */
static void man_profile(FILE *f)
{
	fputs(".PP\nThe profile's parts (the names \\fB\\-\\-skip\\fR takes), by benchmark:\n", f);
	for (size_t i = 0; bench_table[i]; i++) {
		const struct bench_quick *q = bench_table[i]->quick;

		for (size_t k = 0; q && k < q->nsteps; k++) {
			fputs(".TP\n\\fB", f);
			roff(f, q->steps[k].group, false);
			fputs("\\fR (", f);
			roff(f, bench_table[i]->name, false);
			fputs(")\n", f);
			roff(f, q->steps[k].why, true);
			fprintf(f, "%s\n", q->steps[k].needs_root ? " (as root)" : "");
		}
	}
}

static void man_cmd(FILE *f, const struct gcmd *c)
{
	fputs(".SS ", f);
	roff(f, c->name, false);
	fputs("\n.B engpass ", f);
	roff(f, c->name, false);
	fputc('\n', f);
	if (c->usage[0]) {
		roff(f, c->usage, true);
		fputc('\n', f);
	}
	fputs(".PP\n", f);
	roff(f, c->summary, true);
	fputs(".\n", f);
	if (!strcmp(c->name, "quick"))
		man_profile(f);
	if (c->description) {
		fputs(".PP\n", f);
		roff(f, c->description, true);
		fputc('\n', f);
	}
	for (size_t v = 0; c->verbs && c->verbs[v].name; v++) {
		fprintf(f, "%s.TP\n\\fBengpass ", v ? "" : ".PP\nCommands:\n");
		roff(f, c->name, false);
		fputc(' ', f);
		roff(f, c->verbs[v].name, false);
		fputs("\\fR", f);
		if (c->verbs[v].args[0]) {
			fputs(" \\fI", f);
			roff(f, c->verbs[v].args, false);
			fputs("\\fR", f);
		}
		fputc('\n', f);
		roff(f, c->verbs[v].summary, true);
		fputc('\n', f);
	}
	if (c->opts && c->opts[0].name) {
		fprintf(f, ".PP\nOptions%s:\n", c->verbs ? " of every command" : "");
		man_opts(f, c->opts);
	}
	for (size_t v = 0; c->verbs && c->verbs[v].name; v++) {
		if (!c->verbs[v].opts || !c->verbs[v].opts[0].name)
			continue;
		fputs(".PP\nOptions of ", f);
		roff(f, c->name, false);
		fputc(' ', f);
		roff(f, c->verbs[v].name, false);
		fputs(":\n", f);
		man_opts(f, c->verbs[v].opts);
	}
	if (c->common)
		fputs(".PP\nAnd the common options (\\fBCOMMON OPTIONS\\fR).\n", f);
}

static void man_page(FILE *f)
{
	size_t n = gcmd_count(), ncmd = 0;

	while (cmd_table[ncmd].name)
		ncmd++;
	fprintf(f, ".\\\" Generated by `engpass help --man` from its option tables; do not edit.\n"
		   ".TH ENGPASS 1 \"\" \"engpass %s\" \"User Commands\"\n"
		   ".SH NAME\n"
		   "engpass \\- measure where a Linux box's throughput goes and say what bounded it\n"
		   ".SH SYNOPSIS\n"
		   ".B engpass\n.I COMMAND\n.RI [ options ]\n.br\n"
		   ".B engpass\n.BR \\-\\-version \" | \" \\-V\n"
		   ".SH DESCRIPTION\n"
		   "engpass measures a Linux box's throughput (disk, memory, latency, network, CPU, a\n"
		   "running process) and names what bounded each figure: a disk, a core, a link, a\n"
		   "throttle. \\fBengpass quick\\fR is the whole-box profile in about a minute. Every\n"
		   "figure comes with its method. The benchmarks are commands of their own; each\n"
		   "prints a table, or one JSON document with \\fB\\-\\-json\\fR.\n"
		   ".PP\n"
		   "Short options bundle as getopt's do (\\fB\\-tT\\fR is \\fB\\-t \\-T\\fR); a long\n"
		   "option takes its value as \\fB\\-\\-name value\\fR or \\fB\\-\\-name=value\\fR;\n"
		   "\\fB\\-\\-\\fR ends the options.\n",
		ENGPASS_VERSION);
	fputs(".SH COMMANDS\n", f);
	for (size_t i = 0; i < ncmd; i++) {
		struct gcmd c = gcmd_get(i);

		man_cmd(f, &c);
	}
	fputs(".SH BENCHMARKS\n", f);
	for (size_t i = ncmd; i < n; i++) {
		struct gcmd c = gcmd_get(i);

		man_cmd(f, &c);
	}
	fputs(".SH COMMON OPTIONS\nEvery benchmark command takes these.\n", f);
	man_opts(f, common_opts_table);
	fputs(".SH UNITS\n", f);
	roff(f, help_units_text, true);
	fputs(".SH EXIT STATUS\n", f);
	roff(f, help_exit_text, true);
	fputs(".SH ENVIRONMENT\n"
	      ".TP\n.B XDG_DATA_HOME\n"
	      "Where the history database lives: \\fI$XDG_DATA_HOME/engpass/history.db\\fR\n"
	      "(default \\fI\\(ti/.local/share/engpass/history.db\\fR); \\fB\\-\\-db\\fR names another.\n"
	      ".SH FILES\n"
	      ".TP\n.I /lib/systemd/system/engpass\\-quick.service, engpass\\-quick.timer\n"
	      "The profile on a timer, stored in \\fI/var/lib/engpass/history.db\\fR (not enabled\n"
	      "by the package).\n"
	      ".TP\n.I /lib/systemd/system/engpass\\-exporter.service\n"
	      "That history served as Prometheus metrics (not enabled by the package).\n"
	      ".SH SEE ALSO\n"
	      ".BR iperf3 (1),\n.BR fio (1),\n.BR hdparm (8),\n.BR cyclictest (8)\n"
	      ".PP\n"
	      "The documents in \\fI/usr/share/doc/engpass\\fR: each benchmark's method, the JSON\n"
	      "document, the Prometheus metrics, running it across a fleet.\n",
	      f);
}

/* ---- bash --------------------------------------------------------------------- */

/* The spellings of O that complete ("-p --port --alias"), space-separated, each after a space. */
static void words_of(FILE *f, const struct opt *o)
{
	if (o->type == OPT_T_REFUSED)
		return;
	if (o->shortc)
		fprintf(f, " -%c", o->shortc);
	if (opt_own_long(o))
		fprintf(f, " --%s", o->name);
	if (o->alias)
		fprintf(f, " --%s", o->alias);
}

static void bash_words(FILE *f, const struct opt *opts)
{
	for (size_t i = 0; opts && opts[i].name; i++)
		words_of(f, &opts[i]);
}

/* The case arms completing the values of OPTS's options: "cmd --opt"|"cmd -o") ... ;; */
static void bash_values(FILE *f, const struct gcmd *c, const char *cmd, const struct opt *opts)
{
	for (size_t i = 0; opts && opts[i].name; i++) {
		const struct opt *o = &opts[i];
		const char *const *ch = choices_of(c, o);
		char kind = value_kind(c, o);
		const char *sep = "";

		if (!takes_value(c, o) || o->type == OPT_T_REFUSED)
			continue;
		fputs("\t", f);
		if (o->shortc) {
			fprintf(f, "\"%s -%c\"", cmd, o->shortc);
			sep = "|";
		}
		if (opt_own_long(o)) {
			fprintf(f, "%s\"%s --%s\"", sep, cmd, o->name);
			sep = "|";
		}
		if (o->alias)
			fprintf(f, "%s\"%s --%s\"", sep, cmd, o->alias);
		if (kind == 'c' && ch) {
			fputs(")\n\t\tCOMPREPLY=($(compgen -W \"", f);
			for (size_t k = 0; ch[k]; k++)
				fprintf(f, "%s%s", k ? " " : "", ch[k]);
			fputs("\" -- \"$cur\"))\n\t\treturn ;;\n", f);
		} else if (kind == 'f' || kind == 'd') {
			fprintf(f, ")\n\t\t_engpass_files %s\n\t\treturn ;;\n", kind == 'd' ? "-d" : "-f");
		} else {
			fputs(")\n\t\treturn ;;\n", f);	/* a number, a size, a name: nothing to offer */
		}
	}
}

/* Every command's name, space-separated. */
static void cmd_names(FILE *f)
{
	for (size_t i = 0, n = gcmd_count(); i < n; i++)
		fprintf(f, "%s%s", i ? " " : "", gcmd_get(i).name);
}

static void bash_script(FILE *f)
{
	size_t n = gcmd_count();

	fprintf(f, "# bash completion for engpass %s; generated by `engpass help --completion bash`\n"
		   "# from its option tables; do not edit.\n\n"
		   "_engpass_files()\n{\n"
		   "\tlocal IFS=$'\\n'\n"
		   "\tCOMPREPLY=($(compgen %s -- \"$cur\"))\n"
		   "\tcompopt -o filenames 2>/dev/null\n"
		   "}\n\n"
		   "_engpass()\n{\n"
		   "\tlocal cur=${COMP_WORDS[COMP_CWORD]} prev= cword=$COMP_CWORD\n"
		   "\t((cword > 0)) && prev=${COMP_WORDS[cword-1]}\n"
		   "\t# --name=VALUE: COMP_WORDBREAKS splits it into --name, = and VALUE.\n"
		   "\tif [[ $cur == = ]]; then\n\t\tcur=\n\telif [[ $prev == = ]] && ((cword > 1)); then\n"
		   "\t\tprev=${COMP_WORDS[cword-2]}\n\tfi\n"
		   "\tif ((cword == 1)); then\n\t\tCOMPREPLY=($(compgen -W \"",
		ENGPASS_VERSION, "$1");
	cmd_names(f);
	fputs(" --help -h --version -V\" -- \"$cur\"))\n\t\treturn\n\tfi\n"
	      "\tlocal cmd=${COMP_WORDS[1]} opts= verbs= verb= files= bench=\n"
	      "\tcase $cmd in\n",
	      f);
	/* What each command takes: its options, its verbs, whether arguments are files. */
	for (size_t i = 0; i < n; i++) {
		struct gcmd c = gcmd_get(i);

		fprintf(f, "\t%s)\n\t\topts=\"", c.name);
		bash_words(f, c.opts);
		if (c.common)
			bash_words(f, common_opts_table);
		fprintf(f, "\"\n\t\tfiles=%s bench=%s\n", c.files ? "1" : "", c.common ? "1" : "");
		if (c.verbs) {
			fputs("\t\tverbs=\"", f);
			for (size_t v = 0; c.verbs[v].name; v++)
				fprintf(f, "%s%s", v ? " " : "", c.verbs[v].name);
			fputs("\"\n\t\tfor w in \"${COMP_WORDS[@]:2:cword-2}\"; do\n\t\t\tcase $w in\n", f);
			for (size_t v = 0; c.verbs[v].name; v++) {
				fprintf(f, "\t\t\t%s)\n\t\t\t\tverb=%s\n\t\t\t\topts+=\"", c.verbs[v].name, c.verbs[v].name);
				bash_words(f, c.verbs[v].opts);
				fputs("\"\n\t\t\t\tbreak ;;\n", f);
			}
			fputs("\t\t\tesac\n\t\tdone\n", f);
		}
		fputs("\t\t;;\n", f);
	}
	fputs("\t*)\n\t\t_engpass_files -f\n\t\treturn ;;\n\tesac\n"
	      "\t# The value of the option before the cursor.\n"
	      "\tcase \"$cmd $prev\" in\n",
	      f);
	for (size_t i = 0; i < n; i++) {
		struct gcmd c = gcmd_get(i);

		bash_values(f, &c, c.name, c.opts);
		for (size_t v = 0; c.verbs && c.verbs[v].name; v++)
			bash_values(f, &c, c.name, c.verbs[v].opts);
	}
	fputs("\tesac\n\tif [[ $bench ]]; then\n\t\tcase \"$cmd $prev\" in\n", f);
	{
		struct gcmd c = { .common = true };

		bash_values(f, &c, "$cmd", common_opts_table);
	}
	fputs("\t\tesac\n\tfi\n"
	      "\tif [[ $cur == -* ]]; then\n"
	      "\t\tCOMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
	      "\telif [[ $verbs && ! $verb ]]; then\n"
	      "\t\tCOMPREPLY=($(compgen -W \"$verbs\" -- \"$cur\"))\n"
	      "\telif [[ $cmd == help ]]; then\n"
	      "\t\tCOMPREPLY=($(compgen -W \"",
	      f);
	cmd_names(f);
	fputs("\" -- \"$cur\"))\n"
	      "\telif [[ $files ]]; then\n"
	      "\t\t_engpass_files -f\n"
	      "\tfi\n"
	      "}\n\n"
	      "complete -F _engpass engpass\n",
	      f);
}

/* ---- zsh ---------------------------------------------------------------------- */

/*
 * Writes S single-quoted for zsh: for an _arguments spec (SPEC) with its
 * brackets, colons and backslashes quoted; else (a _describe description,
 * after the name's colon) as it is.
 */
static void zsh_desc(FILE *f, const char *s, bool spec)
{
	for (; *s; s++) {
		if (*s == '\'')
			fputs("'\\''", f);
		else if (spec && (*s == '[' || *s == ']' || *s == '\\' || *s == ':'))
			fprintf(f, "\\%c", *s);
		else if (*s == '\n')
			fputc(' ', f);
		else
			fputc(*s, f);
	}
}

/* One spec per spelling of O: '-p+[help]:PORT:action' '--port=[help]:PORT:action'. */
static void zsh_opt(FILE *f, const struct gcmd *c, const struct opt *o)
{
	const char *spell[3];
	char shortbuf[3] = { '-', o->shortc, 0 };
	size_t ns = 0;
	bool val = takes_value(c, o);
	char kind = value_kind(c, o);
	const char *const *ch = choices_of(c, o);

	if (o->type == OPT_T_REFUSED)
		return;
	if (o->shortc)
		spell[ns++] = shortbuf;
	if (opt_own_long(o))
		spell[ns++] = o->name;
	if (o->alias)
		spell[ns++] = o->alias;
	for (size_t i = 0; i < ns; i++) {
		bool is_short = spell[i] == shortbuf;

		fprintf(f, " \\\n\t\t'%s%s%s[", is_short ? "" : "--", spell[i], val ? (is_short ? "+" : "=") : "");
		zsh_desc(f, o->type == OPT_T_SAME ? o->target : o->help, true);
		fputc(']', f);
		if (val) {
			fputc(':', f);
			zsh_desc(f, o->metavar ? o->metavar : "value", true);
			fputc(':', f);
			if (kind == 'c' && ch) {
				fputc('(', f);
				for (size_t k = 0; ch[k]; k++)
					fprintf(f, "%s%s", k ? " " : "", ch[k]);
				fputc(')', f);
			} else if (kind == 'f') {
				fputs("_files", f);
			} else if (kind == 'd') {
				fputs("_files -/", f);
			}
		}
		fputc('\'', f);
	}
}

static void zsh_script(FILE *f)
{
	size_t n = gcmd_count();

	fprintf(f, "#compdef engpass\n"
		   "# zsh completion for engpass %s; generated by `engpass help --completion zsh`\n"
		   "# from its option tables; do not edit.\n\n"
		   "_engpass() {\n"
		   "\tlocal -a cmds\n"
		   "\tcmds=(\n",
		ENGPASS_VERSION);
	for (size_t i = 0; i < n; i++) {
		struct gcmd c = gcmd_get(i);

		fprintf(f, "\t\t'%s:", c.name);
		zsh_desc(f, c.summary, false);
		fputs("'\n", f);
	}
	fputs("\t)\n"
	      "\tif (( CURRENT == 2 )); then\n"
	      "\t\t_describe -t commands 'engpass command' cmds\n"
	      "\t\treturn\n"
	      "\tfi\n"
	      "\tlocal cmd=$words[2]\n"
	      "\tshift words\n"
	      "\t(( CURRENT-- ))\n"
	      "\tcase $cmd in\n",
	      f);
	for (size_t i = 0; i < n; i++) {
		struct gcmd c = gcmd_get(i);

		fprintf(f, "\t%s)\n\t\t_arguments -s -S", c.name);
		for (size_t k = 0; c.opts && c.opts[k].name; k++)
			zsh_opt(f, &c, &c.opts[k]);
		/* zsh offers every verb's options: the parser names the verb an option belongs to. */
		for (size_t v = 0; c.verbs && c.verbs[v].name; v++)
			for (size_t k = 0; c.verbs[v].opts && c.verbs[v].opts[k].name; k++)
				zsh_opt(f, &c, &c.verbs[v].opts[k]);
		for (size_t k = 0; c.common && common_opts_table[k].name; k++)
			zsh_opt(f, &c, &common_opts_table[k]);
		if (c.verbs) {
			fputs(" \\\n\t\t'1:command:(", f);
			for (size_t v = 0; c.verbs[v].name; v++)
				fprintf(f, "%s%s", v ? " " : "", c.verbs[v].name);
			fputs(")'", f);
		}
		if (!strcmp(c.name, "help"))
			fputs(" \\\n\t\t'1:command:->cmds'", f);
		else if (c.files)
			fputs(" \\\n\t\t'*:file:_files'", f);
		fputs(" && return\n", f);
		if (!strcmp(c.name, "help"))
			fputs("\t\t[[ $state == cmds ]] && _describe -t commands 'engpass command' cmds\n", f);
		fputs("\t\t;;\n", f);
	}
	fputs("\tesac\n}\n\n_engpass \"$@\"\n", f);
}

int help_gen(FILE *f, const char *what, const char *arg)
{
	/* A router build leaves the generators out (meson -Dgenerators=false): their code is not linked. */
	if (!ENGPASS_GENERATORS)
		return usage_error("help", "'%s': this build has no manual page or completion generator "
				   "(meson -Dgenerators=false)", what);
	if (!strcmp(what, "--man") && !arg)
		man_page(f);
	else if (!strcmp(what, "--completion") && arg && !strcmp(arg, "bash"))
		bash_script(f);
	else if (!strcmp(what, "--completion") && arg && !strcmp(arg, "zsh"))
		zsh_script(f);
	else
		return usage_error("help", "'%s' takes %s", what, !strcmp(what, "--man") ? "no argument" : "bash or zsh");
	return fflush(f) ? EXIT_MEASURE_FAILED : EXIT_OK;
}
