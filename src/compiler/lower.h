/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
#ifndef SCMPC_LOWER_H
#define SCMPC_LOWER_H

#include "compiler/dag.h"
#include "policy/policy.h"

/* How argument checks are laid out. */
enum lower_mode {
	LOWER_PATH,		/* for the shortest worst path */
	LOWER_PATH_ARGFIRST,	/* the same, number trees reaching argument-checked
				   calls sooner where that costs nothing
				   (argfirst.c) */
	LOWER_COMPACT,		/* for size */
	LOWER_COMPACT_LOFIRST,	/* for size, equalities low half first (lower.c) */
	LOWER_CAPPED,		/* for size, and the number trees within a slack
				   of their fewest tests (layout_capped()) */
	LOWER_CAPPED_EBPF,	/* the same, tests counted as the kernel's eBPF */
};

/* The decision DAG of a whole policy (dispatch.c): arch dispatch, per-ABI
 * number trees, and below each call lower_syscall()'s argument checks,
 * laid out as MODE says (SLACK: LOWER_CAPPED's); HOT (or NULL) is the
 * workload the number trees are laid out for.  Returns the root node, or
 * a negative errno. */
int64_t lower_policy(struct dag *g, const scmpc_policy *p, struct arch_view *views,
		     enum lower_mode mode, unsigned slack, const scmpc_workload *hot,
		     scmpc_diag *d);

/* The same decisions as one linear chain, without any optimisation. */
int64_t lower_naive(struct dag *g, const scmpc_policy *p, struct arch_view *views,
		    scmpc_diag *d);

/* The same for one syscall's rules, as a chain (A holds nr on entry). */
uint32_t lower_naive_syscall(struct dag *g, const scmpc_policy *p, const struct arch_view *v,
			     size_t lo, size_t hi);

/* The decision of one syscall's rules [lo, hi) of view V, testing arguments
 * as needed; A holds the syscall number on entry. */
uint32_t lower_syscall(struct dag *g, const scmpc_policy *p, const struct arch_view *v,
		       size_t lo, size_t hi, enum lower_mode mode);

/* libseccomp's tree T (policy/lsc_tree.h) as DAG nodes on ABI AI, going
 * to NONE where no branch decides (lsc_lower.c); NODE_NONE on failure
 * (g->oom set). */
uint32_t lsc_tree_lower(struct dag *g, const struct lsc_tree *t, const struct arch_info *ai,
			uint32_t none);

#endif
