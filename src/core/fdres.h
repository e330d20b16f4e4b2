/* TEMP STUB - replaced by the fdres branch */
#ifndef ENGPASS_FDRES_H
#define ENGPASS_FDRES_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "lib/compiler.h"
enum fd_kind { FD_UNKNOWN, FD_FILE, FD_BLOCKDEV, FD_TCP, FD_UDP, FD_UNIX, FD_SOCKET, FD_PIPE, FD_EVENTFD, FD_TIMERFD, FD_SIGNALFD, FD_EPOLL, FD_INOTIFY, FD_IOURING, FD_ANON, FD_OTHER };
struct fd_target {
	enum fd_kind kind; int err; char path[128]; uint64_t inode; unsigned major, minor; char dev[32];
	unsigned flags; bool flags_known; char local[64], peer[64]; int tcp_state; uint64_t rx_queue, tx_queue;
};
struct fdres;
struct fdres *fdres_new(const char *proc_root, const char *sys_root);
void fdres_free(struct fdres *r);
MUST_CHECK int fdres_lookup(struct fdres *r, pid_t pid, int fd, const struct fd_target **out);
MUST_CHECK int fdres_epoll_fds(struct fdres *r, pid_t pid, int epfd, int *fds, size_t max);
void fdres_describe(const struct fd_target *t, char *buf, size_t len);
const char *fd_kind_name(enum fd_kind k);
#endif
