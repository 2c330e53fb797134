/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * libseccomp's rules on scmpc: seccomp_rule_add() and its variants, and
 * seccomp_syscall_priority().  A rule is checked as libseccomp checks it,
 * translated to each ABI of the context, landed on the direct number or
 * the multiplexer of a socket or IPC call, and refused with EEXIST where
 * libseccomp's tree would refuse it (refusal.h), all ABIs or none.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>

#include "api.h"
#include "compat.h"
#include "refusal.h"

/* ------------------------------------------------------------- rules */

/* A rule about to land on one ABI, before it is committed. */
struct landing {
	size_t filter;
	struct compat_rule r;
};

/* libseccomp's comparison IN as an scmpc condition; -EINVAL for an argument or operator it does
 * not know. */
static int cond_of(const struct scmp_arg_cmp *in, struct scmpc_cond *out)
{
	static const enum scmpc_op ops[] = {
		[SCMP_CMP_NE] = SCMPC_OP_NE, [SCMP_CMP_LT] = SCMPC_OP_LT,
		[SCMP_CMP_LE] = SCMPC_OP_LE, [SCMP_CMP_EQ] = SCMPC_OP_EQ,
		[SCMP_CMP_GE] = SCMPC_OP_GE, [SCMP_CMP_GT] = SCMPC_OP_GT,
		[SCMP_CMP_MASKED_EQ] = SCMPC_OP_MASKED_EQ,
	};
	if (in->arg >= 6 || in->op <= _SCMP_CMP_MIN || in->op >= _SCMP_CMP_MAX)
		return -EINVAL;
	*out = (struct scmpc_cond){ .arg = in->arg, .op = ops[in->op], .value = in->datum_a,
				    .value2 = in->op == SCMP_CMP_MASKED_EQ ? in->datum_b : 0 };
	return 0;
}

/* The number a rule given in the host's numbering has on A: libseccomp
 * goes through the name, so a call the host numbers but A lacks becomes
 * A's pseudo number; -EFAULT when the host has no name for it. */
static int translate(enum scmpc_arch a, int nr, int *out)
{
	if (nr == -1 || a == scmpc_arch_native()) {
		*out = nr;
		return 0;
	}
	char buf[64];
	const char *name = compat_syscall_name(scmpc_arch_native(), nr, buf, sizeof(buf));
	if (!name)
		return -EFAULT;
	*out = compat_resolve_name(a, name);
	return *out == __NR_SCMP_ERROR ? -EFAULT : 0;
}

/* Where a rule lands on filter FI: NOUT (0, 1) landings in OUT.  A socket
 * or IPC call on an ABI that multiplexes it lands on its direct number
 * when there is one (scmpc adds the multiplexer's copy itself, as
 * libseccomp does: argument 0 tested for the call's number in place of
 * the rule's own test of it) and on the multiplexer otherwise. */
static int land(const struct compat_ctx *c, size_t fi, bool strict, const struct compat_rule *r,
		int nr, struct landing *out, size_t *nout)
{
	enum scmpc_arch a = c->f[fi].arch;
	char buf[64];
	int sys, rc = translate(a, nr, &sys);
	*nout = 0;
	if (rc < 0)
		return rc;
	const char *name = sys == -1 ? NULL : compat_syscall_name(a, sys, buf, sizeof(buf));
	enum compat_family fam = name ? compat_family_of_pnr(compat_pnr_of_name(name)) : FAM_NONE;
	int64_t mux = compat_mux_nr(a, fam);
	out->filter = fi;
	out->r = *r;
	if (mux >= 0) {
		if (strict && r->nconds)
			return -EINVAL;
		int64_t direct = sys >= 0 ? sys : scmpc_syscall_resolve(a, name);
		if (direct >= 0) {
			out->r.nr = (uint32_t)direct;
		} else {
			/* The sub-call test on the bits the kernel reads, where
			 * libseccomp compares the whole argument (README). */
			unsigned k = 0;
			uint32_t mnr;
			if (scmpc_syscall_multiplexer(a, name, &mnr, &out->r.conds[k++]) != 1)
				return -EFAULT;
			for (unsigned j = 0; j < r->nconds; j++)
				if (r->conds[j].arg != 0)
					out->r.conds[k++] = r->conds[j];
			out->r.nconds = k;
			out->r.nr = (uint32_t)mux;
		}
		*nout = 1;
		return 0;
	}
	if (sys >= -1) {
		out->r.nr = (uint32_t)sys;
		*nout = 1;
		return 0;
	}
	/* A call the ABI does not have: refused when the caller wants the rule
	 * exactly as given, else kept out of the program (and, except on the
	 * ABIs that multiplex calls, where libseccomp drops it, listed in the
	 * PFC as libseccomp lists it). */
	if (strict)
		return -EDOM;
	if (compat_mux_nr(a, FAM_SOCKET) < 0 && compat_mux_nr(a, FAM_IPC) < 0) {
		out->r.nr = (uint32_t)sys;
		out->r.pseudo = true;
		*nout = 1;
	}
	return 0;
}

/* F's index of its rules by call, made from them when it has none or
 * holds other rules than F's (never: a safety net). */
static int index_ready(struct compat_filter *f)
{
	if (f->ix && compat_index_count(f->ix) == f->n)
		return 0;
	compat_index_free(f->ix);
	if (!(f->ix = compat_index_new(f->arch)))
		return -ENOMEM;
	for (size_t j = 0; j < f->n; j++) {
		/* Each was taken in this order once, so it is taken again. */
		if (compat_index_add(f->ix, f->rules, (uint32_t)j, &f->rules[j]) == -ENOMEM) {
			compat_index_free(f->ix);
			f->ix = NULL;
			return -ENOMEM;
		}
		compat_index_commit(f->ix);
	}
	return 0;
}

/* seccomp_rule_add*(): the rule checked as libseccomp checks it and added to every ABI of CTX, or
 * to none. */
static int rule_add(scmp_filter_ctx ctx, bool strict, uint32_t action, int syscall,
		    unsigned int n, const struct scmp_arg_cmp *args)
{
	struct compat_ctx *c = compat_ctx_valid(ctx);
	if (n > 6 || (n && !args) || !c)
		return -EINVAL;
	if (syscall <= -1 && syscall >= -99 && !(syscall == -1 && c->a.tskip))
		return -EINVAL;
	if (!compat_action_ok(c, action))
		return -EINVAL;
	if (action == c->a.act_default)
		return -EACCES;
	if (strict && c->nf > 1)
		return -EOPNOTSUPP;

	struct compat_rule r = { .action = action, .nr = 0 };
	bool seen[6] = { false };
	for (unsigned i = 0; i < n; i++) {
		if (args[i].arg >= 6 || seen[args[i].arg])
			return -EINVAL;
		seen[args[i].arg] = true;
	}
	/* libseccomp chains the comparisons by argument number. */
	for (unsigned arg = 0; arg < 6; arg++)
		for (unsigned i = 0; i < n; i++)
			if (args[i].arg == arg) {
				if (cond_of(&args[i], &r.conds[r.nconds++]) < 0)
					return -EINVAL;
			}

	struct landing *ls = calloc(c->nf, sizeof(*ls));
	if (!ls)
		return -ENOMEM;
	size_t nl = 0;
	int rc = 0;
	for (size_t fi = 0; fi < c->nf && !rc; fi++) {
		size_t k;
		rc = land(c, fi, strict, &r, syscall, &ls[nl], &k);
		nl += k;
	}
	/* libseccomp refuses a rule with the same comparisons as an earlier
	 * one of the same call but another action (EEXIST) when it is added:
	 * each ABI's index decides on the rules of the calls the new one
	 * reaches.  All or nothing, as libseccomp's transaction around the
	 * ABIs: an ABI that takes the rule gives it back if another refuses. */
	size_t checked = 0;
	for (size_t i = 0; i < nl && !rc; i++) {
		struct compat_filter *f = &c->f[ls[i].filter];
		rc = index_ready(f);
		if (!rc)
			rc = compat_index_add(f->ix, f->rules, (uint32_t)f->n, &ls[i].r);
		if (!rc)
			checked = i + 1;
	}
	for (size_t i = 0; i < nl && !rc; i++) {
		struct compat_filter *f = &c->f[ls[i].filter];
		if (f->n == f->cap) {
			size_t cap = f->cap ? 2 * f->cap : 16;
			struct compat_rule *nr = realloc(f->rules, cap * sizeof(*nr));
			if (!nr) {
				rc = -ENOMEM;
				break;
			}
			f->rules = nr;
			f->cap = cap;
		}
	}
	if (rc) {
		for (size_t i = 0; i < checked; i++)
			compat_index_undo(c->f[ls[i].filter].ix);
	} else {
		for (size_t i = 0; i < nl; i++) {
			struct compat_filter *f = &c->f[ls[i].filter];
			f->rules[f->n++] = ls[i].r;
			compat_index_commit(f->ix);
		}
		if (action == SCMP_ACT_NOTIFY)
			c->notify_used = true;
		compat_changed(c);
	}
	free(ls);
	return compat_rc_filter(rc);
}

API int seccomp_rule_add_array(scmp_filter_ctx ctx, uint32_t action, int syscall,
			       unsigned int arg_cnt, const struct scmp_arg_cmp *arg_array)
{
	return rule_add(ctx, false, action, syscall, arg_cnt, arg_array);
}

API int seccomp_rule_add_exact_array(scmp_filter_ctx ctx, uint32_t action, int syscall,
				     unsigned int arg_cnt, const struct scmp_arg_cmp *arg_array)
{
	return rule_add(ctx, true, action, syscall, arg_cnt, arg_array);
}

/* The variadic calls pass the comparisons by value, ARG_CNT of them. */
static int rule_add_va(scmp_filter_ctx ctx, bool strict, uint32_t action, int syscall,
		       unsigned int arg_cnt, va_list ap)
{
	struct scmp_arg_cmp args[6];
	if (arg_cnt > 6)
		return -EINVAL;
	for (unsigned i = 0; i < arg_cnt; i++)
		args[i] = va_arg(ap, struct scmp_arg_cmp);
	return rule_add(ctx, strict, action, syscall, arg_cnt, args);
}

API int seccomp_rule_add(scmp_filter_ctx ctx, uint32_t action, int syscall,
			 unsigned int arg_cnt, ...)
{
	va_list ap;
	va_start(ap, arg_cnt);
	int rc = rule_add_va(ctx, false, action, syscall, arg_cnt, ap);
	va_end(ap);
	return rc;
}

API int seccomp_rule_add_exact(scmp_filter_ctx ctx, uint32_t action, int syscall,
			       unsigned int arg_cnt, ...)
{
	va_list ap;
	va_start(ap, arg_cnt);
	int rc = rule_add_va(ctx, true, action, syscall, arg_cnt, ap);
	va_end(ap);
	return rc;
}

/* scmpc lays calls out by the shape of the policy, not by hints: the
 * priority is checked and accepted, and changes nothing. */
API int seccomp_syscall_priority(scmp_filter_ctx ctx, int syscall, uint8_t priority)
{
	(void)priority;
	struct compat_ctx *c = compat_ctx_valid(ctx);
	if (!c || (syscall <= -1 && syscall >= -99 && !(syscall == -1 && c->a.tskip)))
		return -EINVAL;
	return 0;
}
