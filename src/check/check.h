/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * The semantic check: a program must decide every call exactly as the
 * policy's rules do (verify_policy.c over the numbers, verify_args.c over
 * the argument values).  It reads programs and policies; it builds
 * neither.
 */
#ifndef SCMPC_CHECK_H
#define SCMPC_CHECK_H

#include <linux/filter.h>
#include "policy/policy.h"

/* Argument vectors that exercise every condition on NR's rules in V:
 * constants, their neighbours, high-word and mask variants.  *OUT is
 * malloc'ed; returns the count (at least 1) or a negative errno. */
long probe_args(const scmpc_policy *p, const struct arch_view *v, uint32_t nr,
		uint64_t (**out)[6]);

int verify_with_views(const scmpc_policy *p, const struct arch_view *views,
		      const struct sock_filter *insns, size_t len, scmpc_diag *d);

/* verify_args.c: prove call NR of view V (under AUDIT) over every argument
 * vector: 1 when proven, 0 when the walk gave up (the caller probes),
 * -ENOMEM, or -EPROTO with *WITNESS an input in a class where program and
 * policy part. */
int verify_args_symbolic(const scmpc_policy *p, const struct arch_view *v,
			 const struct sock_filter *insns, size_t len, uint32_t audit, uint32_t nr,
			 struct seccomp_data *witness);

#endif
