/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
#ifndef SCMPC_LOWER_H
#define SCMPC_LOWER_H

#include "dag.h"
#include "internal.h"

/* The decision DAG of a whole policy (dispatch.c): arch dispatch, per-ABI
 * number trees, and below each call lower_syscall()'s argument checks.
 * COMPACT lays argument checks out for size rather than path length; HOT
 * (or NULL) is the workload the number trees are laid out for.  Returns
 * the root node, or a negative errno. */
int64_t lower_policy(struct dag *g, const scmpc_policy *p, struct arch_view *views,
		     bool compact, const scmpc_workload *hot, scmpc_diag *d);

/* The same decisions as one linear chain, without any optimisation. */
int64_t lower_naive(struct dag *g, const scmpc_policy *p, struct arch_view *views,
		    scmpc_diag *d);

/* The same for one syscall's rules, as a chain (A holds nr on entry). */
uint32_t lower_naive_syscall(struct dag *g, const scmpc_policy *p, const struct arch_view *v,
			     size_t lo, size_t hi);

/* The decision of one syscall's rules [lo, hi) of view V, testing arguments
 * as needed; A holds the syscall number on entry. */
uint32_t lower_syscall(struct dag *g, const scmpc_policy *p, const struct arch_view *v,
		       size_t lo, size_t hi, bool compact);

#endif
