/* SPDX-License-Identifier: MIT */
/*
 * netwho: whose TCP traffic it was. At the edges of each span the bytes
 * every TCP socket of the work's network namespace has carried (bytes
 * acked + bytes received, sock_diag: core/kernel/sockdiag.h) are read; at a stop
 * edge the sockets that moved data since the start are matched to their
 * processes through /proc/PID/fd (socket:[INODE], as `ss -p` does) and
 * summed per process. The work is its process and its direct children
 * (nginx's workers under the master); the work's own fds are also read at
 * each reading, so its sockets closed before the stop edge still count as
 * its own. What it cannot see: UDP (sock_diag has no byte counters for
 * it), other namespaces, the bytes a socket moved after its last reading
 * before it closed (up to a second's), and who owned another process's
 * socket that closed before the stop edge (it counts in the total only,
 * as one past NETWHO_FLOWS is not counted at all).
 *
 * Cost: a dump a second and at the edges (linear in the namespace's TCP
 * sockets, a few ms for thousands) plus the work's fds, and one readlink
 * per open file descriptor of every process at a stop edge, so the
 * sampler does it only for steps with a network interface.
 */
#ifndef ENGPASS_NETWHO_H
#define ENGPASS_NETWHO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/base/sysview.h"

/* Sockets read per dump; past it a socket is not counted. */
#define NETWHO_FLOWS 4096

struct netwho;

/*
 * A reader for the namespace of WORK_PID (0 = this process's), with
 * PROC_ROOT's fd tables (NULL = "/proc"). Nothing is read yet. Never NULL
 * (xalloc aborts on OOM).
 */
struct netwho *netwho_new(pid_t work_pid, const char *proc_root);
void netwho_free(struct netwho *w);

/* Readings between the edges: at most one each NETWHO_TICK_NS. */
#define NETWHO_TICK_NS 1000000000ull

/*
 * Span edges: begin reads every socket's bytes; end reads them again and
 * charges the differences. netwho_tick() (the sampler's thread, between
 * the edges) reads them once a second, so a socket closed before the end
 * (the work's own data connection, at the end of its step) keeps its last
 * bytes and, when it was the work's, its owner.
 */
void netwho_begin(struct netwho *w);
void netwho_tick(struct netwho *w, uint64_t now_ns);
void netwho_end(struct netwho *w);

/* Frees the buffers and closes the socket once no span follows; the figures stay for netwho_view(). */
void netwho_release(struct netwho *w);

/* Writes tcp_bytes, tcp_work_bytes and tcp_others of V (left NaN / empty when nothing was read). */
void netwho_view(const struct netwho *w, struct sysview *v);

/* Why nothing was read ("" when it was). */
const char *netwho_why(const struct netwho *w);

#endif
