/* SPDX-License-Identifier: MIT */
/*
 * The cpu benchmark: how many bytes a core can encrypt, per CPU-second and
 * per wall second, per cipher, packet size and library, and how that
 * scales over cores -- the cost side of seed 004's fastd supernodes (Mbit/s
 * per GHz) and of seed 000's BitTorrent encryption on a router (RC4).
 *
 * One step per combination of cipher, library, size and thread count, in
 * that nesting, so every row has its own parameters, method, status (a
 * cipher this build or CPU lacks is a skipped row with the reason) and its
 * own system view; docs/cpu.md says why this layout was chosen over one
 * step with many metrics.
 *
 * Each step runs worker threads, thread i pinned to the i-th CPU of the
 * allowed set (after --pin), for --time (default 1 s). Work is timed in
 * thread CPU time and in wall time. The frequency behind "per GHz" is
 * named: perf cycles measured during the run when the CPU exposes a cycle
 * counter, else cpufreq, else engpass's calibrated loop run on the
 * measuring thread just before it, else /proc/cpuinfo flagged as a boot
 * value. With more than one thread a single-thread baseline on the first
 * CPU runs first, so the step can report scaling efficiency.
 *
 * Modes: packet (seal one --size packet at a time, as a VPN), stream (one
 * long buffer in --size chunks, as `openssl speed -evp`), udp (seal, send
 * over loopback UDP, receive, unseal and check, in one thread, so both
 * ends' CPU is the thread's CPU).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "bench/bench.h"
#include "core/work/cipher.h"
#include "bench/cpu/cpu_cycles.h"
#include "lib/units.h"
#include "core/kernel/affinity.h"
#include "core/base/clock.h"
#include "core/kernel/proc.h"
#include "core/base/progress.h"
#include "core/kernel/sysinfo.h"
#include "lib/xalloc.h"

#define MAX_SIZES 32
#define MAX_THREADS 16

/* The lists used when --cipher, --size or --threads is not given. */
#define DEFAULT_CIPHERS "all"
#define DEFAULT_SIZES "64,1400,16K"
#define DEFAULT_THREADS "1"
#define MAX_ROWS (CIPHER_NCIPHERS * CIPHER_NLIBS)
#define MAX_SIZE_BYTES (64ULL << 20)
/* Largest UDP payload over IPv4 minus our header and tag. */
#define UDP_MAX_SIZE (65507 - CIPHER_HEADER - CIPHER_MAX_TAG)
#define STREAM_RING (256u << 10)
#define DEFAULT_TIME_NS NS_PER_SEC
/* Work between two looks at the clock and the stop flag. */
#define BATCH_BYTES (64u << 10)
#define UDP_BATCH 16
#define UDP_TIMEOUT_S 1

enum { LIB_AUTO, LIB_SODIUM, LIB_OPENSSL, LIB_MBEDTLS };
enum { MODE_PACKET, MODE_STREAM, MODE_UDP };

static const char *const lib_choices[] = { "auto", "sodium", "openssl", "mbedtls", NULL };
static const char *const mode_choices[] = { "packet", "stream", "udp", NULL };

struct cpu_row {
	enum cipher_id id;
	enum cipher_lib lib;
};

struct cpu_opts {
	struct opt_list cipher;	/* --cipher; not given: DEFAULT_CIPHERS */
	struct opt_list size;	/* --size; not given: DEFAULT_SIZES */
	struct opt_list threads;	/* --threads; not given: DEFAULT_THREADS */
	int mode;
	int lib;
	/* Filled by cpu_check() from the texts above. */
	struct cpu_row rows[MAX_ROWS];
	size_t nrows;
	uint64_t sizes[MAX_SIZES];
	size_t nsizes;
	int nthreads_list[MAX_THREADS];	/* 0 = all allowed CPUs */
	size_t nthreads;
};

static const struct opt cpu_options[] = {
	OPT_LIST("cipher", 0, struct cpu_opts, cipher, OPT_LIST_MAX, "LIST",
		   "salsa2012,salsa20,chacha20-poly1305,aes-256-gcm,aes-128-ctr,rc4,none or all (default all)"),
	OPT_LIST("size", 0, struct cpu_opts, size, MAX_SIZES, "SIZES",
		   "comma list of packet/chunk sizes, e.g. 64,1400,16K (default 64,1400,16K)"),
	OPT_CHOICE("mode", 0, struct cpu_opts, mode, mode_choices, "MODE",
		   "packet (nonce, encrypt, tag per packet, like a VPN), stream (one long buffer, "
		   "like openssl speed) or udp (encrypt, loopback UDP, decrypt); default packet"),
	OPT_LIST("threads", 0, struct cpu_opts, threads, MAX_THREADS, "N",
		   "worker threads, each pinned to its own CPU: N, all, or a list such as 1,2 (default 1)"),
	OPT_CHOICE("lib", 0, struct cpu_opts, lib, lib_choices, "LIB",
		   "auto (libsodium and OpenSSL, or mbedTLS in a build without OpenSSL), sodium, openssl "
		   "or mbedtls (default auto)"),
	OPT_END,
};

static int parse_ciphers(struct cpu_opts *o, char *err, size_t errlen)
{
	struct opt_list def;
	const struct opt_list *l = opt_list_or(&o->cipher, DEFAULT_CIPHERS, &def);
	bool want[CIPHER_NCIPHERS] = { false };
	enum cipher_id order[CIPHER_NCIPHERS];
	size_t norder = 0, n = l->n;

	for (size_t i = 0; i < n; i++) {
		const char *item = opt_list_item(l, i);
		int id;

		if (!strcmp(item, "all")) {
			if (n > 1) {
				snprintf(err, errlen, "option '--cipher': 'all' cannot be combined with other ciphers");
				return -EINVAL;
			}
			for (int k = 0; k < CIPHER_NCIPHERS; k++)
				order[norder++] = (enum cipher_id)k;
			break;
		}
		id = cipher_lookup(item);
		if (id < 0) {
			size_t len = (size_t)snprintf(err, errlen, "option '--cipher': unknown cipher '%s' (choose from",
						      item);
			for (int k = 0; k < CIPHER_NCIPHERS && len < errlen; k++)
				len += (size_t)snprintf(err + len, errlen - len, " %s,", cipher_name(k));
			if (len < errlen)
				snprintf(err + len, errlen - len, " all)");
			return -EINVAL;
		}
		if (want[id]) {
			snprintf(err, errlen, "option '--cipher': '%s' is listed twice", item);
			return -EINVAL;
		}
		want[id] = true;
		order[norder++] = (enum cipher_id)id;
	}
	o->nrows = 0;
	for (size_t i = 0; i < norder; i++) {
		enum cipher_id id = order[i];

		if (id == CIPHER_NONE) {
			o->rows[o->nrows++] = (struct cpu_row){ id, CIPHER_LIB_BUILTIN };
		} else if (o->lib == LIB_AUTO) {
			/* Every library that has it, so the library difference shows. */
			if (cipher_in_lib(id, CIPHER_LIB_SODIUM))
				o->rows[o->nrows++] = (struct cpu_row){ id, CIPHER_LIB_SODIUM };
			/* mbedTLS stands in for OpenSSL where the build has no OpenSSL (the router
			 * build); otherwise OpenSSL's rows (skipped with why when it is missing too). */
			bool mbed = cipher_lib_built(CIPHER_LIB_MBEDTLS) && !cipher_lib_built(CIPHER_LIB_OPENSSL);
			enum cipher_lib second = mbed ? CIPHER_LIB_MBEDTLS : CIPHER_LIB_OPENSSL;

			if (cipher_in_lib(id, second))
				o->rows[o->nrows++] = (struct cpu_row){ id, second };
		} else {
			/* Asked for explicitly: a row even if the library lacks it (skipped with why). */
			static const enum cipher_lib libs[] = { [LIB_SODIUM] = CIPHER_LIB_SODIUM,
								[LIB_OPENSSL] = CIPHER_LIB_OPENSSL,
								[LIB_MBEDTLS] = CIPHER_LIB_MBEDTLS };

			o->rows[o->nrows++] = (struct cpu_row){ id, libs[o->lib] };
		}
	}
	return 0;
}

static int parse_sizes(struct cpu_opts *o, char *err, size_t errlen)
{
	struct opt_list def;
	const struct opt_list *l = opt_list_or(&o->size, DEFAULT_SIZES, &def);
	uint64_t max = o->mode == MODE_UDP ? UDP_MAX_SIZE : MAX_SIZE_BYTES;

	o->nsizes = 0;
	for (size_t i = 0; i < l->n; i++) {
		const char *item = opt_list_item(l, i);
		uint64_t v;
		int r = units_parse_size(item, &v);

		if (r == -EINVAL) {
			snprintf(err, errlen, "option '--size': '%s' is not a size such as 64, 1400 or 16K", item);
			return -EINVAL;
		}
		if (r || v < 1 || v > max) {
			snprintf(err, errlen, "option '--size': '%s' is out of range [1 B, %llu B]%s", item,
				 (unsigned long long)max,
				 o->mode == MODE_UDP ? " (a UDP datagram with --mode udp)" : "");
			return -ERANGE;
		}
		for (size_t k = 0; k < o->nsizes; k++) {
			if (o->sizes[k] == v) {
				snprintf(err, errlen, "option '--size': '%s' is listed twice", item);
				return -EINVAL;
			}
		}
		o->sizes[o->nsizes++] = v;
	}
	return 0;
}

static int allowed_cpus(cpu_set_t *set)
{
	int r = affinity_get_self(set);

	return r < 0 ? r : CPU_COUNT(set);
}

static int parse_threads(struct cpu_opts *o, char *err, size_t errlen)
{
	struct opt_list def;
	const struct opt_list *l = opt_list_or(&o->threads, DEFAULT_THREADS, &def);
	cpu_set_t set;
	int ncpu = allowed_cpus(&set);

	o->nthreads = 0;
	for (size_t i = 0; i < l->n; i++) {
		const char *item = opt_list_item(l, i);
		int64_t v = 0;

		if (strcmp(item, "all")) {
			int r = units_parse_int64(item, 1, CPU_SETSIZE, &v);

			if (r == -EINVAL) {
				snprintf(err, errlen, "option '--threads': '%s' is not a number or 'all'", item);
				return -EINVAL;
			}
			if (r) {
				snprintf(err, errlen, "option '--threads': '%s' is out of range [1, %d]", item,
					 CPU_SETSIZE);
				return -ERANGE;
			}
		}
		for (size_t k = 0; k < o->nthreads; k++) {
			if (o->nthreads_list[k] == (int)v) {
				snprintf(err, errlen, "option '--threads': '%s' is listed twice", item);
				return -EINVAL;
			}
		}
		o->nthreads_list[o->nthreads++] = (int)v;
	}
	for (size_t k = 0; k < o->nthreads && ncpu > 0; k++) {
		for (size_t j = 0; j < o->nthreads; j++) {
			if (o->nthreads_list[k] == 0 && o->nthreads_list[j] == ncpu) {
				snprintf(err, errlen, "option '--threads': '%s' lists %d twice ('all' is %d here)",
					 l->text, ncpu, ncpu);
				return -EINVAL;
			}
		}
	}
	return 0;
}

static int cpu_check(void *p, const struct bench_env *env, char *err, size_t errlen)
{
	struct cpu_opts *o = p;
	int r;

	(void)env;	/* BENCH_NO_IO: the runner refused positional arguments */
	if ((r = parse_ciphers(o, err, errlen)) || (r = parse_sizes(o, err, errlen)) ||
	    (r = parse_threads(o, err, errlen)))
		return -EINVAL;
	return 0;
}

static size_t cpu_nsteps(const void *p)
{
	const struct cpu_opts *o = p;

	return o->nrows * o->nsizes * o->nthreads;
}

static void cpu_sample_config(const void *p, unsigned step, struct sampler_config *cfg)
{
	const struct cpu_opts *o = p;

	(void)step;
	if (o->mode == MODE_UDP)
		cfg->iface = "lo";
}

/* ---- worker threads ------------------------------------------------------ */

/*
 * The start line of a phase: workers finish their setup (pinning,
 * calibration), check in and wait; the step starts them all at once, or
 * calls the phase off when a thread could not be created.
 */
struct gate {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int ready;		/* workers waiting at the gate */
	int state;		/* 0 wait, 1 go, -1 called off */
};

/* Worker side: check in, wait; true when the phase goes ahead. */
static bool gate_wait(struct gate *g)
{
	bool go;

	pthread_mutex_lock(&g->mu);
	g->ready++;
	pthread_cond_broadcast(&g->cv);
	while (!g->state)
		pthread_cond_wait(&g->cv, &g->mu);
	go = g->state > 0;
	pthread_mutex_unlock(&g->mu);
	return go;
}

/* Step side: wait for N workers to check in, then start them (GO) or call the phase off. */
static void gate_open(struct gate *g, int n, bool go)
{
	pthread_mutex_lock(&g->mu);
	while (g->ready < n)
		pthread_cond_wait(&g->cv, &g->mu);
	g->state = go ? 1 : -1;
	pthread_cond_broadcast(&g->cv);
	pthread_mutex_unlock(&g->mu);
}

/* One worker: inputs set by the step, outputs by the thread. */
struct worker {
	pthread_t th;
	int cpu;			/* CPU to pin to */
	int mode;
	size_t size;
	uint64_t time_ns;
	bool calibrate;			/* run the calibrated loop first (worker 0) */
	struct cipher *tx, *rx;	/* rx only in udp mode */
	struct gate *start;
	volatile sig_atomic_t *stop;

	int err;			/* 0 or -errno; why says more */
	char why[192];
	uint64_t bytes, ops;
	uint64_t cpu_ns, wall_ns;
	uint64_t user_ns, sys_ns;	/* getrusage(RUSAGE_THREAD) split; 0 when unknown */
	int64_t runq_ns;		/* -1 when /proc/thread-self/schedstat is unreadable */
	int cycles_err;			/* 0 when cycles is valid */
	bool cycles_scaled, cycles_user_only;
	uint64_t cycles;
	double cal_mhz;			/* NaN unless calibrated */
	const char *cal_method;
};

/* Run-queue wait of the calling thread so far, ns; -1 when unknown. */
static int64_t runq_wait_ns(void)
{
	uint64_t run, wait;

	return proc_thread_schedstat(&run, &wait) ? -1 : (int64_t)wait;
}

/* User and system CPU time of the calling thread, ns; 0 when getrusage fails. */
static void thread_times(uint64_t *user, uint64_t *sys)
{
	struct rusage ru;

	*user = *sys = 0;
	if (getrusage(RUSAGE_THREAD, &ru))
		return;
	*user = (uint64_t)ru.ru_utime.tv_sec * NS_PER_SEC + (uint64_t)ru.ru_utime.tv_usec * NS_PER_US;
	*sys = (uint64_t)ru.ru_stime.tv_sec * NS_PER_SEC + (uint64_t)ru.ru_stime.tv_usec * NS_PER_US;
}

static void fill_pattern(unsigned char *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		p[i] = (unsigned char)(i * 131 + 7);
}

static void loop_packet(struct worker *w, mono_ns deadline)
{
	size_t batch = w->size >= BATCH_BYTES ? 1 : BATCH_BYTES / w->size;
	unsigned char *in = xmalloc(w->size), *out = xmalloc(w->size + cipher_overhead(w->tx));
	size_t olen;

	fill_pattern(in, w->size);
	while (!*w->stop) {
		for (size_t k = 0; k < batch; k++) {
			if ((w->err = cipher_seal(w->tx, out, in, w->size, &olen))) {
				snprintf(w->why, sizeof(w->why), "encryption failed in the library");
				goto out;
			}
		}
		w->ops += batch;
		w->bytes += batch * w->size;
		if (clock_mono() >= deadline)
			break;
	}
out:
	free(in);
	free(out);
}

/* Distance between chunk starts in stream mode: the size rounded up to 64 bytes. */
static size_t stream_stride(size_t size)
{
	return (size + 63) & ~(size_t)63;
}

/* Bytes of the stream-mode buffer: as many strides as fit STREAM_RING, at least one chunk. */
static size_t stream_ring(size_t size)
{
	size_t stride = stream_stride(size);

	return size >= STREAM_RING ? size : STREAM_RING / stride * stride;
}

static void loop_stream(struct worker *w, mono_ns deadline)
{
	size_t stride = stream_stride(w->size), ring = stream_ring(w->size), off = 0;
	size_t batch = w->size >= BATCH_BYTES ? 1 : BATCH_BYTES / w->size;
	unsigned char *raw = xmalloc(ring + 64);
	/* Chunks start on cache-line boundaries, as a buffer from a packet pool would. */
	unsigned char *buf = (unsigned char *)(((uintptr_t)raw + 63) & ~(uintptr_t)63);

	fill_pattern(buf, ring);
	while (!*w->stop) {
		for (size_t k = 0; k < batch; k++) {
			if ((w->err = cipher_stream(w->tx, buf + off, w->size))) {
				snprintf(w->why, sizeof(w->why), "encryption failed in the library");
				goto out;
			}
			off += stride;
			if (off + w->size > ring)
				off = 0;
		}
		w->ops += batch;
		w->bytes += batch * w->size;
		if (clock_mono() >= deadline)
			break;
	}
out:
	free(raw);
}

/* Two loopback UDP sockets connected to each other; 0 or -errno with WHY. */
static int udp_pair(int fd[2], char *why, size_t whylen)
{
	struct sockaddr_in a[2];
	socklen_t alen = sizeof(a[0]);
	struct timeval tv = { .tv_sec = UDP_TIMEOUT_S };

	fd[0] = fd[1] = -1;
	for (int i = 0; i < 2; i++) {
		memset(&a[i], 0, sizeof(a[i]));
		a[i].sin_family = AF_INET;
		a[i].sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		fd[i] = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		if (fd[i] < 0 || bind(fd[i], (struct sockaddr *)&a[i], sizeof(a[i])) ||
		    getsockname(fd[i], (struct sockaddr *)&a[i], &alen)) {
			int e = errno;

			snprintf(why, whylen, "cannot set up a loopback UDP socket: %s", strerror(e));
			return -e;
		}
	}
	if (connect(fd[0], (struct sockaddr *)&a[1], sizeof(a[1])) ||
	    connect(fd[1], (struct sockaddr *)&a[0], sizeof(a[0])) ||
	    setsockopt(fd[1], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv))) {
		int e = errno;

		snprintf(why, whylen, "cannot connect loopback UDP sockets: %s", strerror(e));
		return -e;
	}
	return 0;
}

static void loop_udp(struct worker *w, mono_ns deadline)
{
	size_t over = cipher_overhead(w->tx);
	unsigned char *in = xmalloc(w->size), *dgram = xmalloc(w->size + over);
	unsigned char *rbuf = xmalloc(w->size + over + 1), *plain = xmalloc(w->size);
	int fd[2];
	size_t dlen, plen;
	uint64_t ctr;

	fill_pattern(in, w->size);
	if ((w->err = udp_pair(fd, w->why, sizeof(w->why))))
		goto out;
	while (!*w->stop) {
		for (int k = 0; k < UDP_BATCH; k++) {
			ssize_t n;

			if ((w->err = cipher_seal(w->tx, dgram, in, w->size, &dlen))) {
				snprintf(w->why, sizeof(w->why), "encryption failed in the library");
				goto out;
			}
			if (send(fd[0], dgram, dlen, 0) != (ssize_t)dlen) {
				if (errno == EINTR && *w->stop)
					goto out;
				w->err = -errno;
				snprintf(w->why, sizeof(w->why), "loopback UDP send failed: %s", strerror(errno));
				goto out;
			}
			do
				n = recv(fd[1], rbuf, w->size + over + 1, 0);
			while (n < 0 && errno == EINTR && !*w->stop);
			if (n < 0) {
				if (errno == EINTR)
					goto out;
				w->err = -errno;
				snprintf(w->why, sizeof(w->why), "loopback UDP receive failed: %s",
					 errno == EAGAIN ? "no datagram within 1 s" : strerror(errno));
				goto out;
			}
			w->err = cipher_unseal(w->rx, plain, rbuf, (size_t)n, &plen, &ctr);
			if (w->err) {
				snprintf(w->why, sizeof(w->why), "decryption of a received datagram failed: %s",
					 strerror(-w->err));
				goto out;
			}
			if (plen != w->size || memcmp(plain, in, w->size)) {
				w->err = -EBADMSG;
				snprintf(w->why, sizeof(w->why), "a received datagram decrypted to other bytes than were sent");
				goto out;
			}
			w->ops++;
			w->bytes += w->size;
		}
		if (clock_mono() >= deadline)
			break;
	}
out:
	if (fd[0] >= 0)
		close(fd[0]);
	if (fd[1] >= 0)
		close(fd[1]);
	free(in);
	free(dgram);
	free(rbuf);
	free(plain);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct cpu_cycles cyc;
	cpu_set_t one;
	uint64_t cy0 = 0, cy1 = 0, c0, u0, s0, u1, s1;
	int64_t q0;
	mono_ns t0, deadline;
	bool go = true;

	CPU_ZERO(&one);
	CPU_SET(w->cpu, &one);
	if ((w->err = affinity_pin_self(&one))) {
		snprintf(w->why, sizeof(w->why), "cannot pin a thread to cpu%d: %s", w->cpu, strerror(-w->err));
		go = false;
	}
	w->cal_mhz = NAN;
	w->cycles_err = cpu_cycles_open(&cyc);
	w->cycles_user_only = cyc.user_only;
	if (go && w->calibrate && w->cycles_err) {
		int runs;
		uint64_t adds;

		if (sysinfo_calibrate_mhz(&w->cal_mhz, &runs, &adds, &w->cal_method))
			w->cal_mhz = NAN;
	}
	if (!gate_wait(w->start) || !go)
		goto out;

	q0 = runq_wait_ns();
	thread_times(&u0, &s0);
	t0 = clock_mono();
	c0 = clock_thread_cpu_ns();
	if (!w->cycles_err)
		w->cycles_err = cpu_cycles_read(&cyc, &cy0, NULL);
	deadline = t0 + w->time_ns;
	if (w->mode == MODE_STREAM)
		loop_stream(w, deadline);
	else if (w->mode == MODE_UDP)
		loop_udp(w, deadline);
	else
		loop_packet(w, deadline);
	if (!w->cycles_err)
		w->cycles_err = cpu_cycles_read(&cyc, &cy1, &w->cycles_scaled);
	w->cpu_ns = clock_thread_cpu_ns() - c0;
	w->wall_ns = elapsed_ns(t0, clock_mono());
	thread_times(&u1, &s1);
	w->user_ns = u1 - u0;
	w->sys_ns = s1 - s0;
	w->runq_ns = q0 >= 0 ? runq_wait_ns() : -1;
	if (w->runq_ns >= 0)
		w->runq_ns -= q0;
	w->cycles = cy1 - cy0;
out:
	cpu_cycles_close(&cyc);
	return NULL;
}

/* Totals of one phase (all its workers). */
struct phase {
	int n;
	uint64_t bytes, ops, cpu_ns, wall_ns, user_ns, sys_ns;
	double slowest_wall_rate;	/* bytes/s of the slowest thread */
	bool have_cycles, cycles_scaled, cycles_user_only;
	int cycles_err;
	uint64_t cycles;
	int64_t runq_ns;		/* -1 when unknown */
	double cal_mhz;
	const char *cal_method;
	int err;
	char why[192];
};

/*
 * Runs workers W[0..N) together for their time, drawing progress on the
 * terminal meanwhile, and sums them into *PH. Returns 0 or -errno with
 * PH->why.
 */
static int run_phase(const struct bench_env *env, struct worker *w, int n, const char *label, struct phase *ph)
{
	struct gate start = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0 };
	int started = 0, r;

	memset(ph, 0, sizeof(*ph));
	ph->n = n;
	ph->cal_mhz = NAN;
	for (int i = 0; i < n; i++) {
		w[i].start = &start;
		if ((r = pthread_create(&w[i].th, NULL, worker_main, &w[i]))) {
			snprintf(ph->why, sizeof(ph->why), "cannot start a worker thread: %s", strerror(r));
			ph->err = -r;
			break;
		}
		started++;
	}
	gate_open(&start, started, started == n);
	if (started == n) {
		mono_ns t0, end;

		t0 = clock_mono();
		end = t0 + w[0].time_ns;
		while (!*env->stop && clock_mono() < end) {
			mono_ns next = clock_mono() + 200 * NS_PER_MS;

			progress_update(env->progress, clock_mono(), elapsed_ns(t0, clock_mono()), w[0].time_ns, label);
			if (clock_sleep_until(next < end ? next : end) && *env->stop)
				break;
		}
	}
	for (int i = 0; i < started; i++)
		pthread_join(w[i].th, NULL);
	pthread_cond_destroy(&start.cv);
	pthread_mutex_destroy(&start.mu);
	if (ph->err)
		return ph->err;

	ph->have_cycles = true;
	ph->runq_ns = 0;
	ph->slowest_wall_rate = INFINITY;
	for (int i = 0; i < n; i++) {
		if (w[i].err) {
			ph->err = w[i].err;
			snprintf(ph->why, sizeof(ph->why), "%s", w[i].why);
			return ph->err;
		}
		ph->bytes += w[i].bytes;
		ph->ops += w[i].ops;
		ph->cpu_ns += w[i].cpu_ns;
		ph->user_ns += w[i].user_ns;
		ph->sys_ns += w[i].sys_ns;
		if (w[i].wall_ns > ph->wall_ns)
			ph->wall_ns = w[i].wall_ns;
		if (w[i].wall_ns && (double)w[i].bytes * 1e9 / (double)w[i].wall_ns < ph->slowest_wall_rate)
			ph->slowest_wall_rate = (double)w[i].bytes * 1e9 / (double)w[i].wall_ns;
		if (w[i].cycles_err) {
			ph->have_cycles = false;
			ph->cycles_err = w[i].cycles_err;
		}
		ph->cycles += w[i].cycles;
		ph->cycles_scaled |= w[i].cycles_scaled;
		ph->cycles_user_only |= w[i].cycles_user_only;
		if (w[i].runq_ns < 0 || ph->runq_ns < 0)
			ph->runq_ns = -1;
		else
			ph->runq_ns += w[i].runq_ns;
		if (!isnan(w[i].cal_mhz)) {
			ph->cal_mhz = w[i].cal_mhz;
			ph->cal_method = w[i].cal_method;
		}
	}
	if (!ph->cpu_ns || !ph->wall_ns) {
		snprintf(ph->why, sizeof(ph->why), "no CPU time was measured");
		return ph->err = -EIO;
	}
	return 0;
}

/* ---- the step ------------------------------------------------------------- */

struct freq {
	double mhz;			/* NaN when unknown */
	char text[320];			/* the method entry */
	bool boot_value;		/* /proc/cpuinfo: flagged */
};

/*
 * The frequency behind "per GHz", best source first: perf cycles counted
 * during this measurement; cpufreq; the calibrated loop; /proc/cpuinfo.
 */
static void choose_freq(const struct phase *ph, const struct sysinfo *si, int cpu, struct freq *f)
{
	f->mhz = NAN;
	f->boot_value = false;
	if (ph->have_cycles && ph->cycles) {
		f->mhz = (double)ph->cycles / (double)ph->cpu_ns * 1000.0;
		snprintf(f->text, sizeof(f->text),
			 "perf cycles: %.0f MHz = cycles / thread CPU time during this measurement%s", f->mhz,
			 ph->cycles_scaled ? " (counter multiplexed, scaled)" : "");
	} else if (si && si->cpu.freq_source == SYSINFO_FREQ_CPUFREQ) {
		f->mhz = si->cpu.freq_mhz;
		snprintf(f->text, sizeof(f->text), "cpufreq: %.0f MHz (%s; cpu0's value, the kernel's request, "
			 "not a measurement)", f->mhz, si->cpu.freq_source_detail ? si->cpu.freq_source_detail : "sysfs");
	} else if (!isnan(ph->cal_mhz)) {
		f->mhz = ph->cal_mhz;
		snprintf(f->text, sizeof(f->text), "calibrated loop: %.0f MHz on cpu%d just before the measurement "
			 "(%s)", f->mhz, cpu, ph->cal_method ? ph->cal_method : "dependent add chain");
	} else if (si && !isnan(si->cpu.cpuinfo_mhz)) {
		f->mhz = si->cpu.cpuinfo_mhz;
		f->boot_value = true;
		snprintf(f->text, sizeof(f->text), "/proc/cpuinfo cpu MHz: %.0f MHz, a boot/nominal value, not the "
			 "running clock (no cycle counter, no cpufreq, calibration failed)", f->mhz);
	} else {
		snprintf(f->text, sizeof(f->text), "unknown (no cycle counter, no cpufreq, calibration failed, "
			 "no MHz in /proc/cpuinfo): per-GHz figures left out");
	}
}

static const char *use_name(int mode)
{
	return mode_choices[mode];
}

static void add_rates(struct result *res, const struct phase *ph, int mode, const struct freq *f)
{
	double cpu_s = (double)ph->cpu_ns / 1e9, wall_s = (double)ph->wall_ns / 1e9;
	double cpu_rate = (double)ph->bytes / cpu_s, wall_rate = (double)ph->bytes / wall_s;
	const char *per = mode == MODE_STREAM ? "chunks" : "packets";

	result_metric(res, "cpu_throughput", UNIT_BYTES_PER_S, cpu_rate, "per CPU-second (thread CPU time)");
	result_headline(res, "cpu_throughput");
	result_metric(res, "cpu_bitrate", UNIT_BITS_PER_S, cpu_rate * 8, "per CPU-second, in bits");
	result_metric(res, "wall_throughput", UNIT_BYTES_PER_S, wall_rate,
		      ph->n > 1 ? "per wall second, all threads" : "per wall second");
	result_metric(res, "wall_bitrate", UNIT_BITS_PER_S, wall_rate * 8,
		      ph->n > 1 ? "per wall second (all), in bits" : "per wall second, in bits");
	if (!isnan(f->mhz) && f->mhz > 0)
		result_metric(res, "bitrate_per_ghz", UNIT_BITS_PER_S, cpu_rate * 8 / (f->mhz / 1000.0),
			      f->boot_value ? "per CPU-second per GHz (boot MHz!)" : "per CPU-second per GHz");
	if (ph->have_cycles && ph->cycles)
		result_metric(res, "cycles_per_byte", UNIT_COUNT, (double)ph->cycles / (double)ph->bytes,
			      "cycles per byte")->higher_is_better = false;
	if (!isnan(f->mhz))
		result_metric(res, "freq", UNIT_MHZ, f->mhz, "frequency used for per GHz");
	result_metric(res, mode == MODE_STREAM ? "cpu_chunks" : "cpu_packets", UNIT_PER_S,
		      (double)ph->ops / cpu_s, mode == MODE_STREAM ? "chunks per CPU-second" : "packets per CPU-second");
	if (ph->user_ns) {
		result_metric(res, "user_throughput", UNIT_BYTES_PER_S, (double)ph->bytes * 1e9 / (double)ph->user_ns,
			      "per user-CPU-second (openssl speed)");
		result_metric(res, "sys_share", UNIT_PERCENT,
			      100.0 * (double)ph->sys_ns / (double)(ph->user_ns + ph->sys_ns),
			      "system share of CPU time")->higher_is_better = false;
	}
	result_metric(res, "cpu_share", UNIT_PERCENT, 100.0 * cpu_s / (wall_s * ph->n),
		      ph->n > 1 ? "CPU time / wall time (mean)" : "CPU time / wall time");
	if (ph->runq_ns >= 0)
		result_metric(res, "runq_wait", UNIT_PERCENT, 100.0 * (double)ph->runq_ns / 1e9 / (wall_s * ph->n),
			      "run-queue wait / wall time")->higher_is_better = false;
	result_metric(res, "processed", UNIT_BYTES, (double)ph->bytes, "bytes processed");
	result_metric(res, per, UNIT_COUNT, (double)ph->ops, mode == MODE_STREAM ? "chunks" : "packets");
}

/*
 * The N CPUs of the step: the first N this process may use (ALLOWED,
 * NCPU of them, or -errno) into CPUS and their list into LIST, a
 * parameter of the result. With fewer than N allowed, threads share
 * them round robin (a note says so). Returns 0, or -1 with the result
 * failed (the allowed set unreadable or empty).
 */
static int cpu_pick(struct result *res, const cpu_set_t *allowed, int ncpu, int n, int *cpus, char *list,
		    size_t listlen)
{
	int k = 0;

	if (ncpu < 0) {
		result_set_status(res, RESULT_FAILED, "cannot read the CPUs this process may use: %s", strerror(-ncpu));
		return -1;
	}
	for (int c = 0; c < CPU_SETSIZE && k < n; c++)
		if (CPU_ISSET(c, allowed))
			cpus[k++] = c;
	if (k == 0) {
		result_set_status(res, RESULT_FAILED, "no CPU is allowed to this process");
		return -1;
	}
	if (k < n) {
		/*
		 * More threads than allowed CPUs: they share them, round robin,
		 * and the figure shows what the cpuset or affinity allows.
		 */
		for (int i = k; i < n; i++)
			cpus[i] = cpus[i % k];
		if (affinity_format(list, listlen, allowed))
			snprintf(list, listlen, "?");
		result_note(res, "%d threads share the %d CPU%s allowed here (%s): they take turns", n, k,
			    k > 1 ? "s" : "", list);
	}
	{
		cpu_set_t used;

		CPU_ZERO(&used);
		for (int i = 0; i < n; i++)
			CPU_SET(cpus[i], &used);
		if (affinity_format(list, listlen, &used))
			snprintf(list, listlen, "?");
		result_param(res, "cpus", "%s", list);
	}
	return 0;
}

/*
 * The N workers W[0..N) (zeroed by the caller), one per CPU of CPUS, each
 * with its cipher of ROW (and a second one to open with in udp mode).
 * Returns 0, or -1 with the result skipped (cipher not supported) or
 * failed; the ciphers made so far are the caller's to free.
 */
static int cpu_workers_init(struct result *res, struct worker *w, int n, const int *cpus, const struct cpu_row *row,
			    int mode, uint64_t size, uint64_t time_ns, volatile sig_atomic_t *stop)
{
	char why[192];
	int r;

	for (int i = 0; i < n; i++) {
		w[i] = (struct worker){ .cpu = cpus[i], .mode = mode, .size = size, .time_ns = time_ns,
					.stop = stop };
		r = cipher_new(&w[i].tx, row->id, row->lib, size, why, sizeof(why));
		if (!r && mode == MODE_UDP)
			r = cipher_new(&w[i].rx, row->id, row->lib, size, why, sizeof(why));
		if (r) {
			result_set_status(res, r == -ENOTSUP ? RESULT_SKIPPED : RESULT_FAILED, "%s", why);
			return -1;
		}
	}
	return 0;
}

/* How the step measures, in the method block: library, operation, buffer, timing (TX: worker 0's cipher). */
static void cpu_method(struct result *res, const struct cpu_row *row, const struct cipher *tx, int mode,
		       uint64_t size, uint64_t time_ns)
{
	result_method(res, "library", "%s", cipher_lib_version(tx));
	if (mode == MODE_UDP)
		result_method(res, "operation", "per packet: seal (%s), send() on a loopback UDP socket, recv() on "
			      "its peer, open (decrypt%s) and compare with what was sent; one thread does both "
			      "ends, one packet in flight", cipher_describe(tx, CIPHER_USE_PACKET),
			      cipher_is_aead(row->id) ? " and verify the tag" : "");
	else
		result_method(res, "operation", "%s", cipher_describe(tx, mode == MODE_STREAM ?
									  CIPHER_USE_STREAM : CIPHER_USE_PACKET));
	if (mode == MODE_STREAM) {
		result_method(res, "buffer", "one %zu-byte buffer walked in %llu-byte chunks starting every %zu bytes "
			      "(64-byte aligned), in place, over and over", stream_ring(size), (unsigned long long)size,
			      stream_stride(size));
	} else {
		result_method(res, "buffer", "a %llu-byte packet encrypted into a separate %llu-byte buffer "
			      "(%d-byte counter header%s)", (unsigned long long)size,
			      (unsigned long long)(size + cipher_overhead(tx)), CIPHER_HEADER,
			      cipher_is_aead(row->id) ? " + 16-byte tag" : "");
	}
	result_method(res, "timing", "%llu ms per run; thread CPU time (CLOCK_THREAD_CPUTIME_ID, user + system; "
		      "the user/system split from getrusage(RUSAGE_THREAD)) and wall time (CLOCK_MONOTONIC); "
		      "thread i pinned to the i-th allowed CPU",
		      (unsigned long long)(time_ns / NS_PER_MS));
}

/*
 * The 1-thread baseline of an N-thread step, worker W[0] alone on CPU0,
 * into *SINGLE. Returns 0 to go on, 1 when a signal stopped it (the
 * result then holds the baseline's figures, SI: the box or NULL), or -1
 * with the result failed.
 */
static int cpu_baseline(const struct bench_env *env, struct result *res, struct worker *w, int n, int mode,
			const char *label, const struct sysinfo *si, int cpu0, struct phase *single)
{
	struct worker base = w[0];
	struct freq f;

	if (run_phase(env, &base, 1, label, single)) {
		result_set_status(res, RESULT_FAILED, "%s", single->why);
		return -1;
	}
	w[0].tx = base.tx;
	w[0].calibrate = false;
	if (*env->stop) {
		/* Keep what was measured: the baseline alone. */
		choose_freq(single, si, cpu0, &f);
		result_method(res, "frequency", "%s", f.text);
		result_note(res, "stopped during the 1-thread baseline: the figures are for 1 thread on cpu%d, "
			    "not %d threads", cpu0, n);
		add_rates(res, single, mode, &f);
		return 1;
	}
	return 0;
}

/*
 * The frequency behind the per-GHz figures of phase ALL into *F and the
 * method block (frequency and cycle counter), with a note where it is a
 * boot value or, in a VM (SI: the box or NULL), differs from cpuinfo's.
 */
static void cpu_report_freq(struct result *res, const struct phase *all, const struct sysinfo *si, int cpu0,
			    struct freq *f)
{
	choose_freq(all, si, cpu0, f);
	result_method(res, "frequency", "%s", f->text);
	if (all->have_cycles)
		result_method(res, "cycle counter", "perf_event_open PERF_COUNT_HW_CPU_CYCLES%s",
			      all->cycles_user_only ? " (user space only: kernel cycles not allowed)" : "");
	else
		result_method(res, "cycle counter", "no cycle counter: perf_event_open(PERF_COUNT_HW_CPU_CYCLES) "
			      "failed: %s; cycles per byte left out", strerror(-all->cycles_err));
	if (f->boot_value)
		result_note(res, "per-GHz figures use /proc/cpuinfo's boot MHz, which is not the running clock");
	if (si && si->virt.hypervisor_flag == SYSINFO_YES && !isnan(si->cpu.cpuinfo_mhz) && !f->boot_value &&
	    !isnan(f->mhz) && fabs(f->mhz / si->cpu.cpuinfo_mhz - 1) > 0.05)
		result_note(res, "in this VM /proc/cpuinfo says %.0f MHz; per-GHz figures use %.0f MHz from the %s",
			    si->cpu.cpuinfo_mhz, f->mhz, all->have_cycles ? "cycle counter" : "method's frequency source");
}

/*
 * Scaling over N threads on the CPUs of LIST: per-core and slowest-core
 * throughput of phase ALL against the 1-thread baseline SINGLE on CPU0,
 * and the efficiency per wall second and per CPU-second.
 */
static void cpu_report_scaling(struct result *res, const struct phase *single, const struct phase *all, int n,
			       int cpu0, const char *list, uint64_t time_ns)
{
	double single_wall = (double)single->bytes * 1e9 / (double)single->wall_ns;
	double single_cpu = (double)single->bytes * 1e9 / (double)single->cpu_ns;
	double total_wall = (double)all->bytes * 1e9 / (double)all->wall_ns;
	double per_core_cpu = (double)all->bytes * 1e9 / (double)all->cpu_ns;

	result_method(res, "scaling", "first 1 thread on cpu%d for %llu ms (baseline), then %d threads on "
		      "cpus %s together; efficiency = total / (%d x baseline), per wall second and per "
		      "CPU-second", cpu0, (unsigned long long)(time_ns / NS_PER_MS), n, list, n);
	result_metric(res, "per_core_wall_throughput", UNIT_BYTES_PER_S, total_wall / n,
		      "per core, per wall second");
	result_metric(res, "slowest_core_wall_throughput", UNIT_BYTES_PER_S, all->slowest_wall_rate,
		      "slowest thread, per wall second");
	result_metric(res, "single_wall_throughput", UNIT_BYTES_PER_S, single_wall,
		      "1 thread alone, per wall second");
	result_metric(res, "single_cpu_throughput", UNIT_BYTES_PER_S, single_cpu,
		      "1 thread alone, per CPU-second");
	result_metric(res, "scaling_efficiency", UNIT_RATIO, total_wall / (n * single_wall),
		      "scaling efficiency (wall)");
	result_metric(res, "cpu_scaling_efficiency", UNIT_RATIO, per_core_cpu / single_cpu,
		      "scaling efficiency (CPU-second)");
}

/*
 * One step: a cipher, a size and a thread count. Parameters, the CPUs
 * picked, the workers and the method set up, the 1-thread baseline (with
 * more threads), all threads together, then frequency, rates, scaling and
 * notes.
 */
static void cpu_run(const struct bench_env *env, const void *p, struct result *res)
{
	const struct cpu_opts *o = p;
	size_t t = env->step % o->nthreads;
	size_t s = env->step / o->nthreads % o->nsizes;
	const struct cpu_row *row = &o->rows[env->step / o->nthreads / o->nsizes];
	uint64_t size = o->sizes[s];
	uint64_t time_ns = env->time_ns ? env->time_ns : DEFAULT_TIME_NS;
	int mode = o->mode;
	cpu_set_t allowed;
	int ncpu = allowed_cpus(&allowed), n = o->nthreads_list[t];
	int cpus[CPU_SETSIZE];
	struct worker *w = NULL;
	struct sysinfo si;
	struct sysinfo_opts so = { .proc_root = "/proc", .sys_root = "/sys" };
	bool have_si;
	struct phase single, all;
	struct freq f;
	char list[64], label[128];

	if (n == 0)
		n = ncpu > 0 ? ncpu : 1;
	result_set_step(res, "%s/%lluB/%s/%d thread%s", cipher_name(row->id), (unsigned long long)size,
			cipher_lib_name(row->lib), n, n == 1 ? "" : "s");
	snprintf(label, sizeof(label), "%u/%zu %s", env->step + 1, cpu_nsteps(o), res->step);
	result_param(res, "cipher", "%s", cipher_name(row->id));
	result_param(res, "library", "%s", cipher_lib_name(row->lib));
	result_param(res, "size_bytes", "%llu", (unsigned long long)size);
	result_param(res, "mode", "%s", use_name(mode));
	result_param(res, "threads", "%d", n);
	if (cpu_pick(res, &allowed, ncpu, n, cpus, list, sizeof(list)) < 0)
		return;

	w = xcalloc((size_t)n, sizeof(*w));
	if (cpu_workers_init(res, w, n, cpus, row, mode, size, time_ns, env->stop) < 0)
		goto out;
	cpu_method(res, row, w[0].tx, mode, size, time_ns);

	have_si = sysinfo_collect(&si, &so) == 0;
	w[0].calibrate = !have_si || si.cpu.freq_source != SYSINFO_FREQ_CPUFREQ;
	if (n > 1 && cpu_baseline(env, res, w, n, mode, label, have_si ? &si : NULL, cpus[0], &single))
		goto release;
	if (run_phase(env, w, n, label, &all)) {
		result_set_status(res, RESULT_FAILED, "%s", all.why);
		goto release;
	}
	if (n > 1 && !isnan(single.cal_mhz)) {
		all.cal_mhz = single.cal_mhz;
		all.cal_method = single.cal_method;
	}
	cpu_report_freq(res, &all, have_si ? &si : NULL, cpus[0], &f);
	add_rates(res, &all, mode, &f);
	if (n > 1)
		cpu_report_scaling(res, &single, &all, n, cpus[0], list, time_ns);
	if (row->id == CIPHER_SALSA2012 && row->lib == CIPHER_LIB_SODIUM)
		result_note(res, "libsodium's salsa2012 is portable C; fastd on x86 uses its own SSE2 assembly, "
			    "so this row models fastd on routers (MIPS/ARM), not on x86");
	if (mode == MODE_UDP)
		result_note(res, "loopback softirq work is charged to this thread only where the kernel does "
			    "not account interrupt time separately (CONFIG_IRQ_TIME_ACCOUNTING)");
release:
	if (have_si)
		sysinfo_release(&si);
out:
	for (int i = 0; i < n; i++) {
		cipher_free(w[i].tx);
		cipher_free(w[i].rx);
	}
	free(w);
}

/*
 * --verify (docs/verdict.md "Checking the verdict"): one core is tested
 * with twice the threads of the step, each pinned to its own allowed CPU,
 * and the work per wall second compared (the headline, per CPU-second, is
 * the method's and does not move with threads). Other candidates have no
 * probe here: the cipher's cost per byte is the method.
 */
static int cpu_relax(const void *p, void *probe, const char *resource, const struct result *res,
		     const struct bench_env *env, struct bench_relax *out)
{
	const struct cpu_opts *o = p;
	struct cpu_opts *q = probe;
	size_t t = env->step % o->nthreads;
	cpu_set_t allowed;
	int ncpu = allowed_cpus(&allowed), n = o->nthreads_list[t];

	(void)res;
	if (strcmp(resource, "one core")) {
		snprintf(out->why, sizeof(out->why), "cpu has no probe for %s", resource);
		return 0;
	}
	if (n == 0 || n >= ncpu) {
		snprintf(out->why, sizeof(out->why), "the step already ran a thread on each of the %d CPUs allowed",
			 ncpu);
		return 0;
	}
	q->nthreads_list[t] = 2 * n > ncpu ? ncpu : 2 * n;
	snprintf(out->what, sizeof(out->what), "%d threads", q->nthreads_list[t]);
	snprintf(out->params, sizeof(out->params), "--threads %d", q->nthreads_list[t]);
	snprintf(out->base_metric, sizeof(out->base_metric), "wall_throughput");
	return 1;
}

extern const struct bench_quick cpu_quick;	/* cpu_quick.c */

const struct bench bench_cpu = {
	.name = "cpu",
	.summary = "cipher throughput per core, per GHz and over cores (packet, stream, loopback UDP)",
	.usage = "[--cipher LIST] [--size SIZES] [--mode packet|stream|udp] [--threads N|all] "
		 "[--lib auto|sodium|openssl|mbedtls] [options]",
	.description =
		"Encrypts with each cipher from each library that has it (libsodium, OpenSSL EVP,\n"
		"RC4 from OpenSSL's legacy provider; mbedTLS in builds without OpenSSL, such as the\n"
		"router build; none = memcpy) and reports MB/s and Mbit/s per\n"
		"CPU-second (thread CPU time) and per wall second, Mbit/s per GHz with the frequency\n"
		"source named (perf cycles, cpufreq, calibrated loop, or /proc/cpuinfo flagged as a\n"
		"boot value) and cycles per byte where a cycle counter exists. One result per\n"
		"cipher, library, size and thread count; a cipher this build or CPU lacks is\n"
		"listed as skipped with the reason. --threads N pins thread i to the i-th allowed\n"
		"CPU, runs a 1-thread baseline first and reports scaling efficiency. --time applies\n"
		"to each step, one per cipher, library, size and thread count (default 1s): the\n"
		"defaults can be 27 steps, so --time 200ms measures for 5 s or more, plus each\n"
		"step's setup. --cipher, --lib, --size and --threads choose the steps.",
	.flags = BENCH_NO_IO | BENCH_NETWORK,
	.opts = cpu_options,
	.opts_size = sizeof(struct cpu_opts),
	.check = cpu_check,
	.nsteps = cpu_nsteps,
	.sample_config = cpu_sample_config,
	.run = cpu_run,
	.relax = cpu_relax,
	.quick = &cpu_quick,
};
