/* SPDX-License-Identifier: MIT */
/*
 * JSON and text renderers of struct sysinfo; see info.h. The renderers only
 * show what sysinfo collected: an unknown field is JSON null or the word
 * "unknown", and the frequency is always printed with its source.
 */
#include "info.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "core/kernel/devlink.h"
#include "core/kernel/sysinfo.h"
#include "lib/xalloc.h"
#include "lib/jw.h"
#include "lib/units.h"

/* The optional libraries (meson_options.txt) this binary was built with or without. */
static const struct {
	const char *name;
	bool on;
} features[] = {
	{ "liburing", HAVE_LIBURING }, { "libsodium", HAVE_LIBSODIUM }, { "openssl", HAVE_OPENSSL },
	{ "sqlite", HAVE_SQLITE },     { "jansson", HAVE_JANSSON },   { "http_parser", HAVE_HTTP_PARSER },
};

/* ---- JSON -------------------------------------------------------------------- */

static void j_i64(struct jw *w, const char *key, int64_t v)
{
	if (v < 0)
		jw_null(w, key);
	else
		jw_int(w, key, v);
}

static void j_tri(struct jw *w, const char *key, enum sysinfo_tri t)
{
	if (t == SYSINFO_UNKNOWN)
		jw_null(w, key);
	else
		jw_bool(w, key, t == SYSINFO_YES);
}

/* A space-separated list as an array of strings; null if LIST is NULL. */
static void j_words(struct jw *w, const char *key, const char *list)
{
	const char *p = list;

	if (!list) {
		jw_null(w, key);
		return;
	}
	jw_arr_begin(w, key);
	while (*p) {
		size_t n = strcspn(p, " ");

		if (n) {
			char *word = xasprintf("%.*s", (int)n, p);

			jw_str(w, NULL, word);
			free(word);
		}
		p += n;
		if (*p)
			p++;
	}
	jw_arr_end(w);
}

static void json_cpu(struct jw *w, const struct sysinfo_cpu *c)
{
	jw_obj_begin(w, "cpu");
	jw_str(w, "model", c->model);
	jw_str(w, "system_type", c->system_type);
	jw_str(w, "arch", c->arch);
	j_i64(w, "logical_cpus", c->configured);
	j_i64(w, "online_cpus", c->online);
	jw_str(w, "online_list", c->online_list);
	j_i64(w, "sockets", c->sockets);
	j_i64(w, "cores", c->cores);
	j_i64(w, "threads_per_core", c->threads_per_core);
	jw_num(w, "freq_mhz", c->freq_mhz);
	jw_str(w, "freq_source", sysinfo_freq_source_name(c->freq_source));
	jw_str(w, "freq_source_detail", c->freq_source_detail);
	jw_num(w, "cpufreq_cur_mhz", c->cpufreq_cur_mhz);
	jw_num(w, "cpufreq_max_mhz", c->cpufreq_max_mhz);
	jw_num(w, "cpuinfo_boot_mhz", c->cpuinfo_mhz);
	jw_num(w, "calibrated_mhz", c->calibrated_mhz);
	if (c->calibration_method) {
		jw_obj_begin(w, "calibration");
		jw_str(w, "method", c->calibration_method);
		jw_int(w, "runs", c->calibration_runs);
		jw_uint(w, "adds_per_run", c->calibration_adds);
		jw_obj_end(w);
	} else {
		jw_null(w, "calibration");
	}
	jw_obj_end(w);
}

static void json_mem(struct jw *w, const struct sysinfo_mem *m)
{
	jw_obj_begin(w, "memory");
	j_i64(w, "mem_total_bytes", m->total_bytes);
	j_i64(w, "mem_available_bytes", m->available_bytes);
	if (m->cgroup_version)
		jw_int(w, "cgroup_version", m->cgroup_version);
	else
		jw_null(w, "cgroup_version");
	jw_str(w, "cgroup_path", m->cgroup_path);
	jw_str(w, "cgroup_memory_limit", sysinfo_limit_name(m->cgroup_limit));
	j_i64(w, "cgroup_memory_limit_bytes", m->cgroup_limit_bytes);
	j_i64(w, "effective_memory_bytes", m->effective_bytes);
	jw_obj_end(w);
}

static void json_swap(struct jw *w, const struct sysinfo *si)
{
	jw_obj_begin(w, "swap");
	j_i64(w, "swappiness", si->swappiness);
	j_i64(w, "page_cluster", si->page_cluster);
	j_tri(w, "zswap_enabled", si->zswap_enabled);
	jw_arr_begin(w, "devices");
	for (size_t i = 0; i < si->nr_swaps; i++) {
		const struct sysinfo_swap *s = &si->swaps[i];

		jw_obj_begin(w, NULL);
		jw_str(w, "name", s->name);
		jw_str(w, "type", sysinfo_swap_type_name(s->type));
		j_i64(w, "size_bytes", s->size_bytes);
		j_i64(w, "used_bytes", s->used_bytes);
		if (s->priority_known)
			jw_int(w, "priority", s->priority);
		else
			jw_null(w, "priority");
		jw_obj_end(w);
	}
	jw_arr_end(w);
	jw_obj_end(w);
}

/* One rate of a link: bits/s per lane, lanes, and where it came from; null when unknown. */
static void json_rate(struct jw *w, const char *key, const struct devlink *l, const struct devlink_rate *r)
{
	char text[64];

	jw_obj_begin(w, key);
	devlink_rate_text(l, r, text, sizeof(text));
	jw_str(w, "text", text);
	jw_num(w, "bits_per_second_per_lane", r->bps);
	if (r->lanes > 0)
		jw_int(w, "lanes", r->lanes);
	else
		jw_null(w, "lanes");
	jw_bool(w, "at_least", r->at_least);
	jw_str(w, "source", r->source);
	jw_obj_end(w);
}

/* The negotiated link of a block device (core/kernel/devlink.h); docs/info.md. */
static void json_link(struct jw *w, const struct sysinfo_blk *b)
{
	const struct devlink *l = &b->link;
	char text[1024];

	if (!b->link_read) {
		jw_null(w, "link");
		return;
	}
	jw_obj_begin(w, "link");
	jw_str(w, "bus", devlink_bus_name(l->bus));
	jw_bool(w, "reported", l->reported);
	jw_str(w, "node", l->node[0] ? l->node : NULL);
	if (l->reported) {
		json_rate(w, "negotiated", l, &l->cur);
		json_rate(w, "device_supports", l, &l->dev);
		json_rate(w, "port_supports", l, &l->port);
		jw_str(w, "judgement", devlink_cause_name(l->cause));
		jw_bool(w, "below_capability", devlink_below(l));
		jw_str(w, "limit", l->limit_note[0] ? l->limit_note : NULL);
		jw_bool(w, "full_duplex", l->full_duplex);
		jw_num(w, "usable_bytes_per_second", l->usable_bytes_per_s);
		jw_num(w, "capable_bytes_per_second", l->capable_bytes_per_s);
		jw_str(w, "usable_basis", l->usable_basis);
		jw_null(w, "why_not_reported");
	} else {
		jw_str(w, "why_not_reported", l->why);
	}
	devlink_describe(l, text, sizeof(text));
	jw_str(w, "text", text);
	jw_obj_end(w);
}

static void json_blk(struct jw *w, const struct sysinfo *si)
{
	jw_arr_begin(w, "block_devices");
	for (size_t i = 0; i < si->nr_blks; i++) {
		const struct sysinfo_blk *b = &si->blks[i];

		jw_obj_begin(w, NULL);
		jw_str(w, "name", b->name);
		j_i64(w, "size_bytes", b->size_bytes);
		j_tri(w, "rotational", b->rotational);
		j_tri(w, "removable", b->removable);
		j_tri(w, "readonly", b->readonly);
		jw_str(w, "scheduler", b->scheduler);
		j_words(w, "schedulers", b->schedulers);
		j_i64(w, "read_ahead_kb", b->read_ahead_kb);
		j_i64(w, "nr_requests", b->nr_requests);
		j_i64(w, "max_sectors_kb", b->max_sectors_kb);
		jw_str(w, "write_cache", b->write_cache);
		j_i64(w, "logical_block_size_bytes", b->logical_block_bytes);
		j_i64(w, "physical_block_size_bytes", b->physical_block_bytes);
		jw_str(w, "model", b->model);
		json_link(w, b);
		jw_obj_end(w);
	}
	jw_arr_end(w);
}

static void json_mounts(struct jw *w, const struct sysinfo *si)
{
	jw_arr_begin(w, "mounts");
	for (size_t i = 0; i < si->nr_mounts; i++) {
		const struct sysinfo_mount *m = &si->mounts[i];

		jw_obj_begin(w, NULL);
		jw_str(w, "device", m->device);
		jw_str(w, "mount_point", m->mount_point);
		jw_str(w, "fs_type", m->fs_type);
		jw_str(w, "options", m->options);
		jw_bool(w, "sync", m->sync);
		jw_obj_end(w);
	}
	jw_arr_end(w);
}

static void json_net(struct jw *w, const struct sysinfo *si)
{
	jw_arr_begin(w, "network");
	for (size_t i = 0; i < si->nr_nets; i++) {
		const struct sysinfo_net *n = &si->nets[i];

		jw_obj_begin(w, NULL);
		jw_str(w, "name", n->name);
		j_i64(w, "mtu_bytes", n->mtu_bytes);
		jw_str(w, "operstate", n->operstate);
		j_i64(w, "speed_mbit_per_s", n->speed_mbit_per_s);
		jw_str(w, "driver", n->driver);
		jw_bool(w, "virtual", n->is_virtual);
		jw_obj_end(w);
	}
	jw_arr_end(w);
}

void info_render_json(struct jw *w, const char *key, const struct sysinfo *si)
{
	jw_obj_begin(w, key);
	json_cpu(w, &si->cpu);
	json_mem(w, &si->mem);
	json_swap(w, si);
	json_blk(w, si);
	json_mounts(w, si);
	json_net(w, si);

	jw_obj_begin(w, "kernel");
	jw_str(w, "release", si->kernel.release);
	jw_str(w, "version", si->kernel.version);
	jw_str(w, "machine", si->kernel.machine);
	jw_str(w, "hostname", si->kernel.hostname);
	jw_obj_end(w);

	jw_obj_begin(w, "virtualization");
	j_tri(w, "hypervisor_flag", si->virt.hypervisor_flag);
	jw_str(w, "hypervisor_type", si->virt.hypervisor_type);
	jw_str(w, "dmi_sys_vendor", si->virt.dmi_vendor);
	jw_str(w, "dmi_product_name", si->virt.dmi_product);
	jw_num(w, "steal_seconds", si->virt.steal_seconds);
	jw_obj_end(w);

	jw_obj_begin(w, "io_uring");
	jw_bool(w, "probed", si->uring.state != SYSINFO_URING_NOT_PROBED);
	if (si->uring.state == SYSINFO_URING_NOT_PROBED)
		jw_null(w, "available");
	else
		jw_bool(w, "available", si->uring.state == SYSINFO_URING_AVAILABLE);
	if (si->uring.state == SYSINFO_URING_UNAVAILABLE) {
		jw_int(w, "errno", si->uring.err);
		jw_str(w, "reason", si->uring.text);
	} else {
		jw_null(w, "errno");
		jw_null(w, "reason");
	}
	j_i64(w, "io_uring_disabled", si->uring.disabled_sysctl);
	jw_obj_end(w);

	jw_obj_begin(w, "features");
	for (size_t i = 0; i < sizeof(features) / sizeof(features[0]); i++)
		jw_bool(w, features[i].name, features[i].on);
	jw_obj_end(w);

	jw_obj_end(w);
}

/* ---- text -------------------------------------------------------------------- */

#define UNKNOWN "unknown"

/* A column-aligned table of strings it owns. */
struct tbl {
	size_t cols, rows, cap;
	char **cells;
};

static void tbl_init(struct tbl *t, size_t cols)
{
	t->cols = cols;
	t->rows = 0;
	t->cap = 0;
	t->cells = NULL;
}

/* Appends one row of t->cols strings (copied). */
static void tbl_row(struct tbl *t, ...)
{
	va_list ap;

	if (t->rows == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 8;
		t->cells = xrealloc(t->cells, t->cap * t->cols * sizeof(*t->cells));
	}
	va_start(ap, t);
	for (size_t c = 0; c < t->cols; c++) {
		const char *s = va_arg(ap, const char *);

		t->cells[t->rows * t->cols + c] = xstrdup(s ? s : UNKNOWN);
	}
	va_end(ap);
	t->rows++;
}

/* Prints the rows, each indented by two spaces, and frees the table. */
static void tbl_flush(FILE *f, struct tbl *t)
{
	size_t *width = xcalloc(t->cols, sizeof(*width));

	for (size_t r = 0; r < t->rows; r++)
		for (size_t c = 0; c < t->cols; c++) {
			size_t l = strlen(t->cells[r * t->cols + c]);

			if (l > width[c])
				width[c] = l;
		}
	for (size_t r = 0; r < t->rows; r++) {
		char **row = &t->cells[r * t->cols];
		size_t last = t->cols - 1;

		/* Empty trailing cells print nothing, so no line ends in blanks. */
		while (last > 0 && !row[last][0])
			last--;
		fputs("  ", f);
		for (size_t c = 0; c < last; c++)
			fprintf(f, "%-*s  ", (int)width[c], row[c]);
		fprintf(f, "%s\n", row[last]);
	}
	for (size_t i = 0; i < t->rows * t->cols; i++)
		free(t->cells[i]);
	free(t->cells);
	free(width);
	tbl_init(t, t->cols);
}

/* "23.4 GiB"; bytes below 1 KiB as "512 B"; "unknown" when negative. */
static const char *fmt_size(char *buf, size_t n, int64_t bytes)
{
	return bytes < 0 ? UNKNOWN : units_fmt_size(buf, n, (double)bytes, UNITS_FMT_DEC1);
}

static const char *fmt_i64(char *buf, size_t n, int64_t v)
{
	if (v < 0)
		return UNKNOWN;
	snprintf(buf, n, "%" PRId64, v);
	return buf;
}

static const char *fmt_tri(enum sysinfo_tri t, const char *yes, const char *no)
{
	if (t == SYSINFO_YES)
		return yes;
	if (t == SYSINFO_NO)
		return no;
	return UNKNOWN;
}

static const char *or_unknown(const char *s)
{
	return s ? s : UNKNOWN;
}

static void field(FILE *f, const char *label, const char *fmt, ...) PRINTF_LIKE(3, 4);

static void field(FILE *f, const char *label, const char *fmt, ...)
{
	va_list ap;

	fprintf(f, "  %-18s ", label);
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
}

static const char *fmt_mhz(char *buf, size_t n, double mhz)
{
	if (isnan(mhz))
		return UNKNOWN;
	snprintf(buf, n, "%.0f MHz", mhz);
	return buf;
}

static void text_freq(FILE *f, const struct sysinfo_cpu *c)
{
	char cur[32], max[32];

	switch (c->freq_source) {
	case SYSINFO_FREQ_CPUFREQ:
		field(f, "frequency", "%.0f MHz (cpufreq, %s)", c->freq_mhz,
		      or_unknown(c->freq_source_detail));
		break;
	case SYSINFO_FREQ_CALIBRATED:
		field(f, "frequency", "%.0f MHz (calibrated loop, estimate)", c->freq_mhz);
		break;
	case SYSINFO_FREQ_CPUINFO_BOOT:
		field(f, "frequency", "%.0f MHz (/proc/cpuinfo boot value; may be wrong in a VM)",
		      c->freq_mhz);
		break;
	case SYSINFO_FREQ_UNKNOWN:
		field(f, "frequency", UNKNOWN);
		break;
	}
	if (isnan(c->cpufreq_cur_mhz) && isnan(c->cpufreq_max_mhz))
		field(f, "  cpufreq", "not available");
	else
		field(f, "  cpufreq", "scaling_cur_freq %s, cpuinfo_max_freq %s",
		      fmt_mhz(cur, sizeof(cur), c->cpufreq_cur_mhz),
		      fmt_mhz(max, sizeof(max), c->cpufreq_max_mhz));
	if (!isnan(c->calibrated_mhz))
		field(f, "  calibrated loop", "%.0f MHz (%s; %d runs of %" PRIu64 " adds)",
		      c->calibrated_mhz, or_unknown(c->calibration_method), c->calibration_runs,
		      c->calibration_adds);
	else
		field(f, "  calibrated loop", "not run");
	if (!isnan(c->cpuinfo_mhz))
		field(f, "  /proc/cpuinfo", "%.0f MHz (boot/nominal value)", c->cpuinfo_mhz);
	else
		field(f, "  /proc/cpuinfo", "no cpu MHz line");
}

static void text_cpu(FILE *f, const struct sysinfo_cpu *c)
{
	char a[32], b[32], d[32];

	fputs("cpu\n", f);
	field(f, "model", "%s", or_unknown(c->model));
	if (c->system_type)
		field(f, "system type", "%s", c->system_type);
	field(f, "architecture", "%s", or_unknown(c->arch));
	field(f, "logical cpus", "%s configured, %s online (%s)", fmt_i64(a, sizeof(a), c->configured),
	      fmt_i64(b, sizeof(b), c->online), or_unknown(c->online_list));
	if (c->cores >= 0)
		field(f, "topology", "%s socket(s), %s core(s), %s thread(s) per core",
		      fmt_i64(a, sizeof(a), c->sockets), fmt_i64(b, sizeof(b), c->cores),
		      fmt_i64(d, sizeof(d), c->threads_per_core));
	else
		field(f, "topology", UNKNOWN);
	text_freq(f, c);
}

static void text_mem(FILE *f, const struct sysinfo_mem *m)
{
	char a[32];

	fputs("\nmemory\n", f);
	field(f, "total", "%s", fmt_size(a, sizeof(a), m->total_bytes));
	field(f, "available", "%s", fmt_size(a, sizeof(a), m->available_bytes));
	if (m->cgroup_version)
		field(f, "cgroup", "v%d %s", m->cgroup_version, or_unknown(m->cgroup_path));
	else
		field(f, "cgroup", UNKNOWN);
	if (m->cgroup_limit == SYSINFO_LIMIT_SET)
		field(f, "cgroup limit", "%s", fmt_size(a, sizeof(a), m->cgroup_limit_bytes));
	else
		field(f, "cgroup limit", "%s", sysinfo_limit_name(m->cgroup_limit));
	field(f, "effective", "%s%s", fmt_size(a, sizeof(a), m->effective_bytes),
	      m->effective_bytes < 0 ? "" :
	      m->cgroup_limit == SYSINFO_LIMIT_SET && m->effective_bytes == m->cgroup_limit_bytes ?
				       " (cgroup limit)" : " (MemTotal)");
}

static void text_swap(FILE *f, const struct sysinfo *si)
{
	char a[32], b[32], c[32];
	struct tbl t;

	fputs("\nswap\n", f);
	field(f, "swappiness", "%s", fmt_i64(a, sizeof(a), si->swappiness));
	if (si->page_cluster >= 0 && si->page_cluster < 31)
		field(f, "page-cluster", "%d (%d pages per swap-in read)", si->page_cluster,
		      1 << si->page_cluster);
	else
		field(f, "page-cluster", UNKNOWN);
	field(f, "zswap", "%s", fmt_tri(si->zswap_enabled, "enabled", "disabled"));
	if (!si->nr_swaps) {
		field(f, "devices", "none");
		return;
	}
	tbl_init(&t, 5);
	tbl_row(&t, "NAME", "TYPE", "SIZE", "USED", "PRIO");
	for (size_t i = 0; i < si->nr_swaps; i++) {
		const struct sysinfo_swap *s = &si->swaps[i];

		if (s->priority_known)
			snprintf(c, sizeof(c), "%d", s->priority);
		tbl_row(&t, s->name, sysinfo_swap_type_name(s->type),
			fmt_size(a, sizeof(a), s->size_bytes), fmt_size(b, sizeof(b), s->used_bytes),
			s->priority_known ? c : UNKNOWN);
	}
	tbl_flush(f, &t);
}

/*
 * Each disk's negotiated link, one paragraph a disk: the link, what the
 * device and its port support, and the judgement (docs/info.md).
 */
static void text_links(FILE *f, const struct sysinfo *si)
{
	char text[1024];
	bool any = false;

	for (size_t i = 0; i < si->nr_blks; i++) {
		const struct sysinfo_blk *b = &si->blks[i];

		if (!b->link_read)
			continue;
		if (!any)
			fputs("\nlinks (negotiated; what the device and its port support)\n", f);
		any = true;
		devlink_describe(&b->link, text, sizeof(text));
		fprintf(f, "  %-8s %s%s\n", b->name, devlink_below(&b->link) ? "BELOW CAPABILITY: " : "", text);
	}
}

static void text_blk(FILE *f, const struct sysinfo *si)
{
	char sz[32], ra[32], nr[32], mx[32], bs[64];
	struct tbl t;

	fputs("\nblock devices\n", f);
	if (!si->nr_blks) {
		field(f, "devices", "none found");
		return;
	}
	tbl_init(&t, 12);
	tbl_row(&t, "NAME", "SIZE", "ROT", "RM", "RO", "SCHED", "RA_KB", "NR_REQ", "MAX_KB",
		"WCACHE", "LOG/PHYS", "MODEL");
	for (size_t i = 0; i < si->nr_blks; i++) {
		const struct sysinfo_blk *b = &si->blks[i];
		char lb[32], pb[32];

		snprintf(bs, sizeof(bs), "%s/%s", fmt_i64(lb, sizeof(lb), b->logical_block_bytes),
			 fmt_i64(pb, sizeof(pb), b->physical_block_bytes));
		tbl_row(&t, b->name, fmt_size(sz, sizeof(sz), b->size_bytes),
			fmt_tri(b->rotational, "1", "0"), fmt_tri(b->removable, "1", "0"),
			fmt_tri(b->readonly, "1", "0"), b->scheduler,
			fmt_i64(ra, sizeof(ra), b->read_ahead_kb), fmt_i64(nr, sizeof(nr), b->nr_requests),
			fmt_i64(mx, sizeof(mx), b->max_sectors_kb), b->write_cache, bs,
			b->model ? b->model : "");
	}
	tbl_flush(f, &t);
	for (size_t i = 0; i < si->nr_blks; i++)
		if (si->blks[i].schedulers && strchr(si->blks[i].schedulers, ' '))
			fprintf(f, "  %s schedulers: %s\n", si->blks[i].name, si->blks[i].schedulers);
	fputs("  (from /sys/block/*/queue; hdparm's readahead in sectors = RA_KB x 2)\n", f);
	text_links(f, si);
}

static void text_mounts(FILE *f, const struct sysinfo *si)
{
	bool any_sync = false;
	struct tbl t;

	fputs("\nmounts\n", f);
	if (!si->nr_mounts) {
		field(f, "mounts", "none found");
		return;
	}
	tbl_init(&t, 5);
	tbl_row(&t, "DEVICE", "MOUNT", "TYPE", "OPTIONS", "");
	for (size_t i = 0; i < si->nr_mounts; i++) {
		const struct sysinfo_mount *m = &si->mounts[i];

		tbl_row(&t, m->device, m->mount_point, m->fs_type, m->options, m->sync ? "SYNC!" : "");
		any_sync |= m->sync;
	}
	tbl_flush(f, &t);
	if (any_sync)
		fputs("  SYNC!: mounted sync/dirsync: every write waits for the device, which "
		      "multiplies write requests (slow, and wears out flash)\n", f);
}

static void text_net(FILE *f, const struct sysinfo *si)
{
	char mtu[32], sp[48];
	struct tbl t;

	fputs("\nnetwork\n", f);
	if (!si->nr_nets) {
		field(f, "interfaces", "none found");
		return;
	}
	tbl_init(&t, 6);
	tbl_row(&t, "NAME", "MTU", "STATE", "SPEED", "DRIVER", "KIND");
	for (size_t i = 0; i < si->nr_nets; i++) {
		const struct sysinfo_net *n = &si->nets[i];

		if (n->speed_mbit_per_s > 0)
			snprintf(sp, sizeof(sp), "%" PRId64 " Mbit/s", n->speed_mbit_per_s);
		tbl_row(&t, n->name, fmt_i64(mtu, sizeof(mtu), n->mtu_bytes), n->operstate,
			n->speed_mbit_per_s > 0 ? sp : UNKNOWN,
			n->driver ? n->driver : n->is_virtual ? "-" : UNKNOWN,
			n->is_virtual ? "virtual" : "device");
	}
	tbl_flush(f, &t);
}

static void text_rest(FILE *f, const struct sysinfo *si)
{
	fputs("\nkernel\n", f);
	field(f, "release", "%s", or_unknown(si->kernel.release));
	field(f, "version", "%s", or_unknown(si->kernel.version));
	field(f, "machine", "%s", or_unknown(si->kernel.machine));
	field(f, "hostname", "%s", or_unknown(si->kernel.hostname));

	fputs("\nvirtualisation\n", f);
	field(f, "hypervisor flag", "%s", fmt_tri(si->virt.hypervisor_flag, "yes (running in a VM)",
						  "no"));
	field(f, "hypervisor type", "%s", or_unknown(si->virt.hypervisor_type));
	field(f, "dmi vendor", "%s", or_unknown(si->virt.dmi_vendor));
	field(f, "dmi product", "%s", or_unknown(si->virt.dmi_product));
	if (isnan(si->virt.steal_seconds))
		field(f, "steal time", UNKNOWN);
	else
		field(f, "steal time", "%.2f s since boot (CPU time the host gave to others)",
		      si->virt.steal_seconds);

	fputs("\nio_uring\n", f);
	switch (si->uring.state) {
	case SYSINFO_URING_NOT_PROBED:
		field(f, "io_uring_setup", "not probed");
		break;
	case SYSINFO_URING_AVAILABLE:
		field(f, "io_uring_setup", "available");
		break;
	case SYSINFO_URING_UNAVAILABLE:
		field(f, "io_uring_setup", "unavailable: %s", or_unknown(si->uring.text));
		break;
	}
	switch (si->uring.disabled_sysctl) {
	case -1:
		field(f, "io_uring_disabled", "unknown (no such sysctl)");
		break;
	case 0:
		field(f, "io_uring_disabled", "0 (allowed)");
		break;
	case 1:
		field(f, "io_uring_disabled", "1 (only for privileged or io_uring_group)");
		break;
	default:
		field(f, "io_uring_disabled", "%d (disabled)", si->uring.disabled_sysctl);
		break;
	}
}

/* "liburing, sqlite" of the features that are ON (or off), or "none". */
static void feature_list(char *buf, size_t len, bool on)
{
	size_t n = 0;

	buf[0] = 0;
	for (size_t i = 0; i < sizeof(features) / sizeof(features[0]); i++)
		if (features[i].on == on && n < len)
			n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? ", " : "", features[i].name);
	if (!n)
		snprintf(buf, len, "none");
}

static void text_features(FILE *f)
{
	char with[128], without[128];

	feature_list(with, sizeof(with), true);
	feature_list(without, sizeof(without), false);
	fputs("\nbuild\n", f);
	field(f, "built with", "%s", with);
	field(f, "built without", "%s%s", without, strcmp(without, "none") ? " (the steps that need them are skipped)" : "");
}

void info_render_table(FILE *f, const struct sysinfo *si)
{
	text_cpu(f, &si->cpu);
	text_mem(f, &si->mem);
	text_swap(f, si);
	text_blk(f, si);
	text_mounts(f, si);
	text_net(f, si);
	text_rest(f, si);
	text_features(f);
}
