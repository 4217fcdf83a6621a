// SPDX-License-Identifier: MIT
/*
 * runstat: run a command and print its wall-clock seconds and peak
 * resident set (KiB) on stderr, as "runstat: <secs> s <kib> KiB", so the
 * benchmark needs no GNU time.  Exits with the command's status.
 *
 *   runstat COMMAND [ARGS...]
 */
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct timespec a, b;
	struct rusage ru;
	int st;
	pid_t pid;

	if (argc < 2) {
		fprintf(stderr, "usage: runstat COMMAND [ARGS...]\n");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &a);
	pid = fork();
	if (pid < 0)
		return 1;
	if (!pid) {
		execvp(argv[1], argv + 1);
		perror(argv[1]);
		_exit(127);
	}
	if (wait4(pid, &st, 0, &ru) < 0)
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &b);
	fprintf(stderr, "runstat: %.3f s %ld KiB\n",
		(double)(b.tv_sec - a.tv_sec) +
			(double)(b.tv_nsec - a.tv_nsec) / 1e9,
		ru.ru_maxrss);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
