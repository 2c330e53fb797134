/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Lowering: the policy's rules become a decision DAG over 32-bit words.
 *
 * cBPF loads 32 bits at a time, so every argument is two variables, its
 * high and its low half, tested in a fixed order (arg0.hi, arg0.lo,
 * arg1.hi, ...).  A 64-bit condition is resolved in two steps: the high
 * half decides it outright (true or false) or leaves a residual test on the
 * low half.  Laid out for size (LOWER_COMPACT_LOFIRST), an argument whose
 * 64-bit conditions are all equalities (==, !=, masked ==) is tested low
 * half first instead: each half of an equality is a test of its own, and
 * the high half, nearly always the same for every value (0), then comes
 * last, where the DAG shares it as one tail among all the values and calls
 * that end in it, instead of repeating it in front of each.
 *
 * At each variable the domain is cut into the intervals on which
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
#include "compiler/layout.h"
#include "compiler/lower.h"
#include "policy/lsc_tree.h"

enum { ST_PENDING, ST_RESID, ST_TRUE, ST_FALSE };
enum { OUT_FALSE, OUT_TRUE, OUT_RESID };

struct lcond {
	uint8_t arg;
	uint8_t op;
	bool wide;		/* 64-bit: the high half takes part */
	bool lofirst;		/* its argument is tested low half first */
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
	const struct arch_info *ai;	/* where the argument words sit */
	bool lofirst[6];		/* per argument: low half first */
};

/* One residual problem: the terms that can still decide, in precedence
 * order, their conditions and where each condition stands.  Children of a
 * test get their own, holding only what is still alive on their side. */
struct lprob {
	uint32_t fallback;	/* the outcome when no term matches */
	struct lterm *terms;
	size_t nterms;
	struct lcond *conds;
	uint8_t *st;
	size_t nconds;
	/* Bits of variable kvar (-1: none) that mask tests on the way here
	 * have fixed: a later test on it that they decide is no test, and a
	 * piece of its domain they exclude is no piece. */
	int kvar;
	uint32_t ones, zeros;
};

struct piece {
	uint32_t lo;
	uint8_t out;
};

/* Whether the condition's next test is on its high half: the first of a
 * 64-bit condition's two tests, or the second when the low half goes
 * first. */
static bool tests_hi(const struct lcond *c, uint8_t st)
{
	return c->wide && (st == ST_PENDING) != c->lofirst;
}

/* Passing the first half of a 64-bit mask leaves the other half to test,
 * unless its mask is empty (then its datum is 0: checked at setup). */
static uint8_t mask_pass(const struct lcond *c, uint8_t st)
{
	uint32_t other = (uint32_t)(c->lofirst ? c->value >> 32 : c->value);
	return c->wide && st == ST_PENDING && other != 0 ? OUT_RESID : OUT_TRUE;
}

/* Variable 2i is the half of args[i] tested first, 2i + 1 the other. */
static unsigned var_of(const struct lcond *c, uint8_t st)
{
	return 2u * c->arg + (tests_hi(c, st) == c->lofirst ? 1u : 0u);
}

static uint32_t var_offset(const struct lctx *c, unsigned var)
{
	return arch_arg_offset(c->ai, var / 2, (var % 2 == 0) != c->lofirst[var / 2]);
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
	bool hi = tests_hi(c, st);
	*m = (uint32_t)(hi ? c->value >> 32 : c->value);
	*d = (uint32_t)(hi ? c->value2 >> 32 : c->value2);
}

/* Whether some x in [A, B] has every bit of ONES set and none of ZEROS.
 * The least such x >= A keeps A's bits above some position i, where A has
 * a 0 and x a 1, and only ONES below it (or is A itself): the lowest i
 * whose prefix of A is allowed gives it. */
static bool bits_fit(uint32_t a, uint32_t b, uint32_t ones, uint32_t zeros)
{
	if ((a & ones) == ones && (a & zeros) == 0)
		return true;
	for (unsigned i = 0; i < 32; i++) {
		uint32_t bit = 1u << i, low = bit - 1, above = ~(low | bit);
		if ((a & bit) || (zeros & bit) || ((a & ones) ^ ones) & above || (a & zeros & above))
			continue;
		uint32_t x = (a & above) | bit | (ones & low);
		return x <= b;
	}
	return false;
}

/* A mask condition's outcome on its variable when the known bits settle
 * it: OUT_FALSE, or its outcome when it passes; OUT_RESID + 1 when the
 * bits leave it open. */
static uint8_t mask_known(const struct lprob *pb, size_t ci, unsigned var)
{
	const struct lcond *lc = &pb->conds[ci];
	uint32_t m, d;
	if (lc->op != SCMPC_OP_MASKED_EQ || pb->kvar != (int)var)
		return OUT_RESID + 1;
	mask_half(lc, pb->st[ci], &m, &d);
	if ((m & pb->ones & ~d) || (m & pb->zeros & d))
		return OUT_FALSE;
	if (m & ~(pb->ones | pb->zeros))
		return OUT_RESID + 1;
	return mask_pass(lc, pb->st[ci]);
}

/* What a condition resolves to on its current variable, as pieces of the
 * 32-bit domain.  Returns 0 when it needs a mask test instead. */
static size_t cond_pieces(const struct lcond *c, uint8_t st, struct piece *out)
{
	if (c->op == SCMPC_OP_MASKED_EQ) {
		uint32_t m, d;
		mask_half(c, st, &m, &d);
		if (!mask_is_interval(m))
			return 0;
		return mask_pieces(m, d, mask_pass(c, st), out);
	}
	uint32_t k = (uint32_t)(tests_hi(c, st) ? c->value >> 32 : c->value);
	if (!c->wide || st != ST_PENDING)
		return cmp_pieces(c->op, k, OUT_TRUE, OUT_FALSE, out);
	if (c->lofirst)	/* an equality's low half: a match leaves the high half */
		return c->op == SCMPC_OP_EQ ? cmp_pieces(c->op, k, OUT_RESID, OUT_FALSE, out)
					    : cmp_pieces(c->op, k, OUT_TRUE, OUT_RESID, out);

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

static void prob_free(struct lprob *pb)
{
	free(pb->terms);
	free(pb->conds);
	free(pb->st);
	memset(pb, 0, sizeof(*pb));
}

static bool prob_alloc(struct lctx *c, struct lprob *pb, size_t nterms, size_t nconds)
{
	memset(pb, 0, sizeof(*pb));
	pb->kvar = -1;
	pb->terms = malloc((nterms ? nterms : 1) * sizeof(*pb->terms));
	pb->conds = malloc((nconds ? nconds : 1) * sizeof(*pb->conds));
	pb->st = malloc(nconds ? nconds : 1);
	if (pb->terms && pb->conds && pb->st)
		return true;
	prob_free(pb);
	c->g->oom = true;
	return false;
}

/* Copy term T of FROM (its conditions' states from ST) to the end of TO. */
static void prob_take(struct lprob *to, const struct lprob *from, const uint8_t *st, size_t t)
{
	struct lterm tm = from->terms[t];
	memcpy(to->conds + to->nconds, from->conds + tm.first, tm.n * sizeof(*to->conds));
	memcpy(to->st + to->nconds, st + tm.first, tm.n);
	tm.first = (uint32_t)to->nconds;
	to->nconds += tm.n;
	to->terms[to->nterms++] = tm;
}

static bool term_dead(const struct lprob *pb, const uint8_t *st, size_t t)
{
	for (uint32_t i = 0; i < pb->terms[t].n; i++)
		if (st[pb->terms[t].first + i] == ST_FALSE)
			return true;
	return false;
}

static bool term_sat(const struct lprob *pb, const uint8_t *st, size_t t)
{
	for (uint32_t i = 0; i < pb->terms[t].n; i++)
		if (st[pb->terms[t].first + i] != ST_TRUE)
			return false;
	return true;
}

/* Marks in REL the terms that can still change the outcome and returns the
 * outcome if none of them matches.  Terms are in precedence order, so the
 * first satisfied term decides and hides the rest, and the terms right
 * above it with its action cannot change it.  Without one, terms with the
 * fallback's action still matter, except at the end: above a less
 * restrictive term they hide it. */
static uint32_t relevant_terms(const struct lprob *pb, bool *rel, size_t *nrel)
{
	uint32_t result = pb->fallback;
	size_t sat = pb->nterms, end;
	for (size_t t = 0; t < pb->nterms; t++) {
		if (!term_dead(pb, pb->st, t) && term_sat(pb, pb->st, t)) {
			sat = t;
			result = pb->terms[t].action;
			break;
		}
	}
	/* [end, sat) all have the result's action, or are dead. */
	for (end = sat; end > 0; end--)
		if (pb->terms[end - 1].action != result && !term_dead(pb, pb->st, end - 1))
			break;
	*nrel = 0;
	for (size_t t = 0; t < pb->nterms; t++) {
		rel[t] = t < end && !term_dead(pb, pb->st, t);
		*nrel += rel[t];
	}
	return result;
}

static uint32_t build(struct lctx *c, const struct lprob *pb, int held);

/* The lowest variable a condition still waits on: tests follow the fixed
 * variable order, so every term is decided without reloading a word. */
static unsigned next_var(const struct lprob *pb)
{
	unsigned var = UINT32_MAX;
	for (size_t ci = 0; ci < pb->nconds; ci++)
		if (pb->st[ci] < ST_TRUE && var_of(&pb->conds[ci], pb->st[ci]) < var)
			var = var_of(&pb->conds[ci], pb->st[ci]);
	return var;
}

/* Test condition WHICH's half-mask on word VAR, resolving every pending condition with the same
 * test. */
static uint32_t build_mask_test(struct lctx *c, const struct lprob *pb, size_t which,
				unsigned var, int held)
{
	uint32_t m, d;
	mask_half(&pb->conds[which], pb->st[which], &m, &d);
	struct lprob in = *pb, out = *pb;
	uint8_t *sin = malloc(2 * (pb->nconds ? pb->nconds : 1));
	if (!sin) {
		c->g->oom = true;
		return NODE_NONE;
	}
	uint8_t *sout = sin + pb->nconds;
	memcpy(sin, pb->st, pb->nconds);
	memcpy(sout, pb->st, pb->nconds);
	/* Every pending condition with the same half-mask test resolves too. */
	for (size_t ci = 0; ci < pb->nconds; ci++) {
		const struct lcond *lc = &pb->conds[ci];
		uint32_t m2, d2;
		if (lc->op != SCMPC_OP_MASKED_EQ || pb->st[ci] >= ST_TRUE ||
		    var_of(lc, pb->st[ci]) != var)
			continue;
		mask_half(lc, pb->st[ci], &m2, &d2);
		if (m2 != m || d2 != d)
			continue;
		sin[ci] = apply_out(mask_pass(lc, pb->st[ci]));
		sout[ci] = ST_FALSE;
	}
	in.st = sin;
	out.st = sout;
	/* What each side learns of the word's bits. */
	if (pb->kvar != (int)var)
		in.ones = in.zeros = 0;
	in.kvar = (int)var;
	out.kvar = in.kvar;
	out.ones = in.ones;
	out.zeros = in.zeros;
	in.ones |= d;
	in.zeros |= m & ~d;
	if (d == 0 && (m & (m - 1)) == 0)
		out.ones |= m;
	else if (d == m && (m & (m - 1)) == 0)
		out.zeros |= m;
	uint32_t node;
	bool keeps_a = d == 0 || (m & (m - 1)) == 0;
	int after = keeps_a ? (int)var : -1;
	uint32_t tin = build(c, &in, after), tout = build(c, &out, after);
	if (d == 0)		/* in the set iff no bit of m is set */
		node = dag_jmp(c->g, BPF_JSET, m, tout, tin);
	else if (keeps_a)	/* single bit that must be set */
		node = dag_jmp(c->g, BPF_JSET, m, tin, tout);
	else
		node = dag_and(c->g, m, dag_jmp(c->g, BPF_JEQ, d, tin, tout));
	free(sin);
	return held == (int)var ? node : dag_ld(c->g, var_offset(c, var), node);
}

/* Where a condition on the partitioned variable changes its outcome. */
struct event {
	uint32_t lo;
	uint32_t cond;
	uint8_t out;
};

static int cmp_events(const void *a, const void *b)
{
	const struct event *x = a, *y = b;
	return (x->lo > y->lo) - (x->lo < y->lo);
}

/* Scratch of one partition sweep. */
struct sweep {
	struct event *ev;
	uint32_t *owner;	/* term of each condition */
	uint8_t *cur;		/* outcome of each condition on the current piece */
	uint8_t *st;		/* the states the children start from */
	uint32_t *nfalse;	/* per term: conditions false on the current piece */
	uint32_t *nopen;	/* per term: conditions not yet true */
	uint32_t *live, *pos;	/* terms with nfalse == 0, and where each sits */
	uint32_t *pick;
	size_t nlive;
};

static void sweep_free(struct sweep *s)
{
	free(s->ev);
	free(s->owner);
	free(s->cur);
	free(s->st);
	free(s->nfalse);
	free(s->nopen);
	free(s->live);
	free(s->pos);
	free(s->pick);
}

/* Move condition CI to outcome OUT in the sweep, keeping its term's counts and the live set
 * current. */
static void sweep_set(struct sweep *s, uint32_t ci, uint8_t out)
{
	uint32_t t = s->owner[ci];
	uint8_t was = s->cur[ci];
	s->cur[ci] = out;
	s->st[ci] = apply_out(out);
	s->nopen[t] += (was == OUT_TRUE) - (out == OUT_TRUE);
	if ((was == OUT_FALSE) == (out == OUT_FALSE))
		return;
	if (out == OUT_FALSE) {
		if (s->nfalse[t]++ == 0) {	/* leaves the live set */
			uint32_t last = s->live[--s->nlive];
			s->live[s->pos[t]] = last;
			s->pos[last] = s->pos[t];
		}
	} else if (--s->nfalse[t] == 0) {
		s->pos[t] = (uint32_t)s->nlive;
		s->live[s->nlive++] = t;
	}
}

/* The piece's sub-problem: its live terms in precedence order, cut after
 * the first one the piece satisfies (its action becomes the fallback), so
 * a piece costs what can still matter on it, not the whole rule set. */
static bool sweep_child(struct lctx *c, const struct lprob *pb, struct sweep *s,
			struct lprob *child)
{
	size_t n = 0, nconds = 0;
	uint32_t fallback = pb->fallback, first_sat = UINT32_MAX;

	for (size_t i = 0; i < s->nlive; i++)
		if (s->nopen[s->live[i]] == 0 && s->live[i] < first_sat)
			first_sat = s->live[i];
	for (size_t i = 0; i < s->nlive; i++)
		if (s->live[i] < first_sat) {
			s->pick[n++] = s->live[i];
			nconds += pb->terms[s->live[i]].n;
		}
	if (first_sat != UINT32_MAX)
		fallback = pb->terms[first_sat].action;
	if (!dag_charge(c->g, s->nlive + nconds))
		return false;
	qsort(s->pick, n, sizeof(*s->pick), cmp_uint32);
	if (!prob_alloc(c, child, n, nconds))
		return false;
	child->fallback = fallback;
	for (size_t i = 0; i < n; i++)
		prob_take(child, pb, s->st, s->pick[i]);
	return true;
}

/* Cut word VAR's values into intervals on which every pending condition resolves alike, one
 * subtree each. */
static uint32_t build_partition(struct lctx *c, const struct lprob *pb, unsigned var, int held)
{
	struct sweep s = { 0 };
	struct range_vec rv = { 0 };
	uint32_t node = NODE_NONE;
	size_t nev = 0, nt = pb->nterms ? pb->nterms : 1, nc = pb->nconds ? pb->nconds : 1;

	s.ev = malloc(3 * nc * sizeof(*s.ev));
	s.owner = malloc(nc * sizeof(*s.owner));
	s.cur = malloc(nc);
	s.st = malloc(nc);
	s.nfalse = calloc(nt, sizeof(*s.nfalse));
	s.nopen = calloc(nt, sizeof(*s.nopen));
	s.live = malloc(nt * sizeof(*s.live));
	s.pos = malloc(nt * sizeof(*s.pos));
	s.pick = malloc(nt * sizeof(*s.pick));
	if (!s.ev || !s.owner || !s.cur || !s.st || !s.nfalse || !s.nopen || !s.live || !s.pos ||
	    !s.pick)
		goto out;
	memcpy(s.st, pb->st, pb->nconds);
	for (size_t t = 0; t < pb->nterms; t++) {
		s.live[t] = (uint32_t)t;
		s.pos[t] = (uint32_t)t;
		for (uint32_t i = 0; i < pb->terms[t].n; i++) {
			uint32_t ci = pb->terms[t].first + i;
			struct piece pc[3];
			s.owner[ci] = (uint32_t)t;
			/* Outcomes start "residual": neither true nor false until
			 * the first piece (every condition has one at 0) says. */
			s.cur[ci] = OUT_RESID;
			if (pb->st[ci] != ST_TRUE)
				s.nopen[t]++;
			if (pb->st[ci] >= ST_TRUE || var_of(&pb->conds[ci], pb->st[ci]) != var)
				continue;
			size_t np = cond_pieces(&pb->conds[ci], pb->st[ci], pc);
			for (size_t k = 0; k < np; k++)
				s.ev[nev++] = (struct event){ pc[k].lo, ci, pc[k].out };
		}
	}
	s.nlive = pb->nterms;
	if (!dag_charge(c->g, nev))
		goto out;
	qsort(s.ev, nev, sizeof(*s.ev), cmp_events);

	for (size_t e = 0; e < nev;) {
		uint32_t lo = s.ev[e].lo;
		for (; e < nev && s.ev[e].lo == lo; e++)
			sweep_set(&s, s.ev[e].cond, s.ev[e].out);
		/* A piece no value of the word can reach (the mask tests above
		 * fixed bits it lacks) decides nothing: its neighbours take it. */
		uint32_t end = e < nev ? s.ev[e].lo - 1 : UINT32_MAX;
		if (pb->kvar == (int)var && !bits_fit(lo, end, pb->ones, pb->zeros))
			continue;
		if (rv.n == 0)
			lo = 0;
		struct lprob child;
		if (!sweep_child(c, pb, &s, &child))
			goto out;
		uint32_t sub = build(c, &child, (int)var);
		prob_free(&child);
		if (sub == NODE_NONE || !range_push(&rv, lo, sub, 1, true))
			goto out;
	}
	/* Bits that exclude every piece cannot be: the tests above settle a
	 * mask they decide instead of testing it.  Any node would do. */
	node = rv.n ? layout_tree(c->g, rv.v, rv.n, c->goal) : dag_ret(c->g, pb->fallback);
	if (node != NODE_NONE && held != (int)var)
		node = dag_ld(c->g, var_offset(c, var), node);
out:
	if (node == NODE_NONE)
		c->g->oom = true;
	range_vec_free(&rv);
	sweep_free(&s);
	return node;
}

/* PB's terms are all relevant: test the next variable.  Of several mask
 * tests on it, one that leaves A intact (a jset) goes first: an `and`
 * first would make each test after it on both of its sides load the word
 * again (a 64-bit mask pair cost three loads of one high word). */
static uint32_t build_tests(struct lctx *c, const struct lprob *pb, int held)
{
	unsigned var = next_var(pb);
	size_t pick = SIZE_MAX;
	if (pb->kvar == (int)var) {
		uint8_t *st = NULL;
		for (size_t ci = 0; ci < pb->nconds; ci++) {
			uint8_t k;
			if (pb->st[ci] >= ST_TRUE || var_of(&pb->conds[ci], pb->st[ci]) != var ||
			    (k = mask_known(pb, ci, var)) > OUT_RESID)
				continue;
			if (!st) {
				if (!(st = malloc(pb->nconds))) {
					c->g->oom = true;
					return NODE_NONE;
				}
				memcpy(st, pb->st, pb->nconds);
			}
			st[ci] = apply_out(k);
		}
		if (st) {
			struct lprob known = *pb;
			known.st = st;
			uint32_t node = build(c, &known, held);
			free(st);
			return node;
		}
	}
	for (size_t ci = 0; ci < pb->nconds; ci++) {
		struct piece pc[3];
		uint32_t m, d;
		if (pb->st[ci] >= ST_TRUE || var_of(&pb->conds[ci], pb->st[ci]) != var ||
		    cond_pieces(&pb->conds[ci], pb->st[ci], pc) != 0)
			continue;
		mask_half(&pb->conds[ci], pb->st[ci], &m, &d);
		if (d == 0 || (m & (m - 1)) == 0) {
			pick = ci;
			break;
		}
		if (pick == SIZE_MAX)
			pick = ci;
	}
	if (pick != SIZE_MAX)
		return build_mask_test(c, pb, pick, var, held);
	return build_partition(c, pb, var, held);
}

/* Problems up to this many conditions are remembered (build()). */
#define MEMO_CONDS 32

/* The words that determine what build() makes of PB: everything it reads
 * but the rules' identities; in BUF when its CAP words hold them, else in
 * memory of their own.  NULL on ENOMEM. */
static uint32_t *build_key(const struct lctx *c, const struct lprob *pb, int held, uint32_t *buf,
			   size_t cap, size_t *n)
{
	size_t nk = 10 + 2 * pb->nterms + 5 * pb->nconds;
	uint32_t *k = nk <= cap ? buf : malloc(nk * sizeof(*k)), *w = k;
	if (!k)
		return NULL;
	uint32_t lof = 0;
	for (unsigned a = 0; a < 6; a++)
		lof |= (uint32_t)c->lofirst[a] << a;
	*w++ = 0x10000u | c->goal;
	*w++ = (uint32_t)held;
	*w++ = pb->fallback;
	*w++ = (uint32_t)pb->kvar;
	*w++ = pb->ones;
	*w++ = pb->zeros;
	*w++ = c->ai->big_endian;
	*w++ = lof;
	*w++ = (uint32_t)pb->nterms;
	*w++ = (uint32_t)pb->nconds;
	for (size_t t = 0; t < pb->nterms; t++) {
		const struct lterm *tm = &pb->terms[t];
		*w++ = tm->action;
		*w++ = tm->n;
		for (uint32_t i = 0; i < tm->n; i++) {
			const struct lcond *lc = &pb->conds[tm->first + i];
			*w++ = lc->arg | (uint32_t)lc->op << 8 | (uint32_t)lc->wide << 16 |
			       (uint32_t)lc->lofirst << 17 | (uint32_t)pb->st[tm->first + i] << 24;
			*w++ = (uint32_t)lc->value;
			*w++ = (uint32_t)(lc->value >> 32);
			*w++ = (uint32_t)lc->value2;
			*w++ = (uint32_t)(lc->value2 >> 32);
		}
	}
	*n = (size_t)(w - k);
	return k;
}

static uint32_t build_fresh(struct lctx *c, const struct lprob *pb, int held);

/*
 * The decision of PB, with the word HELD (-1: none) in A.  Sibling pieces
 * often leave the same problem to solve (a set of values, each of which
 * leaves the same test of the other half), and a problem's DAG depends
 * only on what build_key() holds: the DAG remembers small ones.
 */
static uint32_t build(struct lctx *c, const struct lprob *pb, int held)
{
	if (!dag_charge(c->g, pb->nterms + pb->nconds + 1))
		return NODE_NONE;
	size_t nkey = 0;
	uint32_t buf[256];
	uint32_t *key = pb->nconds && pb->nconds <= MEMO_CONDS
				? build_key(c, pb, held, buf, ARRAY_SIZE(buf), &nkey)
				: NULL;
	uint32_t node = key ? dag_memo_get(c->g, key, nkey) : NODE_NONE;
	if (node == NODE_NONE && !c->g->oom) {
		uint64_t work = c->g->work;
		node = build_fresh(c, pb, held);
		if (key && node != NODE_NONE && !c->g->oom)
			dag_memo_put(c->g, key, nkey, node, node, c->g->work - work);
	}
	if (key != buf)
		free(key);
	return node;
}

/* Lower PB after dropping the terms that can no longer change the result. */
static uint32_t build_fresh(struct lctx *c, const struct lprob *pb, int held)
{
	bool *rel = malloc(pb->nterms ? pb->nterms : 1);
	size_t nrel;
	uint32_t node = NODE_NONE;
	if (!rel) {
		c->g->oom = true;
		return NODE_NONE;
	}
	uint32_t result = relevant_terms(pb, rel, &nrel);
	if (nrel == 0) {
		node = dag_ret(c->g, result);
	} else if (nrel == pb->nterms) {
		node = build_tests(c, pb, held);
	} else {
		/* Drop what can no longer matter, so that the work below is
		 * in proportion to what is left. */
		struct lprob sub;
		size_t nconds = 0;
		for (size_t t = 0; t < pb->nterms; t++)
			nconds += rel[t] ? pb->terms[t].n : 0;
		if (prob_alloc(c, &sub, nrel, nconds)) {
			sub.fallback = result;
			sub.kvar = pb->kvar;
			sub.ones = pb->ones;
			sub.zeros = pb->zeros;
			for (size_t t = 0; t < pb->nterms; t++)
				if (rel[t])
					prob_take(&sub, pb, pb->st, t);
			node = build_tests(c, &sub, held);
			prob_free(&sub);
		}
	}
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

/* An argument goes low half first when every 64-bit condition on it is an
 * equality whose halves are both tested (a mask with an empty low half is
 * a test of the high half alone).  Conditions settled at setup do not
 * count.  Neither order is always smaller: low half first shares the high
 * half among calls of one ABI, high half first shares the low half's
 * search between a 64-bit ABI and its 32-bit sibling (x86_64's and
 * i386's personality values), so the driver tries both when it lays a
 * program out for size (compile.c). */
static void choose_halves(struct lctx *c, struct lprob *pb)
{
	bool any[6] = { false }, ok[6] = { true, true, true, true, true, true };
	for (size_t ci = 0; ci < pb->nconds; ci++) {
		const struct lcond *lc = &pb->conds[ci];
		if (!lc->wide || pb->st[ci] != ST_PENDING || lc->arg >= 6)
			continue;
		any[lc->arg] = true;
		ok[lc->arg] &= lc->op == SCMPC_OP_EQ || lc->op == SCMPC_OP_NE ||
			       (lc->op == SCMPC_OP_MASKED_EQ && (uint32_t)lc->value != 0);
	}
	for (unsigned a = 0; a < 6; a++)
		c->lofirst[a] = any[a] && ok[a];
	for (size_t ci = 0; ci < pb->nconds; ci++)
		if (pb->conds[ci].arg < 6)
			pb->conds[ci].lofirst = c->lofirst[pb->conds[ci].arg];
}

uint32_t lower_syscall(struct dag *g, const scmpc_policy *p, const struct arch_view *v,
		       size_t lo, size_t hi, enum lower_mode mode)
{
	bool path = mode == LOWER_PATH || mode == LOWER_PATH_ARGFIRST;
	struct lctx c = { .g = g, .goal = path ? LAYOUT_ARGS : LAYOUT_ARGS_COMPACT, .ai = v->info };
	struct lprob pb;
	size_t ncond = 0;

	for (size_t i = lo; i < hi; i++)
		ncond += view_rule(p, v, i)->nconds;
	if (!prob_alloc(&c, &pb, hi - lo, ncond))
		return NODE_NONE;
	pb.fallback = p->def_action;
	for (size_t i = lo; i < hi; i++) {
		const struct rule *r = view_rule(p, v, i);
		pb.terms[pb.nterms++] = (struct lterm){ r->action, (uint32_t)i, 0,
							(uint32_t)r->nconds };
	}
	qsort(pb.terms, pb.nterms, sizeof(*pb.terms), cmp_terms);
	for (size_t t = 0; t < pb.nterms; t++) {
		const struct rule *r = view_rule(p, v, pb.terms[t].rule);
		pb.terms[t].first = (uint32_t)pb.nconds;
		for (size_t k = 0; k < r->nconds; k++) {
			const struct scmpc_cond *sc = &r->conds[k];
			struct lcond *lc = &pb.conds[pb.nconds];
			bool wide = !v->info->compat32 && !(sc->flags & SCMPC_COND_32BIT);
			*lc = (struct lcond){ (uint8_t)sc->arg, (uint8_t)sc->op, wide, false,
					      sc->value, sc->value2 };
			/* A 32-bit mask only sees the low half of a wide mask. */
			if (!wide && sc->op == SCMPC_OP_MASKED_EQ)
				lc->value &= UINT32_MAX;
			pb.st[pb.nconds] = initial_state(lc);
			pb.nconds++;
		}
	}
	if (mode == LOWER_COMPACT_LOFIRST)
		choose_halves(&c, &pb);
	uint32_t node = build(&c, &pb, -1);
	prob_free(&pb);
	return node;
}
