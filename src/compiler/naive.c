/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * The unoptimised lowering: one equality test per syscall in a chain, the
 * rules of a syscall tried in precedence order, each 64-bit condition as
 * the textbook high-word/low-word sequence.  It shares no lowering or
 * layout code with lower.c and layout.c (only the DAG and emitter, and the
 * ABI facts of arch.c), so differential tests can hold the optimised output
 * against it.  lower.c in turn uses lower_naive_syscall() as a candidate:
 * for a syscall whose lowered tree would be larger than this chain, the
 * chain is emitted instead.
 */
#include <linux/filter.h>
#include <stddef.h>
#include <stdlib.h>
#include "compiler/lower.h"
#include "policy/lsc_tree.h"


/* Test of the low word alone: A = lo(arg) (or its masked value). */
static uint32_t cmp32(struct dag *g, uint8_t op, uint32_t k, uint32_t t, uint32_t f)
{
	switch (op) {
	case SCMPC_OP_EQ: return dag_jmp(g, BPF_JEQ, k, t, f);
	case SCMPC_OP_NE: return dag_jmp(g, BPF_JEQ, k, f, t);
	case SCMPC_OP_GT: return dag_jmp(g, BPF_JGT, k, t, f);
	case SCMPC_OP_GE: return dag_jmp(g, BPF_JGE, k, t, f);
	case SCMPC_OP_LT: return dag_jmp(g, BPF_JGE, k, f, t);
	default: /* LE */ return dag_jmp(g, BPF_JGT, k, f, t);
	}
}

/* Condition C as the textbook test of its words: to T when it holds, else to F. */
static uint32_t cond_node(struct dag *g, const struct scmpc_cond *c, const struct arch_info *ai,
			  uint32_t t, uint32_t f)
{
	bool wide = !ai->compat32 && !(c->flags & SCMPC_COND_32BIT);
	uint32_t off_lo = arch_arg_offset(ai, c->arg, false);
	uint32_t off_hi = arch_arg_offset(ai, c->arg, true);
	uint32_t lo = (uint32_t)c->value, hi = (uint32_t)(c->value >> 32);

	if (c->op == SCMPC_OP_MASKED_EQ) {
		uint32_t mlo = (uint32_t)c->value, dlo = (uint32_t)c->value2;
		uint32_t low = dag_ld(g, off_lo,
				      dag_and(g, mlo, dag_jmp(g, BPF_JEQ, dlo, t, f)));
		if (!wide)
			return (c->value2 >> 32) ? f : low;
		return dag_ld(g, off_hi,
			      dag_and(g, (uint32_t)(c->value >> 32),
				      dag_jmp(g, BPF_JEQ, (uint32_t)(c->value2 >> 32), low, f)));
	}
	if (!wide) {
		if (c->value > UINT32_MAX) {
			bool always = c->op == SCMPC_OP_NE || c->op == SCMPC_OP_LT ||
				      c->op == SCMPC_OP_LE;
			return always ? t : f;
		}
		return dag_ld(g, off_lo, cmp32(g, c->op, lo, t, f));
	}
	uint32_t low = dag_ld(g, off_lo, cmp32(g, c->op, lo, t, f));
	uint32_t above, below;
	switch (c->op) {
	case SCMPC_OP_EQ: above = f; below = f; break;
	case SCMPC_OP_NE: above = t; below = t; break;
	case SCMPC_OP_GT: case SCMPC_OP_GE: above = t; below = f; break;
	default: above = f; below = t; break;
	}
	return dag_ld(g, off_hi,
		      dag_jmp(g, BPF_JGT, hi, above, dag_jmp(g, BPF_JEQ, hi, low, below)));
}

struct ranked {
	uint32_t action, rule;
};

static int cmp_ranked(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;
	int r = scmpc_action_cmp(x->action, y->action);
	return r ? r : (x->rule > y->rule) - (x->rule < y->rule);
}

/* Rules [lo, hi) of V for one number, most restrictive tested first. */
uint32_t lower_naive_syscall(struct dag *g, const scmpc_policy *p, const struct arch_view *v,
			   size_t lo, size_t hi)
{
	const struct lsc_tree *t = view_tree(v, v->rs[lo].nr);
	if (t)
		return lsc_tree_lower(g, t, v->info, dag_ret(g, p->def_action));
	struct ranked *rk = malloc((hi - lo) * sizeof(*rk));
	if (!rk) {
		g->oom = true;
		return NODE_NONE;
	}
	for (size_t i = lo; i < hi; i++)
		rk[i - lo] = (struct ranked){ view_rule(p, v, i)->action, (uint32_t)i };
	qsort(rk, hi - lo, sizeof(*rk), cmp_ranked);
	uint32_t next = dag_ret(g, p->def_action);
	for (size_t i = hi - lo; i-- > 0;) {
		const struct rule *r = view_rule(p, v, rk[i].rule);
		uint32_t node = dag_ret(g, r->action);
		for (size_t k = r->nconds; k-- > 0;)
			node = cond_node(g, &r->conds[k], v->info, node, next);
		next = node;
	}
	free(rk);
	return next;
}

/* Numbers no rule names, with A = nr. */
static uint32_t fallback_node(struct dag *g, const scmpc_policy *p, const struct arch_view *v)
{
	uint32_t def = dag_ret(g, p->def_action);
	if (!v->unknown_set || v->threshold == UINT32_MAX)
		return def;
	uint32_t unk = dag_ret(g, p->unknown_action), plo, phi;
	if (arch_private_range(v->info, &plo, &phi))
		unk = dag_jmp(g, BPF_JGE, plo, dag_jmp(g, BPF_JGT, phi, unk, def), unk);
	return dag_jmp(g, BPF_JGT, v->threshold, dag_jmp(g, BPF_JEQ, UINT32_MAX, def, unk), def);
}

/* One ABI's calls as a chain of jeq on the number, each to its rules, ending in the fallback. */
static uint32_t chain_node(struct dag *g, const scmpc_policy *p, const struct arch_view *v,
			   bool x32_part)
{
	uint32_t next = fallback_node(g, p, v);
	size_t i = v->nrs;
	while (i > 0) {
		size_t j = i;
		uint32_t nr = v->rs[i - 1].nr;
		while (i > 0 && v->rs[i - 1].nr == nr)
			i--;
		if (nr == UINT32_MAX)
			continue;
		if (v->info->audit == arch_info(SCMPC_ARCH_X86_64)->audit &&
		    (nr >= X32_SYSCALL_BIT) != x32_part)
			continue;	/* unreachable through this part */
		next = dag_jmp(g, BPF_JEQ, nr, lower_naive_syscall(g, p, v, i, j), next);
	}
	return next;
}

/* runc's stub in front of INNER (A = nr): 0 (s390) and numbers above the
 * limit get its action. */
static uint32_t stub_node(struct dag *g, const struct limit *l, uint32_t inner)
{
	if (!l)
		return inner;
	uint32_t act = dag_ret(g, l->action);
	uint32_t node = dag_jmp(g, BPF_JGT, l->max, act, inner);
	if (l->flags & SCMPC_LIMIT_ZERO)
		node = dag_jmp(g, BPF_JEQ, 0, act, node);
	return node;
}

/* nr == -1 under AUDIT: the rules of the first ABI that names it, or the
 * default. */
static uint32_t minus1_node(struct dag *g, const scmpc_policy *p, const struct arch_view *views,
			    uint32_t audit)
{
	size_t lo, hi;
	const struct arch_view *mv = minus1_view(p, views, audit, &lo, &hi);
	return mv ? lower_naive_syscall(g, p, mv, lo, hi) : dag_ret(g, p->def_action);
}

int64_t lower_naive(struct dag *g, const scmpc_policy *p, struct arch_view *views,
		    scmpc_diag *d)
{
	uint32_t chain = dag_ret(g, p->badarch_action);
	uint32_t x86 = arch_info(SCMPC_ARCH_X86_64)->audit;

	for (size_t i = p->narches; i-- > 0;) {
		const struct arch_view *v = &views[i];
		uint32_t section;
		if (v->info->audit == x86) {
			const struct arch_view *v64 = NULL, *v32 = NULL;
			size_t first = SIZE_MAX;
			for (size_t k = 0; k < p->narches; k++) {
				if (views[k].info->audit != x86)
					continue;
				if (first == SIZE_MAX)
					first = k;
				if (views[k].arch == SCMPC_ARCH_X86_64)
					v64 = &views[k];
				else
					v32 = &views[k];
			}
			if (first != i)
				continue;	/* one section for x86_64 and x32 */
			uint32_t bad = dag_ret(g, p->badarch_action);
			uint32_t part64 = v64 ? chain_node(g, p, v64, false) : bad;
			uint32_t part32 = v32 ? chain_node(g, p, v32, true) : bad;
			section = dag_jmp(g, BPF_JEQ, UINT32_MAX, minus1_node(g, p, views, x86),
					  dag_jmp(g, BPF_JGE, X32_SYSCALL_BIT, part32, part64));
			/* runc's stub, as it tests: bit 30 picks x32's limit. */
			const struct limit *l64 = call_limit(p, x86, 0);
			const struct limit *l32 = call_limit(p, x86, X32_SYSCALL_BIT);
			if (l64 || l32)
				section = dag_jmp(g, BPF_JSET, X32_SYSCALL_BIT, stub_node(g, l32, section),
						  stub_node(g, l64, section));
		} else {
			section = stub_node(g, call_limit(p, v->info->audit, 0),
					    dag_jmp(g, BPF_JEQ, UINT32_MAX,
						    minus1_node(g, p, views, v->info->audit),
						    chain_node(g, p, v, false)));
		}
		chain = dag_jmp(g, BPF_JEQ, v->info->audit,
				dag_ld(g, offsetof(struct seccomp_data, nr), section), chain);
	}
	chain = dag_ld(g, offsetof(struct seccomp_data, arch), chain);
	if (g->too_big)
		return dag_limit_error(g, d);
	if (g->oom || chain == NODE_NONE)
		return diag_err(d, -ENOMEM, NULL, "out of memory");
	return chain;
}
