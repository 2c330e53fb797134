/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* The reference meaning of a policy: rules evaluated one by one on concrete
 * values.  The verifier checks compiled programs against this, so it must
 * share no decision logic with the compiler (lower.c, layout.c). */
#include <stdlib.h>
#include <string.h>
#include "policy/policy.h"
#include "policy/lsc_tree.h"

/* Whether SD's argument meets condition C, on the low word alone on a 32-bit ABI or for a 32-bit
 * condition. */
static bool cond_holds(const struct scmpc_cond *c, bool compat32, const struct seccomp_data *sd)
{
	uint64_t x = sd->args[c->arg];
	if (compat32 || (c->flags & SCMPC_COND_32BIT))
		x &= 0xffffffffULL;
	switch (c->op) {
	case SCMPC_OP_EQ: return x == c->value;
	case SCMPC_OP_NE: return x != c->value;
	case SCMPC_OP_LT: return x < c->value;
	case SCMPC_OP_LE: return x <= c->value;
	case SCMPC_OP_GT: return x > c->value;
	case SCMPC_OP_GE: return x >= c->value;
	case SCMPC_OP_MASKED_EQ: return (x & c->value) == c->value2;
	}
	return false;
}

static bool rule_holds(const struct rule *r, bool compat32, const struct seccomp_data *sd)
{
	for (size_t c = 0; c < r->nconds; c++)
		if (!cond_holds(&r->conds[c], compat32, sd))
			return false;
	return true;
}

/* What a call decides when no rule matched. */
static uint32_t no_match(const scmpc_policy *p, const struct arch_view *v, uint32_t nr,
			 size_t lo, size_t hi)
{
	if (lo < hi)	/* named, but no rule matched: the default, never "unknown" */
		return p->def_action;
	return arch_view_fallback(p, v, nr);
}

/* Rule at view position I matches; keep it if it beats the best so far (the
 * most restrictive action, then the lowest position). */
static void consider(const scmpc_policy *p, const struct arch_view *v, size_t i, size_t *best)
{
	if (*best == SIZE_MAX) {
		*best = i;
		return;
	}
	int c = scmpc_action_cmp(view_rule(p, v, i)->action, view_rule(p, v, *best)->action);
	if (c < 0 || (c == 0 && i < *best))
		*best = i;
}

uint32_t eval_on_view(const scmpc_policy *p, const struct arch_view *v,
		      const struct seccomp_data *sd, int *rule)
{
	uint32_t nr = (uint32_t)sd->nr;
	size_t lo, hi, best = SIZE_MAX;

	if (rule)
		*rule = -1;
	const struct limit *l = call_limit(p, v->info->audit, nr);
	if (limit_hits(l, nr))
		return l->action;
	arch_view_find(v, nr, &lo, &hi);
	const struct lsc_tree *t = view_tree(v, nr);
	if (t) {
		uint32_t act, src;
		if (!lsc_tree_eval(t, sd, &act, &src))
			return no_match(p, v, nr, lo, hi);
		if (rule)
			*rule = (int)src;
		return act;
	}
	for (size_t i = lo; i < hi; i++)
		if (rule_holds(view_rule(p, v, i), v->info->compat32, sd))
			consider(p, v, i, &best);
	if (best == SIZE_MAX)
		return no_match(p, v, nr, lo, hi);
	if (rule)
		*rule = (int)view_source(v, best);
	return view_rule(p, v, best)->action;
}

void rule_witness(const struct rule *r, uint64_t args[6])
{
	scmpc_conds_witness(r->conds, r->nconds, args);
}

SCMPC_API int scmpc_conds_witness(const struct scmpc_cond *conds, size_t n, uint64_t args[6])
{
	if ((!conds && n) || !args)
		return -EINVAL;
	memset(args, 0, 6 * sizeof(*args));
	for (size_t c = 0; c < n; c++) {
		const struct scmpc_cond *cd = &conds[c];
		uint64_t v = cd->value;

		if (cd->arg > 5)
			return -EINVAL;
		switch (cd->op) {
		case SCMPC_OP_NE:
		case SCMPC_OP_GT:
			v++;
			break;
		case SCMPC_OP_LT:
			v = v ? v - 1 : 0;
			break;
		case SCMPC_OP_MASKED_EQ:
			v = cd->value2;
			break;
		default:
			break;
		}
		args[cd->arg] = v;
	}
	return 0;
}

/* ------------------------------------------------------------ call index */

static int cmp_keys(const void *a, const void *b)
{
	const struct call_key *x = a, *y = b;
	if (x->slot != y->slot)
		return x->slot < y->slot ? -1 : 1;
	if (x->upper != y->upper)
		return x->upper < y->upper ? -1 : 1;
	if (x->value != y->value)
		return x->value < y->value ? -1 : 1;
	return (x->pos > y->pos) - (x->pos < y->pos);
}

/* A rule whose only condition is an order comparison holds on a half-line
 * of one word: x < bound (UPPER) or x >= bound.  False for the others and
 * for comparisons that hold always or never. */
static bool as_bound(const struct scmpc_cond *c, struct call_key *k)
{
	switch (c->op) {
	case SCMPC_OP_LT: k->upper = true; k->value = c->value; break;
	case SCMPC_OP_GE: k->upper = false; k->value = c->value; break;
	case SCMPC_OP_LE:
		if (c->value == UINT64_MAX)
			return false;
		k->upper = true;
		k->value = c->value + 1;
		break;
	case SCMPC_OP_GT:
		if (c->value == UINT64_MAX)
			return false;
		k->upper = false;
		k->value = c->value + 1;
		break;
	default:
		return false;
	}
	return true;
}

static size_t better(const scmpc_policy *p, const struct arch_view *v, size_t a, size_t b)
{
	size_t best = a;
	consider(p, v, b, &best);
	return best;
}

static uint64_t ne_const(const scmpc_policy *p, const struct arch_view *v, size_t pos)
{
	return view_rule(p, v, pos)->conds[0].value;
}

/* Rules whose one condition is x != c: all but those with c == x hold, so
 * the best that holds is the best overall or, when x is its constant, the
 * best of those with another constant. */
static void ne_add(const scmpc_policy *p, const struct arch_view *v, size_t ne[2], size_t i)
{
	if (ne[0] == SIZE_MAX) {
		ne[0] = i;
		return;
	}
	if (better(p, v, ne[0], i) == i) {
		if (ne_const(p, v, ne[0]) != ne_const(p, v, i))
			ne[1] = ne[0];
		ne[0] = i;
	} else if (ne_const(p, v, ne[0]) != ne_const(p, v, i)) {
		ne[1] = ne[1] == SIZE_MAX ? i : better(p, v, ne[1], i);
	}
}

int call_index_init(struct call_index *ix, const scmpc_policy *p, const struct arch_view *v,
		    uint32_t nr)
{
	memset(ix, 0, sizeof(*ix));
	ix->nr = nr;
	arch_view_find(v, nr, &ix->lo, &ix->hi);
	size_t n = ix->hi - ix->lo;
	/* A few rules are quicker to try than to file. */
	if (n <= CALL_INDEX_MIN)
		return 0;
	ix->filed = true;
	ix->keys = malloc((n ? n : 1) * sizeof(*ix->keys));
	ix->bounds = malloc((n ? n : 1) * sizeof(*ix->bounds));
	ix->scan = malloc((n ? n : 1) * sizeof(*ix->scan));
	if (!ix->keys || !ix->bounds || !ix->scan) {
		call_index_fini(ix);
		return -ENOMEM;
	}
	for (size_t s = 0; s < 12; s++)
		ix->ne[s][0] = ix->ne[s][1] = SIZE_MAX;
	for (size_t i = ix->lo; i < ix->hi; i++) {
		const struct rule *r = view_rule(p, v, i);
		const struct scmpc_cond *eq = NULL;
		for (size_t c = 0; c < r->nconds && !eq; c++)
			if (r->conds[c].op == SCMPC_OP_EQ)
				eq = &r->conds[c];
		const struct scmpc_cond *c = eq ? eq : r->nconds == 1 ? &r->conds[0] : NULL;
		/* The word cond_holds() compares: a 32-bit condition sees the
		 * low half of the argument, so it is filed under slots 6-11 and
		 * looked up with the probe's low half. */
		uint8_t slot = 0;
		if (c)
			slot = (uint8_t)(c->arg + (v->info->compat32 || (c->flags & SCMPC_COND_32BIT) ? 6 : 0));
		struct call_key k = { .pos = i, .best = i, .slot = slot };
		if (eq) {
			k.value = eq->value;
			ix->keys[ix->nkeys++] = k;
		} else if (c && as_bound(c, &k)) {
			ix->bounds[ix->nbounds++] = k;
		} else if (c && c->op == SCMPC_OP_NE) {
			ne_add(p, v, ix->ne[slot], i);
		} else {
			ix->scan[ix->nscan++] = i;
		}
	}
	qsort(ix->keys, ix->nkeys, sizeof(*ix->keys), cmp_keys);
	qsort(ix->bounds, ix->nbounds, sizeof(*ix->bounds), cmp_keys);
	/* Within a run of one slot and direction, the rules that hold at x
	 * are a suffix (x < bound: the bounds above x) or a prefix (x >=
	 * bound): each key keeps the best rule from it to the run's end, or
	 * from the run's start to it. */
	struct call_key *b = ix->bounds;
	const size_t nb = ix->nbounds;	/* a local: stores to b[].best cannot change it */
	for (size_t s = 0, e; s < nb; s = e) {
		/* The run is b[s..e), never empty. */
		for (e = s + 1; e < nb && b[e].slot == b[s].slot && b[e].upper == b[s].upper; e++)
			;
		if (b[s].upper) {
			for (size_t k = e - 1; k-- > s;)
				b[k].best = better(p, v, b[k].pos, b[k + 1].best);
		} else {
			for (size_t k = s + 1; k < e; k++)
				b[k].best = better(p, v, b[k].pos, b[k - 1].best);
		}
	}
	return 0;
}

void call_index_fini(struct call_index *ix)
{
	free(ix->keys);
	free(ix->bounds);
	free(ix->scan);
	memset(ix, 0, sizeof(*ix));
}

/* First key of K[0..N) at or after (SLOT, UPPER, VALUE), or, with AFTER,
 * after it. */
static size_t key_bound(const struct call_key *k, size_t n, uint8_t slot, bool upper,
			uint64_t value, bool after)
{
	size_t a = 0, b = n;
	while (a < b) {
		size_t m = a + (b - a) / 2;
		const struct call_key *x = &k[m];
		bool below = x->slot != slot ? x->slot < slot
			   : x->upper != upper ? x->upper < upper
			   : after ? x->value <= value : x->value < value;
		if (below)
			a = m + 1;
		else
			b = m;
	}
	return a;
}

/* Only the rules a vector can match are tried: those whose equality holds,
 * found by value, and the best of the order comparisons that hold, found
 * by bound; every equality candidate is still judged by rule_holds(), and
 * the choice among matches is eval_on_view()'s. */
uint32_t eval_indexed(const scmpc_policy *p, const struct arch_view *v,
		      const struct call_index *ix, const struct seccomp_data *sd, int *rule)
{
	size_t best = SIZE_MAX;
	bool compat32 = v->info->compat32;

	if (rule)
		*rule = -1;
	if ((uint32_t)sd->nr != ix->nr || !ix->filed || view_tree(v, ix->nr))
		return eval_on_view(p, v, sd, rule);
	const struct limit *l = call_limit(p, v->info->audit, ix->nr);
	if (limit_hits(l, ix->nr))
		return l->action;
	for (size_t i = 0; i < ix->nscan; i++)
		if (rule_holds(view_rule(p, v, ix->scan[i]), compat32, sd))
			consider(p, v, ix->scan[i], &best);
	for (uint8_t s = 0; s < 12; s++) {
		uint64_t x = s < 6 ? sd->args[s] : sd->args[s - 6] & 0xffffffffULL;
		for (size_t k = key_bound(ix->keys, ix->nkeys, s, false, x, false);
		     k < ix->nkeys && ix->keys[k].slot == s && ix->keys[k].value == x; k++)
			if (rule_holds(view_rule(p, v, ix->keys[k].pos), compat32, sd))
				consider(p, v, ix->keys[k].pos, &best);
		const size_t *ne = ix->ne[s];
		size_t ne_hit = ne[0] != SIZE_MAX && ne_const(p, v, ne[0]) == x ? ne[1] : ne[0];
		if (ne_hit != SIZE_MAX)
			consider(p, v, ne_hit, &best);
		/* x < bound: from the first bound above x to the run's end. */
		size_t k = key_bound(ix->bounds, ix->nbounds, s, true, x, true);
		if (k < ix->nbounds && ix->bounds[k].slot == s && ix->bounds[k].upper)
			consider(p, v, ix->bounds[k].best, &best);
		/* x >= bound: from the run's start to the last bound at or below x. */
		k = key_bound(ix->bounds, ix->nbounds, s, false, x, true);
		if (k > 0 && ix->bounds[k - 1].slot == s && !ix->bounds[k - 1].upper)
			consider(p, v, ix->bounds[k - 1].best, &best);
	}
	if (best == SIZE_MAX)
		return no_match(p, v, ix->nr, ix->lo, ix->hi);
	if (rule)
		*rule = (int)view_source(v, best);
	return view_rule(p, v, best)->action;
}

uint32_t policy_decide(const scmpc_policy *p, const struct arch_view *views,
		      const struct seccomp_data *sd, int *rule)
{
	uint32_t nr = (uint32_t)sd->nr;
	enum scmpc_arch a = arch_of_call(sd->arch, nr);
	bool audit_known = false;

	if (rule)
		*rule = -1;
	for (size_t i = 0; i < p->narches; i++)
		if (arch_info(p->arches[i])->audit == sd->arch)
			audit_known = true;
	/* runc's stub runs before anything else for the ABIs it covers. */
	const struct limit *l = audit_known ? call_limit(p, sd->arch, nr) : NULL;
	if (limit_hits(l, nr))
		return l->action;
	if (audit_known && nr == 0xffffffffU) {
		size_t lo, hi;
		const struct arch_view *v = minus1_view(p, views, sd->arch, &lo, &hi);
		return v ? eval_on_view(p, v, sd, rule) : p->def_action;
	}
	for (size_t i = 0; i < p->narches; i++)
		if (views[i].arch == a)
			return eval_on_view(p, &views[i], sd, rule);
	return p->badarch_action;
}

int policy_views_init(const scmpc_policy *p, struct arch_view *views, scmpc_diag *d)
{
	for (size_t i = 0; i < p->narches; i++) {
		int err = arch_view_init(&views[i], p, p->arches[i], d);
		if (err < 0) {
			policy_views_fini(p, views, i);
			return err;
		}
	}
	return 0;
}

void policy_views_fini(const scmpc_policy *p, struct arch_view *views, size_t n)
{
	(void)p;
	for (size_t i = 0; i < n; i++)
		arch_view_fini(&views[i]);
}

SCMPC_API uint32_t scmpc_policy_eval(const scmpc_policy *p, const struct seccomp_data *sd,
				     int *rule)
{
	struct arch_view views[SCMPC_ARCH_COUNT];
	if (!p || !sd) {
		/* no error channel: the most restrictive answer */
		if (rule)
			*rule = -1;
		return SCMPC_ACT_KILL_PROCESS;
	}
	if (policy_views_init(p, views, NULL) < 0) {
		if (rule)
			*rule = -1;
		return p->badarch_action;
	}
	uint32_t act = policy_decide(p, views, sd, rule);
	policy_views_fini(p, views, p->narches);
	return act;
}

/* ------------------------------------------------------------ explain */

/* Condition C as the rules of an ABI see it: on a 32-bit ABI (COMPAT32)
 * the low word of the argument, and under the LIBSECCOMP merge (LSC32)
 * the low word of the constants too, which is all libseccomp keeps there
 * (a masked compare whose mask has no low bits tests nothing).  The view
 * makes the same truncated copies (policy.c, truncate_rule()), so this
 * agrees with what decides the call. */
static bool cond_holds_on(const struct scmpc_cond *c, bool compat32, bool lsc32,
			  const struct seccomp_data *sd)
{
	if (!lsc32)
		return cond_holds(c, compat32, sd);
	struct scmpc_cond t = *c;
	t.value &= UINT32_MAX;
	t.value2 &= UINT32_MAX;
	if (t.op == SCMPC_OP_MASKED_EQ && !t.value)
		return true;
	return cond_holds(&t, compat32, sd);
}

/* Bit I of the result: condition I of R holds (a rule has at most 64). */
static uint64_t conds_mask(const struct rule *r, bool compat32, bool lsc32,
			   const struct seccomp_data *sd)
{
	uint64_t m = 0;
	for (size_t c = 0; c < r->nconds && c < 64; c++)
		if (cond_holds_on(&r->conds[c], compat32, lsc32, sd))
			m |= (uint64_t)1 << c;
	return m;
}

static uint64_t all_conds(size_t n)
{
	return n >= 64 ? UINT64_MAX : ((uint64_t)1 << n) - 1;
}

SCMPC_API int scmpc_policy_rule_holds(const scmpc_policy *p, size_t rule,
				      const struct seccomp_data *sd, uint64_t *mask)
{
	if (!p || !sd || rule >= p->nrules)
		return -EINVAL;
	const struct rule *r = &p->rules[rule];
	enum scmpc_arch a = arch_of_call(sd->arch, (uint32_t)sd->nr);
	/* An AUDIT_ARCH no ABI has: its arguments are taken whole. */
	bool compat32 = a != SCMPC_ARCH_NONE && arch_info(a)->compat32;
	bool lsc32 = compat32 && p->merge == SCMPC_MERGE_LIBSECCOMP;
	uint64_t m = conds_mask(r, compat32, lsc32, sd);
	if (mask)
		*mask = m;
	return m == all_conds(r->nconds);
}

/* The decision of call SD on view V (its ABI's rules), explained into E. */
static void explain_on_view(const scmpc_policy *p, const struct arch_view *v,
			    const struct seccomp_data *sd, struct scmpc_explanation *e)
{
	uint32_t nr = (uint32_t)sd->nr;
	bool compat32 = v->info->compat32;
	size_t lo, hi, sev = SIZE_MAX;

	e->arch = v->arch;
	const struct limit *l = call_limit(p, v->info->audit, nr);
	if (limit_hits(l, nr)) {
		e->action = e->severity_action = l->action;
		e->reason = SCMPC_REASON_LIMIT;
		return;
	}
	arch_view_find(v, nr, &lo, &hi);
	/* What the rules that hold say by severity: the restrictive merge's
	 * answer, which the tree's order may overturn. */
	for (size_t i = lo; i < hi; i++)
		if (rule_holds(view_rule(p, v, i), compat32, sd)) {
			e->matching++;
			consider(p, v, i, &sev);
		}
	uint32_t fallback = no_match(p, v, nr, lo, hi);
	e->severity_action = sev != SIZE_MAX ? view_rule(p, v, sev)->action : fallback;
	const struct lsc_tree *t = view_tree(v, nr);
	uint32_t act = e->severity_action, src = 0;
	bool by_tree = t && lsc_tree_eval(t, sd, &act, &src);
	if (t && !by_tree)
		act = fallback;
	e->action = act;
	if (!t || act == e->severity_action) {
		if (sev != SIZE_MAX) {
			e->reason = SCMPC_REASON_RULE;
			/* The tree's own rule when it holds and says the same. */
			e->rule = (int)view_source(v, sev);
			if (by_tree)
				for (size_t i = lo; i < hi; i++)
					if (view_source(v, i) == src && view_rule(p, v, i)->action == act &&
					    rule_holds(view_rule(p, v, i), compat32, sd))
						e->rule = (int)src;
		} else if (lo == hi && v->unknown_set && nr > v->threshold && nr != 0xffffffffU &&
			   !arch_is_private(v->info, nr)) {
			e->reason = SCMPC_REASON_UNKNOWN;	/* arch_view_fallback()'s test */
		} else {
			e->reason = SCMPC_REASON_DEFAULT;
		}
		return;
	}
	/* The tree decides otherwise than severity: libseccomp's order. */
	e->reason = SCMPC_REASON_ORDER;
	if (sev != SIZE_MAX)
		e->overridden = (int)view_source(v, sev);
	if (!by_tree)
		return;		/* no comparison leads to an action: the default */
	size_t at = SIZE_MAX;
	for (size_t i = lo; i < hi && at == SIZE_MAX; i++)
		if (view_source(v, i) == src)
			at = i;
	if (at != SIZE_MAX && rule_holds(view_rule(p, v, at), compat32, sd)) {
		e->rule = (int)src;
		return;
	}
	/* The action comes from comparisons of a rule that does not hold;
	 * a rule that holds and has that action still stands for it. */
	for (size_t i = lo; i < hi && e->rule < 0; i++)
		if (view_rule(p, v, i)->action == act && rule_holds(view_rule(p, v, i), compat32, sd))
			e->rule = (int)view_source(v, i);
	e->order_rule = (int)src;
	if (src < p->nrules)
		e->order_failed = ~conds_mask(&p->rules[src], compat32,
					      compat32 && p->merge == SCMPC_MERGE_LIBSECCOMP, sd) &
				  all_conds(p->rules[src].nconds);
}

SCMPC_API int scmpc_policy_explain(const scmpc_policy *p, const struct seccomp_data *sd,
				   struct scmpc_explanation *out, scmpc_diag *d)
{
	struct arch_view views[SCMPC_ARCH_COUNT];
	struct scmpc_explanation e = {
		.rule = -1, .order_rule = -1, .overridden = -1,
	};

	if (!p || !sd || !out)
		return diag_err(d, -EINVAL, NULL, "no policy, call or explanation");
	if (out->sz < OPTS_END(scmpc_explanation, matching))
		return diag_err(d, -EINVAL, NULL, "struct scmpc_explanation: sz %zu is smaller than "
				"its first release (%zu)", out->sz, OPTS_END(scmpc_explanation, matching));
	int rc = policy_views_init(p, views, d);
	if (rc < 0)
		return rc;
	uint32_t nr = (uint32_t)sd->nr;
	enum scmpc_arch a = arch_of_call(sd->arch, nr);
	bool audit_known = false;
	const struct arch_view *v = NULL;

	for (size_t i = 0; i < p->narches; i++)
		if (arch_info(p->arches[i])->audit == sd->arch)
			audit_known = true;
	/* As policy_decide(): the stub first, then nr == -1, then the ABI. */
	const struct limit *l = audit_known ? call_limit(p, sd->arch, nr) : NULL;
	if (limit_hits(l, nr)) {
		e.action = e.severity_action = l->action;
		e.reason = SCMPC_REASON_LIMIT;
		e.arch = a;
		goto done;
	}
	if (audit_known && nr == 0xffffffffU) {
		size_t lo, hi;
		v = minus1_view(p, views, sd->arch, &lo, &hi);
		if (!v) {
			e.action = e.severity_action = p->def_action;
			e.reason = SCMPC_REASON_DEFAULT;
			e.arch = a;
			goto done;
		}
	}
	for (size_t i = 0; i < p->narches && !v; i++)
		if (views[i].arch == a)
			v = &views[i];
	if (v) {
		explain_on_view(p, v, sd, &e);
	} else {
		e.action = e.severity_action = p->badarch_action;
		e.reason = SCMPC_REASON_BAD_ARCH;
	}
done:
	policy_views_fini(p, views, p->narches);
	OUT_FILL(out, e);
	return 0;
}

SCMPC_API int scmpc_policy_copy(const scmpc_policy *p, const bool *keep, scmpc_policy **out,
				scmpc_diag *d)
{
	if (!out)
		return diag_err(d, -EINVAL, NULL, "no place for the copy");
	*out = NULL;
	if (!p)
		return diag_err(d, -EINVAL, NULL, "no policy");
	scmpc_policy *q = policy_new_like(p);
	if (!q)
		return diag_err(d, -ENOMEM, NULL, "out of memory");
	q->rules = calloc(p->nrules ? p->nrules : 1, sizeof(*q->rules));
	if (!q->rules) {
		scmpc_policy_free(q);
		return diag_err(d, -ENOMEM, NULL, "out of memory");
	}
	q->cap = p->nrules ? p->nrules : 1;
	for (size_t i = 0; i < p->nrules; i++) {
		if (keep && !keep[i])
			continue;
		const struct rule *r = &p->rules[i];
		struct rule *c = &q->rules[q->nrules];
		*c = *r;
		c->name = NULL;
		c->origin = NULL;
		c->conds = NULL;
		/* Counted first, so that a failure frees what was copied. */
		q->nrules++;
		if ((r->name && !(c->name = strdup(r->name))) ||
		    (r->origin && !(c->origin = strdup(r->origin))) ||
		    (r->nconds && !(c->conds = malloc(r->nconds * sizeof(*c->conds))))) {
			scmpc_policy_free(q);
			return diag_err(d, -ENOMEM, NULL, "out of memory");
		}
		if (r->nconds)
			memcpy(c->conds, r->conds, r->nconds * sizeof(*c->conds));
	}
	*out = q;
	return 0;
}
