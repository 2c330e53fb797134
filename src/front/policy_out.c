/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * A policy written as an OCI seccomp profile: what a lifted program (an
 * intersection, say) becomes for runc and crun.  OCI names calls, one
 * list for every ABI of the profile, so each name must be decided alike
 * on every ABI that has it; a rule by a number no table names cannot be
 * said and is refused naming it.  An argument compared twice in one rule
 * is two rules to runc, either one matching: comparisons that fold into
 * one are written as one, others as one entry per aligned block of the
 * values they allow (split_conds()).  In runc's modes each limit's
 * number is named (with the default action) so that runc's stub starts
 * where the limit does.  What the runtime then makes of the profile is
 * for the caller to prove (scmpc_diff() of its compile against the
 * program it stands for).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "arch/arch.h"
#include "policy/policy.h"
#include "front/profile_write.h"

static const char *const op_names[] = {
	[SCMPC_OP_EQ] = "SCMP_CMP_EQ", [SCMPC_OP_NE] = "SCMP_CMP_NE",
	[SCMPC_OP_LT] = "SCMP_CMP_LT", [SCMPC_OP_LE] = "SCMP_CMP_LE",
	[SCMPC_OP_GT] = "SCMP_CMP_GT", [SCMPC_OP_GE] = "SCMP_CMP_GE",
	[SCMPC_OP_MASKED_EQ] = "SCMP_CMP_MASKED_EQ",
};

/* The name rule R has on ABI A, or NULL. */
static const char *rule_name(const struct rule *r, enum scmpc_arch a)
{
	if (r->name)
		return r->name;
	return r->arch == a ? arch_syscall_name(arch_info(a), r->nr) : NULL;
}

static int canon_conds(const struct rule *r, struct scmpc_cond *out, size_t *n);

/* Condition C as an ABI reads it (a 32-bit one: the low words of the
 * argument and of the values), in one form for one meaning: 1 in *OUT, 0
 * when it holds for every value there, -1 when for none. */
static int read_cond(struct scmpc_cond c, bool compat32, struct scmpc_cond *out)
{
	if (compat32) {
		/* a0 > 0xffffffff, x86_64's high word other than 0 as
		 * canon_conds() says it: no low word is above */
		if (c.op == SCMPC_OP_GT && (uint32_t)c.value == 0xffffffffU)
			return -1;
		c.value &= 0xffffffffU;
		c.value2 &= 0xffffffffU;
		c.flags = 0;	/* every comparison is of the low word */
		if (c.op == SCMPC_OP_EQ)
			c = (struct scmpc_cond){ .arg = c.arg, .op = SCMPC_OP_MASKED_EQ,
						 .value = 0xffffffffU, .value2 = c.value };
	}
	if (c.op == SCMPC_OP_MASKED_EQ) {
		c.value2 &= c.value;
		if (!c.value)
			return 0;
	}
	*out = c;
	return 1;
}

/* R's conditions as text: "args[0] >= 0x1 && args[0] != 0x8". */
static void conds_text(const struct rule *r, char *buf, size_t len)
{
	static const char *const sym[] = {
		[SCMPC_OP_EQ] = "==", [SCMPC_OP_NE] = "!=", [SCMPC_OP_LT] = "<",
		[SCMPC_OP_LE] = "<=", [SCMPC_OP_GT] = ">", [SCMPC_OP_GE] = ">=",
		[SCMPC_OP_MASKED_EQ] = "&",
	};
	size_t at = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < r->nconds && at < len; i++) {
		const struct scmpc_cond *c = &r->conds[i];
		const char *lo = (c->flags & SCMPC_COND_32BIT) ? ".lo" : "";
		int n;
		if (c->op == SCMPC_OP_MASKED_EQ)
			n = snprintf(buf + at, len - at, "%sargs[%u]%s & %#" PRIx64 " == %#" PRIx64,
				     i ? " && " : "", c->arg, lo, c->value, c->value2 & c->value);
		else
			n = snprintf(buf + at, len - at, "%sargs[%u]%s %s %#" PRIx64, i ? " && " : "",
				     c->arg, lo, sym[c->op], c->value);
		if (n < 0)
			break;
		at += (size_t)n;
	}
}

static int cond_cmp(const void *pa, const void *pb)
{
	const struct scmpc_cond *a = pa, *b = pb;
	if (a->arg != b->arg)
		return a->arg < b->arg ? -1 : 1;
	if (a->op != b->op)
		return a->op < b->op ? -1 : 1;
	if (a->value != b->value)
		return a->value < b->value ? -1 : 1;
	if (a->value2 != b->value2)
		return a->value2 < b->value2 ? -1 : 1;
	return (a->flags > b->flags) - (a->flags < b->flags);
}

/* R's conditions (canon_conds()) as an ABI of COMPAT32 reads them, sorted:
 * 0, 1 when R matches no call there, -E2BIG when OCI cannot say them. */
static int read_conds(const struct rule *r, bool compat32, struct scmpc_cond *out, size_t *n)
{
	struct scmpc_cond cc[64];
	size_t ncc = 0;
	int err = canon_conds(r, cc, &ncc);
	*n = 0;
	for (size_t i = 0; i < ncc && !err; i++) {
		int k = read_cond(cc[i], compat32, &out[*n]);
		if (k < 0)
			return 1;
		*n += (size_t)k;
	}
	qsort(out, *n, sizeof(*out), cond_cmp);
	return err;
}

/* Whether rule R, written for OCI, matches no call on an ABI of COMPAT32. */
static bool never_on(const struct rule *r, bool compat32)
{
	struct scmpc_cond a[64];
	size_t na;
	return read_conds(r, compat32, a, &na) == 1;
}

/* Whether rule R, written for OCI, says on an ABI of COMPAT32 what S (its
 * rule) does there.  One profile entry serves every ABI and a 32-bit one
 * reads only the low words: x86_64's a0 == 0 (a0.hi == 0 && a0.lo == 0 as
 * lifted) is i386's a0.lo == 0 (the kernel gives a 32-bit call's
 * arguments a zero high word, which the policy leaves free), so an
 * allow-list of personality values is one entry for both. */
static bool same_rule(const struct rule *r, const struct rule *s, bool compat32)
{
	struct scmpc_cond a[64], b[64];
	size_t na, nb;
	if (r->action != s->action)
		return false;
	int ra = read_conds(r, compat32, a, &na), rb = read_conds(s, compat32, b, &nb);
	if (ra < 0 || rb < 0) {
		/* not for OCI to say (the writer names why): the same rule
		 * word for word, as the ABI reads it */
		uint64_t m = compat32 ? 0xffffffffULL : UINT64_MAX;
		if (r->nconds != s->nconds)
			return false;
		for (size_t i = 0; i < r->nconds; i++) {
			const struct scmpc_cond *x = &r->conds[i], *y = &s->conds[i];
			if (x->arg != y->arg || x->op != y->op || ((x->value ^ y->value) & m) ||
			    ((x->value2 ^ y->value2) & m) ||
			    (!compat32 && x->flags != y->flags))
				return false;
		}
		return true;
	}
	if (ra || rb || na != nb)
		return false;
	for (size_t i = 0; i < na; i++)
		if (cond_cmp(&a[i], &b[i]))
			return false;
	return true;
}

static bool is_order(enum scmpc_op op)
{
	return op == SCMPC_OP_LT || op == SCMPC_OP_LE || op == SCMPC_OP_GT || op == SCMPC_OP_GE ||
	       op == SCMPC_OP_EQ;
}

/* The interval [*LO, *HI] the order comparisons (is_order()) among C[N] of
 * argument ARG, in the width FLAGS gives, allow: false when no value. */
static bool order_bounds(const struct scmpc_cond *c, size_t n, unsigned arg, unsigned flags,
			 uint64_t *lo, uint64_t *hi)
{
	uint64_t max = (flags & SCMPC_COND_32BIT) ? 0xffffffffU : UINT64_MAX;
	uint64_t a = 0, b = max;
	for (size_t i = 0; i < n; i++) {
		if (c[i].arg != arg || c[i].flags != flags || !is_order(c[i].op))
			continue;
		uint64_t v = c[i].value & max;
		switch (c[i].op) {
		case SCMPC_OP_EQ: a = v > a ? v : a; b = v < b ? v : b; break;
		case SCMPC_OP_GE: a = v > a ? v : a; break;
		case SCMPC_OP_GT: if (v == max) return false; a = v + 1 > a ? v + 1 : a; break;
		case SCMPC_OP_LE: b = v < b ? v : b; break;
		default: if (v == 0) return false; b = v - 1 < b ? v - 1 : b; break;
		}
	}
	*lo = a;
	*hi = b;
	return a <= b;
}

/* R's conditions with each argument's order comparisons (of one width)
 * folded into one where the interval they bound allows (a0 >= 1 &&
 * a0 <= 1 is a0 == 1): runc makes an argument named twice two rules.
 * Others are copied.  0, or -E2BIG past 64 conditions. */
static int canon_conds(const struct rule *r, struct scmpc_cond *out, size_t *n)
{
	bool folded[64] = { false };
	struct scmpc_cond in[64];
	size_t nin = r->nconds;
	*n = 0;
	if (nin > 64)
		return -E2BIG;
	/* A 32-bit equality is a masked one of the low word; masked
	 * equalities of one argument are one (a 64-bit == is said by the
	 * lift as its two words). */
	for (size_t i = 0; i < nin; i++) {
		in[i] = r->conds[i];
		if (in[i].op == SCMPC_OP_EQ && (in[i].flags & SCMPC_COND_32BIT))
			in[i] = (struct scmpc_cond){ .arg = in[i].arg, .op = SCMPC_OP_MASKED_EQ,
						     .value = 0xffffffffU,
						     .value2 = in[i].value & 0xffffffffU };
	}
	for (size_t i = 0; i < nin; i++) {
		if (in[i].op != SCMPC_OP_MASKED_EQ || in[i].flags)
			continue;
		for (size_t j = i + 1; j < nin; j++) {
			if (in[j].op != SCMPC_OP_MASKED_EQ || in[j].flags || in[j].arg != in[i].arg)
				continue;
			uint64_t both = in[i].value & in[j].value;
			if ((in[i].value2 & both) != (in[j].value2 & both))
				return -E2BIG;	/* never holds: not for OCI to say */
			in[i].value2 = (in[i].value2 & in[i].value) | (in[j].value2 & in[j].value);
			in[i].value |= in[j].value;
			in[j] = in[--nin];
			j--;
		}
		if (in[i].value == UINT64_MAX)
			in[i] = (struct scmpc_cond){ .arg = in[i].arg, .op = SCMPC_OP_EQ,
						     .value = in[i].value2 };
	}
	for (size_t i = 0; i < nin; i++) {
		const struct scmpc_cond *c = &in[i];
		if (folded[i])
			continue;
		if (!is_order(c->op)) {
			out[(*n)++] = *c;
			continue;
		}
		uint64_t max = (c->flags & SCMPC_COND_32BIT) ? 0xffffffffU : UINT64_MAX;
		uint64_t lo, hi;
		for (size_t j = i; j < nin; j++)
			folded[j] |= in[j].arg == c->arg && in[j].flags == c->flags &&
				     is_order(in[j].op);
		bool empty = !order_bounds(in, nin, c->arg, c->flags, &lo, &hi);
		struct scmpc_cond f = *c;
		if (empty || (lo != hi && lo != 0 && hi != max))
			return -E2BIG;	/* a true interval: two comparisons */
		if (lo == hi) {
			f.op = SCMPC_OP_EQ;
			f.value = lo;
		} else if (lo == 0 && hi == max) {
			continue;	/* every value */
		} else if (lo == 0) {
			f.op = SCMPC_OP_LE;
			f.value = hi;
		} else if (max == UINT64_MAX && (uint32_t)lo == 0) {
			/* a high word above some value, the low one free:
			 * said as > so that a 32-bit ABI, which reads the
			 * low words, finds no value above 0xffffffff (as >=
			 * its low word would hold for every value) */
			f.op = SCMPC_OP_GT;
			f.value = lo - 1;
		} else {
			f.op = SCMPC_OP_GE;
			f.value = lo;
		}
		out[(*n)++] = f;
	}
	return 0;
}

/* Entries one rule may become when an argument's values are no single
 * comparison: each a block of MASKED_EQ, so a few dozen cover any run of
 * intervals a lift gives (a 32-bit interval is at most 62 blocks). */
#define MAX_PIECES 128

/* The values of argument ARG (of the width FLAGS gives) that C's order and
 * != conditions on it allow, as sorted disjoint intervals in LO/HI (at most
 * CAP): their number, or -1 when a masked comparison also names the
 * argument (not said by intervals) or the != cut past CAP intervals. */
static int arg_intervals(const struct scmpc_cond *c, size_t n, unsigned arg, unsigned flags,
			 uint64_t *lo, uint64_t *hi, size_t cap)
{
	uint64_t max = (flags & SCMPC_COND_32BIT) ? 0xffffffffU : UINT64_MAX;
	uint64_t a, b;
	for (size_t i = 0; i < n; i++)
		if (c[i].arg == arg && c[i].flags == flags && !is_order(c[i].op) &&
		    c[i].op != SCMPC_OP_NE)
			return -1;
	if (!order_bounds(c, n, arg, flags, &a, &b))
		return 0;
	size_t k = 1;
	lo[0] = a;
	hi[0] = b;
	/* each != cuts the interval holding its value */
	for (size_t i = 0; i < n; i++) {
		if (c[i].arg != arg || c[i].flags != flags || c[i].op != SCMPC_OP_NE)
			continue;
		uint64_t v = c[i].value & max;
		for (size_t j = 0; j < k; j++) {
			if (v < lo[j] || v > hi[j])
				continue;
			if (lo[j] == hi[j]) {
				memmove(&lo[j], &lo[j + 1], (k - j - 1) * sizeof(*lo));
				memmove(&hi[j], &hi[j + 1], (k - j - 1) * sizeof(*hi));
				k--;
			} else if (v == lo[j]) {
				lo[j]++;
			} else if (v == hi[j]) {
				hi[j]--;
			} else {
				if (k == cap)
					return -1;
				memmove(&lo[j + 1], &lo[j], (k - j) * sizeof(*lo));
				memmove(&hi[j + 1], &hi[j], (k - j) * sizeof(*hi));
				hi[j] = v - 1;
				lo[j + 1] = v + 1;
				k++;
			}
			break;
		}
	}
	return (int)k;
}

/* Whether conditions CC[N] (canon_conds()'s) are one OCI entry on a home
 * ABI of COMPAT32: each argument named once, and on a 64-bit home a
 * comparison of the low word alone an equality (masked: the high word
 * free), the one form OCI has for it. */
static bool one_entry(const struct scmpc_cond *cc, size_t n, bool compat32)
{
	unsigned used = 0;
	for (size_t i = 0; i < n; i++) {
		if (used & (1U << cc[i].arg))
			return false;
		used |= 1U << cc[i].arg;
		if ((cc[i].flags & SCMPC_COND_32BIT) && !compat32 && cc[i].op != SCMPC_OP_EQ &&
		    cc[i].op != SCMPC_OP_MASKED_EQ)
			return false;
	}
	return true;
}

/* Where split_conds() gathers its entries: each WIDTH conditions wide. */
struct pieces {
	struct scmpc_cond *out;
	size_t *nc;
	size_t n, width;
	bool compat32;
};

/* R as entries into PS, cutting one argument's values at a time into
 * aligned blocks until each piece is one entry. */
static int split_rec(const struct rule *r, struct pieces *ps)
{
	struct scmpc_cond cc[64];
	size_t ncc = 0;
	if (r->nconds > 64)
		return -E2BIG;
	if (canon_conds(r, cc, &ncc) == 0 && one_entry(cc, ncc, ps->compat32)) {
		if (ps->n == MAX_PIECES)
			return -E2BIG;
		memcpy(&ps->out[ps->n * ps->width], cc, ncc * sizeof(*cc));
		ps->nc[ps->n++] = ncc;
		return 0;
	}
	/* the first argument (and width) said by order or != comparisons
	 * that are not one entry: several, or the low word's alone */
	for (size_t i = 0; i < r->nconds; i++) {
		const struct scmpc_cond *c = &r->conds[i];
		if (!is_order(c->op) && c->op != SCMPC_OP_NE)
			continue;
		size_t same = 0;
		for (size_t j = 0; j < r->nconds; j++)
			same += r->conds[j].arg == c->arg && r->conds[j].flags == c->flags;
		if (same < 2 && !((c->flags & SCMPC_COND_32BIT) && !ps->compat32 &&
				  c->op != SCMPC_OP_EQ))
			continue;
		uint64_t lo[MAX_PIECES], hi[MAX_PIECES];
		int k = arg_intervals(r->conds, r->nconds, c->arg, c->flags, lo, hi, MAX_PIECES);
		if (k < 0)
			continue;	/* masked as well: not said by intervals */
		/* the rest, then one block of the argument */
		struct rule piece = *r;
		struct scmpc_cond pc[64];
		size_t np = 0;
		for (size_t j = 0; j < r->nconds; j++)
			if (r->conds[j].arg != c->arg || r->conds[j].flags != c->flags)
				pc[np++] = r->conds[j];
		piece.conds = pc;
		piece.nconds = np + 1;
		uint64_t max = (c->flags & SCMPC_COND_32BIT) ? 0xffffffffU : UINT64_MAX;
		for (int j = 0; j < k; j++) {
			for (uint64_t v = lo[j];;) {
				/* the largest block from V that starts aligned
				 * to its size and ends inside the interval */
				uint64_t m = 0;
				while (m != max && !(v & (2 * m + 1)) && 2 * m + 1 <= hi[j] - v)
					m = 2 * m + 1;
				pc[np] = (struct scmpc_cond){ .arg = c->arg, .op = SCMPC_OP_MASKED_EQ,
							      .value = max & ~m, .value2 = v,
							      .flags = c->flags };
				int err = split_rec(&piece, ps);
				if (err < 0)
					return err;
				if (m >= hi[j] - v)
					break;
				v += m + 1;
			}
		}
		return 0;	/* k == 0: never holds, no entry */
	}
	return -E2BIG;
}

/* Rule R's conditions as entries OCI can say on a home ABI of COMPAT32,
 * in OUT (each R->nconds + 1 conditions wide, NC[i] of them), *N entries:
 * one when R is one already, else one per aligned block of the values an
 * argument's comparisons allow, which runc reads as a masked equality
 * each.  The blocks are disjoint and of R's action, so either runtime
 * matches them as it would R.  0, or -E2BIG when R is none of these or
 * needs more than MAX_PIECES entries. */
static int split_conds(const struct rule *r, bool compat32, struct scmpc_cond *out, size_t *nc,
		       size_t *n)
{
	struct pieces ps = { out, nc, 0, r->nconds + 1, compat32 };
	int err = split_rec(r, &ps);
	*n = ps.n;
	return err;
}

/* One profile entry: NAME with action AN (ACTION, its DATA) on the
 * conditions CC[N] (canon_conds()'s), as read on an ABI whose home is
 * COMPAT32 or not.  0, or -ENOTSUP naming what runc cannot say. */
static int write_entry(struct textbuf *t, bool first, const char *name, const char *an,
		       uint32_t action, uint32_t data, const struct scmpc_cond *cc, size_t n,
		       bool compat32, scmpc_diag *d)
{
	textbuf_put(t, "%s\n\t\t{\n\t\t\t\"names\": [\"%s\"],\n\t\t\t\"action\": \"%s\"",
		    first ? "" : ",", name, an);
	if ((action & 0xffff0000U) == SCMPC_ACT_ERRNO(0) ||
	    (action & 0xffff0000U) == SCMPC_ACT_TRACE(0))
		textbuf_put(t, ",\n\t\t\t\"errnoRet\": %" PRIu32, data);
	if (n)
		textbuf_put(t, ",\n\t\t\t\"args\": [");
	unsigned used = 0;
	for (size_t c = 0; c < n; c++) {
		const struct scmpc_cond *cd = &cc[c];
		uint64_t v = cd->value, v2 = cd->value2;
		enum scmpc_op op = cd->op;
		if (used & (1U << cd->arg))
			return diag_err(d, -ENOTSUP, NULL, "%s: argument %u is compared twice in "
					"one rule, which runc makes two rules", name, cd->arg);
		used |= 1U << cd->arg;
		if ((cd->flags & SCMPC_COND_32BIT) && !compat32) {
			/* the low word alone: only equality says it */
			if (op != SCMPC_OP_EQ && op != SCMPC_OP_MASKED_EQ)
				return diag_err(d, -ENOTSUP, NULL, "%s: a 32-bit order comparison "
						"of argument %u", name, cd->arg);
			if (op == SCMPC_OP_EQ) {
				v2 = v & 0xffffffffU;
				v = 0xffffffffU;
			} else {
				v &= 0xffffffffU;
			}
			op = SCMPC_OP_MASKED_EQ;
		}
		if (op == SCMPC_OP_MASKED_EQ)
			textbuf_put(t, "%s\n\t\t\t\t{\"index\": %u, \"value\": %" PRIu64 ", "
				    "\"valueTwo\": %" PRIu64 ", \"op\": \"%s\"}", c ? "," : "",
				    cd->arg, v, v2 & v, op_names[op]);
		else
			textbuf_put(t, "%s\n\t\t\t\t{\"index\": %u, \"value\": %" PRIu64
				    ", \"op\": \"%s\"}", c ? "," : "", cd->arg, v, op_names[op]);
	}
	if (n)
		textbuf_put(t, "\n\t\t\t]");
	textbuf_put(t, "\n\t\t}");
	return 0;
}

/* Whether ABI AB, which has no rule for NAME, already decides it as the
 * N unconditional rules from R on (one, or copies of one action) say:
 * the entry written for another ABI then says nothing new on AB (x32's
 * limit deciding what x86_64 names a rule for, say). */
static bool decided_as(const scmpc_policy *p, enum scmpc_arch ab, const char *name,
		       const struct rule *r, size_t n)
{
	if (n != 1 || r->nconds)
		return false;
	int nr = scmpc_syscall_resolve(ab, name);
	if (nr < 0)
		return false;
	struct seccomp_data sd = { .nr = nr, .arch = arch_info(ab)->audit };
	return scmpc_policy_eval(p, &sd, NULL) == r->action;
}

SCMPC_API int scmpc_policy_profile(const scmpc_policy *p, const struct scmpc_oci_opts *o,
				   char **out, size_t *len, scmpc_diag *d)
{
	struct scmpc_oci_opts opts;
	int err;
	if ((err = OPTS_VALID(o, scmpc_oci_opts, sz, d)) < 0)
		return err;
	OPTS_COPY(opts, o);
	if (opts.flags)
		return diag_err(d, -EINVAL, NULL, "unknown scmpc_oci_opts flags %#x", opts.flags);
	if (!p || !out || !len)
		return diag_err(d, -EINVAL, NULL, "no policy or no output");
	if (!scmpc_runtime_name(opts.runtime))
		return diag_err(d, -EINVAL, NULL, "unknown runtime %d", (int)opts.runtime);
	*out = NULL;
	*len = 0;
	uint32_t ddata;
	const char *defname = oci_action_name(p->def_action, &ddata);
	if (!defname)
		return diag_err(d, -ENOTSUP, NULL, "the default action %#x has no OCI name",
				p->def_action);
	/* An unknown-syscall action is left to the runtime: runc's stub says
	 * ENOSYS above the highest name, crun says the default; which of them
	 * the policy meant is for the caller's proof to settle. */
	/* A limit may be only how the lift chose to say what the default
	 * says anyway: whether the runtime's reading agrees is for the
	 * caller's proof, as for the unknown-syscall action. */
	/* Every rule's name must be decided alike on every ABI that has it:
	 * the rules of the first ABI with the name are the ones written, and
	 * every other ABI with the name must have the same list. */
	struct textbuf t = { 0 };
	bool *done = calloc(p->nrules ? p->nrules : 1, sizeof(*done));
	if (!done)
		return diag_err(d, -ENOMEM, NULL, "out of memory");
	textbuf_put(&t, "{\n\t\"defaultAction\": \"%s\",\n", defname);
	if ((p->def_action & 0xffff0000U) == SCMPC_ACT_ERRNO(0))
		textbuf_put(&t, "\t\"defaultErrnoRet\": %" PRIu32 ",\n", ddata);
	textbuf_put(&t, "\t\"architectures\": [");
	for (size_t i = 0; i < p->narches; i++)
		textbuf_put(&t, "%s\"%s\"", i ? ", " : "", arch_info(p->arches[i])->scmp_name);
	textbuf_put(&t, "],\n\t\"syscalls\": [");
	bool first = true;
	err = 0;
	for (size_t i = 0; i < p->nrules && !err; i++) {
		if (done[i])
			continue;
		const struct rule *r = &p->rules[i];
		enum scmpc_arch home = r->arch;
		if (home == SCMPC_ARCH_NONE)
			home = p->narches ? p->arches[0] : SCMPC_ARCH_NONE;
		const char *name = rule_name(r, home);
		/* The entry is written as a 64-bit ABI's rules say it, if one
		 * has the name: a 32-bit ABI reads that as its own (the low
		 * words), never the other way round. */
		for (size_t k = i + 1; name && home != SCMPC_ARCH_NONE &&
				       arch_info(home)->compat32 && k < p->nrules; k++) {
			const struct rule *s = &p->rules[k];
			if (s->arch != SCMPC_ARCH_NONE && !arch_info(s->arch)->compat32 &&
			    rule_name(s, s->arch) && !strcmp(rule_name(s, s->arch), name))
				home = s->arch;
		}
		if (!name) {
			err = diag_err(d, -ENOTSUP, NULL, "rule %zu: number %u on %s has no name, and "
				       "an OCI profile names calls", i, r->nr,
				       arch_info(home) ? arch_info(home)->name : "no ABI");
			break;
		}
		/* the rules for NAME on HOME, in order */
		size_t *mine = malloc(p->nrules * sizeof(*mine)), nm = 0;
		if (!mine) {
			err = diag_err(d, -ENOMEM, NULL, "out of memory");
			break;
		}
		for (size_t k = i; k < p->nrules; k++) {
			const struct rule *s = &p->rules[k];
			if ((s->arch == SCMPC_ARCH_NONE || s->arch == home) &&
			    rule_name(s, home) && !strcmp(rule_name(s, home), name))
				mine[nm++] = k;
		}
		/* every other ABI with the name: the same rules */
		for (size_t a = 0; a < p->narches && !err; a++) {
			enum scmpc_arch ab = p->arches[a];
			if (ab == home || scmpc_syscall_resolve(ab, name) < 0)
				continue;
			/* the written rules AB reads as matching nothing
			 * (x86_64's on a high word, on i386) are not AB's */
			bool c32 = arch_info(ab)->compat32;
			size_t k = 0;
			bool same = true;
			while (k < nm && never_on(&p->rules[mine[k]], c32))
				k++;
			for (size_t j = 0; j < p->nrules && same; j++) {
				const struct rule *s = &p->rules[j];
				if (!(s->arch == SCMPC_ARCH_NONE || s->arch == ab) || !rule_name(s, ab) ||
				    strcmp(rule_name(s, ab), name))
					continue;
				same = k < nm && same_rule(&p->rules[mine[k]], s, c32);
				if (same)
					done[j] = true;
				k++;
				while (k < nm && never_on(&p->rules[mine[k]], c32))
					k++;
			}
			if (same && k != nm && k == 0 && decided_as(p, ab, name, &p->rules[mine[0]], nm))
				k = nm;
			if (!same || k != nm)
				err = diag_err(d, -ENOTSUP, NULL, "%s is decided differently on %s and "
					       "%s, and an OCI profile has one list of calls for every "
					       "ABI", name, arch_info(home)->name, arch_info(ab)->name);
		}
		for (size_t k = 0; k < nm && !err; k++) {
			const struct rule *s = &p->rules[mine[k]];
			uint32_t data;
			const char *an = oci_action_name(s->action, &data);
			done[mine[k]] = true;
			if (!an) {
				err = diag_err(d, -ENOTSUP, NULL, "%s: action %#x has no OCI name", name,
					       s->action);
				break;
			}
			size_t npieces = 0, pieces_n[MAX_PIECES];
			struct scmpc_cond *pieces = malloc(MAX_PIECES * (s->nconds + 1) *
							   sizeof(*pieces));
			if (!pieces) {
				err = diag_err(d, -ENOMEM, NULL, "out of memory");
				break;
			}
			if (split_conds(s, arch_info(home)->compat32, pieces, pieces_n, &npieces) < 0) {
				free(pieces);
				char what[256], act[32];
				conds_text(s, what, sizeof(what));
				scmpc_action_str(s->action, act, sizeof(act));
				err = diag_err(d, -ENOTSUP, NULL, "%s: the rule %s -> %s compares "
					       "an argument in a way neither one comparison nor "
					       "%d masked ones say (or never holds), and an OCI "
					       "entry that names an argument twice is two entries "
					       "to runc, either one matching", name, what, act,
					       MAX_PIECES);
				break;
			}
			for (size_t pi = 0; pi < npieces && !err; pi++) {
				err = write_entry(&t, first, name, an, s->action, data,
						  &pieces[pi * (s->nconds + 1)], pieces_n[pi],
						  arch_info(home)->compat32, d);
				first = false;
			}
			free(pieces);
		}
		free(mine);
	}
	/* runc's stub starts above the highest number any entry names,
	 * entries of the default action included (libseccomp refuses those,
	 * runc still counts them): name each limit's number so. */
	bool runc = opts.runtime == SCMPC_RUNTIME_RUNC || opts.runtime == SCMPC_RUNTIME_RUNC_1_1;
	for (size_t a = 0; a < p->narches && runc && !err; a++) {
		const struct limit *l = &p->limits[p->arches[a]];
		const char *lname = l->set ? arch_syscall_name(arch_info(p->arches[a]), l->max) : NULL;
		if (!lname)
			continue;
		textbuf_put(&t, "%s\n\t\t{\n\t\t\t\"names\": [\"%s\"],\n\t\t\t\"action\": \"%s\"%s",
		    first ? "" : ",", lname, defname,
		    (p->def_action & 0xffff0000U) == SCMPC_ACT_ERRNO(0) ? "" : "\n\t\t}");
		if ((p->def_action & 0xffff0000U) == SCMPC_ACT_ERRNO(0))
			textbuf_put(&t, ",\n\t\t\t\"errnoRet\": %" PRIu32 "\n\t\t}", ddata);
		first = false;
	}
	textbuf_put(&t, "\n\t]\n}\n");
	free(done);
	if (!err && t.oom)
		err = diag_err(d, -ENOMEM, NULL, "out of memory");
	if (err < 0) {
		free(t.s);
		return err;
	}
	*out = t.s;
	*len = t.len;
	return 0;
}
