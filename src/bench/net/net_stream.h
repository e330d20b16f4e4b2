/* SPDX-License-Identifier: MIT */
/*
 * Data streams of `engpass net`: one thread per stream (the lesson of
 * iperf3 3.16, whose single select() loop bound -P N to one core), each
 * sending or receiving on one connected TCP or UDP socket, counting bytes
 * (and, for UDP, sequence-based loss and jitter) and timing its own CPU.
 *
 * Threads block every signal, so Ctrl-C reaches the control thread, and a
 * peer that closes makes send() fail with EPIPE instead of killing the
 * process. Sockets get 250 ms send and receive timeouts so a thread sees
 * its quit flag promptly even when the peer has gone silent; the owner
 * may also shut the socket down to wake it at once.
 *
 * Counters are published under a per-stream mutex (64-bit atomics are not
 * lock-free on 32-bit routers), so the control thread can read progress
 * while the stream runs; everything else is read after net_stream_join().
 */
#ifndef ENGPASS_NET_STREAM_H
#define ENGPASS_NET_STREAM_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/base/clock.h"
#include "lib/compiler.h"
#include "bench/net/net_iperf3.h"
#include "bench/net/net_udp.h"

/* How a stream is told to end (net_stream_quit). */
enum net_quit {
	NET_RUN = 0,
	NET_QUIT_NOW,		/* stop at once; bytes after this are not counted */
	NET_QUIT_DRAIN,		/* receivers: read until EOF or 250 ms of silence */
};

/* The send payload, shared read-only by the streams of one test. */
struct net_payload {
	unsigned char *buf;	/* random bytes, len of them */
	size_t len;
	int zc_fd;		/* memfd holding buf for sendfile(), -1 when not zero-copy */
};

/*
 * Fills P with LEN random bytes (getrandom, or a xorshift fill if the
 * kernel has no entropy to spare) and, with ZEROCOPY, a memfd holding
 * them. Returns 0, or -errno from memfd_create/write (P is then usable
 * without zero copy: zc_fd is -1). Release with net_payload_release().
 */
MUST_CHECK int net_payload_init(struct net_payload *p, size_t len, bool zerocopy);
/* Frees the buffer and closes the memfd of P; P is then empty (zc_fd -1). */
void net_payload_release(struct net_payload *p);

struct net_stream {
	/* set by the owner before net_stream_start() */
	int fd;			/* owned by the owner; closed after join */
	int id;			/* iperf3 stream id */
	enum net_proto proto;
	bool sender;
	const struct net_payload *payload;
	double rate_bytes_per_s;	/* pacing; 0 = unlimited */
	bool seq64;		/* UDP: 64-bit sequence numbers */
	int pin_cpu;		/* -1 = leave the affinity alone */

	/* the thread */
	pthread_t thread;
	bool started;
	atomic_int quit;	/* enum net_quit */
	atomic_int done;	/* set by the thread as it ends */

	/* published while running, under lock */
	pthread_mutex_t lock;
	uint64_t bytes;
	uint64_t packets;

	/* valid after net_stream_join() */
	struct net_udp_rx rx;	/* UDP receiver accounting */
	uint64_t cpu_ns;	/* thread CPU time */
	int err;		/* first error that ended the stream early, -errno; 0 */
	bool eof;		/* the peer closed (TCP) */
	int pin_err;		/* -errno when pinning failed; 0 */
};

/* Sets S up with defaults (fd -1, no pinning); call before filling it. */
void net_stream_init(struct net_stream *s);

/*
 * Starts the thread of S (fields above filled). Returns 0 or -errno from
 * pthread_create. The socket gets 250 ms I/O timeouts.
 */
MUST_CHECK int net_stream_start(struct net_stream *s);

/* Asks the thread to end (enum net_quit). Safe to call repeatedly. */
void net_stream_quit(struct net_stream *s, enum net_quit how);

/* Bytes counted so far (under the lock). */
uint64_t net_stream_bytes(struct net_stream *s);

/* Joins the thread if it was started. */
void net_stream_join(struct net_stream *s);

/*
 * Stops the thread if it still runs (quit at once, socket shut down),
 * joins it, closes the socket and destroys the lock.
 */
void net_stream_release(struct net_stream *s);

#endif
