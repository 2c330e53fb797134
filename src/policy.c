/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* The policy IR: what the caller said, validated, and its per-ABI view. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"

SCMPC_API const char *scmpc_version(void)
{
	return "0.1.0";
}

SCMPC_API bool scmpc_action_valid(uint32_t act)
{
	uint32_t data = act & 0xffffU;
	switch (act & 0xffff0000U) {
	case SCMPC_ACT_KILL_PROCESS:
	case SCMPC_ACT_KILL_THREAD:
	case SCMPC_ACT_USER_NOTIF:
	case SCMPC_ACT_LOG:
	case SCMPC_ACT_ALLOW:
		return data == 0;
	case SCMPC_ACT_ERRNO(0):
		return data <= 4095;	/* the kernel caps larger values to 4095 */
	case SCMPC_ACT_TRAP:
	case SCMPC_ACT_TRACE(0):
		return true;
	default:
		return false;
	}
}

SCMPC_API int scmpc_action_cmp(uint32_t a, uint32_t b)
{
	int32_t ra = (int32_t)(a & 0xffff0000U), rb = (int32_t)(b & 0xffff0000U);
	if (ra != rb)
		return ra < rb ? -1 : 1;
	uint32_t da = a & 0xffffU, db = b & 0xffffU;
	return da < db ? -1 : da > db;
}

SCMPC_API void scmpc_action_str(uint32_t act, char *buf, size_t len)
{
	uint32_t data = act & 0xffffU;
	switch (act & 0xffff0000U) {
	case SCMPC_ACT_KILL_PROCESS: snprintf(buf, len, "KILL_PROCESS"); return;
	case SCMPC_ACT_KILL_THREAD: snprintf(buf, len, "KILL_THREAD"); return;
	case SCMPC_ACT_TRAP: snprintf(buf, len, data ? "TRAP(%u)" : "TRAP", data); return;
	case SCMPC_ACT_ERRNO(0): snprintf(buf, len, "ERRNO(%u)", data); return;
	case SCMPC_ACT_USER_NOTIF: snprintf(buf, len, "USER_NOTIF"); return;
	case SCMPC_ACT_TRACE(0): snprintf(buf, len, "TRACE(%u)", data); return;
	case SCMPC_ACT_LOG: snprintf(buf, len, "LOG"); return;
	case SCMPC_ACT_ALLOW: snprintf(buf, len, data ? "ALLOW(%u)" : "ALLOW", data); return;
	default: snprintf(buf, len, "0x%08x", act); return;
	}
}

SCMPC_API scmpc_policy *scmpc_policy_new(uint32_t default_action)
{
	if (!scmpc_action_valid(default_action))
		return NULL;
	scmpc_policy *p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->def_action = default_action;
	p->badarch_action = SCMPC_ACT_KILL_PROCESS;
	return p;
}

SCMPC_API void scmpc_policy_free(scmpc_policy *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nrules; i++) {
		free(p->rules[i].name);
		free(p->rules[i].conds);
		free(p->rules[i].origin);
	}
	free(p->rules);
	free(p);
}

SCMPC_API uint32_t scmpc_policy_default_action(const scmpc_policy *p)
{
	return p->def_action;
}

bool policy_has_arch(const scmpc_policy *p, enum scmpc_arch a)
{
	for (size_t i = 0; i < p->narches; i++)
		if (p->arches[i] == a)
			return true;
	return false;
}

SCMPC_API int scmpc_policy_add_arch(scmpc_policy *p, enum scmpc_arch a, scmpc_diag *d)
{
	if (!arch_info(a))
		return diag_err(d, -EINVAL, NULL, "unsupported architecture %d", (int)a);
	if (policy_has_arch(p, a))
		return 0;
	/* One program serves one byte order: the argument words sit at
	 * different offsets, and libseccomp refuses the mix too. */
	if (p->narches && arch_info(p->arches[0])->big_endian != arch_info(a)->big_endian)
		return diag_err(d, -EDOM, NULL, "%s is %s-endian and %s is not: one filter cannot "
				"serve both byte orders", scmpc_arch_name(a),
				arch_info(a)->big_endian ? "big" : "little",
				scmpc_arch_name(p->arches[0]));
	p->arches[p->narches++] = a;
	return 0;
}

SCMPC_API size_t scmpc_policy_arch_count(const scmpc_policy *p) { return p->narches; }

SCMPC_API enum scmpc_arch scmpc_policy_arch(const scmpc_policy *p, size_t i)
{
	return i < p->narches ? p->arches[i] : SCMPC_ARCH_NONE;
}

SCMPC_API int scmpc_policy_set_flags(scmpc_policy *p, unsigned flags, scmpc_diag *d)
{
	/* TSYNC LOG SPEC_ALLOW NEW_LISTENER TSYNC_ESRCH WAIT_KILLABLE_RECV */
	if (flags & ~0x3fU)
		return diag_err(d, -EINVAL, "flags", "unknown seccomp filter flags 0x%x", flags);
	p->load_flags = flags;
	return 0;
}

SCMPC_API unsigned scmpc_policy_flags(const scmpc_policy *p) { return p->load_flags; }

SCMPC_API int scmpc_policy_set_merge(scmpc_policy *p, enum scmpc_merge m, scmpc_diag *d)
{
	if (m != SCMPC_MERGE_RESTRICTIVE && m != SCMPC_MERGE_LIBSECCOMP)
		return diag_err(d, -EINVAL, NULL, "unknown merge mode %d", (int)m);
	p->merge = m;
	return 0;
}

/* libseccomp drops a condition that tests nothing (a zero mask against
 * zero), so a rule made only of such conditions is unconditional to it. */
static bool lsc_unconditional(const struct rule *r)
{
	for (size_t k = 0; k < r->nconds; k++)
		if (r->conds[k].op != SCMPC_OP_MASKED_EQ || r->conds[k].value ||
		    r->conds[k].value2)
			return false;
	return true;
}

/* LIBSECCOMP merge: rules with the default action are refused (libseccomp
 * answers EACCES); where a number has an unconditional rule, the first one
 * (lowest index; the list is sorted by number, then index) is all that is
 * left of its rules. */
static void merge_first_unconditional(const scmpc_policy *p, struct arch_view *v)
{
	size_t out = 0;
	for (size_t i = 0; i < v->nrs;) {
		/* Compacting in place: entries are read at j before out (<= j)
		 * overwrites them, and the kept one is copied out first. */
		size_t j = i, start = out;
		uint32_t nr = v->rs[i].nr;
		struct resolved kept;
		bool have = false;
		while (j < v->nrs && v->rs[j].nr == nr) {
			struct resolved cur = v->rs[j++];
			const struct rule *r = &p->rules[cur.rule];
			if (r->action == p->def_action)
				continue;
			if (!have && lsc_unconditional(r)) {
				kept = cur;
				have = true;
			}
			v->rs[out++] = cur;
		}
		if (have) {
			out = start;
			v->rs[out++] = kept;
		}
		i = j;
	}
	v->nrs = out;
}

static int check_action(scmpc_diag *d, uint32_t act, const char *where)
{
	if (scmpc_action_valid(act))
		return 0;
	if ((act & 0xffff0000U) == SCMPC_ACT_ERRNO(0))
		return diag_err(d, -ERANGE, where, "errno %u is above 4095 (the kernel caps it)",
				act & 0xffffU);
	return diag_err(d, -EINVAL, where, "invalid action 0x%08x", act);
}

SCMPC_API int scmpc_policy_set_bad_arch_action(scmpc_policy *p, uint32_t act, scmpc_diag *d)
{
	int r = check_action(d, act, "bad-arch action");
	if (r)
		return r;
	p->badarch_action = act;
	return 0;
}

SCMPC_API int scmpc_policy_set_unknown_action(scmpc_policy *p, uint32_t act,
					      enum scmpc_unknown_threshold thr, scmpc_diag *d)
{
	int r = check_action(d, act, "unknown-syscall action");
	if (r)
		return r;
	if (thr != SCMPC_UNKNOWN_TABLE_MAX && thr != SCMPC_UNKNOWN_POLICY_MAX)
		return diag_err(d, -EINVAL, NULL, "invalid unknown-syscall threshold %d", (int)thr);
	p->unknown_action = act;
	p->unknown_thr = thr;
	p->unknown_set = true;
	return 0;
}

SCMPC_API int scmpc_policy_add_rule(scmpc_policy *p, const struct scmpc_rule *in, scmpc_diag *d)
{
	struct scmpc_rule r;
	OPTS_COPY(r, in);
	const char *where = r.origin;
	int err;

	if (!in)
		return diag_err(d, -EINVAL, NULL, "no rule");
	if ((err = check_action(d, r.action, where)))
		return err;
	if (r.arch != SCMPC_ARCH_NONE && !arch_info(r.arch))
		return diag_err(d, -EINVAL, where, "unsupported architecture %d", (int)r.arch);
	if (!r.syscall && r.arch == SCMPC_ARCH_NONE)
		return diag_err(d, -EINVAL, where, "a rule by number needs an architecture");
	if (r.syscall && !r.syscall[0])
		return diag_err(d, -EINVAL, where, "empty syscall name");
	if (r.nconds && !r.conds)
		return diag_err(d, -EINVAL, where, "conditions missing");
	if (r.nconds > 64)
		return diag_err(d, -E2BIG, where, "%zu conditions in one rule (at most 64)", r.nconds);
	for (size_t i = 0; i < r.nconds; i++) {
		const struct scmpc_cond *c = &r.conds[i];
		if (c->arg > 5)
			return diag_err(d, -EINVAL, where, "condition %zu: argument index %u is not 0-5",
					i, c->arg);
		if (c->op < SCMPC_OP_EQ || c->op > SCMPC_OP_MASKED_EQ)
			return diag_err(d, -EINVAL, where, "condition %zu: unknown operator %d", i,
					(int)c->op);
		if (c->flags & ~SCMPC_COND_32BIT)
			return diag_err(d, -EINVAL, where, "condition %zu: unknown flags 0x%x", i,
					c->flags);
	}

	if (!array_reserve(&p->rules, &p->cap, p->nrules, sizeof(*p->rules), 64))
		return diag_err(d, -ENOMEM, where, "out of memory");
	struct rule *dst = &p->rules[p->nrules];
	memset(dst, 0, sizeof(*dst));
	dst->nr = r.nr;
	dst->arch = r.arch;
	dst->action = r.action;
	dst->nconds = r.nconds;
	if ((r.syscall && !(dst->name = strdup(r.syscall))) ||
	    (r.origin && !(dst->origin = strdup(r.origin))) ||
	    (r.nconds && !(dst->conds = malloc(r.nconds * sizeof(*dst->conds))))) {
		free(dst->name);
		free(dst->origin);
		return diag_err(d, -ENOMEM, where, "out of memory");
	}
	if (r.nconds)
		memcpy(dst->conds, r.conds, r.nconds * sizeof(*dst->conds));
	return (int)p->nrules++;
}

SCMPC_API size_t scmpc_policy_rule_count(const scmpc_policy *p) { return p->nrules; }

SCMPC_API const char *scmpc_policy_rule_origin(const scmpc_policy *p, size_t i)
{
	return i < p->nrules ? p->rules[i].origin : NULL;
}

static int cmp_resolved(const void *a, const void *b)
{
	const struct resolved *x = a, *y = b;
	if (x->nr != y->nr)
		return x->nr < y->nr ? -1 : 1;
	return (x->rule > y->rule) - (x->rule < y->rule);
}

int arch_view_init(struct arch_view *v, const scmpc_policy *p, enum scmpc_arch a, scmpc_diag *d)
{
	memset(v, 0, sizeof(*v));
	v->arch = a;
	v->info = arch_info(a);
	if (!v->info)
		return diag_err(d, -EINVAL, NULL, "unsupported architecture %d", (int)a);
	v->rs = malloc((p->nrules ? p->nrules : 1) * sizeof(*v->rs));
	if (!v->rs)
		return diag_err(d, -ENOMEM, NULL, "out of memory");
	uint32_t maxnr = v->info->nr_base;
	for (size_t i = 0; i < p->nrules; i++) {
		const struct rule *r = &p->rules[i];
		uint32_t nr;
		if (r->arch != SCMPC_ARCH_NONE && r->arch != a)
			continue;
		if (r->name) {
			int64_t n = arch_resolve(v->info, r->name);
			if (n < 0)
				continue;
			nr = (uint32_t)n;
		} else {
			nr = r->nr;
		}
		v->rs[v->nrs++] = (struct resolved){ nr, (uint32_t)i };
		if (nr > maxnr && !arch_is_private(v->info, nr) && nr != 0xffffffffU)
			maxnr = nr;
	}
	qsort(v->rs, v->nrs, sizeof(*v->rs), cmp_resolved);
	if (p->merge == SCMPC_MERGE_LIBSECCOMP)
		merge_first_unconditional(p, v);
	v->unknown_set = p->unknown_set;
	if (p->unknown_set)
		v->threshold = p->unknown_thr == SCMPC_UNKNOWN_POLICY_MAX ? maxnr : arch_table_max(a);
	else
		v->threshold = 0xffffffffU;
	return 0;
}

void arch_view_fini(struct arch_view *v)
{
	free(v->rs);
	v->rs = NULL;
	v->nrs = 0;
}

void arch_view_find(const struct arch_view *v, uint32_t nr, size_t *lo, size_t *hi)
{
	size_t l = 0, h = v->nrs;
	while (l < h) {
		size_t m = l + (h - l) / 2;
		if (v->rs[m].nr < nr)
			l = m + 1;
		else
			h = m;
	}
	*lo = l;
	while (l < v->nrs && v->rs[l].nr == nr)
		l++;
	*hi = l;
}

uint32_t arch_view_fallback(const scmpc_policy *p, const struct arch_view *v, uint32_t nr)
{
	if (v->unknown_set && nr > v->threshold && nr != 0xffffffffU &&
	    !arch_is_private(v->info, nr))
		return p->unknown_action;
	return p->def_action;
}
