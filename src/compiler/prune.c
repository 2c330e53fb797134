/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Implied tests: a test whose every arriving input takes the same side is
 * correct but costs an instruction, and a step on each path through it.
 * The lowering avoids most of them by construction (each word is cut once
 * into pieces on which every condition resolves alike), but not every
 * source of a call's DAG does: the plain chain of its rules and
 * libseccomp's comparison trees test a word once per rule, and a mask test
 * that fails on a multi-bit mask (some bit set, not which) leaves a fact
 * about the word that the intervals after it do not hear of.
 *
 * So each call's DAG is walked path by path from its entry, where its
 * arguments are unconstrained, keeping for every word the exact set of
 * values that reach the node (the engine's struct wcon: an interval, fixed
 * bits and excluded cubes).  A jump of which only one side is ever reached
 * becomes that side, and the call's DAG is rebuilt without it.  The walk
 * is exact, so every implied test goes; it stops after a bound on its
 * steps (the DAG then stays as it was), which the calls of real policies
 * stay far below.  A DAG node is one instruction wherever it is reached
 * from, so what holds over every path into it holds for the instruction.
 */
#include <linux/filter.h>
#include <stdlib.h>
#include <string.h>
#include "bpf/insn.h"
#include "compiler/prune.h"
#include "engine/engine.h"

#define SEEN_T 1u
#define SEEN_F 2u
#define SEEN_V 4u	/* visited (and listed in touched) */

/* Single values a path excludes from one word at most: past them a `!=`
 * learnt is forgotten (the set kept larger than it is, which can only keep
 * a test), so that deciding whether a side is reached stays cheap on a
 * chain of thousands of values.  Masks are always kept: a path has few. */
#define PRUNE_MAX_EXCLUDED 16

/* Steps (nodes visited over all paths) per call: past this, or past
 * PRUNE_STEPS_PER_NODE per node of the call's DAG when that is more, the
 * call's DAG stays as lowered.  A tree's paths visit about log2 of its
 * nodes each, a chain's half of them: the bound lets the trees of real
 * calls through and stops a long chain's walk early. */
#define PRUNE_MIN_STEPS 1024u
#define PRUNE_STEPS_PER_NODE 4u

/* What a path knows on arriving at a node: the values each argument word
 * may have, and what the accumulator holds (word AW masked by AM). */
struct pstate {
	uint32_t node;
	uint8_t aw;
	uint32_t am;
	struct wcon w[NWORDS];
};

struct pruner {
	struct dag *g;
	uint8_t *seen;		/* per node: SEEN_* over every path of this call */
	uint32_t *map;		/* per node: its rebuilt id, NODE_NONE when not yet */
	size_t cap;		/* entries of seen and map */
	uint32_t *touched;	/* nodes whose seen or map this call set */
	size_t ntouched, captouched;
	struct pstate *stk;
	size_t nstk, capstk;
	struct wcon_arena ar;
	/* Calls already pruned: a call's DAG is entered with the same
	 * knowledge wherever it is, so its result is kept by its root (open
	 * addressing, pairs of root + 1 and result). */
	uint32_t *done;
	size_t ndone, capdone;
};

struct pruner *pruner_new(struct dag *g)
{
	struct pruner *pr = calloc(1, sizeof(*pr));
	if (pr)
		pr->g = g;
	return pr;
}

void pruner_free(struct pruner *pr)
{
	if (!pr)
		return;
	free(pr->seen);
	free(pr->map);
	free(pr->touched);
	free(pr->stk);
	free(pr->done);
	wcon_arena_free(&pr->ar);
	free(pr);
}

/* Grow PR's per-node arrays to the DAG's size; false without memory. */
static bool fit(struct pruner *pr)
{
	size_t n = pr->g->n;
	if (n <= pr->cap)
		return true;
	size_t cap = pr->cap ? pr->cap : 1024;
	while (cap < n)
		cap *= 2;
	uint8_t *seen = realloc(pr->seen, cap);
	if (!seen)
		return false;
	pr->seen = seen;
	uint32_t *map = realloc(pr->map, cap * sizeof(*map));
	if (!map)
		return false;
	pr->map = map;
	memset(pr->seen + pr->cap, 0, cap - pr->cap);
	for (size_t i = pr->cap; i < cap; i++)
		pr->map[i] = NODE_NONE;
	pr->cap = cap;
	return true;
}

static bool touch(struct pruner *pr, uint32_t id)
{
	if (pr->seen[id] & SEEN_V)
		return true;
	if (!array_reserve(&pr->touched, &pr->captouched, pr->ntouched, sizeof(*pr->touched), 64))
		return false;
	pr->seen[id] |= SEEN_V;
	pr->touched[pr->ntouched++] = id;
	return true;
}

static size_t done_slot(const struct pruner *pr, uint32_t root)
{
	size_t h = (root * 0x9e3779b1u) & (pr->capdone - 1);
	while (pr->done[2 * h] && pr->done[2 * h] != root + 1)
		h = (h + 1) & (pr->capdone - 1);
	return h;
}

/* Remember that ROOT pruned to OUT (forgotten without memory: it is pruned again when asked). */
static void done_put(struct pruner *pr, uint32_t root, uint32_t out)
{
	if ((pr->ndone + 1) * 2 > pr->capdone) {
		size_t cap = pr->capdone ? 2 * pr->capdone : 64;
		uint32_t *old = pr->done, *t = calloc(2 * cap, sizeof(*t));
		size_t oldcap = pr->capdone;
		if (!t)
			return;	/* forgotten: pruned again if asked again */
		pr->done = t;
		pr->capdone = cap;
		for (size_t i = 0; i < oldcap; i++)
			if (old[2 * i]) {
				size_t h = done_slot(pr, old[2 * i] - 1);
				pr->done[2 * h] = old[2 * i];
				pr->done[2 * h + 1] = old[2 * i + 1];
			}
		free(old);
	}
	size_t h = done_slot(pr, root);
	pr->ndone += !pr->done[2 * h];
	pr->done[2 * h] = root + 1;
	pr->done[2 * h + 1] = out;
}

static bool push(struct pruner *pr, const struct pstate *s)
{
	if (!array_reserve(&pr->stk, &pr->capstk, pr->nstk, sizeof(*pr->stk), 16))
		return false;
	pr->stk[pr->nstk++] = *s;
	return true;
}

/* The pieces of the word in A on each side of `A op k`, A being the word
 * under mask AM; false when the sides cannot be told apart as sets of the
 * word (an order test on a masked word), which then keeps both. */
static bool sides(uint8_t op, uint32_t k, uint32_t am, struct piece *t, struct piece *f)
{
	switch (op) {
	case BPF_JEQ:
		if (k & ~am) {	/* no masked value equals it */
			*t = (struct piece){ P_RANGE, 1, 0 };
			*f = (struct piece){ P_ALL, 0, 0 };
		} else {
			*t = (struct piece){ P_CUBE, am, k };
			*f = (struct piece){ P_NOT, am, k };
		}
		return true;
	case BPF_JSET:
		*t = (struct piece){ P_NOT, am & k, 0 };
		*f = (struct piece){ P_CUBE, am & k, 0 };
		return true;
	case BPF_JGE:
	case BPF_JGT:
		if (am != 0xffffffffU)
			return false;
		if (insn_jump_fixed(op, k) >= 0) {
			/* one side has every value, the other none */
			struct piece all = { P_ALL, 0, 0 }, none = { P_RANGE, 1, 0 };
			*t = insn_jump_fixed(op, k) ? all : none;
			*f = insn_jump_fixed(op, k) ? none : all;
			return true;
		}
		if (op == BPF_JGT)
			k++;
		*t = (struct piece){ P_RANGE, k, 0xffffffffU };
		*f = (struct piece){ P_RANGE, 0, k - 1 };
		return true;
	}
	return false;
}

static unsigned excluded(const struct wcon *w)
{
	unsigned n = 0;
	for (const struct ne *e = w->ne; e; e = e->next)
		n += e->m == 0xffffffffU;
	return n;
}

/* Every path of the DAG below ROOT, marking the sides each jump is taken
 * by.  1 when done, 0 when the step bound stopped it, -ENOMEM. */
static int walk(struct pruner *pr, uint32_t root, uint8_t aword, uint64_t bound)
{
	const struct dag *g = pr->g;
	struct pstate s0 = { .node = root, .aw = aword, .am = 0xffffffffU };
	uint64_t steps = 0;
	for (size_t i = 0; i < NWORDS; i++)
		s0.w[i] = wcon_all;
	pr->nstk = 0;
	if (!push(pr, &s0))
		return -ENOMEM;
	while (pr->nstk) {
		struct pstate s = pr->stk[--pr->nstk];
		if (++steps > bound)
			return 0;
		const struct node *x = dag_node(g, s.node);
		if (!touch(pr, s.node))
			return -ENOMEM;
		switch (x->kind) {
		case N_RET:
			continue;
		case N_LD:
			s.aw = (uint8_t)(x->k / 4 % NWORDS);
			s.am = 0xffffffffU;
			s.node = x->a;
			break;
		case N_AND:
			s.am &= x->k;
			s.node = x->a;
			break;
		default: {
			struct piece pc[2];
			uint32_t to[2] = { x->a, x->b };
			bool known = sides(x->op, x->k, s.am, &pc[0], &pc[1]);
			/* false side pushed first: the true side is walked first,
			 * as the program places it */
			for (int side = 1; side >= 0; side--) {
				struct pstate c = s;
				if (known && !(pc[side].kind == P_NOT && pc[side].a == 0xffffffffU &&
					       excluded(&c.w[s.aw]) >= PRUNE_MAX_EXCLUDED)) {
					int r = wcon_apply(&pr->ar, &c.w[s.aw], &pc[side]);
					if (r < 0)
						return -ENOMEM;
					if (r == 0)
						continue;
				}
				pr->seen[s.node] |= side ? SEEN_F : SEEN_T;
				c.node = to[side];
				if (!push(pr, &c))
					return -ENOMEM;
			}
			continue;
		}
		}
		if (!push(pr, &s))
			return -ENOMEM;
	}
	return 1;
}

/* ROOT's DAG again, each jump that one side alone is reached by replaced
 * by that side.  Recursive: as deep as the call's DAG. */
static uint32_t rebuild(struct pruner *pr, uint32_t id)
{
	struct dag *g = pr->g;
	if (pr->map[id] != NODE_NONE)
		return pr->map[id];
	const struct node x = *dag_node(g, id);
	uint32_t out;
	switch (x.kind) {
	case N_RET:
		out = id;
		break;
	case N_LD:
		out = dag_ld(g, x.k, rebuild(pr, x.a));
		break;
	case N_AND:
		out = dag_and(g, x.k, rebuild(pr, x.a));
		break;
	default:
		if ((pr->seen[id] & (SEEN_T | SEEN_F)) == SEEN_T)
			out = rebuild(pr, x.a);
		else if ((pr->seen[id] & (SEEN_T | SEEN_F)) == SEEN_F)
			out = rebuild(pr, x.b);
		else
			out = dag_jmp(g, x.op, x.k, rebuild(pr, x.a), rebuild(pr, x.b));
		break;
	}
	if (out == NODE_NONE)
		return NODE_NONE;
	/* Only nodes the walk reached are rebuilt, and each was touched. */
	pr->map[id] = out;
	return out;
}

static bool any_implied(const struct pruner *pr)
{
	for (size_t i = 0; i < pr->ntouched; i++) {
		uint8_t s = pr->seen[pr->touched[i]] & (SEEN_T | SEEN_F);
		if (s == SEEN_T || s == SEEN_F)
			return true;
	}
	return false;
}

static void find_mask(void *ctx, const struct dag *g, uint32_t id)
{
	const struct node *x = dag_node(g, id);
	*(bool *)ctx |= x->kind == N_AND || (x->kind == N_JMP && x->op == BPF_JSET);
}

uint32_t prune_lowered(struct pruner *pr, uint32_t root, uint32_t aoff)
{
	bool masks = false;
	if (root == NODE_NONE || pr->g->oom || dag_node(pr->g, root)->kind == N_RET)
		return root;
	dag_walk(pr->g, root, find_mask, &masks);
	return masks ? prune_call(pr, root, aoff) : root;
}

uint32_t prune_call(struct pruner *pr, uint32_t root, uint32_t aoff)
{
	struct dag *g = pr->g;
	if (root == NODE_NONE || g->oom || dag_node(g, root)->kind == N_RET)
		return root;
	if (pr->capdone) {
		size_t h = done_slot(pr, root);
		if (pr->done[2 * h])
			return pr->done[2 * h + 1];
	}
	if (!fit(pr)) {
		g->oom = true;
		return NODE_NONE;
	}
	size_t nodes = dag_reach(g, root);
	uint64_t bound = (uint64_t)nodes * PRUNE_STEPS_PER_NODE;
	if (bound < PRUNE_MIN_STEPS)
		bound = PRUNE_MIN_STEPS;
	pr->ntouched = 0;
	int r = walk(pr, root, (uint8_t)(aoff / 4 % NWORDS), bound);
	uint32_t out = root;
	if (r < 0) {
		out = NODE_NONE;
		g->oom = true;
	} else if (r > 0 && any_implied(pr)) {
		out = rebuild(pr, root);
	}
	for (size_t i = 0; i < pr->ntouched; i++) {
		pr->seen[pr->touched[i]] = 0;
		pr->map[pr->touched[i]] = NODE_NONE;
	}
	if (out != NODE_NONE)
		done_put(pr, root, out);
	return out;
}
