/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Lifting: a seccomp program, or a stack of them, back into a policy that
 * decides every call exactly as the program (the stack) does.
 *
 * Classic BPF jumps only forward, so every run is one path from the first
 * instruction to a RET.  walk() follows every path symbolically: A, X and
 * the scratch words hold a constant or a function of one 32-bit word of
 * seccomp_data, and each conditional jump splits the values that word can
 * take.  A path ends with a return value and, for each of the 16 words of
 * seccomp_data, the set of values that lead there: an interval, a pattern
 * of fixed bits (a cube) and a list of excluded cubes (struct wcon).  Every
 * jump splits a set in two, so the paths are disjoint and cover every call:
 * for any call exactly one path holds.
 *
 * lift_abi_build() pins seccomp_data.arch to each ABI's AUDIT_ARCH and cuts the
 * number space into segments on which the same paths hold; a segment is a
 * constant action or depends on the arguments.  lift_fit() chooses how the
 * policy IR says that per ABI (default action, unknown-syscall action,
 * runc-style limit, rules for single numbers), and the emitter writes one
 * rule per path and number, whose conditions are the path's argument sets.
 * Since at most one path holds, at most one rule matches a call, and the
 * restrictive merge's "most restrictive match wins" is the program's own
 * decision.  A rule is widened (relax()) only over paths whose action is
 * more restrictive and that have rules of their own, which then still win.
 * Before a policy leaves, lift_check() runs a witness of every path through
 * both the program and the policy.
 *
 * Nothing is approximated: a program this cannot follow exactly is refused
 * with the instruction that stops it.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check/check.h"
#include "program/lift.h"

/* --------------------------------------------------------------- driver */

/* The bad-arch action: what the program returns for an AUDIT_ARCH no ABI
 * has, which must be one action whatever the rest of the call. */
static int bad_arch(const struct walker *L, uint32_t *out)
{
	uint32_t aud[SCMPC_ARCH_COUNT], w;
	size_t na = lift_table_audits(aud), first = SIZE_MAX;
	for (size_t i = 0; i < L->npaths; i++) {
		const struct path *p = &L->paths[i];
		if (!lift_arch_outside(&p->w[W_ARCH], aud, na, &w))
			continue;
		if (first == SIZE_MAX) {
			first = i;
			continue;
		}
		const struct path *q = &L->paths[first];
		if (p->ret == q->ret)
			continue;
		char a[32], b[32];
		scmpc_action_str(p->ret, a, sizeof(a));
		scmpc_action_str(q->ret, b, sizeof(b));
		return walk_err(L, -ENOTSUP, p->prog, p->insn,
			    "a call of an AUDIT_ARCH no ABI has gets %s here but %s at insn %d: "
			    "the program decides unknown ABIs by more than their AUDIT_ARCH (does "
			    "it test seccomp_data.arch?); name the ABIs to keep and a bad-arch "
			    "action in scmpc_lift_opts (SCMPC_LIFT_BAD_ARCH)", a, b, q->insn);
	}
	if (first == SIZE_MAX)
		return diag_err(L->d, -EPROTO, NULL, "internal error: no path decides unknown ABIs");
	*out = L->paths[first].ret;
	return 0;
}

static void abis_free(struct abi *abis, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < abis[i].nsegs; j++) {
			free(abis[i].segs[j].rw);
			lift_tmpls_free(&abis[i].segs[j].all);
		}
		free(abis[i].m1.rw);
		lift_tmpls_free(&abis[i].m1.all);
		free(abis[i].segs);
		free(abis[i].idx);
	}
}

/* The policy's ABIs in the order the newest program tests them, then the
 * older ones', then the table's. */
static void order_abis(const struct walker *L, struct abi *abis, size_t nab,
		       enum scmpc_arch *order, size_t *norder)
{
	*norder = 0;
	for (size_t f = L->n; f-- > 0;) {
		enum scmpc_arch seen[SCMPC_ARCH_COUNT * 2];
		int n = scmpc_prog_abis(L->progs[f], L->lens[f], seen, ARRAY_SIZE(seen));
		for (int i = 0; i < n && i < (int)ARRAY_SIZE(seen); i++)
			for (size_t k = 0; k < nab; k++) {
				bool dup = false;
				for (size_t j = 0; j < *norder; j++)
					dup |= order[j] == abis[k].arch;
				if (abis[k].in && abis[k].arch == seen[i] && !dup)
					order[(*norder)++] = abis[k].arch;
			}
	}
	for (size_t k = 0; k < nab; k++) {
		bool dup = false;
		for (size_t j = 0; j < *norder; j++)
			dup |= order[j] == abis[k].arch;
		if (abis[k].in && !dup)
			order[(*norder)++] = abis[k].arch;
	}
}

int lift_programs(const struct sock_filter *const *progs, const size_t *lens, size_t n,
		  enum walk_mode mode, uint32_t (*combine)(const uint32_t *, size_t, void *),
		  void *ctx, const struct scmpc_lift_opts *o, scmpc_policy **out, scmpc_diag *d)
{
	struct scmpc_lift_opts opts;
	struct walker L = { .progs = progs, .lens = lens, .n = n, .mode = mode,
			     .combine = combine, .combine_ctx = ctx, .d = d };
	struct abi abis[SCMPC_ARCH_COUNT];
	size_t nab = 0;
	scmpc_policy *p = NULL;
	struct emitter em = { 0 };
	int err;

	memset(abis, 0, sizeof(abis));
	if ((err = OPTS_VALID(o, scmpc_lift_opts, sz, d)) < 0)
		return err;
	OPTS_COPY(opts, o);
	if ((err = progress_check(opts.progress, d)) < 0)
		return err;
	if (!out)
		return diag_err(d, -EINVAL, NULL, "no place to store the policy");
	*out = NULL;
	if (!progs || !lens || n == 0)
		return diag_err(d, -EINVAL, NULL, "no program given");
	if (n > UINT16_MAX || (mode == WALK_EACH && n > WALK_MAX_EACH))
		return diag_err(d, -E2BIG, NULL, "%zu filters: at most %u can be merged", n,
				mode == WALK_EACH ? WALK_MAX_EACH : UINT16_MAX);
	if (opts.flags & ~(SCMPC_LIFT_BAD_ARCH | SCMPC_LIFT_NAMED))
		return diag_err(d, -EINVAL, NULL, "unknown scmpc_lift_opts flags 0x%x", opts.flags);
	if ((opts.flags & SCMPC_LIFT_BAD_ARCH) && !scmpc_action_valid(opts.bad_arch_action))
		return diag_err(d, -EINVAL, NULL, "invalid bad-arch action 0x%08x",
				opts.bad_arch_action);
	if (opts.narches && !opts.arches)
		return diag_err(d, -EINVAL, NULL, "scmpc_lift_opts.narches without arches");
	for (size_t i = 0; i < opts.narches; i++)
		if (!arch_info(opts.arches[i]))
			return diag_err(d, -EINVAL, NULL, "unsupported architecture %d",
					(int)opts.arches[i]);
	L.max_paths = opts.max_paths ? opts.max_paths : MAX_PATHS_DEFAULT;
	for (size_t i = 0; i < n; i++) {
		if (!progs[i] || !lens[i])
			return diag_err(d, -EINVAL, NULL, "filter %zu is empty", i);
		if ((err = scmpc_verify_insns(progs[i], lens[i], d)) < 0) {
			if (n > 1) {
				char msg[512];
				snprintf(msg, sizeof(msg), "%s", scmpc_diag_message(d));
				diag_err_insn(d, err, scmpc_diag_insn(d), "filter %zu: %s", i, msg);
			}
			return err;
		}
	}

	if ((err = walk_paths(&L)) < 0)
		goto out;
	uint32_t B = opts.bad_arch_action;
	if (!(opts.flags & SCMPC_LIFT_BAD_ARCH) && (err = bad_arch(&L, &B)) < 0)
		goto out;

	/* The ABIs to consider: those asked for, or every one scmpc knows;
	 * the policy keeps those whose calls do not all get B. */
	for (int a = 1; a <= SCMPC_ARCH_COUNT; a++) {
		bool want = !opts.narches;
		for (size_t i = 0; i < opts.narches; i++)
			want |= opts.arches[i] == (enum scmpc_arch)a;
		if (!want)
			continue;
		struct abi *ab = &abis[nab++];
		ab->arch = (enum scmpc_arch)a;
		ab->info = arch_info(ab->arch);
		if ((err = lift_abi_build(&L, ab)) < 0)
			goto out;
		ab->all_bad = true;
		for (size_t j = 0; j < ab->nsegs; j++)
			ab->all_bad &= seg_is(&ab->segs[j], B);
		/* -1 under x86_64's AUDIT_ARCH belongs to neither half. */
		if (ab->arch != SCMPC_ARCH_X86_64 && ab->arch != SCMPC_ARCH_X32)
			ab->all_bad &= dec_is(&ab->m1, B);
		ab->in = !ab->all_bad;
	}
	struct abi *x64 = NULL, *x32 = NULL;
	for (size_t i = 0; i < nab; i++) {
		if (abis[i].arch == SCMPC_ARCH_X86_64)
			x64 = &abis[i];
		if (abis[i].arch == SCMPC_ARCH_X32)
			x32 = &abis[i];
	}
	struct abi *m1x = x64 ? x64 : x32;
	if (m1x && !dec_is(&m1x->m1, B) && !(x64 && x64->in) && !(x32 && x32->in)) {
		/* Only -1 escapes B under x86_64's AUDIT_ARCH: a policy ABI
		 * must be there to say it. */
		m1x->in = true;
		m1x->all_bad = false;
	}
	for (size_t i = 0; i < nab; i++)
		for (size_t j = 0; j < nab; j++)
			if (abis[i].in && abis[j].in &&
			    abis[i].info->big_endian != abis[j].info->big_endian) {
				err = diag_err(d, -ENOTSUP, NULL, "the program serves %s and %s, of "
					       "different byte orders, which one policy cannot: keep "
					       "one of them (scmpc_lift_opts.arches)",
					       abis[i].info->name, abis[j].info->name);
				goto out;
			}

	/* What rules cannot test must not decide: checked before fitting,
	 * so that it is the reason given. */
	for (size_t i = 0; i < nab && !err; i++) {
		struct abi *ab = &abis[i];
		for (size_t j = 0; j < ab->nsegs && ab->in && !err; j++)
			if (ab->segs[j].dep)
				err = lift_dep_check(&L, ab, &ab->idx[ab->segs[j].first], ab->segs[j].n,
						ab->segs[j].lo);
		if (err || !ab->in || !ab->m1.dep || !lift_m1_host(abis, nab, ab))
			continue;
		err = lift_dep_check(&L, ab, &ab->idx[ab->m1.first], ab->m1.n, 0xffffffffU);
		if (err == -ENOTSUP && ab == x32 && x64) {
			/* -1 tests what x32's rules cannot: x86_64's can. */
			x64->in = true;
			err = lift_dep_check(&L, x64, &x64->idx[x64->m1.first], x64->m1.n, 0xffffffffU);
		}
	}
	if (err < 0)
		goto out;
	/* the rules weighed are the rules written: widened alike */
	em.disjoint = opts.flags & SCMPC_LIFT_NAMED;
	for (size_t i = 0; i < nab && !err; i++) {
		struct abi *ab = &abis[i];
		for (size_t j = 0; j < ab->nsegs && ab->in && !err; j++) {
			struct seg *s = &ab->segs[j];
			if (!s->dep)
				continue;
			err = lift_weigh(&L, ab, &ab->idx[s->first], s->n, s->lo, em.disjoint,
					 &em.relax_steps, &s->rw, &s->nrw, &s->all);
			s->all_ab = ab;
		}
		if (!err && ab->in && ab->m1.dep && lift_m1_host(abis, nab, ab)) {
			err = lift_weigh(&L, ab, &ab->idx[ab->m1.first], ab->m1.n, 0xffffffffU,
					 em.disjoint, &em.relax_steps, &ab->m1.rw, &ab->m1.nrw,
					 &ab->m1.all);
			ab->m1.all_ab = ab;
		}
	}
	if (err < 0)
		goto out;

	struct fitp f = { .D = B, .named = opts.flags & SCMPC_LIFT_NAMED };
	int opts_lim[SCMPC_ARCH_COUNT] = { 0 };
	bool any = false;
	for (size_t i = 0; i < nab; i++)
		any |= abis[i].in;
	if (!any && nab) {
		/* Every call gets B: a policy needs one ABI to say so, whose
		 * calls all get its default, B.  The host's, if kept. */
		struct abi *one = &abis[0];
		for (size_t i = 0; i < nab; i++)
			if (abis[i].arch == scmpc_arch_native())
				one = &abis[i];
		one->in = true;
		one->all_bad = false;
		any = true;
	}
	/* R3 (0x80000000-0xbfffffff) under x86_64's AUDIT_ARCH can have an
	 * action of its own only through x86_64's limit: when x32 is in and
	 * x86_64 is not, and nothing else fits, x86_64 comes in for that. */
	bool retry = x32 && x32->in && x64 && !x64->in;
	L.d = retry ? NULL : d;
	if (any && (err = lift_fit(&L, abis, nab, &f, opts_lim)) == -ENOTSUP && retry) {
		x64->in = true;
		if ((err = lift_fit(&L, abis, nab, &f, opts_lim)) < 0) {
			x64->in = false;
			L.d = d;
			err = lift_fit(&L, abis, nab, &f, opts_lim);
		}
	}
	L.d = d;
	if (err < 0)
		goto out;

	p = scmpc_policy_new(f.D);
	if (!p) {
		err = diag_err(d, -ENOMEM, NULL, "out of memory");
		goto out;
	}
	/* The rules name numbers as the program decides them: no rule gets
	 * copies on socketcall(2)/ipc(2), whose own decisions are lifted. */
	p->literal = true;
	enum scmpc_arch order[SCMPC_ARCH_COUNT];
	size_t norder;
	order_abis(&L, abis, nab, order, &norder);
	for (size_t i = 0; i < norder && !err; i++)
		err = scmpc_policy_add_arch(p, order[i], d);
	if (!err)
		err = scmpc_policy_set_bad_arch_action(p, B, d);
	if (!err && f.U_set)
		err = scmpc_policy_set_unknown_action(p, f.U, f.thr, d);
	if (err < 0)
		goto out;
	em.L = &L;
	em.p = p;
	em.D = f.D;
	if (any && lift_plan_all(abis, nab, &f, opts_lim, &em, &err) == COST_INF) {
		if (err >= 0)
			err = diag_err(d, -EPROTO, NULL, "internal error: the plan fails when written");
		goto out;
	}
	for (size_t i = 0; i < nab && !err; i++)
		if (abis[i].in && abis[i].pl.lim)
			err = scmpc_policy_set_limit(p, abis[i].arch, abis[i].pl.lim_max,
						     abis[i].pl.lim_act, abis[i].pl.lim_flags, d);
	if (err < 0)
		goto out;
	if ((err = lift_check(&L, p, abis, nab, !(opts.flags & SCMPC_LIFT_BAD_ARCH))) < 0)
		goto out;
	*out = p;
	p = NULL;
out:
	lift_tmpls_free(&em.t);
	scmpc_policy_free(p);
	abis_free(abis, nab);
	walker_fini(&L);
	return err;
}

SCMPC_API int scmpc_lift(const struct sock_filter *insns, size_t len,
			 const struct scmpc_lift_opts *o, scmpc_policy **out, scmpc_diag *d)
{
	const struct sock_filter *progs[1] = { insns };
	return lift_programs(progs, &len, 1, WALK_ONE, NULL, NULL, o, out, d);
}

SCMPC_API int scmpc_merge_stack(const struct sock_filter *const *progs, const size_t *lens,
				size_t n, const struct scmpc_lift_opts *o, scmpc_policy **out,
				scmpc_diag *d)
{
	return lift_programs(progs, lens, n, WALK_STACK, NULL, NULL, o, out, d);
}

