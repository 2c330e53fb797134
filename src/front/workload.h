/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* A workload (workload.c) as the compiler's dispatch sees it. */
#ifndef SCMPC_WORKLOAD_H
#define SCMPC_WORKLOAD_H

#include "policy/policy.h"

struct hot_call {
	uint32_t nr;
	uint64_t count;
	bool cached;		/* its ABI's constant allows are served by the kernel's cache */
};
/* The calls of W that reach P's section for AUDIT: entries of P's ABIs
 * with that AUDIT_ARCH, those without an ABI counting as PRIMARY's; by
 * number, repeats summed.  *OUT is malloc'ed (NULL when none); returns
 * how many or -ENOMEM. */
long hot_calls(const scmpc_workload *w, const scmpc_policy *p, uint32_t audit,
	       enum scmpc_arch primary, struct hot_call **out);

#endif
