/* SPDX-License-Identifier: MIT */
/*
 * The memory sandbox: cgroup, own swap file or a given swap device, and
 * teardown. See sandbox.h for what it is and the order of teardown. The
 * undo actions and the guardian are core/work/guardian.c; what a spawned child
 * runs uses async-signal-safe calls only: plain system calls on paths
 * built before the fork, no stdio, no allocation.
 */
#include "sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/swap.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/fs.h>

#include "core/work/guardian.h"
#include "core/kernel/proc.h"
#include "core/result/result.h"
#include "core/kernel/swapdev.h"
#include "lib/units.h"
#include "lib/xalloc.h"

#define SB_PATH 4096

struct sandbox {
	int version;
	char cg_dir[SB_PATH];
	bool cg_made;
	uint64_t limit_bytes;
	char home[SB_PATH];	/* the caller's own cgroup, for sandbox_leave() */
	bool entered;		/* the caller is in the sandbox (sandbox_enter()) */
	char swap_path[SB_PATH];
	bool swap_made;		/* the file exists, or the device's state was changed */
	bool swap_on;
	bool swap_dev;		/* swap_path is the user's device, not our file */
	const char *swap_alloc;
	uint64_t swap_bytes;
	bool was_active;	/* the device was swap before, at old_prio */
	int old_prio;
	int restore_flags;	/* swapon flags that restore the device; -1: leave it off */
	bool mkswapped;
	int swappiness_was;	/* v1: memory.swappiness the cgroup inherited, when it was changed; else -1 */
	struct guardian *g;
	int cg_id, swap_id, unlink_id;	/* guardian actions */
};

/* ---- small async-signal-safe helpers ------------------------------------- */

/* DST = A + B (bounded); false when it does not fit. */
static bool cat2(char *dst, size_t n, const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);

	if (la + lb + 1 > n)
		return false;
	memcpy(dst, a, la);
	memcpy(dst + la, b, lb + 1);
	return true;
}

/* Decimal text of V into BUF (at least 24 bytes); returns its length. */
static size_t fmt_u64(char *buf, uint64_t v)
{
	char tmp[24];
	size_t n = 0, i;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	for (i = 0; i < n; i++)
		buf[i] = tmp[n - 1 - i];
	buf[n] = '\0';
	return n;
}

/* ---- finding the memory controller --------------------------------------- */

static bool has_word(const char *s, size_t len, const char *word)
{
	size_t wl = strlen(word), i = 0;

	while (i < len) {
		size_t j = i;

		while (j < len && s[j] != ',')
			j++;
		if (j - i == wl && !memcmp(s + i, word, wl))
			return true;
		i = j + 1;
	}
	return false;
}

struct mount_hit {
	bool found;
	char root[SB_PATH];
	char point[SB_PATH];
};

_Static_assert(SB_PATH == PROC_PATH_MAX, "a mount_hit holds any path proc_mount_next() accepts");

/* Scans mountinfo for the v1 memory mount and the first cgroup2 mount. */
static void scan_mountinfo(const char *text, struct mount_hit *v1, struct mount_hit *v2)
{
	struct proc_mount *m = xmalloc(sizeof(*m));
	const char *pos = text;
	unsigned bad = 0;

	while (proc_mount_next(m, PROC_MOUNTINFO, &pos, text + strlen(text), &bad)) {
		struct mount_hit *hit = NULL;

		if (!strcmp(m->fs_type, "cgroup") && proc_mount_has_opt(m->super_opts, "memory"))
			hit = v1;
		else if (!strcmp(m->fs_type, "cgroup2"))
			hit = v2;
		if (hit && !hit->found) {
			memcpy(hit->root, m->root, sizeof(hit->root));
			memcpy(hit->point, m->mount_point, sizeof(hit->point));
			hit->found = true;
		}
	}
	free(m);
}

int sandbox_find_memcg(const char *mountinfo, const char *self_cgroup, struct sandbox_memcg *out)
{
	struct mount_hit *v1 = xcalloc(1, sizeof(*v1)), *v2 = xcalloc(1, sizeof(*v2));
	const char *p = self_cgroup;
	char v1path[SB_PATH] = "";
	bool have_v1 = false;
	int r = 0;

	memset(out, 0, sizeof(*out));
	scan_mountinfo(mountinfo, v1, v2);
	while (!r && *p) {
		const char *e = strchr(p, '\n'), *c1, *c2;

		if (!e)
			e = p + strlen(p);
		c1 = memchr(p, ':', (size_t)(e - p));
		c2 = c1 ? memchr(c1 + 1, ':', (size_t)(e - c1 - 1)) : NULL;
		if (c2 && c2 > c1 + 1 && has_word(c1 + 1, (size_t)(c2 - c1 - 1), "memory")) {
			if ((size_t)(e - c2 - 1) >= sizeof(v1path)) {
				r = -ENAMETOOLONG;
				break;
			}
			memcpy(v1path, c2 + 1, (size_t)(e - c2 - 1));
			v1path[e - c2 - 1] = '\0';
			have_v1 = true;
		}
		p = *e ? e + 1 : e;
	}
	if (r) {
		/* fall through to free */
	} else if (have_v1 && v1->found) {
		const char *rel = v1path;
		size_t rl = strlen(v1->root);

		if (strcmp(v1->root, "/")) {
			if (strncmp(v1path, v1->root, rl) || (v1path[rl] && v1path[rl] != '/'))
				r = -ENOENT;	/* our cgroup is outside what is mounted */
			rel = v1path + rl;
		}
		if (!r) {
			if (!strcmp(rel, "/"))
				rel = "";
			out->version = 1;
			if (!cat2(out->parent, sizeof(out->parent), v1->point, rel))
				r = -ENAMETOOLONG;
		}
	} else if (v2->found) {
		out->version = 2;
		if (!cat2(out->parent, sizeof(out->parent), v2->point, ""))
			r = -ENAMETOOLONG;
	} else {
		r = -ENOENT;
	}
	if (r)
		memset(out, 0, sizeof(*out));
	free(v1);
	free(v2);
	return r;
}

/* ---- swap header and swap directory -------------------------------------- */

int sandbox_swap_header(void *page, size_t page_size, uint64_t file_bytes, const uint8_t uuid[16])
{
	unsigned char *p = page;
	uint64_t pages;
	uint32_t words[3];

	if (page_size < 4096 || (page_size & (page_size - 1)))
		return -EINVAL;
	pages = file_bytes / page_size;
	if (pages < SANDBOX_SWAP_MIN_PAGES || pages - 1 > UINT32_MAX)
		return -EINVAL;
	memset(p, 0, page_size);
	words[0] = 1;				/* version */
	words[1] = (uint32_t)(pages - 1);	/* last_page */
	words[2] = 0;				/* nr_badpages */
	memcpy(p + 1024, words, sizeof(words));
	memcpy(p + 1024 + sizeof(words), uuid, 16);
	/* 16 bytes of volume label stay zero: no label. */
	memcpy(p + page_size - 10, "SWAPSPACE2", 10);
	return 0;
}

int sandbox_check_swapdir(const char *dir, uint64_t bytes, const char **fsname)
{
	static const struct {
		long magic;
		const char *name;
	} bad[] = {
		{ 0x01021994, "tmpfs" }, { (long)0x858458f6, "ramfs" }, { 0x9fa0, "proc" },
		{ 0x62656572, "sysfs" }, { 0x794c7630, "overlayfs" }, { 0x73717368, "squashfs" },
		{ 0x6969, "nfs" }, { 0x27e0eb, "cgroup" }, { 0x63677270, "cgroup2" },
	};
	struct statfs sf;
	struct stat st;

	if (fsname)
		*fsname = NULL;
	if (stat(dir, &st))
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	if (access(dir, W_OK | X_OK))
		return -errno;
	if (statfs(dir, &sf))
		return -errno;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if ((long)sf.f_type == bad[i].magic) {
			if (fsname)
				*fsname = bad[i].name;
			return -EINVAL;
		}
	}
	if ((uint64_t)sf.f_bavail * (uint64_t)sf.f_bsize < bytes + SANDBOX_SWAPDIR_RESERVE)
		return -ENOSPC;
	return 0;
}

/* ---- create ---------------------------------------------------------------- */

static void set_err(char *err, size_t errlen, const char *fmt, ...) PRINTF_LIKE(3, 4);
static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

static uint64_t random48(void)
{
	uint64_t v = 0;

	if (getrandom(&v, sizeof(v), GRND_NONBLOCK) != (ssize_t)sizeof(v))
		v = (uint64_t)time(NULL) * 6364136223846793005ULL ^ (uint64_t)getpid() ^ (uint64_t)(uintptr_t)&v;
	return v & 0xffffffffffffULL;
}

static int read_text(const char *path, char *buf, size_t n)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t r;

	if (fd < 0)
		return -errno;
	do
		r = read(fd, buf, n - 1);
	while (r < 0 && errno == EINTR);
	if (r < 0) {
		int e = errno;

		close(fd);
		return -e;
	}
	close(fd);
	buf[r] = '\0';
	return 0;
}

/* Reads a number from DIR/FILE (first token); -ENOENT etc. on failure, "max" is -ERANGE. */
static int read_i64(const char *dir, const char *file, int64_t *v)
{
	char path[SB_PATH], buf[64], *end;
	long long x;
	int r;

	if (snprintf(path, sizeof(path), "%s/%s", dir, file) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	if ((r = read_text(path, buf, sizeof(buf))))
		return r;
	errno = 0;
	x = strtoll(buf, &end, 10);
	if (end == buf || errno || x < 0)
		return -ERANGE;
	*v = x;
	return 0;
}

/* Reads the value of "KEY N" from the keyed file DIR/FILE. */
static int read_keyed(const char *dir, const char *file, const char *key, int64_t *v)
{
	char path[SB_PATH], buf[4096];
	size_t kl = strlen(key);
	int r;

	if (snprintf(path, sizeof(path), "%s/%s", dir, file) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	if ((r = read_text(path, buf, sizeof(buf))))
		return r;
	for (char *line = buf; *line;) {
		char *nl = strchr(line, '\n');

		if (!strncmp(line, key, kl) && line[kl] == ' ') {
			*v = strtoll(line + kl + 1, NULL, 10);
			return 0;
		}
		if (!nl)
			break;
		line = nl + 1;
	}
	return -ENOENT;
}

static int zero_fill(int fd, uint64_t bytes)
{
	size_t chunk = 1 << 20;
	char *z = xcalloc(1, chunk);
	uint64_t off = 0;
	int r = 0;

	while (off < bytes) {
		size_t n = bytes - off < chunk ? (size_t)(bytes - off) : chunk;
		ssize_t w = pwrite(fd, z, n, (off_t)off);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			break;
		}
		off += (uint64_t)w;
	}
	free(z);
	return r;
}

static uint64_t page_bytes(void)
{
	long psz = sysconf(_SC_PAGESIZE);

	return psz > 0 ? (uint64_t)psz : 4096;
}

/* swapon(2) flags for priority PRIO (>= 0), or the kernel's own (negative) order for PRIO < 0. */
static int prio_flags(int prio)
{
	return prio < 0 ? 0 : SWAP_FLAG_PREFER | ((prio << SWAP_FLAG_PRIO_SHIFT) & SWAP_FLAG_PRIO_MASK);
}

/* Writes a swap header for BYTES at the start of FD (a file or device) and syncs it. */
static int write_swap_header(int fd, uint64_t bytes)
{
	uint64_t page = page_bytes();
	uint8_t uuid[16];
	void *hdr = xmalloc((size_t)page);
	int r;

	for (size_t i = 0; i < sizeof(uuid); i++)
		uuid[i] = (uint8_t)(random48() >> 8);
	r = sandbox_swap_header(hdr, (size_t)page, bytes, uuid);
	if (!r && (pwrite(fd, hdr, (size_t)page, 0) != (ssize_t)page || fsync(fd)))
		r = errno ? -errno : -EIO;
	free(hdr);
	return r;
}

/* Registers an action with the guardian; ERR says so on failure. */
static int guard(struct sandbox *sb, enum guardian_kind kind, const char *path, int flags, int *id, char *err,
		 size_t errlen)
{
	int r = guardian_add(sb->g, kind, path, NULL, flags);

	if (r < 0) {
		set_err(err, errlen, "cannot tell the sandbox guardian about '%s': %s", path, strerror(-r));
		return r;
	}
	*id = r;
	return 0;
}

static int make_swapfile(struct sandbox *sb, const struct sandbox_opts *o, char *err, size_t errlen)
{
	uint64_t page = page_bytes(), bytes = o->swap_bytes / page * page;
	int fd = -1, r, flags = prio_flags(SANDBOX_SWAP_PRIO);

	for (int tries = 0; tries < 100 && fd < 0; tries++) {
		if (snprintf(sb->swap_path, sizeof(sb->swap_path), "%s/.engpass-swap-%d-%012llx", o->swap_dir,
			     (int)getpid(), (unsigned long long)random48()) >= (int)sizeof(sb->swap_path)) {
			set_err(err, errlen, "swap directory name '%s' is too long", o->swap_dir);
			return -ENAMETOOLONG;
		}
		fd = open(sb->swap_path, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC | O_NOFOLLOW, 0600);
		if (fd < 0 && errno != EEXIST) {
			r = -errno;
			set_err(err, errlen, "cannot create swap file '%s': %s", sb->swap_path, strerror(-r));
			return r;
		}
	}
	if (fd < 0) {
		set_err(err, errlen, "cannot create swap file in '%s': all names taken", o->swap_dir);
		return -EEXIST;
	}
	sb->swap_made = true;
	sb->restore_flags = -1;
	sb->swap_bytes = bytes;
	if ((r = guard(sb, GUARDIAN_UNLINK, sb->swap_path, -1, &sb->unlink_id, err, errlen)) ||
	    (r = guard(sb, GUARDIAN_SWAP, sb->swap_path, -1, &sb->swap_id, err, errlen))) {
		close(fd);
		return r;
	}
	sb->swap_alloc = "fallocate";
	if (fallocate(fd, 0, 0, (off_t)bytes)) {
		if (errno != EOPNOTSUPP && errno != ENOSYS) {
			r = -errno;
			set_err(err, errlen, "cannot allocate swap file '%s': %s", sb->swap_path, strerror(-r));
			close(fd);
			return r;
		}
		sb->swap_alloc = "zero-filled";
		if ((r = zero_fill(fd, bytes))) {
			set_err(err, errlen, "cannot write swap file '%s': %s", sb->swap_path, strerror(-r));
			close(fd);
			return r;
		}
	}
	for (int attempt = 0;; attempt++) {
		if ((r = write_swap_header(fd, bytes))) {
			set_err(err, errlen, "cannot write swap header to '%s': %s", sb->swap_path, strerror(-r));
			break;
		}
		if (!swapon(sb->swap_path, flags)) {
			sb->swap_on = true;
			break;
		}
		r = -errno;
		/* Some file systems refuse unwritten (fallocated) extents: write zeros, try once more. */
		if (r == -EINVAL && attempt == 0 && !strcmp(sb->swap_alloc, "fallocate")) {
			sb->swap_alloc = "zero-filled";
			if (!(r = zero_fill(fd, bytes)))
				continue;
		}
		set_err(err, errlen, "cannot enable swap file '%s' with swapon: %s", sb->swap_path, strerror(-r));
		break;
	}
	close(fd);
	return r;
}

/*
 * The user's swap device O->swap_dev: a block device with a swap
 * signature (or none, with O->mkswap_ok: then one is written), never one
 * with a file system; enabled at SANDBOX_SWAP_PRIO. When it already is
 * active swap it is disabled and enabled again at that priority; teardown
 * puts the old priority back.
 */
int sandbox_swap_parse(const char *text, struct sandbox_swap_spec *out)
{
	memset(out, 0, sizeof(*out));
	if (!strcmp(text, "none"))
		return 0;
	if (!strcmp(text, "file")) {
		out->kind = SANDBOX_SWAP_FILE;
		return 0;
	}
	if (!strncmp(text, "file:", 5) && text[5]) {
		out->kind = SANDBOX_SWAP_FILE;
		out->dir = text + 5;
		return 0;
	}
	if (!strncmp(text, "dev:", 4) && text[4]) {
		out->kind = SANDBOX_SWAP_DEV;
		out->dev = text + 4;
		return 0;
	}
	return -EINVAL;
}

int sandbox_check_swapdev(const char *path, bool mkswap_ok, const char *proc_root, struct sandbox_swapdev *out,
			  char *err, size_t errlen)
{
	struct swapdev_state ss;
	struct stat st;
	unsigned char *head;
	ssize_t n;
	int fd, r;

	memset(out, 0, sizeof(*out));
	if (stat(path, &st)) {
		r = -errno;
		set_err(err, errlen, "cannot use swap device '%s': %s", path, strerror(-r));
		return r;
	}
	if (!S_ISBLK(st.st_mode)) {
		set_err(err, errlen, "swap device '%s' is not a block device", path);
		return -ENOTBLK;
	}
	if ((r = swapdev_state_read(proc_root, path, &ss))) {
		set_err(err, errlen, "cannot read '%s/swaps': %s", proc_root ? proc_root : "/proc", strerror(-r));
		return r;
	}
	if (ss.active) {
		out->active = true;
		out->priority = ss.priority;
		out->bytes = ss.size_bytes > 0 ? (uint64_t)ss.size_bytes : 0;
		out->sig = SWAPDEV_SIG_SWAP;
		return 0;
	}
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0 || ioctl(fd, BLKGETSIZE64, &out->bytes)) {
		r = -errno;
		set_err(err, errlen, "cannot read swap device '%s': %s", path, strerror(-r));
		if (fd >= 0)
			close(fd);
		return r;
	}
	if (out->bytes < SANDBOX_SWAP_MIN_PAGES * page_bytes()) {
		set_err(err, errlen, "swap device '%s' holds %llu bytes, too small for swap (or a loop device with "
			"nothing attached)", path, (unsigned long long)out->bytes);
		close(fd);
		return -ENOSPC;
	}
	head = xcalloc(1, SWAPDEV_PROBE_BYTES);
	n = pread(fd, head, SWAPDEV_PROBE_BYTES, 0);
	r = n < 0 ? -errno : 0;
	close(fd);
	if (!r)
		out->sig = (int)swapdev_signature(head, (size_t)n, &out->what);
	free(head);
	if (r) {
		set_err(err, errlen, "cannot read swap device '%s': %s", path, strerror(-r));
		return r;
	}
	if (out->sig == SWAPDEV_SIG_OTHER) {
		set_err(err, errlen, "refusing swap device '%s': it holds %s (found by its superblock signature); "
			"engpass never writes over one", path, out->what);
		return -EEXIST;
	}
	if (out->sig == SWAPDEV_SIG_NONE && !mkswap_ok) {
		set_err(err, errlen, "swap device '%s' has no swap signature; --mkswap-ok lets engpass write one "
			"(what the device holds is lost)", path);
		return -EINVAL;
	}
	return 0;
}

/*
 * The user's swap device O->swap_dev (checked by sandbox_check_swapdev();
 * a swap signature is written when it has none and O->mkswap_ok), enabled
 * at SANDBOX_SWAP_PRIO. When it already is active swap it is disabled and
 * enabled again at that priority; teardown puts the old priority back.
 */
static int make_swapdev(struct sandbox *sb, const struct sandbox_opts *o, char *err, size_t errlen)
{
	struct sandbox_swapdev d;
	int r;

	sb->swap_dev = true;
	if (snprintf(sb->swap_path, sizeof(sb->swap_path), "%s", o->swap_dev) >= (int)sizeof(sb->swap_path)) {
		set_err(err, errlen, "swap device name '%s' is too long", o->swap_dev);
		return -ENAMETOOLONG;
	}
	if ((r = sandbox_check_swapdev(sb->swap_path, o->mkswap_ok, o->proc_root, &d, err, errlen)))
		return r;
	sb->was_active = d.active;
	sb->old_prio = d.priority;
	sb->swap_bytes = d.bytes / page_bytes() * page_bytes();
	sb->restore_flags = d.active ? prio_flags(d.priority) : -1;
	if (!d.active) {
		/* O_EXCL on a block device: EBUSY when it is mounted or held by another user. */
		int fd = open(sb->swap_path, O_RDWR | O_EXCL | O_CLOEXEC);

		if (fd < 0) {
			r = -errno;
			set_err(err, errlen, "cannot open swap device '%s': %s%s", sb->swap_path, strerror(-r),
				r == -EBUSY ? " (it is mounted or in use)" : "");
			return r;
		}
		if (d.sig == SWAPDEV_SIG_NONE) {
			if ((r = write_swap_header(fd, d.bytes)))
				set_err(err, errlen, "cannot write a swap header to '%s': %s", sb->swap_path,
					strerror(-r));
			sb->mkswapped = !r;
		}
		close(fd);
		if (r)
			return r;
	}
	/* From here on the device's state is ours to restore. */
	if ((r = guard(sb, GUARDIAN_SWAP, sb->swap_path, sb->restore_flags, &sb->swap_id, err, errlen)))
		return r;
	sb->swap_made = true;
	if (sb->was_active && swapoff(sb->swap_path)) {
		r = -errno;
		set_err(err, errlen, "cannot disable swap device '%s' to raise its priority: %s", sb->swap_path,
			strerror(-r));
		return r;
	}
	if (swapon(sb->swap_path, prio_flags(SANDBOX_SWAP_PRIO))) {
		r = -errno;
		set_err(err, errlen, "cannot enable swap device '%s' with swapon: %s", sb->swap_path, strerror(-r));
		return r;
	}
	sb->swap_on = true;
	return 0;
}

/* Moves process PID (all its threads) into the cgroup DIR (async-signal-safe). */
static int cgroup_join(const char *dir, pid_t pid)
{
	char path[SB_PATH + 16], num[24];

	fmt_u64(num, (uint64_t)pid);
	if (!cat2(path, sizeof(path), dir, "/cgroup.procs"))
		return -ENAMETOOLONG;
	return guardian_write_file(path, num);
}

/* Puts the caller back into its own cgroup. */
static int leave(struct sandbox *sb)
{
	int r;

	if (!sb->entered)
		return 0;
	if ((r = cgroup_join(sb->home, getpid())))
		return r;
	sb->entered = false;
	return 0;
}

static int teardown_cg(struct sandbox *sb)
{
	int r;

	if (!sb->cg_made)
		return 0;
	if ((r = leave(sb)) || (r = guardian_undo_cgroup(sb->cg_dir)))
		return r;
	guardian_cancel(sb->g, sb->cg_id);
	sb->cg_made = false;
	return 0;
}

static int teardown_swap(struct sandbox *sb)
{
	int r;

	if (!sb->swap_made)
		return 0;
	if ((r = guardian_undo_swap(sb->swap_path, sb->restore_flags)))
		return r;
	if (!sb->swap_dev && (r = guardian_undo_unlink(sb->swap_path)))
		return r;
	guardian_cancel(sb->g, sb->swap_id);
	guardian_cancel(sb->g, sb->unlink_id);
	sb->swap_made = sb->swap_on = false;
	return 0;
}

static void release(struct sandbox *sb)
{
	(void)teardown_cg(sb);
	(void)teardown_swap(sb);
	guardian_stop(sb->g, !sb->cg_made && !sb->swap_made);
	free(sb);
}

/*
 * The caller's own cgroup, where sandbox_leave() puts it back: for v1 the
 * parent of the sandbox, for v2 the "0::PATH" line of SELF_CGROUP below
 * the v2 mount (the sandbox's parent).
 */
static int sandbox_home(const struct sandbox_memcg *mc, const char *self_cgroup, char *home, size_t n)
{
	const char *p = self_cgroup;

	if (mc->version == 1)
		return cat2(home, n, mc->parent, "") ? 0 : -ENAMETOOLONG;
	while (p && *p) {
		if (!strncmp(p, "0::", 3)) {
			const char *e = strchr(p, '\n');
			size_t pl = strlen(mc->parent), len = e ? (size_t)(e - p - 3) : strlen(p + 3);

			if (len == 1 && p[3] == '/')
				len = 0;
			if (pl + len + 1 > n)
				return -ENAMETOOLONG;
			memcpy(home, mc->parent, pl);
			memcpy(home + pl, p + 3, len);
			home[pl + len] = '\0';
			return 0;
		}
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
	return -ENOENT;
}

/*
 * v1: a new memory cgroup inherits memory.swappiness from its parent, and
 * a parent at 0 (containers and service managers set it so) means the
 * sandbox never swaps anonymous memory: its loads are OOM-killed with
 * free swap beside them. The sandbox plays a small box, whose reclaim
 * follows the box's vm.swappiness: that value is set. Returns 0 or -errno
 * with ERR.
 */
static int set_swappiness(struct sandbox *sb, const char *proc, char *err, size_t errlen)
{
	char path[SB_PATH + 64], num[24];
	int64_t box, had;
	int r;

	sb->swappiness_was = -1;
	snprintf(path, sizeof(path), "%s/sys/vm/swappiness", proc);
	if (read_text(path, num, sizeof(num)) || (box = strtoll(num, NULL, 10)) < 0 ||
	    read_i64(sb->cg_dir, "memory.swappiness", &had))
		return 0;	/* nothing to compare: left as the kernel made it */
	if (had == box)
		return 0;
	fmt_u64(num, (uint64_t)box);
	snprintf(path, sizeof(path), "%s/memory.swappiness", sb->cg_dir);
	if ((r = guardian_write_file(path, num))) {
		set_err(err, errlen, "cannot set '%s' to the box's vm.swappiness %s (it inherited %lld): %s", path, num,
			(long long)had, strerror(-r));
		return r;
	}
	sb->swappiness_was = (int)had;
	return 0;
}

int sandbox_swappiness_inherited(const struct sandbox *sb)
{
	return sb->swappiness_was;
}

void sandbox_swappiness_param(const struct sandbox *sb, const struct sandbox_stat *st, struct result *res)
{
	if (sb->swappiness_was >= 0)
		result_param(res, "sandbox_swappiness", "%lld (memory.swappiness of the cgroup, set to the box's "
			     "vm.swappiness: it inherited %d from its parent%s)", (long long)st->swappiness,
			     sb->swappiness_was, sb->swappiness_was == 0 ? ", which forbids swapping" : "");
	else
		result_param(res, "sandbox_swappiness", "%lld (memory.swappiness of the cgroup, as vm.swappiness)",
			     (long long)st->swappiness);
}

int sandbox_create(struct sandbox **out, const struct sandbox_opts *o, char *err, size_t errlen)
{
	const char *proc = o->proc_root ? o->proc_root : "/proc";
	struct proc_buf mi = PROC_BUF_INIT, cg = PROC_BUF_INIT;
	struct sandbox_memcg *mc;
	struct sandbox *sb;
	char path[SB_PATH + 64], num[24];
	int64_t got;
	int r;

	*out = NULL;
	if (!o->limit_bytes || (o->swap_bytes && !o->swap_dir) || (o->swap_bytes && o->swap_dev)) {
		set_err(err, errlen, "sandbox needs a limit, and a directory for its swap file or a swap device");
		return -EINVAL;
	}
	if (geteuid() != 0) {
		set_err(err, errlen, "the sandbox needs root (cgroups and swapon)");
		return -EPERM;
	}
	mc = xcalloc(1, sizeof(*mc));
	snprintf(path, sizeof(path), "%s/self/mountinfo", proc);
	r = proc_buf_read_file(&mi, path);
	snprintf(path, sizeof(path), "%s/self/cgroup", proc);
	if (!r)
		r = proc_buf_read_file(&cg, path);
	if (!r)
		r = sandbox_find_memcg(mi.data, cg.data, mc);
	proc_buf_release(&mi);
	if (r) {
		proc_buf_release(&cg);
		if (r == -ENOENT)
			set_err(err, errlen, "no memory cgroup controller is mounted");
		else
			set_err(err, errlen, "cannot read the cgroup setup from '%s/self': %s", proc, strerror(-r));
		free(mc);
		return r;
	}
	if (mc->version == 2) {
		char ctl[512];

		snprintf(path, sizeof(path), "%s/cgroup.subtree_control", mc->parent);
		if (read_text(path, ctl, sizeof(ctl)) || !strstr(ctl, "memory")) {
			set_err(err, errlen, "the cgroup v2 root '%s' does not enable the memory controller for its children",
				mc->parent);
			proc_buf_release(&cg);
			free(mc);
			return -ENOTSUP;
		}
	}

	sb = xcalloc(1, sizeof(*sb));
	sb->version = mc->version;
	sb->restore_flags = -1;
	sb->swappiness_was = -1;
	r = sandbox_home(mc, cg.data, sb->home, sizeof(sb->home));
	proc_buf_release(&cg);
	if (!r)
		r = guardian_start(&sb->g);
	if (r) {
		if (r == -ENAMETOOLONG || r == -ENOENT)
			set_err(err, errlen, "cannot find the caller's own cgroup in '%s/self/cgroup'", proc);
		else
			set_err(err, errlen, "cannot start the sandbox guardian: %s", strerror(-r));
		free(sb);
		free(mc);
		return r;
	}
	if (snprintf(sb->cg_dir, sizeof(sb->cg_dir), "%s/engpass-mem-%d-%012llx", mc->parent, (int)getpid(),
		     (unsigned long long)random48()) >= (int)sizeof(sb->cg_dir)) {
		set_err(err, errlen, "cgroup path below '%s' is too long", mc->parent);
		free(mc);
		release(sb);
		return -ENAMETOOLONG;
	}
	free(mc);
	if (mkdir(sb->cg_dir, 0755)) {
		r = -errno;
		set_err(err, errlen, "cannot create cgroup '%s': %s", sb->cg_dir, strerror(-r));
		release(sb);
		return r;
	}
	sb->cg_made = true;
	if ((r = guard(sb, GUARDIAN_CGROUP, sb->cg_dir, -1, &sb->cg_id, err, errlen))) {
		release(sb);
		return r;
	}
	fmt_u64(num, o->limit_bytes);
	snprintf(path, sizeof(path), "%s/%s", sb->cg_dir, sb->version == 1 ? "memory.limit_in_bytes" : "memory.max");
	if ((r = guardian_write_file(path, num))) {
		set_err(err, errlen, "cannot set the limit in '%s': %s", path, strerror(-r));
		release(sb);
		return r;
	}
	sb->limit_bytes = o->limit_bytes;
	if (!read_i64(sb->cg_dir, sb->version == 1 ? "memory.limit_in_bytes" : "memory.max", &got) && got > 0)
		sb->limit_bytes = (uint64_t)got;
	if (sb->version == 1 && (r = set_swappiness(sb, proc, err, errlen))) {
		release(sb);
		return r;
	}
	if ((o->swap_bytes && (r = make_swapfile(sb, o, err, errlen))) ||
	    (o->swap_dev && (r = make_swapdev(sb, o, err, errlen)))) {
		release(sb);
		return r;
	}
	*out = sb;
	return 0;
}

/* ---- use ------------------------------------------------------------------ */

int sandbox_spawn(struct sandbox *sb, int (*fn)(void *), void *arg, pid_t *pid_out)
{
	int go[2], r = 0, st;
	pid_t pid;

	if (pipe2(go, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0) {
		r = -errno;
		close(go[0]);
		close(go[1]);
		return r;
	}
	if (pid == 0) {
		char c;
		ssize_t n;

		close(go[1]);
		if (sb && guardian_fd(sb->g) >= 0)
			close(guardian_fd(sb->g));
		do
			n = read(go[0], &c, 1);
		while (n < 0 && errno == EINTR);
		if (n != 1)
			_exit(127);
		close(go[0]);
		_exit(fn(arg) & 0xff);
	}
	close(go[0]);
	if (sb)
		r = cgroup_join(sb->cg_dir, pid);
	if (r) {
		kill(pid, SIGKILL);
		close(go[1]);
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
		return r;
	}
	while (write(go[1], "g", 1) < 0 && errno == EINTR)
		;
	close(go[1]);
	*pid_out = pid;
	return 0;
}

int sandbox_stat(const struct sandbox *sb, struct sandbox_stat *st)
{
	const char *d = sb->cg_dir;
	int r;

	st->usage_bytes = st->peak_bytes = st->memsw_peak_bytes = st->swap_peak_bytes = -1;
	st->limit_hits = st->oom_kills = st->swappiness = -1;
	if (sb->version == 1) {
		if ((r = read_i64(d, "memory.usage_in_bytes", &st->usage_bytes)))
			return r;
		(void)read_i64(d, "memory.max_usage_in_bytes", &st->peak_bytes);
		(void)read_i64(d, "memory.memsw.max_usage_in_bytes", &st->memsw_peak_bytes);
		(void)read_i64(d, "memory.failcnt", &st->limit_hits);
		(void)read_keyed(d, "memory.oom_control", "oom_kill", &st->oom_kills);
		(void)read_i64(d, "memory.swappiness", &st->swappiness);
	} else {
		if ((r = read_i64(d, "memory.current", &st->usage_bytes)))
			return r;
		(void)read_i64(d, "memory.peak", &st->peak_bytes);
		(void)read_i64(d, "memory.swap.peak", &st->swap_peak_bytes);
		(void)read_keyed(d, "memory.events", "max", &st->limit_hits);
		(void)read_keyed(d, "memory.events", "oom_kill", &st->oom_kills);
	}
	return 0;
}

int sandbox_cgroup_version(const struct sandbox *sb)
{
	return sb->version;
}

const char *sandbox_cgroup_dir(const struct sandbox *sb)
{
	return sb->cg_dir;
}

const char *sandbox_swap_path(const struct sandbox *sb)
{
	return sb->swap_made ? sb->swap_path : NULL;
}

uint64_t sandbox_limit_bytes(const struct sandbox *sb)
{
	return sb->limit_bytes;
}

const char *sandbox_swap_alloc(const struct sandbox *sb)
{
	return sb->swap_made ? sb->swap_alloc : NULL;
}

int sandbox_enter(struct sandbox *sb)
{
	int r;

	if ((r = cgroup_join(sb->cg_dir, getpid())))
		return r;
	sb->entered = true;
	return 0;
}

int sandbox_leave(struct sandbox *sb)
{
	return leave(sb);
}

void sandbox_swap_info(const struct sandbox *sb, struct sandbox_swap *out)
{
	memset(out, 0, sizeof(*out));
	out->old_priority = -1;
	if (!sb->swap_made)
		return;
	out->path = sb->swap_path;
	out->kind = sb->swap_dev ? "device" : "file";
	out->bytes = sb->swap_bytes;
	out->priority = SANDBOX_SWAP_PRIO;
	out->was_active = sb->was_active;
	out->old_priority = sb->old_prio;
	out->mkswapped = sb->mkswapped;
	out->alloc = sb->swap_dev ? NULL : sb->swap_alloc;
}

void sandbox_swap_result(const struct sandbox_swap *sw, struct result *res)
{
	char b1[UNITS_FMT_LEN];

	if (!sw->path) {
		result_param(res, "swap", "none of its own (system swap applies)");
		return;
	}
	result_param(res, "swap", "%s %s, %s, swapon priority %d%s%s%s", sw->kind, sw->path, units_fmt_bytes(b1, sizeof(b1), sw->bytes),
		     sw->priority, sw->alloc ? ", " : "", sw->alloc ? sw->alloc : "",
		     !strcmp(sw->kind, "file") ? " (made for the run, removed afterwards)"
		     : sw->was_active ? " (was active swap: priority raised for the run, restored afterwards)"
		     : sw->mkswapped ? " (swap signature written by engpass, --mkswap-ok; disabled afterwards)"
				     : " (was not active: disabled afterwards)");
	result_param(res, "swap_kind", "%s", sw->kind);
	result_param(res, "swap_size_bytes", "%llu", (unsigned long long)sw->bytes);
	result_param(res, "swap_priority", "%d", sw->priority);
	if (sw->was_active)
		result_param(res, "swap_priority_before", "%d", sw->old_priority);
	result_method(res, "swap", "%s", !strcmp(sw->kind, "file")
		      ? "engpass's own swap file, enabled with swapon(2) at the top priority for the run"
		      : "the given block device, enabled with swapon(2) at the top priority for the run (the previous "
			"state and priority, from /proc/swaps, restored afterwards, also after SIGKILL by a guardian "
			"process)");
}

int sandbox_destroy(struct sandbox *sb, char *err, size_t errlen)
{
	int r = 0, r2;

	if (!sb)
		return 0;
	if ((r = teardown_cg(sb)))
		set_err(err, errlen, "cannot remove cgroup '%s': %s", sb->cg_dir, strerror(-r));
	if ((r2 = teardown_swap(sb))) {
		if (!r)
			set_err(err, errlen, "cannot %s swap %s '%s': %s", sb->swap_dev ? "restore" : "disable and remove",
				sb->swap_dev ? "device" : "file", sb->swap_path, strerror(-r2));
		r = r ? r : r2;
	}
	/* On failure the guardian retries at once (not told "done"); we wait for it. */
	guardian_stop(sb->g, !r);
	free(sb);
	return r;
}
