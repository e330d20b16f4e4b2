/* SPDX-License-Identifier: MIT */
/*
 * A small daemon and its traffic for tests/cli/watch_relay.sh, standing in
 * for a fastd supernode (seed 004): a single-threaded UDP relay that spends
 * a fixed CPU time on every datagram (as fastd spends it on the cipher), a
 * sender that ramps its rate so the relay's load moves with the traffic,
 * and a sink.
 *
 *   udp_relay relay PORT DEST_IP DEST_PORT WORK_US
 *       receives on 0.0.0.0:PORT, spins WORK_US of its own thread CPU time
 *       per datagram (CLOCK_THREAD_CPUTIME_ID, so the cost does not depend
 *       on what else runs), sends it on to DEST_IP:DEST_PORT
 *   udp_relay send DEST_IP DEST_PORT SIZE SECONDS STEP_MS PPS...
 *       sends SIZE-byte datagrams for SECONDS, cycling through the packet
 *       rates PPS..., each for STEP_MS
 *   udp_relay sink PORT
 *       receives on 0.0.0.0:PORT and drops everything
 *
 * Pinning is the caller's (taskset). Each runs until killed (send: until
 * SECONDS have passed). Exits 1 with a message on a setup error.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static double now_s(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int udp_bound(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((unsigned short)port) };
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		perror("udp_relay: bind");
		exit(1);
	}
	return fd;
}

static struct sockaddr_in dest(const char *ip, const char *port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((unsigned short)atoi(port)) };

	if (inet_pton(AF_INET, ip, &a.sin_addr) != 1) {
		fprintf(stderr, "udp_relay: bad address '%s'\n", ip);
		exit(1);
	}
	return a;
}

static int relay(int argc, char **argv)
{
	static char buf[65536];
	struct sockaddr_in to;
	double work;
	int fd;

	if (argc != 6)
		return 2;
	fd = udp_bound(atoi(argv[2]));
	to = dest(argv[3], argv[4]);
	work = atof(argv[5]) / 1e6;
	for (;;) {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);
		double end;
		unsigned x = 1;

		if (n <= 0)
			continue;
		end = now_s(CLOCK_THREAD_CPUTIME_ID) + work;
		while (now_s(CLOCK_THREAD_CPUTIME_ID) < end)
			for (ssize_t i = 0; i < n; i += 64)
				x = x * 1103515245u + (unsigned char)buf[i];
		buf[0] ^= (char)(x & 1);
		(void)sendto(fd, buf, (size_t)n, 0, (struct sockaddr *)&to, sizeof(to));
	}
}

static int sender(int argc, char **argv)
{
	static char buf[65536];
	struct sockaddr_in to;
	double t0, end, step, next;
	size_t size;
	int fd, nrates, k = 0;

	if (argc < 8)
		return 2;
	to = dest(argv[2], argv[3]);
	size = (size_t)atoi(argv[4]);
	if (size < 1 || size > sizeof(buf))
		return 2;
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0) {
		perror("udp_relay: socket");
		return 1;
	}
	t0 = now_s(CLOCK_MONOTONIC);
	end = t0 + atof(argv[5]);
	step = atof(argv[6]) / 1e3;
	nrates = argc - 7;
	next = t0;
	while (now_s(CLOCK_MONOTONIC) < end) {
		double t = now_s(CLOCK_MONOTONIC);
		double pps = atof(argv[7 + (int)((t - t0) / step) % nrates]);
		struct timespec ts;

		if (pps <= 0)
			pps = 1;
		if (t < next) {
			double w = next - t;

			ts.tv_sec = (time_t)w;
			ts.tv_nsec = (long)((w - (double)ts.tv_sec) * 1e9);
			nanosleep(&ts, NULL);
			continue;
		}
		(void)sendto(fd, buf, size, 0, (struct sockaddr *)&to, sizeof(to));
		k++;
		next += 1 / pps;
		/* Far behind (the sender was not scheduled): do not burst to catch up. */
		if (next < t - 0.05)
			next = t;
	}
	printf("sent %d\n", k);
	return 0;
}

static int sink(int argc, char **argv)
{
	static char buf[65536];
	int fd;

	if (argc != 3)
		return 2;
	fd = udp_bound(atoi(argv[2]));
	for (;;)
		(void)recv(fd, buf, sizeof(buf), 0);
}

int main(int argc, char **argv)
{
	int r = 2;

	if (argc >= 2 && !strcmp(argv[1], "relay"))
		r = relay(argc, argv);
	else if (argc >= 2 && !strcmp(argv[1], "send"))
		r = sender(argc, argv);
	else if (argc >= 2 && !strcmp(argv[1], "sink"))
		r = sink(argc, argv);
	if (r == 2)
		fprintf(stderr, "usage: udp_relay relay PORT DEST_IP DEST_PORT WORK_US | send DEST_IP DEST_PORT SIZE "
			"SECONDS STEP_MS PPS... | sink PORT\n");
	return r;
}
