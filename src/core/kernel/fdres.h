/* SPDX-License-Identifier: MIT */
/*
 * fdres: what file descriptor N of process PID is. Thread-state analysis
 * (a thread blocked in read, write, recvmsg, fsync or epoll_wait on fd N)
 * asks it to name the resource waited on: a file and the disk it lives
 * on, a block device, a TCP or UDP socket and its peer, a unix socket and
 * its path, a pipe, an eventfd, an epoll instance and the fds it watches.
 *
 * Resolution, all below two roots (normally "/proc" and "/sys", so the
 * unit tests can point them at a fabricated tree):
 *  - readlink(PROC/PID/fd/N) gives the link text ("/srv/x.bin",
 *    "socket:[123]", "pipe:[7]", "anon_inode:[eventfd]"), parsed by
 *    fdres_parse_link();
 *  - a path is stat()ed through the link (which follows it, so a deleted
 *    file still answers): S_ISBLK is a block device (st_rdev), a FIFO a
 *    pipe, another special file FD_OTHER, anything else a file (st_dev).
 *    The device number becomes the whole disk's name through
 *    blkdev_from_devnum() (core/kernel/blkdev.h; "vda" for vda1); an anonymous
 *    device (major 0: tmpfs, overlay, btrfs) has none. The link is read
 *    again after stat() and both texts must agree, so an fd closed and
 *    reused in between is not described with another object's device;
 *  - a socket's inode is looked for in PROC/PID/net/{tcp,tcp6,udp,udp6,
 *    unix}: the process's own network namespace, not ours. When the
 *    kernel names the protocol (the "system.sockprotoname" attribute of
 *    the fd), only that file is read; otherwise they are read in that
 *    order. Each file is read line by line once and the reading stops at
 *    the inode, so one lookup is linear in the sockets of the namespace.
 *    A socket of another family (netlink, packet, raw) or one not found
 *    is FD_SOCKET with its inode. A unix socket's local path is the one
 *    bound on its side (an accepted socket shows its listener's); one
 *    with none (a client) gets as peer the path of the socket it is
 *    connected to: sock_diag (UNIX_DIAG_PEER) names that socket's inode,
 *    which is looked for in the same file. sock_diag answers in our own
 *    network namespace only, so for a process in another one the peer
 *    stays "";
 *  - PROC/PID/fdinfo/N gives the open flags ("flags:", octal, this
 *    architecture's O_* values) and an epoll instance's watched fds
 *    ("tfd:" lines).
 *
 * The cache. struct fdres remembers the target of each (pid, fd) with the
 * link text it was resolved from. Every fdres_lookup() reads the link
 * (one readlink); when the text is the cached one, the cached target is
 * returned without reading fdinfo, /proc/net or sysfs again, so a socket's
 * state and queues and a file's flags are those of the first lookup
 * (a miss). It holds at most FDRES_CACHE_MAX entries; when full, every
 * entry is dropped at once and it fills again (a sampler looking at the
 * same few hundred fds pays one miss each per refill). A small second
 * cache maps device numbers to disk names.
 *
 * Failures are data, not errors: another user's process (-EACCES), a pid
 * that exited or an fd that is closed (-ENOENT), or one that changed
 * while it was looked at (-EAGAIN) give kind FD_UNKNOWN with err set,
 * never a guess. Nothing here prints or exits; the only allocation is
 * the cache (xmalloc, which aborts on OOM). One struct fdres must not be
 * used by two threads at once.
 *
 * The /proc/net address hex: the kernel prints each 32-bit word of the
 * address, in network byte order as stored, as a host integer ("%08X"),
 * so 127.0.0.1 reads "0100007F" on a little-endian machine and
 * "7F000001" on a big-endian one. The parsers read each group of 8 hex
 * digits into a uint32_t and copy its bytes into the address: right on
 * both. Ports are printed as numbers ("%04X") and need no such care.
 */
#ifndef ENGPASS_FDRES_H
#define ENGPASS_FDRES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/compiler.h"

enum fd_kind {
	FD_UNKNOWN,	/* could not be read: err says why */
	FD_FILE,	/* a regular file or directory */
	FD_BLOCKDEV,
	FD_TCP,
	FD_UDP,
	FD_UNIX,
	FD_SOCKET,	/* another family (netlink, packet, raw), or not found in /proc/net */
	FD_PIPE,	/* a pipe or a named FIFO */
	FD_EVENTFD,
	FD_TIMERFD,
	FD_SIGNALFD,
	FD_EPOLL,
	FD_INOTIFY,
	FD_IOURING,
	FD_ANON,	/* another anon_inode: (pidfd, fanotify, bpf-map, ...) */
	FD_OTHER,	/* a character device, a socket file, a namespace, ... */
};

/* Entries of the (pid, fd) cache; when full, all are dropped. */
#define FDRES_CACHE_MAX 512

struct fd_target {
	enum fd_kind kind;
	int err;		/* 0, or -errno why kind is FD_UNKNOWN */
	char path[128];		/* the link text, truncated; "" when unreadable */
	uint64_t inode;		/* of a socket or pipe (a FIFO's st_ino); else 0 */
	unsigned major, minor;	/* st_dev of a file, st_rdev of a block device; else 0 */
	char dev[32];		/* whole disk of a file or block device ("vda" for vda1); "" unknown or none */
	unsigned flags;		/* open flags (O_DIRECT, O_SYNC, O_APPEND, ...) when flags_known */
	bool flags_known;
	bool sync_mount;	/* a file on a file system mounted sync or dirsync (its mount table) */
	char local[64], peer[64];	/* TCP/UDP "10.0.0.1:5201", "[::1]:80"; UNIX the bound paths; else "" */
	int tcp_state;		/* /proc/net/tcp's st (1 ESTABLISHED, 10 LISTEN, ...) for TCP; -1 */
	uint64_t rx_queue, tx_queue;	/* bytes queued at the lookup that resolved it (TCP/UDP) */
};

struct fdres;

/*
 * A resolver reading below PROC_ROOT and SYS_ROOT (NULL = "/proc",
 * "/sys"; the strings are copied). Never NULL (aborts on OOM); caller
 * frees with fdres_free().
 */
struct fdres *fdres_new(const char *proc_root, const char *sys_root);

/* Frees R and its cache; NULL is allowed. Pointers from fdres_lookup() die with it. */
void fdres_free(struct fdres *r);

/*
 * What fd FD of process PID is (PID is a process or thread id; 0 is not
 * "self"). Sets *OUT to a target owned by R, valid until the next call on
 * R. Returns 0, also when the kind is FD_UNKNOWN with err set: -EACCES
 * (another user's process), -ENOENT (no such process or fd), -EAGAIN (the
 * fd changed while it was resolved), -EINVAL (a link text that is not
 * what the kernel writes), another -errno of readlink() or stat(). Returns
 * -EINVAL for PID <= 0 or FD < 0 (*OUT untouched).
 */
MUST_CHECK int fdres_lookup(struct fdres *r, pid_t pid, int fd, const struct fd_target **out);

/*
 * The fds epoll instance EPFD of PID watches, from the "tfd:" lines of
 * PROC/PID/fdinfo/EPFD, in the kernel's order: the first MAX into FDS.
 * Returns how many were stored (0 for an epoll watching nothing or an fd
 * that is not one), -errno of reading the file, or -EINVAL for bad
 * arguments. Not cached.
 */
MUST_CHECK int fdres_epoll_fds(struct fdres *r, pid_t pid, int epfd, int *fds, size_t max);

/*
 * Short text of T for evidence, into BUF of LEN bytes (truncated, always
 * terminated when LEN > 0): "vda (/srv/x.bin)", "/tmp/x" (no disk),
 * "blockdev vda (/dev/vda1)", "tcp 10.0.0.1:5201" (the peer),
 * "tcp listen 0.0.0.0:80", "udp 10.0.0.1:53", "unix /run/x.sock", "unix",
 * "socket", "pipe", "eventfd", "epoll", "unknown".
 */
void fdres_describe(const struct fd_target *t, char *buf, size_t len);

/* "file", "tcp", "eventfd", ...; the returned string is static. */
const char *fd_kind_name(enum fd_kind k);

/* ------------------------------------------------------------------ */
/* The pure parsers, exported for the unit tests and the fuzz target.  */

/*
 * Kind of a link text of LEN bytes (no NUL needed): "socket:[N]" is
 * FD_SOCKET and "pipe:[N]" FD_PIPE with *INODE = N; the anon_inode names
 * their kinds ("anon_inode:inotify" has no brackets); an absolute path is
 * FD_FILE (stat() decides about block devices); any other text
 * ("net:[4026531840]", "mnt:[...]") is FD_OTHER. *INODE is 0 unless set.
 * Returns 0, or -EINVAL for an empty text or a socket or pipe whose
 * inode is not a decimal number in brackets (*KIND = FD_UNKNOWN).
 */
MUST_CHECK int fdres_parse_link(const char *text, size_t len, enum fd_kind *kind, uint64_t *inode);

/* One socket of /proc/net/{tcp,tcp6,udp,udp6}. */
struct fdres_inet {
	int family;			/* AF_INET or AF_INET6 */
	unsigned char local[16], remote[16];	/* network byte order; 4 bytes used for AF_INET */
	uint16_t lport, rport;
	int state;			/* st */
	uint64_t tx_queue, rx_queue;
	uint64_t inode;
};

/*
 * Parses one line of LEN bytes (without or with its newline) of
 * /proc/net/tcp or udp (FAMILY AF_INET) or tcp6 or udp6 (AF_INET6):
 * "sl: local rem st tx:rx tr:when retrnsmt uid timeout inode ...".
 * Returns 0, or -EINVAL for the header or a malformed or truncated line.
 */
MUST_CHECK int fdres_parse_inet_line(const char *line, size_t len, int family, struct fdres_inet *out);

/*
 * "ADDR:PORT" of an address as fdres_inet holds it: "10.0.0.1:5201",
 * "[::1]:80", into BUF of LEN bytes (truncated, terminated when LEN > 0).
 */
void fdres_format_addr(int family, const unsigned char *addr, uint16_t port, char *buf, size_t len);

/* One socket of /proc/net/unix. */
struct fdres_unix {
	unsigned type;		/* SOCK_STREAM, ... as printed: the kernel's values (MIPS swaps STREAM and DGRAM) */
	unsigned state;		/* St: 1 unconnected, 3 connected, ... */
	uint64_t inode;
	char path[108];		/* bound path, "@name" for an abstract one, "" none; truncated */
};

/*
 * Parses one line of /proc/net/unix:
 * "Num: RefCount Protocol Flags Type St Inode [Path]". Returns 0, or
 * -EINVAL for the header or a malformed or truncated line.
 */
MUST_CHECK int fdres_parse_unix_line(const char *line, size_t len, struct fdres_unix *out);

/*
 * The "flags:" value (octal) of an fdinfo text of LEN bytes. Returns 0,
 * -ENOENT when there is no such line, -EINVAL when its value is not an
 * octal number that fits an unsigned.
 */
MUST_CHECK int fdres_parse_fdinfo_flags(const char *buf, size_t len, unsigned *flags);

/*
 * The target fds of the "tfd:" lines of an epoll instance's fdinfo text
 * of LEN bytes: the first MAX into FDS. Returns how many were stored, or
 * -EINVAL for a "tfd:" line whose number is not a non-negative int.
 */
MUST_CHECK int fdres_parse_fdinfo_tfds(const char *buf, size_t len, int *fds, size_t max);

#endif
