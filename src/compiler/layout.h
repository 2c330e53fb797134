/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
#ifndef SCMPC_LAYOUT_H
#define SCMPC_LAYOUT_H

#include "compiler/dag.h"

/* One piece of a 32-bit domain: [lo, next range's lo - 1] decides `node`. */
struct range {
	uint32_t lo;
	uint32_t node;
	uint32_t weight;	/* how much of the interesting part it covers */
	bool hot;		/* inside the part whose worst path matters */
};

/* Build a search tree over RANGES (sorted by lo, the first at 0, adjacent
 * ranges with equal nodes already merged) that tests the accumulator, which
 * holds the value.  In a syscall-number tree a leaf that tests more (an
 * argument check) weighs half its cost in the balance.  Returns the root
 * node or NODE_NONE on ENOMEM. */
enum layout_goal {
	LAYOUT_NUMBERS,		/* worst path, then mean path, then size */
	LAYOUT_NUMBERS_SIZE,	/* worst path, then size, then mean path */
	LAYOUT_ARGS,		/* worst path, then size, then mean path */
	LAYOUT_ARGS_COMPACT,	/* size first: for programs that do not fit otherwise */
};
uint32_t layout_tree(struct dag *g, const struct range *ranges, size_t n, enum layout_goal goal);
/* The same tree, built without the memo and with the exact search trying
 * every split (no pruning): the reference the tests hold layout_tree()
 * to. */
uint32_t layout_tree_exhaustive(struct dag *g, const struct range *ranges, size_t n,
				enum layout_goal goal);
/* The search tree over RANGES (as layout_tree()) with the least weighted
 * depth among those whose worst path, measured as LAYOUT_NUMBERS measures
 * it, is at most SCMPC_HOT_SLACK above the least possible. */
uint32_t hot_layout(struct dag *g, const struct range *ranges, size_t n);
/* The search tree over RANGES (as layout_tree()) with the least worst
 * path, measured as LAYOUT_NUMBERS_SIZE measures it, among those with at
 * most SLACK tests more than the fewest possible: a number tree held to a
 * size, in tests or (EBPF) in what the kernel converts them to.  SLACK
 * may be cut (layout.c says when). */
uint32_t layout_capped(struct dag *g, const struct range *ranges, size_t n, unsigned slack,
		       bool ebpf);
#define LAYOUT_SLACK_MAX 4	/* the most slack layout_capped() spends */
/* The same tree, each split's cost summed index by index as the search
 * first did: the reference the tests hold layout_capped() to. */
uint32_t layout_capped_plain(struct dag *g, const struct range *ranges, size_t n, unsigned slack,
			     bool ebpf);

/* Append [lo, ...) -> node to a growing array, merging with the last range
 * when it decides the same.  Returns false on ENOMEM. */
struct range_vec {
	struct range *v;
	size_t n, cap;
};
bool range_push(struct range_vec *rv, uint32_t lo, uint32_t node, uint32_t weight, bool hot);
void range_vec_free(struct range_vec *rv);

#endif
