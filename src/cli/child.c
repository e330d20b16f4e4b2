/* SPDX-License-Identifier: MIT */
/*
 * Running this engpass binary as a child (for sweep and quick): each run
 * is then isolated from the next, and the parent reads exactly the JSON a
 * user would get.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cmd.h"

int child_run_engpass(char **argv, char **out)
{
	int pfd[2], status;
	size_t len = 0;
	FILE *f;
	pid_t pid;
	char buf[65536];
	ssize_t n;

	*out = NULL;
	if (pipe2(pfd, O_CLOEXEC) < 0)
		return -errno;
	pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return -errno;
	}
	if (pid == 0) {
		dup2(pfd[1], 1);
		execv("/proc/self/exe", argv);
		_exit(127);
	}
	close(pfd[1]);
	f = open_memstream(out, &len);
	while ((n = read(pfd[0], buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		fwrite(buf, 1, (size_t)n, f);
	}
	fclose(f);
	close(pfd[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

