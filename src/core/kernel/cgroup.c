/* SPDX-License-Identifier: MIT */
/*
 * Cgroups of a process (cgroup.h): where they are, v1, v2 or hybrid, the
 * tightest limits on the path from the process's cgroup up to the mount
 * point, and the counters there. The text parsers at the bottom are pure;
 * everything above them reads files under ROOT with one bounded buffer
 * per call.
 */
#include "core/kernel/cgroup.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/kernel/proc.h"
#include "lib/compiler.h"
#include "lib/xalloc.h"

/* Largest cgroup file read; a bigger one is -EFBIG (io.max of thousands of devices). */
#define CG_FILE_MAX (64u << 10)

/* v1 memory limits from here up are the kernel's "unlimited" (PAGE_COUNTER_MAX in bytes). */
#define CG_V1_UNLIMITED (1ull << 62)

static const char *const v1_names[CG_NCTRL] = { "cpu", "cpuacct", "cpuset", "memory", "blkio" };
static const char *const v2_names[CG_NCTRL] = { "cpu", "cpuacct", "cpuset", "memory", "io" };

const char *cgroup_ctrl_name(enum cg_ctrl c, int version)
{
	if ((unsigned)c >= CG_NCTRL)
		return "?";
	return version == 2 ? v2_names[c] : v1_names[c];
}

/* ------------------------------------------------------------------ */
/* Small helpers */

/* Short lower-case text of an -errno for the why[] fields. */
static const char *err_text(int err)
{
	switch (-err) {
	case EACCES:
	case EPERM:
		return "permission denied";
	case ENOENT:
		return "missing";
	case EISDIR:
		return "is a directory";
	case EFBIG:
		return "too large";
	case EINVAL:
		return "malformed";
	case ENAMETOOLONG:
		return "path too long";
	default:
		return strerror(-err);
	}
}

/*
 * Reads the file PATH whole into BUF (CG_FILE_MAX bytes), NUL-terminated.
 * Returns its length, or -errno (-EFBIG when it does not fit).
 */
static ssize_t read_text(const char *path, char *buf)
{
	size_t len = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t r = read(fd, buf + len, CG_FILE_MAX - 1 - len);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			close(fd);
			return r;
		}
		if (r == 0)
			break;
		len += (size_t)r;
		if (len == CG_FILE_MAX - 1) {
			char c;

			r = read(fd, &c, 1);
			close(fd);
			return r == 0 ? (ssize_t)(buf[len] = '\0', len) : -EFBIG;
		}
	}
	close(fd);
	buf[len] = '\0';
	return (ssize_t)len;
}

/* The first line of TEXT, without its newline, at most 48 bytes, for a source. */
static void first_line(char *dst, size_t n, const char *text)
{
	size_t len = strcspn(text, "\n");

	if (len > 48)
		len = 48;
	if (len >= n)
		len = n - 1;
	memcpy(dst, text, len);
	dst[len] = '\0';
}

/* [s, e) is a decimal number without sign that fits 64 bits. */
static int tok_u64(const char *s, const char *e, uint64_t *v)
{
	uint64_t x = 0;

	if (s >= e)
		return -EINVAL;
	for (; s < e; s++) {
		if (*s < '0' || *s > '9')
			return -EINVAL;
		if (x > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
			return -EINVAL;
		x = x * 10 + (uint64_t)(*s - '0');
	}
	*v = x;
	return 0;
}

/* [s, e) is "MAJ:MIN". */
static int tok_dev(const char *s, const char *e, unsigned *maj, unsigned *min)
{
	const char *c = memchr(s, ':', (size_t)(e - s));
	uint64_t a, b;

	if (!c || tok_u64(s, c, &a) || tok_u64(c + 1, e, &b) || a > UINT_MAX || b > UINT_MAX)
		return -EINVAL;
	*maj = (unsigned)a;
	*min = (unsigned)b;
	return 0;
}

/*
 * The next line of TEXT at *POS: [*ls, *le) without its newline. A final
 * line without a newline counts; the empty rest after the last newline
 * does not. Returns 1, or 0 at the end.
 */
static int next_line(const char **pos, const char **ls, const char **le)
{
	const char *p = *pos, *nl;

	if (!*p)
		return 0;
	nl = strchr(p, '\n');
	*ls = p;
	*le = nl ? nl : p + strlen(p);
	*pos = nl ? nl + 1 : *le;
	return 1;
}

/* The next space-separated word of [*p, e): [*ws, *we). Exactly one space between words. */
static int next_word(const char **p, const char *e, const char **ws, const char **we)
{
	const char *s = *p, *sp;

	if (s >= e)
		return 0;
	sp = memchr(s, ' ', (size_t)(e - s));
	*ws = s;
	*we = sp ? sp : e;
	*p = sp ? sp + 1 : e;
	return 1;
}

static bool word_is(const char *s, const char *e, const char *w)
{
	size_t n = strlen(w);

	return (size_t)(e - s) == n && !memcmp(s, w, n);
}

/* ------------------------------------------------------------------ */
/* Locating */

struct locate_ctx {
	bool v1[CG_NCTRL];
	char v1path[CG_NCTRL][PATH_MAX];
	bool v2;
	char v2path[PATH_MAX];
	/* The mount chosen per controller (v1) and for v2: root and mount point. */
	bool v1m[CG_NCTRL], v1m_under[CG_NCTRL];
	char v1root[CG_NCTRL][PATH_MAX], v1point[CG_NCTRL][PATH_MAX];
	bool v2m, v2m_under;
	char v2root[PATH_MAX], v2point[PATH_MAX];
	/*
	 * Where each chosen mount is reached: ROOT itself, or ROOT/proc/N/root
	 * when it was found in another process's mount namespace (alt).
	 */
	bool v1alt[CG_NCTRL], v2alt;
	char alt[PATH_MAX];
	char altwhy[64];	/* why no other namespace helped, for the reasons */
	char buf[CG_FILE_MAX];
};

static int locate_line(void *arg, int id, const char *ctrls, const char *path)
{
	struct locate_ctx *x = arg;

	if (id == 0 && !*ctrls) {
		x->v2 = true;
		return proc_path(x->v2path, sizeof(x->v2path), "%s", path) ? -EINVAL : 0;
	}
	for (int c = 0; c < CG_NCTRL; c++) {
		if (!proc_mount_has_opt(ctrls, v1_names[c]))
			continue;
		x->v1[c] = true;
		if (proc_path(x->v1path[c], sizeof(x->v1path[c]), "%s", path))
			return -EINVAL;
	}
	return 0;
}

/* Whether cgroup PATH lies in the subtree ROOT ("/" holds everything). */
static bool path_under(const char *path, const char *root)
{
	size_t n = strlen(root);

	if (!strcmp(root, "/"))
		return true;
	return !strncmp(path, root, n) && (path[n] == '\0' || path[n] == '/');
}

/* Remembers a mount for one controller: the first, or the first that holds PATH. */
static void take_mount(const struct proc_mount *m, const char *path, bool *have, bool *under, char *root,
		       char *point)
{
	bool u = path_under(path, m->root);

	if (*have && (*under || !u))
		return;
	*have = true;
	*under = u;
	snprintf(root, PATH_MAX, "%s", m->root);
	snprintf(point, PATH_MAX, "%s", m->mount_point);
}

/* Fills OUT's entry C from the cgroup PATH and the mount (MROOT at POINT) of VERSION. */
static void place(struct cgroup_loc *out, enum cg_ctrl c, int version, const char *root, const char *path,
		  const char *mroot, const char *point)
{
	const char *rel = path;

	/* A cgroup namespace shows what lies outside it as "/..". */
	if (!path_under(path, mroot) || strstr(path, "/../") || !strcmp(path, "/..") ||
	    (strlen(path) >= 3 && !strcmp(path + strlen(path) - 3, "/.."))) {
		proc_path(out->why[c], sizeof(out->why[c]), "outside this mount namespace's view");
		return;
	}
	if (strcmp(mroot, "/"))
		rel = path + strlen(mroot);
	if (!strcmp(rel, "/"))
		rel = "";
	if (!strcmp(point, "/"))
		point = "";
	if (proc_path(out->top[c], sizeof(out->top[c]), "%s%s", root, *point ? point : "/") ||
	    proc_path(out->dir[c], sizeof(out->dir[c]), "%s%s%s", root, point, rel) ||
	    (!out->dir[c][0] && proc_path(out->dir[c], sizeof(out->dir[c]), "/"))) {
		out->top[c][0] = out->dir[c][0] = '\0';
		proc_path(out->why[c], sizeof(out->why[c]), "%s cgroup path too long", cgroup_ctrl_name(c, version));
		return;
	}
	out->version[c] = version;
}

/* Whether the space-separated list TEXT (cgroup.controllers) names W. */
static bool list_has(const char *text, const char *w)
{
	size_t n = strlen(w);

	for (const char *p = text; *p;) {
		size_t len = strcspn(p, " \n");

		if (len == n && !memcmp(p, w, n))
			return true;
		p += len;
		p += strspn(p, " \n");
	}
	return false;
}

/*
 * Scans the mount table TEXT (LEN bytes, mountinfo) for the hierarchies X
 * wants. With ALT, only controllers that have no mount yet take one, and
 * they are marked as reached through x->alt. Returns whether any was taken.
 */
static bool scan_mounts(struct locate_ctx *x, const char *text, size_t len, bool alt)
{
	struct proc_mount *m = xmalloc(sizeof(*m));
	const char *pos = text, *end = text + len;
	bool had[CG_NCTRL], had2 = x->v2m, took = false;
	unsigned bad = 0;

	for (int c = 0; c < CG_NCTRL; c++)
		had[c] = x->v1m[c];
	while (proc_mount_next(m, PROC_MOUNTINFO, &pos, end, &bad)) {
		if (!strcmp(m->fs_type, "cgroup")) {
			for (int c = 0; c < CG_NCTRL; c++)
				if (x->v1[c] && !(alt && had[c]) && proc_mount_has_opt(m->super_opts, v1_names[c])) {
					take_mount(m, x->v1path[c], &x->v1m[c], &x->v1m_under[c], x->v1root[c],
						   x->v1point[c]);
					took |= x->v1alt[c] = alt;
				}
		} else if (!strcmp(m->fs_type, "cgroup2") && x->v2 && !(alt && had2)) {
			take_mount(m, x->v2path, &x->v2m, &x->v2m_under, x->v2root, x->v2point);
			took |= x->v2alt = alt;
		}
	}
	free(m);
	return took;
}

/* Whether a hierarchy the process is in has no mount in X. */
static bool mount_missing(const struct locate_ctx *x)
{
	for (int c = 0; c < CG_NCTRL; c++)
		if (x->v1[c] && !x->v1m[c])
			return true;
	return x->v2 && !x->v2m;
}

/* The parent of process SELF ("self" or a pid) under ROOT; 0 when unknown. */
static pid_t parent_of(const char *root, const char *self)
{
	struct proc_buf b = PROC_BUF_INIT;
	struct proc_pid_stat st;
	char path[PATH_MAX];
	pid_t pp = 0;

	if (!proc_path(path, sizeof(path), "%s/proc/%s/stat", root, self) && proc_buf_read_file(&b, path) == 0 &&
	    proc_pid_stat_parse(&st, b.data, b.len) == 0)
		pp = st.ppid;
	proc_buf_release(&b);
	return pp;
}

/*
 * The hierarchies SELF's own mount namespace does not show, found in
 * another's: `ip netns exec` unshares the mount namespace and mounts a
 * fresh /sys, so /sys/fs/cgroup is empty there while the process is still
 * in its cgroups (/proc/PID/cgroup). The namespace the process came from
 * is its ancestors' (the shell that ran ip netns exec), else init's; each
 * is read through ROOT/proc/N/mountinfo and reached through
 * ROOT/proc/N/root, which needs root (ptrace access to N). The first that
 * mounts a missing hierarchy is taken (x->alt); none: x->altwhy says why.
 */
static void locate_elsewhere(struct locate_ctx *x, const char *root, const char *self)
{
	struct proc_buf mi = PROC_BUF_INIT;
	char path[PATH_MAX], who[32] = "1";
	pid_t n = parent_of(root, self);
	int r, last = -ENOENT;

	for (int i = 0; i < 32 && mount_missing(x); i++) {
		struct stat st;

		/* The ancestors up to init, then init itself. */
		if (n <= 1)
			n = 1;
		snprintf(who, sizeof(who), "%ld", (long)n);
		proc_buf_release(&mi);
		if (proc_path(path, sizeof(path), "%s/proc/%s/root", root, who) ||
		    proc_path(x->alt, sizeof(x->alt), "%s", path))
			break;
		if (stat(path, &st) < 0) {
			last = -errno;
		} else {
			r = -ENAMETOOLONG;
			if (!proc_path(path, sizeof(path), "%s/proc/%s/mountinfo", root, who))
				r = proc_buf_read_file(&mi, path);
			if (r)
				last = r;
			else if (scan_mounts(x, mi.data, mi.len, true))
				break;
			else
				last = 0;	/* read, and it mounts none of them either */
		}
		if (n == 1)
			break;
		n = parent_of(root, who);
	}
	proc_buf_release(&mi);
	if (mount_missing(x) && last)
		snprintf(x->altwhy, sizeof(x->altwhy), " here; /proc/%s/root: %s", who, err_text(last));
	else if (mount_missing(x))
		snprintf(x->altwhy, sizeof(x->altwhy), " here or in /proc/%s/root", who);
}

int cgroup_locate(const char *root, pid_t pid, struct cgroup_loc *out)
{
	struct locate_ctx *x = xcalloc(1, sizeof(*x));
	struct proc_buf mi = PROC_BUF_INIT;
	char self[32], path[PATH_MAX];
	const char *ctrls = NULL, *v2pre;
	ssize_t len;
	int r = 0;

	memset(out, 0, sizeof(*out));
	root = root ? root : "";
	out->rootlen = strlen(root);
	if (pid)
		snprintf(self, sizeof(self), "%ld", (long)pid);
	else
		snprintf(self, sizeof(self), "self");
	if (proc_path(path, sizeof(path), "%s/proc/%s/cgroup", root, self)) {
		r = -ENAMETOOLONG;
	} else {
		len = read_text(path, x->buf);
		r = len < 0 ? (int)len : cgroup_parse_proc(x->buf, locate_line, x);
	}
	if (r) {
		for (int c = 0; c < CG_NCTRL; c++)
			proc_path(out->why[c], sizeof(out->why[c]), "/proc/%s/cgroup: %s", self, err_text(r));
		goto done;
	}

	if (proc_path(path, sizeof(path), "%s/proc/%s/mountinfo", root, self))
		r = -ENAMETOOLONG;
	else
		r = proc_buf_read_file(&mi, path);
	if (r) {
		for (int c = 0; c < CG_NCTRL; c++)
			proc_path(out->why[c], sizeof(out->why[c]), "/proc/%s/mountinfo: %s", self, err_text(r));
		r = 0;
		goto done;
	}
	scan_mounts(x, mi.data, mi.len, false);
	if (mount_missing(x))
		locate_elsewhere(x, root, self);

	/* What the v2 hierarchy offers: cgroup.controllers at its mount point. */
	v2pre = x->v2alt ? x->alt : root;
	if (x->v2m) {
		len = -ENAMETOOLONG;
		if (!proc_path(path, sizeof(path), "%s%s/cgroup.controllers", v2pre,
			 strcmp(x->v2point, "/") ? x->v2point : ""))
			len = read_text(path, x->buf);
		if (len >= 0)
			ctrls = x->buf;
		else
			r = (int)len;
	}
	for (int c = 0; c < CG_NCTRL; c++) {
		if (x->v1[c]) {
			if (x->v1m[c])
				place(out, c, 1, x->v1alt[c] ? x->alt : root, x->v1path[c], x->v1root[c], x->v1point[c]);
			else
				proc_path(out->why[c], sizeof(out->why[c]), "%s controller not mounted%s", v1_names[c],
					  x->altwhy);
		} else if (x->v2m && (c == CG_CPUACCT || (ctrls && list_has(ctrls, v2_names[c])))) {
			place(out, c, 2, v2pre, x->v2path, x->v2root, x->v2point);
		} else if (x->v2m && !ctrls) {
			proc_path(out->why[c], sizeof(out->why[c]), "cgroup.controllers: %s", err_text(r));
		} else {
			proc_path(out->why[c], sizeof(out->why[c]), "%s controller not mounted%s", v2_names[c],
				  x->v2 && !x->v2m ? x->altwhy : "");
		}
	}
	r = 0;
done:
	proc_buf_release(&mi);
	free(x);
	return r;
}

/* ------------------------------------------------------------------ */
/* Walking up the tree */

/*
 * One walk from a controller's cgroup directory up to its mount point.
 * The caller reads files at each level with walk_read(); a limit that is
 * tighter than the one so far is recorded with note().
 */
struct walk {
	const struct cgroup_loc *loc;
	enum cg_ctrl c;
	int version;
	char dir[PATH_MAX];
	bool leaf, top;
	char *buf;
};

static int walk_start(struct walk *w, const struct cgroup_loc *loc, enum cg_ctrl c)
{
	memset(w, 0, sizeof(*w));
	w->loc = loc;
	w->c = c;
	w->version = loc->version[c];
	if (w->version != 1 && w->version != 2)
		return -1;
	snprintf(w->dir, sizeof(w->dir), "%s", loc->dir[c]);
	w->leaf = true;
	w->top = strlen(w->dir) <= strlen(loc->top[c]);
	w->buf = xmalloc(CG_FILE_MAX);
	return 0;
}

/* Moves to the parent directory; 0 past the mount point. */
static int walk_up(struct walk *w)
{
	size_t toplen = strlen(w->loc->top[w->c]);
	char *slash;

	if (w->top)
		return 0;
	slash = strrchr(w->dir, '/');
	if (!slash || (size_t)(slash - w->dir) < toplen)
		slash = w->dir + toplen;
	*slash = '\0';
	if (!w->dir[0])
		snprintf(w->dir, sizeof(w->dir), "/");
	w->leaf = false;
	w->top = strlen(w->dir) <= toplen;
	return 1;
}

static void walk_end(struct walk *w)
{
	free(w->buf);
	w->buf = NULL;
}

/* The directory as shown in sources: ROOT taken off. */
static const char *shown(const struct walk *w, const char *dir)
{
	size_t n = w->loc->rootlen;

	return strlen(dir) > n ? dir + n : "/";
}

/*
 * Reads FILE at the current level into w->buf. Returns 0; 1 when a
 * missing file is no error here (the mount point, whose root cgroup has
 * no limit files; a v2 level where the controller is not enabled);
 * -errno otherwise.
 */
static int walk_read(struct walk *w, const char *file)
{
	char path[PATH_MAX];
	ssize_t len;

	if (proc_path(path, sizeof(path), "%s/%s", w->dir, file))
		return -ENAMETOOLONG;
	len = read_text(path, w->buf);
	if (len >= 0)
		return 0;
	if (len != -ENOENT)
		return (int)len;
	if (w->top)
		return 1;
	if (w->version == 2 && w->c != CG_CPUACCT) {
		/* Not enabled for this cgroup: its parent did not delegate the controller. */
		if (proc_path(path, sizeof(path), "%s/cgroup.controllers", w->dir) || read_text(path, w->buf) < 0)
			return -ENOENT;
		return list_has(w->buf, v2_names[w->c]) ? -ENOENT : 1;
	}
	return -ENOENT;
}

/* V becomes CG_UNKNOWN for WHY, with FILE at the walk's level as its source. */
static void set_unknown(struct cg_value *v, const struct walk *w, const char *why, const char *file)
{
	v->state = CG_UNKNOWN;
	v->value = 0;
	snprintf(v->dir, sizeof(v->dir), "%s", w->dir);
	proc_path(v->why, sizeof(v->why), "%s", why);
	if (proc_path(v->source, sizeof(v->source), "%s in %s", file, shown(w, w->dir)))
		memcpy(v->source + sizeof(v->source) - 4, "...", 4);
}

/* An unreadable or malformed FILE at the walk's level: V becomes CG_UNKNOWN. */
static void fail(struct cg_value *v, const struct walk *w, int err, const char *file)
{
	char why[96];

	if (err == -EINVAL)
		snprintf(why, sizeof(why), "malformed %s", file);
	else
		snprintf(why, sizeof(why), "%.40s: %s", file, err_text(err));
	set_unknown(v, w, why, file);
}

static void value_init(struct cg_value *v)
{
	memset(v, 0, sizeof(*v));
	v->state = CG_NONE;
}

/* A controller that was not located: V CG_UNKNOWN with the locate's reason. */
static bool not_located(const struct cgroup_loc *loc, enum cg_ctrl c, struct cg_value *v)
{
	if (loc->version[c] == 1 || loc->version[c] == 2)
		return false;
	v->state = CG_UNKNOWN;
	snprintf(v->why, sizeof(v->why), "%s", loc->why[c][0] ? loc->why[c] : "not located");
	return true;
}

/* Records VAL found at the walk's level when tighter than V's; SOURCE says what was read. */
static void note(struct cg_value *v, const struct walk *w, double val, const char *source)
{
	if (v->state == CG_SET && v->value <= val)
		return;
	v->state = CG_SET;
	v->value = val;
	snprintf(v->dir, sizeof(v->dir), "%s", w->dir);
	if (proc_path(v->source, sizeof(v->source), "%s in %s", source, shown(w, w->dir)))
		memcpy(v->source + sizeof(v->source) - 4, "...", 4);
}

/* After a walk with no limit: where it looked. */
static void none_source(struct cg_value *v, const struct cgroup_loc *loc, enum cg_ctrl c, const char *what)
{
	const char *top = loc->top[c] + (strlen(loc->top[c]) > loc->rootlen ? loc->rootlen : 0);

	if (v->state != CG_NONE)
		return;
	if (proc_path(v->source, sizeof(v->source), "%s up to %s", what, *top ? top : "/"))
		memcpy(v->source + sizeof(v->source) - 4, "...", 4);
}

/* A signed decimal of a v1 file ("-1" or a count), one line. */
static int parse_i64_line(const char *text, int64_t *v)
{
	const char *e = text + strcspn(text, "\n");
	uint64_t u;
	bool neg = *text == '-';

	if (*e && e[1])
		return -EINVAL;
	if (tok_u64(text + neg, e, &u) || u > (uint64_t)INT64_MAX)
		return -EINVAL;
	*v = neg ? -(int64_t)u : (int64_t)u;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Limits */

static void cpu_quota_v1(struct walk *w, struct cg_value *out)
{
	char raw[128], q[64];
	int64_t quota, period;
	int r;

	do {
		r = walk_read(w, "cpu.cfs_quota_us");
		if (r == 1)
			continue;
		if (r < 0 || (r = parse_i64_line(w->buf, &quota)) || (quota < 0 && quota != -1) || quota == 0) {
			fail(out, w, r ? r : -EINVAL, "cpu.cfs_quota_us");
			return;
		}
		first_line(q, sizeof(q), w->buf);
		if (quota == -1)
			continue;
		r = walk_read(w, "cpu.cfs_period_us");
		if (r || (r = parse_i64_line(w->buf, &period)) || period <= 0) {
			fail(out, w, r > 0 ? -ENOENT : r ? r : -EINVAL, "cpu.cfs_period_us");
			return;
		}
		snprintf(raw, sizeof(raw), "cpu.cfs_quota_us %s / cpu.cfs_period_us %lld", q, (long long)period);
		note(out, w, (double)quota / (double)period, raw);
	} while (walk_up(w));
	none_source(out, w->loc, w->c, "cpu.cfs_quota_us -1");
}

static void cpu_quota_v2(struct walk *w, struct cg_value *out)
{
	char raw[128], line[64];
	int64_t quota, period;
	int r;

	do {
		r = walk_read(w, "cpu.max");
		if (r == 1)
			continue;
		if (r < 0 || (r = cgroup_parse_cpu_max(w->buf, &quota, &period))) {
			fail(out, w, r, "cpu.max");
			return;
		}
		if (quota < 0)
			continue;
		first_line(line, sizeof(line), w->buf);
		snprintf(raw, sizeof(raw), "cpu.max %s", line);
		note(out, w, (double)quota / (double)period, raw);
	} while (walk_up(w));
	none_source(out, w->loc, w->c, "cpu.max max");
}

void cgroup_cpu_quota(const struct cgroup_loc *loc, struct cg_value *out)
{
	struct walk w;

	value_init(out);
	if (not_located(loc, CG_CPU, out) || walk_start(&w, loc, CG_CPU))
		return;
	if (w.version == 1)
		cpu_quota_v1(&w, out);
	else
		cpu_quota_v2(&w, out);
	walk_end(&w);
}

void cgroup_cpu_weight(const struct cgroup_loc *loc, struct cg_value *out)
{
	const char *file;
	double def;
	struct walk w;
	char raw[96], line[32];
	int64_t x;
	int r;

	value_init(out);
	if (not_located(loc, CG_CPU, out) || walk_start(&w, loc, CG_CPU))
		return;
	file = w.version == 1 ? "cpu.shares" : "cpu.weight";
	def = w.version == 1 ? 1024 : 100;
	do {
		/* The root group has no v2 weight; v1's root is never weighed against a sibling. */
		if (w.top)
			break;
		r = walk_read(&w, file);
		if (r == 1)
			continue;
		if (r < 0 || (r = parse_i64_line(w.buf, &x)) || x <= 0) {
			fail(out, &w, r ? r : -EINVAL, file);
			walk_end(&w);
			return;
		}
		if (x >= def)
			continue;
		first_line(line, sizeof(line), w.buf);
		snprintf(raw, sizeof(raw), "%s %s (default %.0f)", file, line, def);
		note(out, &w, (double)x / def, raw);
	} while (walk_up(&w));
	none_source(out, w.loc, w.c, w.version == 1 ? "cpu.shares 1024 or more" : "cpu.weight 100 or more");
	walk_end(&w);
}

void cgroup_cpuset(const struct cgroup_loc *loc, struct cg_value *out, char *list, size_t listlen)
{
	char raw[128], topraw[128] = "", line[64], best[256] = "";
	const char *file = "cpuset.cpus.effective";
	struct walk w;
	int r, n, top_n = -1;

	value_init(out);
	if (list && listlen)
		list[0] = '\0';
	if (not_located(loc, CG_CPUSET, out) || walk_start(&w, loc, CG_CPUSET))
		return;
	if (w.version == 1)
		file = "cpuset.effective_cpus";
	do {
		size_t len;

		if (w.version == 2) {
			r = walk_read(&w, file);
		} else {
			/* Before Linux 4.17 (and without cgroup v2's mode) only cpuset.cpus. */
			file = "cpuset.effective_cpus";
			r = walk_read(&w, file);
			if (r == -ENOENT || r == 1) {
				file = "cpuset.cpus";
				r = walk_read(&w, file);
			}
		}
		if (r == 1)
			continue;
		len = strcspn(w.buf, "\n");
		if (r == 0 && (w.buf[len] && w.buf[len + 1]))
			r = -EINVAL;
		/* An empty cpuset holds no task: the process cannot be in one. */
		if (r == 0 && ((n = proc_cpulist_count(w.buf, len)) <= 0))
			r = -EINVAL;
		if (r) {
			fail(out, &w, r, file);
			break;
		}
		first_line(line, sizeof(line), w.buf);
		snprintf(raw, sizeof(raw), "%s %s", file, line);
		if (w.top) {
			top_n = n;
			snprintf(topraw, sizeof(topraw), "%s", raw);
		}
		if (out->state != CG_SET || n < out->value)
			snprintf(best, sizeof(best), "%.*s", (int)len, w.buf);
		note(out, &w, n, raw);
	} while (walk_up(&w));
	if (out->state == CG_SET && top_n >= 0 && out->value >= top_n) {
		/* No fewer than the mount point's own, which holds every CPU: no limit. */
		out->state = CG_NONE;
		none_source(out, loc, CG_CPUSET, topraw);
	}
	none_source(out, loc, CG_CPUSET, file);
	if (out->state != CG_UNKNOWN && list && listlen)
		snprintf(list, listlen, "%s", best);
	walk_end(&w);
}

/* v1 memory: limit_in_bytes and memsw at each level. */
static void memory_v1(struct walk *w, struct cg_value *max, struct cg_value *swap)
{
	char raw[192], l1[64], l2[64], max_none[96] = "memory.limit_in_bytes";
	char swap_none[96] = "memory.memsw.limit_in_bytes";
	uint64_t lim, memsw;
	bool swap_ok = true;
	int r;

	do {
		r = walk_read(w, "memory.limit_in_bytes");
		if (r == 1)
			continue;
		if (r < 0 || (r = cgroup_parse_u64_or_max(w->buf, &lim)) || lim == UINT64_MAX) {
			fail(max, w, r ? r : -EINVAL, "memory.limit_in_bytes");
			if (swap->state != CG_UNKNOWN)
				fail(swap, w, r ? r : -EINVAL, "memory.limit_in_bytes");
			return;
		}
		first_line(l1, sizeof(l1), w->buf);
		if (lim < CG_V1_UNLIMITED) {
			snprintf(raw, sizeof(raw), "memory.limit_in_bytes %s", l1);
			note(max, w, (double)lim, raw);
		} else {
			snprintf(max_none, sizeof(max_none), "memory.limit_in_bytes %s", l1);
		}
		if (!swap_ok)
			continue;
		r = walk_read(w, "memory.memsw.limit_in_bytes");
		if (r == 1 && !w->leaf)
			continue;
		if (r == -ENOENT || r == 1) {
			/* Missing at the process's own level, even the root: swapaccount is off. */
			set_unknown(swap, w, "no memsw accounting", "memory.memsw.limit_in_bytes");
			swap_ok = false;
			continue;
		}
		if (r < 0 || (r = cgroup_parse_u64_or_max(w->buf, &memsw)) || memsw == UINT64_MAX ||
		    (memsw < CG_V1_UNLIMITED && memsw < lim)) {
			fail(swap, w, r ? r : -EINVAL, "memory.memsw.limit_in_bytes");
			swap_ok = false;
			continue;
		}
		first_line(l2, sizeof(l2), w->buf);
		if (memsw < CG_V1_UNLIMITED && lim < CG_V1_UNLIMITED) {
			snprintf(raw, sizeof(raw), "memory.memsw.limit_in_bytes %s - memory.limit_in_bytes %s", l2, l1);
			note(swap, w, (double)(memsw - lim), raw);
		} else {
			snprintf(swap_none, sizeof(swap_none), "memory.memsw.limit_in_bytes %s", l2);
		}
	} while (walk_up(w));
	none_source(max, w->loc, w->c, max_none);
	none_source(swap, w->loc, w->c, swap_none);
}

/* One v2 memory file at the walk's level into V; SKIP_WHY replaces a missing file's reason. */
static bool memory_v2_file(struct walk *w, struct cg_value *v, const char *file, const char *missing_why)
{
	char raw[128], line[64];
	uint64_t x;
	int r;

	if (v->state == CG_UNKNOWN)
		return false;
	r = walk_read(w, file);
	if (r == 1)
		return true;
	if (r == -ENOENT && missing_why) {
		set_unknown(v, w, missing_why, file);
		return false;
	}
	if (r < 0 || (r = cgroup_parse_u64_or_max(w->buf, &x))) {
		fail(v, w, r, file);
		return false;
	}
	if (x == UINT64_MAX)
		return true;
	first_line(line, sizeof(line), w->buf);
	snprintf(raw, sizeof(raw), "%s %s", file, line);
	note(v, w, (double)x, raw);
	return true;
}

void cgroup_memory(const struct cgroup_loc *loc, struct cg_value *max, struct cg_value *high,
		   struct cg_value *swap)
{
	struct walk w;

	value_init(max);
	value_init(high);
	value_init(swap);
	if (not_located(loc, CG_MEMORY, max)) {
		not_located(loc, CG_MEMORY, high);
		not_located(loc, CG_MEMORY, swap);
		return;
	}
	if (walk_start(&w, loc, CG_MEMORY))
		return;
	if (w.version == 1) {
		snprintf(high->source, sizeof(high->source), "v1 has no memory.high");
		memory_v1(&w, max, swap);
	} else {
		do {
			memory_v2_file(&w, max, "memory.max", NULL);
			memory_v2_file(&w, high, "memory.high", NULL);
			memory_v2_file(&w, swap, "memory.swap.max", w.leaf ? "no swap accounting" : NULL);
		} while (walk_up(&w));
		none_source(max, loc, CG_MEMORY, "memory.max max");
		none_source(high, loc, CG_MEMORY, "memory.high max");
		none_source(swap, loc, CG_MEMORY, "memory.swap.max max");
	}
	walk_end(&w);
}

static void io_v1(struct walk *w, unsigned maj, unsigned min, struct cg_value *v[4])
{
	static const char *const files[4] = {
		"blkio.throttle.read_bps_device", "blkio.throttle.write_bps_device",
		"blkio.throttle.read_iops_device", "blkio.throttle.write_iops_device",
	};
	char raw[128];
	uint64_t x;
	int r;

	do {
		for (int i = 0; i < 4; i++) {
			if (v[i]->state == CG_UNKNOWN)
				continue;
			r = walk_read(w, files[i]);
			if (r == 1)
				continue;
			if (r == 0) {
				r = cgroup_parse_dev_value(w->buf, maj, min, &x);
				if (r == -ENOENT)
					continue;
			}
			if (r) {
				fail(v[i], w, r, files[i]);
				continue;
			}
			snprintf(raw, sizeof(raw), "%s %u:%u %llu", files[i], maj, min, (unsigned long long)x);
			note(v[i], w, (double)x, raw);
		}
	} while (walk_up(w));
	for (int i = 0; i < 4; i++) {
		snprintf(raw, sizeof(raw), "%s: no %u:%u", files[i], maj, min);
		none_source(v[i], w->loc, w->c, raw);
	}
}

static void io_v2(struct walk *w, unsigned maj, unsigned min, struct cg_value *v[4])
{
	static const char *const keys[4] = { "rbps", "wbps", "riops", "wiops" };
	char raw[128];
	uint64_t x[4];
	int r;

	do {
		r = walk_read(w, "io.max");
		if (r == 1)
			continue;
		if (r == 0) {
			r = cgroup_parse_io_max(w->buf, maj, min, x);
			if (r == -ENOENT)
				continue;
		}
		if (r) {
			for (int i = 0; i < 4; i++)
				fail(v[i], w, r, "io.max");
			return;
		}
		for (int i = 0; i < 4; i++) {
			if (x[i] == UINT64_MAX)
				continue;
			snprintf(raw, sizeof(raw), "io.max %u:%u %s=%llu", maj, min, keys[i], (unsigned long long)x[i]);
			note(v[i], w, (double)x[i], raw);
		}
	} while (walk_up(w));
	snprintf(raw, sizeof(raw), "io.max: no %u:%u limit", maj, min);
	for (int i = 0; i < 4; i++)
		none_source(v[i], w->loc, w->c, raw);
}

void cgroup_io(const struct cgroup_loc *loc, unsigned maj, unsigned min, struct cg_value *rbps,
	       struct cg_value *wbps, struct cg_value *riops, struct cg_value *wiops)
{
	struct cg_value *v[4] = { rbps, wbps, riops, wiops };
	struct walk w;

	for (int i = 0; i < 4; i++)
		value_init(v[i]);
	if (loc->version[CG_IO] != 1 && loc->version[CG_IO] != 2) {
		for (int i = 0; i < 4; i++)
			not_located(loc, CG_IO, v[i]);
		return;
	}
	if (walk_start(&w, loc, CG_IO))
		return;
	if (w.version == 1)
		io_v1(&w, maj, min, v);
	else
		io_v2(&w, maj, min, v);
	walk_end(&w);
}

/* ------------------------------------------------------------------ */
/* The same cgroup in another hierarchy */

/* DIR's cgroup path below TOP ("" = the root cgroup), or NULL when DIR is not under TOP. */
static const char *rel_path(const char *dir, const char *top)
{
	size_t n = strlen(top);

	while (n > 0 && top[n - 1] == '/')
		n--;
	if (strncmp(dir, top, n) || (dir[n] && dir[n] != '/'))
		return NULL;
	return dir + n;
}

int cgroup_same_path(const struct cgroup_loc *loc, enum cg_ctrl from, const char *dir, enum cg_ctrl to, char *out,
		     size_t len)
{
	const char *rel, *own;
	struct stat st;
	size_t n;

	if (len)
		out[0] = '\0';
	if ((unsigned)from >= CG_NCTRL || (unsigned)to >= CG_NCTRL || !loc->version[from] ||
	    loc->version[to] != loc->version[from])
		return -ENODEV;
	rel = rel_path(dir, loc->top[from]);
	if (!rel)
		return -EINVAL;
	/* One hierarchy holds both (cpu,cpuacct mounted together): the very same group. */
	if (!strcmp(loc->top[from], loc->top[to]))
		return proc_path(out, len, "%s", dir) ? -ENAMETOOLONG : 0;
	/* The root cgroup of another hierarchy counts every process of the box. */
	if (!*rel || !strcmp(rel, "/"))
		return -EXDEV;
	own = rel_path(loc->dir[to], loc->top[to]);
	n = strlen(rel);
	if (!own || strncmp(own, rel, n) || (own[n] && own[n] != '/'))
		return -EXDEV;
	n = strlen(loc->top[to]);
	while (n > 0 && loc->top[to][n - 1] == '/')
		n--;
	if (proc_path(out, len, "%.*s%s", (int)n, loc->top[to], rel))
		return -ENAMETOOLONG;
	if (stat(out, &st) < 0) {
		int e = -errno;

		out[0] = '\0';
		return e;
	}
	if (!S_ISDIR(st.st_mode)) {
		out[0] = '\0';
		return -ENOTDIR;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Counters */

/* Reads DIR/FILE into BUF (CG_FILE_MAX). */
static int read_in(const char *dir, const char *file, char *buf)
{
	char path[PATH_MAX];
	ssize_t len;

	if (proc_path(path, sizeof(path), "%s/%s", dir, file))
		return -ENAMETOOLONG;
	len = read_text(path, buf);
	return len < 0 ? (int)len : 0;
}

/* KEY of a keyed file, 0 when the kernel does not print it. */
static int keyed_or_0(const char *text, const char *key, uint64_t *v)
{
	int r = cgroup_parse_keyed(text, key, v);

	if (r == -ENOENT) {
		*v = 0;
		return 0;
	}
	return r;
}

int cgroup_cpu_stat(const char *dir, int version, const char *cpuacct_dir, struct cg_cpu_stat *out)
{
	char *buf;
	uint64_t us;
	int r;

	out->usage_ns = UINT64_MAX;
	out->periods = out->throttled = out->throttled_ns = 0;
	if (version != 1 && version != 2)
		return -EINVAL;
	buf = xmalloc(CG_FILE_MAX);
	r = read_in(dir, "cpu.stat", buf);
	if (r)
		goto out;
	if ((r = keyed_or_0(buf, "nr_periods", &out->periods)) || (r = keyed_or_0(buf, "nr_throttled", &out->throttled)))
		goto out;
	if (version == 1) {
		if ((r = keyed_or_0(buf, "throttled_time", &out->throttled_ns)))
			goto out;
		/*
		 * The throttling above stands on its own: a cpuacct.usage that
		 * cannot be read leaves the usage unknown, not the call failed.
		 */
		if (cpuacct_dir) {
			uint64_t ns = UINT64_MAX;

			if (read_in(cpuacct_dir, "cpuacct.usage", buf) == 0 && cgroup_parse_u64_or_max(buf, &ns) == 0)
				out->usage_ns = ns;	/* "max" is no count: UINT64_MAX, unknown */
		}
	} else {
		if ((r = keyed_or_0(buf, "throttled_usec", &us)))
			goto out;
		out->throttled_ns = us > UINT64_MAX / 1000 ? UINT64_MAX - 1 : us * 1000;
		if ((r = cgroup_parse_keyed(buf, "usage_usec", &us)))
			goto out;
		out->usage_ns = us > UINT64_MAX / 1000 ? UINT64_MAX - 1 : us * 1000;
	}
out:
	if (r)
		out->usage_ns = UINT64_MAX;
	free(buf);
	return r;
}

int cgroup_io_stat(const char *dir, int version, unsigned maj, unsigned min, struct cg_io_stat *out)
{
	char *buf;
	int r;

	memset(out, 0, sizeof(*out));
	if (version != 1 && version != 2)
		return -EINVAL;
	buf = xmalloc(CG_FILE_MAX);
	if (version == 1) {
		r = read_in(dir, "blkio.throttle.io_service_bytes", buf);
		if (!r)
			r = cgroup_parse_blkio_stat(buf, maj, min, &out->rbytes, &out->wbytes);
		if (!r)
			r = read_in(dir, "blkio.throttle.io_serviced", buf);
		if (!r)
			r = cgroup_parse_blkio_stat(buf, maj, min, &out->rios, &out->wios);
	} else {
		r = read_in(dir, "io.stat", buf);
		if (!r)
			r = cgroup_parse_io_stat(buf, maj, min, out);
	}
	free(buf);
	return r;
}

/* A plain count file (not "max"). */
static int read_count(const char *dir, const char *file, char *buf, uint64_t *v)
{
	int r = read_in(dir, file, buf);

	if (!r)
		r = cgroup_parse_u64_or_max(buf, v);
	if (!r && *v == UINT64_MAX)
		r = -EINVAL;
	return r;
}

int cgroup_mem_stat(const char *dir, int version, struct cg_mem_stat *out)
{
	char *buf;
	int r;

	out->usage = out->peak = out->oom = UINT64_MAX;
	out->hits = out->high = 0;
	if (version != 1 && version != 2)
		return -EINVAL;
	buf = xmalloc(CG_FILE_MAX);
	if (version == 1) {
		if ((r = read_count(dir, "memory.usage_in_bytes", buf, &out->usage)) ||
		    (r = read_count(dir, "memory.max_usage_in_bytes", buf, &out->peak)) ||
		    (r = read_count(dir, "memory.failcnt", buf, &out->hits)) ||
		    (r = read_in(dir, "memory.oom_control", buf)))
			goto out;
		r = cgroup_parse_keyed(buf, "oom_kill", &out->oom);
		if (r == -ENOENT) {
			out->oom = UINT64_MAX;	/* before Linux 4.13 */
			r = 0;
		}
	} else {
		if ((r = read_count(dir, "memory.current", buf, &out->usage)))
			goto out;
		r = read_count(dir, "memory.peak", buf, &out->peak);
		if (r == -ENOENT) {
			out->peak = UINT64_MAX;	/* before Linux 5.19 */
			r = 0;
		}
		if (r || (r = read_in(dir, "memory.events", buf)) || (r = keyed_or_0(buf, "high", &out->high)) ||
		    (r = keyed_or_0(buf, "max", &out->hits)) || (r = keyed_or_0(buf, "oom", &out->oom)))
			goto out;
	}
out:
	free(buf);
	return r;
}

/* ------------------------------------------------------------------ */
/* Pure parsers */

int cgroup_parse_proc(const char *text, int (*fn)(void *arg, int id, const char *ctrls, const char *path),
		      void *arg)
{
	const char *pos = text, *ls, *le;
	char ctrls[1024], path[PATH_MAX];
	int lines = 0;

	while (next_line(&pos, &ls, &le)) {
		const char *c1 = memchr(ls, ':', (size_t)(le - ls)), *c2;
		uint64_t id;
		int r;

		if (!c1 || tok_u64(ls, c1, &id) || id > INT_MAX)
			return -EINVAL;
		c2 = memchr(c1 + 1, ':', (size_t)(le - c1 - 1));
		if (!c2 || c2[1] != '/' || c2 + 1 >= le)
			return -EINVAL;
		if ((size_t)(c2 - c1 - 1) >= sizeof(ctrls) || (size_t)(le - c2 - 1) >= sizeof(path))
			return -EINVAL;
		memcpy(ctrls, c1 + 1, (size_t)(c2 - c1 - 1));
		ctrls[c2 - c1 - 1] = '\0';
		memcpy(path, c2 + 1, (size_t)(le - c2 - 1));
		path[le - c2 - 1] = '\0';
		lines++;
		r = fn(arg, (int)id, ctrls, path);
		if (r)
			return r;
	}
	return lines ? 0 : -EINVAL;
}

/* [s, e) is a decimal count or "max" (UINT64_MAX). */
static int tok_u64_or_max(const char *s, const char *e, uint64_t *v)
{
	if (word_is(s, e, "max")) {
		*v = UINT64_MAX;
		return 0;
	}
	if (tok_u64(s, e, v) || *v == UINT64_MAX)
		return -EINVAL;
	return 0;
}

/* TEXT is one line: [*ls, *le) set, nothing after its newline. */
static int one_line(const char *text, const char **ls, const char **le)
{
	*ls = text;
	*le = text + strcspn(text, "\n");
	return **le && (*le)[1] ? -EINVAL : 0;
}

int cgroup_parse_cpu_max(const char *text, int64_t *quota_us, int64_t *period_us)
{
	const char *ls, *le, *p, *q, *qe, *pe, *ps;
	uint64_t quota, period;

	if (one_line(text, &ls, &le))
		return -EINVAL;
	p = ls;
	if (!next_word(&p, le, &q, &qe) || !next_word(&p, le, &ps, &pe) || p != le || pe != le)
		return -EINVAL;
	if (tok_u64_or_max(q, qe, &quota) || tok_u64(ps, pe, &period))
		return -EINVAL;
	if (period == 0 || period > INT64_MAX || quota == 0 || (quota != UINT64_MAX && quota > INT64_MAX))
		return -EINVAL;
	*quota_us = quota == UINT64_MAX ? -1 : (int64_t)quota;
	*period_us = (int64_t)period;
	return 0;
}

int cgroup_parse_dev_value(const char *text, unsigned maj, unsigned min, uint64_t *value)
{
	const char *pos = text, *ls, *le;
	bool found = false;

	while (next_line(&pos, &ls, &le)) {
		const char *p = ls, *d, *de, *v, *ve;
		unsigned a, b;
		uint64_t x;

		if (!next_word(&p, le, &d, &de) || !next_word(&p, le, &v, &ve) || p != le || ve != le ||
		    tok_dev(d, de, &a, &b) || tok_u64(v, ve, &x))
			return -EINVAL;
		if (a == maj && b == min && !found) {
			*value = x;
			found = true;
		}
	}
	return found ? 0 : -ENOENT;
}

int cgroup_parse_io_max(const char *text, unsigned maj, unsigned min, uint64_t out[4])
{
	static const char *const keys[4] = { "rbps", "wbps", "riops", "wiops" };
	const char *pos = text, *ls, *le;
	bool found = false;

	while (next_line(&pos, &ls, &le)) {
		const char *p = ls, *w, *we;
		uint64_t x[4];
		unsigned a, b, seen = 0;

		if (!next_word(&p, le, &w, &we) || tok_dev(w, we, &a, &b))
			return -EINVAL;
		while (next_word(&p, le, &w, &we)) {
			const char *eq = memchr(w, '=', (size_t)(we - w));
			int k;

			if (!eq || eq == w)
				return -EINVAL;
			for (k = 0; k < 4 && !word_is(w, eq, keys[k]); k++)
				;
			if (k == 4) {
				uint64_t ignored;

				/* A key of a newer kernel: its value must still look like one. */
				if (tok_u64_or_max(eq + 1, we, &ignored))
					return -EINVAL;
				continue;
			}
			if ((seen & (1u << k)) || tok_u64_or_max(eq + 1, we, &x[k]))
				return -EINVAL;
			seen |= 1u << k;
		}
		if (seen != 15 || we != le)
			return -EINVAL;
		if (a == maj && b == min && !found) {
			memcpy(out, x, sizeof(x));
			found = true;
		}
	}
	return found ? 0 : -ENOENT;
}

int cgroup_parse_keyed(const char *text, const char *key, uint64_t *value)
{
	const char *pos = text, *ls, *le;
	bool found = false;

	while (next_line(&pos, &ls, &le)) {
		const char *p = ls, *k, *ke, *v, *ve;
		uint64_t x;

		if (!next_word(&p, le, &k, &ke) || k == ke || !next_word(&p, le, &v, &ve) || p != le || ve != le ||
		    tok_u64(v, ve, &x))
			return -EINVAL;
		if (word_is(k, ke, key) && !found) {
			*value = x;
			found = true;
		}
	}
	return found ? 0 : -ENOENT;
}

int cgroup_parse_blkio_stat(const char *text, unsigned maj, unsigned min, uint64_t *rd, uint64_t *wr)
{
	const char *pos = text, *ls, *le;

	*rd = *wr = 0;
	while (next_line(&pos, &ls, &le)) {
		const char *p = ls, *d, *de, *op, *ope, *v, *ve;
		unsigned a, b;
		uint64_t x;

		if (!next_word(&p, le, &d, &de))
			return -EINVAL;
		if (word_is(d, de, "Total")) {
			/* "Total N": the sum over devices. */
			if (!next_word(&p, le, &v, &ve) || p != le || ve != le || tok_u64(v, ve, &x))
				return -EINVAL;
			continue;
		}
		if (tok_dev(d, de, &a, &b) || !next_word(&p, le, &op, &ope) || op == ope ||
		    !next_word(&p, le, &v, &ve) || p != le || ve != le || tok_u64(v, ve, &x))
			return -EINVAL;
		for (const char *c = op; c < ope; c++)
			if ((*c < 'A' || *c > 'Z') && (*c < 'a' || *c > 'z'))
				return -EINVAL;
		if (a != maj || b != min)
			continue;
		if (word_is(op, ope, "Read"))
			*rd = x;
		else if (word_is(op, ope, "Write"))
			*wr = x;
	}
	return 0;
}

int cgroup_parse_io_stat(const char *text, unsigned maj, unsigned min, struct cg_io_stat *out)
{
	static const char *const keys[4] = { "rbytes", "wbytes", "rios", "wios" };
	const char *pos = text, *ls, *le;

	memset(out, 0, sizeof(*out));
	while (next_line(&pos, &ls, &le)) {
		const char *p = ls, *w, *we;
		unsigned a, b;
		uint64_t x[4] = { 0, 0, 0, 0 };

		if (!next_word(&p, le, &w, &we) || tok_dev(w, we, &a, &b))
			return -EINVAL;
		while (next_word(&p, le, &w, &we)) {
			const char *eq = memchr(w, '=', (size_t)(we - w));
			uint64_t v;
			int k;

			if (!eq || eq == w || tok_u64(eq + 1, we, &v))
				return -EINVAL;
			for (k = 0; k < 4 && !word_is(w, eq, keys[k]); k++)
				;
			if (k < 4)
				x[k] = v;
		}
		if (we != le)
			return -EINVAL;
		if (a == maj && b == min) {
			out->rbytes = x[0];
			out->wbytes = x[1];
			out->rios = x[2];
			out->wios = x[3];
		}
	}
	return 0;
}

int cgroup_parse_u64_or_max(const char *text, uint64_t *v)
{
	const char *ls, *le;

	if (one_line(text, &ls, &le))
		return -EINVAL;
	return tok_u64_or_max(ls, le, v);
}
