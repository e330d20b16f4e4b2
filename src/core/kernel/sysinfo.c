/* SPDX-License-Identifier: MIT */
/*
 * Collection of the box description; see sysinfo.h. Each section has one
 * collector that reads a handful of files below the proc or sys root and
 * leaves a field unknown when its file is missing or does not parse. The
 * parsing is strict (a number must be the whole file) so that a surprise
 * becomes "unknown" rather than a wrong value.
 */
#include "sysinfo.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "core/kernel/devlink.h"
#include "core/kernel/proc.h"
#include "lib/units.h"
#include "lib/xalloc.h"

/* Largest file we read whole (cpuinfo of a very large machine fits). */
/* cgroup v1 reports "no limit" as a huge page-rounded number. */
#define CG1_NO_LIMIT ((int64_t)1 << 62)

struct roots {
	const char *proc;
	const char *sys;
};

/* ---- file helpers ---------------------------------------------------- */

PRINTF_LIKE(4, 0)
static bool vjoin(char *out, size_t n, const char *root, const char *fmt, va_list ap)
{
	int a = snprintf(out, n, "%s/", root);
	int b;

	if (a < 0 || (size_t)a >= n)
		return false;
	b = vsnprintf(out + a, n - (size_t)a, fmt, ap);
	return b >= 0 && (size_t)b < n - (size_t)a;
}

PRINTF_LIKE(4, 5)
static bool join(char *out, size_t n, const char *root, const char *fmt, ...)
{
	va_list ap;
	bool ok;

	va_start(ap, fmt);
	ok = vjoin(out, n, root, fmt, ap);
	va_end(ap);
	return ok;
}

/*
 * Reads a whole file into a NUL-terminated allocation (*OUT, caller
 * frees), through the /proc reader of proc.c.
 */
static int slurp(const char *path, char **out)
{
	struct proc_buf b = PROC_BUF_INIT;
	int r = proc_buf_read_file(&b, path);

	if (r < 0) {
		proc_buf_release(&b);
		return r;
	}
	*out = b.data;	/* the buffer is ours now; proc_buf_release() is not called */
	return 0;
}

/* Cuts trailing white space in place and returns S past leading white space. */
static char *trim(char *s)
{
	size_t n;

	while (*s == ' ' || *s == '\t')
		s++;
	n = strlen(s);
	while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n' ||
			 s[n - 1] == '\r'))
		s[--n] = '\0';
	return s;
}


/* Strict decimal parse: the whole string (bar white space) must be the number. */
static bool parse_i64(const char *s, int64_t *v)
{
	char *end;
	long long x;

	while (*s == ' ' || *s == '\t')
		s++;
	if (!*s)
		return false;
	errno = 0;
	x = strtoll(s, &end, 10);
	if (errno || end == s)
		return false;
	while (*end == ' ' || *end == '\t' || *end == '\n')
		end++;
	if (*end)
		return false;
	*v = x;
	return true;
}

static bool parse_double(const char *s, double *v)
{
	char *end;
	double x;

	while (*s == ' ' || *s == '\t')
		s++;
	if (!*s)
		return false;
	errno = 0;
	x = strtod(s, &end);
	if (errno || end == s)
		return false;
	while (*end == ' ' || *end == '\t' || *end == '\n')
		end++;
	if (*end || !isfinite(x))
		return false;
	*v = x;
	return true;
}

/*
 * V units of UNIT bytes (the kB of /proc, 512-byte sectors) in bytes, or -1
 * (unknown) when V is negative or the product does not fit an int64_t: a
 * size no machine has is a surprise, so it becomes unknown, as a number
 * that does not parse does, rather than a wrapped or saturated figure.
 */
static int64_t scaled_bytes(int64_t v, int64_t unit)
{
	return v >= 0 && v <= INT64_MAX / unit ? v * unit : -1;
}

PRINTF_LIKE(4, 5)
static int rootf_line(char *buf, size_t n, const char *root, const char *fmt, ...)
{
	char path[PATH_MAX];
	va_list ap;
	bool ok;

	va_start(ap, fmt);
	ok = vjoin(path, sizeof(path), root, fmt, ap);
	va_end(ap);
	if (!ok)
		return -ENAMETOOLONG;
	return proc_read_line(path, buf, n);
}

/* First line of ROOT/FMT as a new string, or NULL if unreadable or empty. */
PRINTF_LIKE(2, 3)
static char *rootf_dup(const char *root, const char *fmt, ...)
{
	char path[PATH_MAX], buf[512];
	va_list ap;
	bool ok;

	va_start(ap, fmt);
	ok = vjoin(path, sizeof(path), root, fmt, ap);
	va_end(ap);
	if (!ok || proc_read_line(path, buf, sizeof(buf)) || !buf[0])
		return NULL;
	return xstrdup(buf);
}

/* ROOT/FMT as a non-negative integer, or -1 if unknown. */
PRINTF_LIKE(2, 3)
static int64_t rootf_nonneg(const char *root, const char *fmt, ...)
{
	char path[PATH_MAX], buf[64];
	int64_t v;
	va_list ap;
	bool ok;

	va_start(ap, fmt);
	ok = vjoin(path, sizeof(path), root, fmt, ap);
	va_end(ap);
	if (!ok || proc_read_line(path, buf, sizeof(buf)) || !parse_i64(buf, &v) || v < 0)
		return -1;
	return v;
}

/* ROOT/FMT holding "0" or "1". */
PRINTF_LIKE(2, 3)
static enum sysinfo_tri rootf_tri(const char *root, const char *fmt, ...)
{
	char path[PATH_MAX], buf[16];
	va_list ap;
	bool ok;

	va_start(ap, fmt);
	ok = vjoin(path, sizeof(path), root, fmt, ap);
	va_end(ap);
	if (!ok || proc_read_line(path, buf, sizeof(buf)))
		return SYSINFO_UNKNOWN;
	if (!strcmp(buf, "0"))
		return SYSINFO_NO;
	if (!strcmp(buf, "1"))
		return SYSINFO_YES;
	return SYSINFO_UNKNOWN;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted names in directory PATH, without dot entries; NULL and 0 if unreadable. */
static char **list_dir(const char *path, size_t *n)
{
	char **names = NULL;
	size_t cap = 0;
	struct dirent *de;
	DIR *d;

	*n = 0;
	d = opendir(path);
	if (!d)
		return NULL;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (*n == cap) {
			cap = cap ? cap * 2 : 16;
			names = xrealloc(names, cap * sizeof(*names));
		}
		names[(*n)++] = xstrdup(de->d_name);
	}
	closedir(d);
	if (*n)
		qsort(names, *n, sizeof(*names), cmp_str);
	return names;
}

static void free_names(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* Makes room for one more element of size ELEM in ARR of capacity *CAP. */
static void *grow(void *arr, size_t *cap, size_t n, size_t elem)
{
	if (n < *cap)
		return arr;
	*cap = *cap ? *cap * 2 : 8;
	return xrealloc(arr, *cap * elem);
}

/* Splits "key : value" in place; false if the line has no colon. */
static bool kv_split(char *line, char **key, char **val)
{
	char *colon = strchr(line, ':');

	if (!colon)
		return false;
	*colon = '\0';
	*key = trim(line);
	*val = trim(colon + 1);
	return true;
}

/* Whether WORD occurs in the white-space separated list S. */
static bool has_word(const char *s, const char *word, const char *seps)
{
	size_t wl = strlen(word);

	while (*s) {
		size_t n = strcspn(s, seps);

		if (n == wl && !strncmp(s, word, wl))
			return true;
		s += n;
		if (*s)
			s++;
	}
	return false;
}

/* The CPUs of a list in order, filled by units_cpulist_walk() with cpu_array_add(). */
struct cpu_array {
	int *cpus;
	size_t n, cap;
};

static int cpu_array_add(uint64_t lo, uint64_t hi, void *arg)
{
	struct cpu_array *a = arg;

	if (hi - lo > 65536 || a->n + (size_t)(hi - lo) > 1 << 20)
		return -EINVAL;
	for (uint64_t c = lo; c <= hi; c++) {
		a->cpus = grow(a->cpus, &a->cap, a->n, sizeof(*a->cpus));
		a->cpus[a->n++] = (int)c;
	}
	return 0;
}

/* ---- CPU -------------------------------------------------------------- */

static void collect_cpuinfo(const struct roots *r, struct sysinfo *si, int *nproc)
{
	char path[PATH_MAX], *text, *cur, *line;
	int model_rank = 0; /* 3 model name, 2 cpu model, 1 Processor */

	*nproc = 0;
	if (!join(path, sizeof(path), r->proc, "cpuinfo") || slurp(path, &text))
		return;
	cur = text;
	while ((line = strsep(&cur, "\n"))) {
		char *key, *val;
		int rank = 0;

		if (!kv_split(line, &key, &val))
			continue;
		if (!strcmp(key, "model name"))
			rank = 3;
		else if (!strcmp(key, "cpu model"))
			rank = 2;
		else if (!strcmp(key, "Processor"))
			rank = 1;
		if (rank > model_rank && *val) {
			free(si->cpu.model);
			si->cpu.model = xstrdup(val);
			model_rank = rank;
		} else if (!strcmp(key, "system type") && *val && !si->cpu.system_type) {
			si->cpu.system_type = xstrdup(val);
		} else if (!strcmp(key, "cpu MHz") && isnan(si->cpu.cpuinfo_mhz)) {
			double v;

			if (parse_double(val, &v) && v > 0)
				si->cpu.cpuinfo_mhz = v;
		} else if (!strcmp(key, "flags") && si->virt.hypervisor_flag == SYSINFO_UNKNOWN) {
			si->virt.hypervisor_flag =
				has_word(val, "hypervisor", " \t") ? SYSINFO_YES : SYSINFO_NO;
		} else if (!strcmp(key, "processor")) {
			int64_t v;

			if (parse_i64(val, &v))
				(*nproc)++;
		}
	}
	free(text);
}

/* Counts cpuN directories under devices/system/cpu; -1 if unreadable. */
static int count_cpu_dirs(const struct roots *r)
{
	char path[PATH_MAX], **names;
	size_t n;
	int cnt = 0;

	if (!join(path, sizeof(path), r->sys, "devices/system/cpu"))
		return -1;
	names = list_dir(path, &n);
	if (!names)
		return -1;
	for (size_t i = 0; i < n; i++) {
		const char *p = names[i];

		if (strncmp(p, "cpu", 3) || !p[3])
			continue;
		p += 3;
		while (*p >= '0' && *p <= '9')
			p++;
		if (!*p)
			cnt++;
	}
	free_names(names, n);
	return cnt > 0 ? cnt : -1;
}

static void collect_topology(const struct roots *r, struct sysinfo_cpu *c,
			     const int *cpus, size_t n)
{
	int64_t *pkg = xcalloc(n, sizeof(*pkg)), *core = xcalloc(n, sizeof(*core));
	int sockets = 0, cores = 0, tpc = 0;

	for (size_t i = 0; i < n; i++) {
		pkg[i] = rootf_nonneg(r->sys, "devices/system/cpu/cpu%d/topology/physical_package_id",
				      cpus[i]);
		core[i] = rootf_nonneg(r->sys, "devices/system/cpu/cpu%d/topology/core_id", cpus[i]);
		if (pkg[i] < 0 || core[i] < 0)
			goto out;
	}
	for (size_t i = 0; i < n; i++) {
		bool new_pkg = true, new_core = true;
		int same = 0;

		for (size_t j = 0; j < n; j++) {
			if (j < i && pkg[j] == pkg[i]) {
				new_pkg = false;
				if (core[j] == core[i])
					new_core = false;
			}
			if (pkg[j] == pkg[i] && core[j] == core[i])
				same++;
		}
		sockets += new_pkg;
		cores += new_core;
		if (same > tpc)
			tpc = same;
	}
	if (n) {
		c->sockets = sockets;
		c->cores = cores;
		c->threads_per_core = tpc;
	}
out:
	free(pkg);
	free(core);
}

static void collect_cpu(const struct roots *r, struct sysinfo *si)
{
	struct sysinfo_cpu *c = &si->cpu;
	char buf[4096];
	int nproc;
	int64_t khz;

	collect_cpuinfo(r, si, &nproc);
	c->configured = count_cpu_dirs(r);
	if (c->configured < 0 && nproc > 0)
		c->configured = nproc;

	if (!rootf_line(buf, sizeof(buf), r->sys, "devices/system/cpu/online") && buf[0]) {
		struct cpu_array a = { NULL, 0, 0 };

		if (!units_cpulist_walk(buf, strlen(buf), cpu_array_add, &a)) {
			c->online = (int)a.n;
			c->online_list = xstrdup(buf);
			collect_topology(r, c, a.cpus, a.n);
		}
		free(a.cpus);
	}

	khz = rootf_nonneg(r->sys, "devices/system/cpu/cpu0/cpufreq/scaling_cur_freq");
	if (khz > 0)
		c->cpufreq_cur_mhz = (double)khz / 1000.0;
	khz = rootf_nonneg(r->sys, "devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq");
	if (khz > 0)
		c->cpufreq_max_mhz = (double)khz / 1000.0;
}

/*
 * Chooses freq_mhz among the candidates: cpufreq (the kernel knows), then
 * the calibrated loop (measured here and now), then the boot-time value of
 * /proc/cpuinfo (nominal; in a VM often the host's TSC rate, not the speed
 * this guest gets).
 */
static void choose_freq(struct sysinfo_cpu *c)
{
	if (!isnan(c->cpufreq_cur_mhz)) {
		c->freq_mhz = c->cpufreq_cur_mhz;
		c->freq_source = SYSINFO_FREQ_CPUFREQ;
		c->freq_source_detail = "sysfs cpu0/cpufreq/scaling_cur_freq";
	} else if (!isnan(c->cpufreq_max_mhz)) {
		c->freq_mhz = c->cpufreq_max_mhz;
		c->freq_source = SYSINFO_FREQ_CPUFREQ;
		c->freq_source_detail = "sysfs cpu0/cpufreq/cpuinfo_max_freq";
	} else if (!isnan(c->calibrated_mhz)) {
		c->freq_mhz = c->calibrated_mhz;
		c->freq_source = SYSINFO_FREQ_CALIBRATED;
		c->freq_source_detail = c->calibration_method;
	} else if (!isnan(c->cpuinfo_mhz)) {
		c->freq_mhz = c->cpuinfo_mhz;
		c->freq_source = SYSINFO_FREQ_CPUINFO_BOOT;
		c->freq_source_detail = "/proc/cpuinfo cpu MHz (boot/nominal value)";
	} else {
		c->freq_mhz = NAN;
		c->freq_source = SYSINFO_FREQ_UNKNOWN;
		c->freq_source_detail = NULL;
	}
}

/* ---- calibrated loop ------------------------------------------------------ */

#define CAL_ADDS_PER_BLOCK 64
#define CAL_RUNS 7
#define CAL_TARGET_NS 10000000LL /* one run: about 10 ms of CPU time */

#define R2(s) s s
#define R8(s) R2(R2(R2(s)))
#define R64(s) R8(R8(s))

/*
 * BLOCKS times 64 integer adds, each depending on the one before, so that
 * a core can do at most one per cycle however wide it is. The loop counter
 * is independent work that an out-of-order core hides; on an in-order core
 * it costs a few cycles per 64 adds (a few percent low). The adds are in
 * inline assembly so that the chain stays in a register at any
 * optimisation level; other architectures get a C chain pinned with empty
 * asm statements.
 */
#if defined(__x86_64__) || defined(__i386__)
#define CAL_ASM 1
#define CAL_INSN "add %1, %0\n\t"
#elif defined(__aarch64__) || defined(__arm__) || defined(__riscv) || defined(__powerpc__)
#define CAL_ASM 1
#define CAL_INSN "add %0, %0, %1\n\t"
#elif defined(__mips__) && defined(__mips64)
#define CAL_ASM 1
#define CAL_INSN "daddu %0, %0, %1\n\t"
#elif defined(__mips__)
#define CAL_ASM 1
#define CAL_INSN "addu %0, %0, %1\n\t"
#else
#define CAL_ASM 0
#endif

static unsigned long add_chain(unsigned long blocks)
{
	unsigned long x = 0, y = 1;

	__asm__ volatile("" : "+r"(y));
	for (unsigned long i = 0; i < blocks; i++) {
#if CAL_ASM
		__asm__ volatile(R64(CAL_INSN) : "+r"(x) : "r"(y) : "cc");
#else
		R64(x += y; __asm__ volatile("" : "+r"(x));)
#endif
	}
	return x;
}

static int thread_ns(int64_t *ns)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
		return -errno;
	*ns = (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
	return 0;
}

int sysinfo_calibrate_mhz(double *mhz, int *runs, uint64_t *adds, const char **method)
{
	volatile unsigned long sink = 0;
	unsigned long blocks = 1024;
	int64_t t0 = 0, t1 = 0, best = INT64_MAX;
	int err;

	*mhz = NAN;
	err = thread_ns(&t0);
	if (err)
		return err;
	/* Size one run to about CAL_TARGET_NS; this also wakes a sleepy core. */
	for (;;) {
		if ((err = thread_ns(&t0)))
			return err;
		sink += add_chain(blocks);
		if ((err = thread_ns(&t1)))
			return err;
		if (t1 - t0 >= CAL_TARGET_NS || blocks >= (1UL << 28))
			break;
		blocks *= 2;
	}
	for (int i = 0; i < CAL_RUNS; i++) {
		if ((err = thread_ns(&t0)))
			return err;
		sink += add_chain(blocks);
		if ((err = thread_ns(&t1)))
			return err;
		if (t1 > t0 && t1 - t0 < best)
			best = t1 - t0;
	}
	(void)sink;
	if (best == INT64_MAX)
		return -EIO;
	/* adds per ns is GHz; kept to 0.1 MHz, far finer than the method. */
	*mhz = round((double)blocks * CAL_ADDS_PER_BLOCK / (double)best * 10000.0) / 10.0;
	if (runs)
		*runs = CAL_RUNS;
	if (adds)
		*adds = (uint64_t)blocks * CAL_ADDS_PER_BLOCK;
	if (method)
		*method = CAL_ASM ?
			"dependent integer add chain (inline asm), thread CPU time, best of 7, "
			"assumes 1 add per cycle" :
			"dependent integer add chain (C, exact only in an optimised build), "
			"thread CPU time, best of 7, "
			"assumes 1 add per cycle";
	return 0;
}

/* ---- memory and cgroup -------------------------------------------------- */

static void collect_meminfo(const struct roots *r, struct sysinfo_mem *m)
{
	char path[PATH_MAX], *text, *cur, *line;

	if (!join(path, sizeof(path), r->proc, "meminfo") || slurp(path, &text))
		return;
	cur = text;
	while ((line = strsep(&cur, "\n"))) {
		char *key, *val, *unit;
		int64_t *dst = NULL, v;
		size_t n;

		if (!kv_split(line, &key, &val))
			continue;
		if (!strcmp(key, "MemTotal"))
			dst = &m->total_bytes;
		else if (!strcmp(key, "MemAvailable"))
			dst = &m->available_bytes;
		if (!dst)
			continue;
		n = strlen(val);
		unit = NULL;
		if (n > 2 && !strcmp(val + n - 2, "kB")) {
			val[n - 2] = '\0';
			unit = "kB";
		}
		if (parse_i64(val, &v) && v >= 0)
			*dst = scaled_bytes(v, unit ? 1024 : 1);
	}
	free(text);
}

/*
 * Reads the limit file at BASE/PATH/FILE for PATH and each of its
 * ancestors: the limit that binds is the smallest on the way to the root.
 */
static void cgroup_walk(const struct roots *r, struct sysinfo_mem *m, const char *base,
			const char *file, const char *cgpath, int version)
{
	char p[PATH_MAX], buf[64];
	int64_t limit = -1;
	bool any_read = false;
	size_t n;

	if (snprintf(p, sizeof(p), "%s", cgpath) >= (int)sizeof(p))
		return;
	n = strlen(p);
	while (n > 0 && p[n - 1] == '/')
		p[--n] = '\0';
	for (;;) {
		char *slash;

		if (!rootf_line(buf, sizeof(buf), r->sys, "%s%s/%s", base, p, file)) {
			int64_t v;

			if (version == 2 && !strcmp(buf, "max")) {
				any_read = true;
			} else if (parse_i64(buf, &v) && v >= 0) {
				any_read = true;
				if (!(version == 1 && v >= CG1_NO_LIMIT) && (limit < 0 || v < limit))
					limit = v;
			}
		}
		if (!p[0])
			break;
		slash = strrchr(p, '/');
		if (!slash)
			p[0] = '\0';
		else
			*slash = '\0';
	}
	if (limit >= 0) {
		m->cgroup_limit = SYSINFO_LIMIT_SET;
		m->cgroup_limit_bytes = limit;
	} else if (any_read) {
		m->cgroup_limit = SYSINFO_LIMIT_NONE;
	} else if (version == 2) {
		char b2[16];

		/* The v2 root has no memory.max: a mounted hierarchy means "none". */
		if (rootf_line(b2, sizeof(b2), r->sys, "%s/cgroup.controllers", base) == 0)
			m->cgroup_limit = SYSINFO_LIMIT_NONE;
	}
}

static void collect_cgroup(const struct roots *r, struct sysinfo_mem *m)
{
	char path[PATH_MAX], *text, *cur, *line;
	char *v1 = NULL, *v2 = NULL;

	if (!join(path, sizeof(path), r->proc, "self/cgroup") || slurp(path, &text))
		return;
	cur = text;
	while ((line = strsep(&cur, "\n"))) {
		char *id = line, *ctrls, *cgpath;

		ctrls = strchr(id, ':');
		if (!ctrls)
			continue;
		*ctrls++ = '\0';
		cgpath = strchr(ctrls, ':');
		if (!cgpath)
			continue;
		*cgpath++ = '\0';
		if (!strcmp(id, "0") && !*ctrls)
			v2 = cgpath;
		else if (has_word(ctrls, "memory", ","))
			v1 = cgpath;
	}
	/*
	 * With a v1 memory line the memory controller lives in v1 (a hybrid
	 * system also has a "0::" line, but no memory controller there).
	 */
	if (v1) {
		m->cgroup_version = 1;
		m->cgroup_path = xstrdup(v1);
		cgroup_walk(r, m, "fs/cgroup/memory", "memory.limit_in_bytes", v1, 1);
	} else if (v2) {
		char b[16];
		const char *base = "fs/cgroup";

		if (rootf_line(b, sizeof(b), r->sys, "fs/cgroup/cgroup.controllers") &&
		    !rootf_line(b, sizeof(b), r->sys, "fs/cgroup/unified/cgroup.controllers"))
			base = "fs/cgroup/unified";
		m->cgroup_version = 2;
		m->cgroup_path = xstrdup(v2);
		cgroup_walk(r, m, base, "memory.max", v2, 2);
	}
	free(text);
}

static void collect_mem(const struct roots *r, struct sysinfo_mem *m)
{
	collect_meminfo(r, m);
	collect_cgroup(r, m);
	m->effective_bytes = m->total_bytes;
	if (m->cgroup_limit == SYSINFO_LIMIT_SET &&
	    (m->total_bytes < 0 || m->cgroup_limit_bytes < m->total_bytes))
		m->effective_bytes = m->cgroup_limit_bytes;
}

/* ---- swap ------------------------------------------------------------------ */

static void collect_swap(const struct roots *r, struct sysinfo *si)
{
	char path[PATH_MAX], buf[64], *text, *cur, *line;
	size_t cap = 0;
	int64_t v;

	if (join(path, sizeof(path), r->proc, "swaps") && !slurp(path, &text)) {
		cur = text;
		while ((line = strsep(&cur, "\n"))) {
			char *save = NULL, *name, *type, *size, *used, *prio;
			struct sysinfo_swap *s;

			name = strtok_r(line, " \t", &save);
			if (!name || !strcmp(name, "Filename"))
				continue;
			type = strtok_r(NULL, " \t", &save);
			size = strtok_r(NULL, " \t", &save);
			used = strtok_r(NULL, " \t", &save);
			prio = strtok_r(NULL, " \t", &save);
			/* Decoded in place: it only shortens, so it always fits. */
			if (!type || proc_unescape(name, strlen(name) + 1, name, name + strlen(name)))
				continue;
			si->swaps = grow(si->swaps, &cap, si->nr_swaps, sizeof(*si->swaps));
			s = &si->swaps[si->nr_swaps++];
			s->name = xstrdup(name);
			if (!strncmp(name, "/dev/zram", 9))
				s->type = SYSINFO_SWAP_ZRAM;
			else if (!strcmp(type, "file"))
				s->type = SYSINFO_SWAP_FILE;
			else if (!strcmp(type, "partition"))
				s->type = SYSINFO_SWAP_PARTITION;
			else
				s->type = SYSINFO_SWAP_OTHER;
			s->size_bytes = size && parse_i64(size, &v) ? scaled_bytes(v, 1024) : -1;
			s->used_bytes = used && parse_i64(used, &v) ? scaled_bytes(v, 1024) : -1;
			s->priority_known = prio && parse_i64(prio, &v) && v >= INT_MIN && v <= INT_MAX;
			s->priority = s->priority_known ? (int)v : 0;
		}
		free(text);
	}
	v = rootf_nonneg(r->proc, "sys/vm/swappiness");
	si->swappiness = v >= 0 && v <= INT_MAX ? (int)v : -1;
	v = rootf_nonneg(r->proc, "sys/vm/page-cluster");
	si->page_cluster = v >= 0 && v <= INT_MAX ? (int)v : -1;
	if (!rootf_line(buf, sizeof(buf), r->sys, "module/zswap/parameters/enabled")) {
		if (!strcmp(buf, "Y") || !strcmp(buf, "1"))
			si->zswap_enabled = SYSINFO_YES;
		else if (!strcmp(buf, "N") || !strcmp(buf, "0"))
			si->zswap_enabled = SYSINFO_NO;
	}
}

/* ---- block devices -------------------------------------------------------- */

/* "none [mq-deadline] kyber" → active "mq-deadline", list without brackets. */
static void parse_scheduler(const char *text, char **active, char **list)
{
	char *copy = xstrdup(text), *cur = copy, *tok, *out;
	size_t n = 0, words = 0;
	char *only = NULL;

	out = xcalloc(strlen(text) + 1, 1);
	while ((tok = strsep(&cur, " \t"))) {
		size_t l = strlen(tok);

		if (!l)
			continue;
		if (tok[0] == '[' && l > 2 && tok[l - 1] == ']') {
			tok[l - 1] = '\0';
			tok++;
			free(*active);
			*active = xstrdup(tok);
		}
		if (n)
			out[n++] = ' ';
		memcpy(out + n, tok, strlen(tok));
		n += strlen(tok);
		only = tok;
		words++;
	}
	/* Old kernels and devices without an elevator print one bare word. */
	if (!*active && words == 1)
		*active = xstrdup(only);
	free(copy);
	if (n)
		*list = out;
	else
		free(out);
}

static void collect_blk(const struct roots *r, struct sysinfo *si)
{
	char path[PATH_MAX], buf[512], **names;
	size_t n, cap = 0;

	if (!join(path, sizeof(path), r->sys, "block"))
		return;
	names = list_dir(path, &n);
	for (size_t i = 0; i < n; i++) {
		const char *name = names[i];
		struct sysinfo_blk *b;
		int64_t sectors;

		if (!strncmp(name, "ram", 3))
			continue;
		sectors = rootf_nonneg(r->sys, "block/%s/size", name);
		if (!strncmp(name, "loop", 4) && sectors == 0)
			continue;
		si->blks = grow(si->blks, &cap, si->nr_blks, sizeof(*si->blks));
		b = &si->blks[si->nr_blks++];
		memset(b, 0, sizeof(*b));
		b->name = xstrdup(name);
		b->size_bytes = scaled_bytes(sectors, 512);
		b->rotational = rootf_tri(r->sys, "block/%s/queue/rotational", name);
		b->removable = rootf_tri(r->sys, "block/%s/removable", name);
		b->readonly = rootf_tri(r->sys, "block/%s/ro", name);
		if (!rootf_line(buf, sizeof(buf), r->sys, "block/%s/queue/scheduler", name))
			parse_scheduler(buf, &b->scheduler, &b->schedulers);
		b->read_ahead_kb = rootf_nonneg(r->sys, "block/%s/queue/read_ahead_kb", name);
		b->nr_requests = rootf_nonneg(r->sys, "block/%s/queue/nr_requests", name);
		b->max_sectors_kb = rootf_nonneg(r->sys, "block/%s/queue/max_sectors_kb", name);
		b->write_cache = rootf_dup(r->sys, "block/%s/queue/write_cache", name);
		b->logical_block_bytes =
			rootf_nonneg(r->sys, "block/%s/queue/logical_block_size", name);
		b->physical_block_bytes =
			rootf_nonneg(r->sys, "block/%s/queue/physical_block_size", name);
		b->model = rootf_dup(r->sys, "block/%s/device/model", name);
		b->link_read = devlink_read(r->sys, name, &b->link) == 0;
	}
	free_names(names, n);
}

/* ---- mounts ---------------------------------------------------------------- */

static const char *const pseudo_fs[] = {
	"proc", "sysfs", "devpts", "mqueue", "debugfs", "tracefs", "securityfs",
	"pstore", "bpf", "configfs", "fusectl", "hugetlbfs", "autofs", "binfmt_misc",
	"nsfs", "efivarfs", "selinuxfs", "rpc_pipefs",
};

static bool is_pseudo_fs(const char *type)
{
	if (!strncmp(type, "cgroup", 6))
		return true;
	for (size_t i = 0; i < ARRAY_SIZE(pseudo_fs); i++)
		if (!strcmp(type, pseudo_fs[i]))
			return true;
	return false;
}

static void collect_mounts(const struct roots *r, struct sysinfo *si)
{
	char path[PATH_MAX], *text;
	const char *pos;
	struct proc_mount *pm;
	size_t cap = 0;
	unsigned bad = 0;

	if (!join(path, sizeof(path), r->proc, "self/mounts") || slurp(path, &text))
		return;
	pm = xmalloc(sizeof(*pm));
	pos = text;
	while (proc_mount_next(pm, PROC_MOUNTS, &pos, text + strlen(text), &bad)) {
		struct sysinfo_mount *m;

		if (is_pseudo_fs(pm->fs_type))
			continue;
		si->mounts = grow(si->mounts, &cap, si->nr_mounts, sizeof(*si->mounts));
		m = &si->mounts[si->nr_mounts++];
		m->device = xstrdup(pm->source);
		m->mount_point = xstrdup(pm->mount_point);
		m->fs_type = xstrdup(pm->fs_type);
		m->options = xstrdup(pm->mount_opts);
		m->sync = proc_mount_is_sync(pm);
	}
	free(pm);
	free(text);
}

/* ---- network ---------------------------------------------------------------- */

static void collect_net(const struct roots *r, struct sysinfo *si)
{
	char path[PATH_MAX], link[PATH_MAX], buf[64], **names;
	size_t n, cap = 0;

	if (!join(path, sizeof(path), r->sys, "class/net"))
		return;
	names = list_dir(path, &n);
	for (size_t i = 0; i < n; i++) {
		const char *name = names[i];
		struct sysinfo_net *e;
		struct stat st;
		int64_t v;
		ssize_t l;

		/* Skip plain files such as bonding_masters. */
		if (!join(path, sizeof(path), r->sys, "class/net/%s", name) ||
		    stat(path, &st) || !S_ISDIR(st.st_mode))
			continue;
		si->nets = grow(si->nets, &cap, si->nr_nets, sizeof(*si->nets));
		e = &si->nets[si->nr_nets++];
		memset(e, 0, sizeof(*e));
		e->name = xstrdup(name);
		e->mtu_bytes = rootf_nonneg(r->sys, "class/net/%s/mtu", name);
		e->operstate = rootf_dup(r->sys, "class/net/%s/operstate", name);
		e->speed_mbit_per_s = -1;
		if (!rootf_line(buf, sizeof(buf), r->sys, "class/net/%s/speed", name) &&
		    parse_i64(buf, &v) && v > 0)
			e->speed_mbit_per_s = v;
		e->is_virtual = !(join(path, sizeof(path), r->sys, "class/net/%s/device", name) &&
				  lstat(path, &st) == 0);
		if (join(path, sizeof(path), r->sys, "class/net/%s/device/driver", name) &&
		    (l = readlink(path, link, sizeof(link) - 1)) > 0) {
			const char *base;

			link[l] = '\0';
			base = strrchr(link, '/');
			base = base ? base + 1 : link;
			if (*base)
				e->driver = xstrdup(base);
		}
	}
	free_names(names, n);
}

/* ---- kernel, virtualisation, io_uring -------------------------------------- */

static void collect_kernel(const struct roots *r, struct sysinfo *si)
{
	struct utsname u;
	bool have_uname = uname(&u) == 0;

	si->kernel.release = rootf_dup(r->proc, "sys/kernel/osrelease");
	si->kernel.version = rootf_dup(r->proc, "sys/kernel/version");
	si->kernel.hostname = rootf_dup(r->proc, "sys/kernel/hostname");
	if (have_uname) {
		if (!si->kernel.release)
			si->kernel.release = xstrdup(u.release);
		if (!si->kernel.version)
			si->kernel.version = xstrdup(u.version);
		if (!si->kernel.hostname)
			si->kernel.hostname = xstrdup(u.nodename);
		si->kernel.machine = xstrdup(u.machine);
		si->cpu.arch = xstrdup(u.machine);
	}
}

static void collect_virt(const struct roots *r, struct sysinfo *si)
{
	char path[PATH_MAX], *text, *line, *save = NULL, *tok;
	long tck;
	int i;

	si->virt.hypervisor_type = rootf_dup(r->sys, "hypervisor/type");
	si->virt.dmi_vendor = rootf_dup(r->sys, "class/dmi/id/sys_vendor");
	si->virt.dmi_product = rootf_dup(r->sys, "class/dmi/id/product_name");

	if (!join(path, sizeof(path), r->proc, "stat") || slurp(path, &text))
		return;
	line = text;
	text[strcspn(text, "\n")] = '\0';
	tok = strtok_r(line, " \t", &save);
	/* cpu user nice system idle iowait irq softirq steal ... */
	if (tok && !strcmp(tok, "cpu")) {
		for (i = 0; i < 8 && (tok = strtok_r(NULL, " \t", &save)); i++)
			;
		tck = sysconf(_SC_CLK_TCK);
		if (i == 8 && tok && tck > 0) {
			int64_t ticks;

			if (parse_i64(tok, &ticks) && ticks >= 0)
				si->virt.steal_seconds = (double)ticks / (double)tck;
		}
	}
	free(text);
}

static char *uring_reason(int e)
{
	switch (e) {
	case ENOSYS:
		return xstrdup("ENOSYS: kernel without io_uring");
	case EPERM:
		return xstrdup("EPERM: disabled by sysctl kernel.io_uring_disabled or by seccomp");
	case EACCES:
		return xstrdup("EACCES: not permitted (kernel.io_uring_group?)");
	case ENOMEM:
		return xstrdup("ENOMEM: cannot allocate the rings (locked-memory limit?)");
	case EMFILE:
	case ENFILE:
		return xstrdup("too many open files");
	default:
		return xasprintf("errno %d: %s", e, strerror(e));
	}
}

static void collect_uring(const struct roots *r, struct sysinfo *si, bool probe)
{
	int64_t v = rootf_nonneg(r->proc, "sys/kernel/io_uring_disabled");

	si->uring.disabled_sysctl = v >= 0 && v <= INT_MAX ? (int)v : -1;
	if (!probe)
		return;
#ifdef __NR_io_uring_setup
	{
		/* Zeroed struct io_uring_params (120 bytes today) with room to spare. */
		uint64_t params[32] = { 0 };
		long fd = syscall(__NR_io_uring_setup, 4, params);

		if (fd >= 0) {
			close((int)fd);
			si->uring.state = SYSINFO_URING_AVAILABLE;
			si->uring.text = xstrdup("available");
		} else {
			si->uring.state = SYSINFO_URING_UNAVAILABLE;
			si->uring.err = errno;
			si->uring.text = uring_reason(si->uring.err);
		}
	}
#else
	si->uring.state = SYSINFO_URING_UNAVAILABLE;
	si->uring.err = ENOSYS;
	si->uring.text = xstrdup("ENOSYS: this C library has no io_uring_setup syscall number");
#endif
}

/* ---- public ----------------------------------------------------------------- */

void sysinfo_init(struct sysinfo *si)
{
	memset(si, 0, sizeof(*si));
	si->cpu.configured = -1;
	si->cpu.online = -1;
	si->cpu.sockets = -1;
	si->cpu.cores = -1;
	si->cpu.threads_per_core = -1;
	si->cpu.freq_mhz = NAN;
	si->cpu.freq_source = SYSINFO_FREQ_UNKNOWN;
	si->cpu.cpufreq_cur_mhz = NAN;
	si->cpu.cpufreq_max_mhz = NAN;
	si->cpu.cpuinfo_mhz = NAN;
	si->cpu.calibrated_mhz = NAN;
	si->mem.total_bytes = -1;
	si->mem.available_bytes = -1;
	si->mem.cgroup_limit = SYSINFO_LIMIT_UNKNOWN;
	si->mem.cgroup_limit_bytes = -1;
	si->mem.effective_bytes = -1;
	si->swappiness = -1;
	si->page_cluster = -1;
	si->zswap_enabled = SYSINFO_UNKNOWN;
	si->virt.hypervisor_flag = SYSINFO_UNKNOWN;
	si->virt.steal_seconds = NAN;
	si->uring.state = SYSINFO_URING_NOT_PROBED;
	si->uring.disabled_sysctl = -1;
}

int sysinfo_collect(struct sysinfo *si, const struct sysinfo_opts *opts)
{
	static const struct sysinfo_opts defaults = SYSINFO_OPTS_INIT;
	struct roots r;

	if (!si)
		return -EINVAL;
	if (!opts)
		opts = &defaults;
	sysinfo_init(si);
	r.proc = opts->proc_root ? opts->proc_root : "/proc";
	r.sys = opts->sys_root ? opts->sys_root : "/sys";

	collect_kernel(&r, si);
	collect_cpu(&r, si);
	if (opts->calibrate) {
		double mhz;

		if (!sysinfo_calibrate_mhz(&mhz, &si->cpu.calibration_runs,
					   &si->cpu.calibration_adds, &si->cpu.calibration_method))
			si->cpu.calibrated_mhz = mhz;
	}
	choose_freq(&si->cpu);
	collect_mem(&r, &si->mem);
	collect_swap(&r, si);
	collect_blk(&r, si);
	collect_mounts(&r, si);
	collect_net(&r, si);
	collect_virt(&r, si);
	collect_uring(&r, si, opts->probe_uring);
	return 0;
}

void sysinfo_release(struct sysinfo *si)
{
	if (!si)
		return;
	free(si->cpu.model);
	free(si->cpu.system_type);
	free(si->cpu.arch);
	free(si->cpu.online_list);
	free(si->mem.cgroup_path);
	for (size_t i = 0; i < si->nr_swaps; i++)
		free(si->swaps[i].name);
	free(si->swaps);
	for (size_t i = 0; i < si->nr_blks; i++) {
		struct sysinfo_blk *b = &si->blks[i];

		free(b->name);
		free(b->scheduler);
		free(b->schedulers);
		free(b->write_cache);
		free(b->model);
	}
	free(si->blks);
	for (size_t i = 0; i < si->nr_mounts; i++) {
		struct sysinfo_mount *m = &si->mounts[i];

		free(m->device);
		free(m->mount_point);
		free(m->fs_type);
		free(m->options);
	}
	free(si->mounts);
	for (size_t i = 0; i < si->nr_nets; i++) {
		free(si->nets[i].name);
		free(si->nets[i].operstate);
		free(si->nets[i].driver);
	}
	free(si->nets);
	free(si->kernel.release);
	free(si->kernel.version);
	free(si->kernel.machine);
	free(si->kernel.hostname);
	free(si->virt.hypervisor_type);
	free(si->virt.dmi_vendor);
	free(si->virt.dmi_product);
	free(si->uring.text);
	sysinfo_init(si);
}

const char *sysinfo_freq_source_name(enum sysinfo_freq_source s)
{
	switch (s) {
	case SYSINFO_FREQ_CPUFREQ:
		return "cpufreq";
	case SYSINFO_FREQ_CALIBRATED:
		return "calibrated-loop";
	case SYSINFO_FREQ_CPUINFO_BOOT:
		return "cpuinfo-boot";
	case SYSINFO_FREQ_UNKNOWN:
		break;
	}
	return "unknown";
}

const char *sysinfo_swap_type_name(enum sysinfo_swap_type t)
{
	switch (t) {
	case SYSINFO_SWAP_FILE:
		return "file";
	case SYSINFO_SWAP_PARTITION:
		return "partition";
	case SYSINFO_SWAP_ZRAM:
		return "zram";
	case SYSINFO_SWAP_OTHER:
		break;
	}
	return "other";
}

const char *sysinfo_limit_name(enum sysinfo_limit l)
{
	switch (l) {
	case SYSINFO_LIMIT_NONE:
		return "none";
	case SYSINFO_LIMIT_SET:
		return "set";
	case SYSINFO_LIMIT_UNKNOWN:
		break;
	}
	return "unknown";
}
