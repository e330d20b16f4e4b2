/* SPDX-License-Identifier: MIT */
/*
 * fdres: what a file descriptor of any process is; the behaviour and the
 * reasons for it are in fdres.h.
 *
 * The cache is an open-addressed table of FDRES_SLOTS slot indices (twice
 * the entries, linear probing, never deleted from) over an array of
 * entries that grows by doubling up to FDRES_CACHE_MAX. An entry is
 * matched by (pid, fd) and then by the length and FNV-1a hash of the full
 * link text (the target keeps only its first 127 bytes) and that prefix.
 * Failed lookups are not cached: the next call tries again.
 *
 * The parsers take a buffer and its length, never rely on a NUL after it,
 * and walk it with a cursor that stops at the end of the line.
 */
#include "core/kernel/fdres.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "core/kernel/blkdev.h"
#include "core/kernel/proc.h"
#include "lib/xalloc.h"

#define FDRES_SLOTS (2 * FDRES_CACHE_MAX)
#define FDRES_DEVS 16

struct fdres_entry {
	pid_t pid;
	int fd;
	size_t len;		/* of the full link text */
	uint64_t hash;		/* of the full link text */
	struct fd_target t;
};

struct fdres_dev {
	unsigned major, minor;
	bool used;
	signed char sync;	/* mounted sync or dirsync: 1, 0, -1 not read yet */
	char disk[32];		/* "" when sysfs has none */
};

struct fdres {
	char *proc, *sys;
	int16_t slot[FDRES_SLOTS];	/* index into entry, -1 empty */
	struct fdres_entry *entry;
	size_t n, cap;
	struct fd_target scratch;	/* the answer of a lookup that failed */
	struct fdres_dev devs[FDRES_DEVS];
	size_t next_dev;		/* round-robin victim */
	struct blkdev_info *bi;	/* blkdev_from_devnum()'s answer, allocated once */
	struct proc_buf fdinfo;
};

/* ------------------------------------------------------------------ */
/* Cursor over one bounded line */

struct cur {
	const char *p, *e;
};

static bool at_end(const struct cur *c)
{
	return c->p >= c->e || *c->p == '\n';
}

static void skip_blanks(struct cur *c)
{
	while (c->p < c->e && (*c->p == ' ' || *c->p == '\t'))
		c->p++;
}

static bool take(struct cur *c, char ch)
{
	if (c->p < c->e && *c->p == ch) {
		c->p++;
		return true;
	}
	return false;
}

static int hexval(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

/* Unsigned number in BASE (8, 10 or 16), at least one digit, no overflow. */
static bool num(struct cur *c, unsigned base, uint64_t *v)
{
	const char *start = c->p;
	uint64_t x = 0;
	int d;

	while (c->p < c->e && (d = hexval(*c->p)) >= 0 && (unsigned)d < base) {
		if (x > (UINT64_MAX - (unsigned)d) / base)
			return false;
		x = x * base + (unsigned)d;
		c->p++;
	}
	*v = x;
	return c->p > start;
}

/* Exactly 8 hex digits: one 32-bit word as the kernel printed it. */
static bool hex_word(struct cur *c, uint32_t *w)
{
	uint32_t x = 0;
	int d;

	if (c->e - c->p < 8)
		return false;
	for (int i = 0; i < 8; i++) {
		d = hexval(c->p[i]);
		if (d < 0)
			return false;
		x = x << 4 | (uint32_t)d;
	}
	c->p += 8;
	*w = x;
	return true;
}

/* A field ends at a blank or the end of the line. */
static bool field_end(const struct cur *c)
{
	return at_end(c) || *c->p == ' ' || *c->p == '\t';
}

/* ------------------------------------------------------------------ */
/* Pure parsers */

static bool has_prefix(const char *s, size_t len, const char *pfx, size_t *plen)
{
	*plen = strlen(pfx);
	return len >= *plen && memcmp(s, pfx, *plen) == 0;
}

/* "[N]" exactly, to the end of the text. */
static int bracketed_inode(const char *s, size_t len, uint64_t *inode)
{
	struct cur c = { s, s + len };

	if (!take(&c, '[') || !num(&c, 10, inode) || !take(&c, ']') || c.p != c.e)
		return -EINVAL;
	return 0;
}

int fdres_parse_link(const char *text, size_t len, enum fd_kind *kind, uint64_t *inode)
{
	static const struct {
		const char *name;
		enum fd_kind kind;
	} anon[] = {
		{ "[eventfd]", FD_EVENTFD }, { "[eventpoll]", FD_EPOLL }, { "[timerfd]", FD_TIMERFD },
		{ "[signalfd]", FD_SIGNALFD }, { "inotify", FD_INOTIFY }, { "[inotify]", FD_INOTIFY },
		{ "[io_uring]", FD_IOURING },
	};
	size_t n;

	*kind = FD_UNKNOWN;
	*inode = 0;
	if (!len)
		return -EINVAL;
	if (has_prefix(text, len, "socket:", &n) || has_prefix(text, len, "pipe:", &n)) {
		if (bracketed_inode(text + n, len - n, inode)) {
			*inode = 0;
			return -EINVAL;
		}
		*kind = text[0] == 's' ? FD_SOCKET : FD_PIPE;
		return 0;
	}
	if (has_prefix(text, len, "anon_inode:", &n)) {
		*kind = FD_ANON;
		for (size_t i = 0; i < sizeof(anon) / sizeof(anon[0]); i++)
			if (len - n == strlen(anon[i].name) && memcmp(text + n, anon[i].name, len - n) == 0)
				*kind = anon[i].kind;
		return 0;
	}
	*kind = text[0] == '/' ? FD_FILE : FD_OTHER;
	return 0;
}

/* "HEX:PORT" with 1 (AF_INET) or 4 (AF_INET6) words. */
static bool inet_endpoint(struct cur *c, int words, unsigned char *addr, uint16_t *port)
{
	uint64_t p;

	for (int i = 0; i < words; i++) {
		uint32_t w;

		if (!hex_word(c, &w))
			return false;
		/* The word is the kernel's raw 4 bytes read as a host integer: copy them back. */
		memcpy(addr + 4 * i, &w, 4);
	}
	if (!take(c, ':') || !num(c, 16, &p) || p > 0xffff || !field_end(c))
		return false;
	*port = (uint16_t)p;
	return true;
}

int fdres_parse_inet_line(const char *line, size_t len, int family, struct fdres_inet *out)
{
	struct cur c = { line, line + len };
	int words = family == AF_INET6 ? 4 : 1;
	uint64_t v, skip;

	if (family != AF_INET && family != AF_INET6)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	out->family = family;
	skip_blanks(&c);
	if (!num(&c, 10, &v) || !take(&c, ':'))
		return -EINVAL;	/* also the header line */
	skip_blanks(&c);
	if (!inet_endpoint(&c, words, out->local, &out->lport))
		return -EINVAL;
	skip_blanks(&c);
	if (!inet_endpoint(&c, words, out->remote, &out->rport))
		return -EINVAL;
	skip_blanks(&c);
	if (!num(&c, 16, &v) || v > 0xff || !field_end(&c))
		return -EINVAL;
	out->state = (int)v;
	skip_blanks(&c);
	if (!num(&c, 16, &out->tx_queue) || !take(&c, ':') || !num(&c, 16, &out->rx_queue) || !field_end(&c))
		return -EINVAL;
	skip_blanks(&c);
	/* tr:tm->when, retrnsmt, uid, timeout: checked for shape only */
	if (!num(&c, 16, &skip) || !take(&c, ':') || !num(&c, 16, &skip) || !field_end(&c))
		return -EINVAL;
	skip_blanks(&c);
	if (!num(&c, 16, &skip) || !field_end(&c))
		return -EINVAL;
	skip_blanks(&c);
	if (!num(&c, 10, &skip) || !field_end(&c))
		return -EINVAL;
	skip_blanks(&c);
	if (!num(&c, 10, &skip) || !field_end(&c))
		return -EINVAL;
	skip_blanks(&c);
	if (!num(&c, 10, &out->inode) || !field_end(&c))
		return -EINVAL;
	return 0;
}

void fdres_format_addr(int family, const unsigned char *addr, uint16_t port, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN];

	if (!len)
		return;
	if (!inet_ntop(family == AF_INET6 ? AF_INET6 : AF_INET, addr, a, sizeof(a)))
		a[0] = '\0';
	snprintf(buf, len, family == AF_INET6 ? "[%s]:%u" : "%s:%u", a, (unsigned)port);
}

int fdres_parse_unix_line(const char *line, size_t len, struct fdres_unix *out)
{
	struct cur c = { line, line + len };
	uint64_t v;
	size_t n;

	memset(out, 0, sizeof(*out));
	/* Num (a kernel address, maybe hidden as zeros), then ':' */
	if (!num(&c, 16, &v) || !take(&c, ':'))
		return -EINVAL;	/* also the header line */
	for (int i = 0; i < 5; i++) {	/* RefCount Protocol Flags Type St */
		skip_blanks(&c);
		if (!num(&c, 16, &v) || !field_end(&c))
			return -EINVAL;
		if (i == 3)
			out->type = v > 0xffff ? 0 : (unsigned)v;
		else if (i == 4)
			out->state = v > 0xff ? 0 : (unsigned)v;
	}
	skip_blanks(&c);
	if (!num(&c, 10, &out->inode) || !field_end(&c))
		return -EINVAL;
	if (take(&c, ' ') || take(&c, '\t')) {
		/* The path is the rest of the line, spaces and all. */
		const char *nl = memchr(c.p, '\n', (size_t)(c.e - c.p));

		n = (size_t)((nl ? nl : c.e) - c.p);
		if (n >= sizeof(out->path))
			n = sizeof(out->path) - 1;
		memcpy(out->path, c.p, n);
		out->path[n] = '\0';
		/* A NUL inside the line would end the C string early; that is all it does. */
	}
	return 0;
}

/* Finds the line starting with KEY; returns a cursor just after it, or false. */
static bool find_key(const char *buf, size_t len, const char *key, struct cur *c, const char **next)
{
	size_t klen = strlen(key);
	const char *p = *next, *e = buf + len;

	while (p < e) {
		const char *nl = memchr(p, '\n', (size_t)(e - p));
		const char *le = nl ? nl : e;

		*next = nl ? nl + 1 : e;
		if ((size_t)(le - p) >= klen && memcmp(p, key, klen) == 0) {
			c->p = p + klen;
			c->e = le;
			return true;
		}
		p = *next;
	}
	return false;
}

int fdres_parse_fdinfo_flags(const char *buf, size_t len, unsigned *flags)
{
	const char *next = buf;
	struct cur c;
	uint64_t v;

	if (!find_key(buf, len, "flags:", &c, &next))
		return -ENOENT;
	skip_blanks(&c);
	if (!num(&c, 8, &v) || v > UINT_MAX || !field_end(&c))
		return -EINVAL;
	*flags = (unsigned)v;
	return 0;
}

int fdres_parse_fdinfo_tfds(const char *buf, size_t len, int *fds, size_t max)
{
	const char *next = buf;
	struct cur c;
	size_t n = 0;
	uint64_t v;

	while (find_key(buf, len, "tfd:", &c, &next)) {
		skip_blanks(&c);
		if (!num(&c, 10, &v) || v > INT_MAX || !field_end(&c))
			return -EINVAL;
		if (n < max)
			fds[n++] = (int)v;
	}
	return (int)n;
}

/* ------------------------------------------------------------------ */
/* Names and descriptions */

const char *fd_kind_name(enum fd_kind k)
{
	static const char *const names[] = {
		[FD_UNKNOWN] = "unknown", [FD_FILE] = "file",	  [FD_BLOCKDEV] = "blockdev",
		[FD_TCP] = "tcp",	  [FD_UDP] = "udp",	  [FD_UNIX] = "unix",
		[FD_SOCKET] = "socket",	  [FD_PIPE] = "pipe",	  [FD_EVENTFD] = "eventfd",
		[FD_TIMERFD] = "timerfd", [FD_SIGNALFD] = "signalfd", [FD_EPOLL] = "epoll",
		[FD_INOTIFY] = "inotify", [FD_IOURING] = "io_uring", [FD_ANON] = "anon",
		[FD_OTHER] = "other",
	};

	return (unsigned)k < sizeof(names) / sizeof(names[0]) && names[k] ? names[k] : "unknown";
}

void fdres_describe(const struct fd_target *t, char *buf, size_t len)
{
	const char *name = fd_kind_name(t->kind);

	if (!len)
		return;
	switch (t->kind) {
	case FD_FILE:
		if (t->dev[0])
			snprintf(buf, len, "%s (%s)", t->dev, t->path);
		else
			snprintf(buf, len, "%s", t->path);
		break;
	case FD_BLOCKDEV:
		snprintf(buf, len, "blockdev %s (%s)", t->dev[0] ? t->dev : "?", t->path);
		break;
	case FD_TCP:
		if (t->peer[0])
			snprintf(buf, len, "tcp %s", t->peer);
		else
			snprintf(buf, len, "tcp %s%s", t->tcp_state == 10 ? "listen " : "", t->local);
		break;
	case FD_UDP:
		snprintf(buf, len, "udp %s", t->peer[0] ? t->peer : t->local);
		break;
	case FD_UNIX:
		if (t->peer[0] || t->local[0])
			snprintf(buf, len, "unix %s", t->peer[0] ? t->peer : t->local);
		else
			snprintf(buf, len, "unix");
		break;
	case FD_OTHER:
		snprintf(buf, len, "%s", t->path[0] ? t->path : name);
		break;
	default:
		snprintf(buf, len, "%s", name);
		break;
	}
}

/* ------------------------------------------------------------------ */
/* The resolver */

static void copy_str(char *dst, size_t n, const char *src, size_t slen)
{
	if (slen >= n)
		slen = n - 1;
	memcpy(dst, src, slen);
	dst[slen] = '\0';
}

struct fdres *fdres_new(const char *proc_root, const char *sys_root)
{
	struct fdres *r = xcalloc(1, sizeof(*r));

	r->proc = xstrdup(proc_root ? proc_root : "/proc");
	r->sys = xstrdup(sys_root ? sys_root : "/sys");
	memset(r->slot, 0xff, sizeof(r->slot));
	r->fdinfo = (struct proc_buf)PROC_BUF_INIT;
	return r;
}

void fdres_free(struct fdres *r)
{
	if (!r)
		return;
	free(r->proc);
	free(r->sys);
	free(r->entry);
	free(r->bi);
	proc_buf_release(&r->fdinfo);
	free(r);
}

static uint64_t fnv1a(const char *s, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

static size_t slot_of(pid_t pid, int fd)
{
	uint32_t h = (uint32_t)pid * 2654435761u ^ (uint32_t)fd * 2246822519u;

	return (h ^ h >> 15) % FDRES_SLOTS;
}

/* The slot holding (PID, FD), or the empty slot where it would go. */
static size_t probe(const struct fdres *r, pid_t pid, int fd)
{
	size_t i = slot_of(pid, fd);

	while (r->slot[i] >= 0) {
		const struct fdres_entry *e = &r->entry[r->slot[i]];

		if (e->pid == pid && e->fd == fd)
			break;
		i = (i + 1) % FDRES_SLOTS;
	}
	return i;
}

static void cache_clear(struct fdres *r)
{
	memset(r->slot, 0xff, sizeof(r->slot));
	r->n = 0;
}

/* Stores T for (PID, FD) and returns the cached copy. */
static const struct fd_target *cache_put(struct fdres *r, pid_t pid, int fd, size_t len, uint64_t hash,
					 const struct fd_target *t)
{
	size_t i = probe(r, pid, fd);
	struct fdres_entry *e;

	if (r->slot[i] < 0) {
		if (r->n == FDRES_CACHE_MAX) {
			cache_clear(r);
			i = probe(r, pid, fd);
		}
		if (r->n == r->cap) {
			r->cap = r->cap ? 2 * r->cap : 16;
			r->entry = xrealloc(r->entry, r->cap * sizeof(*r->entry));
		}
		r->slot[i] = (int16_t)r->n++;
	}
	e = &r->entry[r->slot[i]];
	e->pid = pid;
	e->fd = fd;
	e->len = len;
	e->hash = hash;
	e->t = *t;
	return &e->t;
}

static void set_unknown(struct fd_target *t, int err)
{
	t->kind = FD_UNKNOWN;
	t->err = err;
}

/* The whole disk of device MAJOR:MINOR into DEV ("" none), through the device cache. */
static void disk_of(struct fdres *r, unsigned major, unsigned minor, char *dev, size_t len)
{
	struct fdres_dev *d;

	dev[0] = '\0';
	if (major == 0)
		return;	/* anonymous: tmpfs, overlay, btrfs */
	for (size_t i = 0; i < FDRES_DEVS; i++) {
		d = &r->devs[i];
		if (d->used && d->major == major && d->minor == minor) {
			snprintf(dev, len, "%s", d->disk);
			return;
		}
	}
	d = &r->devs[r->next_dev];
	r->next_dev = (r->next_dev + 1) % FDRES_DEVS;
	d->used = true;
	d->major = major;
	d->minor = minor;
	d->sync = -1;
	d->disk[0] = '\0';
	if (!r->bi)
		r->bi = xmalloc(sizeof(*r->bi));
	if (blkdev_from_devnum(r->sys, major, minor, r->bi) == 0)
		snprintf(d->disk, sizeof(d->disk), "%s", r->bi->disk);
	snprintf(dev, len, "%s", d->disk);
}

/*
 * Whether the file system on MAJOR:MINOR is mounted sync or dirsync, from
 * PROC/PID/mountinfo (the file's process's mount namespace), cached with
 * the device (sync is a super-block flag: every mount of it shares it).
 * False when unknown: nothing is claimed that was not read.
 */
static bool mount_sync(struct fdres *r, pid_t pid, unsigned major, unsigned minor)
{
	char path[PATH_MAX];
	struct fdres_dev *d = NULL;
	struct proc_mount *m;
	const char *pos, *end;
	unsigned bad = 0;

	if (major == 0)
		return false;
	for (size_t i = 0; i < FDRES_DEVS && !d; i++)
		if (r->devs[i].used && r->devs[i].major == major && r->devs[i].minor == minor)
			d = &r->devs[i];
	if (d && d->sync >= 0)
		return d->sync == 1;
	if (proc_path(path, sizeof(path), "%s/%d/mountinfo", r->proc, (int)pid) ||
	    proc_buf_read_file(&r->fdinfo, path))
		return false;
	m = xmalloc(sizeof(*m));
	pos = r->fdinfo.data;
	end = pos + r->fdinfo.len;
	bool sync = false;
	while (proc_mount_next(m, PROC_MOUNTINFO, &pos, end, &bad) == 1)
		if (m->major == major && m->minor == minor && proc_mount_is_sync(m)) {
			sync = true;
			break;
		}
	free(m);
	if (d)
		d->sync = sync;
	return sync;
}

/* A path: stat() through the link decides file, block device, FIFO or other. */
static void resolve_path(struct fdres *r, pid_t pid, const char *link, struct fd_target *t)
{
	struct stat st;

	if (stat(link, &st)) {
		set_unknown(t, -errno);
		return;
	}
	if (S_ISBLK(st.st_mode)) {
		t->kind = FD_BLOCKDEV;
		t->major = major(st.st_rdev);
		t->minor = minor(st.st_rdev);
		disk_of(r, t->major, t->minor, t->dev, sizeof(t->dev));
	} else if (S_ISFIFO(st.st_mode)) {
		t->kind = FD_PIPE;
		t->inode = (uint64_t)st.st_ino;
	} else if (S_ISCHR(st.st_mode) || S_ISSOCK(st.st_mode)) {
		t->kind = FD_OTHER;
	} else {
		t->kind = FD_FILE;
		t->major = major(st.st_dev);
		t->minor = minor(st.st_dev);
		disk_of(r, t->major, t->minor, t->dev, sizeof(t->dev));
		t->sync_mount = mount_sync(r, pid, t->major, t->minor);
	}
}

enum net_file { NET_TCP, NET_TCP6, NET_UDP, NET_UDP6, NET_UNIX, NET_FILES };

static const char *const net_names[NET_FILES] = { "tcp", "tcp6", "udp", "udp6", "unix" };

/*
 * A line of PROC/PID/net/FILE: tcp6's are 150 characters, unix's about 60
 * plus a path of at most 108 (sun_path).
 */
#define NET_LINE_MAX 512

/*
 * Looks for T's inode in PROC/PID/net/FILE, reading line by line and
 * stopping at it. Returns 1 found (T filled), 0 not there, -errno.
 */
static int scan_net(struct fdres *r, pid_t pid, enum net_file which, struct fd_target *t)
{
	char path[PATH_MAX], line[NET_LINE_MAX];
	FILE *f;
	size_t n;
	int found = 0;

	if (proc_path(path, sizeof(path), "%s/%d/net/%s", r->proc, (int)pid, net_names[which]))
		return -ENAMETOOLONG;
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (!found && fgets(line, sizeof(line), f)) {
		n = strlen(line);
		if (n && line[n - 1] != '\n' && !feof(f)) {
			/* Longer than any line these files have: passed over whole. */
			int c;

			while ((c = getc(f)) != EOF && c != '\n')
				;
			continue;
		}
		if (which == NET_UNIX) {
			struct fdres_unix u;

			if (fdres_parse_unix_line(line, n, &u) || u.inode != t->inode)
				continue;
			t->kind = FD_UNIX;
			copy_str(t->local, sizeof(t->local), u.path, strlen(u.path));
			found = 1;
		} else {
			int family = which == NET_TCP6 || which == NET_UDP6 ? AF_INET6 : AF_INET;
			static const unsigned char zero[16];
			struct fdres_inet in;

			if (fdres_parse_inet_line(line, n, family, &in) || in.inode != t->inode)
				continue;
			t->kind = which == NET_TCP || which == NET_TCP6 ? FD_TCP : FD_UDP;
			fdres_format_addr(family, in.local, in.lport, t->local, sizeof(t->local));
			if (in.rport || memcmp(in.remote, zero, family == AF_INET6 ? 16 : 4))
				fdres_format_addr(family, in.remote, in.rport, t->peer, sizeof(t->peer));
			t->tcp_state = t->kind == FD_TCP ? in.state : -1;
			t->tx_queue = in.tx_queue;
			t->rx_queue = in.rx_queue;
			found = 1;
		}
	}
	fclose(f);
	return found;
}

/*
 * The inode of the socket unix socket INODE is connected to, asked of
 * sock_diag (UNIX_DIAG_PEER). The kernel answers in our own network
 * namespace only: for a process in another one the answer is "no such
 * socket". Returns the inode, or 0 when there is none or no answer.
 */
static uint64_t unix_peer_inode(uint64_t inode)
{
	struct {
		struct nlmsghdr nh;
		struct unix_diag_req req;
	} msg = {
		.nh = { .nlmsg_len = sizeof(msg), .nlmsg_type = SOCK_DIAG_BY_FAMILY, .nlmsg_flags = NLM_F_REQUEST },
		.req = { .sdiag_family = AF_UNIX, .udiag_ino = (uint32_t)inode, .udiag_show = UDIAG_SHOW_PEER,
			 .udiag_cookie = { ~0u, ~0u } },
	};
	union {
		struct nlmsghdr nh;
		char bytes[1024];
	} buf;
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	uint64_t peer = 0;
	ssize_t n;
	int s;

	if (inode > UINT32_MAX)
		return 0;
	s = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	if (s < 0)
		return 0;
	if (sendto(s, &msg, sizeof(msg), 0, (struct sockaddr *)&kernel, sizeof(kernel)) != (ssize_t)sizeof(msg)) {
		close(s);
		return 0;
	}
	do
		n = recv(s, &buf, sizeof(buf), 0);
	while (n < 0 && errno == EINTR);
	close(s);
	if (n < (ssize_t)NLMSG_LENGTH(sizeof(struct unix_diag_msg)) || !NLMSG_OK(&buf.nh, (size_t)n) ||
	    buf.nh.nlmsg_type != SOCK_DIAG_BY_FAMILY)
		return 0;	/* NLMSG_ERROR: not found, not allowed, not built */
	{
		const struct unix_diag_msg *m = NLMSG_DATA(&buf.nh);
		const struct rtattr *a = (const struct rtattr *)(m + 1);
		size_t left = buf.nh.nlmsg_len - NLMSG_LENGTH(sizeof(*m));

		if ((uint64_t)m->udiag_ino != inode)
			return 0;
		for (; RTA_OK(a, left); a = RTA_NEXT(a, left))
			if (a->rta_type == UNIX_DIAG_PEER && RTA_PAYLOAD(a) >= sizeof(uint32_t)) {
				uint32_t v;

				memcpy(&v, RTA_DATA(a), sizeof(v));
				peer = v;
			}
	}
	return peer;
}

/*
 * A unix socket without a path of its own (a client): the path bound on
 * the other end, found again in PROC/PID/net/unix.
 */
static void unix_peer(struct fdres *r, pid_t pid, struct fd_target *t)
{
	struct fd_target peer = { .inode = unix_peer_inode(t->inode) };

	if (peer.inode && scan_net(r, pid, NET_UNIX, &peer) == 1)
		copy_str(t->peer, sizeof(t->peer), peer.local, strlen(peer.local));
}

/*
 * A socket: the protocol the kernel names for the fd picks the one file
 * to read; without it (older kernel, a fabricated tree) all are tried.
 * Not found anywhere: FD_SOCKET with its inode.
 */
static void resolve_socket(struct fdres *r, pid_t pid, const char *link, struct fd_target *t)
{
	char proto[32];
	ssize_t n;
	int first = 0, last = NET_FILES - 1;

	if (!t->inode)
		return;
	n = getxattr(link, "system.sockprotoname", proto, sizeof(proto) - 1);
	if (n > 0) {
		proto[n] = '\0';
		if (!strcmp(proto, "TCP"))
			first = last = NET_TCP;
		else if (!strcmp(proto, "TCPv6"))
			first = last = NET_TCP6;
		else if (!strcmp(proto, "UDP"))
			first = last = NET_UDP;
		else if (!strcmp(proto, "UDPv6"))
			first = last = NET_UDP6;
		else if (!strncmp(proto, "UNIX", 4))
			first = last = NET_UNIX;
		else
			return;	/* NETLINK, PACKET, RAW, ...: FD_SOCKET */
	}
	for (int i = first; i <= last; i++)
		if (scan_net(r, pid, (enum net_file)i, t) == 1) {
			if (t->kind == FD_UNIX && !t->local[0])
				unix_peer(r, pid, t);
			return;
		}
}

/* Open flags from PROC/PID/fdinfo/FD; left unknown when unreadable. */
static void read_flags(struct fdres *r, pid_t pid, int fd, struct fd_target *t)
{
	char path[PATH_MAX], buf[512];
	ssize_t n;
	int f;

	if (proc_path(path, sizeof(path), "%s/%d/fdinfo/%d", r->proc, (int)pid, fd))
		return;
	f = open(path, O_RDONLY | O_CLOEXEC);
	if (f < 0)
		return;
	/* pos: and flags: are the first lines; an epoll's tfd: lines may follow by the thousand. */
	do
		n = read(f, buf, sizeof(buf));
	while (n < 0 && errno == EINTR);
	close(f);
	if (n > 0 && fdres_parse_fdinfo_flags(buf, (size_t)n, &t->flags) == 0)
		t->flags_known = true;
}

/* readlink into BUF of LEN bytes, terminated; returns the length or -errno. */
static ssize_t read_link(const char *link, char *buf, size_t len)
{
	ssize_t n = readlink(link, buf, len - 1);

	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return n;
}

int fdres_lookup(struct fdres *r, pid_t pid, int fd, const struct fd_target **out)
{
	char link[PATH_MAX], text[PATH_MAX], again[PATH_MAX];
	struct fd_target *t;
	ssize_t n, m;
	uint64_t hash;
	size_t i;
	int rc;

	if (!r || pid <= 0 || fd < 0 || !out)
		return -EINVAL;
	t = &r->scratch;
	*out = t;
	memset(t, 0, sizeof(*t));
	t->tcp_state = -1;
	if (proc_path(link, sizeof(link), "%s/%d/fd/%d", r->proc, (int)pid, fd)) {
		set_unknown(t, -ENAMETOOLONG);
		return 0;
	}
	n = read_link(link, text, sizeof(text));
	if (n < 0) {
		set_unknown(t, (int)n);
		return 0;
	}
	hash = fnv1a(text, (size_t)n);
	i = probe(r, pid, fd);
	if (r->slot[i] >= 0) {
		const struct fdres_entry *e = &r->entry[r->slot[i]];

		if (e->len == (size_t)n && e->hash == hash && !strncmp(e->t.path, text, sizeof(e->t.path) - 1)) {
			*out = &e->t;
			return 0;
		}
	}

	copy_str(t->path, sizeof(t->path), text, (size_t)n);
	rc = fdres_parse_link(text, (size_t)n, &t->kind, &t->inode);
	if (rc) {
		set_unknown(t, rc);
		return 0;
	}
	if (t->kind == FD_FILE)
		resolve_path(r, pid, link, t);
	else if (t->kind == FD_SOCKET)
		resolve_socket(r, pid, link, t);
	if (t->kind == FD_UNKNOWN)
		return 0;
	read_flags(r, pid, fd, t);
	/* Still the same object? An fd closed and reused meanwhile must not mix two. */
	m = read_link(link, again, sizeof(again));
	if (m < 0 || m != n || memcmp(again, text, (size_t)n)) {
		memset(t, 0, sizeof(*t));
		t->tcp_state = -1;
		set_unknown(t, m < 0 ? (int)m : -EAGAIN);
		return 0;
	}
	*out = cache_put(r, pid, fd, (size_t)n, hash, t);
	return 0;
}

int fdres_epoll_fds(struct fdres *r, pid_t pid, int epfd, int *fds, size_t max)
{
	char path[PATH_MAX];
	int rc;

	if (!r || pid <= 0 || epfd < 0 || (!fds && max))
		return -EINVAL;
	if (proc_path(path, sizeof(path), "%s/%d/fdinfo/%d", r->proc, (int)pid, epfd))
		return -ENAMETOOLONG;
	rc = proc_buf_read_file(&r->fdinfo, path);
	if (rc)
		return rc;
	return fdres_parse_fdinfo_tfds(r->fdinfo.data, r->fdinfo.len, fds, max);
}
