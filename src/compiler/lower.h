/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
#ifndef SCMPC_LOWER_H
#define SCMPC_LOWER_H

#include "compiler/dag.h"
#include "compiler/layout.h"
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

/*
 * A LOWER_PATH lowering's number trees, each section's ranges and root in
 * the DAG that holds them: what LOWER_PATH_ARGFIRST would lower again,
 * per-call checks and number searches alike, before it looks for other
 * trees (lower_argfirst()).  Freed with lowered_free().
 */
struct lowered {
	size_t n;
	uint32_t audits[SCMPC_ARCH_COUNT], roots[SCMPC_ARCH_COUNT];
	struct range_vec rv[SCMPC_ARCH_COUNT];
};
void lowered_free(struct lowered *k);

/* The program LOWER_PATH_ARGFIRST lowers, from K and the DAG G it was
 * kept in: argfirst.c's trees over each section's ranges.  The calls it
 * makes are those the argfirst lowering makes after the ones K's lowering
 * made (which are that lowering's first), so the program is the one that
 * lowering emits, and G's work and node bounds are reached or not alike:
 * both count from an empty DAG to the same total.  Returns the root or a
 * negative errno. */
int64_t lower_argfirst(struct dag *g, const scmpc_policy *p, const struct lowered *k,
		       scmpc_diag *d);

/* The decision DAG of a whole policy (dispatch.c): arch dispatch, per-ABI
 * number trees, and below each call lower_syscall()'s argument checks,
 * laid out as MODE says (SLACK: LOWER_CAPPED's); HOT (or NULL) is the
 * workload the number trees are laid out for.  KEEP (or NULL; zeroed by
 * the caller) receives the number trees for lower_argfirst().  Returns
 * the root node, or a negative errno. */
int64_t lower_policy(struct dag *g, const scmpc_policy *p, struct arch_view *views,
		     enum lower_mode mode, unsigned slack, const scmpc_workload *hot,
		     struct lowered *keep, scmpc_diag *d);

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
