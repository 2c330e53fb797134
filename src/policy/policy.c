/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* The policy IR: what the caller said, validated, and its per-ABI view. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "policy/policy.h"
#include "policy/lsc_tree.h"

SCMPC_API const char *scmpc_version(void)
{
	return SCMPC_VERSION_STRING;
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

SCMPC_API int scmpc_action_parse(const char *s, uint32_t *act)
{
	static const struct {
		const char *name;
		uint32_t act;
		bool data;
	} names[] = {
		{ "KILL_PROCESS", SCMPC_ACT_KILL_PROCESS, false },
		{ "KILL_THREAD", SCMPC_ACT_KILL_THREAD, false },
		{ "KILL", SCMPC_ACT_KILL_THREAD, false },	/* libseccomp's and OCI's */
		{ "TRAP", SCMPC_ACT_TRAP, false },
		{ "ERRNO", SCMPC_ACT_ERRNO(0), true },
		{ "TRACE", SCMPC_ACT_TRACE(0), true },
		{ "LOG", SCMPC_ACT_LOG, false },
		{ "ALLOW", SCMPC_ACT_ALLOW, false },
		{ "USER_NOTIF", SCMPC_ACT_USER_NOTIF, false },
		{ "NOTIFY", SCMPC_ACT_USER_NOTIF, false },
	};
	if (!s || !act)
		return -EINVAL;
	if (!strncasecmp(s, "SCMP_ACT_", 9))
		s += 9;
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		size_t n = strlen(names[i].name);
		if (strncasecmp(s, names[i].name, n))
			continue;
		const char *rest = s + n;
		if (!*rest) {
			*act = names[i].act;
			return 0;
		}
		char *end;
		unsigned long v;
		const char *num = rest + 1;
		bool neg = *num == '-';
		if (!names[i].data || *rest != '(')
			continue;
		num += neg;
		if (!(*num >= '0' && *num <= '9'))
			return -EINVAL;
		errno = 0;
		v = strtoul(num, &end, 0);
		/* "-0" is no number an action is written with */
		if (end[0] != ')' || end[1] || (neg && !v && errno != ERANGE))
			return -EINVAL;
		/* Data the action cannot carry is out of range, never masked
		 * into the 16 bits (ERRNO(65549) is not ERRNO(13)): the kernel
		 * caps errno at 4095 (MAX_ERRNO), and TRACE's data is the 16
		 * bits of SECCOMP_RET_DATA. */
		if (neg || errno == ERANGE ||
		    v > (names[i].act == SCMPC_ACT_ERRNO(0) ? 4095UL : 0xffffUL))
			return -ERANGE;
		*act = names[i].act | (uint32_t)v;
		return scmpc_action_valid(*act) ? 0 : -ERANGE;
	}
	return -EINVAL;
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

scmpc_policy *policy_new_like(const scmpc_policy *p)
{
	scmpc_policy *q = scmpc_policy_new(p->def_action);
	if (!q)
		return NULL;
	*q = *p;
	q->rules = NULL;
	q->nrules = q->cap = 0;
	q->listener_path = p->listener_path ? strdup(p->listener_path) : NULL;
	q->listener_meta = p->listener_meta ? strdup(p->listener_meta) : NULL;
	if ((p->listener_path && !q->listener_path) || (p->listener_meta && !q->listener_meta)) {
		scmpc_policy_free(q);
		return NULL;
	}
	return q;
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
	free(p->listener_path);
	free(p->listener_meta);
	free(p);
}

SCMPC_API uint32_t scmpc_policy_default_action(const scmpc_policy *p)
{
	return p ? p->def_action : SCMPC_ACT_KILL_PROCESS;
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
	if (!p)
		return diag_err(d, -EINVAL, NULL, "no policy");
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

SCMPC_API size_t scmpc_policy_arch_count(const scmpc_policy *p) { return p ? p->narches : 0; }

SCMPC_API enum scmpc_arch scmpc_policy_arch(const scmpc_policy *p, size_t i)
{
	return p && i < p->narches ? p->arches[i] : SCMPC_ARCH_NONE;
}

SCMPC_API int scmpc_policy_set_flags(scmpc_policy *p, unsigned flags, scmpc_diag *d)
{
	if (!p)
		return diag_err(d, -EINVAL, NULL, "no policy");
	/* TSYNC LOG SPEC_ALLOW NEW_LISTENER TSYNC_ESRCH WAIT_KILLABLE_RECV */
	if (flags & ~0x3fU)
		return diag_err(d, -EINVAL, "flags", "unknown seccomp filter flags 0x%x", flags);
	p->load_flags = flags;
	return 0;
}

SCMPC_API unsigned scmpc_policy_flags(const scmpc_policy *p) { return p ? p->load_flags : 0; }

SCMPC_API int scmpc_policy_set_merge(scmpc_policy *p, enum scmpc_merge m, scmpc_diag *d)
{
	if (!p)
		return diag_err(d, -EINVAL, NULL, "no policy");
	if (m != SCMPC_MERGE_RESTRICTIVE && m != SCMPC_MERGE_LIBSECCOMP &&
	    m != SCMPC_MERGE_LIBSECCOMP_STRICT)
		return diag_err(d, -EINVAL, NULL, "unknown merge mode %d", (int)m);
	p->lsc_strict = m == SCMPC_MERGE_LIBSECCOMP_STRICT;
	p->merge = p->lsc_strict ? SCMPC_MERGE_LIBSECCOMP : m;
	return 0;
}

SCMPC_API int scmpc_policy_check(const scmpc_policy *p, scmpc_diag *d)
{
	if (!p)
		return diag_err(d, -EINVAL, NULL, "no policy");
	for (size_t i = 0; i < p->narches; i++) {
		struct arch_view v;
		int rc = arch_view_init(&v, p, p->arches[i], d);
		if (rc < 0)
			return rc;
		arch_view_fini(&v);
	}
	return 0;
}

/* LIBSECCOMP merge: rules with the default action are refused (libseccomp
 * answers EACCES); where a number has an unconditional rule, the first one
 * (the list is sorted by number, then add order) is all that is left of its
 * rules. */
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
			const struct rule *r = view_rule(p, v, j);
			struct resolved cur = v->rs[j++];
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
	if (act == SCMPC_ACT_OUT_OF_RANGE)
		return diag_err(d, -ERANGE, where, "action data out of range: SCMPC_ACT_ERRNO() "
				"takes 0-4095, SCMPC_ACT_TRACE() 0-65535");
	if ((act & 0xffff0000U) == SCMPC_ACT_ERRNO(0))
		return diag_err(d, -ERANGE, where, "errno %u is out of range 0-4095 (the kernel "
				"caps errno at 4095)", act & 0xffffU);
	return diag_err(d, -EINVAL, where, "invalid action 0x%08x", act);
}

SCMPC_API int scmpc_policy_set_bad_arch_action(scmpc_policy *p, uint32_t act, scmpc_diag *d)
{
	if (!p)
		return diag_err(d, -EINVAL, NULL, "no policy");
	int r = check_action(d, act, "bad-arch action");
	if (r)
		return r;
	p->badarch_action = act;
	return 0;
}

SCMPC_API int scmpc_policy_set_unknown_action(scmpc_policy *p, uint32_t act,
					      enum scmpc_unknown_threshold thr, scmpc_diag *d)
{
	if (!p)
		return diag_err(d, -EINVAL, NULL, "no policy");
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

SCMPC_API int scmpc_policy_set_listener(scmpc_policy *p, const char *path, const char *metadata,
					scmpc_diag *d)
{
	if (!p)
		return diag_err(d, -EINVAL, NULL, "no policy");
	if (metadata && !path)
		return diag_err(d, -EINVAL, NULL, "listener metadata needs a listener path");
	if (path && path[0] != '/')
		return diag_err(d, -EINVAL, NULL, "the listener path \"%s\" is not absolute", path);
	char *np = path ? strdup(path) : NULL, *nm = metadata ? strdup(metadata) : NULL;
	if ((path && !np) || (metadata && !nm)) {
		free(np);
		free(nm);
		return diag_err(d, -ENOMEM, NULL, "out of memory");
	}
	free(p->listener_path);
	free(p->listener_meta);
	p->listener_path = np;
	p->listener_meta = nm;
	return 0;
}

SCMPC_API bool scmpc_policy_listener(const scmpc_policy *p, const char **path,
				     const char **metadata)
{
	if (path)
		*path = p ? p->listener_path : NULL;
	if (metadata)
		*metadata = p ? p->listener_meta : NULL;
	return p && p->listener_path;
}

SCMPC_API int scmpc_policy_set_limit(scmpc_policy *p, enum scmpc_arch a, uint32_t max, uint32_t act,
				     unsigned flags, scmpc_diag *d)
{
	if (!p)
		return diag_err(d, -EINVAL, NULL, "no policy");
	int r = check_action(d, act, "limit action");
	if (r)
		return r;
	if (!arch_info(a))
		return diag_err(d, -EINVAL, NULL, "unsupported architecture %d", (int)a);
	if (flags & ~SCMPC_LIMIT_ZERO)
		return diag_err(d, -EINVAL, NULL, "unknown limit flags 0x%x", flags);
	p->limits[a] = (struct limit){ max != UINT32_MAX, max, act, flags };
	return 0;
}

const struct limit *call_limit(const scmpc_policy *p, uint32_t audit, uint32_t nr)
{
	enum scmpc_arch a = arch_of_call(audit, 0);
	if (a == SCMPC_ARCH_X86_64 && (nr & X32_SYSCALL_BIT))
		a = SCMPC_ARCH_X32;
	if (a == SCMPC_ARCH_NONE || !p->limits[a].set || !policy_has_arch(p, a))
		return NULL;
	return &p->limits[a];
}

SCMPC_API int scmpc_policy_add_rule(scmpc_policy *p, const struct scmpc_rule *in, scmpc_diag *d)
{
	struct scmpc_rule r;
	int err;

	if (!p || !in)
		return diag_err(d, -EINVAL, NULL, "no policy or no rule");
	/* A rule that stops before its conditions would lose them: a
	 * conditional ALLOW would become an unconditional one. */
	if (OPTS_VALID(in, scmpc_rule, nconds, d))
		return -EINVAL;
	OPTS_COPY(r, in);
	const char *where = r.origin;
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
	/* MASKED_EQ compares arg & mask with datum & mask, as libseccomp
	 * does: bits of the datum outside the mask could never match. */
	for (size_t i = 0; i < r.nconds; i++) {
		struct scmpc_cond *c = &dst->conds[i];
		if (c->op != SCMPC_OP_MASKED_EQ || !(c->value2 & ~c->value))
			continue;
		diag_warn(d, "%s%scondition %zu: datum 0x%llx has bits outside the mask 0x%llx; "
			  "compared as 0x%llx", where ? where : "", where ? ": " : "", i,
			  (unsigned long long)c->value2, (unsigned long long)c->value,
			  (unsigned long long)(c->value2 & c->value));
		c->value2 &= c->value;
	}
	return (int)p->nrules++;
}

SCMPC_API size_t scmpc_policy_rule_count(const scmpc_policy *p) { return p ? p->nrules : 0; }

SCMPC_API const char *scmpc_policy_rule_origin(const scmpc_policy *p, size_t i)
{
	return p && i < p->nrules ? p->rules[i].origin : NULL;
}

SCMPC_API int scmpc_policy_rule(const scmpc_policy *p, size_t i, struct scmpc_rule_info *out)
{
	if (!p || !out || out->sz < OPTS_END(scmpc_rule_info, origin) || i >= p->nrules)
		return -EINVAL;
	const struct rule *r = &p->rules[i];
	struct scmpc_rule_info info = {
		.syscall = r->name,
		.nr = r->nr,
		.arch = r->arch,
		.action = r->action,
		.conds = r->conds,
		.nconds = r->nconds,
		.origin = r->origin,
	};
	OUT_FILL(out, info);
	return 0;
}

static int cmp_resolved(const void *a, const void *b)
{
	const struct resolved *x = a, *y = b;
	if (x->nr != y->nr)
		return x->nr < y->nr ? -1 : 1;
	if (x->order != y->order)
		return x->order < y->order ? -1 : 1;
	return (x->rule > y->rule) - (x->rule < y->rule);
}

/*
 * The view's entries in cmp_resolved() order: by number, then policy
 * rule, then view rule.  The main loop of arch_view_init() adds one entry
 * per rule in rule order, so when no multiplexed copy was added after it
 * (IN_ORDER) the entries already run in (order, rule) order, and a stable
 * sort by number alone gives the same result as qsort() with
 * cmp_resolved(): a byte-wise radix sort, which costs a few passes over
 * the few hundred entries of a container profile where qsort() made some
 * 2,000 calls to cmp_resolved() per view.  Passes on a byte every entry
 * shares are skipped.
 */
static void sort_resolved(struct arch_view *v, bool in_order)
{
	size_t n = v->nrs;
	struct resolved *tmp = in_order && n > 1 ? malloc(n * sizeof(*tmp)) : NULL;
	if (!tmp) {
		if (n > 1)
			qsort(v->rs, n, sizeof(*v->rs), cmp_resolved);
		return;
	}
	struct resolved *src = v->rs, *dst = tmp;
	for (unsigned shift = 0; shift < 32; shift += 8) {
		size_t count[257] = { 0 };
		for (size_t i = 0; i < n; i++)
			count[((src[i].nr >> shift) & 0xff) + 1]++;
		if (count[((src[0].nr >> shift) & 0xff) + 1] == n)
			continue;
		for (size_t b = 1; b <= 256; b++)
			count[b] += count[b - 1];
		for (size_t i = 0; i < n; i++)
			dst[count[(src[i].nr >> shift) & 0xff]++] = src[i];
		struct resolved *t = src;
		src = dst;
		dst = t;
	}
	if (src != v->rs)
		memcpy(v->rs, src, n * sizeof(*src));
	free(tmp);
}

/* A rule of the view's own, conditions copied from SRC (the first N of
 * them, or none), standing for policy rule SOURCE.  Returns its index in
 * the view's rule space, or -ENOMEM. */
static int64_t own_rule(struct arch_view *v, const struct rule *src, uint32_t source,
			size_t extra_conds)
{
	if (!array_reserve(&v->own, &v->ownc, v->nown, sizeof(*v->own), 8))
		return -ENOMEM;
	struct rule *r = &v->own[v->nown];
	*r = *src;
	r->name = NULL;
	r->origin = src->origin;	/* borrowed: the policy outlives the view */
	r->source = source;
	r->nconds = 0;
	r->conds = calloc(src->nconds + extra_conds + 1, sizeof(*r->conds));
	if (!r->conds)
		return -ENOMEM;
	return (int64_t)(v->base + v->nown++);
}

static bool add_entry(struct arch_view *v, size_t *cap, uint32_t nr, uint32_t rule, uint32_t order)
{
	if (!array_reserve(&v->rs, cap, v->nrs, sizeof(*v->rs), 64))
		return false;
	v->rs[v->nrs++] = (struct resolved){ nr, rule, order };
	return true;
}

/* libseccomp builds 32-bit ABIs' rules from the low word of each constant:
 * the high word is dropped, and a masked compare whose mask has no low
 * bits tests nothing and goes.  (The restrictive merge folds such a
 * condition instead: no 32-bit value can meet a constant above 2^32.) */
static bool truncated_rule(const struct rule *r)
{
	for (size_t k = 0; k < r->nconds; k++)
		if ((r->conds[k].value >> 32) || (r->conds[k].value2 >> 32))
			return true;
	return false;
}

/* SRC as libseccomp keeps it on a 32-bit ABI: constants cut to their low word, a mask with no low
 * bits dropped. */
static int64_t truncate_rule(struct arch_view *v, const struct rule *src, uint32_t source)
{
	int64_t idx = own_rule(v, src, source, 0);
	if (idx < 0)
		return idx;
	struct rule *r = &v->own[idx - (int64_t)v->base];
	for (size_t k = 0; k < src->nconds; k++) {
		struct scmpc_cond c = src->conds[k];
		c.value &= UINT32_MAX;
		c.value2 &= UINT32_MAX;
		if (c.op == SCMPC_OP_MASKED_EQ && !c.value)
			continue;
		r->conds[r->nconds++] = c;
	}
	return idx;
}

static const char *mux_name(enum arch_mux m)
{
	return m == MUX_IPC ? "ipc" : "socketcall";
}

/* The call a rule names on V: its name, or the name of its number. */
static const char *rule_call(const struct arch_view *v, const struct rule *r)
{
	return r->name ? r->name : arch_syscall_name(v->info, r->nr);
}

/*
 * Socket and SysV IPC calls also reach the kernel through socketcall(2) and
 * ipc(2) on the ABIs that have them (i386, s390, ppc, mips o32, ...), with
 * the call's number as the first argument and its arguments behind a
 * pointer the filter cannot read.  A rule on the call must hold there too,
 * or socketcall(SYS_SOCKET, ...) slips past a deny on socket.  In every
 * merge the call test reads what the kernel reads (arch_subcall_test()).
 *  - LIBSECCOMP merge, as libseccomp adds it: a copy of each rule on the
 *    multiplexer, its argument-0 conditions replaced by the call test, the
 *    others kept as they are.  libseccomp's own test compares the whole
 *    argument, which a version in ipc's high bits (or, on 64-bit ABIs,
 *    anything in socketcall's high word) slips past: the one place this
 *    merge departs from libseccomp on purpose.
 *  - RESTRICTIVE: an unconditional rule is copied with the call test; for a
 *    call with conditional rules, which cannot be enforced through the
 *    pointer, the multiplexed call gets the most restrictive action the
 *    direct call can get for some argument, and a warning says so.
 */
static int add_multiplexed(const scmpc_policy *p, struct arch_view *v, size_t *cap,
			   const uint32_t *rules, size_t n, scmpc_diag *d)
{
	for (size_t i = 0; i < n; i++) {
		const struct rule *r = &p->rules[rules[i]];
		enum arch_mux m;
		uint32_t call, mux;
		const char *name = rule_call(v, r);
		if (arch_subcall(name, &m, &call) < 0 || arch_multiplexer(v->info, m, &mux) < 0)
			continue;
		struct scmpc_cond test = arch_subcall_test(m, call);
		if (p->merge == SCMPC_MERGE_LIBSECCOMP) {
			int64_t idx = own_rule(v, r, rules[i], 1);
			if (idx < 0)
				return -ENOMEM;
			struct rule *o = &v->own[idx - (int64_t)v->base];
			o->conds[o->nconds++] = test;
			for (size_t k = 0; k < r->nconds; k++)
				if (r->conds[k].arg != 0)
					o->conds[o->nconds++] = r->conds[k];
			if (!add_entry(v, cap, mux, (uint32_t)idx, rules[i]))
				return -ENOMEM;
			continue;
		}
		/* RESTRICTIVE: the rules of this name, once, at its first. */
		bool first = true, conditional = false, unconditional = false;
		uint32_t worst = 0;
		const struct rule *cond_rule = NULL;
		for (size_t j = 0; j < n; j++) {
			const struct rule *o = &p->rules[rules[j]];
			if (strcmp(rule_call(v, o), name))
				continue;
			if (j < i) {
				first = false;
				break;
			}
			if (o->nconds) {
				conditional = true;
				if (!cond_rule)
					cond_rule = o;
			} else {
				unconditional = true;
			}
			if (j == i || scmpc_action_cmp(o->action, worst) < 0)
				worst = o->action;
		}
		if (!first)
			continue;
		if (!conditional) {
			for (size_t j = i; j < n; j++) {
				const struct rule *o = &p->rules[rules[j]];
				if (strcmp(rule_call(v, o), name))
					continue;
				int64_t idx = own_rule(v, o, rules[j], 1);
				if (idx < 0)
					return -ENOMEM;
				struct rule *c = &v->own[idx - (int64_t)v->base];
				c->conds[c->nconds++] = test;
				if (!add_entry(v, cap, mux, (uint32_t)idx, rules[j]))
					return -ENOMEM;
			}
			continue;
		}
		if (!unconditional && scmpc_action_cmp(p->def_action, worst) < 0)
			worst = p->def_action;
		int64_t idx = own_rule(v, r, rules[i], 1);
		if (idx < 0)
			return -ENOMEM;
		struct rule *c = &v->own[idx - (int64_t)v->base];
		c->action = worst;
		c->conds[c->nconds++] = test;
		if (!add_entry(v, cap, mux, (uint32_t)idx, rules[i]))
			return -ENOMEM;
		char act[32];
		scmpc_action_str(worst, act, sizeof(act));
		diag_warn_once(d, "%s%s%s's argument conditions cannot be checked through %s(2) on %s "
			       "(its arguments are behind a pointer): %s(%u, ...) gets %s, the most "
			       "restrictive action %s can get", cond_rule->origin ? cond_rule->origin : "",
			       cond_rule->origin ? ": " : "", name, mux_name(m), v->info->name,
			       mux_name(m), call, act, name);
	}
	return 0;
}

/* LIBSECCOMP merge, before merge_first_unconditional() prunes: libseccomp
 * merges a call's conditional rules, in the order they come, into its
 * tree of comparisons until an unconditional rule replaces them.  Where two
 * of them with different actions can match the same arguments, the tree's
 * order decides, not severity, and libseccomp may refuse a rule (EEXIST)
 * even if an unconditional one comes later (a warning then says so).
 * Elsewhere both agree, and the call keeps the compiler's own lowering. */
static int build_trees(const scmpc_policy *p, struct arch_view *v, scmpc_diag *d)
{
	size_t cap = 0, *pos = malloc((v->nrs ? v->nrs : 1) * sizeof(*pos));
	if (!pos)
		return diag_err(d, -ENOMEM, NULL, "out of memory");
	int rc = 0;
	for (size_t lo = 0, hi; lo < v->nrs && !rc; lo = hi) {
		for (hi = lo; hi < v->nrs && v->rs[hi].nr == v->rs[lo].nr; hi++)
			;
		size_t n = 0;
		bool replaced = false;
		for (size_t i = lo; i < hi && !replaced; i++) {
			const struct rule *r = view_rule(p, v, i);
			if (r->action == p->def_action)
				continue;	/* refused by libseccomp, never passed by runc */
			replaced = lsc_unconditional(r);
			if (!replaced)
				pos[n++] = i;
		}
		bool conflict = false, mixed = false;
		for (size_t i = 1; i < n && !mixed; i++)
			mixed = view_rule(p, v, pos[i])->action != view_rule(p, v, pos[0])->action;
		for (size_t i = 0; i < n && mixed && !conflict; i++)
			for (size_t j = i + 1; j < n && !conflict; j++) {
				const struct rule *x = view_rule(p, v, pos[i]), *y = view_rule(p, v, pos[j]);
				conflict = x->action != y->action &&
					   rules_may_overlap(x, y, v->info->compat32);
			}
		/* Rules that cannot match together decide alike in any order,
		 * but libseccomp may still refuse one: the strict merge builds
		 * the tree to find out. */
		if (!conflict && !(mixed && p->lsc_strict))
			continue;
		struct lsc_tree *t;
		rc = lsc_tree_build(&t, p, v, pos, n, d);
		if (rc == -EEXIST && p->lsc_strict)
			break;
		if (rc == -EEXIST || rc == -ELOOP) {
			rc = 0;		/* warned; the call is decided by severity */
			continue;
		}
		if (rc < 0)
			break;
		if (replaced) {
			lsc_tree_free(t);	/* built for its refusals only */
			continue;
		}
		if (!array_reserve(&v->trees, &cap, v->ntrees, sizeof(*v->trees), 4)) {
			lsc_tree_free(t);
			rc = diag_err(d, -ENOMEM, NULL, "out of memory");
			break;
		}
		v->trees[v->ntrees++] = (struct view_tree){ v->rs[lo].nr, t };
	}
	free(pos);
	return rc;
}

const struct arch_view *minus1_view(const scmpc_policy *p, const struct arch_view *views,
				    uint32_t audit, size_t *lo, size_t *hi)
{
	for (size_t i = 0; i < p->narches; i++) {
		if (views[i].info->audit != audit)
			continue;
		arch_view_find(&views[i], UINT32_MAX, lo, hi);
		if (*lo < *hi)
			return &views[i];
	}
	return NULL;
}

const struct lsc_tree *view_tree(const struct arch_view *v, uint32_t nr)
{
	size_t lo = lower_bound_u32(v->trees, v->ntrees, sizeof(*v->trees),
				    offsetof(struct view_tree, nr), nr);
	return lo < v->ntrees && v->trees[lo].nr == nr ? v->trees[lo].t : NULL;
}

int arch_view_init(struct arch_view *v, const scmpc_policy *p, enum scmpc_arch a, scmpc_diag *d)
{
	memset(v, 0, sizeof(*v));
	v->arch = a;
	v->info = arch_info(a);
	v->base = p->nrules;
	if (!v->info)
		return diag_err(d, -EINVAL, NULL, "unsupported architecture %d", (int)a);
	size_t cap = 0, nmux = 0;
	uint32_t *mux = malloc((p->nrules ? p->nrules : 1) * sizeof(*mux));
	if (!mux)
		return diag_err(d, -ENOMEM, NULL, "out of memory");
	uint32_t maxnr = v->info->nr_base;
	bool lsc32 = p->merge == SCMPC_MERGE_LIBSECCOMP && v->info->compat32;
	/* Only an ABI with socketcall(2) or ipc(2) multiplexes calls: on the
	 * others arch_subcall()'s string compares, per rule, find nothing
	 * that add_multiplexed() would not drop. */
	uint32_t mux_nr;
	bool muxes = arch_multiplexer(v->info, MUX_SOCKETCALL, &mux_nr) == 0 ||
		     arch_multiplexer(v->info, MUX_IPC, &mux_nr) == 0;
	/* The previous rule's name and what it resolved to: a call's rules
	 * usually follow each other, and each lookup compares strings. */
	const char *last = NULL;
	bool last_mux = false;
	int64_t last_nr = -1;
	for (size_t i = 0; i < p->nrules; i++) {
		const struct rule *r = &p->rules[i];
		uint32_t nr, rule = (uint32_t)i;
		enum arch_mux m;
		uint32_t call;
		if (r->arch != SCMPC_ARCH_NONE && r->arch != a)
			continue;
		const char *name = r->name ? r->name : arch_syscall_name(v->info, r->nr);
		bool same = r->name && last && (r->name == last || !strcmp(r->name, last));
		if (!same) {
			last_mux = muxes && name && !p->literal && arch_subcall(name, &m, &call) == 0;
			last_nr = r->name ? arch_resolve(v->info, r->name) : -1;
			last = r->name;
		}
		if (last_mux)
			mux[nmux++] = (uint32_t)i;
		if (r->name) {
			if (last_nr < 0)
				continue;
			nr = (uint32_t)last_nr;
		} else {
			nr = r->nr;
		}
		if (lsc32 && truncated_rule(r)) {
			int64_t idx = truncate_rule(v, r, (uint32_t)i);
			if (idx < 0)
				goto oom;
			rule = (uint32_t)idx;
		}
		if (!add_entry(v, &cap, nr, rule, (uint32_t)i))
			goto oom;
		if (nr > maxnr && !arch_is_private(v->info, nr) && nr != 0xffffffffU)
			maxnr = nr;
	}
	if (nmux) {
		/* Multiplexed copies are made from the truncated rules where
		 * libseccomp truncates: swap them in, as in the main loop. */
		int rc = add_multiplexed(p, v, &cap, mux, nmux, d);
		if (rc < 0)
			goto oom;
		if (lsc32)
			for (size_t k = 0; k < v->nown; k++) {
				struct rule *o = &v->own[k];
				for (size_t c = 0; c < o->nconds; c++) {
					o->conds[c].value &= UINT32_MAX;
					o->conds[c].value2 &= UINT32_MAX;
				}
			}
	}
	free(mux);
	mux = NULL;
	sort_resolved(v, nmux == 0);
	if (p->merge == SCMPC_MERGE_LIBSECCOMP) {
		int rc = build_trees(p, v, d);
		if (rc < 0) {
			arch_view_fini(v);
			return rc;
		}
		merge_first_unconditional(p, v);
	}
	v->unknown_set = p->unknown_set;
	if (p->unknown_set)
		v->threshold = p->unknown_thr == SCMPC_UNKNOWN_POLICY_MAX ? maxnr : arch_table_max(a);
	else
		v->threshold = 0xffffffffU;
	return 0;
oom:
	free(mux);
	arch_view_fini(v);
	return diag_err(d, -ENOMEM, NULL, "out of memory");
}

/* Free what arch_view_init() allocated in V and leave it empty. */
void arch_view_fini(struct arch_view *v)
{
	for (size_t i = 0; i < v->ntrees; i++)
		lsc_tree_free(v->trees[i].t);
	free(v->trees);
	v->trees = NULL;
	v->ntrees = 0;
	for (size_t i = 0; i < v->nown; i++)
		free(v->own[i].conds);
	free(v->own);
	free(v->rs);
	v->rs = NULL;
	v->own = NULL;
	v->nrs = v->nown = v->ownc = 0;
}

void arch_view_find(const struct arch_view *v, uint32_t nr, size_t *lo, size_t *hi)
{
	size_t l = lower_bound_u32(v->rs, v->nrs, sizeof(*v->rs), offsetof(struct resolved, nr), nr);
	*lo = l;
	while (l < v->nrs && v->rs[l].nr == nr)
		l++;
	*hi = l;
}

bool arch_view_has_conds(const scmpc_policy *p, const struct arch_view *v, uint32_t nr)
{
	size_t lo, hi;
	arch_view_find(v, nr, &lo, &hi);
	for (size_t i = lo; i < hi; i++)
		if (view_rule(p, v, i)->nconds)
			return true;
	return false;
}

uint32_t arch_view_fallback(const scmpc_policy *p, const struct arch_view *v, uint32_t nr)
{
	if (v->unknown_set && nr > v->threshold && nr != 0xffffffffU &&
	    !arch_is_private(v->info, nr))
		return p->unknown_action;
	return p->def_action;
}
