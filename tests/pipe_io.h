/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* Whole messages over a pipe between a test and the child it forked: the
 * child may stop short (a crash) or never answer (libseccomp 2.5.4 can
 * loop forever adding rules), and the parent must tell which. */
#ifndef SCMPC_TESTS_PIPE_IO_H
#define SCMPC_TESTS_PIPE_IO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* All N bytes of BUF to FD, across short writes and EINTR. */
bool pipe_write_all(int fd, const void *buf, size_t n);
/* CLOCK_MONOTONIC now plus MS milliseconds, in nanoseconds. */
uint64_t pipe_deadline(uint64_t ms);
/* Exactly N bytes from FD into BUF before DEADLINE (pipe_deadline(), or
 * UINT64_MAX for none): 0, -ETIMEDOUT, or -EIO on EOF or an error. */
int pipe_read_all(int fd, void *buf, size_t n, uint64_t deadline);

#endif
