/* SPDX-License-Identifier: MIT */
/*
 * Heat; see thermal.h. Discovery walks the sysfs directories once and
 * keeps one open file per value read later; a snapshot is a pread() per
 * sensor and per CPU cooling device, an edge one per throttle counter.
 */
#include "core/kernel/thermal.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/kernel/proc.h"
#include "lib/units.h"
#include "lib/xalloc.h"

struct sensor {
	int fd;
	char name[40];
	char trip[10];
	double trip_c;			/* NaN none */
	double first_c, last_c, max_c;	/* NaN until a reading */
};

struct cooling {
	int fd;
	char type[24];
	double max_state;		/* NaN unknown */
	double seen_max;		/* NaN until a reading */
};

struct cpu_throttle {
	int fd[2];			/* core, package; -1 none */
	uint64_t at_start[2];
	bool ok[2];			/* at_start holds a reading */
	uint64_t moved[2];		/* summed over spans */
};

struct thermal {
	struct sensor sensor[THERMAL_MAX_SENSORS];
	size_t nsensor;
	struct cooling cool[THERMAL_MAX_COOLING];
	size_t ncool;
	struct cpu_throttle *cpu;	/* THERMAL_MAX_CPUS */
	size_t ncpu;
	bool throttle_read;		/* a span's differences were added */
};

/* Copies TEXT[0..LEN) without surrounding white space into BUF; false if it does not fit. */
static bool trimmed(const char *text, size_t len, char *buf, size_t blen)
{
	while (len && isspace((unsigned char)text[len - 1]))
		len--;
	while (len && isspace((unsigned char)*text)) {
		text++;
		len--;
	}
	/* An embedded NUL would end the number early and hide what follows: not a value. */
	if (len >= blen || memchr(text, 0, len))
		return false;
	memcpy(buf, text, len);
	buf[len] = 0;
	return true;
}

int thermal_parse_millideg(const char *text, size_t len, double *celsius)
{
	char buf[24];
	int64_t v;

	if (!trimmed(text, len, buf, sizeof(buf)) || units_parse_int64(buf, INT64_MIN, INT64_MAX, &v))
		return -EINVAL;
	if ((double)v / 1000 < THERMAL_MIN_C || (double)v / 1000 > THERMAL_MAX_C)
		return -ERANGE;
	*celsius = (double)v / 1000;
	return 0;
}

int thermal_parse_count(const char *text, size_t len, uint64_t *out)
{
	char buf[24];

	if (!trimmed(text, len, buf, sizeof(buf)) || units_parse_uint64(buf, 0, UINT64_MAX, out))
		return -EINVAL;
	return 0;
}

bool thermal_cooling_is_cpu(const char *type)
{
	return strstr(type, "cpufreq") || !strcmp(type, "Processor") || strstr(type, "powerclamp");
}

/* pread of a whole small value at offset 0; the text's length or -errno. */
static ssize_t read_fd(int fd, char *buf, size_t len)
{
	ssize_t r;

	do
		r = pread(fd, buf, len, 0);
	while (r < 0 && errno == EINTR);
	return r < 0 ? -errno : r;
}

static int read_temp(int fd, double *c)
{
	char buf[32];
	ssize_t n = read_fd(fd, buf, sizeof(buf));

	return n < 0 ? (int)n : thermal_parse_millideg(buf, (size_t)n, c);
}

static int read_count(int fd, uint64_t *v)
{
	char buf[32];
	ssize_t n = read_fd(fd, buf, sizeof(buf));

	return n < 0 ? (int)n : thermal_parse_count(buf, (size_t)n, v);
}

/* A temperature file's value, read once by path: a trip point or a hwmon limit. NaN if none. */
static double temp_at(const char *path)
{
	char line[32];
	double c;

	if (proc_read_line(path, line, sizeof(line)) || thermal_parse_millideg(line, strlen(line), &c) ||
	    c < THERMAL_TRIP_MIN_C)
		return NAN;
	return c;
}

static bool prefixed_num(const char *name, const char *prefix)
{
	size_t n = strlen(prefix);

	return !strncmp(name, prefix, n) && isdigit((unsigned char)name[n]);
}

/* Adds a sensor reading PATH, named NAME, if it opens and gives a first reading. */
static struct sensor *sensor_add(struct thermal *t, const char *path, const char *name)
{
	struct sensor *s;
	int fd;

	if (t->nsensor == THERMAL_MAX_SENSORS)
		return NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	s = &t->sensor[t->nsensor++];
	s->fd = fd;
	snprintf(s->name, sizeof(s->name), "%s", name);
	s->trip_c = s->first_c = s->last_c = s->max_c = NAN;
	return s;
}

/* Lowest trip at which the kernel acts to cut heat: passive (throttle), hot, critical. */
static void zone_trips(struct sensor *s, const char *dir)
{
	static const char *const kinds[] = { "passive", "hot", "critical" };

	for (int i = 0; i < 32; i++) {
		char path[512], type[16];
		double c;

		if (proc_path(path, sizeof(path), "%s/trip_point_%d_type", dir, i))
			break;
		if (proc_read_line(path, type, sizeof(type)))
			break;
		if (proc_path(path, sizeof(path), "%s/trip_point_%d_temp", dir, i))
			break;
		c = temp_at(path);
		for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
			if (!strcmp(type, kinds[k]) && !isnan(c) && !(c >= s->trip_c)) {
				s->trip_c = c;
				snprintf(s->trip, sizeof(s->trip), "%s", kinds[k]);
			}
	}
}

/* thermal_zone* and the CPU cooling devices under ROOT/class/thermal. */
static void find_zones(struct thermal *t, const char *root, char zones[][24], size_t *nzones)
{
	char dir[512], path[600], type[24];
	struct dirent *e;
	DIR *d;

	if (proc_path(dir, sizeof(dir), "%s/class/thermal", root))
		return;
	d = opendir(dir);
	if (!d)
		return;
	while ((e = readdir(d))) {
		if (prefixed_num(e->d_name, "thermal_zone")) {
			struct sensor *s;

			if (proc_path(path, sizeof(path), "%s/%s/type", dir, e->d_name))
				continue;
			if (proc_read_line(path, type, sizeof(type)) || !type[0])
				snprintf(type, sizeof(type), "%.23s", e->d_name);
			if (proc_path(path, sizeof(path), "%s/%s/temp", dir, e->d_name))
				continue;
			s = sensor_add(t, path, type);
			if (!s)
				continue;
			if (*nzones < THERMAL_MAX_SENSORS)
				snprintf(zones[(*nzones)++], 24, "%s", type);
			if (!proc_path(path, sizeof(path), "%s/%s", dir, e->d_name))
				zone_trips(s, path);
		} else if (prefixed_num(e->d_name, "cooling_device") && t->ncool < THERMAL_MAX_COOLING) {
			struct cooling *c = &t->cool[t->ncool];
			char line[32];
			uint64_t m;

			if (proc_path(path, sizeof(path), "%s/%s/type", dir, e->d_name))
				continue;
			if (proc_read_line(path, type, sizeof(type)) || !thermal_cooling_is_cpu(type))
				continue;
			if (proc_path(path, sizeof(path), "%s/%s/cur_state", dir, e->d_name))
				continue;
			c->fd = open(path, O_RDONLY | O_CLOEXEC);
			if (c->fd < 0)
				continue;
			snprintf(c->type, sizeof(c->type), "%s", type);
			c->max_state = NAN;
			if (!proc_path(path, sizeof(path), "%s/%s/max_state", dir, e->d_name) &&
			    !proc_read_line(path, line, sizeof(line)) && !thermal_parse_count(line, strlen(line), &m))
				c->max_state = (double)m;
			c->seen_max = NAN;
			t->ncool++;
		}
	}
	closedir(d);
}

/* The thermal framework's mirror of a zone is a hwmon device named like it, '-' as '_'. */
static bool mirrors_zone(const char *name, char zones[][24], size_t nzones)
{
	for (size_t i = 0; i < nzones; i++) {
		size_t k;

		for (k = 0; zones[i][k] && name[k] && (name[k] == zones[i][k] || (zones[i][k] == '-' && name[k] == '_'));
		     k++)
			;
		if (!zones[i][k] && !name[k])
			return true;
	}
	return false;
}

/* The tempN_input files of one hwmon device DIR named NAME. */
static void find_hwmon_inputs(struct thermal *t, const char *dir, const char *name)
{
	struct dirent *e;
	DIR *d = opendir(dir);

	if (!d)
		return;
	while ((e = readdir(d))) {
		char path[600], label[24], full[40];
		const char *end;
		struct sensor *s;
		double mx, cr;
		int n;

		if (!prefixed_num(e->d_name, "temp") || !(end = strchr(e->d_name, '_')) || strcmp(end, "_input"))
			continue;
		n = atoi(e->d_name + 4);
		if (proc_path(path, sizeof(path), "%s/temp%d_label", dir, n))
			continue;
		if (proc_read_line(path, label, sizeof(label)) || !label[0])
			snprintf(label, sizeof(label), "temp%d", n);
		snprintf(full, sizeof(full), "%.15s %.23s", name, label);
		if (proc_path(path, sizeof(path), "%s/%s", dir, e->d_name))
			continue;
		s = sensor_add(t, path, full);
		if (!s)
			continue;
		mx = proc_path(path, sizeof(path), "%s/temp%d_max", dir, n) ? NAN : temp_at(path);
		cr = proc_path(path, sizeof(path), "%s/temp%d_crit", dir, n) ? NAN : temp_at(path);
		/* The lower of the two is where the part wants to stay below. */
		if (!isnan(mx) && !(cr < mx)) {
			s->trip_c = mx;
			snprintf(s->trip, sizeof(s->trip), "max");
		} else if (!isnan(cr)) {
			s->trip_c = cr;
			snprintf(s->trip, sizeof(s->trip), "crit");
		}
	}
	closedir(d);
}

static void find_hwmon(struct thermal *t, const char *root, char zones[][24], size_t nzones)
{
	char dir[512], path[600], name[24];
	struct dirent *e;
	DIR *d;

	if (proc_path(dir, sizeof(dir), "%s/class/hwmon", root))
		return;
	d = opendir(dir);
	if (!d)
		return;
	while ((e = readdir(d))) {
		if (!prefixed_num(e->d_name, "hwmon"))
			continue;
		if (proc_path(path, sizeof(path), "%s/%s/name", dir, e->d_name))
			continue;
		if (proc_read_line(path, name, sizeof(name)) || !name[0])
			snprintf(name, sizeof(name), "%.23s", e->d_name);
		if (mirrors_zone(name, zones, nzones))
			continue;
		if (proc_path(path, sizeof(path), "%s/%s", dir, e->d_name))
			continue;
		find_hwmon_inputs(t, path, name);
	}
	closedir(d);
}

static void find_throttle(struct thermal *t, const char *root)
{
	static const char *const file[2] = { "core_throttle_count", "package_throttle_count" };
	char dir[512], path[700];
	struct dirent *e;
	DIR *d;

	if (proc_path(dir, sizeof(dir), "%s/devices/system/cpu", root))
		return;
	d = opendir(dir);
	if (!d)
		return;
	while ((e = readdir(d)) && t->ncpu < THERMAL_MAX_CPUS) {
		struct cpu_throttle *c;

		if (!prefixed_num(e->d_name, "cpu"))
			continue;
		if (!t->cpu)
			t->cpu = xcalloc(THERMAL_MAX_CPUS, sizeof(*t->cpu));
		c = &t->cpu[t->ncpu];
		for (int k = 0; k < 2; k++) {
			c->fd[k] = -1;
			if (proc_path(path, sizeof(path), "%s/%s/thermal_throttle/%s", dir, e->d_name, file[k]))
				continue;
			c->fd[k] = open(path, O_RDONLY | O_CLOEXEC);
		}
		if (c->fd[0] >= 0 || c->fd[1] >= 0)
			t->ncpu++;
	}
	closedir(d);
}

struct thermal *thermal_open(const char *sys_root)
{
	struct thermal *t = xcalloc(1, sizeof(*t));
	const char *root = sys_root ? sys_root : "/sys";
	char (*zones)[24] = xcalloc(THERMAL_MAX_SENSORS, sizeof(*zones));
	size_t nzones = 0;

	find_zones(t, root, zones, &nzones);
	find_hwmon(t, root, zones, nzones);
	find_throttle(t, root);
	free(zones);
	return t;
}

void thermal_sample(struct thermal *t)
{
	for (size_t i = 0; i < t->nsensor; i++) {
		struct sensor *s = &t->sensor[i];
		double c;

		if (read_temp(s->fd, &c))
			continue;
		if (isnan(s->first_c))
			s->first_c = c;
		s->last_c = c;
		if (!(c <= s->max_c))
			s->max_c = c;
	}
	for (size_t i = 0; i < t->ncool; i++) {
		uint64_t st;

		if (!read_count(t->cool[i].fd, &st) && !((double)st <= t->cool[i].seen_max))
			t->cool[i].seen_max = (double)st;
	}
}

void thermal_edge(struct thermal *t, bool start)
{
	for (size_t i = 0; i < t->ncpu; i++) {
		struct cpu_throttle *c = &t->cpu[i];

		for (int k = 0; k < 2; k++) {
			uint64_t v = 0;
			bool ok = c->fd[k] >= 0 && !read_count(c->fd[k], &v);

			if (start) {
				c->ok[k] = ok;
				c->at_start[k] = v;
			} else if (ok && c->ok[k]) {
				/* A counter that went backwards (the CPU went offline and back) adds nothing. */
				if (v > c->at_start[k])
					c->moved[k] += v - c->at_start[k];
				t->throttle_read = true;
			}
		}
	}
}

static void view_temp(struct sysview_temp *o, const struct sensor *s)
{
	snprintf(o->name, sizeof(o->name), "%s", s->name);
	o->start_c = s->first_c;
	o->end_c = s->last_c;
	o->max_c = s->max_c;
	o->trip_c = s->trip_c;
	snprintf(o->trip, sizeof(o->trip), "%s", s->trip);
}

void thermal_view(const struct thermal *t, struct sysview *v)
{
	const struct sensor *top[SYSVIEW_TEMPS] = { NULL };
	const struct sensor *hit = NULL;
	double best = NAN;

	v->temp_sensors = 0;
	v->temp_unreadable = 0;
	for (size_t i = 0; i < t->nsensor; i++) {
		const struct sensor *s = &t->sensor[i];
		int k;

		if (isnan(s->max_c)) {
			v->temp_unreadable++;
			continue;
		}
		v->temp_sensors++;
		if (!isnan(s->trip_c) && s->max_c >= s->trip_c && (!hit || s->max_c > hit->max_c))
			hit = s;
		/* Insert into the hottest SYSVIEW_TEMPS, found order kept among equals. */
		for (k = 0; k < SYSVIEW_TEMPS && top[k] && top[k]->max_c >= s->max_c; k++)
			;
		if (k == SYSVIEW_TEMPS)
			continue;
		memmove(&top[k + 1], &top[k], (SYSVIEW_TEMPS - 1 - (size_t)k) * sizeof(top[0]));
		top[k] = s;
	}
	for (int k = 0; k < SYSVIEW_TEMPS && top[k]; k++)
		view_temp(&v->temps[k], top[k]);
	if (hit)
		view_temp(&v->temp_hit, hit);

	v->throttle_cpus = (int)t->ncpu;
	v->throttle_cpus_moved = 0;
	if (t->ncpu && t->throttle_read) {
		v->throttle_core_events = v->throttle_package_events = 0;
		for (size_t i = 0; i < t->ncpu; i++) {
			const struct cpu_throttle *c = &t->cpu[i];

			if (c->moved[0] || c->moved[1])
				v->throttle_cpus_moved++;
			if (c->fd[0] >= 0 && (double)c->moved[0] > v->throttle_core_events)
				v->throttle_core_events = (double)c->moved[0];
			if (c->fd[1] >= 0 && (double)c->moved[1] > v->throttle_package_events)
				v->throttle_package_events = (double)c->moved[1];
		}
	}

	v->cooling_devices = (int)t->ncool;
	for (size_t i = 0; i < t->ncool; i++) {
		const struct cooling *c = &t->cool[i];

		if (isnan(c->seen_max) || c->seen_max <= best)
			continue;
		best = c->seen_max;
		snprintf(v->cooling_name, sizeof(v->cooling_name), "%s", c->type);
		v->cooling_state_max = c->seen_max;
		v->cooling_state_limit = c->max_state;
	}
}

void thermal_free(struct thermal *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nsensor; i++)
		close(t->sensor[i].fd);
	for (size_t i = 0; i < t->ncool; i++)
		close(t->cool[i].fd);
	for (size_t i = 0; i < t->ncpu; i++)
		for (int k = 0; k < 2; k++)
			if (t->cpu[i].fd[k] >= 0)
				close(t->cpu[i].fd[k]);
	free(t->cpu);
	free(t);
}
