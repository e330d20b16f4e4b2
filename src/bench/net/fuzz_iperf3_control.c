/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target for the bytes an unauthenticated peer sends on the control
 * connection of `engpass net server`, in the order the server reads them:
 * the 37-byte cookie, the length-framed parameters message (at most
 * IPERF3_PARAMS_MAX), a state byte, and the length-framed results message
 * (at most IPERF3_RESULTS_MAX). The input is written into one end of a
 * socket pair whose write side is then shut down, so every read ends at
 * the input's end instead of waiting out a timeout.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bench/net/net_iperf3.h"
#include "core/kernel/net_sock.h"
#include "core/base/clock.h"
#include "fuzz/fuzz.h"

/* Short enough that a harness bug shows as slowness, never as a hang. */
#define FUZZ_TIMEOUT_NS (100 * NS_PER_MS)

/* Reads one framed message of at most MAX bytes and parses it as KIND (0 params, 1 results). */
static int message(int fd, size_t max, int kind)
{
	char *msg, err[160];
	size_t len;
	int r = iperf3_recv_json(fd, max, FUZZ_TIMEOUT_NS, NULL, &msg, &len);

	if (r < 0)
		return r;
	if (len > max || msg[len] != '\0')
		abort();	/* the frame reader let more through than asked */
	if (kind == 0) {
		struct iperf3_params p;

		r = iperf3_params_parse(msg, len, &p, err, sizeof(err));
	} else {
		struct iperf3_results res = { 0 };

		r = iperf3_results_parse(msg, len, &res, err, sizeof(err));
		iperf3_results_release(&res);
	}
	free(msg);
	return r;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char cookie[IPERF3_COOKIE_LEN];
	int sv[2], state, sndbuf = 4 << 20;

	/* The whole input must fit in the socket before anything reads it. */
	if (size > (128u << 10) || socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return 0;
	if (setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf)) < 0 ||
	    net_write_full(sv[0], data, size, FUZZ_TIMEOUT_NS, NULL) < 0)
		goto out;
	shutdown(sv[0], SHUT_WR);
	if (net_read_full(sv[1], cookie, sizeof(cookie), FUZZ_TIMEOUT_NS, NULL) < 0 ||
	    message(sv[1], IPERF3_PARAMS_MAX, 0) < 0 ||
	    iperf3_recv_state(sv[1], &state, FUZZ_TIMEOUT_NS, NULL) < 0)
		goto out;
	if (message(sv[1], IPERF3_RESULTS_MAX, 1)) {
		/* refused or cut: the server would drop the test, as it must */
	}
out:
	close(sv[0]);
	close(sv[1]);
	return 0;
}
