/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* Shared by the loader and the introspection code; not installed. */
#ifndef SCMPC_LOAD_H
#define SCMPC_LOAD_H

#include <sys/types.h>
#include "internal.h"

struct seccomp_status {
	int mode;		/* 0 off, 1 strict, 2 filter; -1 unknown */
	long filters;		/* Seccomp_filters (5.9+); -1 when not reported */
	int nnp;		/* NoNewPrivs; -1 unknown */
};

/* Read the Seccomp lines of /proc/<tid>/status (TID 0: the calling thread).
 * Returns 0 or a negative errno (no /proc, no such thread). */
int proc_seccomp_status(pid_t tid, struct seccomp_status *st);

#endif
