/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* Lifting: how the policy IR says each ABI's decision. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "program/lift.h"

/* ------------------------------------------------------------------ fit */

/* The ABI's private calls, never "unknown" (ARM's). */
static bool priv_range(const struct abi *ab, uint32_t *lo, uint32_t *hi)
{
	return arch_private_range(ab->info, lo, hi);
}

/*
 * A plan's cost: first the rules that test arguments (what the compiled
 * program pays for), then the numbers that need rules at all (bounded by
 * MAX_RULE_NUMBERS; an unconditional rule costs the program nothing, the
 * number ranges being laid out alike whatever decides them).
 */
#define COST_NUMS_BITS 20
#define COST_NUMS_MASK ((1ULL << COST_NUMS_BITS) - 1)

static uint64_t cost_pack(uint64_t rules, uint64_t nums)
{
	if (nums > MAX_RULE_NUMBERS)
		return COST_INF;
	if (rules > (COST_INF >> COST_NUMS_BITS) - 1)
		rules = (COST_INF >> COST_NUMS_BITS) - 1;
	return (rules << COST_NUMS_BITS) | nums;
}

static uint64_t cost_add(uint64_t a, uint64_t b)
{
	if (a == COST_INF || b == COST_INF)
		return COST_INF;
	uint64_t ra = a >> COST_NUMS_BITS, rb = b >> COST_NUMS_BITS;
	uint64_t cap = (COST_INF >> COST_NUMS_BITS) - 1;
	return cost_pack(ra > cap - rb ? cap : ra + rb, (a & COST_NUMS_MASK) + (b & COST_NUMS_MASK));
}

/* Argument-testing rules one number needs under default D. */
static uint64_t dep_rules(const struct retw *rw, size_t n, uint32_t d)
{
	uint64_t sum = 0;
	for (size_t i = 0; i < n; i++)
		if (rw[i].ret != d)
			sum += rw[i].rules;
	return sum;
}

/* Limit options: none; the top run of one action in the limit's numbers;
 * for x86_64, a limit at 0x7fffffff that decides R3 alone. */
enum { LIM_NONE, LIM_TOP, LIM_R3 };

static bool in_r3(uint64_t n)
{
	return n >= R3_LO && n <= R3_HI;
}

/* x32's numbers in R3 all get one action, *C. */
static bool r3_const(const struct abi *x32, uint32_t *c)
{
	bool any = false;
	for (size_t j = 0; j < x32->nsegs; j++) {
		const struct seg *s = &x32->segs[j];
		if (!in_r3(s->lo))
			continue;
		if (s->dep || (any && s->ret != *c))
			return false;
		*c = s->ret;
		any = true;
	}
	return any;
}

/* The limit of option OPT for AB, into PL; false when the program's
 * decision does not allow it.  R3SRC: x32's decision of R3, when known. */
static bool lim_candidate(const struct abi *ab, int opt, const struct abi *r3src,
			  const struct dec *m1_lim, struct plan *pl)
{
	uint32_t c;
	if (opt == LIM_R3) {
		if (ab->arch != SCMPC_ARCH_X86_64 || !r3src || !r3_const(r3src, &c))
			return false;
		pl->lim = true;
		pl->lim_max = R3_LO - 1;
		pl->lim_act = c;
		return true;
	}
	/* The limit decides every number of its own above it (x32's: those
	 * with bit 30, R3 left out), -1 too when it is the ABI's: the top
	 * run of one constant action. */
	size_t j = ab->nsegs;
	while (j > 0 && ab->arch == SCMPC_ARCH_X32 && in_r3(ab->segs[j - 1].lo))
		j--;
	if (!j || ab->segs[j - 1].dep)
		return false;
	c = ab->segs[--j].ret;
	for (;;) {
		size_t k = j;
		while (k > 0 && ab->arch == SCMPC_ARCH_X32 && in_r3(ab->segs[k - 1].lo))
			k--;
		if (!k || !seg_is(&ab->segs[k - 1], c))
			break;
		j = k - 1;
	}
	if (m1_lim && !dec_is(m1_lim, c))
		return false;
	/* x86_64's limit decides R3 as well. */
	uint32_t r3 = 0;
	if (ab->arch == SCMPC_ARCH_X86_64 && r3src && (!r3_const(r3src, &r3) || r3 != c))
		return false;
	pl->lim = true;
	pl->lim_act = c;
	if (ab->segs[j].lo == 0) {
		pl->lim_max = 0;	/* and number 0 by SCMPC_LIMIT_ZERO */
		pl->lim_flags = SCMPC_LIMIT_ZERO;
	} else {
		pl->lim_max = ab->segs[j].lo - 1;
	}
	return true;
}

/* Whether number N of AB's rules is decided before them, by a limit. */
static bool covered(const struct abi *ab, const struct plan *pl, uint64_t n)
{
	if (pl->r3 && in_r3(n))
		return true;
	if (!pl->lim)
		return false;
	if (ab->arch == SCMPC_ARCH_X32)
		return (n & X32_SYSCALL_BIT) && n > pl->lim_max;
	return n > pl->lim_max || (n == 0 && (pl->lim_flags & SCMPC_LIMIT_ZERO));
}

/* The last number of the piece from X to at most END that no cut splits. */
static uint64_t piece_end(uint64_t x, uint64_t end, const uint64_t *cuts, size_t nc)
{
	for (size_t c = 0; c < nc; c++)
		if (cuts[c] > x && cuts[c] - 1 < end)
			end = cuts[c] - 1;
	return end;
}

/*
 * Rules ABI AB needs under F with limit option OPT (R3: x86_64's limit
 * decides R3 for x32), and the plan: the count of numbers that need rules,
 * or COST_INF when it cannot be said.  M1_LIM is the -1 decision when AB's
 * limit would decide -1 too; M1_RULES the -1 decision when its rules go on
 * AB.  With E, the rules are written as well: counting and writing share
 * this walk, so the policy is what was counted.
 */
static uint64_t abi_plan(struct abi *ab, const struct fitp *f, const struct dec *m1_lim,
			 const struct dec *m1_rules, int opt, bool r3, const struct abi *r3src,
			 struct plan *pl, struct emitter *e, int *err)
{
	uint64_t cost = 0, drules = 0, cuts[6];
	size_t nc = 0;
	uint32_t plo = 1, phi = 0;
	bool has_priv = priv_range(ab, &plo, &phi);

	memset(pl, 0, sizeof(*pl));
	pl->teff = -1;
	pl->r3 = r3;
	if (opt != LIM_NONE && !lim_candidate(ab, opt, r3src, m1_lim, pl))
		return COST_INF;
	if (pl->lim) {
		cuts[nc++] = (uint64_t)pl->lim_max + 1;
		cuts[nc++] = 1;		/* number 0 under SCMPC_LIMIT_ZERO */
	}
	if (has_priv) {
		cuts[nc++] = plo;
		cuts[nc++] = (uint64_t)phi + 1;
	}
	uint64_t tm = f->thr == SCMPC_UNKNOWN_TABLE_MAX ? arch_table_max(ab->arch) : 0;
	if (f->U_set && f->thr == SCMPC_UNKNOWN_POLICY_MAX) {
		/* Above the highest number named, every number unnamed and not
		 * private is unknown: name up to the last one that is not. */
		int64_t t = -1;
		for (size_t j = 0; j < ab->nsegs; j++) {
			const struct seg *s = &ab->segs[j];
			for (uint64_t x = s->lo, end; x <= s->hi; x = end + 1) {
				end = piece_end(x, s->hi, cuts, nc);
				bool priv = has_priv && x >= plo && x <= phi;
				if (!covered(ab, pl, x) && !priv && !seg_is(s, f->U))
					t = (int64_t)end;
			}
		}
		int64_t base = ab->info->nr_base;
		pl->teff = t > base ? t : base;
		if (t >= base) {
			for (size_t j = 0; j < ab->nsegs; j++)
				if (ab->segs[j].lo <= t && t <= ab->segs[j].hi &&
				    seg_is(&ab->segs[j], f->D))
					pl->name_t = true;
			if (pl->name_t) {
				if (f->named && !arch_syscall_name(ab->info, (uint32_t)t))
					return COST_INF;
				cost++;
				if (e && (*err = lift_emit_name(e, ab, (uint32_t)t)) < 0)
					return COST_INF;
			}
		}
	}
	uint64_t thr = f->thr == SCMPC_UNKNOWN_TABLE_MAX ? tm : (uint64_t)pl->teff;
	if (f->U_set)
		cuts[nc++] = thr + 1;
	for (size_t j = 0; j < ab->nsegs; j++) {
		const struct seg *s = &ab->segs[j];
		for (uint64_t x = s->lo, end; x <= s->hi; x = end + 1) {
			/* On each piece one rule of need applies. */
			end = piece_end(x, s->hi, cuts, nc);
			if (covered(ab, pl, x))
				continue;
			bool priv = has_priv && x >= plo && x <= phi;
			bool below = !f->U_set || priv || x <= thr;
			if (seg_is(s, below ? f->D : f->U))
				continue;
			cost += end - x + 1;
			if (cost > MAX_RULE_NUMBERS)
				return COST_INF;
			for (uint64_t y = x; f->named && y <= end; y++)
				if (!arch_syscall_name(ab->info, (uint32_t)y))
					return COST_INF;
			if (s->dep)
				drules += (end - x + 1) * dep_rules(s->rw, s->nrw, f->D);
			if (e && (*err = lift_emit_numbers(e, ab, s, (uint32_t)x, (uint32_t)end)) < 0)
				return COST_INF;
		}
	}
	if (m1_rules && !(pl->lim && m1_lim) && !dec_is(m1_rules, f->D)) {
		if (f->named)
			return COST_INF;	/* -1 has no name */
		pl->m1 = true;
		cost++;
		if (m1_rules->dep)
			drules += dep_rules(m1_rules->rw, m1_rules->nrw, f->D);
		if (e && (*err = lift_emit_m1(e, ab, m1_rules)) < 0)
			return COST_INF;
	}
	return cost_pack(drules, cost);
}

/* The -1 decisions ABI I's limit and rules answer for (see abi_plan()). */
static void m1_roles(struct abi *abis, size_t nab, size_t i, const struct dec **lim,
		     const struct dec **rules)
{
	struct abi *ab = &abis[i];
	*lim = *rules = &ab->m1;
	if (ab->arch == SCMPC_ARCH_X86_64) {
		/* -1 has bit 30: x32's limit decides it when x32 is in. */
		*lim = NULL;
	} else if (ab->arch == SCMPC_ARCH_X32) {
		/* Its rules go on x86_64 when x86_64 is in: there the
		 * arguments are 64-bit, as they are for -1 on x86_64's
		 * AUDIT_ARCH whenever x86_64 has rules for it. */
		for (size_t k = 0; k < nab; k++)
			if (abis[k].in && abis[k].arch == SCMPC_ARCH_X86_64)
				*rules = NULL;
	}
}

/* Whether AB's rules say -1 (see m1_roles()). */
bool lift_m1_host(struct abi *abis, size_t nab, const struct abi *ab)
{
	const struct dec *lim, *rules;
	m1_roles(abis, nab, (size_t)(ab - abis), &lim, &rules);
	return rules != NULL;
}

static struct abi *find_abi(struct abi *abis, size_t nab, enum scmpc_arch a)
{
	for (size_t i = 0; i < nab; i++)
		if (abis[i].arch == a)
			return &abis[i];
	return NULL;
}

/* Plan ABI I under F with option OPT (R3 as in abi_plan()). */
static uint64_t plan_one(struct abi *abis, size_t nab, size_t i, const struct fitp *f, int opt,
			 bool r3, struct emitter *e, int *err)
{
	const struct dec *lim, *rules;
	m1_roles(abis, nab, i, &lim, &rules);
	return abi_plan(&abis[i], f, lim, rules, opt, r3, find_abi(abis, nab, SCMPC_ARCH_X32),
			&abis[i].pl, e, err);
}

/*
 * The cheapest limit options of every policy ABI under F, into OPTS (by
 * index in ABIS), and their cost.  x86_64 and x32 are planned together:
 * x86_64's limit decides R3, which x32's rules then need not.  With E, the
 * chosen plans are written.
 */
uint64_t lift_plan_all(struct abi *abis, size_t nab, const struct fitp *f, int *opts,
			 struct emitter *e, int *err)
{
	uint64_t total = 0;
	ssize_t i64 = -1, i32 = -1;
	for (size_t i = 0; i < nab; i++) {
		if (!abis[i].in)
			continue;
		if (abis[i].arch == SCMPC_ARCH_X86_64) {
			i64 = (ssize_t)i;
			continue;
		}
		if (abis[i].arch == SCMPC_ARCH_X32) {
			i32 = (ssize_t)i;
			continue;
		}
		if (!e) {
			uint64_t a = plan_one(abis, nab, i, f, LIM_NONE, false, NULL, err);
			uint64_t b = plan_one(abis, nab, i, f, LIM_TOP, false, NULL, err);
			opts[i] = b < a ? LIM_TOP : LIM_NONE;
			total = cost_add(total, b < a ? b : a);
		} else if (plan_one(abis, nab, i, f, opts[i], false, e, err) == COST_INF) {
			return COST_INF;
		}
	}
	if (i64 < 0 && i32 < 0)
		return total;
	if (e) {
		bool r3 = i64 >= 0 && opts[i64] != LIM_NONE;
		if ((i64 >= 0 && plan_one(abis, nab, (size_t)i64, f, opts[i64], false, e, err) ==
					 COST_INF) ||
		    (i32 >= 0 && plan_one(abis, nab, (size_t)i32, f, opts[i32], r3, e, err) ==
					 COST_INF))
			return COST_INF;
		return total;
	}
	uint64_t best = COST_INF;
	for (int o64 = LIM_NONE; o64 <= (i64 >= 0 ? LIM_R3 : LIM_NONE); o64++)
		for (int o32 = LIM_NONE; o32 <= (i32 >= 0 ? LIM_TOP : LIM_NONE); o32++) {
			uint64_t c = 0;
			if (i64 >= 0)
				c = plan_one(abis, nab, (size_t)i64, f, o64, false, NULL, err);
			if (i32 >= 0)
				c = cost_add(c, plan_one(abis, nab, (size_t)i32, f, o32,
							 i64 >= 0 && o64 != LIM_NONE, NULL, err));
			if (c < best) {
				best = c;
				if (i64 >= 0)
					opts[i64] = o64;
				if (i32 >= 0)
					opts[i32] = o32;
			}
		}
	return cost_add(total, best);
}

static bool act_add(uint32_t *set, size_t *n, size_t cap, uint32_t a)
{
	for (size_t i = 0; i < *n; i++)
		if (set[i] == a)
			return true;
	if (*n == cap)
		return false;
	set[(*n)++] = a;
	return true;
}

/* Choose the default and unknown-syscall actions (and limits) that need
 * the fewest rules over the policy's ABIs. */
int lift_fit(struct walker *L, struct abi *abis, size_t nab, struct fitp *best, int *opts)
{
	uint32_t cand[64];
	size_t nc = 0;
	int err = 0, tmp[SCMPC_ARCH_COUNT];
	bool named = best->named;
	for (size_t i = 0; i < nab; i++) {
		if (!abis[i].in)
			continue;
		/* More actions than candidates: the first 64 are tried. */
		for (size_t j = 0; j < abis[i].nsegs; j++) {
			const struct seg *s = &abis[i].segs[j];
			for (uint32_t k = 0; k < (s->dep ? s->n : 1); k++)
				act_add(cand, &nc, ARRAY_SIZE(cand),
					s->dep ? L->paths[abis[i].idx[s->first + k]].ret : s->ret);
		}
		if (!abis[i].m1.dep)
			act_add(cand, &nc, ARRAY_SIZE(cand), abis[i].m1.ret);
	}
	uint64_t best_cost = COST_INF;
	for (size_t di = 0; di < nc; di++)
		for (size_t ui = 0; ui <= nc; ui++)
			for (int thr = 0; thr < (ui < nc ? 2 : 1); thr++) {
				if (ui < nc && ui == di)
					continue;
				struct fitp f = { cand[di], ui < nc, ui < nc ? cand[ui] : 0,
						  thr ? SCMPC_UNKNOWN_POLICY_MAX : SCMPC_UNKNOWN_TABLE_MAX,
						  named };
				uint64_t cost = lift_plan_all(abis, nab, &f, tmp, NULL, &err);
				if (cost < best_cost) {
					best_cost = cost;
					*best = f;
					memcpy(opts, tmp, sizeof(tmp));
				}
			}
	if (best_cost != COST_INF)
		return 0;
	if (named)
		return diag_err(L->d, -ENOTSUP, NULL, "the program decides numbers no table names "
				"otherwise than one default, unknown-syscall action and limit per "
				"ABI can, which a policy that names calls needs (SCMPC_LIFT_NAMED)");
	/* Say where it fails: the first large segment of an action other
	 * than the most common one. */
	for (size_t i = 0; i < nab; i++) {
		if (!abis[i].in)
			continue;
		for (size_t j = 0; j < abis[i].nsegs; j++) {
			const struct seg *s = &abis[i].segs[j];
			if ((uint64_t)s->hi - s->lo < MAX_RULE_NUMBERS || seg_is(s, cand[0]))
				continue;
			const struct path *p = &L->paths[abis[i].idx[s->first]];
			char act[32];
			scmpc_action_str(s->ret, act, sizeof(act));
			return walk_err(L, -ENOTSUP, p->prog, p->insn,
				    "on %s, numbers %#x-%#x get %s: with the rest of the program's "
				    "decision, no default, unknown-syscall action and limits of a "
				    "policy say that in rules for fewer than %d numbers",
				    abis[i].info->name, s->lo, s->hi,
				    s->dep ? "an argument-dependent action" : act, MAX_RULE_NUMBERS);
		}
	}
	return diag_err(L->d, -ENOTSUP, NULL, "the program's decision over syscall numbers "
			"needs rules for more than %d numbers", MAX_RULE_NUMBERS);
}

