/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* Lifting: the result checked against the program. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "program/lift.h"

/* ---------------------------------------------------------------- check */

/* What the program (the stack) returns for SD, as the kernel runs it. */
static int stack_eval(const struct walker *L, const struct seccomp_data *sd, uint32_t *ret)
{
	uint32_t acc = SCMPC_ACT_ALLOW, each[WALK_MAX_EACH];
	for (size_t i = L->n; i-- > 0;) {
		uint32_t r;
		int err = scmpc_emulate(L->progs[i], L->lens[i], sd, &r, NULL);
		if (err < 0)
			return err;
		each[i] = r;
		if (L->mode == WALK_ONE) {
			*ret = r;
			return 0;
		}
		if (act_rank(r) < act_rank(acc))
			acc = r;
	}
	if (L->mode == WALK_EACH)
		acc = L->combine ? L->combine(each, L->n, L->combine_ctx) : each[0];
	*ret = acc;
	return 0;
}

/* A value of C outside the AUDIT_ARCH values AUD: 1 (in *OUT), 0 when
 * there is none, -1 when C has too many intervals to tell. */
int lift_arch_outside(const struct wcon *c, const uint32_t *aud, size_t na, uint32_t *out)
{
	uint32_t x = 0;
	for (int count = 0; count < 4096; count++) {
		uint32_t f;
		int r = wcon_first(c, x, &f);
		if (r <= 0)
			return r;
		uint32_t e = wcon_run_end(c, f);
		for (uint64_t v = f; v <= e; v++) {
			bool known = false;
			for (size_t i = 0; i < na && !known; i++)
				known = aud[i] == v;
			if (!known) {
				*out = (uint32_t)v;
				return 1;
			}
		}
		if (e == 0xffffffffU)
			return 0;
		x = e + 1;
	}
	return -1;
}

/* Every distinct AUDIT_ARCH value of the ABIs scmpc knows. */
size_t lift_table_audits(uint32_t *aud)
{
	size_t n = 0;
	for (int a = 1; a <= SCMPC_ARCH_COUNT; a++) {
		uint32_t v = arch_info((enum scmpc_arch)a)->audit;
		bool seen = false;
		for (size_t i = 0; i < n; i++)
			seen |= aud[i] == v;
		if (!seen)
			aud[n++] = v;
	}
	return n;
}

/* Run the call of path PI with NR and ARCH (its other words at their least
 * values on the path) through the program and the policy. */
static int probe(const struct walker *L, const scmpc_policy *p, const struct arch_view *views,
		 size_t pi, uint32_t arch, uint32_t nr)
{
	const struct path *pa = &L->paths[pi];
	uint32_t w[NWORDS];
	for (size_t i = 0; i < NWORDS; i++)
		if (wcon_first(&pa->w[i], 0, &w[i]) <= 0)
			return 0;	/* a path no call takes (or undecided): nothing to run */
	w[W_NR] = nr;
	w[W_ARCH] = arch;
	struct seccomp_data sd = { .nr = (int)nr, .arch = arch };
	bool be = audit_big_endian(arch);
	for (unsigned i = 0; i < 7; i++) {
		uint32_t hi = w[2 + 2 * i + (be ? 0 : 1)], lo = w[2 + 2 * i + (be ? 1 : 0)];
		uint64_t v = ((uint64_t)hi << 32) | lo;
		if (i == 0)
			sd.instruction_pointer = v;
		else
			sd.args[i - 1] = v;
	}
	uint32_t want, got = policy_decide(p, views, &sd, NULL);
	int err = stack_eval(L, &sd, &want);
	if (err < 0)
		return diag_err(L->d, err, NULL, "internal error: the program does not run");
	if (want == pa->ret && got == want)
		return 0;
	char a[32], b[32], c[32];
	scmpc_action_str(want, a, sizeof(a));
	scmpc_action_str(got, b, sizeof(b));
	scmpc_action_str(pa->ret, c, sizeof(c));
	return diag_err(L->d, -EPROTO, NULL,
			"internal error: lifting is wrong for arch 0x%08x nr %#x args "
			"[%#llx %#llx %#llx %#llx %#llx %#llx]: the program returns %s, the lifted "
			"policy %s (the path through insn %d: %s)", arch, nr,
			(unsigned long long)sd.args[0], (unsigned long long)sd.args[1],
			(unsigned long long)sd.args[2], (unsigned long long)sd.args[3],
			(unsigned long long)sd.args[4], (unsigned long long)sd.args[5], a, b,
			pa->insn, c);
}

/* Every path, on every ABI it reaches that the policy answers for, and on
 * an unknown AUDIT_ARCH when it reaches one (unless the caller chose the
 * bad-arch action): the program and the lifted policy must agree. */
int lift_check(const struct walker *L, const scmpc_policy *p, const struct abi *abis,
		 size_t nab, bool unknown)
{
	struct arch_view views[SCMPC_ARCH_COUNT];
	uint32_t aud[SCMPC_ARCH_COUNT];
	size_t na = lift_table_audits(aud);
	int err = policy_views_init(p, views, L->d);
	if (err < 0)
		return err;
	for (size_t i = 0; i < L->npaths && !err; i++) {
		const struct path *pa = &L->paths[i];
		for (size_t k = 0; k < nab && !err; k++) {
			const struct abi *ab = &abis[k];
			uint32_t audit = ab->info->audit, nr;
			if (!(ab->in || ab->all_bad) || !wcon_has(&pa->w[W_ARCH], audit))
				continue;
			for (size_t b = 0; b < ab->nblk && !err; b++)
				if (wcon_first(&pa->w[W_NR], ab->blk[b][0], &nr) > 0 && nr <= ab->blk[b][1])
					err = probe(L, p, views, i, audit, nr);
			if (!err && wcon_has(&pa->w[W_NR], 0xffffffffU))
				err = probe(L, p, views, i, audit, 0xffffffffU);
		}
		uint32_t arch, nr;
		if (!err && unknown && lift_arch_outside(&pa->w[W_ARCH], aud, na, &arch) > 0 &&
		    wcon_first(&pa->w[W_NR], 0, &nr) > 0)
			err = probe(L, p, views, i, arch, nr);
	}
	policy_views_fini(p, views, p->narches);
	return err;
}
