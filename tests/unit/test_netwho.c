/* SPDX-License-Identifier: MIT */
/*
 * netwho (whose TCP traffic it was), live on loopback: the work (this
 * process) moves 1 MiB over a TCP pair it closes before the stop edge (the
 * once-a-second reading keeps it), another process (a grandchild: not the
 * work's child) moves 3 MiB over a pair it keeps open; the view charges
 * each to its owner. Without libmnl, or where sock_diag does not answer
 * (qemu-user), it says so and passes over the live part.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <math.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/observe/netwho.h"

#define MIB (1024 * 1024)

/* A connected TCP pair on 127.0.0.1: FD[0] the client, FD[1] the accepted end. */
static int tcp_pair(int fd[2])
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t al = sizeof(a);
	int l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof(a)) || listen(l, 1) ||
	    getsockname(l, (struct sockaddr *)&a, &al))
		return -1;
	fd[0] = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd[0] < 0 || connect(fd[0], (struct sockaddr *)&a, sizeof(a)))
		return -1;
	fd[1] = accept(l, NULL, NULL);
	close(l);
	return fd[1] < 0 ? -1 : 0;
}

/* BYTES from fd[0] to fd[1], read as they come (in one process: small writes, each read back). */
static int move(const int fd[2], size_t bytes)
{
	static char buf[64 * 1024];

	for (size_t done = 0; done < bytes;) {
		ssize_t w = write(fd[0], buf, sizeof(buf)), r;

		if (w <= 0)
			return -1;
		for (ssize_t got = 0; got < w; got += r) {
			r = read(fd[1], buf, sizeof(buf));
			if (r <= 0)
				return -1;
		}
		done += (size_t)w;
	}
	return 0;
}

static void test_live(void **state)
{
	int go[2], done[2], mine[2];
	struct netwho *w;
	struct sysview v;
	pid_t mid, other = 0;
	char c;

	(void)state;
	assert_int_equal(pipe(go), 0);
	assert_int_equal(pipe(done), 0);
	/* The other process: a grandchild (its parent exits), so it is not one of the work's children. */
	mid = fork();
	assert_true(mid >= 0);
	if (mid == 0) {
		pid_t g = fork();

		if (g != 0) {
			if (write(done[1], &g, sizeof(g)) != sizeof(g))
				_exit(1);
			_exit(0);
		}
		int p[2];

		alarm(30);
		if (read(go[0], &c, 1) != 1 || tcp_pair(p) || move(p, 3 * MIB))
			_exit(1);
		if (write(done[1], "x", 1) != 1)
			_exit(1);
		(void)read(go[0], &c, 1);	/* keeps its sockets open until told (or the pipe closes) */
		_exit(0);
	}
	assert_int_equal(read(done[0], &other, sizeof(other)), (ssize_t)sizeof(other));
	waitpid(mid, NULL, 0);

	w = netwho_new(0, NULL);
	netwho_begin(w);
	assert_int_equal(tcp_pair(mine), 0);
	assert_int_equal(move(mine, MIB), 0);
	netwho_tick(w, 5 * NETWHO_TICK_NS);
	close(mine[0]);
	close(mine[1]);
	assert_int_equal(write(go[1], "x", 1), 1);
	assert_int_equal(read(done[0], &c, 1), 1);
	netwho_end(w);
	assert_int_equal(write(go[1], "x", 1), 1);
	close(go[1]);
	sysview_init(&v);
	netwho_view(w, &v);
	if (isnan(v.tcp_bytes)) {
		/* cmocka's skip() prints "not ok # SKIP", a failure to meson: said, and passed over. */
		print_message("# netwho: sock_diag not read here (%s): the live check is passed over\n", netwho_why(w));
		netwho_free(w);
		kill(other, SIGKILL);
		return;
	}
	print_message("# tcp %.0f B, the work %.0f B, %s (pid %d) %.0f B\n", v.tcp_bytes, v.tcp_work_bytes,
		      v.tcp_others[0].comm, v.tcp_others[0].pid, v.tcp_others[0].bytes);
	/* Both ends count: bytes acked by the sender, received by the receiver. */
	assert_true(v.tcp_work_bytes >= 1.0 * MIB);
	assert_int_equal(v.tcp_others[0].pid, other);
	assert_true(v.tcp_others[0].bytes >= 3.0 * MIB * 2 * 0.99);
	assert_true(v.tcp_bytes >= v.tcp_work_bytes + v.tcp_others[0].bytes);
	netwho_release(w);
	netwho_view(w, &v);	/* the figures outlive the buffers */
	assert_int_equal(v.tcp_others[0].pid, other);
	netwho_free(w);
}

/* No span read: nothing written, never a zero that looks measured. */
static void test_unread(void **state)
{
	struct netwho *w = netwho_new(0, NULL);
	struct sysview v;

	(void)state;
	sysview_init(&v);
	netwho_end(w);
	netwho_view(w, &v);
	assert_true(isnan(v.tcp_bytes) && isnan(v.tcp_work_bytes));
	assert_int_equal(v.tcp_others[0].pid, 0);
	netwho_free(w);
	netwho_view(NULL, &v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unread),
		cmocka_unit_test(test_live),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
