/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Dispatch over syscall numbers: for each AUDIT_ARCH value of the policy,
 * the number space split into ranges that decide alike (the rules' calls,
 * the gaps between them with their fallbacks, runc's stub limits, x32's
 * part of x86_64's space, -1), each range a leaf of a search tree laid out
 * by layout.c, and the sections chained on seccomp_data.arch.  The
 * argument checks below a call's leaf come from lower.c.
 */
#include <linux/filter.h>
#include <stddef.h>
#include <stdlib.h>
#include "compiler/argfirst.h"
#include "compiler/layout.h"
#include "compiler/lower.h"
#include "compiler/prune.h"
#include "front/workload.h"
#include "policy/lsc_tree.h"

/* One part of the number space of an AUDIT_ARCH value and who decides it. */
struct segment {
	uint32_t lo, hi;
	const struct arch_view *v;	/* NULL: the bad-arch action */
	const struct limit *lim;	/* runc's stub for this part, or NULL */
};

/* Where the fallback of V may change inside [lo, hi]. */
static void fallback_cuts(const struct arch_view *v, uint32_t lo, uint32_t hi, uint32_t *cuts,
			  size_t *n)
{
	uint32_t plo, phi;
	bool priv = arch_private_range(v->info, &plo, &phi);
	uint32_t cand[3] = { v->threshold + 1, plo, phi + 1 };
	*n = 0;
	cuts[(*n)++] = lo;
	for (size_t i = 0; i < 3; i++) {
		if (i == 0 && v->threshold == UINT32_MAX)
			continue;
		if (i > 0 && !priv)
			continue;
		if (cand[i] > lo && cand[i] <= hi)
			cuts[(*n)++] = cand[i];
	}
	qsort(cuts, *n, sizeof(*cuts), cmp_uint32);
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

static uint32_t syscall_node_of(struct dag *g, struct pruner *pr, const scmpc_policy *p,
				const struct arch_view *v, size_t lo, size_t hi, enum lower_mode mode);

/* The lowered decision of one call; the call is named if a bound of the
 * compiler is reached on it. */
static uint32_t syscall_node(struct dag *g, struct pruner *pr, const scmpc_policy *p,
			     const struct arch_view *v, size_t lo, size_t hi, enum lower_mode mode)
{
	uint32_t node = syscall_node_of(g, pr, p, v, lo, hi, mode);
	if (g->too_big && !g->blamed) {
		g->blamed = true;
		g->blame_abi = v->info->name;
		g->blame_nr = v->rs[lo].nr;
		g->blame_call = arch_syscall_name(v->info, v->rs[lo].nr);
		g->blame_rules = hi - lo;
	}
	return node;
}

/* The lowered decision of one syscall, unless the plain chain of its rules
 * is smaller: masks that span both halves of a word, or conditions on
 * several arguments, can make every subset of rules a separate subtree.
 * Either is pruned of the tests whose outcome is implied (prune.c) before
 * they are compared: the chain has the more of them. */
static uint32_t syscall_node_of(struct dag *g, struct pruner *pr, const scmpc_policy *p,
				const struct arch_view *v, size_t lo, size_t hi, enum lower_mode mode)
{
	/* libseccomp's order decides this call: its tree, as it is, less
	 * the tests it repeats. */
	const struct lsc_tree *t = view_tree(v, v->rs[lo].nr);
	if (t)
		return prune_call(pr, lsc_tree_lower(g, t, v->info, dag_ret(g, p->def_action)),
				  offsetof(struct seccomp_data, nr));
	bool conds = false;
	for (size_t i = lo; i < hi; i++)
		conds |= view_rule(p, v, i)->nconds > 0;
	/* The subtrees can outgrow any program long before the search ends;
	 * past a few programs' worth of nodes (or a quarter of the time
	 * budget), the chain it is. */
	struct dag_mark m;
	if (conds)
		dag_trial_begin(g, &m, 8 * BPF_MAXINSNS, DAG_MAX_WORK / 4);
	uint32_t opt = lower_syscall(g, p, v, lo, hi, mode);
	if (conds && !dag_trial_end(g, &m))
		return prune_call(pr, lower_naive_syscall(g, p, v, lo, hi),
				  offsetof(struct seccomp_data, nr));
	if (opt == NODE_NONE || !conds)
		return opt;
	opt = prune_lowered(pr, opt, offsetof(struct seccomp_data, nr));
	uint32_t chain = lower_naive_syscall(g, p, v, lo, hi);
	if (chain == NODE_NONE || opt == NODE_NONE)
		return NODE_NONE;
	/* The chain is pruned only when it is taken: a walk of thousands of
	 * rules' chain costs time, and pruning can only make it smaller. */
	if (dag_reach(g, chain) >= dag_reach(g, opt))
		return opt;
	return prune_call(pr, chain, offsetof(struct seccomp_data, nr));
}

/* The ranges of [LO, HI] that V's rules and fallbacks decide. */
static bool number_part(struct dag *g, struct pruner *pr, const scmpc_policy *p,
			const struct arch_view *v,
			struct range_vec *rv, uint32_t lo, uint32_t hi, uint32_t hot_lo,
			enum lower_mode mode)
{
	uint32_t next = lo;
	size_t i = 0, j;
	arch_view_find(v, lo, &i, &j);
	for (; i < v->nrs && v->rs[i].nr <= hi; i = j) {
		uint32_t nr = v->rs[i].nr;
		for (j = i; j < v->nrs && v->rs[j].nr == nr; j++)
			;
		if (nr > next && !push_gap(g, p, v, rv, next, nr - 1, hot_lo))
			return false;
		if (!push_range(g, rv, nr, nr, syscall_node(g, pr, p, v, i, j, mode), hot_lo))
			return false;
		if (nr == hi)
			return true;
		next = nr + 1;
	}
	return push_gap(g, p, v, rv, next, hi, hot_lo);
}

/*
 * A workload's weights on the ranges: each range carries the calls that
 * land in it and pay for the filter, scaled so the whole workload weighs
 * HOT_SCALE, on top of its weight without a workload (at most 1024 in
 * all), which then only tells apart trees the workload does not.  A call
 * the kernel serves from its action cache (a constant ALLOW of an ABI it
 * caches) never runs the filter and weighs nothing.  False when no call
 * pays, so the tree is laid out as without a workload.
 */
#define HOT_SCALE (1u << 30)

/* Weigh RV's ranges by the workload calls that pay for the filter in them; false without memory. */
static bool hot_weights(struct dag *g, struct range_vec *rv, const struct hot_call *calls,
			size_t ncalls)
{
	double total = 0;
	size_t c = 0;
	/* First pass: the paying count per range, kept in a scratch array. */
	double *raw = calloc(rv->n ? rv->n : 1, sizeof(*raw));
	if (!raw) {
		g->oom = true;
		return false;
	}
	for (size_t i = 0; i < rv->n; i++) {
		uint32_t hi = i + 1 < rv->n ? rv->v[i + 1].lo - 1 : UINT32_MAX;
		const struct node *nd = dag_node(g, rv->v[i].node);
		bool const_allow = nd->kind == N_RET && nd->k == SCMPC_ACT_ALLOW;
		for (; c < ncalls && calls[c].nr <= hi; c++)
			if (calls[c].nr >= rv->v[i].lo && !(const_allow && calls[c].cached))
				raw[i] += (double)calls[c].count;
		total += raw[i];
	}
	if (total > 0)
		for (size_t i = 0; i < rv->n; i++)
			rv->v[i].weight += (uint32_t)(raw[i] / total * HOT_SCALE + 0.5);
	free(raw);
	return total > 0;
}

/* The search tree over one AUDIT_ARCH value's syscall numbers: runc's stub, each range's node,
 * laid out by the layout. */
static uint32_t number_tree(struct dag *g, struct pruner *pr, const scmpc_policy *p,
			    const struct arch_view *views,
			    const struct segment *segs, size_t nseg, uint32_t hot_lo, enum lower_mode mode,
			    unsigned slack, const struct hot_call *calls, size_t ncalls,
			    struct range_vec *keep)
{
	struct range_vec rv = { 0 };
	uint32_t root = NODE_NONE;

	for (size_t s = 0; s < nseg; s++) {
		const struct segment *sg = &segs[s];
		uint32_t lo = sg->lo, hi = sg->hi;
		/* runc's stub first: 0 (s390) and the numbers above its max. */
		if (sg->lim) {
			uint32_t act = sg->lim->action;
			if (lo == 0 && (sg->lim->flags & SCMPC_LIMIT_ZERO)) {
				if (!push_range(g, &rv, 0, 0, dag_ret(g, act), hot_lo))
					goto out;
				if (hi == 0)
					continue;
				lo = 1;
			}
			if (sg->lim->max < lo) {
				if (!push_range(g, &rv, lo, hi, dag_ret(g, act), hot_lo))
					goto out;
				continue;
			}
			if (sg->lim->max < hi)
				hi = sg->lim->max;
		}
		if (!sg->v) {
			if (!push_range(g, &rv, lo, hi, dag_ret(g, p->badarch_action), hot_lo))
				goto out;
		} else if (!number_part(g, pr, p, sg->v, &rv, lo, hi, hot_lo, mode)) {
			goto out;
		}
		if (hi < sg->hi &&
		    !push_range(g, &rv, hi + 1, sg->hi, dag_ret(g, sg->lim->action), hot_lo))
			goto out;
	}
	/* nr == -1 is a tracer skipping the call: the default on every ABI,
	 * unless runc's stub (which does not tell -1 apart) says otherwise, or
	 * rules name -1 itself (libseccomp's API_TSKIP).  The stub lies in the
	 * last part, x32's on x86_64. */
	const struct limit *top = nseg ? segs[nseg - 1].lim : NULL;
	const struct arch_view *mv = NULL;
	uint32_t minus1;
	size_t lo1, hi1;
	for (size_t s = 0; s < nseg && !mv && !limit_hits(top, UINT32_MAX); s++)
		if (segs[s].v)
			mv = minus1_view(p, views, segs[s].v->info->audit, &lo1, &hi1);
	if (mv)
		minus1 = syscall_node(g, pr, p, mv, lo1, hi1, mode);
	else
		minus1 = dag_ret(g, limit_hits(top, UINT32_MAX) ? top->action : p->def_action);
	if (!push_range(g, &rv, UINT32_MAX, UINT32_MAX, minus1, hot_lo))
		goto out;
	/* Laid out for size, the number search too prefers fewer tests to a
	 * shorter mean path, its worst path still the least. */
	if (hot_weights(g, &rv, calls, ncalls))
		root = hot_layout(g, rv.v, rv.n);
	else if (mode == LOWER_CAPPED || mode == LOWER_CAPPED_EBPF)
		root = layout_capped(g, rv.v, rv.n, slack, mode == LOWER_CAPPED_EBPF);
	else {
		bool path = mode == LOWER_PATH || mode == LOWER_PATH_ARGFIRST;
		enum layout_goal goal = path ? LAYOUT_NUMBERS : LAYOUT_NUMBERS_SIZE;
		root = layout_tree(g, rv.v, rv.n, goal);
		if (mode == LOWER_PATH_ARGFIRST)
			root = argfirst_tree(g, rv.v, rv.n, goal, root);
	}
out:
	if (keep && root != NODE_NONE)
		*keep = rv;
	else
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

/* The sections chained on seccomp_data.arch, in the policy's order, after
 * the errors the DAG holds. */
static int64_t arch_chain(struct dag *g, const scmpc_policy *p, const uint32_t *audits,
			  const uint32_t *sections, size_t naudit, scmpc_diag *d)
{
	if (g->too_big)
		return dag_limit_error(g, d);
	if (g->oom)
		return diag_err(d, -ENOMEM, NULL, "out of memory");

	uint32_t chain = dag_ret(g, p->badarch_action);
	for (size_t k = naudit; k-- > 0;)
		chain = dag_jmp(g, BPF_JEQ, audits[k],
				dag_ld(g, offsetof(struct seccomp_data, nr), sections[k]), chain);
	chain = dag_ld(g, offsetof(struct seccomp_data, arch), chain);
	if (chain == NODE_NONE)
		return diag_err(d, -ENOMEM, NULL, "out of memory");
	return chain;
}

void lowered_free(struct lowered *k)
{
	for (size_t s = 0; s < k->n; s++)
		range_vec_free(&k->rv[s]);
	k->n = 0;
}

int64_t lower_argfirst(struct dag *g, const scmpc_policy *p, const struct lowered *k,
		       scmpc_diag *d)
{
	uint32_t sections[SCMPC_ARCH_COUNT];
	size_t naudit = 0;
	for (; naudit < k->n; naudit++) {
		const struct range_vec *rv = &k->rv[naudit];
		sections[naudit] = argfirst_tree(g, rv->v, rv->n, LAYOUT_NUMBERS, k->roots[naudit]);
		if (sections[naudit] == NODE_NONE)
			break;
	}
	if (naudit < k->n)
		g->oom = true;
	return arch_chain(g, p, k->audits, sections, naudit, d);
}

int64_t lower_policy(struct dag *g, const scmpc_policy *p, struct arch_view *views,
		     enum lower_mode mode, unsigned slack, const scmpc_workload *hot,
		     struct lowered *keep, scmpc_diag *d)
{
	/* One section per AUDIT_ARCH value, in the policy's order. */
	uint32_t audits[SCMPC_ARCH_COUNT], sections[SCMPC_ARCH_COUNT];
	size_t naudit = 0;
	struct pruner *pr = pruner_new(g);
	if (!pr)
		return diag_err(d, -ENOMEM, NULL, "out of memory");

	for (size_t i = 0; i < p->narches; i++) {
		const struct arch_info *ai = arch_info(p->arches[i]);
		bool seen = false;
		for (size_t k = 0; k < naudit; k++)
			seen |= audits[k] == ai->audit;
		if (seen)
			continue;

		struct segment segs[4];
		size_t nseg = 0;
		uint32_t hot_lo = ai->nr_base;	/* where the ABI's numbers start */
		if (ai->audit == arch_info(SCMPC_ARCH_X86_64)->audit) {
			/* x32 numbers carry bit 30; every number from there up
			 * belongs to x32 (or, without x32 rules, to a foreign
			 * ABI), as in libseccomp.  -1 gets the default. */
			const struct arch_view *v64 = find_view(views, p->narches, SCMPC_ARCH_X86_64);
			const struct arch_view *v32 = find_view(views, p->narches, SCMPC_ARCH_X32);
			hot_lo = v64 ? 0 : X32_SYSCALL_BIT;	/* x32 alone: its numbers are hot */
			/* runc's stub picks its limit by bit 30, libseccomp its
			 * section by range: 0x80000000-0xbfffffff go to x32's
			 * rules under x86_64's limit. */
			uint32_t x86 = ai->audit;
			segs[nseg++] = (struct segment){ 0, X32_SYSCALL_BIT - 1, v64,
							 call_limit(p, x86, 0) };
			segs[nseg++] = (struct segment){ X32_SYSCALL_BIT, 0x7fffffffU, v32,
							 call_limit(p, x86, X32_SYSCALL_BIT) };
			segs[nseg++] = (struct segment){ 0x80000000U, 0xbfffffffU, v32,
							 call_limit(p, x86, 0) };
			segs[nseg++] = (struct segment){ 0xc0000000U, 0xfffffffeU, v32,
							 call_limit(p, x86, X32_SYSCALL_BIT) };
		} else {
			segs[nseg++] = (struct segment){ 0, 0xfffffffeU, &views[i],
							 call_limit(p, ai->audit, 0) };
		}
		/* Without a stub telling them apart, x32's three parts are one:
		 * lowering its rules once per part would triple them. */
		size_t kept = 1;
		for (size_t k = 1; k < nseg; k++) {
			struct segment *prev = &segs[kept - 1];
			if (segs[k].v == prev->v && segs[k].lim == prev->lim && prev->hi + 1 == segs[k].lo)
				prev->hi = segs[k].hi;
			else
				segs[kept++] = segs[k];
		}
		nseg = kept;
		/* A workload's entries without an ABI are calls of the section's
		 * own: x86_64's, not x32's, when the policy has both. */
		struct hot_call *calls = NULL;
		long ncalls = 0;
		if (hot) {
			enum scmpc_arch own = segs[0].v ? segs[0].v->arch : ai->arch;
			ncalls = hot_calls(hot, p, ai->audit, own, &calls);
			if (ncalls < 0) {
				g->oom = true;
				break;
			}
		}
		uint32_t tree = number_tree(g, pr, p, views, segs, nseg, hot_lo, mode, slack,
					    calls, (size_t)ncalls, keep ? &keep->rv[naudit] : NULL);
		free(calls);
		if (tree == NODE_NONE)
			break;
		audits[naudit] = ai->audit;
		sections[naudit++] = tree;
		if (keep) {
			keep->audits[keep->n] = ai->audit;
			keep->roots[keep->n++] = tree;
		}
	}
	pruner_free(pr);
	return arch_chain(g, p, audits, sections, naudit, d);
}
