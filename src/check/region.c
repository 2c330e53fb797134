/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Regions of calls and the tests that cut them (judge.h).  A rule's
 * condition compares a 64-bit argument; the program, the engine and so a
 * region see 32-bit words.  Each test is therefore written here as its two
 * sides, each a disjoint union of conjunctions of word pieces, exactly the
 * set of calls where the test holds or fails: the meaning of cond_holds()
 * and of lsc_tree.c's holds(), in pieces the engine's sets can take.
 */
#include <string.h>
#include "check/judge.h"

#define ALL32 0xffffffffU

static void add(struct side *s, uint8_t wh, struct piece ph, uint8_t wl, struct piece pl)
{
	struct conj *c = &s->c[s->n++];
	c->n = 0;
	if (ph.kind != P_ALL) {
		c->word[c->n] = wh;
		c->p[c->n++] = ph;
	}
	if (pl.kind != P_ALL) {
		c->word[c->n] = wl;
		c->p[c->n++] = pl;
	}
}

static struct piece range(uint32_t a, uint32_t b)
{
	return (struct piece){ P_RANGE, a, b };
}
static struct piece cube(uint32_t m, uint32_t v)
{
	return (struct piece){ P_CUBE, m, v };
}
static struct piece not(uint32_t m, uint32_t v)
{
	return (struct piece){ P_NOT, m, v };
}
static const struct piece all = { P_ALL, 0, 0 };

/* x > V (STRICT) or x >= V over the 64-bit value (high word H, low word
 * L): high word above, or equal and the low word above. */
static void above(struct side *s, uint8_t H, uint8_t L, uint64_t V, bool strict)
{
	uint32_t vh = (uint32_t)(V >> 32), vl = (uint32_t)V;
	if (vh < ALL32)
		add(s, H, range(vh + 1, ALL32), L, all);
	if (!strict)
		add(s, H, range(vh, vh), L, range(vl, ALL32));
	else if (vl < ALL32)
		add(s, H, range(vh, vh), L, range(vl + 1, ALL32));
}

/* x < V (STRICT) or x <= V. */
static void below(struct side *s, uint8_t H, uint8_t L, uint64_t V, bool strict)
{
	uint32_t vh = (uint32_t)(V >> 32), vl = (uint32_t)V;
	if (vh > 0)
		add(s, H, range(0, vh - 1), L, all);
	if (!strict)
		add(s, H, range(vh, vh), L, range(0, vl));
	else if (vl > 0)
		add(s, H, range(vh, vh), L, range(0, vl - 1));
}

/* A 32-bit comparison sees the high word as 0: each conjunction's high
 * piece is then true (dropped) or false (the conjunction with it). */
static bool holds_at_zero(const struct piece *p)
{
	switch (p->kind) {
	case P_RANGE: return p->a == 0;
	case P_CUBE: return p->b == 0;
	case P_NOT: return p->b != 0;
	default: return true;
	}
}

/* Drop word H from every conjunction of S, keeping those whose pieces on H hold at zero: a 32-bit
 * comparison reads the high word as 0. */
static void narrow(struct side *s, uint8_t H)
{
	size_t k = 0;
	for (size_t i = 0; i < s->n; i++) {
		struct conj c = s->c[i];
		bool keep = true;
		struct conj o = { 0 };
		for (uint8_t j = 0; j < c.n; j++) {
			if (c.word[j] != H) {
				o.word[o.n] = c.word[j];
				o.p[o.n++] = c.p[j];
			} else if (!holds_at_zero(&c.p[j])) {
				keep = false;
			}
		}
		if (keep)
			s->c[k++] = o;
	}
	s->n = k;
}

void cond_sides(const struct scmpc_cond *c, const struct arch_info *ai, struct side *t,
		struct side *f)
{
	uint8_t H = (uint8_t)(arch_arg_offset(ai, c->arg, true) / 4);
	uint8_t L = (uint8_t)(arch_arg_offset(ai, c->arg, false) / 4);
	uint64_t V = c->value;
	uint32_t vh = (uint32_t)(V >> 32), vl = (uint32_t)V;
	t->n = f->n = 0;
	switch (c->op) {
	case SCMPC_OP_EQ:
	case SCMPC_OP_NE: {
		struct side *eq = c->op == SCMPC_OP_EQ ? t : f, *ne = c->op == SCMPC_OP_EQ ? f : t;
		add(eq, H, range(vh, vh), L, range(vl, vl));
		add(ne, H, not(ALL32, vh), L, all);
		add(ne, H, range(vh, vh), L, not(ALL32, vl));
		break;
	}
	case SCMPC_OP_GT: above(t, H, L, V, true); below(f, H, L, V, false); break;
	case SCMPC_OP_GE: above(t, H, L, V, false); below(f, H, L, V, true); break;
	case SCMPC_OP_LT: below(t, H, L, V, true); above(f, H, L, V, false); break;
	case SCMPC_OP_LE: below(t, H, L, V, false); above(f, H, L, V, true); break;
	case SCMPC_OP_MASKED_EQ: {
		uint64_t M = V, D = c->value2;
		if (D & ~M) {
			/* a datum bit outside the mask: never equal */
			add(f, H, all, L, all);
			break;
		}
		uint32_t mh = (uint32_t)(M >> 32), ml = (uint32_t)M;
		uint32_t dh = (uint32_t)(D >> 32), dl = (uint32_t)D;
		add(t, H, cube(mh, dh), L, cube(ml, dl));
		/* P_NOT of an empty mask is empty, as (w & 0) != 0 is */
		add(f, H, not(mh, dh), L, all);
		add(f, H, cube(mh, dh), L, not(ml, dl));
		break;
	}
	default:
		/* no such operator: policy_eval's cond_holds() is false */
		add(f, H, all, L, all);
		break;
	}
	if (ai->compat32 || (c->flags & SCMPC_COND_32BIT)) {
		narrow(t, H);
		narrow(f, H);
	}
}

/* (w & M) > D, D within M, as cubes: w's bits under M above some bit b
 * of M equal D's, b set where D has it clear.  With EQ also (w & M) == D;
 * LESS gives the other side, (w & M) < D, the same way. */
static void masked_order(struct side *s, uint8_t W, uint32_t M, uint32_t D, bool less, bool eq)
{
	if (eq)
		add(s, W, cube(M, D), W, all);
	for (int b = 31; b >= 0; b--) {
		uint32_t bit = 1U << b;
		if (!(M & bit) || !!(D & bit) != less)
			continue;
		uint32_t hi = M & ~(bit - 1);	/* M's bits from b up */
		add(s, W, cube(hi, ((D & hi) & ~bit) | (less ? 0 : bit)), W, all);
	}
}

bool cmp_sides(const struct lsc_cmp *x, const struct arch_info *ai, struct side *t,
	       struct side *f)
{
	uint8_t W = (uint8_t)(arch_arg_offset(ai, x->arg, x->hi) / 4);
	uint32_t M = x->mask, D = x->datum;
	t->n = f->n = 0;
	if (x->op == BPF_JEQ) {
		if (D & ~M) {
			add(f, W, all, W, all);
			return true;
		}
		add(t, W, cube(M, D), W, all);
		add(f, W, not(M, D), W, all);
		return true;
	}
	bool gt = x->op == BPF_JGT;
	if (M == ALL32) {
		/* the word itself: ranges */
		if (gt) {
			if (D < ALL32)
				add(t, W, range(D + 1, ALL32), W, all);
			add(f, W, range(0, D), W, all);
		} else {
			add(t, W, range(D, ALL32), W, all);
			if (D > 0)
				add(f, W, range(0, D - 1), W, all);
		}
		return true;
	}
	if (D & ~M)
		return false;
	masked_order(t, W, M, D, false, !gt);
	masked_order(f, W, M, D, true, gt);
	return true;
}

bool conj_meets(const struct region *r, const struct conj *c)
{
	for (uint8_t j = 0; j < c->n; j++)
		if (!wcon_meets(&r->w[c->word[j]], &c->p[j]))
			return false;
	return true;
}

int conj_cut(struct wcon_arena *ar, const struct region *r, const struct conj *c,
	     struct region *out)
{
	if (out != r)
		memcpy(out, r, sizeof(*out));
	for (uint8_t j = 0; j < c->n; j++) {
		int k = wcon_apply(ar, &out->w[c->word[j]], &c->p[j]);
		if (k <= 0)
			return k;
	}
	return 1;
}
