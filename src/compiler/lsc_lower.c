/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * libseccomp's tree of one call's comparisons (policy/lsc_tree.h) as DAG
 * nodes: each level a chain of its comparisons in libseccomp's order, a
 * branch going on to its level below or to its action, and to the next
 * comparison when it has neither.
 */
#include <stdlib.h>
#include "compiler/lower.h"
#include "policy/lsc_tree.h"

/* The DAG of the tree level at AT: its comparisons in order, each going down, to its action, or
 * on to CONT. */
static uint32_t lower_level(struct dag *g, const struct lsc_tree *t, int32_t at,
			    const struct arch_info *ai, uint32_t cont)
{
	struct lsc_cmp *lvl;
	long n = lsc_tree_level(t, at, &lvl);
	if (n < 0 || !dag_charge(g, (size_t)n)) {
		free(lvl);
		g->oom = true;
		return NODE_NONE;
	}
	/* From the last comparison back: each falls through to the next. */
	uint32_t next = cont;
	for (long k = n; k-- > 0 && next != NODE_NONE;) {
		const struct lsc_cmp *x = &lvl[k];
		uint32_t off = arch_arg_offset(ai, x->arg, x->hi), to[2];
		for (int b = 0; b < 2; b++) {
			to[b] = x->sub[b] != LSC_NONE ? lower_level(g, t, x->sub[b], ai, next)
				: x->has[b]	      ? dag_ret(g, x->act[b])
						      : next;
			/* An unmasked comparison leaves its word in A: what comes
			 * next on the same word needs no load (libseccomp's
			 * programs skip it too); a level below falls back to
			 * NEXT with its own word in A, so NEXT keeps its load. */
			const struct node *y = to[b] != NODE_NONE ? dag_node(g, to[b]) : NULL;
			if (y && x->mask == UINT32_MAX && y->kind == N_LD && y->k == off)
				to[b] = y->a;
		}
		uint32_t test = dag_jmp(g, x->op, x->datum, to[1], to[0]);
		if (x->mask != UINT32_MAX)
			test = dag_and(g, x->mask, test);
		next = dag_ld(g, off, test);
	}
	free(lvl);
	return next;
}

uint32_t lsc_tree_lower(struct dag *g, const struct lsc_tree *t, const struct arch_info *ai,
			uint32_t none)
{
	return lower_level(g, t, LSC_ROOT, ai, none);
}
