/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * The semantic check: a proof that a program decides every call (every
 * AUDIT_ARCH value, number and argument value) exactly as the policy's
 * rules do, on the engine's paths (check.c and the files judge.h names).
 * It reads programs and policies; it builds neither.  probe_args.c keeps
 * the probe vectors that other parts still try programs on.
 */
#ifndef SCMPC_CHECK_H
#define SCMPC_CHECK_H

#include <linux/filter.h>
#include "policy/policy.h"

/* Argument vectors that exercise every condition on NR's rules in V:
 * constants, their neighbours, high-word and mask variants.  *OUT is
 * malloc'ed; returns the count (at least 1) or a negative errno.  Not the
 * check's: split.c tries stacks on them. */
long probe_args(const scmpc_policy *p, const struct arch_view *v, uint32_t nr,
		uint64_t (**out)[6]);

/* The proof, given views[i] for p->arches[i]: 0, or -EPROTO naming a call
 * the program and the policy decide differently, or the reason there is
 * no proof (-ENOTSUP: the engine cannot follow the program; -E2BIG: a
 * bound was reached; -ENOMEM). */
int verify_with_views(const scmpc_policy *p, const struct arch_view *views,
		      const struct sock_filter *insns, size_t len, scmpc_diag *d);

/* The same proof for the calls with AUDIT and NR alone (V is P's view of
 * that ABI): 1 when it holds, else as above, -EPROTO with *WITNESS the
 * call.  Never 0 (it was "the probes decide"); bench_compare counts it. */
int verify_args_symbolic(const scmpc_policy *p, const struct arch_view *v,
			 const struct sock_filter *insns, size_t len, uint32_t audit, uint32_t nr,
			 struct seccomp_data *witness);

#endif
