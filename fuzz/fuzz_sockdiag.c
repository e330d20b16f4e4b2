/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target for the sock_diag parsers (src/core/kernel/sockdiag.c): the input
 * is what a receive from a NETLINK_SOCK_DIAG socket would hold, netlink
 * messages back to back, in a heap buffer of exactly its length (aligned
 * as a struct nlmsghdr, nothing after it to hide an over-read).
 * sockdiag_parse_msg() reads the first message; sockdiag_parse_dump()
 * walks them all for the inode of that message, an absent one and that
 * inode again. Every socket parsed must have a family, terminated
 * addresses and congestion control name, and tcp_info flags that agree
 * with its length; the entries kept must be for the inodes asked. Two
 * socket readings (the first message's, and the dump's) are then judged
 * both ways: the answer must be a known value with terminated evidence.
 * Built only with libmnl.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "core/kernel/sockdiag.h"
#include "fuzz.h"

static void check_tcp(const struct sockdiag_tcp *t)
{
	if (!t->found) {
		if (t->have_info || t->inode || t->local[0])
			abort();
		return;
	}
	if (t->family != AF_INET && t->family != AF_INET6)
		abort();
	if (!memchr(t->local, 0, sizeof(t->local)) || !memchr(t->peer, 0, sizeof(t->peer)) ||
	    !memchr(t->cong, 0, sizeof(t->cong)))
		abort();
	if (t->have_info && t->info_len < 104)
		abort();
	if ((t->have_limits && !t->have_bytes) || (t->have_sent && !t->have_limits) ||
	    (t->have_snd_wnd && !t->have_sent) || (t->have_bytes && !t->have_info))
		abort();
}

static void judge(const struct sockdiag_tcp *a, const struct sockdiag_tcp *b)
{
	char ev[160];

	for (int recv = 0; recv < 2; recv++) {
		enum sockdiag_why w;

		memset(ev, 'x', sizeof(ev));
		w = sockdiag_judge(a, b, 0.5, recv, ev, sizeof(ev));
		if ((unsigned)w > SD_IDLE || !memchr(ev, 0, sizeof(ev)))
			abort();
		(void)sockdiag_why_name(w);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sockdiag_tcp one, out[3];
	uint64_t inodes[3];
	void *buf = xmalloc(size ? size : 1);
	int rc;

	memcpy(buf, data, size);
	rc = sockdiag_parse_msg(buf, size, &one);
	if (rc != 0 && rc != -EINVAL && rc != -ENOMSG)
		abort();
	if (rc != 0 && one.found)
		abort();
	check_tcp(&one);
	inodes[0] = one.inode;
	inodes[1] = 0xfffffffffULL;	/* above any 32-bit inode: never found */
	inodes[2] = one.inode;
	memset(out, 0, sizeof(out));
	rc = sockdiag_parse_dump(buf, size, inodes, 3, out);
	if (rc > 1 || rc < -4095)
		abort();
	for (size_t i = 0; i < 3; i++) {
		check_tcp(&out[i]);
		if (out[i].found && out[i].inode != inodes[i])
			abort();
	}
	if (out[1].found || out[0].found != out[2].found)
		abort();
	judge(&one, &out[0]);
	judge(&out[0], &one);
	judge(&one, &one);
	free(buf);
	return 0;
}
