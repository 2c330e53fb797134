/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Number trees that reach argument-checked calls sooner.
 *
 * On kernels with the seccomp action cache (5.11 on) an allowed call
 * without argument checks never runs the filter, while an
 * argument-checked call runs it every time: the path to such a call's
 * checks is what a confined process pays.  The layout's own objective
 * (worst path, then the mean over the first 1024 numbers, mostly denied
 * ones, then size) does not see that, so two other trees are held
 * against its tree:
 *
 *  - the same search with each argument-checked range weighing as much
 *    as all the numbers together, so that among the trees of least worst
 *    key the one with those calls shallowest wins;
 *  - gVisor's shape: the argument-checked single numbers tested with
 *    `jeq` above the search over the rest, where their numbers are then
 *    free to join a neighbour's range (a call between two denied ranges
 *    costs the search nothing more), so a handful of such calls costs
 *    about the tests it saves below.
 *
 * A candidate replaces the layout's tree only when it is no larger (in
 * distinct nodes), no path from it is longer than the layout's longest,
 * over the cold ranges, the hot ones, and the hot ranges that return at
 * once (argument-free numbers, denied or allowed), and the sum of the
 * tests above the hot argument-checked ranges is smaller.  The emitter's
 * `ja` for far jumps can still lengthen a path, so size.c holds the whole
 * program to the one without these trees (try_argfirst()).
 */
#include <linux/filter.h>
#include <stdlib.h>
#include <string.h>
#include "compiler/argfirst.h"

/* As heavy as every number of the hot part together (push_range()'s 1024). */
#define ARG_WEIGHT 1024u
/* More hoisted tests than this lengthen every other call's path more
 * than the search below can win back. */
#define HOIST_MAX 4
/* Hoisting wins on small trees only (Docker's example profile; of the
 * packaged profiles' larger trees, none), and on a large one it would
 * cost as much again as the layout's own search. */
#define HOIST_RANGES_MAX 48

struct tree_fig {
	size_t size;		/* distinct nodes reachable */
	unsigned worst[3];	/* most instructions to a return: from cold ranges,
				   hot ones, hot argument-free ones */
	uint64_t arg_sum;	/* tests above each hot argument-checked range */
};

static bool arg_checked(const struct dag *g, const struct range *r)
{
	return dag_node(g, r->node)->kind != N_RET;
}

/* The tests ROOT runs on value V before it reaches LEAF; -1 when it does
 * not (a tree this module cannot read). */
static int depth_to(const struct dag *g, uint32_t root, uint32_t v, uint32_t leaf)
{
	uint32_t id = root;
	for (int d = 0; d <= BPF_MAXINSNS; d++) {
		if (id == leaf)
			return d;
		const struct node *x = dag_node(g, id);
		if (x->kind != N_JMP)
			return -1;
		bool t;
		switch (x->op) {
		case BPF_JGE: t = v >= x->k; break;
		case BPF_JGT: t = v > x->k; break;
		case BPF_JEQ: t = v == x->k; break;
		default: return -1;
		}
		id = t ? x->a : x->b;
	}
	return -1;
}

static bool figures(const struct dag *g, uint32_t root, const struct range *r, size_t n,
		    struct tree_fig *f)
{
	memset(f, 0, sizeof(*f));
	f->size = dag_reach(g, root);
	if (!f->size)
		return false;
	for (size_t i = 0; i < n; i++) {
		int d = depth_to(g, root, r[i].lo, r[i].node);
		if (d < 0)
			return false;
		unsigned p = (unsigned)d + dag_node(g, r[i].node)->cost;
		bool arg = arg_checked(g, &r[i]);
		for (unsigned k = 0; k < 3; k++)
			if (k == 0 ? !r[i].hot : r[i].hot && (k == 1 || !arg))
				f->worst[k] = p > f->worst[k] ? p : f->worst[k];
		if (r[i].hot && arg)
			f->arg_sum += (unsigned)d;
	}
	return true;
}

/* Whether C may replace B (see the top of the file). */
static bool improves(const struct tree_fig *c, const struct tree_fig *b)
{
	for (unsigned k = 0; k < 3; k++)
		if (c->worst[k] > b->worst[k])
			return false;
	return c->size <= b->size && c->arg_sum < b->arg_sum;
}

/* The layout's search with the hot argument-checked ranges made heavy. */
static uint32_t weighted(struct dag *g, const struct range *r, size_t n, enum layout_goal goal)
{
	struct range *w = malloc(n * sizeof(*w));
	if (!w) {
		g->oom = true;
		return NODE_NONE;
	}
	memcpy(w, r, n * sizeof(*w));
	for (size_t i = 0; i < n; i++)
		if (w[i].hot && arg_checked(g, &w[i]))
			w[i].weight += ARG_WEIGHT;
	uint32_t root = layout_tree(g, w, n, goal);
	free(w);
	return root;
}

/* Whether R[I] is a hot argument-checked single number, one hoisted()
 * tests above the search. */
static bool hoistable(const struct dag *g, const struct range *r, size_t n, size_t i)
{
	uint32_t hi = i + 1 < n ? r[i + 1].lo - 1 : UINT32_MAX;
	return r[i].hot && hi == r[i].lo && arg_checked(g, &r[i]);
}

/* The hot argument-checked single numbers (HOIST_MAX at most, else none)
 * tested above the search over the other ranges. */
static uint32_t hoisted(struct dag *g, const struct range *r, size_t n, enum layout_goal goal)
{
	size_t nh = 0;
	if (n > HOIST_RANGES_MAX)
		return NODE_NONE;
	for (size_t i = 0; i < n; i++)
		nh += hoistable(g, r, n, i);
	if (nh == 0 || nh > HOIST_MAX)
		return NODE_NONE;
	struct range_vec rest = { 0 }, top = { 0 };
	uint32_t root = NODE_NONE;
	/* A hoisted number joins the range before it (the one after it when
	 * it is the first), which merges its two neighbours when they decide
	 * alike; its weight goes along. */
	for (size_t i = 0; i < n; i++) {
		bool lift = hoistable(g, r, n, i);
		if (lift && rest.n) {
			rest.v[rest.n - 1].weight += r[i].weight;
			continue;
		}
		if (lift) {
			if (!range_push(&rest, r[i].lo, r[i + 1].node, r[i].weight, true))
				goto oom;
			continue;
		}
		if (!range_push(&rest, rest.n ? r[i].lo : 0, r[i].node, r[i].weight, r[i].hot))
			goto oom;
	}
	uint32_t below = layout_tree(g, rest.v, rest.n, goal);
	if (below == NODE_NONE)
		goto out;
	/* The tests above: each hoisted number against the search below as
	 * the background, laid out by the same search (a jeq chain when that
	 * is shortest). */
	for (size_t i = 0; i < n; i++) {
		bool lift = hoistable(g, r, n, i);
		uint32_t lo = top.n ? r[i].lo : 0;
		if (!range_push(&top, lo, lift ? r[i].node : below, lift ? 1 : r[i].weight, true))
			goto oom;
	}
	root = layout_tree(g, top.v, top.n, goal);
	goto out;
oom:
	g->oom = true;
out:
	range_vec_free(&rest);
	range_vec_free(&top);
	return root;
}

uint32_t argfirst_tree(struct dag *g, const struct range *r, size_t n, enum layout_goal goal,
		       uint32_t root)
{
	struct tree_fig best;
	size_t nargs = 0;
	for (size_t i = 0; i < n; i++)
		nargs += r[i].hot && arg_checked(g, &r[i]);
	if (root == NODE_NONE || g->oom || nargs == 0 || !figures(g, root, r, n, &best))
		return root;
	uint32_t (*const make[])(struct dag *, const struct range *, size_t, enum layout_goal) = {
		weighted, hoisted,
	};
	for (size_t m = 0; m < ARRAY_SIZE(make); m++) {
		uint32_t c = make[m](g, r, n, goal);
		struct tree_fig f;
		if (g->oom)
			return NODE_NONE;
		if (c != NODE_NONE && figures(g, c, r, n, &f) && improves(&f, &best)) {
			best = f;
			root = c;
		}
	}
	return root;
}
