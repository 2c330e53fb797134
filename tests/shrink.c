/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Greedy test-case reduction (delta debugging over rules, then finer
 * edits).  A candidate differs from the current policy by one edit; it is
 * kept when the caller's predicate still holds, so the result is a local
 * minimum: no single edit below keeps the failure.
 */
#include <ctype.h>
#include <linux/audit.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "shrink.h"
#include "testutil.h"

enum edit_kind {
	E_NONE,		/* a plain copy */
	E_DROP_RULES,	/* rules [lo, hi) */
	E_DROP_COND,	/* condition `cond` of rule lo */
	E_SET_COND,	/* condition `cond` of rule lo becomes c */
	E_RULE_ACTION,	/* rule lo gets `action` */
	E_DROP_ARCH,
	E_DEFAULT,
	E_BADARCH,
	E_NO_UNKNOWN,
	E_RESTRICTIVE,
	E_NO_FLAGS,
};

struct edit {
	enum edit_kind kind;
	size_t lo, hi, cond;
	enum scmpc_arch arch;
	uint32_t action;
	struct scmpc_cond c;
};

/* P with edit E applied, or NULL when the API refuses the result (an edit
 * may produce something invalid; that candidate is simply not taken). */
static scmpc_policy *rebuild(const scmpc_policy *p, const struct edit *e)
{
	scmpc_policy *q = scmpc_policy_new(e->kind == E_DEFAULT ? e->action : p->def_action);
	if (!q)
		return NULL;
	bool ok = true;
	for (size_t i = 0; i < p->narches; i++)
		if (e->kind != E_DROP_ARCH || p->arches[i] != e->arch)
			ok &= scmpc_policy_add_arch(q, p->arches[i], NULL) == 0;
	ok &= scmpc_policy_set_bad_arch_action(
		      q, e->kind == E_BADARCH ? e->action : p->badarch_action, NULL) == 0;
	if (p->unknown_set && e->kind != E_NO_UNKNOWN)
		ok &= scmpc_policy_set_unknown_action(q, p->unknown_action, p->unknown_thr,
						      NULL) == 0;
	ok &= scmpc_policy_set_merge(q, e->kind == E_RESTRICTIVE ? SCMPC_MERGE_RESTRICTIVE
								: p->merge, NULL) == 0;
	ok &= scmpc_policy_set_flags(q, e->kind == E_NO_FLAGS ? 0 : p->load_flags, NULL) == 0;

	struct scmpc_cond c[64];
	for (size_t i = 0; i < p->nrules && ok; i++) {
		const struct rule *r = &p->rules[i];
		if (e->kind == E_DROP_RULES && i >= e->lo && i < e->hi)
			continue;
		bool here = i == e->lo;
		size_t n = 0;
		for (size_t j = 0; j < r->nconds && n < ARRAY_SIZE(c); j++) {
			if (here && e->kind == E_DROP_COND && j == e->cond)
				continue;
			c[n++] = here && e->kind == E_SET_COND && j == e->cond ? e->c : r->conds[j];
		}
		struct scmpc_rule nr = {
			.sz = sizeof(nr),
			.syscall = r->name,
			.nr = r->nr,
			.arch = r->arch,
			.action = here && e->kind == E_RULE_ACTION ? e->action : r->action,
			.conds = n ? c : NULL,
			.nconds = n,
			.origin = r->origin,
		};
		ok &= scmpc_policy_add_rule(q, &nr, NULL) >= 0;
	}
	if (!ok) {
		scmpc_policy_free(q);
		return NULL;
	}
	return q;
}

struct shrinker {
	scmpc_policy *cur;
	shrink_pred pred;
	void *ctx;
	unsigned checks, kept, max_checks;
	uint64_t deadline;
	bool out;	/* budget spent */
};

static bool try_edit(struct shrinker *s, const struct edit *e)
{
	if (s->out || s->checks >= s->max_checks || testutil_now_ns() >= s->deadline) {
		s->out = true;
		return false;
	}
	scmpc_policy *q = rebuild(s->cur, e);
	if (!q)
		return false;
	s->checks++;
	if (!s->pred(q, s->ctx)) {
		scmpc_policy_free(q);
		return false;
	}
	scmpc_policy_free(s->cur);
	s->cur = q;
	s->kept++;
	return true;
}

/* Chunks of rules, from all of them down to single rules; after a chunk
 * goes the same position is tried again, as the next chunk slid into it. */
static bool pass_rules(struct shrinker *s)
{
	bool any = false;
	for (size_t chunk = s->cur->nrules; chunk >= 1 && !s->out; chunk /= 2) {
		for (size_t lo = 0; lo < s->cur->nrules && !s->out;) {
			size_t hi = lo + chunk < s->cur->nrules ? lo + chunk : s->cur->nrules;
			struct edit e = { .kind = E_DROP_RULES, .lo = lo, .hi = hi };
			if (try_edit(s, &e))
				any = true;
			else
				lo = hi;
		}
	}
	return any;
}

static bool pass_conds(struct shrinker *s)
{
	bool any = false;
	for (size_t i = 0; i < s->cur->nrules && !s->out; i++)
		/* Downwards, so that a dropped condition shifts none still to try. */
		for (size_t j = s->cur->rules[i].nconds; j-- > 0 && !s->out;) {
			struct edit e = { .kind = E_DROP_COND, .lo = i, .cond = j };
			any |= try_edit(s, &e);
		}
	return any;
}

static bool pass_arches(struct shrinker *s)
{
	/* The compat ABIs go first, so that what stays is, where the failure
	 * allows, an ABI a developer's machine runs. */
	static const enum scmpc_arch order[] = { SCMPC_ARCH_X32, SCMPC_ARCH_ARM, SCMPC_ARCH_I386,
						 SCMPC_ARCH_AARCH64, SCMPC_ARCH_X86_64 };
	bool any = false;
	/* One ABI stays: a policy without any is a different failure. */
	for (size_t i = 0; i < ARRAY_SIZE(order) && s->cur->narches > 1 && !s->out; i++) {
		if (!policy_has_arch(s->cur, order[i]))
			continue;
		struct edit e = { .kind = E_DROP_ARCH, .arch = order[i] };
		any |= try_edit(s, &e);
	}
	return any;
}

/* How far an action is from the plainest ones; edits only go down, so
 * shrinking cannot cycle between actions. */
static unsigned act_rank(uint32_t act)
{
	if (act == SCMPC_ACT_ALLOW)
		return 0;
	if (act == SCMPC_ACT_KILL_PROCESS)
		return 1;
	if (act == SCMPC_ACT_ERRNO(1))
		return 2;
	return 3;
}

static const uint32_t plain_acts[] = { SCMPC_ACT_ALLOW, SCMPC_ACT_KILL_PROCESS,
				       SCMPC_ACT_ERRNO(1) };

static bool pass_settings(struct shrinker *s)
{
	bool any = false;
	if (s->cur->unknown_set)
		any |= try_edit(s, &(struct edit){ .kind = E_NO_UNKNOWN });
	if (s->cur->merge != SCMPC_MERGE_RESTRICTIVE)
		any |= try_edit(s, &(struct edit){ .kind = E_RESTRICTIVE });
	if (s->cur->load_flags)
		any |= try_edit(s, &(struct edit){ .kind = E_NO_FLAGS });
	if (s->cur->badarch_action != SCMPC_ACT_KILL_PROCESS)
		any |= try_edit(s, &(struct edit){ .kind = E_BADARCH,
						   .action = SCMPC_ACT_KILL_PROCESS });
	for (size_t i = 0; i < ARRAY_SIZE(plain_acts); i++)
		if (act_rank(plain_acts[i]) < act_rank(s->cur->def_action) &&
		    try_edit(s, &(struct edit){ .kind = E_DEFAULT, .action = plain_acts[i] })) {
			any = true;
			break;
		}
	return any;
}

static bool pass_actions(struct shrinker *s)
{
	bool any = false;
	for (size_t i = 0; i < s->cur->nrules && !s->out; i++) {
		uint32_t cur = s->cur->rules[i].action, def = s->cur->def_action;
		/* The default is tried first: a rule that merely repeats it is
		 * often what matters less.  Equal rank is allowed for it, since
		 * the rule then equals the default and is never tried again. */
		if (cur != def && act_rank(def) <= act_rank(cur) &&
		    try_edit(s, &(struct edit){ .kind = E_RULE_ACTION, .lo = i, .action = def })) {
			any = true;
			continue;
		}
		for (size_t k = 0; k < ARRAY_SIZE(plain_acts); k++)
			if (act_rank(plain_acts[k]) < act_rank(s->cur->rules[i].action) &&
			    try_edit(s, &(struct edit){ .kind = E_RULE_ACTION, .lo = i,
							.action = plain_acts[k] })) {
				any = true;
				break;
			}
	}
	return any;
}

/* Smaller stand-ins for a constant, each strictly below it so that
 * repeated passes end. */
static size_t smaller(uint64_t x, uint64_t out[3])
{
	size_t n = 0;
	if (x > 0)
		out[n++] = 0;
	if (x > 1)
		out[n++] = 1;
	if (x > 0xffffffffULL && (x & 0xffffffffULL) > 1)
		out[n++] = x & 0xffffffffULL;
	return n;
}

static bool try_cond(struct shrinker *s, size_t i, size_t j, struct scmpc_cond c)
{
	return try_edit(s, &(struct edit){ .kind = E_SET_COND, .lo = i, .cond = j, .c = c });
}

static bool pass_values(struct shrinker *s)
{
	bool any = false;
	for (size_t i = 0; i < s->cur->nrules && !s->out; i++)
		for (size_t j = 0; j < s->cur->rules[i].nconds && !s->out; j++) {
			/* Re-read after every kept edit: try_edit replaces s->cur. */
#define COND (s->cur->rules[i].conds[j])
			struct scmpc_cond c = COND;
			uint64_t v[3];
			if (c.flags) {
				c.flags = 0;
				any |= try_cond(s, i, j, c);
			}
			c = COND;
			if (c.op != SCMPC_OP_EQ) {
				c.op = SCMPC_OP_EQ;
				c.value2 = 0;
				any |= try_cond(s, i, j, c);
			}
			c = COND;
			if (c.arg != 0) {
				c.arg = 0;
				any |= try_cond(s, i, j, c);
			}
			c = COND;
			size_t n = smaller(c.value, v);
			for (size_t k = 0; k < n && !s->out; k++) {
				c.value = v[k];
				if (try_cond(s, i, j, c)) {
					any = true;
					break;
				}
			}
			c = COND;
			if (c.op == SCMPC_OP_MASKED_EQ) {
				n = smaller(c.value2, v);
				for (size_t k = 0; k < n && !s->out; k++) {
					c.value2 = v[k];
					if (try_cond(s, i, j, c)) {
						any = true;
						break;
					}
				}
			}
#undef COND
		}
	return any;
}

scmpc_policy *shrink_policy(const scmpc_policy *p, shrink_pred pred, void *ctx,
			    const struct shrink_opts *o, struct shrink_stats *st)
{
	uint64_t t0 = testutil_now_ns();
	struct shrinker s = {
		.pred = pred,
		.ctx = ctx,
		.max_checks = o && o->max_checks ? o->max_checks : 5000,
		.deadline = t0 + (o && o->max_ns ? o->max_ns : 10000000000ULL),
	};
	memset(st, 0, sizeof(*st));
	s.cur = rebuild(p, &(struct edit){ .kind = E_NONE });
	if (!s.cur)
		return NULL;
	s.checks = 1;
	if (!pred(s.cur, ctx)) {
		st->lost = true;
		st->checks = 1;
		st->ns = testutil_now_ns() - t0;
		scmpc_policy_free(s.cur);
		return NULL;
	}
	/* Cheap, large reductions first; the finer passes then have less to
	 * walk.  Any success may enable another, hence the loop. */
	for (bool progress = true; progress && !s.out;) {
		progress = pass_rules(&s);
		progress |= pass_conds(&s);
		progress |= pass_arches(&s);
		progress |= pass_settings(&s);
		progress |= pass_actions(&s);
		progress |= pass_values(&s);
	}
	st->checks = s.checks;
	st->kept = s.kept;
	st->exhausted = s.out;
	st->ns = testutil_now_ns() - t0;
	return s.cur;
}

size_t shrink_cond_count(const scmpc_policy *p)
{
	size_t n = 0;
	for (size_t i = 0; i < p->nrules; i++)
		n += p->rules[i].nconds;
	return n;
}

/* ------------------------------------------------------------------- C */

const char *shrink_act_c(uint32_t act, char *buf, size_t len)
{
	uint32_t data = act & 0xffffU;
	switch (act & 0xffff0000U) {
	case SCMPC_ACT_KILL_PROCESS:
		if (!data)
			return "SCMPC_ACT_KILL_PROCESS";
		break;
	case SCMPC_ACT_KILL_THREAD:
		if (!data)
			return "SCMPC_ACT_KILL_THREAD";
		break;
	case SCMPC_ACT_TRAP:
		if (!data)
			return "SCMPC_ACT_TRAP";
		break;
	case SCMPC_ACT_ERRNO(0):
		snprintf(buf, len, "SCMPC_ACT_ERRNO(%u)", data);
		return buf;
	case SCMPC_ACT_USER_NOTIF:
		if (!data)
			return "SCMPC_ACT_USER_NOTIF";
		break;
	case SCMPC_ACT_TRACE(0):
		snprintf(buf, len, "SCMPC_ACT_TRACE(%u)", data);
		return buf;
	case SCMPC_ACT_LOG:
		if (!data)
			return "SCMPC_ACT_LOG";
		break;
	case SCMPC_ACT_ALLOW:
		if (!data)
			return "SCMPC_ACT_ALLOW";
		break;
	}
	snprintf(buf, len, "0x%08xU", act);
	return buf;
}

/* The enumerator's name: SCMPC_ARCH_ and scmpc's name in capitals. */
static const char *arch_c(enum scmpc_arch a)
{
	static char ring[4][40];
	static unsigned next;
	char *b = ring[next++ % 4];
	const char *n = scmpc_arch_name(a);
	size_t k = (size_t)snprintf(b, sizeof(ring[0]), "SCMPC_ARCH_");
	for (const char *c = n ? n : "none"; *c && k + 1 < sizeof(ring[0]); c++)
		b[k++] = (char)toupper((unsigned char)*c);
	b[k] = '\0';
	return b;
}

static const char *op_c(enum scmpc_op op)
{
	switch (op) {
	case SCMPC_OP_EQ: return "SCMPC_OP_EQ";
	case SCMPC_OP_NE: return "SCMPC_OP_NE";
	case SCMPC_OP_LT: return "SCMPC_OP_LT";
	case SCMPC_OP_LE: return "SCMPC_OP_LE";
	case SCMPC_OP_GT: return "SCMPC_OP_GT";
	case SCMPC_OP_GE: return "SCMPC_OP_GE";
	case SCMPC_OP_MASKED_EQ: return "SCMPC_OP_MASKED_EQ";
	}
	return "0";
}

static void print_u64(FILE *f, uint64_t x)
{
	fprintf(f, x > 0xffffffffULL ? "0x%llxULL" : "0x%llx", (unsigned long long)x);
}

/* NAME as a C string literal; names come from profiles, so escape. */
static void print_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;
		if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch < 0x20 || ch >= 0x7f)
			fprintf(f, "\\%03o", ch);
		else
			fputc(ch, f);
	}
	fputc('"', f);
}

void shrink_print_c(FILE *f, const scmpc_policy *p, const char *in)
{
	char b1[32], b2[32];
	fprintf(f, "%sscmpc_policy *p = scmpc_policy_new(%s);\n", in,
		shrink_act_c(p->def_action, b1, sizeof(b1)));
	for (size_t i = 0; i < p->narches; i++)
		fprintf(f, "%sscmpc_policy_add_arch(p, %s, NULL);\n", in, arch_c(p->arches[i]));
	if (p->badarch_action != SCMPC_ACT_KILL_PROCESS)
		fprintf(f, "%sscmpc_policy_set_bad_arch_action(p, %s, NULL);\n", in,
			shrink_act_c(p->badarch_action, b1, sizeof(b1)));
	if (p->unknown_set)
		fprintf(f, "%sscmpc_policy_set_unknown_action(p, %s, %s, NULL);\n", in,
			shrink_act_c(p->unknown_action, b1, sizeof(b1)),
			p->unknown_thr == SCMPC_UNKNOWN_POLICY_MAX ? "SCMPC_UNKNOWN_POLICY_MAX"
								   : "SCMPC_UNKNOWN_TABLE_MAX");
	if (p->merge == SCMPC_MERGE_LIBSECCOMP)
		fprintf(f, "%sscmpc_policy_set_merge(p, SCMPC_MERGE_LIBSECCOMP, NULL);\n", in);
	if (p->load_flags)
		fprintf(f, "%sscmpc_policy_set_flags(p, 0x%x, NULL);\n", in, p->load_flags);
	for (size_t i = 0; i < p->nrules; i++) {
		const struct rule *r = &p->rules[i];
		fprintf(f, "%sscmpc_policy_add_rule(p, &(struct scmpc_rule){\n", in);
		fprintf(f, "%s\t.sz = sizeof(struct scmpc_rule), ", in);
		if (r->name) {
			fprintf(f, ".syscall = ");
			print_str(f, r->name);
		} else {
			fprintf(f, r->nr < 0x10000 ? ".nr = %u" : ".nr = 0x%xU", r->nr);
		}
		if (r->arch != SCMPC_ARCH_NONE)
			fprintf(f, ", .arch = %s", arch_c(r->arch));
		fprintf(f, ", .action = %s", shrink_act_c(r->action, b2, sizeof(b2)));
		if (r->nconds) {
			fprintf(f, ",\n%s\t.nconds = %zu, ", in, r->nconds);
			fprintf(f, ".conds = (const struct scmpc_cond[]){");
			for (size_t j = 0; j < r->nconds; j++) {
				const struct scmpc_cond *c = &r->conds[j];
				fprintf(f, "\n%s\t\t{ .arg = %u, .op = %s, .value = ", in, c->arg,
					op_c(c->op));
				print_u64(f, c->value);
				if (c->op == SCMPC_OP_MASKED_EQ || c->value2) {
					fprintf(f, ", .value2 = ");
					print_u64(f, c->value2);
				}
				if (c->flags & SCMPC_COND_32BIT)
					fprintf(f, ", .flags = SCMPC_COND_32BIT");
				fprintf(f, " },");
			}
			fprintf(f, " }");
		}
		fprintf(f, " }, NULL);\n");
	}
}

static const char *audit_c(uint32_t audit)
{
	switch (audit) {
	case AUDIT_ARCH_X86_64: return "AUDIT_ARCH_X86_64";
	case AUDIT_ARCH_I386: return "AUDIT_ARCH_I386";
	case AUDIT_ARCH_AARCH64: return "AUDIT_ARCH_AARCH64";
	case AUDIT_ARCH_ARM: return "AUDIT_ARCH_ARM";
	case AUDIT_ARCH_PPC64LE: return "AUDIT_ARCH_PPC64LE";
	case AUDIT_ARCH_S390X: return "AUDIT_ARCH_S390X";
	}
	return NULL;
}

void shrink_print_sd_c(FILE *f, const struct seccomp_data *sd, const char *name, const char *in)
{
	const char *a = audit_c(sd->arch);
	fprintf(f, "%sstruct seccomp_data %s = { .nr = ", in, name);
	fprintf(f, sd->nr >= 0 && sd->nr < 0x10000 ? "%d" : "0x%x", sd->nr);
	fprintf(f, ", .arch = ");
	if (a)
		fprintf(f, "%s", a);
	else
		fprintf(f, "0x%08xU", sd->arch);
	fprintf(f, ", .args = {");
	for (int i = 0; i < 6; i++) {
		fprintf(f, i ? ", " : " ");
		print_u64(f, sd->args[i]);
	}
	fprintf(f, " } };\n");
}
