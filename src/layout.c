/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Search trees over ranges of a 32-bit value (syscall numbers, argument
 * half-words).
 *
 * The tree minimises the worst executed path, counting each leaf's own
 * cost (an argument check below a syscall leaf costs more than a return),
 * and among the trees with that worst path the one with the least mean
 * path, weighting each range by how many interesting numbers it covers.
 * An exact interval search finds it for trees of up to DP_MAX leaves; a
 * greedy that merges the cheapest adjacent pair, lighter pairs first, takes
 * larger ones.  Single values inside a range that decides otherwise cost
 * one `jeq` each instead of two splits, and both searches consider it.
 *
 * In a syscall-number tree an argument-checked leaf weighs half its cost:
 * at full weight the few such leaves would claim the top of the tree and
 * lengthen the number dispatch that every other call pays, and at no
 * weight their paths (dispatch plus argument checks) would be the longest
 * in the program; half splits the difference.  Cold ranges (far outside
 * the numbers real calls use, such as x32 numbers inside the x86_64 tree)
 * are pushed down by a fixed bias so they never lengthen hot paths.
 */
#include <linux/filter.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "layout.h"

#define COLD_BIAS 24

struct item {
	uint32_t node;
	int key;		/* cost the worst path is measured in */
	uint64_t weight;
	uint32_t lo;
	bool leaf;		/* an input range, not a merged subtree */
	bool point;		/* a leaf covering exactly one value */
};

bool range_push(struct range_vec *rv, uint32_t lo, uint32_t node, uint32_t weight, bool hot)
{
	if (rv->n && rv->v[rv->n - 1].node == node) {
		rv->v[rv->n - 1].weight += weight;
		rv->v[rv->n - 1].hot |= hot;
		return true;
	}
	if (!array_reserve(&rv->v, &rv->cap, rv->n, sizeof(*rv->v), 64))
		return false;
	rv->v[rv->n++] = (struct range){ lo, node, weight, hot };
	return true;
}

void range_vec_free(struct range_vec *rv)
{
	free(rv->v);
	memset(rv, 0, sizeof(*rv));
}

static int imax(int a, int b) { return a > b ? a : b; }

static bool is_triple(const struct item *it, size_t i)
{
	return it[i].leaf && it[i + 1].leaf && it[i + 2].leaf && it[i + 1].point &&
	       it[i].node == it[i + 2].node;
}

static uint32_t merge_node(struct dag *g, const struct item *a, const struct item *b,
			   const struct item *c)
{
	if (c)
		return dag_jmp(g, BPF_JEQ, b->lo, b->node, a->node);
	return dag_jmp(g, BPF_JGE, b->lo, b->node, a->node);
}

/* Greedy: repeatedly merge the adjacent pair (or X p X triple) whose merged
 * key is smallest, the lighter first among equals.  Items [lo, hi) are
 * replaced by one; returns false on ENOMEM. */
static bool greedy(struct dag *g, struct item *it, size_t *m, size_t lo, size_t hi)
{
	while (hi - lo > 1) {
		if (!dag_charge(g, hi - lo))
			return false;
		size_t best = lo;
		bool best_triple = false;
		int best_key = 0;
		uint64_t best_w = 0;
		for (size_t i = lo; i + 1 < hi; i++) {
			int key = imax(it[i].key, it[i + 1].key) + 1;
			uint64_t w = it[i].weight + it[i + 1].weight;
			bool triple = false;
			if (i + 2 < hi && is_triple(it, i)) {
				int tk = imax(imax(it[i].key, it[i + 2].key), it[i + 1].key) + 1;
				if (tk <= key) {
					triple = true;
					key = tk;
					w += it[i + 2].weight;
				}
			}
			bool better = i == lo || key < best_key ||
				      (key == best_key && triple && !best_triple) ||
				      (key == best_key && triple == best_triple && w < best_w);
			if (better) {
				best = i;
				best_key = key;
				best_triple = triple;
				best_w = w;
			}
		}
		size_t consumed = best_triple ? 3 : 2;
		struct item merged = { .key = best_key, .weight = best_w, .lo = it[best].lo };
		merged.node = merge_node(g, &it[best], &it[best + 1],
					 best_triple ? &it[best + 2] : NULL);
		if (merged.node == NODE_NONE)
			return false;
		it[best] = merged;
		memmove(&it[best + 1], &it[best + consumed], (*m - best - consumed) * sizeof(*it));
		*m -= consumed - 1;
		hi -= consumed - 1;
	}
	return true;
}

/*
 * Exact for its objective (enum layout_goal): over all trees of splits and
 * jeq chains, the least worst key, weighted depth and instructions in the
 * goal's order.  A jeq chain covers a run of ranges that all decide
 * alike (the background) but for single values, testing each of those in
 * turn: it is how a handful of values is cheapest to pick out, and a split
 * above it keeps the path short when there are many.  O(n^3), so it runs
 * on trees of moderate size; the greedy takes larger ones.
 */
#define DP_MAX 160
#define CHAIN_MAX 16

struct dp {
	size_t n;
	enum layout_goal goal;
	int *f;			/* worst key of the best tree over [i, j] */
	uint64_t *s;		/* its weighted depth */
	uint32_t *z;		/* its instructions */
	int32_t *split;		/* >= 0: split after it; -1: a jeq chain */
};

#define AT(t, i, j) ((t)[(i) * dp->n + (j)])

/* The background of a chain over [i, j]: the first range wider than one
 * value, else the last; chain-able when every other range is one value. */
static bool chain_of(const struct item *it, size_t i, size_t j, uint32_t *bg, uint32_t *tests)
{
	*bg = it[j].node;
	for (size_t k = i; k <= j; k++)
		if (!it[k].point) {
			*bg = it[k].node;
			break;
		}
	*tests = 0;
	for (size_t k = i; k <= j; k++) {
		if (!it[k].leaf)
			return false;
		if (it[k].node == *bg)
			continue;
		if (!it[k].point)
			return false;
		(*tests)++;
	}
	return *tests > 0;
}

/* The jeq chain over [i, j] with background BG, first value tested first. */
static uint32_t chain_build(struct dag *g, const struct item *it, size_t i, size_t j, uint32_t bg)
{
	uint32_t node = bg;
	for (size_t m = j + 1; m-- > i;)
		if (it[m].node != bg)
			node = dag_jmp(g, BPF_JEQ, it[m].lo, it[m].node, node);
	return node;
}

static uint32_t dp_build(struct dag *g, const struct dp *dp, const struct item *it, size_t i,
			 size_t j)
{
	if (i == j)
		return it[i].node;
	int32_t k = AT(dp->split, i, j);
	if (k < 0) {
		uint32_t bg, tests;
		chain_of(it, i, j, &bg, &tests);
		return chain_build(g, it, i, j, bg);
	}
	uint32_t left = dp_build(g, dp, it, i, (size_t)k);
	uint32_t right = dp_build(g, dp, it, (size_t)k + 1, j);
	if (left == NODE_NONE || right == NODE_NONE)
		return NODE_NONE;
	return dag_jmp(g, BPF_JGE, it[k + 1].lo, right, left);
}

static bool better(const struct dp *dp, int f, uint64_t s, uint32_t z, int bf, uint64_t bs,
		   uint32_t bz)
{
	switch (dp->goal) {
	case LAYOUT_NUMBERS:
		if (f != bf)
			return f < bf;
		return s != bs ? s < bs : z < bz;
	case LAYOUT_ARGS:
		if (f != bf)
			return f < bf;
		return z != bz ? z < bz : s < bs;
	default:
		if (z != bz)
			return z < bz;
		return f != bf ? f < bf : s < bs;
	}
}

static uint32_t optimal(struct dag *g, const struct item *it, size_t n, enum layout_goal goal)
{
	struct dp dpv = { .n = n, .goal = goal }, *dp = &dpv;
	uint64_t *wsum = malloc((n + 1) * sizeof(*wsum));
	dp->f = malloc(n * n * sizeof(*dp->f));
	dp->s = malloc(n * n * sizeof(*dp->s));
	dp->z = malloc(n * n * sizeof(*dp->z));
	dp->split = malloc(n * n * sizeof(*dp->split));
	uint32_t root = NODE_NONE;
	if (!wsum || !dp->f || !dp->s || !dp->z || !dp->split)
		goto out;
	wsum[0] = 0;
	for (size_t i = 0; i < n; i++) {
		wsum[i + 1] = wsum[i] + it[i].weight;
		AT(dp->f, i, i) = it[i].key;
		AT(dp->s, i, i) = 0;
		AT(dp->z, i, i) = 0;
	}
	for (size_t len = 2; len <= n; len++) {
		for (size_t i = 0; i + len <= n; i++) {
			size_t j = i + len - 1;
			uint64_t w = wsum[j + 1] - wsum[i];
			int bf = INT32_MAX;
			uint64_t bs = UINT64_MAX;
			uint32_t bz = UINT32_MAX;
			int32_t bk = 0;
			for (size_t k = i; k < j; k++) {
				int f = imax(AT(dp->f, i, k), AT(dp->f, k + 1, j)) + 1;
				uint64_t sv = AT(dp->s, i, k) + AT(dp->s, k + 1, j) + w;
				uint32_t z = AT(dp->z, i, k) + AT(dp->z, k + 1, j) + 1;
				if (better(dp, f, sv, z, bf, bs, bz)) {
					bf = f;
					bs = sv;
					bz = z;
					bk = (int32_t)k;
				}
			}
			uint32_t bg, tests;
			/* A chain of more than 16 tests never has the least worst
			 * path; only a size-first search needs longer ones. */
			bool try_chain = goal == LAYOUT_ARGS_COMPACT || len <= 2 * CHAIN_MAX + 1;
			if (try_chain && chain_of(it, i, j, &bg, &tests)) {
				/* The m-th tested value is m deep, the background
				 * `tests` deep. */
				int f = INT32_MIN;
				uint64_t sv = 0;
				uint32_t m = 0;
				for (size_t k = i; k <= j; k++) {
					uint32_t depth = it[k].node == bg ? tests : ++m;
					f = imax(f, it[k].key + (int)depth);
					sv += it[k].weight * depth;
				}
				if (better(dp, f, sv, tests, bf, bs, bz)) {
					bf = f;
					bs = sv;
					bz = tests;
					bk = -1;
				}
			}
			AT(dp->f, i, j) = bf;
			AT(dp->s, i, j) = bs;
			AT(dp->z, i, j) = bz;
			AT(dp->split, i, j) = bk;
		}
	}
	root = dp_build(g, dp, it, 0, n - 1);
out:
	if (root == NODE_NONE)
		g->oom = true;
	free(wsum);
	free(dp->f);
	free(dp->s);
	free(dp->z);
	free(dp->split);
	return root;
}

uint32_t layout_tree(struct dag *g, const struct range *r, size_t n, enum layout_goal goal)
{
	if (n == 0)
		return NODE_NONE;
	if (n == 1)
		return r[0].node;
	/* A search tree telling N ranges apart has (N - 1) / 2 comparisons at
	 * least (a jeq settles two boundaries, a jge one).  Far past what the
	 * kernel loads, refuse before the quadratic greedy spends seconds on
	 * it; nearer, build it so the error can name the program's size. */
	if ((n - 1) / 2 > 2 * BPF_MAXINSNS) {
		if (g->trial_nodes) {
			g->trial_failed = true;	/* the caller has another way */
		} else {
			if (!g->too_big) {
				g->limit = DAG_LIMIT_RANGES;
				g->ranges = n;
			}
			g->too_big = true;
		}
		g->oom = true;
		return NODE_NONE;
	}

	struct item *it = malloc(n * sizeof(*it));
	if (!it) {
		g->oom = true;
		return NODE_NONE;
	}
	for (size_t i = 0; i < n; i++) {
		uint32_t hi = i + 1 < n ? r[i + 1].lo - 1 : UINT32_MAX;
		int cost = g->nodes[r[i].node].cost;
		if (goal == LAYOUT_NUMBERS)
			cost = (cost + 1) / 2;
		it[i] = (struct item){
			.node = r[i].node,
			.key = cost - (r[i].hot ? 0 : COLD_BIAS),
			.weight = r[i].weight,
			.lo = r[i].lo,
			.leaf = true,
			.point = hi == r[i].lo,
		};
	}

	/* Runs of cold ranges become one subtree each before the real search,
	 * which keeps the exact search small. */
	size_t m = n;
	for (size_t i = 0; i < m; i++) {
		if (it[i].key >= 0)
			continue;
		size_t j = i;
		while (j < m && it[j].key < 0)
			j++;
		if (j - i > 1 && !greedy(g, it, &m, i, j))
			goto oom;
	}
	uint32_t root, bg, tests;
	if (m <= DP_MAX) {
		root = optimal(g, it, m, goal);
	} else if (goal == LAYOUT_ARGS_COMPACT && chain_of(it, 0, m - 1, &bg, &tests)) {
		root = chain_build(g, it, 0, m - 1, bg);
	} else {
		if (!greedy(g, it, &m, 0, m))
			goto oom;
		root = it[0].node;
	}
	free(it);
	return root;
oom:
	free(it);
	g->oom = true;
	return NODE_NONE;
}
