// SPDX-License-Identifier: GPL-2.0
/*
 * linerate: write the lines of a file to stdout at a steady rate, in
 * CLOCK_MONOTONIC time, over and over, until told to stop. It paces a
 * long-running reader such as "ip -batch -" (make bench's route churn),
 * which would otherwise need a process per command. No libraries; build
 * it static.
 *
 *   linerate -r RATE [-i MS] FILE
 *
 * Every MS milliseconds (10), it writes as many whole lines as RATE lines
 * per second call for since the start, taking FILE's lines in order and
 * starting over at its end (so FILE should be a cycle: its last line
 * leaves things as the first one found them). Stdout's pipe, if it is one,
 * is shrunk to one page, so a reader that falls behind blocks the writer
 * at once: what was written is what the reader took, within a page.
 *
 * On SIGUSR1, and once more at the end, it prints on stderr
 *   linerate: t=SECONDS lines=N
 * (CLOCK_MONOTONIC seconds, lines written so far). SIGTERM or SIGINT end
 * it after the line being written: exit 0. Exits 1 on an error, 2 on a
 * bad command line.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tool_util.h"

static volatile sig_atomic_t stop, report;

static void on_stop(int sig)
{
	(void)sig;
	stop = 1;
}

static void on_report(int sig)
{
	(void)sig;
	report = 1;
}

static void usage(void)
{
	fprintf(stderr, "usage: linerate -r RATE [-i MS] FILE\n");
	exit(2);
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* The whole of @path, which must end in a newline and hold a line. */
static char *slurp(const char *path, size_t *len)
{
	size_t cap = 65536, n = 0;
	char *buf = malloc(cap);
	ssize_t r;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0 || !buf) {
		fprintf(stderr, "linerate: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	while ((r = read(fd, buf + n, cap - n)) > 0) {
		n += (size_t)r;
		if (n == cap) {
			cap *= 2;
			buf = realloc(buf, cap);
			if (!buf) {
				perror("linerate: realloc");
				exit(1);
			}
		}
	}
	if (r < 0) {
		fprintf(stderr, "linerate: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	close(fd);
	if (!n || buf[n - 1] != '\n') {
		fprintf(stderr, "linerate: %s is empty or does not end in a newline\n", path);
		exit(1);
	}
	*len = n;
	return buf;
}

/* All of @len bytes, whatever signals come meanwhile. */
static void write_all(const char *p, size_t len)
{
	ssize_t r;

	while (len) {
		r = write(STDOUT_FILENO, p, len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			perror("linerate: write");
			exit(1);
		}
		p += r;
		len -= (size_t)r;
	}
}

static void print_count(unsigned long long lines)
{
	fprintf(stderr, "linerate: t=%.6f lines=%llu\n", now_ns() / 1e9, lines);
}

int main(int argc, char **argv)
{
	unsigned long rate = 0, interval_ms = 10;
	unsigned long long written = 0, due;
	struct sigaction sa = { 0 };
	long long start, next;
	size_t len, pos = 0, end;
	struct timespec ts;
	char *buf;
	int opt;

	while ((opt = getopt(argc, argv, "r:i:")) != -1) {
		switch (opt) {
		case 'r': rate = number(optarg, 1, 1000000); break;
		case 'i': interval_ms = number(optarg, 1, 10000); break;
		default: usage();
		}
	}
	if (optind != argc - 1 || !rate)
		usage();
	buf = slurp(argv[optind], &len);

	/* No SA_RESTART: a signal ends the sleep at once. */
	sa.sa_handler = on_stop;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sa.sa_handler = on_report;
	sigaction(SIGUSR1, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	/* Fails on a file or a terminal: then nothing to shrink. */
	fcntl(STDOUT_FILENO, F_SETPIPE_SZ, 4096);

	start = now_ns();
	next = start;
	while (!stop) {
		next += (long long)interval_ms * 1000000;
		ts.tv_sec = next / 1000000000;
		ts.tv_nsec = next % 1000000000;
		while (!stop && !report &&
		       clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
		if (report) {
			report = 0;
			print_count(written);
			/* The sleep was cut short: finish it first. */
			if (now_ns() < next) {
				next -= (long long)interval_ms * 1000000;
				continue;
			}
		}
		if (stop)
			break;
		due = (unsigned long long)((now_ns() - start) / 1000) * rate / 1000000;
		/* The lines due, as few writes as their runs in the buffer. */
		while (written < due) {
			end = pos;
			while (written < due) {
				end = (char *)memchr(buf + end, '\n', len - end) - buf + 1;
				written++;
				if (end == len)
					break;
			}
			write_all(buf + pos, end - pos);
			pos = end == len ? 0 : end;
		}
		/* Behind by more than a tick (the reader blocked us): do not
		 * sleep until the backlog of ticks has passed.
		 */
		if (next < now_ns() - (long long)interval_ms * 1000000)
			next = now_ns();
	}
	print_count(written);
	return 0;
}
