/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * The runtime: installing programs with seccomp(2) (load.c), user
 * notification (notify.c) and reading a process's filters back
 * (introspect.c).  The only part of the library that makes system calls
 * about seccomp; it takes programs as they are and builds none.
 */
#ifndef SCMPC_RUNTIME_H
#define SCMPC_RUNTIME_H

#include <errno.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>
#include "bpf/bpf.h"

/* glibc has no seccomp() wrapper. */
static inline long sys_seccomp(unsigned op, unsigned flags, void *args)
{
#ifdef SYS_seccomp
	return syscall(SYS_seccomp, op, flags, args);
#else
	(void)op, (void)flags, (void)args;
	errno = ENOSYS;
	return -1;
#endif
}

/* seccomp(2) with the three unused argument registers 0, so that what a
 * filter sees of the call is known to the register (install_order()). */
#ifdef SYS_seccomp
#define NR_SECCOMP SYS_seccomp
#else
#define NR_SECCOMP (-1)
#endif
static inline long sys_seccomp_exact(unsigned op, unsigned flags, void *args)
{
#ifdef SYS_seccomp
	return syscall(SYS_seccomp, (unsigned long)op, (unsigned long)flags, (unsigned long)args,
		       0UL, 0UL, 0UL);
#else
	(void)op, (void)flags, (void)args;
	errno = ENOSYS;
	return -1;
#endif
}

struct seccomp_status {
	int mode;		/* 0 off, 1 strict, 2 filter; -1 unknown */
	long filters;		/* Seccomp_filters (5.9+); -1 when not reported */
	int nnp;		/* NoNewPrivs; -1 unknown */
	char state;		/* State: 'R', 'S', ..., 'Z' a zombie; 0 unknown */
};

/* ---- order.c */
/* Whether a filter returning ACT lets the call through (ALLOW, LOG). */
bool install_allows(uint32_t act);

/* Why P gives ACT for call SD, as " (rule syscalls[3])", into BUF; "" when
 * P is NULL or decides SD otherwise (the program is not P's). */
void install_cause(const scmpc_policy *p, const struct seccomp_data *sd, uint32_t act,
		   char *buf, size_t len);

/* Program I of a stack denies the call that installs program J. */
struct install_block {
	size_t blocker, blocked;
	uint32_t action;	/* what the blocker returns for that call */
};

/* An order for the N programs INSNS[i] (LENS[i] long) such that the call
 * installing each, CALLS[i], is allowed by every program before it: into
 * ORDER (N indexes), the given order wherever it works.  0; -EPERM when no
 * order does, *WHY naming a program that blocks another; -EINVAL when a
 * program cannot be run; -ENOMEM. */
int install_order(const struct sock_filter *const *insns, const size_t *lens, size_t n,
		  const struct seccomp_data *calls, size_t *order, struct install_block *why);

/* Read the Seccomp and State lines of /proc/<tid>/status (TID 0: the calling thread).
 * Returns 0 or a negative errno (no /proc, no such thread). */
int proc_seccomp_status(pid_t tid, struct seccomp_status *st);

#endif
