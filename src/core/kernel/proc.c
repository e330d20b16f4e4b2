/* SPDX-License-Identifier: MIT */
/*
 * Parsers for /proc text and the delta maths between snapshots; see proc.h
 * for the rules every parser follows. The parsers walk the buffer once with
 * small hand-written tokenisers instead of sscanf/strtoull: those accept
 * signs, leading blanks and locale-dependent decimals, and would read the
 * front of a cut line as a valid number. Here a field is digits followed by
 * a blank or the end of its line, or the whole line is rejected.
 */
#include "proc.h"

#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/units.h"
#include "lib/xalloc.h"

/* ------------------------------------------------------------------ */
/* Tokenisers */

/*
 * The next complete line of [*pos, end) as [*ls, *le), without its '\n'.
 * Returns false at the end. A final fragment without '\n' is a cut line:
 * it is counted in *bad and not returned.
 */
static bool next_line(const char **pos, const char *end, const char **ls, const char **le, unsigned *bad)
{
	const char *p = *pos;
	const char *nl;

	if (p >= end)
		return false;
	nl = memchr(p, '\n', (size_t)(end - p));
	if (!nl) {
		(*bad)++;
		*pos = end;
		return false;
	}
	*ls = p;
	*le = nl;
	*pos = nl + 1;
	return true;
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static void skip_blanks(const char **p, const char *end)
{
	while (*p < end && is_blank(**p))
		(*p)++;
}

/*
 * Parse an unsigned decimal field after optional blanks. Returns 1 with *v
 * set, 0 at the end of the line, -1 if the field is not all digits, does
 * not end in a blank or the line end, or overflows 64 bits.
 */
static int field_u64(const char **pp, const char *end, uint64_t *v)
{
	const char *p = *pp;
	uint64_t x = 0;

	skip_blanks(&p, end);
	if (p == end) {
		*pp = p;
		return 0;
	}
	if (!is_digit(*p))
		return -1;
	while (p < end && is_digit(*p)) {
		unsigned d = (unsigned)(*p - '0');

		if (x > (UINT64_MAX - d) / 10)
			return -1;
		x = x * 10 + d;
		p++;
	}
	if (p < end && !is_blank(*p))
		return -1;
	*v = x;
	*pp = p;
	return 1;
}

/* Parse a whole token [s, e) as a signed decimal in [min, max]. Returns 0 or -1. */
static int token_i64(const char *s, const char *e, int64_t min, int64_t max, int64_t *v)
{
	bool neg = false;
	uint64_t x = 0;
	uint64_t lim;

	if (s < e && *s == '-') {
		neg = true;
		s++;
	}
	if (s == e)
		return -1;
	lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
	for (; s < e; s++) {
		unsigned d;

		if (!is_digit(*s))
			return -1;
		d = (unsigned)(*s - '0');
		if (x > (lim - d) / 10)
			return -1;
		x = x * 10 + d;
	}
	if (neg) {
		int64_t r = x == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)x;

		if (r < min)
			return -1;
		*v = r;
	} else {
		if ((int64_t)x > max)
			return -1;
		*v = (int64_t)x;
	}
	return 0;
}

/* Parse a whole token [s, e) as an unsigned decimal. Returns 0 or -1. */
static int token_u64(const char *s, const char *e, uint64_t *v)
{
	const char *p = s;
	uint64_t x;

	if (field_u64(&p, e, &x) != 1 || p != e || is_blank(*s))
		return -1;
	*v = x;
	return 0;
}

/*
 * Parse a non-negative decimal such as "3.62" or "12" (PSI averages) as a
 * token [s, e), without strtod's locale dependence. Returns 0 or -1.
 */
static int token_decimal(const char *s, const char *e, double *v)
{
	double x = 0, scale = 1;
	bool any = false;

	for (; s < e && is_digit(*s); s++, any = true)
		x = x * 10 + (*s - '0');
	if (s < e && *s == '.') {
		for (s++; s < e && is_digit(*s); s++, any = true) {
			scale /= 10;
			x += (*s - '0') * scale;
		}
	}
	if (!any || s != e)
		return -1;
	*v = x;
	return 0;
}

/* The next blank-separated word [*ws, *we) of the line. Returns false if none. */
static bool field_word(const char **pp, const char *end, const char **ws, const char **we)
{
	const char *p = *pp;

	skip_blanks(&p, end);
	if (p == end)
		return false;
	*ws = p;
	while (p < end && !is_blank(*p))
		p++;
	*we = p;
	*pp = p;
	return true;
}

/* Does [s, e) equal the NUL-terminated word w? */
static bool word_is(const char *s, const char *e, const char *w)
{
	size_t n = strlen(w);

	return (size_t)(e - s) == n && !memcmp(s, w, n);
}

/* Does the line [s, e) start with prefix? */
static bool starts_with(const char *s, const char *e, const char *prefix)
{
	size_t n = strlen(prefix);

	return (size_t)(e - s) >= n && !memcmp(s, prefix, n);
}

/* Copy [s, e) into a name buffer of PROC_NAME_MAX. Returns -1 if it does not fit or is empty. */
static int copy_name(char *dst, const char *s, const char *e)
{
	size_t n = (size_t)(e - s);

	if (n == 0 || n >= PROC_NAME_MAX)
		return -1;
	memcpy(dst, s, n);
	dst[n] = '\0';
	return 0;
}

/* Grow an array of elements of size sz so that it holds at least need. */
static void *grow(void *p, size_t *cap, size_t need, size_t sz)
{
	size_t c = *cap ? *cap : 8;

	if (need <= *cap)
		return p;
	while (c < need)
		c *= 2;
	*cap = c;
	return xrealloc(p, c * sz);
}

/* ------------------------------------------------------------------ */
/* Reading */

int proc_buf_pread(struct proc_buf *b, int fd)
{
	size_t len = 0;

	b->len = 0;
	if (!b->cap) {
		b->cap = 4096;
		b->data = xmalloc(b->cap);
	}
	for (;;) {
		ssize_t n;
		size_t want;

		if (b->cap - 1 - len == 0) {
			if (b->cap >= PROC_BUF_MAX) {
				b->data[0] = '\0';
				return -EFBIG;
			}
			b->cap *= 2;
			b->data = xrealloc(b->data, b->cap);
		}
		want = b->cap - 1 - len;
		n = pread(fd, b->data + len, want, (off_t)len);
		if (n < 0) {
			int err = errno;

			if (err == EINTR)
				continue;
			b->data[0] = '\0';
			return -err;
		}
		len += (size_t)n;
		if ((size_t)n < want)
			break;
	}
	b->data[len] = '\0';
	b->len = len;
	return 0;
}

int proc_path(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int proc_read_line(const char *path, char *buf, size_t len)
{
	ssize_t r;
	size_t n, start = 0;
	int fd;

	if (!len)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	do
		r = read(fd, buf, len - 1);
	while (r < 0 && errno == EINTR);
	if (r < 0) {
		int e = -errno;

		close(fd);
		return e;
	}
	close(fd);
	buf[r] = '\0';
	n = strcspn(buf, "\n");
	buf[n] = '\0';
	while (n && (buf[n - 1] == ' ' || buf[n - 1] == '\t' || buf[n - 1] == '\r'))
		buf[--n] = '\0';
	while (buf[start] == ' ' || buf[start] == '\t')
		start++;
	if (start)
		memmove(buf, buf + start, n - start + 1);
	return 0;
}

int proc_buf_read_file(struct proc_buf *b, const char *path)
{
	int fd, ret;

	b->len = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = proc_buf_pread(b, fd);
	close(fd);
	return ret;
}

void proc_buf_release(struct proc_buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = 0;
	b->cap = 0;
}

/* ------------------------------------------------------------------ */
/* /proc/stat */

void proc_stat_init(struct proc_stat *st)
{
	memset(st, 0, sizeof(*st));
	st->all.cpu = -1;
	st->ctxt = st->procs_running = st->procs_blocked = PROC_NONE;
}

void proc_stat_release(struct proc_stat *st)
{
	free(st->cpu);
	proc_stat_init(st);
}

/* Parse the counters of a cpu line after its name. Returns 0 or -1. */
static int parse_cpu_fields(const char *p, const char *le, struct proc_cpu_times *c)
{
	unsigned n = 0;
	uint64_t v;
	int r = 0;

	memset(c->t, 0, sizeof(c->t));
	while (n < PROC_CPU_NFIELDS && (r = field_u64(&p, le, &v)) == 1)
		c->t[n++] = v;
	if (n < PROC_CPU_NFIELDS && r < 0)
		return -1;
	/* Further columns a newer kernel may add are not read. */
	if (n < PROC_CPU_MIN_FIELDS)
		return -1;
	c->nfields = n;
	return 0;
}

/* "name value" lines such as ctxt and procs_running: one number, nothing else. */
static int parse_kv_line(const char *p, const char *le, uint64_t *out)
{
	uint64_t v, extra;

	if (field_u64(&p, le, &v) != 1 || field_u64(&p, le, &extra) != 0)
		return -1;
	*out = v;
	return 0;
}

static int cmp_cpu(const void *a, const void *b)
{
	const struct proc_cpu_times *x = a, *y = b;

	return (x->cpu > y->cpu) - (x->cpu < y->cpu);
}

int proc_stat_parse(struct proc_stat *st, const char *buf, size_t len)
{
	const char *pos = buf, *end = buf + len, *ls, *le;
	bool have_all = false, sorted = true;
	size_t i, j;

	st->ncpu = 0;
	st->bad_lines = 0;
	st->all.cpu = -1;
	st->all.nfields = 0;
	st->ctxt = st->procs_running = st->procs_blocked = PROC_NONE;
	if (len == 0)
		return -ENODATA;

	while (next_line(&pos, end, &ls, &le, &st->bad_lines)) {
		if (starts_with(ls, le, "cpu")) {
			const char *p = ls + 3;
			struct proc_cpu_times c;

			if (p < le && is_blank(*p)) {
				if (have_all || parse_cpu_fields(p, le, &st->all)) {
					st->bad_lines++;
					continue;
				}
				have_all = true;
				continue;
			}
			{
				uint64_t num;
				const char *q = p;

				if (field_u64(&q, le, &num) != 1 || q == p || num > INT_MAX ||
				    parse_cpu_fields(q, le, &c)) {
					st->bad_lines++;
					continue;
				}
				c.cpu = (int)num;
			}
			st->cpu = grow(st->cpu, &st->cpu_cap, st->ncpu + 1, sizeof(*st->cpu));
			if (st->ncpu && st->cpu[st->ncpu - 1].cpu >= c.cpu)
				sorted = false;
			st->cpu[st->ncpu++] = c;
		} else if (starts_with(ls, le, "ctxt ")) {
			if (parse_kv_line(ls + 5, le, &st->ctxt))
				st->bad_lines++;
		} else if (starts_with(ls, le, "procs_running ")) {
			if (parse_kv_line(ls + 14, le, &st->procs_running))
				st->bad_lines++;
		} else if (starts_with(ls, le, "procs_blocked ")) {
			if (parse_kv_line(ls + 14, le, &st->procs_blocked))
				st->bad_lines++;
		}
	}

	if (!sorted) {
		qsort(st->cpu, st->ncpu, sizeof(*st->cpu), cmp_cpu);
		for (i = j = 0; i < st->ncpu; i++) {
			if (j && st->cpu[j - 1].cpu == st->cpu[i].cpu) {
				st->bad_lines++;
				continue;
			}
			st->cpu[j++] = st->cpu[i];
		}
		st->ncpu = j;
	}
	if (!have_all) {
		st->all.nfields = 0;
		return -EINVAL;
	}
	return 0;
}

const struct proc_cpu_times *proc_stat_find_cpu(const struct proc_stat *st, int cpu)
{
	size_t lo = 0, hi = st->ncpu;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (st->cpu[mid].cpu == cpu)
			return &st->cpu[mid];
		if (st->cpu[mid].cpu < cpu)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static void cpu_pct_nan(struct proc_cpu_pct *o)
{
	memset(o, 0, sizeof(*o));
	o->busy = o->user = o->nice = o->system = o->idle = NAN;
	o->iowait = o->irq = o->softirq = o->steal = o->guest = NAN;
}

int proc_cpu_delta(const struct proc_cpu_times *a, const struct proc_cpu_times *b, struct proc_cpu_pct *out)
{
	uint64_t d[PROC_CPU_NFIELDS];
	uint64_t total = 0;
	double t;

	cpu_pct_nan(out);
	if (a->cpu != b->cpu || !a->nfields || !b->nfields)
		return -EINVAL;
	for (int i = 0; i < PROC_CPU_NFIELDS; i++) {
		if (b->t[i] < a->t[i])
			return -ERANGE;
		d[i] = b->t[i] - a->t[i];
	}
	/*
	 * guest and guest_nice are already inside user and nice. Ticks that
	 * add up past 2^64 in one interval come from no real CPU: no data,
	 * rather than a wrapped total and percentages past 100.
	 */
	for (int i = PROC_CPU_USER; i <= PROC_CPU_STEAL; i++) {
		if (d[i] > UINT64_MAX - total)
			return -ERANGE;
		total += d[i];
	}
	if (!total)
		return -ENODATA;

	t = (double)total;
	out->total_ticks = total;
	out->busy_ticks = total - d[PROC_CPU_IDLE] - d[PROC_CPU_IOWAIT];
	out->iowait_ticks = d[PROC_CPU_IOWAIT];
	out->softirq_ticks = d[PROC_CPU_SOFTIRQ];
	out->steal_ticks = d[PROC_CPU_STEAL];
	out->busy = 100.0 * (double)out->busy_ticks / t;
	out->user = 100.0 * (double)d[PROC_CPU_USER] / t;
	out->nice = 100.0 * (double)d[PROC_CPU_NICE] / t;
	out->system = 100.0 * (double)d[PROC_CPU_SYSTEM] / t;
	out->idle = 100.0 * (double)d[PROC_CPU_IDLE] / t;
	out->iowait = 100.0 * (double)d[PROC_CPU_IOWAIT] / t;
	out->irq = 100.0 * (double)d[PROC_CPU_IRQ] / t;
	out->softirq = 100.0 * (double)d[PROC_CPU_SOFTIRQ] / t;
	out->steal = 100.0 * (double)d[PROC_CPU_STEAL] / t;
	out->guest = 100.0 * (double)(d[PROC_CPU_GUEST] + d[PROC_CPU_GUEST_NICE]) / t;
	return 0;
}

/* ------------------------------------------------------------------ */
/* /proc/diskstats */

void proc_diskstats_init(struct proc_diskstats *ds)
{
	memset(ds, 0, sizeof(*ds));
}

void proc_diskstats_release(struct proc_diskstats *ds)
{
	free(ds->disk);
	proc_diskstats_init(ds);
}

/* Number of blank-separated words left in [p, end). */
static unsigned count_words(const char *p, const char *end)
{
	const char *ws, *we;
	unsigned n = 0;

	while (field_word(&p, end, &ws, &we))
		n++;
	return n;
}

static int parse_disk_line(const char *p, const char *le, struct proc_disk *d)
{
	uint64_t v[17], maj, min;
	const char *ws, *we;
	unsigned n = 0;
	int r = 0;

	if (field_u64(&p, le, &maj) != 1 || field_u64(&p, le, &min) != 1 || maj > UINT_MAX || min > UINT_MAX)
		return -1;
	if (!field_word(&p, le, &ws, &we) || copy_name(d->name, ws, we))
		return -1;
	while (n < 17 && (r = field_u64(&p, le, &v[n])) == 1)
		n++;
	if (r < 0 || n < 11)
		return -1;
	d->major = (unsigned)maj;
	d->minor = (unsigned)min;
	d->nfields = n == 17 ? 17 + count_words(p, le) : n;
	d->rd_ios = v[0];
	d->rd_merges = v[1];
	d->rd_sectors = v[2];
	d->rd_ms = v[3];
	d->wr_ios = v[4];
	d->wr_merges = v[5];
	d->wr_sectors = v[6];
	d->wr_ms = v[7];
	d->in_flight = v[8];
	d->io_ticks_ms = v[9];
	d->weighted_ms = v[10];
	d->dc_ios = n >= 15 ? v[11] : PROC_NONE;
	d->dc_merges = n >= 15 ? v[12] : PROC_NONE;
	d->dc_sectors = n >= 15 ? v[13] : PROC_NONE;
	d->dc_ms = n >= 15 ? v[14] : PROC_NONE;
	d->fl_ios = n >= 17 ? v[15] : PROC_NONE;
	d->fl_ms = n >= 17 ? v[16] : PROC_NONE;
	return 0;
}

int proc_diskstats_parse(struct proc_diskstats *ds, const char *buf, size_t len)
{
	const char *pos = buf, *end = buf + len, *ls, *le;

	ds->n = 0;
	ds->bad_lines = 0;
	if (len == 0)
		return -ENODATA;
	while (next_line(&pos, end, &ls, &le, &ds->bad_lines)) {
		struct proc_disk d;

		if (parse_disk_line(ls, le, &d)) {
			ds->bad_lines++;
			continue;
		}
		ds->disk = grow(ds->disk, &ds->cap, ds->n + 1, sizeof(*ds->disk));
		ds->disk[ds->n++] = d;
	}
	return 0;
}

const struct proc_disk *proc_diskstats_find(const struct proc_diskstats *ds, unsigned major, unsigned minor,
					    size_t hint)
{
	if (hint < ds->n && ds->disk[hint].major == major && ds->disk[hint].minor == minor)
		return &ds->disk[hint];
	for (size_t i = 0; i < ds->n; i++)
		if (ds->disk[i].major == major && ds->disk[i].minor == minor)
			return &ds->disk[i];
	return NULL;
}

static void disk_rates_nan(struct proc_disk_rates *o)
{
	memset(o, 0, sizeof(*o));
	o->r_per_s = o->w_per_s = o->rmerge_per_s = o->wmerge_per_s = NAN;
	o->rbytes_per_s = o->wbytes_per_s = o->avg_rq_bytes = NAN;
	o->avg_rd_rq_bytes = o->avg_wr_rq_bytes = o->util_pct = NAN;
	o->r_await_ms = o->w_await_ms = o->await_ms = o->aqu_sz = NAN;
}

/*
 * b - a into *d; false if the counter went backwards (a reset). A 32-bit
 * kernel prints unsigned long counters in /proc/diskstats (and older
 * drivers' in /proc/net/dev) that wrap at 2^32: a value that fits in 32 bits
 * and comes back smaller by less than half that range has wrapped once.
 */
static bool sub(uint64_t a, uint64_t b, uint64_t *d)
{
	const uint64_t wrap = 1ULL << 32;

	if (b >= a)
		*d = b - a;
	else if (a < wrap && wrap - a + b < wrap / 2)
		*d = wrap - a + b;
	else
		return false;
	return true;
}

/* x / y, or NaN when y is 0. */
static double ratio(double x, double y)
{
	return y != 0 ? x / y : NAN;
}

int proc_disk_delta(const struct proc_disk *a, const struct proc_disk *b, double interval_s,
		    struct proc_disk_rates *out)
{
	uint64_t rm, wm, wt;
	double ms;

	disk_rates_nan(out);
	if (!(interval_s > 0) || a->major != b->major || a->minor != b->minor || strcmp(a->name, b->name))
		return -EINVAL;
	if (!sub(a->rd_ios, b->rd_ios, &out->d_rd_ios) || !sub(a->wr_ios, b->wr_ios, &out->d_wr_ios) ||
	    !sub(a->rd_sectors, b->rd_sectors, &out->d_rd_sectors) ||
	    !sub(a->wr_sectors, b->wr_sectors, &out->d_wr_sectors) || !sub(a->rd_merges, b->rd_merges, &rm) ||
	    !sub(a->wr_merges, b->wr_merges, &wm) || !sub(a->rd_ms, b->rd_ms, &out->d_rd_ms) ||
	    !sub(a->wr_ms, b->wr_ms, &out->d_wr_ms) || !sub(a->io_ticks_ms, b->io_ticks_ms, &out->d_io_ticks_ms) ||
	    !sub(a->weighted_ms, b->weighted_ms, &wt)) {
		disk_rates_nan(out);
		return -ERANGE;
	}
	out->d_rd_merges = rm;
	out->d_wr_merges = wm;
	ms = interval_s * 1000.0;
	out->r_per_s = (double)out->d_rd_ios / interval_s;
	out->w_per_s = (double)out->d_wr_ios / interval_s;
	out->rmerge_per_s = (double)rm / interval_s;
	out->wmerge_per_s = (double)wm / interval_s;
	out->rbytes_per_s = (double)out->d_rd_sectors * PROC_SECTOR_BYTES / interval_s;
	out->wbytes_per_s = (double)out->d_wr_sectors * PROC_SECTOR_BYTES / interval_s;
	/* Sums in double: two deltas near 2^64 must not wrap to a small one. */
	out->avg_rq_bytes = ratio(((double)out->d_rd_sectors + (double)out->d_wr_sectors) * PROC_SECTOR_BYTES,
				  (double)out->d_rd_ios + (double)out->d_wr_ios);
	out->avg_rd_rq_bytes = ratio((double)out->d_rd_sectors * PROC_SECTOR_BYTES, (double)out->d_rd_ios);
	out->avg_wr_rq_bytes = ratio((double)out->d_wr_sectors * PROC_SECTOR_BYTES, (double)out->d_wr_ios);
	out->util_pct = 100.0 * (double)out->d_io_ticks_ms / ms;
	if (out->util_pct > 100.0)
		out->util_pct = 100.0;
	out->r_await_ms = ratio((double)out->d_rd_ms, (double)out->d_rd_ios);
	out->w_await_ms = ratio((double)out->d_wr_ms, (double)out->d_wr_ios);
	out->await_ms = ratio((double)out->d_rd_ms + (double)out->d_wr_ms,
			      (double)out->d_rd_ios + (double)out->d_wr_ios);
	out->aqu_sz = (double)wt / ms;
	return 0;
}

/* ------------------------------------------------------------------ */
/* "Name:   value kB" files: meminfo and PID status */

struct field {
	const char *name;
	size_t off;
};

/* Split "Name: rest" into name [*ns, *ne) and rest [*vs, le) with blanks skipped. */
static bool split_colon(const char *ls, const char *le, const char **ne, const char **vs)
{
	const char *c = memchr(ls, ':', (size_t)(le - ls));

	if (!c || c == ls)
		return false;
	*ne = c;
	*vs = c + 1;
	skip_blanks(vs, le);
	return true;
}

/* Parse "N kB" exactly, into bytes. Returns 0 or -1. */
static int kb_value(const char *p, const char *le, uint64_t *bytes)
{
	const char *ws, *we;
	uint64_t v;

	if (field_u64(&p, le, &v) != 1 || !field_word(&p, le, &ws, &we) || !word_is(ws, we, "kB") ||
	    field_word(&p, le, &ws, &we) || v > UINT64_MAX / 1024)
		return -1;
	*bytes = v * 1024;
	return 0;
}

static const struct field *find_field(const struct field *t, size_t n, const char *s, const char *e)
{
	for (size_t i = 0; i < n; i++)
		if (word_is(s, e, t[i].name))
			return &t[i];
	return NULL;
}

#define MI(n, f) { n, offsetof(struct proc_meminfo, f) }
static const struct field meminfo_fields[] = {
	MI("MemTotal", mem_total),	MI("MemFree", mem_free),	MI("MemAvailable", mem_available),
	MI("Buffers", buffers),		MI("Cached", cached),		MI("SwapCached", swap_cached),
	MI("Active", active),		MI("Inactive", inactive),	MI("SwapTotal", swap_total),
	MI("SwapFree", swap_free),	MI("Dirty", dirty),		MI("Writeback", writeback),
	MI("AnonPages", anon_pages),	MI("Mapped", mapped),		MI("Shmem", shmem),
	MI("Slab", slab),		MI("SReclaimable", sreclaimable), MI("CommitLimit", commit_limit),
	MI("Committed_AS", committed_as),
};
#undef MI

int proc_meminfo_parse(struct proc_meminfo *mi, const char *buf, size_t len)
{
	const char *pos = buf, *end = buf + len, *ls, *le;

	for (size_t i = 0; i < ARRAY_SIZE(meminfo_fields); i++)
		*(uint64_t *)((char *)mi + meminfo_fields[i].off) = PROC_NONE;
	mi->bad_lines = 0;
	if (len == 0)
		return -ENODATA;
	while (next_line(&pos, end, &ls, &le, &mi->bad_lines)) {
		const char *ne, *vs;
		const struct field *f;
		uint64_t v;

		if (!split_colon(ls, le, &ne, &vs)) {
			mi->bad_lines++;
			continue;
		}
		f = find_field(meminfo_fields, ARRAY_SIZE(meminfo_fields), ls, ne);
		if (!f)
			continue;
		if (kb_value(vs, le, &v)) {
			mi->bad_lines++;
			continue;
		}
		*(uint64_t *)((char *)mi + f->off) = v;
	}
	return mi->mem_total == PROC_NONE ? -EINVAL : 0;
}

/* ------------------------------------------------------------------ */
/* /proc/vmstat */

#define VM(f) { #f, offsetof(struct proc_vmstat, f) }
static const struct field vmstat_fields[] = {
	VM(pgpgin), VM(pgpgout), VM(pswpin), VM(pswpout), VM(pgfault), VM(pgmajfault),
};
#undef VM

int proc_vmstat_parse(struct proc_vmstat *vm, const char *buf, size_t len)
{
	const char *pos = buf, *end = buf + len, *ls, *le;
	size_t found = 0;

	for (size_t i = 0; i < ARRAY_SIZE(vmstat_fields); i++)
		*(uint64_t *)((char *)vm + vmstat_fields[i].off) = PROC_NONE;
	vm->bad_lines = 0;
	if (len == 0)
		return -ENODATA;
	/* Stop once all are found: the other ~190 lines are of no use here. */
	while (found < ARRAY_SIZE(vmstat_fields) && next_line(&pos, end, &ls, &le, &vm->bad_lines)) {
		const char *p = ls, *ws, *we;
		const struct field *f;
		uint64_t v, *slot;

		if (!field_word(&p, le, &ws, &we))
			continue;
		f = find_field(vmstat_fields, ARRAY_SIZE(vmstat_fields), ws, we);
		if (!f)
			continue;
		if (parse_kv_line(p, le, &v)) {
			vm->bad_lines++;
			continue;
		}
		slot = (uint64_t *)((char *)vm + f->off);
		if (*slot == PROC_NONE)
			found++;
		*slot = v;
	}
	return found ? 0 : -EINVAL;
}

int proc_vmstat_delta(const struct proc_vmstat *a, const struct proc_vmstat *b, double interval_s,
		      struct proc_vm_rates *out)
{
	const uint64_t av[] = { a->pgpgin, a->pgpgout, a->pswpin, a->pswpout, a->pgfault, a->pgmajfault };
	const uint64_t bv[] = { b->pgpgin, b->pgpgout, b->pswpin, b->pswpout, b->pgfault, b->pgmajfault };
	double r[ARRAY_SIZE(av)];
	int ret = 0;

	for (size_t i = 0; i < ARRAY_SIZE(av); i++) {
		r[i] = NAN;
		if (!(interval_s > 0) || av[i] == PROC_NONE || bv[i] == PROC_NONE)
			continue;
		if (bv[i] < av[i]) {
			ret = -ERANGE;
			continue;
		}
		r[i] = (double)(bv[i] - av[i]) / interval_s;
	}
	out->pgpgin = r[0];
	out->pgpgout = r[1];
	out->pswpin = r[2];
	out->pswpout = r[3];
	out->pgfault = r[4];
	out->pgmajfault = r[5];
	if (!(interval_s > 0))
		return -EINVAL;
	return ret;
}

/* ------------------------------------------------------------------ */
/* /proc/pressure */

static int parse_psi_line(const char *p, const char *le, struct proc_psi_line *l)
{
	static const char *const keys[] = { "avg10=", "avg60=", "avg300=", "total=" };
	const char *ws, *we;
	double avg[3];

	for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
		size_t kl = strlen(keys[i]);

		if (!field_word(&p, le, &ws, &we) || !starts_with(ws, we, keys[i]))
			return -1;
		if (i < 3) {
			if (token_decimal(ws + kl, we, &avg[i]))
				return -1;
		} else if (token_u64(ws + kl, we, &l->total_us)) {
			return -1;
		}
	}
	l->avg10 = avg[0];
	l->avg60 = avg[1];
	l->avg300 = avg[2];
	l->valid = true;
	return 0;
}

int proc_psi_parse(struct proc_psi *p, const char *buf, size_t len)
{
	const char *pos = buf, *end = buf + len, *ls, *le;

	memset(p, 0, sizeof(*p));
	if (len == 0)
		return -ENODATA;
	while (next_line(&pos, end, &ls, &le, &p->bad_lines)) {
		struct proc_psi_line *l;
		struct proc_psi_line tmp = { 0 };

		if (starts_with(ls, le, "some "))
			l = &p->some;
		else if (starts_with(ls, le, "full "))
			l = &p->full;
		else {
			p->bad_lines++;
			continue;
		}
		if (l->valid || parse_psi_line(ls + 5, le, &tmp)) {
			p->bad_lines++;
			continue;
		}
		*l = tmp;
	}
	return p->some.valid ? 0 : -EINVAL;
}

int proc_psi_delta(const struct proc_psi_line *a, const struct proc_psi_line *b, double interval_s, double *pct)
{
	double v;

	*pct = NAN;
	if (!a->valid || !b->valid || !(interval_s > 0))
		return -EINVAL;
	if (b->total_us < a->total_us)
		return -ERANGE;
	v = 100.0 * (double)(b->total_us - a->total_us) / (interval_s * 1e6);
	*pct = v > 100.0 ? 100.0 : v;
	return 0;
}

/* ------------------------------------------------------------------ */
/* /proc/net/dev */

void proc_netdev_init(struct proc_netdev *nd)
{
	memset(nd, 0, sizeof(*nd));
}

void proc_netdev_release(struct proc_netdev *nd)
{
	free(nd->iface);
	proc_netdev_init(nd);
}

static int parse_netif_line(const char *ls, const char *le, struct proc_netif *f)
{
	const char *c = memchr(ls, ':', (size_t)(le - ls));
	const char *ns = ls, *ne, *p;
	uint64_t v[16];
	int r = 0;
	unsigned n = 0;

	skip_blanks(&ns, c);
	ne = c;
	while (ne > ns && is_blank(ne[-1]))
		ne--;
	for (p = ns; p < ne; p++)
		if (is_blank(*p))
			return -1;
	if (copy_name(f->name, ns, ne))
		return -1;
	p = c + 1;
	while (n < 16 && (r = field_u64(&p, le, &v[n])) == 1)
		n++;
	if (r < 0 || n < 16)
		return -1;
	f->rx_bytes = v[0];
	f->rx_packets = v[1];
	f->rx_errs = v[2];
	f->rx_drop = v[3];
	f->tx_bytes = v[8];
	f->tx_packets = v[9];
	f->tx_errs = v[10];
	f->tx_drop = v[11];
	return 0;
}

int proc_netdev_parse(struct proc_netdev *nd, const char *buf, size_t len)
{
	const char *pos = buf, *end = buf + len, *ls, *le;

	nd->n = 0;
	nd->bad_lines = 0;
	if (len == 0)
		return -ENODATA;
	while (next_line(&pos, end, &ls, &le, &nd->bad_lines)) {
		struct proc_netif f;

		if (!memchr(ls, ':', (size_t)(le - ls)))
			continue;	/* the two header lines */
		if (parse_netif_line(ls, le, &f)) {
			nd->bad_lines++;
			continue;
		}
		nd->iface = grow(nd->iface, &nd->cap, nd->n + 1, sizeof(*nd->iface));
		nd->iface[nd->n++] = f;
	}
	return 0;
}

const struct proc_netif *proc_netdev_find(const struct proc_netdev *nd, const char *name, size_t hint)
{
	if (hint < nd->n && !strcmp(nd->iface[hint].name, name))
		return &nd->iface[hint];
	for (size_t i = 0; i < nd->n; i++)
		if (!strcmp(nd->iface[i].name, name))
			return &nd->iface[i];
	return NULL;
}

int proc_netif_delta(const struct proc_netif *a, const struct proc_netif *b, double interval_s,
		     struct proc_net_rates *out)
{
	uint64_t d[8];
	const uint64_t av[8] = { a->rx_bytes, a->tx_bytes, a->rx_packets, a->tx_packets,
				 a->rx_errs, a->tx_errs, a->rx_drop, a->tx_drop };
	const uint64_t bv[8] = { b->rx_bytes, b->tx_bytes, b->rx_packets, b->tx_packets,
				 b->rx_errs, b->tx_errs, b->rx_drop, b->tx_drop };

	memset(out, 0, sizeof(*out));
	out->rx_bytes_per_s = out->tx_bytes_per_s = out->rx_packets_per_s = out->tx_packets_per_s = NAN;
	out->rx_errs_per_s = out->tx_errs_per_s = out->rx_drop_per_s = out->tx_drop_per_s = NAN;
	if (!(interval_s > 0) || strcmp(a->name, b->name))
		return -EINVAL;
	for (int i = 0; i < 8; i++)
		if (!sub(av[i], bv[i], &d[i]))
			return -ERANGE;
	out->d_rx_bytes = d[0];
	out->d_tx_bytes = d[1];
	out->rx_bytes_per_s = (double)d[0] / interval_s;
	out->tx_bytes_per_s = (double)d[1] / interval_s;
	out->rx_packets_per_s = (double)d[2] / interval_s;
	out->tx_packets_per_s = (double)d[3] / interval_s;
	out->rx_errs_per_s = (double)d[4] / interval_s;
	out->tx_errs_per_s = (double)d[5] / interval_s;
	out->rx_drop_per_s = (double)d[6] / interval_s;
	out->tx_drop_per_s = (double)d[7] / interval_s;
	return 0;
}

/* ------------------------------------------------------------------ */
/* /proc/PID/stat */

/* proc(5) field numbers we read; fields 1 (pid), 2 (comm) and 3 (state) are read by hand. */
enum {
	PS_PPID = 4, PS_MINFLT = 10, PS_MAJFLT = 12, PS_UTIME = 14, PS_STIME = 15, PS_CUTIME = 16, PS_CSTIME = 17, PS_NUM_THREADS = 20,
	PS_STARTTIME = 22, PS_VSIZE = 23, PS_RSS = 24, PS_PROCESSOR = 39, PS_LAST = PS_PROCESSOR
};

int proc_pid_stat_parse(struct proc_pid_stat *ps, const char *buf, size_t len)
{
	const char *end, *lp, *rp, *p;
	const char *ts[PS_LAST + 1], *te[PS_LAST + 1];
	unsigned nf;
	int64_t pid, v;
	size_t n;

	memset(ps, 0, sizeof(*ps));
	ps->processor = -1;
	if (len == 0)
		return -ENODATA;
	if (buf[len - 1] != '\n')
		return -EINVAL;
	end = buf + len - 1;
	lp = memchr(buf, '(', len);
	rp = memrchr(buf, ')', len);
	if (!lp || !rp || rp < lp || lp < buf + 2 || lp[-1] != ' ')
		return -EINVAL;
	if (token_i64(buf, lp - 1, 1, INT_MAX, &pid))
		return -EINVAL;
	n = (size_t)(rp - lp - 1);
	if (n >= sizeof(ps->comm))
		n = sizeof(ps->comm) - 1;
	memcpy(ps->comm, lp + 1, n);
	ps->comm[n] = '\0';

	/* After ')': " S f4 f5 ...", single spaces, no empty fields. */
	p = rp + 1;
	for (nf = 3; p < end && nf <= PS_LAST; nf++) {
		if (*p != ' ')
			return -EINVAL;
		ts[nf] = ++p;
		while (p < end && *p != ' ')
			p++;
		te[nf] = p;
		if (te[nf] == ts[nf])
			return -EINVAL;
	}
	nf--;	/* last field number seen */
	if (nf < PS_RSS || te[3] - ts[3] != 1)
		return -EINVAL;
	ps->pid = (int)pid;
	ps->state = *ts[3];
	if (token_i64(ts[PS_PPID], te[PS_PPID], 0, INT_MAX, &v))
		return -EINVAL;
	ps->ppid = (int)v;
	if (token_u64(ts[PS_MINFLT], te[PS_MINFLT], &ps->minflt) ||
	    token_u64(ts[PS_MAJFLT], te[PS_MAJFLT], &ps->majflt) ||
	    token_u64(ts[PS_UTIME], te[PS_UTIME], &ps->utime) ||
	    token_u64(ts[PS_STIME], te[PS_STIME], &ps->stime) ||
	    token_u64(ts[PS_CUTIME], te[PS_CUTIME], &ps->cutime) ||
	    token_u64(ts[PS_CSTIME], te[PS_CSTIME], &ps->cstime) ||
	    token_i64(ts[PS_NUM_THREADS], te[PS_NUM_THREADS], 0, INT64_MAX, &ps->num_threads) ||
	    token_u64(ts[PS_STARTTIME], te[PS_STARTTIME], &ps->starttime) ||
	    token_u64(ts[PS_VSIZE], te[PS_VSIZE], &ps->vsize) || token_u64(ts[PS_RSS], te[PS_RSS], &ps->rss_pages))
		return -EINVAL;
	if (nf >= PS_PROCESSOR) {
		if (token_i64(ts[PS_PROCESSOR], te[PS_PROCESSOR], 0, INT_MAX, &v))
			return -EINVAL;
		ps->processor = (int)v;
	}
	return 0;
}

int proc_pid_cpu_pct(const struct proc_pid_stat *a, const struct proc_pid_stat *b, long clk_tck, double interval_s,
		     double *pct)
{
	*pct = NAN;
	if (clk_tck <= 0 || !(interval_s > 0))
		return -EINVAL;
	if (a->pid != b->pid || a->starttime != b->starttime)
		return -ESRCH;
	if (b->utime < a->utime || b->stime < a->stime)
		return -ERANGE;
	/* Each delta on its own: utime + stime may wrap where the deltas do not. */
	*pct = 100.0 * ((double)(b->utime - a->utime) + (double)(b->stime - a->stime)) / (double)clk_tck /
	       interval_s;
	return 0;
}

/* ------------------------------------------------------------------ */
/* /proc/self/mountinfo and /proc/self/mounts */

int proc_unescape(char *dst, size_t n, const char *s, const char *e)
{
	size_t o = 0;

	while (s < e) {
		char c = *s++;

		if (c == '\\' && e - s >= 3 && s[0] >= '0' && s[0] <= '3' && s[1] >= '0' && s[1] <= '7' &&
		    s[2] >= '0' && s[2] <= '7') {
			c = (char)((s[0] - '0') * 64 + (s[1] - '0') * 8 + (s[2] - '0'));
			s += 3;
		}
		if (!c)
			return -EINVAL;	/* a NUL, raw or "\000", would cut the string short */
		if (o + 1 >= n)
			return -ENAMETOOLONG;
		dst[o++] = c;
	}
	if (!n)
		return -ENAMETOOLONG;
	dst[o] = '\0';
	return 0;
}

/* "MAJ:MIN" as the token [s, e). Returns 0 or -1. */
static int parse_devnum(const char *s, const char *e, unsigned *major, unsigned *minor)
{
	const char *colon = memchr(s, ':', (size_t)(e - s));
	uint64_t ma, mi;

	if (!colon || token_u64(s, colon, &ma) || token_u64(colon + 1, e, &mi) || ma > UINT_MAX || mi > UINT_MAX)
		return -1;
	*major = (unsigned)ma;
	*minor = (unsigned)mi;
	return 0;
}

/* The fields of one mount line kept: mountinfo's 6 before the optional ones, "-", 3 after. */
#define MOUNT_FIELDS 10

static int parse_mount_line(struct proc_mount *m, enum proc_mount_format fmt, const char *p, const char *le)
{
	const char *fs[MOUNT_FIELDS], *fe[MOUNT_FIELDS];
	const char *type, *type_e, *src, *src_e, *sup = NULL, *sup_e = NULL;
	bool optional = fmt == PROC_MOUNTINFO;
	size_t n = 0, sep;

	/*
	 * mountinfo's optional fields (shared:N master:N ...) are skipped up
	 * to the lone "-"; fields beyond MOUNT_FIELDS are ignored.
	 */
	while (n < MOUNT_FIELDS && field_word(&p, le, &fs[n], &fe[n])) {
		if (optional && n == 6) {
			if (!word_is(fs[n], fe[n], "-"))
				continue;
			optional = false;
		}
		n++;
	}
	memset(m, 0, sizeof(*m));
	if (fmt == PROC_MOUNTS) {
		if (n < 4)
			return -1;
		type = fs[2], type_e = fe[2];
		src = fs[0], src_e = fe[0];
		if (proc_unescape(m->mount_point, sizeof(m->mount_point), fs[1], fe[1]) ||
		    proc_unescape(m->mount_opts, sizeof(m->mount_opts), fs[3], fe[3]))
			return -1;
	} else {
		sep = 6;
		if (n < 9 || !word_is(fs[sep], fe[sep], "-"))
			return -1;
		type = fs[sep + 1], type_e = fe[sep + 1];
		src = fs[sep + 2], src_e = fe[sep + 2];
		if (n > sep + 3)
			sup = fs[sep + 3], sup_e = fe[sep + 3];
		if (parse_devnum(fs[2], fe[2], &m->major, &m->minor) ||
		    proc_unescape(m->root, sizeof(m->root), fs[3], fe[3]) ||
		    proc_unescape(m->mount_point, sizeof(m->mount_point), fs[4], fe[4]) ||
		    proc_unescape(m->mount_opts, sizeof(m->mount_opts), fs[5], fe[5]) ||
		    (sup && proc_unescape(m->super_opts, sizeof(m->super_opts), sup, sup_e)))
			return -1;
	}
	if (proc_unescape(m->fs_type, sizeof(m->fs_type), type, type_e) ||
	    proc_unescape(m->source, sizeof(m->source), src, src_e))
		return -1;
	return 0;
}

int proc_mount_next(struct proc_mount *m, enum proc_mount_format fmt, const char **pos, const char *end,
		    unsigned *bad_lines)
{
	const char *ls, *le;

	while (next_line(pos, end, &ls, &le, bad_lines)) {
		if (ls == le)
			continue;
		if (!parse_mount_line(m, fmt, ls, le))
			return 1;
		(*bad_lines)++;
	}
	return 0;
}

bool proc_mount_has_opt(const char *opts, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = opts; *p; p++) {
		const char *e = strchr(p, ',');
		size_t len = e ? (size_t)(e - p) : strlen(p);

		if (len == n && !memcmp(p, name, n))
			return true;
		if (!e)
			break;
		p = e;
	}
	return false;
}

bool proc_mount_is_sync(const struct proc_mount *m)
{
	return proc_mount_has_opt(m->mount_opts, "sync") || proc_mount_has_opt(m->mount_opts, "dirsync") ||
	       proc_mount_has_opt(m->super_opts, "sync") || proc_mount_has_opt(m->super_opts, "dirsync");
}

/* ------------------------------------------------------------------ */
/* /proc/PID/status */

static int count_cpus(uint64_t lo, uint64_t hi, void *arg)
{
	uint64_t *count = arg;

	if (hi > INT_MAX)
		return -EINVAL;
	*count += hi - lo + 1;
	return *count > INT_MAX ? -EINVAL : 0;
}

int proc_cpulist_count(const char *s, size_t len)
{
	uint64_t count = 0;
	int r;

	if (len == 0)
		return 0;
	r = units_cpulist_walk(s, len, count_cpus, &count);
	return r < 0 ? r : (int)count;
}

int proc_pid_status_parse(struct proc_pid_status *st, const char *buf, size_t len)
{
	const char *pos = buf, *end = buf + len, *ls, *le;
	unsigned found = 0;

	memset(st, 0, sizeof(*st));
	st->vm_rss = st->vm_hwm = st->voluntary_ctxt = st->nonvoluntary_ctxt = PROC_NONE;
	st->threads = -1;
	st->cpus_allowed_count = -1;
	if (len == 0)
		return -ENODATA;
	while (next_line(&pos, end, &ls, &le, &st->bad_lines)) {
		const char *ne, *vs;
		uint64_t v;
		int bad = 0;

		if (!split_colon(ls, le, &ne, &vs)) {
			st->bad_lines++;
			continue;
		}
		if (word_is(ls, ne, "VmRSS")) {
			bad = kb_value(vs, le, &st->vm_rss);
		} else if (word_is(ls, ne, "VmHWM")) {
			bad = kb_value(vs, le, &st->vm_hwm);
		} else if (word_is(ls, ne, "Threads")) {
			bad = parse_kv_line(vs, le, &v) || v > INT64_MAX;
			if (!bad)
				st->threads = (int64_t)v;
		} else if (word_is(ls, ne, "voluntary_ctxt_switches")) {
			bad = parse_kv_line(vs, le, &st->voluntary_ctxt);
		} else if (word_is(ls, ne, "nonvoluntary_ctxt_switches")) {
			bad = parse_kv_line(vs, le, &st->nonvoluntary_ctxt);
		} else if (word_is(ls, ne, "Cpus_allowed_list")) {
			const char *ve = le;
			size_t n;

			while (ve > vs && is_blank(ve[-1]))
				ve--;
			st->cpus_allowed_count = proc_cpulist_count(vs, (size_t)(ve - vs));
			bad = st->cpus_allowed_count < 0;
			if (bad)
				st->cpus_allowed_count = -1;
			n = (size_t)(ve - vs);
			if (n >= sizeof(st->cpus_allowed_list))
				n = sizeof(st->cpus_allowed_list) - 1;
			memcpy(st->cpus_allowed_list, vs, n);
			st->cpus_allowed_list[n] = '\0';
		} else {
			continue;
		}
		if (bad)
			st->bad_lines++;
		else
			found++;
	}
	return found ? 0 : -EINVAL;
}

/* ------------------------------------------------------------------ */
/* /proc/PID/task/TID/schedstat */

int proc_schedstat_parse(const char *buf, size_t len, uint64_t *run_ns, uint64_t *wait_ns)
{
	const char *p = buf, *end;
	uint64_t run, wait, slices;

	*run_ns = *wait_ns = PROC_NONE;
	if (len == 0)
		return -ENODATA;
	if (buf[len - 1] != '\n')
		return -EINVAL;
	end = buf + len - 1;
	if (field_u64(&p, end, &run) != 1 || field_u64(&p, end, &wait) != 1 || field_u64(&p, end, &slices) != 1)
		return -EINVAL;
	skip_blanks(&p, end);
	if (p != end)
		return -EINVAL;
	*run_ns = run;
	*wait_ns = wait;
	return 0;
}

int proc_thread_schedstat(uint64_t *run_ns, uint64_t *wait_ns)
{
	char buf[128];
	ssize_t n;
	int fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC), e;

	*run_ns = *wait_ns = PROC_NONE;
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf));
	e = errno;
	close(fd);
	if (n < 0)
		return -e;
	return proc_schedstat_parse(buf, (size_t)n, run_ns, wait_ns);
}

/* ------------------------------------------------------------------ */
/* Single lines: sysfs dev numbers, "KEY: N kB" */

int proc_devnum_parse(const char *s, unsigned *maj, unsigned *min)
{
	const char *colon = strchr(s, ':'), *end = s + strlen(s);
	uint64_t a, b;

	if (!colon || token_u64(s, colon, &a) || token_u64(colon + 1, end, &b) || a > UINT_MAX || b > UINT_MAX)
		return -EINVAL;
	*maj = (unsigned)a;
	*min = (unsigned)b;
	return 0;
}

bool proc_kb_line(const char *line, const char *key, uint64_t *kb)
{
	size_t klen = strlen(key);
	const char *p, *end = line + strcspn(line, "\n");
	uint64_t v;

	if (strncmp(line, key, klen) || line[klen] != ':')
		return false;
	p = line + klen + 1;
	if (field_u64(&p, end, &v) != 1)
		return false;
	skip_blanks(&p, end);
	if (end - p != 2 || strncmp(p, "kB", 2))
		return false;
	*kb = v;
	return true;
}

/* ------------------------------------------------------------------ */
/* /proc/net/snmp */

/* Field NAME's value in a header/values line pair of /proc/net/snmp; 1 found, 0 not there, -1 bad. */
static int snmp_field(const char *hs, const char *he, const char *vs, const char *ve, const char *name,
		      uint64_t *v)
{
	const char *hw, *hwe, *vw, *vwe;

	for (;;) {
		bool have_h = field_word(&hs, he, &hw, &hwe);
		bool have_v = field_word(&vs, ve, &vw, &vwe);

		if (!have_h)
			return 0;
		if (!have_v)
			return -1;	/* fewer values than names */
		if (!word_is(hw, hwe, name))
			continue;
		/* The fields we read are unsigned counters; anything else is a bad line. */
		return token_u64(vw, vwe, v) ? -1 : 1;
	}
}

int proc_snmp_udp_parse(struct proc_snmp_udp *u, const char *buf, size_t len)
{
	const char *pos = buf, *end = buf + len, *ls, *le, *hs = NULL, *he = NULL;
	bool found = false;

	u->in_errors = u->rcvbuf_errors = PROC_NONE;
	u->bad_lines = 0;
	if (len == 0)
		return -ENODATA;
	while (next_line(&pos, end, &ls, &le, &u->bad_lines)) {
		if (!starts_with(ls, le, "Udp:"))
			continue;	/* UdpLite: and the other protocols */
		if (!hs) {
			hs = ls + 4;
			he = le;
			continue;
		}
		/* The values line, under the header line just seen. */
		{
			const char *vs = ls + 4;
			int a = snmp_field(hs, he, vs, le, "InErrors", &u->in_errors);
			int b = snmp_field(hs, he, vs, le, "RcvbufErrors", &u->rcvbuf_errors);

			if (a < 0 || b < 0) {
				u->in_errors = u->rcvbuf_errors = PROC_NONE;
				u->bad_lines++;
			} else {
				found = a > 0 || b > 0;
			}
		}
		break;
	}
	return found ? 0 : -EINVAL;
}

int proc_pid_io_parse(struct proc_pid_io *io, const char *buf, size_t len)
{
	const char *p = buf, *e = buf + len;

	io->read_bytes = io->write_bytes = io->cancelled_write_bytes = PROC_NONE;
	if (!len)
		return -ENODATA;
	while (p < e) {
		const char *nl = memchr(p, '\n', (size_t)(e - p)), *colon, *q;
		uint64_t v = 0, *dst = NULL;
		size_t n;

		if (!nl)
			nl = e;
		colon = memchr(p, ':', (size_t)(nl - p));
		if (colon) {
			n = (size_t)(colon - p);
			if (n == 10 && !memcmp(p, "read_bytes", n))
				dst = &io->read_bytes;
			else if (n == 11 && !memcmp(p, "write_bytes", n))
				dst = &io->write_bytes;
			else if (n == 21 && !memcmp(p, "cancelled_write_bytes", n))
				dst = &io->cancelled_write_bytes;
		}
		if (dst) {
			q = colon + 1;
			while (q < nl && *q == ' ')
				q++;
			if (q == nl)
				return -EINVAL;
			for (; q < nl; q++) {
				if (*q < '0' || *q > '9' || v > (UINT64_MAX - 9) / 10)
					return -EINVAL;
				v = v * 10 + (uint64_t)(*q - '0');
			}
			*dst = v;
		}
		p = nl + 1;
	}
	return io->read_bytes == PROC_NONE || io->write_bytes == PROC_NONE ? -EINVAL : 0;
}
