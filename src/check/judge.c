/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * The rules of one call over a region of its arguments (judge.h).
 *
 * eval_on_view() picks, among the rules that hold, the most restrictive
 * action and then the earliest rule; with the rules sorted in that order
 * the decision is the first rule that holds, or the fallback.  So a
 * region is judged rule by rule, condition by condition: a condition true
 * on all of it goes on to the rule's next one, false on all of it to the
 * next rule, and one that is neither cuts the region in two (its sides,
 * region.c) and each part goes on its way.  A part that reaches a rule
 * whose every condition holds, or the end, has one decision for all its
 * calls, compared with the program's return.  Every call of the region is
 * in exactly one part: nothing is sampled.
 */
#include <stdlib.h>
#include <string.h>
#include "check/judge.h"

/* A part of the region still to judge: the rules before I hold nowhere
 * on it, and rule I's conditions before C hold everywhere. */
struct item {
	struct region r;
	uint32_t i, c;
};

static const scmpc_policy *sort_p;
static const struct arch_view *sort_v;

static int by_precedence(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int c = scmpc_action_cmp(view_rule(sort_p, sort_v, x)->action,
				 view_rule(sort_p, sort_v, y)->action);
	if (c)
		return c;
	return (x > y) - (x < y);
}

int call_rules_init(struct call_rules *cr, const scmpc_policy *p, const struct arch_view *v,
		    uint32_t nr, uint32_t *const_act)
{
	size_t lo, hi;
	memset(cr, 0, sizeof(*cr));
	cr->v = v;
	cr->nr = nr;
	arch_view_find(v, nr, &lo, &hi);
	/* no_match(): named numbers fall to the default, others further */
	cr->fallback = lo < hi ? p->def_action : arch_view_fallback(p, v, nr);
	cr->tree = view_tree(v, nr);
	if (cr->tree)
		return 1;
	if (lo == hi) {
		*const_act = cr->fallback;
		return 0;
	}
	/* Most named numbers have one rule that always holds and beats the
	 * others: decided whatever the arguments, with nothing to prepare. */
	size_t best = lo;
	for (size_t i = lo + 1; i < hi; i++)
		if (scmpc_action_cmp(view_rule(p, v, i)->action, view_rule(p, v, best)->action) < 0)
			best = i;
	if (view_rule(p, v, best)->nconds == 0) {
		*const_act = view_rule(p, v, best)->action;
		return 0;
	}
	cr->pos = malloc((hi - lo) * sizeof(*cr->pos));
	cr->same = malloc((hi - lo + 1) * sizeof(*cr->same));
	if (!cr->pos || !cr->same) {
		call_rules_fini(cr);
		return -ENOMEM;
	}
	for (size_t i = lo; i < hi; i++)
		cr->pos[cr->n++] = i;
	/* qsort's comparator has no context argument; the check is not
	 * re-entered while it sorts */
	sort_p = p;
	sort_v = v;
	qsort(cr->pos, cr->n, sizeof(*cr->pos), by_precedence);
	/* Past a rule that always holds nothing is reached. */
	for (size_t i = 0; i < cr->n; i++)
		if (view_rule(p, v, cr->pos[i])->nconds == 0) {
			cr->n = i + 1;
			break;
		}
	cr->key_slot = malloc(cr->n * sizeof(*cr->key_slot));
	cr->key_val = malloc(cr->n * sizeof(*cr->key_val));
	if (!cr->key_slot || !cr->key_val) {
		call_rules_fini(cr);
		return -ENOMEM;
	}
	for (size_t i = 0; i < cr->n; i++) {
		const struct rule *r = view_rule(p, v, cr->pos[i]);
		cr->key_slot[i] = -1;
		for (size_t c = 0; c < r->nconds; c++) {
			const struct scmpc_cond *cd = &r->conds[c];
			if (cd->op != SCMPC_OP_EQ)
				continue;
			bool narrow = v->info->compat32 || (cd->flags & SCMPC_COND_32BIT);
			cr->key_slot[i] = (int8_t)(cd->arg + (narrow ? 6 : 0));
			cr->key_val[i] = cd->value;
			break;
		}
	}
	/* Past a last rule that always holds no call falls through: the
	 * fallback then counts as that rule's action. */
	const struct rule *last = view_rule(p, v, cr->pos[cr->n - 1]);
	cr->tail = last->nconds ? cr->fallback : last->action;
	cr->same[cr->n] = cr->tail;
	for (size_t i = cr->n; i-- > 0;) {
		uint32_t a = view_rule(p, v, cr->pos[i])->action;
		cr->same[i] = cr->same[i + 1] == a ? a : SAME_NONE;
	}
	if (cr->same[0] != SAME_NONE) {
		/* every rule that can decide decides alike */
		*const_act = (uint32_t)cr->same[0];
		call_rules_fini(cr);
		return 0;
	}
	return 1;
}

/* Free what CR holds and leave it empty. */
void call_rules_fini(struct call_rules *cr)
{
	free(cr->pos);
	free(cr->same);
	free(cr->key_slot);
	free(cr->key_val);
	cr->key_slot = NULL;
	cr->key_val = NULL;
	for (size_t i = 0; i < cr->nlevels; i++)
		free(cr->levels[i].v);
	free(cr->levels);
	cr->pos = NULL;
	cr->same = NULL;
	cr->levels = NULL;
	cr->n = cr->nlevels = cr->caplevels = 0;
}

static int push(struct judge *J, const struct region *r, uint32_t i, uint32_t c)
{
	struct item *s = J->stk;
	if (!array_reserve(&s, &J->capstk, J->nstk, sizeof(*s), 16))
		return diag_err(J->d, -ENOMEM, NULL, "out of memory");
	J->stk = s;
	s[J->nstk].i = i;
	s[J->nstk].c = c;
	memcpy(&s[J->nstk].r, r, sizeof(*r));
	J->nstk++;
	return 0;
}

int judge_decided(struct judge *J, const struct region *r, uint32_t act)
{
	if (act == J->want)
		return 0;
	memcpy(&J->bad, r, sizeof(*r));
	J->bad_act = act;
	return 1;
}

int judge_steps_over(struct judge *J)
{
	return diag_err(J->d, -E2BIG, NULL,
			"the semantic check cut regions more than %llu times (its bound) and "
			"stopped without a proof", (unsigned long long)JUDGE_STEPS);
}

/* The one value of word W of R, if it has one. */
static bool word_point(const struct region *r, unsigned w, uint32_t *x)
{
	const struct wcon *c = &r->w[w];
	if (c->lo == c->hi)
		*x = c->lo;
	else if (c->m == 0xffffffffU)
		*x = c->v;
	else
		return false;
	return true;
}

/* J->cand: CR's rules that R may meet, in order, and J->csame over them.
 * A rule whose equality names another value than the one its argument
 * has on all of R holds nowhere on R; leaving it out changes no
 * decision (cand[] keeps the order), and a call with thousands of `arg0
 * ==` rules is judged on each path against one or two instead of all. */
static int candidates(struct judge *J, const struct call_rules *cr, const struct region *r,
		      size_t *n)
{
	const struct arch_info *ai = cr->v->info;
	bool point[12];
	uint64_t val[12];
	for (unsigned a = 0; a < 6; a++) {
		uint32_t lo = 0, hi = 0;
		bool pl = word_point(r, arch_arg_offset(ai, a, false) / 4, &lo);
		bool ph = word_point(r, arch_arg_offset(ai, a, true) / 4, &hi);
		point[a] = pl && ph;
		val[a] = (uint64_t)hi << 32 | lo;
		point[a + 6] = pl;
		val[a + 6] = lo;
	}
	if (J->capcand < cr->n + 1) {
		size_t *c = realloc(J->cand, (cr->n + 1) * sizeof(*c));
		if (c)
			J->cand = c;
		uint64_t *sm = c ? realloc(J->csame, (cr->n + 1) * sizeof(*sm)) : NULL;
		if (!sm)
			return diag_err(J->d, -ENOMEM, NULL, "out of memory");
		J->csame = sm;
		J->capcand = cr->n + 1;
	}
	size_t m = 0;
	for (size_t i = 0; i < cr->n; i++) {
		int s = cr->key_slot[i];
		if (s < 0 || !point[s] || val[s] == cr->key_val[i])
			J->cand[m++] = cr->pos[i];
	}
	J->csame[m] = cr->tail;
	for (size_t i = m; i-- > 0;) {
		uint32_t a = view_rule(J->p, cr->v, J->cand[i])->action;
		J->csame[i] = J->csame[i + 1] == a ? a : SAME_NONE;
	}
	*n = m;
	return 0;
}

int judge_call(struct judge *J, struct call_rules *cr, const struct region *r0)
{
	if (cr->tree)
		return judge_tree(J, cr, r0);
	const scmpc_policy *p = J->p;
	const struct arch_view *v = cr->v;
	struct side t, f;
	struct item it;
	int err;

	size_t n = 0;
	if ((err = candidates(J, cr, r0, &n)) < 0)
		return err;
	J->nstk = 0;
	if ((err = push(J, r0, 0, 0)) < 0)
		return err;
	while (J->nstk) {
		memcpy(&it, &((struct item *)J->stk)[--J->nstk], sizeof(it));
		for (;;) {
			if (++J->steps > JUDGE_STEPS)
				return judge_steps_over(J);
			/* every rule from here and the fallback agree */
			if (J->csame[it.i] == J->want)
				break;
			if (it.i == n) {
				if ((err = judge_decided(J, &it.r, cr->fallback)) != 0)
					return err;
				break;
			}
			const struct rule *ru = view_rule(p, v, J->cand[it.i]);
			if (it.c == ru->nconds) {
				if ((err = judge_decided(J, &it.r, ru->action)) != 0)
					return err;
				break;
			}
			cond_sides(&ru->conds[it.c], v->info, &t, &f);
			/* Most rules hold nowhere on a path's region (another
			 * constant): asked first, the other side is not. */
			bool tm[SIDE_MAX], fm[SIDE_MAX], any_t = false, any_f = false;
			for (size_t k = 0; k < t.n; k++)
				any_t |= tm[k] = conj_meets(&it.r, &t.c[k]);
			if (!any_t) {
				it.i++;		/* holds nowhere: the rule is out */
				it.c = 0;
				continue;
			}
			for (size_t k = 0; k < f.n; k++)
				any_f |= fm[k] = conj_meets(&it.r, &f.c[k]);
			if (!any_f) {
				it.c++;		/* holds on all of it */
				continue;
			}
			/* Both: the parts where it holds go on with the rule,
			 * the others with the next rule, the last of them here. */
			struct region part;
			for (size_t k = 0; k < t.n; k++) {
				if (!tm[k])
					continue;
				int cut = conj_cut(&J->ar, &it.r, &t.c[k], &part);
				if (cut < 0)
					return diag_err(J->d, cut, NULL, "out of memory");
				if (cut && (err = push(J, &part, it.i, it.c + 1)) < 0)
					return err;
			}
			size_t last = f.n;
			while (!fm[--last])
				;
			for (size_t k = 0; k < last; k++) {
				if (!fm[k])
					continue;
				int cut = conj_cut(&J->ar, &it.r, &f.c[k], &part);
				if (cut < 0)
					return diag_err(J->d, cut, NULL, "out of memory");
				if (cut && (err = push(J, &part, it.i + 1, 0)) < 0)
					return err;
			}
			int cut = conj_cut(&J->ar, &it.r, &f.c[last], &it.r);
			if (cut < 0)
				return diag_err(J->d, cut, NULL, "out of memory");
			if (!cut)
				break;
			it.i++;
			it.c = 0;
		}
	}
	return 0;
}

/* Free the judge's stacks, candidates and arena, leaving it empty. */
void judge_fini(struct judge *J)
{
	free(J->stk);
	free(J->tstk);
	free(J->cand);
	free(J->csame);
	J->cand = NULL;
	J->csame = NULL;
	J->capcand = 0;
	J->tstk = NULL;
	J->ntstk = J->captstk = 0;
	wcon_arena_free(&J->ar);
	J->stk = NULL;
	J->nstk = J->capstk = 0;
}
