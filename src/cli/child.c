/* SPDX-License-Identifier: MIT */
/*
 * Running this engpass binary as a child (for sweep and quick): each run
 * is then isolated from the next, and the parent reads exactly the JSON a
 * user would get.
 *
 * Signals. Ctrl-C on a terminal reaches the whole process group, but a
 * SIGINT or SIGTERM sent to the parent alone (kill PID, a service
 * manager) must stop the child the same way, so that it removes its temp
 * files and reports what it measured: the parent catches INT, TERM and HUP
 * while it runs children, forwards each to the running child, and leaves
 * the decision to stop to its loop (child_stop_signal()). The parent also
 * never dies while the child still writes into the pipe, which would kill
 * the child with SIGPIPE before it could clean up.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cmd.h"

static const int forwarded[] = { SIGINT, SIGTERM, SIGHUP };
static struct sigaction saved[3];
static volatile sig_atomic_t child_pid;	/* the running child, 0 none */
static volatile sig_atomic_t got_signal;	/* the first signal received, 0 none */
static int installed;

static void forward(int sig)
{
	int e = errno;

	if (!got_signal)
		got_signal = sig;
	if (child_pid > 0)
		kill((pid_t)child_pid, sig);
	errno = e;
}

int child_signals_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = forward;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < 3; i++)
		if (sigaction(forwarded[i], &sa, &saved[i]) < 0)
			return -errno;
	installed = 1;
	return 0;
}

void child_signals_restore(void)
{
	if (!installed)
		return;
	for (size_t i = 0; i < 3; i++)
		sigaction(forwarded[i], &saved[i], NULL);
	installed = 0;
}

int child_stop_signal(void)
{
	return (int)got_signal;
}

void child_track(pid_t pid)
{
	child_pid = pid;
	/* A signal that came before the child existed still reaches it. */
	if (pid > 0 && got_signal)
		kill(pid, (int)got_signal);
}

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
		/* The child handles signals itself: default actions until its runner installs its own. */
		for (size_t i = 0; i < 3; i++)
			signal(forwarded[i], SIG_DFL);
		dup2(pfd[1], 1);
		execv("/proc/self/exe", argv);
		_exit(127);
	}
	child_track(pid);
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
		if (errno != EINTR) {
			child_track(0);
			return -errno;
		}
	child_track(0);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

