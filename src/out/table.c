/* SPDX-License-Identifier: MIT */
/*
 * The human renderer: aligned text that fits TEXT_WIDTH columns, one
 * block per benchmark. By default a block is its headline (the figures,
 * the verdict and what would move it, the notes once per run and the
 * limits in effect); RENDER_DETAILS adds the parameters, the method, every
 * limit looked at, the system view, the histograms and each step's own
 * notes. docs/units.md ("Output units") has the number conventions.
 */
#include "render.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/result/verify.h"
#include "lib/units.h"
#include "lib/xalloc.h"
#include "out/info.h"

/* No line of the text output is wider than this. */
#define TEXT_WIDTH 100
/* "  %-10s  ": the tag column every block line starts with. */
#define TAG_W 14

/*
 * A count or a rate of counted things: exact below 10 000 (one decimal
 * below 10 when it has a fraction), then three significant digits with
 * k, M, G, T (12.3k, 121k, 6.02M), as fio's IOPS= does.
 */
static void fmt_count(char *buf, size_t len, double v)
{
	static const char sfx[] = "kMGT";
	double a = fabs(v), s = 1;
	int i = -1;

	if (a < 9999.5) {
		if (a < 10 && v != floor(v))
			snprintf(buf, len, "%.1f", v);
		else
			snprintf(buf, len, "%.0f", v);
		return;
	}
	while (i < 3 && a / (s * 1000) >= 0.9995) {
		s *= 1000;
		i++;
	}
	a = v / s;
	snprintf(buf, len, fabs(a) < 9.995 ? "%.2f%c" : fabs(a) < 99.95 ? "%.1f%c" : "%.0f%c", a, sfx[i]);
}

void render_value(char *buf, size_t len, double v, enum unit unit)
{
	char n[32];

	if (isnan(v)) {
		snprintf(buf, len, "n/a");
		return;
	}
	switch (unit) {
	case UNIT_BYTES:
		units_fmt_size(buf, len, v, 0);
		return;
	case UNIT_BYTES_PER_S:
		units_fmt_rate(buf, len, v);
		return;
	case UNIT_BITS_PER_S:
		units_fmt_bits(buf, len, v);
		return;
	case UNIT_NS:
		/* lat_mem_rd's three decimals where a load is a few ns. */
		if (fabs(v) < 10)
			snprintf(buf, len, "%.3f ns", v);
		else if (fabs(v) < 1e3)
			snprintf(buf, len, "%.1f ns", v);
		else if (fabs(v) < 1e6)
			snprintf(buf, len, "%.2f us", v / 1e3);
		else if (fabs(v) < 1e9)
			snprintf(buf, len, "%.2f ms", v / 1e6);
		else
			snprintf(buf, len, "%.3f s", v / 1e9);
		return;
	case UNIT_SECONDS:
		snprintf(buf, len, "%.3f s", v);
		return;
	case UNIT_PERCENT:
		snprintf(buf, len, "%.1f %%", v);
		return;
	case UNIT_PER_S:
		fmt_count(n, sizeof(n), v);
		snprintf(buf, len, "%s /s", n);
		return;
	case UNIT_MHZ:
		snprintf(buf, len, "%.0f MHz", v);
		return;
	case UNIT_RATIO:
		snprintf(buf, len, "%.2fx", v);
		return;
	case UNIT_COUNT:
		if (fabs(v) >= 9999.5 || v == floor(v))
			fmt_count(buf, len, v);
		else
			snprintf(buf, len, "%.3g", v);
		return;
	}
	snprintf(buf, len, "%g", v);
}

/* ---- lines that fit ---------------------------------------------------------- */

/*
 * Writes TEXT and a newline, the caller having written COL columns of the
 * line: breaks at spaces so no line passes TEXT_WIDTH, continuation lines
 * start at column HANG; a word longer than a line is broken.
 */
static void wrap(FILE *f, size_t col, size_t hang, const char *text)
{
	const char *p = text;

	if (hang > TEXT_WIDTH - 30)
		hang = TEXT_WIDTH - 30;
	for (;;) {
		size_t room = TEXT_WIDTH > col ? TEXT_WIDTH - col : 0, n = strcspn(p, "\n"), cut;

		if (n <= room) {
			fwrite(p, 1, n, f);
			if (!p[n] || !p[n + 1])
				break;
			p += n + 1;
		} else {
			/* A unit stays with its number ("14 %"). */
			for (cut = room; cut > 0 && (p[cut] != ' ' || p[cut + 1] == '%'); cut--)
				;
			if (!cut && col > hang) {
				fprintf(f, "\n%*s", (int)hang, "");
				col = hang;
				continue;
			}
			if (!cut)
				cut = room;
			fwrite(p, 1, cut, f);
			p += cut;
		}
		while (*p == ' ')
			p++;
		if (!*p)
			break;
		fprintf(f, "\n%*s", (int)hang, "");
		col = hang;
	}
	fputc('\n', f);
}

void render_wrap(FILE *f, size_t col, size_t hang, const char *text)
{
	wrap(f, col, hang, text);
}

/* "  TAG         TEXT", TEXT wrapped; its continuation lines EXTRA columns further in. */
static void tagged(FILE *f, const char *tag, size_t extra, const char *text)
{
	fprintf(f, "  %-10s  ", tag);
	wrap(f, TAG_W, TAG_W + extra, text);
}

/* "KEY: VALUE" under TAG, wrapped under the value. */
static void kv_line(FILE *f, const char *tag, const struct kv *kv)
{
	char *s = xasprintf("%s: %s", kv->key, kv->value);

	tagged(f, tag, strlen(kv->key) + 2, s);
	free(s);
}

/*
 * Splits S into lines of at most W columns at spaces (a longer word is
 * broken); fills up to MAX of LINES (each LINE_MAX long) and returns how
 * many lines S needs.
 */
#define LINE_MAX_LEN 128
static size_t split_words(const char *s, size_t w, char (*lines)[LINE_MAX_LEN], size_t max)
{
	size_t n = 0;

	if (w >= LINE_MAX_LEN)
		w = LINE_MAX_LEN - 1;
	while (*s) {
		size_t len = strlen(s), cut = len;

		if (len > w) {
			for (cut = w; cut > 0 && s[cut] != ' '; cut--)
				;
			if (!cut)
				cut = w;
		}
		if (n < max)
			snprintf(lines[n], LINE_MAX_LEN, "%.*s", (int)cut, s);
		n++;
		s += cut;
		while (*s == ' ')
			s++;
	}
	return n;
}

/* ---- what is shown by default -------------------------------------------------- */

/* The label a person reads: the metric table's, else its key with spaces. */
static void metric_label(char *buf, size_t len, const struct metric *m)
{
	if (m->label && m->label[0]) {
		snprintf(buf, len, "%s", m->label);
		return;
	}
	snprintf(buf, len, "%s", m->name);
	for (char *p = buf; *p; p++)
		if (*p == '_')
			*p = ' ';
}

/* The metric table's label of M, "" when it has none. */
static const char *label_of(const struct metric *m)
{
	return m->label ? m->label : "";
}

/* render_metric(), and with DECIMAL a disk rate's decimal form after its binary one. */
static void metric_text(char *buf, size_t len, const struct result *r, const struct metric *m, double v, bool decimal)
{
	size_t n;

	/* A network's byte rate in bits, as iperf3 and the rest of net's figures give it. */
	if (m->unit == UNIT_BYTES_PER_S && !strcmp(r->bench, "net")) {
		render_value(buf, len, 8 * v, UNIT_BITS_PER_S);
		return;
	}
	render_value(buf, len, v, m->unit);
	if (!decimal || m->unit != UNIT_BYTES_PER_S || isnan(v) || strcmp(r->bench, "disk"))
		return;
	n = strlen(buf);
	if (v >= 1e9)
		snprintf(buf + n, len - n, " (%.2f GB/s)", v / 1e9);
	else if (v >= 1e6)
		snprintf(buf + n, len - n, " (%.1f MB/s)", v / 1e6);
	else
		snprintf(buf + n, len - n, " (%.1f kB/s)", v / 1e3);
}

void render_metric(char *buf, size_t len, const struct result *r, const struct metric *m, double v)
{
	metric_text(buf, len, r, m, v, true);
}

/*
 * Whether a limit line of the method block is a configured limit in
 * effect, which explains a figure and so is shown by default: a cpu quota,
 * a cpuset narrower than the box, a memory, swap or io limit, a shaper.
 * "none" and "unknown" are not, nor the link speed, the MTU and rlimits.
 */
static bool limit_in_effect(const struct result *r, const struct kv *kv)
{
	static const char *const quiet[] = { "limit memlock", "limit nofile", "limit link", "limit mtu", NULL };

	if (strncmp(kv->key, "limit ", 6) || !strncmp(kv->value, "none", 4) || !strncmp(kv->value, "unknown", 7))
		return false;
	for (size_t i = 0; quiet[i]; i++)
		if (!strcmp(kv->key, quiet[i]))
			return false;
	if (!strcmp(kv->key, "limit cpus allowed"))
		return r->have_view && r->view.ncpu > 0 && atoi(kv->value) < r->view.ncpu;
	return true;
}

/* True when A and B say the same but for their numbers ("3154 MHz", "3156 MHz"). */
static bool same_but_numbers(const char *a, const char *b)
{
	while (*a && *b) {
		bool da = *a >= '0' && *a <= '9', db = *b >= '0' && *b <= '9';

		if (da && db) {
			while ((*a >= '0' && *a <= '9') || *a == '.')
				a++;
			while ((*b >= '0' && *b <= '9') || *b == '.')
				b++;
			continue;
		}
		if (*a != *b)
			return false;
		a++;
		b++;
	}
	return !*a && !*b;
}

/* The state of one text rendering: what was said already (notes are said once per run). */
struct text {
	FILE *f;
	bool details;
	const char **said;
	size_t nsaid;
	bool note_tag;		/* the "note" tag was printed in the current block */
};

static bool said(const struct text *t, const char *s)
{
	for (size_t i = 0; i < t->nsaid; i++)
		if (!strcmp(t->said[i], s))
			return true;
	return false;
}

/* Says TEXT under the block's "note" tag and remembers NOTE as said. */
static void say_note(struct text *t, const char *note, const char *text)
{
	t->said = xrealloc(t->said, (t->nsaid + 1) * sizeof(*t->said));
	t->said[t->nsaid++] = note;
	tagged(t->f, t->note_tag ? "" : "note", 0, text);
	t->note_tag = true;
}

/*
 * The notes of results G[0..N), each said once in the run. By default a
 * note that steps say with their own figures is said once, with how many
 * others say it alike; RENDER_DETAILS says each.
 */
static void notes_block(struct text *t, const struct result *const *g, size_t n)
{
	t->note_tag = false;
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < g[i]->nnotes; k++) {
			const char *s = g[i]->notes[k];
			size_t alike = 0;
			bool earlier = false;

			if (said(t, s))
				continue;
			if (!t->details) {
				for (size_t j = 0; j < n; j++)
					for (size_t l = 0; l < g[j]->nnotes; l++) {
						const char *o = g[j]->notes[l];

						if (!strcmp(o, s) || !same_but_numbers(o, s))
							continue;
						if (said(t, o))
							earlier = true;
						else
							alike++;
					}
			}
			if (earlier)
				continue;
			if (alike) {
				char *x = xasprintf("%s (at %s; %zu more step%s say%s it with %s own figure%s: "
						    "--details shows each)", s, g[i]->step, alike, alike > 1 ? "s" : "",
						    alike > 1 ? "" : "s", alike > 1 ? "their" : "its", alike > 1 ? "s" : "");

				say_note(t, s, x);
				free(x);
			} else {
				say_note(t, s, s);
			}
		}
}

/* The configured limits in effect over G[0..N), each once. */
static void limits_block(const struct text *t, const struct result *const *g, size_t n)
{
	bool tag = false;

	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < g[i]->nmethod; k++) {
			const struct kv *kv = &g[i]->method[k];
			bool dup = false;

			if (!limit_in_effect(g[i], kv))
				continue;
			for (size_t j = 0; j <= i && !dup; j++)
				for (size_t l = 0; l < g[j]->nmethod && !dup; l++)
					dup = (j < i || l < k) && !strcmp(g[j]->method[l].key, kv->key) &&
					      !strcmp(g[j]->method[l].value, kv->value);
			if (dup)
				continue;
			{
				struct kv shown = { kv->key + 6, kv->value };

				kv_line(t->f, tag ? "" : "limit", &shown);
			}
			tag = true;
		}
}

/* A percentage for the system view: "12 %", or "n/a" when unknown. */
static const char *pct(char *buf, size_t len, double v)
{
	if (isnan(v))
		snprintf(buf, len, "n/a");
	else
		snprintf(buf, len, "%.0f %%", v);
	return buf;
}

/* A plain figure for the system view: "12", or "n/a" when unknown. */
static const char *fig(char *buf, size_t len, double v)
{
	if (isnan(v))
		snprintf(buf, len, "n/a");
	else
		snprintf(buf, len, "%.0f", v);
	return buf;
}

/* True when the box had nothing to say about heat: no sensor, no throttle counter, no CPU cooling device. */
static bool heat_unseen(const struct sysview *v)
{
	return v->temp_sensors == 0 && v->throttle_cpus <= 0 && v->cooling_devices <= 0;
}

/*
 * Heat over the step: the hottest sensors (highest, and first -> last
 * reading), what a sensor's own limit is, then whether the CPU throttled.
 * A box without sensors says so once, after the results (render_table).
 */
static void heat_lines(FILE *f, const struct sysview *v)
{
	const char *sep = "";

	if (v->temp_sensors > 0) {
		fprintf(f, "  %-10s  heat", "");
		for (int i = 0; i < SYSVIEW_TEMPS && v->temps[i].name[0]; i++) {
			const struct sysview_temp *t = &v->temps[i];

			fprintf(f, "%s %s max %.0f C (%.0f -> %.0f", sep, t->name, t->max_c, t->start_c, t->end_c);
			if (!isnan(t->trip_c))
				fprintf(f, ", %s %.0f C", t->trip, t->trip_c);
			fputc(')', f);
			sep = ",";
		}
		if (v->temp_sensors > SYSVIEW_TEMPS)
			fprintf(f, " (hottest %d of %d sensors)", SYSVIEW_TEMPS, v->temp_sensors);
		fputc('\n', f);
	}
	if (v->throttle_cpus <= 0 && v->cooling_devices <= 0)
		return;
	fprintf(f, "  %-10s  throttling:", "");
	if (v->throttle_cpus > 0) {
		if (isnan(v->throttle_core_events))
			fprintf(f, " counters of %d CPUs not read", v->throttle_cpus);
		else if (v->throttle_cpus_moved)
			fprintf(f, " counters moved on %d of %d CPUs (core %.0f, package %.0f events)",
				v->throttle_cpus_moved, v->throttle_cpus, v->throttle_core_events,
				v->throttle_package_events);
		else
			fprintf(f, " none (counters of %d CPUs)", v->throttle_cpus);
	}
	if (v->cooling_devices > 0) {
		if (isnan(v->cooling_state_max))
			fprintf(f, "%s cooling state not read", v->throttle_cpus > 0 ? ";" : "");
		else
			fprintf(f, "%s %s cooling state up to %.0f of %.0f", v->throttle_cpus > 0 ? ";" : "",
				v->cooling_name, v->cooling_state_max, v->cooling_state_limit);
	}
	fputc('\n', f);
}

static void view_block(FILE *f, const struct result *r)
{
	const struct sysview *v = &r->view;
	char a[48], b[48], c[16], d[16], e[16], g[16];

	if (!r->have_view)
		return;
	fprintf(f, "\n  %-10s  %u samples over %.1f s\n", "system", v->samples, v->duration_s);
	if (v->busiest_cpu >= 0)
		fprintf(f, "  %-10s  busiest core cpu%d %s (%s softirq, peak interval %s)\n", "", v->busiest_cpu,
			pct(c, sizeof(c), v->busiest_cpu_busy_pct), pct(d, sizeof(d), v->busiest_cpu_softirq_pct),
			pct(e, sizeof(e), v->peak_cpu_busy_pct));
	fprintf(f, "  %-10s  all %d CPUs %s busy, iowait %s, softirq %s, steal %s\n", "", v->ncpu,
		pct(c, sizeof(c), v->cpu_busy_pct), pct(d, sizeof(d), v->cpu_iowait_pct),
		pct(e, sizeof(e), v->cpu_softirq_pct), pct(g, sizeof(g), v->cpu_steal_pct));
	if (v->busiest_disk[0]) {
		render_value(a, sizeof(a), v->disk_read_bytes_per_s, UNIT_BYTES_PER_S);
		render_value(b, sizeof(b), v->disk_write_bytes_per_s, UNIT_BYTES_PER_S);
		fprintf(f, "  %-10s  disk %s %s util, %s r/s (%s), %s w/s (%s)\n", "", v->busiest_disk,
			pct(c, sizeof(c), v->disk_util_pct), fig(d, sizeof(d), v->disk_reads_per_s), a,
			fig(e, sizeof(e), v->disk_writes_per_s), b);
	}
	fprintf(f, "  %-10s  swap in %s out %s pages/s, major faults %s /s", "",
		fig(c, sizeof(c), v->swap_in_pages_per_s), fig(d, sizeof(d), v->swap_out_pages_per_s),
		fig(e, sizeof(e), v->major_faults_per_s));
	if (v->psi_available)
		fprintf(f, "; stall cpu %s memory %s io %s", pct(c, sizeof(c), v->psi_cpu_some_pct),
			pct(d, sizeof(d), v->psi_mem_some_pct), pct(e, sizeof(e), v->psi_io_some_pct));
	fputc('\n', f);
	if (v->busiest_iface[0]) {
		render_value(a, sizeof(a), v->net_rx_bytes_per_s, UNIT_BYTES_PER_S);
		render_value(b, sizeof(b), v->net_tx_bytes_per_s, UNIT_BYTES_PER_S);
		fprintf(f, "  %-10s  net %s rx %s tx %s\n", "", v->busiest_iface, a, b);
	}
	heat_lines(f, v);
}

/* The coverage column: "97 %" for an interval, "range" for min..max without one (N = 2). */
static void coverage_cell(char *buf, size_t len, const struct metric *m)
{
	if (isnan(m->ci_coverage))
		snprintf(buf, len, "range");
	else
		snprintf(buf, len, "%.1f %%", 100 * m->ci_coverage);
}

/*
 * Figures of one step the default shows (a two-column list: twice as
 * many); --details shows all. With the time line, a step fits 40 lines.
 */
#define STEP_MAX_FIGS 23
/* The widest label column a table gives before it wraps a label. */
#define LABEL_MAX 40
/* The narrowest: a figure's label is wrapped at its spaces, never cut inside a word of this length. */
#define LABEL_MIN 24

/*
 * One step's figures, a row each: the label (wrapped in its column, so a
 * long one never shifts the value), the value right-aligned in a column
 * as wide as the widest value. With repetitions, each metric's median,
 * the interval of the median (low, high, its coverage) and n; "unstable"
 * after a figure whose interval reaches beyond RESULT_UNSTABLE_SHARE of
 * the median, and a key below.
 */
static void metrics_block(FILE *f, const struct result *r, bool details)
{
	bool reps = r->reps > 1, unstable = false, short_cov = false, brief = false;
	size_t lw = 6, vw = reps ? 6 : 5, bw = 6, rw = 4;
	char label[LINE_MAX_LEN], lines[4][LINE_MAX_LEN];
	const struct metric **ms;
	size_t n = 0, more;

	if (!r->nmetrics)
		return;
	/* The headline first, then the figures in the benchmark's order. */
	ms = xcalloc(r->nmetrics, sizeof(*ms));
	if (r->headline && result_find_metric(r, r->headline))
		ms[n++] = result_find_metric(r, r->headline);
	for (size_t i = 0; i < r->nmetrics; i++)
		if (!n || &r->metrics[i] != ms[0])
			ms[n++] = &r->metrics[i];
	more = n > (size_t)STEP_MAX_FIGS && !details ? n - STEP_MAX_FIGS : 0;
	for (size_t i = 0; i < n; i++) {
		const struct metric *m = ms[i];
		char v[64];

		metric_label(label, sizeof(label), m);
		if (strlen(label) > lw)
			lw = strlen(label);
		render_metric(v, sizeof(v), r, m, m->value);
		if (strlen(v) > vw)
			vw = strlen(v);
		if (reps) {
			/* The interval's ends in the binary form only (a disk rate's decimal one doubles a column). */
			metric_text(v, sizeof(v), r, m, m->value, false);
			bw = strlen(v) > bw ? strlen(v) : bw;
			metric_text(v, sizeof(v), r, m, isnan(m->ci_lo) ? m->min : m->ci_lo, false);
			rw = strlen(v) > rw ? strlen(v) : rw;
			metric_text(v, sizeof(v), r, m, isnan(m->ci_hi) ? m->max : m->ci_hi, false);
			rw = strlen(v) > rw ? strlen(v) : rw;
		}
	}
	/* Many figures of one step side by side, two to a line, top to bottom then the right half. */
	if (!reps && !details && n > 20 && n <= 2 * STEP_MAX_FIGS && 2 + 2 * (lw + 2 + vw) + 4 <= TEXT_WIDTH) {
		size_t half = (n + 1) / 2;

		fprintf(f, "\n  %-*s  %*s    %-*s  %*s\n", (int)lw, "metric", (int)vw, "value", (int)lw, "metric",
			(int)vw, "value");
		for (size_t i = 0; i < half; i++) {
			for (size_t k = i; k < n; k += half) {
				char v[64];

				metric_label(label, sizeof(label), ms[k]);
				render_metric(v, sizeof(v), r, ms[k], ms[k]->value);
				fprintf(f, k == i ? "  %-*s  %*s" : "    %-*s  %*s\n", (int)lw, label, (int)vw, v);
			}
			if (i + half >= n)
				fputc('\n', f);
		}
		free(ms);
		return;
	}
	n -= more;
	if (reps && lw > LABEL_MAX)
		lw = LABEL_MAX;
	if (!reps && 2 + lw + 2 + vw > TEXT_WIDTH)
		lw = TEXT_WIDTH - 4 - vw;
	/*
	 * With repetitions: "  label  median  low  high  cover  n unstable".
	 * The label keeps at least LABEL_MIN columns (or all it needs):
	 * where the median's decimal form would leave it less, the median is
	 * in the binary form too (--json has both).
	 */
	if (reps && TEXT_WIDTH < 2 + (lw < LABEL_MIN ? lw : LABEL_MIN) + 2 + vw + 2 * (2 + rw) + 2 + 7 + 2 + 4 + 9) {
		brief = true;
		vw = bw;
	}
	if (reps && 2 + lw + 2 + vw + 2 * (2 + rw) + 2 + 7 + 2 + 4 + 9 > TEXT_WIDTH)
		lw = TEXT_WIDTH - (2 + vw + 2 * (2 + rw) + 2 + 7 + 2 + 4 + 9);
	fprintf(f, "\n  %-*s  %*s", (int)lw, "metric", (int)vw, reps ? "median" : "value");
	if (reps)
		fprintf(f, "  %*s  %*s  %7s  %s", (int)rw, "low", (int)rw, "high", "cover", "n");
	fputc('\n', f);
	for (size_t i = 0; i < n; i++) {
		const struct metric *m = ms[i];
		bool have = !isnan(m->ci_lo);
		char v[64], lo[64], hi[64], cov[16];
		size_t nl;

		metric_label(label, sizeof(label), m);
		nl = split_words(label, lw, lines, 4);
		metric_text(v, sizeof(v), r, m, m->value, !brief);
		fprintf(f, "  %-*s  %*s", (int)lw, lines[0], (int)vw, v);
		if (reps) {
			metric_text(lo, sizeof(lo), r, m, have ? m->ci_lo : m->min, false);
			metric_text(hi, sizeof(hi), r, m, have ? m->ci_hi : m->max, false);
			coverage_cell(cov, sizeof(cov), m);
			fprintf(f, "  %*s  %*s  %7s  %u", (int)rw, lo, (int)rw, hi, cov, m->reps);
			if (metric_unstable(m)) {
				fputs(" unstable", f);
				unstable = true;
			}
			/* [min, max] of 3-5 repetitions, or a bare range of 2; not a figure none measured. */
			short_cov |= have ? m->ci_coverage < 0.95 : m->reps == 2;
		}
		fputc('\n', f);
		for (size_t k = 1; k < nl && k < 4; k++)
			fprintf(f, "    %s\n", lines[k]);
	}
	free(ms);
	if (more) {
		char *x = xasprintf("(%zu more figure%s: --details or --json)", more, more > 1 ? "s" : "");

		fputs("  ", f);
		wrap(f, 2, 3, x);
		free(x);
	}
	if (!reps)
		return;
	{
		char *s = xasprintf("low..high: the median's order-statistic interval%s",
				    short_cov ? " (95 % needs --repeat 6 or more; fewer: [min, max] at the coverage shown)"
					      : "");

		if (unstable) {
			char *u = xasprintf("%s; unstable: it reaches beyond %.0f %% of the median", s,
					    100 * RESULT_UNSTABLE_SHARE);

			free(s);
			s = u;
		}
		fputs("  ", f);
		wrap(f, 2, 4, s);
		free(s);
	}
}

/*
 * The work's time budget: "time  on CPU 22 % · vda 71 % (write, 1.0 in
 * flight) · run queue 2 % · own sleep 5 %", states of 1 % or more; with
 * --details every entry and how it was taken.
 */
static void budget_lines(FILE *f, const struct result *r, bool details)
{
	const struct sysview_budget *b = &r->view.budget;
	char *s, *u;

	if (!r->have_view || !(b->thread_s > 0))
		return;
	s = xstrdup("");
	for (unsigned i = 0, shown = 0; i < b->n; i++) {
		struct sysview_budget_entry m = b->e[i];
		const struct sysview_budget_entry *e = &m;
		/* A resource waited on by its name ("vda", "tcp 10.0.0.1:80"); the other states by theirs. */
		bool named = e->what[0] && (!strcmp(e->state, "disk") || !strcmp(e->state, "network") ||
					    !strcmp(e->state, "ipc")),
		     dup = false;

		/* Concise: entries of one state and resource in one figure ("vda 71 %"), whatever the syscall. */
		for (unsigned j = 0; !details && j < b->n; j++) {
			if (j == i || strcmp(b->e[j].state, m.state) || (named && strcmp(b->e[j].what, m.what)))
				continue;
			if (j < i)
				dup = true;
			else
				m.pct += b->e[j].pct;
		}
		if (!details && (dup || e->pct < 1 || shown++ >= 5))
			continue;
		/* A resource by its name ("vda"); another state by the state's ("own sleep"), -v adds what it was in. */
		u = xasprintf("%s%s%s%s%s %.0f %%%s%s%s", s, s[0] ? " \u00b7 " : "", named ? e->what : e->state,
			      !named && details && e->what[0] ? " " : "", !named && details ? e->what : "", e->pct,
			      details && e->detail[0] ? " (" : "", details ? e->detail : "",
			      details && e->detail[0] ? ")" : "");
		free(s);
		s = u;
	}
	tagged(f, "time", 0, s);
	free(s);
	if (details) {
		char rb[UNITS_FMT_LEN], wb[UNITS_FMT_LEN];

		units_fmt_size(rb, sizeof(rb), b->read_bytes, 0);
		units_fmt_size(wb, sizeof(wb), b->write_bytes, 0);
		s = xasprintf("%.1f thread-seconds of %d thread%s (%d idle left out), %u samples at %.0f Hz; "
			      "storage read %s, written %s, %.0f major faults; delay accounting %s",
			      b->thread_s, b->threads, b->threads == 1 ? "" : "s", b->idle_threads, b->samples, b->rate_hz,
			      rb, wb, b->major_faults,
			      b->delayacct == 1 ? "on" : b->delayacct == 0 ? "off (sysctl kernel.task_delayacct=1 turns it on)" :
			      "unknown");
		tagged(f, "", 0, s);
		free(s);
		if (b->delay_threads)
			s = xasprintf("delay accounting of %u thread%s: block I/O %.3f s, swap-in %.3f s, thrashing %.3f s, "
				      "reclaim %.3f s%s",
				      b->delay_threads, b->delay_threads == 1 ? "" : "s", b->delay_blkio_s, b->delay_swapin_s,
				      b->delay_thrashing_s, b->delay_reclaim_s,
				      b->delay_suspect ? " (threads with an impossible total left out: this kernel's figure is not always right)" : "");
		else
			s = NULL;
		if (s && b->net_why[0]) {
			u = xasprintf("%s; %s: %s, %s", s, b->net_what, b->net_why, b->net_evidence);
			free(s);
			s = u;
		} else if (b->net_why[0]) {
			s = xasprintf("%s: %s, %s", b->net_what[0] ? b->net_what : "network", b->net_why, b->net_evidence);
		}
		if (!s)
			return;
		tagged(f, "", 0, s);
		free(s);
	}
}

/* The verdict of R: what bounded it, what would move it and the runners-up that came close. */
static void verdict_lines(FILE *f, const struct result *r)
{
	char *s;

	if (r->verdict.resource[0]) {
		s = xasprintf("bound by: %s -- %s", r->verdict.resource, r->verdict.evidence);
		tagged(f, "verdict", 10, s);
		free(s);
	}
	if (r->verdict.verify.n) {
		char buf[1024];

		verify_describe(&r->verdict, buf, sizeof(buf));
		tagged(f, "checked", 0, buf);
	}
	if (r->verdict.next_step[0])
		tagged(f, "next", 0, r->verdict.next_step);
	for (size_t i = 0, shown = 0; i < r->verdict.ncand && shown < 2; i++) {
		const struct verdict_candidate *c = &r->verdict.cand[i];
		bool refuted = !strcmp(c->resource, r->verdict.verify.refuted);

		/* The one named is above; after --verify re-ranked, a refuted one says so. */
		if (!(c->share >= 0.5) || !strcmp(c->resource, r->verdict.resource))
			continue;
		s = xasprintf("also %s at %.0f %%%s -- %s", c->resource, c->share * 100,
			      refuted ? " (its probe did not confirm it)" : "", c->evidence);
		tagged(f, "", 5, s);
		free(s);
		shown++;
	}
}

static void histograms(FILE *f, const struct result *r)
{
	for (size_t i = 0; i < r->nhists; i++) {
		const struct hist *h = r->hists[i].h;
		char p[5][32], *s;
		static const double ps[5] = { 50, 90, 99, 99.9, 100 };

		for (int k = 0; k < 5; k++)
			render_value(p[k], sizeof(p[k]), (double)hist_percentile(h, ps[k]), r->hists[i].unit);
		s = xasprintf("%s: p50 %s, p90 %s, p99 %s, p99.9 %s, max %s (%llu values)", r->hists[i].name, p[0],
			      p[1], p[2], p[3], p[4], (unsigned long long)hist_count(h));
		tagged(f, i ? "" : "histogram", strlen(r->hists[i].name) + 2, s);
		free(s);
	}
}

/* The step's name and status line: "disk / device: ok (3 repetitions)". */
static void status_line(FILE *f, const struct result *r)
{
	char *s = xasprintf("%s%s%s: %s%s%s%s", r->bench, strcmp(r->bench, r->step) ? " / " : "",
			    strcmp(r->bench, r->step) ? r->step : "", result_status_name(r->status),
			    r->reason ? ": " : "", r->reason ? r->reason : "",
			    r->incomplete ? " (incomplete: stopped early, figures cover what ran)" : "");

	if (r->reps > 1) {
		char *u = xasprintf("%s (%u repetitions)", s, r->reps);

		free(s);
		s = u;
	}
	wrap(f, 0, 4, s);
	free(s);
}

/* One result on its own: its status line, then what it measured and why it ran as it did. */
static void result_block(struct text *t, const struct result *r)
{
	FILE *f = t->f;

	status_line(f, r);
	/*
	 * A failed step is its reason: what it set up, the system while it
	 * failed and a verdict over that are noise here (--json keeps them).
	 */
	if (r->status == RESULT_FAILED) {
		notes_block(t, &r, 1);
		return;
	}
	if (t->details) {
		for (size_t i = 0; i < r->nparams; i++)
			kv_line(f, i ? "" : "parameters", &r->params[i]);
		for (size_t i = 0; i < r->nmethod; i++)
			kv_line(f, i ? "" : "method", &r->method[i]);
	} else {
		limits_block(t, &r, 1);
	}
	metrics_block(f, r, t->details);
	if (t->details) {
		histograms(f, r);
		view_block(f, r);
	}
	budget_lines(f, r, t->details);
	verdict_lines(f, r);
	notes_block(t, &r, 1);
}

/* True when KV appears with the same value in every result of the group. */
static bool common_kv(const struct result *const *g, size_t n, const struct kv *kv, bool method)
{
	for (size_t i = 1; i < n; i++) {
		const struct kv *arr = method ? g[i]->method : g[i]->params;
		size_t cnt = method ? g[i]->nmethod : g[i]->nparams;
		bool found = false;

		for (size_t j = 0; j < cnt && !found; j++)
			found = !strcmp(arr[j].key, kv->key) && !strcmp(arr[j].value, kv->value);
		if (!found)
			return false;
	}
	return true;
}

/* Metrics a grid shows by default; RENDER_DETAILS shows them all. */
#define GRID_MAX_COLS 8
/* Lines a column heading of a grid may take. */
#define HEAD_LINES 3
/* Metrics a grid shows at most, with RENDER_DETAILS (--json has them all). */
#define GRID_ALL_COLS 64

struct col {
	const char *name;
	const struct metric *m;		/* the first step's metric of this name, for its label and unit */
	char label[LINE_MAX_LEN];
	size_t w;			/* the column's width */
	bool mixed;			/* the steps label it differently: LABEL is its key, each step's below */
};

/* A grid's column of C: as narrow as its values allow with the heading in HEAD_LINES lines. */
static void col_width(struct col *c, const struct result *const *g, size_t n)
{
	char lines[HEAD_LINES][LINE_MAX_LEN];
	size_t w = 4;

	for (size_t i = 0; i < n; i++) {
		const struct metric *mt = result_find_metric(g[i], c->name);
		char v[64];

		if (!mt || g[i]->status != RESULT_OK)
			continue;
		render_metric(v, sizeof(v), g[i], mt, mt->value);
		w = strlen(v) > w ? strlen(v) : w;
	}
	/* Words are not broken while one fits in a 16-column heading. */
	for (const char *p = c->label; *p;) {
		size_t k = strcspn(p, " ");

		w = k > w && k <= 16 ? k : w;
		p += k;
		p += strspn(p, " ");
	}
	while (w < strlen(c->label) && split_words(c->label, w, lines, HEAD_LINES) > HEAD_LINES)
		w++;
	c->w = w;
}

/* Metrics as rows, the steps G[0..N) (all ok) as columns; the caller checked that it fits. */
static void pivot_table(FILE *f, const struct result *const *g, size_t n, const struct col *cols, size_t ncol,
			size_t lw, const size_t *sw)
{
	char lines[4][LINE_MAX_LEN];

	fprintf(f, "\n  %-*s", (int)lw, "");
	for (size_t i = 0; i < n; i++)
		fprintf(f, "  %*s", (int)sw[i], g[i]->step);
	fputc('\n', f);
	for (size_t c = 0; c < ncol; c++) {
		size_t nl = split_words(cols[c].label, lw, lines, 4);

		fprintf(f, "  %-*s", (int)lw, lines[0]);
		for (size_t i = 0; i < n; i++) {
			const struct metric *mt = result_find_metric(g[i], cols[c].name);
			char v[64] = "";

			if (mt)
				render_metric(v, sizeof(v), g[i], mt, mt->value);
			fprintf(f, "  %*s", (int)sw[i], v);
		}
		fputc('\n', f);
		for (size_t k = 1; k < nl && k < 4; k++)
			fprintf(f, "    %s\n", lines[k]);
	}
}

/* Steps as rows, COLS[FROM..TO) as columns under headings of up to HEAD_LINES lines. */
static void rows_table(FILE *f, const struct result *const *g, size_t n, const struct col *cols, size_t from,
		       size_t to, size_t stepw)
{
	char lines[GRID_ALL_COLS][HEAD_LINES][LINE_MAX_LEN];
	size_t nl[GRID_ALL_COLS], hl = 1;

	for (size_t c = from; c < to; c++) {
		nl[c - from] = split_words(cols[c].label, cols[c].w, lines[c - from], HEAD_LINES);
		if (nl[c - from] > HEAD_LINES)
			nl[c - from] = HEAD_LINES;
		hl = nl[c - from] > hl ? nl[c - from] : hl;
	}
	fputc('\n', f);
	for (size_t k = 0; k < hl; k++) {
		char buf[4 * TEXT_WIDTH];
		size_t len = (size_t)snprintf(buf, sizeof(buf), "  %-*s", (int)stepw, k + 1 == hl ? "step" : "");

		for (size_t c = from; c < to && len < sizeof(buf); c++) {
			/* Headings sit on the bottom line, right-aligned over their values. */
			size_t skip = hl - nl[c - from];

			len += (size_t)snprintf(buf + len, sizeof(buf) - len, "  %*s", (int)cols[c].w,
						k < skip ? "" : lines[c - from][k - skip]);
		}
		len = strlen(buf);
		while (len && buf[len - 1] == ' ')
			buf[--len] = '\0';
		fprintf(f, "%s\n", buf);
	}
	for (size_t i = 0; i < n; i++) {
		const struct result *r = g[i];

		fprintf(f, "  %-*s", (int)stepw, r->step);
		if (r->status != RESULT_OK) {
			char *s = xasprintf("%s: %s", result_status_name(r->status), r->reason ? r->reason : "");

			fputs("  ", f);
			wrap(f, 4 + stepw, 4 + stepw, s);
			free(s);
			continue;
		}
		for (size_t c = from; c < to; c++) {
			const struct metric *mt = result_find_metric(r, cols[c].name);
			char v[64] = "";

			if (mt)
				render_metric(v, sizeof(v), r, mt, mt->value);
			fprintf(f, "  %*s", (int)cols[c].w, v);
		}
		fputc('\n', f);
	}
}

/*
 * A step's verdict in a grid, "STEP: bound by ..." and "next: ..." under
 * it; a long step name takes a line of its own so the sentences keep
 * their width.
 */
static void grid_verdict(FILE *f, const struct result *r, bool more)
{
	size_t hang = strlen(r->step) + 2;
	char *s;

	if (hang > 24) {
		fprintf(f, "  %-10s  %s:\n", more ? "" : "verdict", r->step);
		s = xasprintf("bound by %s -- %s", r->verdict.resource, r->verdict.evidence);
		hang = 2;
		fprintf(f, "%*s", TAG_W + 2, "");
		wrap(f, TAG_W + 2, TAG_W + 2, s);
	} else {
		s = xasprintf("%s: bound by %s -- %s", r->step, r->verdict.resource, r->verdict.evidence);
		tagged(f, more ? "" : "verdict", hang, s);
	}
	free(s);
	if (r->verdict.next_step[0]) {
		s = xasprintf("next: %s", r->verdict.next_step);
		fprintf(f, "%*s", (int)(TAG_W + hang), "");
		wrap(f, TAG_W + hang, TAG_W + hang + 6, s);
		free(s);
	}
}

/* More steps than this: their verdicts are grouped by resource unless --details. */
#define GRID_VERDICTS_MAX 4

/*
 * The verdicts of many steps in a screenful: one line per resource that
 * bounded any of them, in order of first appearance, with how many steps
 * and the first one's evidence and next step; --details gives each.
 */
static void grid_verdicts_grouped(FILE *f, const struct result *const *g, size_t n)
{
	bool *done = xcalloc(n, sizeof(*done));
	size_t judged = 0, groups = 0;

	for (size_t i = 0; i < n; i++)
		judged += g[i]->verdict.resource[0] && g[i]->status != RESULT_FAILED;
	for (size_t i = 0; i < n; i++) {
		const struct result *r = g[i];
		size_t same = 0;
		char *s;

		if (done[i] || !r->verdict.resource[0] || r->status == RESULT_FAILED)
			continue;
		for (size_t j = i; j < n; j++)
			if (!done[j] && g[j]->status != RESULT_FAILED &&
			    !strcmp(g[j]->verdict.resource, r->verdict.resource)) {
				done[j] = true;
				same++;
			}
		if (!groups++)
			fputc('\n', f);
		s = xasprintf("bound by %s in %zu of %zu steps; e.g. %s: %s", r->verdict.resource, same, judged, r->step,
			      r->verdict.evidence);
		tagged(f, groups == 1 ? "verdict" : "", 2, s);
		free(s);
		if (r->verdict.next_step[0]) {
			s = xasprintf("next: %s", r->verdict.next_step);
			tagged(f, "", 8, s);
			free(s);
		}
	}
	if (groups)
		tagged(f, "", 0, "(each step's verdict: --details or --json)");
	free(done);
}

/*
 * Several steps of one benchmark (cipher x size, task x load, ladder
 * rungs) as one table under human labels, never cutting a step name: a
 * row per metric and a column per step when that fits TEXT_WIDTH, else a
 * row per step and a column per metric, with the columns that fit
 * (RENDER_DETAILS: all of them, in several tables). Then each step's verdict and the notes, once.
 */
static void grid_block(struct text *t, const struct result *const *g, size_t n)
{
	FILE *f = t->f;
	struct col *cols = xcalloc(GRID_ALL_COLS, sizeof(*cols));
	size_t ncol = 0, stepw = 4, total, maxcol = t->details ? GRID_ALL_COLS : GRID_MAX_COLS, nmore = 0, nok = 0;
	bool printed, same_reps = true;
	char *s;

	for (size_t i = 0; i < n; i++) {
		if (strlen(g[i]->step) > stepw)
			stepw = strlen(g[i]->step);
		nok += g[i]->status == RESULT_OK;
		same_reps &= g[i]->reps == g[0]->reps;
		for (size_t m = 0; m < g[i]->nmetrics; m++) {
			const struct metric *mt = &g[i]->metrics[m];
			size_t c;

			for (c = 0; c < ncol && strcmp(cols[c].name, mt->name); c++)
				;
			if (c < ncol) {
				/*
				 * One name, another label (disk -tT's "read": a memory
				 * copy in one step, the device in the other): no step's
				 * label may stand for the row.
				 */
				if (!cols[c].mixed && strcmp(label_of(cols[c].m), label_of(mt))) {
					struct metric key = { .name = mt->name };

					cols[c].mixed = true;
					metric_label(cols[c].label, sizeof(cols[c].label), &key);
				}
				continue;
			}
			if (ncol == maxcol) {
				/* Counted once per name: the first step that has it. */
				bool seen = false;

				for (size_t j = 0; j < i && !seen; j++)
					seen = result_find_metric(g[j], mt->name) != NULL;
				nmore += !seen;
				continue;
			}
			cols[ncol].name = mt->name;
			cols[ncol].m = mt;
			metric_label(cols[ncol].label, sizeof(cols[ncol].label), mt);
			ncol++;
		}
	}
	s = xasprintf("%s: %zu steps", g[0]->bench, n);
	if (same_reps && g[0]->reps > 1) {
		char *u = xasprintf("%s, medians of %u repetitions (--json has their intervals)", s, g[0]->reps);

		free(s);
		s = u;
	}
	wrap(f, 0, 4, s);
	free(s);
	if (t->details) {
		printed = false;
		for (size_t k = 0; k < g[0]->nparams; k++)
			if (common_kv(g, n, &g[0]->params[k], false)) {
				kv_line(f, printed ? "" : "parameters", &g[0]->params[k]);
				printed = true;
			}
		printed = false;
		for (size_t k = 0; k < g[0]->nmethod; k++)
			if (common_kv(g, n, &g[0]->method[k], true)) {
				kv_line(f, printed ? "" : "method", &g[0]->method[k]);
				printed = true;
			}
	} else {
		limits_block(t, g, n);
	}
	total = 2 + stepw;
	for (size_t c = 0; c < ncol; c++) {
		col_width(&cols[c], g, n);
		total += 2 + cols[c].w;
	}
	/* A few steps read best side by side, a column each, under the metrics' labels. */
	if (nok == n) {
		/* A row per metric: the label column, then a column per step as wide as its name. */
		size_t lw = 6, pw, *sw = xcalloc(n, sizeof(*sw));

		for (size_t c = 0; c < ncol; c++)
			lw = strlen(cols[c].label) > lw ? strlen(cols[c].label) : lw;
		lw = lw > LABEL_MAX ? LABEL_MAX : lw;
		pw = 2 + lw;
		for (size_t i = 0; i < n; i++) {
			sw[i] = strlen(g[i]->step);
			for (size_t c = 0; c < ncol; c++) {
				const struct metric *mt = result_find_metric(g[i], cols[c].name);
				char v[64];

				if (!mt)
					continue;
				render_metric(v, sizeof(v), g[i], mt, mt->value);
				sw[i] = strlen(v) > sw[i] ? strlen(v) : sw[i];
			}
			pw += 2 + sw[i];
		}
		if (pw <= TEXT_WIDTH) {
			pivot_table(f, g, n, cols, ncol, lw, sw);
			total = 0;
		}
		free(sw);
	}
	if (total) {
		for (size_t from = 0, to; from < ncol; from = to) {
			size_t w = 2 + stepw;

			for (to = from; to < ncol && (to == from || w + 2 + cols[to].w <= TEXT_WIDTH); to++)
				w += 2 + cols[to].w;
			rows_table(f, g, n, cols, from, to, stepw);
			if (!t->details && to < ncol) {
				nmore += ncol - to;
				break;
			}
		}
	}
	if (nmore) {
		s = xasprintf("(%zu more figure%s of each step: %s)", nmore, nmore > 1 ? "s" : "",
			      t->details ? "--json" : "--details or --json");
		fputs("  ", f);
		wrap(f, 2, 3, s);
		free(s);
	}
	/* A row whose steps label it differently: each step's label, so the method stays with its number. */
	printed = false;
	for (size_t c = 0; c < ncol; c++) {
		size_t off;

		if (!cols[c].mixed)
			continue;
		s = xasprintf("%s:", cols[c].label);
		for (size_t i = 0; i < n; i++) {
			const struct metric *mt = result_find_metric(g[i], cols[c].name);
			char *u;

			if (!mt)
				continue;
			off = strlen(s);
			u = xasprintf("%s%s %s: %s", s, off > strlen(cols[c].label) + 1 ? ";" : "", g[i]->step,
				      label_of(mt));
			free(s);
			s = u;
		}
		tagged(f, printed ? "" : "labels", 0, s);
		printed = true;
		free(s);
	}
	for (size_t i = 0; i < n; i++)
		if (g[i]->incomplete) {
			s = xasprintf("%s: incomplete: stopped early, figures cover what ran", g[i]->step);
			tagged(f, "", 0, s);
			free(s);
		}
	if (t->details) {
		/* Each column's key in the JSON document. */
		for (size_t c = 0; c < ncol; c++) {
			s = xasprintf("%s: %s", cols[c].label, cols[c].name);
			tagged(f, c ? "" : "json keys", 0, s);
			free(s);
		}
	}
	free(cols);
	if (!t->details && n > GRID_VERDICTS_MAX)
		grid_verdicts_grouped(f, g, n);
	else
		for (size_t i = 0, shown = 0; i < n; i++) {
			/* A failed step's row says why; it measured nothing to judge. */
			if (!g[i]->verdict.resource[0] || g[i]->status == RESULT_FAILED)
				continue;
			if (!shown)
				fputc('\n', f);
			grid_verdict(f, g[i], shown);
			shown = 1;
		}
	if (t->details) {
		/* Heat by step, where the box has sensors or counters (else the run says so once). */
		printed = false;
		for (size_t i = 0; i < n; i++) {
			if (!g[i]->have_view || heat_unseen(&g[i]->view) || g[i]->view.temp_sensors < 0)
				continue;
			fprintf(f, "%s  %-10s  %s:\n", printed ? "" : "\n", printed ? "" : "heat", g[i]->step);
			heat_lines(f, &g[i]->view);
			printed = true;
		}
	}
	notes_block(t, g, n);
}

void render_text(FILE *f, const struct run *run, unsigned flags)
{
	struct text t = { .f = f, .details = flags & RENDER_DETAILS };
	bool no_heat = false;

	/* The whole box description only where it is the point (engpass info). */
	if (run->info && !run->nresults)
		info_render_table(f, run->info);
	for (size_t i = 0; i < run->nresults;) {
		size_t j = i + 1;

		while (j < run->nresults && !strcmp(run->results[j]->bench, run->results[i]->bench))
			j++;
		if (i)
			fputc('\n', f);
		if (j - i > 1)
			grid_block(&t, (const struct result *const *)&run->results[i], j - i);
		else
			result_block(&t, run->results[i]);
		i = j;
	}
	for (size_t i = 0; i < run->nresults && !no_heat; i++)
		no_heat = run->results[i]->have_view && heat_unseen(&run->results[i]->view);
	/* Once per run, not per step: it is a fact about the box. */
	if (no_heat && t.details)
		fprintf(f, "\n%-12s  no temperature sensors or CPU throttle counters on this box\n", "heat");
	free(t.said);
}

void render_table(FILE *f, const struct run *run)
{
	render_text(f, run, 0);
}
