/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Lowering: the policy's rules become a decision DAG over 32-bit words.
 *
 * cBPF loads 32 bits at a time, so every argument is two variables, its
 * high and its low half, tested in a fixed order (arg0.hi, arg0.lo,
 * arg1.hi, ...).  A 64-bit condition is resolved in two steps: the high
 * half decides it outright (true or false) or leaves a residual test on the
 * low half.  At each variable the domain is cut into the intervals on which
 * every pending condition resolves the same way; each interval's residual
 * problem is lowered recursively and the intervals become a search tree
 * (layout.c).  This one mechanism gives the classic optimisations:
 *  - a half that no condition constrains is never loaded (mask 0, 32-bit
 *    conditions, or a high half that already decided);
 *  - a set of values on one argument is a binary search, not a chain;
 *  - a test whose outcome is already known is dropped.
 * Masks that do not describe an interval (x & m == d with holes in m) get
 * a test of their own: `jset` when it can leave A intact, `and` + `jeq`
 * otherwise, after which the word is reloaded if needed.
 *
 * Rules are ordered by precedence (most restrictive first), so the first
 * rule found satisfied decides and rules below it no longer matter.
 */
#include <linux/filter.h>
#include <stdlib.h>
#include <string.h>
#include "layout.h"
#include "lower.h"

enum { ST_PENDING, ST_RESID, ST_TRUE, ST_FALSE };
enum { OUT_FALSE, OUT_TRUE, OUT_RESID };

struct lcond {
	uint8_t arg;
	uint8_t op;
	bool wide;		/* 64-bit: the high half takes part */
	uint64_t value, value2;
};

struct lterm {
	uint32_t action;
	uint32_t rule;
	uint32_t first, n;	/* its conditions in ctx.conds */
};

struct lctx {
	struct dag *g;
	enum layout_goal goal;
	uint32_t fallback;
	struct lterm *terms;
	size_t nterms;
	struct lcond *conds;
	size_t nconds;
};

struct piece {
	uint32_t lo;
	uint8_t out;
};

static unsigned var_of(const struct lcond *c, uint8_t st)
{
	return 2u * c->arg + ((c->wide && st == ST_PENDING) ? 0u : 1u);
}

static uint32_t var_offset(unsigned var)
{
	/* Little-endian seccomp_data: the low word of args[i] comes first. */
	return 16u + 8u * (var / 2) + ((var % 2 == 0) ? 4u : 0u);
}

/* Outcome of `x op c` over 32-bit x as up to three pieces. */
static size_t cmp_pieces(uint8_t op, uint32_t c, uint8_t t, uint8_t f, struct piece *out)
{
	size_t n = 0;
#define PUT(l, o) (out[n++] = (struct piece){ (l), (o) })
	switch (op) {
	case SCMPC_OP_EQ:
	case SCMPC_OP_NE: {
		uint8_t in = op == SCMPC_OP_EQ ? t : f, ex = op == SCMPC_OP_EQ ? f : t;
		if (c > 0)
			PUT(0, ex);
		PUT(c, in);
		if (c < UINT32_MAX)
			PUT(c + 1, ex);
		break;
	}
	case SCMPC_OP_LT:
		if (c > 0)
			PUT(0, t);
		PUT(c, f);
		break;
	case SCMPC_OP_LE:
		PUT(0, t);
		if (c < UINT32_MAX)
			PUT(c + 1, f);
		break;
	case SCMPC_OP_GT:
		PUT(0, f);
		if (c < UINT32_MAX)
			PUT(c + 1, t);
		break;
	case SCMPC_OP_GE:
		if (c > 0)
			PUT(0, f);
		PUT(c, t);
		break;
	}
#undef PUT
	return n;
}

/* Is {x : (x & m) == d} an interval?  Yes when m's set bits are all above
 * its clear bits. */
static bool mask_is_interval(uint32_t m)
{
	uint32_t inv = ~m;
	return (inv & (inv + 1)) == 0;
}

static size_t mask_pieces(uint32_t m, uint32_t d, uint8_t in, struct piece *out)
{
	uint32_t first = d, last = d | ~m;
	size_t n = 0;
	if (first > 0)
		out[n++] = (struct piece){ 0, OUT_FALSE };
	out[n++] = (struct piece){ first, in };
	if (last < UINT32_MAX)
		out[n++] = (struct piece){ last + 1, OUT_FALSE };
	return n;
}

/* The half of the mask/datum a MASKED_EQ condition tests at its variable. */
static void mask_half(const struct lcond *c, uint8_t st, uint32_t *m, uint32_t *d)
{
	bool hi = c->wide && st == ST_PENDING;
	*m = (uint32_t)(hi ? c->value >> 32 : c->value);
	*d = (uint32_t)(hi ? c->value2 >> 32 : c->value2);
}

/* What a condition resolves to on its current variable, as pieces of the
 * 32-bit domain.  Returns 0 when it needs a mask test instead. */
static size_t cond_pieces(const struct lcond *c, uint8_t st, struct piece *out)
{
	bool hi = c->wide && st == ST_PENDING;
	if (c->op == SCMPC_OP_MASKED_EQ) {
		uint32_t m, d;
		mask_half(c, st, &m, &d);
		/* Passing the high half leaves the low half to test, unless its
		 * mask is empty (then its datum is 0: checked at setup). */
		uint8_t in = hi && (uint32_t)c->value != 0 ? OUT_RESID : OUT_TRUE;
		if (!mask_is_interval(m))
			return 0;
		return mask_pieces(m, d, in, out);
	}
	if (!hi)
		return cmp_pieces(c->op, (uint32_t)c->value, OUT_TRUE, OUT_FALSE, out);

	/* High half of a 64-bit comparison: above/below the constant's high half
	 * decides; equal leaves the low half, unless that is trivial. */
	uint32_t ch = (uint32_t)(c->value >> 32), cl = (uint32_t)c->value;
	uint8_t below, equal, above;
	switch (c->op) {
	case SCMPC_OP_EQ: below = OUT_FALSE; equal = OUT_RESID; above = OUT_FALSE; break;
	case SCMPC_OP_NE: below = OUT_TRUE; equal = OUT_RESID; above = OUT_TRUE; break;
	case SCMPC_OP_LT:
		below = OUT_TRUE; above = OUT_FALSE;
		equal = cl == 0 ? OUT_FALSE : OUT_RESID;
		break;
	case SCMPC_OP_LE:
		below = OUT_TRUE; above = OUT_FALSE;
		equal = cl == UINT32_MAX ? OUT_TRUE : OUT_RESID;
		break;
	case SCMPC_OP_GT:
		below = OUT_FALSE; above = OUT_TRUE;
		equal = cl == UINT32_MAX ? OUT_FALSE : OUT_RESID;
		break;
	default: /* GE */
		below = OUT_FALSE; above = OUT_TRUE;
		equal = cl == 0 ? OUT_TRUE : OUT_RESID;
		break;
	}
	size_t n = 0;
	if (ch > 0)
		out[n++] = (struct piece){ 0, below };
	out[n++] = (struct piece){ ch, equal };
	if (ch < UINT32_MAX)
		out[n++] = (struct piece){ ch + 1, above };
	return n;
}

static uint8_t apply_out(uint8_t out)
{
	return out == OUT_TRUE ? ST_TRUE : out == OUT_FALSE ? ST_FALSE : ST_RESID;
}

static bool term_dead(const struct lctx *c, const uint8_t *st, size_t t)
{
	for (uint32_t i = 0; i < c->terms[t].n; i++)
		if (st[c->terms[t].first + i] == ST_FALSE)
			return true;
	return false;
}

static bool term_sat(const struct lctx *c, const uint8_t *st, size_t t)
{
	for (uint32_t i = 0; i < c->terms[t].n; i++)
		if (st[c->terms[t].first + i] != ST_TRUE)
			return false;
	return true;
}

/* Marks in REL the terms that can still change the outcome; returns the
 * outcome if none of them matches. */
static uint32_t relevant_terms(const struct lctx *c, const uint8_t *st, bool *rel, bool *any)
{
	uint32_t result = c->fallback;
	size_t sat = c->nterms;
	for (size_t t = 0; t < c->nterms; t++) {
		if (!term_dead(c, st, t) && term_sat(c, st, t)) {
			sat = t;
			result = c->terms[t].action;
			break;
		}
	}
	*any = false;
	for (size_t t = 0; t < c->nterms; t++) {
		rel[t] = t < sat && !term_dead(c, st, t) && c->terms[t].action != result;
		*any |= rel[t];
	}
	return result;
}

static uint32_t build(struct lctx *c, const uint8_t *st, int held);

static uint32_t build_mask_test(struct lctx *c, const uint8_t *st, const bool *rel,
				size_t which, unsigned var, int held)
{
	uint32_t m, d;
	mask_half(&c->conds[which], st[which], &m, &d);
	uint8_t *in = malloc(2 * c->nconds), *out;
	if (!in) {
		c->g->oom = true;
		return NODE_NONE;
	}
	out = in + c->nconds;
	memcpy(in, st, c->nconds);
	memcpy(out, st, c->nconds);
	/* Every pending condition with the same half-mask test resolves too. */
	for (size_t t = 0; t < c->nterms; t++) {
		if (!rel[t])
			continue;
		for (uint32_t i = 0; i < c->terms[t].n; i++) {
			size_t ci = c->terms[t].first + i;
			const struct lcond *lc = &c->conds[ci];
			uint32_t m2, d2;
			if (lc->op != SCMPC_OP_MASKED_EQ || st[ci] >= ST_TRUE || var_of(lc, st[ci]) != var)
				continue;
			mask_half(lc, st[ci], &m2, &d2);
			if (m2 != m || d2 != d)
				continue;
			bool hi = lc->wide && st[ci] == ST_PENDING;
			in[ci] = hi && (uint32_t)lc->value != 0 ? ST_RESID : ST_TRUE;
			out[ci] = ST_FALSE;
		}
	}
	uint32_t node;
	bool keeps_a = d == 0 || (m & (m - 1)) == 0;
	int after = keeps_a ? (int)var : -1;
	uint32_t tin = build(c, in, after), tout = build(c, out, after);
	if (d == 0)		/* in the set iff no bit of m is set */
		node = dag_jmp(c->g, BPF_JSET, m, tout, tin);
	else if (keeps_a)	/* single bit that must be set */
		node = dag_jmp(c->g, BPF_JSET, m, tin, tout);
	else
		node = dag_and(c->g, m, dag_jmp(c->g, BPF_JEQ, d, tin, tout));
	free(in);
	return held == (int)var ? node : dag_ld(c->g, var_offset(var), node);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

static uint32_t build_partition(struct lctx *c, const uint8_t *st, const bool *rel,
				unsigned var, int held)
{
	/* Collect every cut point of the pending conditions on VAR. */
	size_t cap = 1, nb = 0;
	for (size_t t = 0; t < c->nterms; t++)
		if (rel[t])
			cap += 3 * c->terms[t].n;
	uint32_t *cuts = malloc(cap * sizeof(*cuts));
	uint8_t *child = malloc(c->nconds ? c->nconds : 1);
	struct range_vec rv = { 0 };
	uint32_t node = NODE_NONE;
	if (!cuts || !child)
		goto out;
	cuts[nb++] = 0;
	for (size_t t = 0; t < c->nterms; t++) {
		if (!rel[t])
			continue;
		for (uint32_t i = 0; i < c->terms[t].n; i++) {
			size_t ci = c->terms[t].first + i;
			struct piece pc[3];
			if (st[ci] >= ST_TRUE || var_of(&c->conds[ci], st[ci]) != var)
				continue;
			size_t np = cond_pieces(&c->conds[ci], st[ci], pc);
			for (size_t k = 0; k < np; k++)
				if (pc[k].lo)
					cuts[nb++] = pc[k].lo;
		}
	}
	qsort(cuts, nb, sizeof(*cuts), cmp_u32);
	size_t u = 0;
	for (size_t i = 0; i < nb; i++)
		if (i == 0 || cuts[i] != cuts[u - 1])
			cuts[u++] = cuts[i];
	nb = u;

	for (size_t b = 0; b < nb; b++) {
		memcpy(child, st, c->nconds);
		for (size_t t = 0; t < c->nterms; t++) {
			if (!rel[t])
				continue;
			for (uint32_t i = 0; i < c->terms[t].n; i++) {
				size_t ci = c->terms[t].first + i;
				struct piece pc[3];
				if (st[ci] >= ST_TRUE || var_of(&c->conds[ci], st[ci]) != var)
					continue;
				size_t np = cond_pieces(&c->conds[ci], st[ci], pc);
				size_t k = 0;
				while (k + 1 < np && pc[k + 1].lo <= cuts[b])
					k++;
				child[ci] = apply_out(pc[k].out);
			}
		}
		uint32_t sub = build(c, child, (int)var);
		if (sub == NODE_NONE || !range_push(&rv, cuts[b], sub, 1, true))
			goto out;
	}
	node = layout_tree(c->g, rv.v, rv.n, c->goal);
	if (node != NODE_NONE && held != (int)var)
		node = dag_ld(c->g, var_offset(var), node);
out:
	if (node == NODE_NONE)
		c->g->oom = true;
	range_vec_free(&rv);
	free(cuts);
	free(child);
	return node;
}

static uint32_t build(struct lctx *c, const uint8_t *st, int held)
{
	if (!dag_charge(c->g, c->nterms + c->nconds + 1))
		return NODE_NONE;
	bool *rel = malloc(c->nterms ? c->nterms : 1), any;
	uint32_t node = NODE_NONE;
	if (!rel) {
		c->g->oom = true;
		return NODE_NONE;
	}
	uint32_t result = relevant_terms(c, st, rel, &any);
	if (!any) {
		node = dag_ret(c->g, result);
		goto out;
	}

	/* The lowest variable any relevant term still waits on. */
	unsigned var = UINT32_MAX;
	for (size_t t = 0; t < c->nterms; t++) {
		if (!rel[t])
			continue;
		for (uint32_t i = 0; i < c->terms[t].n; i++) {
			size_t ci = c->terms[t].first + i;
			if (st[ci] < ST_TRUE && var_of(&c->conds[ci], st[ci]) < var)
				var = var_of(&c->conds[ci], st[ci]);
		}
	}
	for (size_t t = 0; t < c->nterms; t++) {
		if (!rel[t])
			continue;
		for (uint32_t i = 0; i < c->terms[t].n; i++) {
			size_t ci = c->terms[t].first + i;
			struct piece pc[3];
			if (st[ci] < ST_TRUE && var_of(&c->conds[ci], st[ci]) == var &&
			    cond_pieces(&c->conds[ci], st[ci], pc) == 0) {
				node = build_mask_test(c, st, rel, ci, var, held);
				goto out;
			}
		}
	}
	node = build_partition(c, st, rel, var, held);
out:
	free(rel);
	return node;
}

static int cmp_terms(const void *a, const void *b)
{
	const struct lterm *x = a, *y = b;
	int r = scmpc_action_cmp(x->action, y->action);
	return r ? r : (x->rule > y->rule) - (x->rule < y->rule);
}

/* Fold what can be decided before any load: 32-bit conditions on constants
 * no 32-bit value reaches, and masks that contradict their datum. */
static uint8_t initial_state(struct lcond *lc)
{
	if (lc->op == SCMPC_OP_MASKED_EQ) {
		if (lc->value2 & ~lc->value)
			return ST_FALSE;
		if (!lc->wide && (lc->value2 >> 32))
			return ST_FALSE;
		if (lc->value == 0 || (!lc->wide && (uint32_t)lc->value == 0))
			return ST_TRUE;
		if (lc->wide && (uint32_t)(lc->value >> 32) == 0)
			lc->wide = false;	/* the high half is masked away */
		return ST_PENDING;
	}
	if (!lc->wide && lc->value > UINT32_MAX) {
		switch (lc->op) {
		case SCMPC_OP_EQ: case SCMPC_OP_GT: case SCMPC_OP_GE: return ST_FALSE;
		default: return ST_TRUE;
		}
	}
	return ST_PENDING;
}

uint32_t lower_syscall(struct dag *g, const scmpc_policy *p, const struct arch_view *v,
		       size_t lo, size_t hi, bool compact)
{
	struct lctx c = { .g = g, .fallback = p->def_action,
			  .goal = compact ? LAYOUT_ARGS_COMPACT : LAYOUT_ARGS };
	size_t ncond = 0;
	uint32_t node = NODE_NONE;
	uint8_t *st = NULL;

	for (size_t i = lo; i < hi; i++)
		ncond += p->rules[v->rs[i].rule].nconds;
	c.terms = malloc((hi - lo) * sizeof(*c.terms));
	c.conds = malloc((ncond ? ncond : 1) * sizeof(*c.conds));
	st = malloc(ncond ? ncond : 1);
	if (!c.terms || !c.conds || !st) {
		g->oom = true;
		goto out;
	}
	for (size_t i = lo; i < hi; i++) {
		const struct rule *r = &p->rules[v->rs[i].rule];
		c.terms[c.nterms++] = (struct lterm){ r->action, v->rs[i].rule, 0, (uint32_t)r->nconds };
	}
	qsort(c.terms, c.nterms, sizeof(*c.terms), cmp_terms);
	for (size_t t = 0; t < c.nterms; t++) {
		const struct rule *r = &p->rules[c.terms[t].rule];
		c.terms[t].first = (uint32_t)c.nconds;
		for (size_t k = 0; k < r->nconds; k++) {
			const struct scmpc_cond *sc = &r->conds[k];
			struct lcond *lc = &c.conds[c.nconds];
			bool wide = !v->info->compat32 && !(sc->flags & SCMPC_COND_32BIT);
			*lc = (struct lcond){ (uint8_t)sc->arg, (uint8_t)sc->op, wide, sc->value,
					      sc->value2 };
			/* A 32-bit mask only sees the low half of a wide mask. */
			if (!wide && sc->op == SCMPC_OP_MASKED_EQ)
				lc->value &= UINT32_MAX;
			st[c.nconds] = initial_state(lc);
			c.nconds++;
		}
	}
	node = build(&c, st, -1);
out:
	free(c.terms);
	free(c.conds);
	free(st);
	return node;
}

/* ---------------------------------------------------------- number trees */

#define X32_BIT 0x40000000U

/* One part of the number space of an AUDIT_ARCH value and who decides it. */
struct segment {
	uint32_t lo, hi;
	const struct arch_view *v;	/* NULL: the bad-arch action */
};

/* Where the fallback of V may change inside [lo, hi]. */
static void fallback_cuts(const struct arch_view *v, uint32_t lo, uint32_t hi, uint32_t *cuts,
			  size_t *n)
{
	uint32_t cand[3] = { v->threshold + 1, 0x0f0000, 0x0f0800 };
	*n = 0;
	cuts[(*n)++] = lo;
	for (size_t i = 0; i < 3; i++) {
		if (i == 0 && v->threshold == UINT32_MAX)
			continue;
		if (i > 0 && v->arch != SCMPC_ARCH_ARM)
			continue;
		if (cand[i] > lo && cand[i] <= hi)
			cuts[(*n)++] = cand[i];
	}
	qsort(cuts, *n, sizeof(*cuts), cmp_u32);
}

static bool push_range(struct dag *g, struct range_vec *rv, uint32_t lo, uint32_t hi,
		       uint32_t node, uint32_t hot_lo)
{
	uint64_t a = lo > hot_lo ? lo : hot_lo, b = (uint64_t)hot_lo + 1023;
	if (hi < b)
		b = hi;
	uint32_t w = a <= b ? (uint32_t)(b - a + 1) : 0;
	if (node == NODE_NONE || !range_push(rv, lo, node, w, w > 0)) {
		g->oom = true;
		return false;
	}
	return true;
}

static bool push_gap(struct dag *g, const scmpc_policy *p, const struct arch_view *v,
		     struct range_vec *rv, uint32_t lo, uint32_t hi, uint32_t hot_lo)
{
	uint32_t cuts[4];
	size_t n;
	fallback_cuts(v, lo, hi, cuts, &n);
	for (size_t i = 0; i < n; i++) {
		uint32_t end = i + 1 < n ? cuts[i + 1] - 1 : hi;
		if (!push_range(g, rv, cuts[i], end, dag_ret(g, arch_view_fallback(p, v, cuts[i])),
				hot_lo))
			return false;
	}
	return true;
}

/* The lowered decision of one syscall, unless the plain chain of its rules
 * is smaller: masks that span both halves of a word, or conditions on
 * several arguments, can make every subset of rules a separate subtree. */
static uint32_t syscall_node(struct dag *g, const scmpc_policy *p, const struct arch_view *v,
			     size_t lo, size_t hi, bool compact)
{
	uint32_t opt = lower_syscall(g, p, v, lo, hi, compact);
	bool conds = false;
	for (size_t i = lo; i < hi; i++)
		conds |= p->rules[v->rs[i].rule].nconds > 0;
	if (opt == NODE_NONE || !conds)
		return opt;
	uint32_t chain = lower_naive_syscall(g, p, v, lo, hi);
	if (chain == NODE_NONE)
		return NODE_NONE;
	return dag_reach(g, chain) < dag_reach(g, opt) ? chain : opt;
}

static uint32_t number_tree(struct dag *g, const scmpc_policy *p, const struct segment *segs,
			    size_t nseg, uint32_t hot_lo, bool compact)
{
	struct range_vec rv = { 0 };
	uint32_t root = NODE_NONE;

	for (size_t s = 0; s < nseg; s++) {
		const struct segment *sg = &segs[s];
		if (!sg->v) {
			if (!push_range(g, &rv, sg->lo, sg->hi, dag_ret(g, p->badarch_action), hot_lo))
				goto out;
			continue;
		}
		const struct arch_view *v = sg->v;
		uint32_t next = sg->lo;
		size_t i = 0, j;
		arch_view_find(v, sg->lo, &i, &j);
		for (; i < v->nrs && v->rs[i].nr <= sg->hi; i = j) {
			uint32_t nr = v->rs[i].nr;
			for (j = i; j < v->nrs && v->rs[j].nr == nr; j++)
				;
			if (nr > next && !push_gap(g, p, v, &rv, next, nr - 1, hot_lo))
				goto out;
			if (!push_range(g, &rv, nr, nr, syscall_node(g, p, v, i, j, compact), hot_lo))
				goto out;
			if (nr == sg->hi)
				goto next_segment;
			next = nr + 1;
		}
		if (!push_gap(g, p, v, &rv, next, sg->hi, hot_lo))
			goto out;
next_segment:;
	}
	/* nr == -1 is a tracer skipping the call: the default, on every ABI. */
	if (!push_range(g, &rv, UINT32_MAX, UINT32_MAX, dag_ret(g, p->def_action), hot_lo))
		goto out;
	root = layout_tree(g, rv.v, rv.n, LAYOUT_NUMBERS);
out:
	range_vec_free(&rv);
	return root;
}

static const struct arch_view *find_view(const struct arch_view *views, size_t n,
					 enum scmpc_arch a)
{
	for (size_t i = 0; i < n; i++)
		if (views[i].arch == a)
			return &views[i];
	return NULL;
}

int64_t lower_policy(struct dag *g, const scmpc_policy *p, struct arch_view *views,
		     bool compact, scmpc_diag *d)
{
	/* One section per AUDIT_ARCH value, in the policy's order. */
	uint32_t audits[SCMPC_ARCH_COUNT], sections[SCMPC_ARCH_COUNT];
	size_t naudit = 0;

	for (size_t i = 0; i < p->narches; i++) {
		const struct arch_info *ai = arch_info(p->arches[i]);
		bool seen = false;
		for (size_t k = 0; k < naudit; k++)
			seen |= audits[k] == ai->audit;
		if (seen)
			continue;

		struct segment segs[2];
		size_t nseg = 0;
		uint32_t hot_lo = 0;
		if (ai->audit == arch_info(SCMPC_ARCH_X86_64)->audit) {
			/* x32 numbers carry bit 30; every number from there up
			 * belongs to x32 (or, without x32 rules, to a foreign
			 * ABI), as in libseccomp.  -1 gets the default. */
			const struct arch_view *v64 = find_view(views, p->narches, SCMPC_ARCH_X86_64);
			const struct arch_view *v32 = find_view(views, p->narches, SCMPC_ARCH_X32);
			if (!v64)
				hot_lo = X32_BIT;	/* x32 alone: its numbers are the hot ones */
			segs[nseg++] = (struct segment){ 0, X32_BIT - 1, v64 };
			segs[nseg++] = (struct segment){ X32_BIT, 0xfffffffeU, v32 };
		} else {
			segs[nseg++] = (struct segment){ 0, 0xfffffffeU, &views[i] };
		}
		uint32_t tree = number_tree(g, p, segs, nseg, hot_lo, compact);
		if (tree == NODE_NONE)
			break;
		audits[naudit] = ai->audit;
		sections[naudit++] = tree;
	}
	if (g->too_big)
		return diag_err(d, -E2BIG, NULL,
				"the policy is too complex: its decisions outgrow what a program "
				"of at most 4096 instructions can hold");
	if (g->oom)
		return diag_err(d, -ENOMEM, NULL, "out of memory");

	uint32_t chain = dag_ret(g, p->badarch_action);
	for (size_t k = naudit; k-- > 0;)
		chain = dag_jmp(g, BPF_JEQ, audits[k], dag_ld(g, 0, sections[k]), chain);
	chain = dag_ld(g, 4, chain);
	if (chain == NODE_NONE)
		return diag_err(d, -ENOMEM, NULL, "out of memory");
	return chain;
}
