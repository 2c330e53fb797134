/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
#include <errno.h>
#include <poll.h>
#include <time.h>
#include <unistd.h>
#include "pipe_io.h"

bool pipe_write_all(int fd, const void *buf, size_t n)
{
	for (const char *p = buf; n;) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return false;
		p += w;
		n -= (size_t)w;
	}
	return true;
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

uint64_t pipe_deadline(uint64_t ms)
{
	return now_ns() + ms * 1000000ULL;
}

int pipe_read_all(int fd, void *buf, size_t n, uint64_t deadline)
{
	for (char *p = buf; n;) {
		int timeout = -1;
		if (deadline != UINT64_MAX) {
			uint64_t now = now_ns();
			if (now >= deadline)
				return -ETIMEDOUT;
			uint64_t ms = (deadline - now) / 1000000 + 1;
			timeout = ms > 0x7fffffff ? 0x7fffffff : (int)ms;
		}
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		int pr = poll(&pfd, 1, timeout);
		if (pr < 0 && errno == EINTR)
			continue;
		if (pr < 0)
			return -EIO;
		if (pr == 0)
			return -ETIMEDOUT;
		ssize_t r = read(fd, p, n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -EIO;
		p += r;
		n -= (size_t)r;
	}
	return 0;
}
