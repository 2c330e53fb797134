/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* The reference meaning of a policy: rules evaluated one by one on concrete
 * values.  The verifier checks compiled programs against this, so it must
 * share no decision logic with the compiler (lower.c, layout.c). */
#include <stdlib.h>
#include <string.h>
#include "internal.h"

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

uint32_t eval_on_view(const scmpc_policy *p, const struct arch_view *v,
		      const struct seccomp_data *sd, int *rule)
{
	uint32_t nr = (uint32_t)sd->nr;
	size_t lo, hi;
	int best_rule = -1;
	uint32_t best = 0;

	if (nr == 0xffffffffU) {
		if (rule)
			*rule = -1;
		return p->def_action;
	}
	arch_view_find(v, nr, &lo, &hi);
	for (size_t i = lo; i < hi; i++) {
		const struct rule *r = &p->rules[v->rs[i].rule];
		bool all = true;
		for (size_t c = 0; c < r->nconds && all; c++)
			all = cond_holds(&r->conds[c], v->info->compat32, sd);
		if (!all)
			continue;
		if (best_rule < 0 || scmpc_action_cmp(r->action, best) < 0) {
			best = r->action;
			best_rule = (int)v->rs[i].rule;
		}
	}
	if (rule)
		*rule = best_rule;
	if (best_rule >= 0)
		return best;
	if (lo < hi)	/* named, but no rule matched: the default, never "unknown" */
		return p->def_action;
	return arch_view_fallback(p, v, nr);
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
	if (audit_known && nr == 0xffffffffU)
		return p->def_action;
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
	if (policy_views_init(p, views, NULL) < 0) {
		if (rule)
			*rule = -1;
		return p->badarch_action;
	}
	uint32_t act = policy_decide(p, views, sd, rule);
	policy_views_fini(p, views, p->narches);
	return act;
}
