/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * The semantic check over argument values (verify_policy.c checks the
 * numbers and calls this for each argument-checked call).
 *
 * For one call (arch and nr fixed) the program is walked symbolically over
 * the argument words: each of the twelve 32-bit halves is a set of values
 * still possible, an interval intersected with a pattern of known bits,
 * and each conditional jump splits the set into pieces of that same shape
 * (a mask test that is not one pattern becomes several: the first bit
 * that differs).  At a return the input class is the product of the
 * words' sets; the policy's conditions are the same kinds of tests on the
 * same halves, so the class is split further until every rule that could
 * decide is true or false on all of it, and then each piece's decision is
 * compared with the return.  That covers every argument vector, where
 * probes covered the constants' neighbourhoods.  What the walk cannot
 * express (arithmetic other than an `and`, an order test on a masked word,
 * scratch memory, the instruction pointer, the LIBSECCOMP merge's trees)
 * makes the caller probe that call as before.
 */
#include <stdlib.h>
#include <string.h>
#include "check/check.h"
#include "bpf/bpf.h"
#include "policy/lsc_tree.h"

/* Words 0-11: argument a's low half is 2a, its high half 2a + 1.  Word 12
 * is the constant 0, the high half a 32-bit condition sees. */
#define SYM_WORDS 13
#define SYM_ZERO 12
/* Steps per call before the probes take over: a class walked, or a rule
 * judged on one (a call's hundreds of mask rules over classes their bits
 * keep splitting would otherwise take minutes). */
#define SYM_BUDGET 2500000
#define SYM_DEPTH 64	/* nested splits: bounds the stack */

struct wset {
	uint32_t lo, hi;	/* both members: the least and the greatest */
	uint32_t km, kv;	/* known bits: x & km == kv */
};

enum wkind { W_LT, W_EQ, W_MASK };
struct wpred {
	enum wkind kind;
	uint64_t c;		/* W_LT: x < c (c up to 2^32); W_EQ: x == c */
	uint32_t m, v;		/* W_MASK: x & m == v */
};

enum tri { T_FALSE, T_TRUE, T_SPLIT };

/* Rules with an equality are filed by it, so that a class is judged only
 * against the rules whose constant it can hold (a call with thousands of
 * `arg0 ==` rules has as many classes). */
struct sym_key {
	uint64_t value;
	size_t pos;
	uint8_t slot;		/* 0-5: 64-bit args[slot]; 6-11: low word of args[slot - 6] */
};


struct sym {
	const scmpc_policy *p;
	const struct arch_view *v;
	const struct sock_filter *insns;
	size_t len;
	uint32_t audit, nr;
	size_t lo, hi;		/* the call's rules in v->rs */
	size_t steps;
	bool give_up;		/* the caller probes */
	bool mismatch;
	struct seccomp_data witness;
	bool limited;		/* runc's stub decides the call */
	uint32_t limit_action;
	struct sym_key *keys;
	size_t nkeys;
	size_t *other;		/* positions of the rules without an equality */
	size_t nother;
};

/* Least y >= x with y & m == v, over 32 bits. */
static bool next_match(uint32_t x, uint32_t m, uint32_t v, uint32_t *out)
{
	uint32_t diff = (x ^ v) & m;
	if (!diff) {
		*out = x;
		return true;
	}
	unsigned i = 31 - (unsigned)__builtin_clz(diff);
	uint32_t below = (i ? (1u << i) - 1 : 0), upto = below | (1u << i);
	if (v & (1u << i)) {
		/* raise bit i; below it the least the pattern allows */
		*out = (x & ~upto) | (1u << i) | (v & below);
		return true;
	}
	/* bit i must drop: carry into the lowest free clear bit above it */
	uint32_t free_clear = ~m & ~x & ~upto;
	if (!free_clear)
		return false;
	unsigned j = (unsigned)__builtin_ctz(free_clear);
	uint32_t low = (1u << j) - 1;
	*out = (x & ~low) | (1u << j) | (v & low);
	return true;
}

/* Greatest y <= x with y & m == v: next_match() on the complements. */
static bool prev_match(uint32_t x, uint32_t m, uint32_t v, uint32_t *out)
{
	uint32_t y;
	if (!next_match(~x, m, ~v & m, &y))
		return false;
	*out = ~y;
	return true;
}

/* Make LO and HI members; false when the set is empty. */
static bool wset_norm(struct wset *s)
{
	if (s->lo > s->hi || !next_match(s->lo, s->km, s->kv, &s->lo) ||
	    !prev_match(s->hi, s->km, s->kv, &s->hi))
		return false;
	return s->lo <= s->hi;
}

static bool wset_has(const struct wset *s, uint64_t x)
{
	return x >= s->lo && x <= s->hi && ((uint32_t)x & s->km) == s->kv;
}

/* Split S by P into nonempty pieces OUT[] (at most 34), TRUTH[] saying
 * which side each lies on; returns their count. */
static size_t wsplit(const struct wset *s, const struct wpred *p, struct wset *out, bool *truth)
{
	size_t n = 0;
	struct wset t;
#define PIECE(set, tv)                          \
	do {                                    \
		t = (set);                      \
		if (wset_norm(&t)) {            \
			out[n] = t;             \
			truth[n++] = (tv);      \
		}                               \
	} while (0)
	switch (p->kind) {
	case W_LT:
		if (p->c > s->hi) {
			PIECE(*s, true);
		} else if (p->c <= s->lo) {
			PIECE(*s, false);
		} else {
			t = *s;
			t.hi = (uint32_t)(p->c - 1);
			PIECE(t, true);
			t = *s;
			t.lo = (uint32_t)p->c;
			PIECE(t, false);
		}
		break;
	case W_EQ:
		if (!wset_has(s, p->c)) {
			PIECE(*s, false);
			break;
		}
		PIECE(((struct wset){ (uint32_t)p->c, (uint32_t)p->c, s->km, s->kv }), true);
		if (p->c > s->lo)
			PIECE(((struct wset){ s->lo, (uint32_t)p->c - 1, s->km, s->kv }), false);
		if (p->c < s->hi)
			PIECE(((struct wset){ (uint32_t)p->c + 1, s->hi, s->km, s->kv }), false);
		break;
	case W_MASK: {
		if ((p->v & ~p->m) || ((s->kv ^ p->v) & p->m & s->km)) {
			PIECE(*s, false);
			break;
		}
		PIECE(((struct wset){ s->lo, s->hi, s->km | p->m, s->kv | p->v }), true);
		/* the others: agree up to some unknown bit of the mask, differ there */
		uint32_t open = p->m & ~s->km, km = s->km, kv = s->kv;
		while (open) {
			uint32_t b = open & -open;
			open &= open - 1;
			PIECE(((struct wset){ s->lo, s->hi, km | b, kv | (~p->v & b) }), false);
			km |= b;
			kv |= p->v & b;
		}
		break;
	}
	}
#undef PIECE
	return n;
}

static enum tri wpred_eval(const struct wset *s, const struct wpred *p)
{
	struct wset out[34];
	bool truth[34];
	size_t n = wsplit(s, p, out, truth);
	bool t = false, f = false;
	for (size_t i = 0; i < n; i++) {
		t |= truth[i];
		f |= !truth[i];
	}
	return t && f ? T_SPLIT : t ? T_TRUE : T_FALSE;
}

/* Where a condition needs the class split: word W by P. */
struct split_at {
	unsigned w;
	struct wpred p;
};

static enum tri tri_not(enum tri t)
{
	return t == T_SPLIT ? t : t == T_TRUE ? T_FALSE : T_TRUE;
}

/* A AND B, both on words of the class; evaluated lazily. */
static enum tri both(const struct wset *c, unsigned wa, struct wpred pa, unsigned wb,
		     struct wpred pb, struct split_at *sp)
{
	enum tri a = wpred_eval(&c[wa], &pa);
	if (a == T_FALSE)
		return T_FALSE;
	enum tri b = wpred_eval(&c[wb], &pb);
	if (b == T_FALSE)
		return T_FALSE;
	if (a == T_TRUE && b == T_TRUE)
		return T_TRUE;
	*sp = a == T_SPLIT ? (struct split_at){ wa, pa } : (struct split_at){ wb, pb };
	return T_SPLIT;
}

/* x <= D for x = H:L. */
static enum tri le64(const struct wset *c, unsigned h, unsigned l, uint64_t d,
		     struct split_at *sp)
{
	struct wpred below = { .kind = W_LT, .c = d >> 32 };
	struct wpred at = { .kind = W_EQ, .c = d >> 32 };
	struct wpred low = { .kind = W_LT, .c = (d & 0xffffffffULL) + 1 };
	enum tri a = wpred_eval(&c[h], &below);
	if (a == T_TRUE)
		return T_TRUE;
	if (a == T_SPLIT) {
		*sp = (struct split_at){ h, below };
		return T_SPLIT;
	}
	enum tri b = wpred_eval(&c[h], &at);
	if (b == T_FALSE)
		return T_FALSE;
	if (b == T_SPLIT) {
		*sp = (struct split_at){ h, at };
		return T_SPLIT;
	}
	enum tri r = wpred_eval(&c[l], &low);
	if (r == T_SPLIT)
		*sp = (struct split_at){ l, low };
	return r;
}

/* cond_holds() over the whole class C. */
static enum tri cond_eval(const struct wset *c, const struct scmpc_cond *cd, bool compat32,
			  struct split_at *sp)
{
	unsigned l = 2u * cd->arg, h = compat32 || (cd->flags & SCMPC_COND_32BIT) ? SYM_ZERO : l + 1;
	uint64_t x = cd->value;
	switch (cd->op) {
	case SCMPC_OP_EQ:
	case SCMPC_OP_NE: {
		enum tri t = both(c, h, (struct wpred){ .kind = W_EQ, .c = x >> 32 }, l,
				  (struct wpred){ .kind = W_EQ, .c = x & 0xffffffffULL }, sp);
		return cd->op == SCMPC_OP_EQ ? t : tri_not(t);
	}
	case SCMPC_OP_LT:
		return x ? le64(c, h, l, x - 1, sp) : T_FALSE;
	case SCMPC_OP_LE:
		return le64(c, h, l, x, sp);
	case SCMPC_OP_GT:
		return tri_not(le64(c, h, l, x, sp));
	case SCMPC_OP_GE:
		return x ? tri_not(le64(c, h, l, x - 1, sp)) : T_TRUE;
	case SCMPC_OP_MASKED_EQ: {
		uint64_t m = x, d = cd->value2;
		return both(c, h, (struct wpred){ .kind = W_MASK, .m = (uint32_t)(m >> 32), .v = (uint32_t)(d >> 32) },
			    l, (struct wpred){ .kind = W_MASK, .m = (uint32_t)m, .v = (uint32_t)d }, sp);
	}
	}
	return T_FALSE;
}

static void sym_witness(const struct sym *s, const struct wset *c, struct seccomp_data *sd)
{
	memset(sd, 0, sizeof(*sd));
	sd->arch = s->audit;
	sd->nr = (int)s->nr;
	for (unsigned a = 0; a < 6; a++)
		sd->args[a] = (uint64_t)c[2 * a + 1].lo << 32 | c[2 * a].lo;
}

static void sym_fail(struct sym *s, const struct wset *c)
{
	s->mismatch = true;
	sym_witness(s, c, &s->witness);
}

static int cmp_sym_key(const void *a, const void *b)
{
	const struct sym_key *x = a, *y = b;
	if (x->slot != y->slot)
		return x->slot < y->slot ? -1 : 1;
	if (x->value != y->value)
		return x->value < y->value ? -1 : 1;
	return (x->pos > y->pos) - (x->pos < y->pos);
}

/* Judge rule POS on class C: keep the most restrictive true one in *BEST,
 * and the most restrictive undecided one in *OPEN with where to split. */
static void judge(const struct sym *s, const struct wset *c, size_t pos, size_t *best,
		  size_t *open, struct split_at *sp)
{
	const struct rule *r = view_rule(s->p, s->v, pos);
	if (*best != SIZE_MAX && scmpc_action_cmp(r->action, view_rule(s->p, s->v, *best)->action) >= 0)
		return;
	if (*open != SIZE_MAX && scmpc_action_cmp(r->action, view_rule(s->p, s->v, *open)->action) >= 0) {
		/* it could only matter where the open one is false: judged then */
		bool decided = true;
		for (size_t k = 0; k < r->nconds && decided; k++) {
			struct split_at cs;
			decided = cond_eval(c, &r->conds[k], s->v->info->compat32, &cs) == T_TRUE;
		}
		if (decided)
			*best = pos;
		return;
	}
	enum tri t = T_TRUE;
	struct split_at here = { 0 };
	for (size_t k = 0; k < r->nconds && t != T_FALSE; k++) {
		struct split_at cs;
		enum tri ct = cond_eval(c, &r->conds[k], s->v->info->compat32, &cs);
		if (ct == T_SPLIT && t == T_TRUE)
			here = cs;
		if (ct != T_TRUE)
			t = ct;
	}
	if (t == T_TRUE) {
		*best = pos;
	} else if (t == T_SPLIT) {
		*open = pos;
		*sp = here;
	}
}

/* The policy over class C must give RET throughout: the rules that could
 * decide are judged on all of C, and C is split where one is not. */
static void policy_class(struct sym *s, struct wset *c, uint32_t ret, unsigned depth)
{
	if (s->give_up || s->mismatch)
		return;
	if (++s->steps > SYM_BUDGET || depth > SYM_DEPTH) {
		s->give_up = true;
		return;
	}
	if (s->limited) {
		if (ret != s->limit_action)
			sym_fail(s, c);
		return;
	}
	const scmpc_policy *p = s->p;
	const struct arch_view *v = s->v;
	size_t best = SIZE_MAX, open = SIZE_MAX;
	struct split_at sp = { 0 };
	s->steps += s->nother;
	for (size_t i = 0; i < s->nother; i++)
		judge(s, c, s->other[i], &best, &open, &sp);
	for (uint8_t slot = 0; slot < 12; slot++) {
		const struct wset *l = &c[2 * (slot % 6)], *h = &c[2 * (slot % 6) + 1];
		uint64_t xlo = l->lo, xhi = l->hi;
		if (slot < 6) {
			xlo |= (uint64_t)h->lo << 32;
			xhi |= (uint64_t)h->hi << 32;
		}
		size_t a = 0, b = s->nkeys;
		while (a < b) {
			size_t m = a + (b - a) / 2;
			const struct sym_key *k = &s->keys[m];
			if (k->slot < slot || (k->slot == slot && k->value < xlo))
				a = m + 1;
			else
				b = m;
		}
		for (; a < s->nkeys && s->keys[a].slot == slot && s->keys[a].value <= xhi; a++) {
			s->steps++;
			judge(s, c, s->keys[a].pos, &best, &open, &sp);
		}
	}
	if (open != SIZE_MAX && (best == SIZE_MAX ||
				 scmpc_action_cmp(view_rule(p, v, open)->action,
						  view_rule(p, v, best)->action) < 0)) {
		struct wset out[34], keep = c[sp.w];
		bool truth[34];
		size_t n = wsplit(&keep, &sp.p, out, truth);
		for (size_t i = 0; i < n && !s->give_up && !s->mismatch; i++) {
			c[sp.w] = out[i];
			policy_class(s, c, ret, depth + 1);
		}
		c[sp.w] = keep;
		return;
	}
	uint32_t want = best != SIZE_MAX ? view_rule(p, v, best)->action
			: s->lo < s->hi ? p->def_action : arch_view_fallback(p, v, s->nr);
	if (want != ret)
		sym_fail(s, c);
}

/* What the accumulator holds on a path. */
struct sym_acc {
	enum { SA_CONST, SA_WORD } kind;
	uint32_t k;		/* SA_CONST: the value; SA_WORD: the mask applied */
	unsigned w;
};

static void program_path(struct sym *s, struct wset *c, size_t pc, struct sym_acc a,
			 unsigned depth);

/* Walk from PC with class C; C is as it was when this returns.  Only a
 * jump that splits the class recurses (on all pieces but the last), so a
 * chain of tests deepens nothing. */
static void program_class(struct sym *s, struct wset *c, size_t pc, struct sym_acc a,
			  unsigned depth)
{
	struct wset entry[SYM_WORDS];
	memcpy(entry, c, sizeof(entry));
	program_path(s, c, pc, a, depth);
	memcpy(c, entry, sizeof(entry));
}

static void program_path(struct sym *s, struct wset *c, size_t pc, struct sym_acc a,
			 unsigned depth)
{
	for (;;) {
		if (s->give_up || s->mismatch)
			return;
		if (++s->steps > SYM_BUDGET || depth > SYM_DEPTH || pc >= s->len) {
			s->give_up = true;
			return;
		}
		const struct sock_filter *f = &s->insns[pc];
		uint32_t k = f->k;
		switch (f->code) {
		case BPF_LD | BPF_W | BPF_ABS:
			if (k == offsetof(struct seccomp_data, nr)) {
				a = (struct sym_acc){ SA_CONST, s->nr, 0 };
			} else if (k == offsetof(struct seccomp_data, arch)) {
				a = (struct sym_acc){ SA_CONST, s->audit, 0 };
			} else if (k >= offsetof(struct seccomp_data, args) &&
				   k < sizeof(struct seccomp_data) && k % 4 == 0) {
				unsigned j = (k - (unsigned)offsetof(struct seccomp_data, args)) / 4;
				bool high = (j % 2 == 0) == audit_big_endian(s->audit);
				a = (struct sym_acc){ SA_WORD, UINT32_MAX, (j / 2) * 2 + high };
			} else {
				s->give_up = true;
				return;
			}
			pc++;
			continue;
		case BPF_LD | BPF_W | BPF_LEN:
			a = (struct sym_acc){ SA_CONST, (uint32_t)sizeof(struct seccomp_data), 0 };
			pc++;
			continue;
		case BPF_LD | BPF_IMM:
			a = (struct sym_acc){ SA_CONST, k, 0 };
			pc++;
			continue;
		case BPF_ALU | BPF_AND | BPF_K:
			a.k &= k;	/* a constant and a mask alike */
			pc++;
			continue;
		case BPF_RET | BPF_K:
			policy_class(s, c, k, depth);
			return;
		case BPF_RET | BPF_A:
			if (a.kind != SA_CONST) {
				s->give_up = true;
				return;
			}
			policy_class(s, c, a.k, depth);
			return;
		case BPF_JMP | BPF_JA:
			pc += 1 + (size_t)k;
			continue;
		case BPF_JMP | BPF_JEQ | BPF_K:
		case BPF_JMP | BPF_JGT | BPF_K:
		case BPF_JMP | BPF_JGE | BPF_K:
		case BPF_JMP | BPF_JSET | BPF_K:
			break;
		default:
			s->give_up = true;
			return;
		}
		size_t pt = pc + 1 + f->jt, pf = pc + 1 + f->jf;
		uint32_t op = BPF_OP(f->code);
		if (a.kind == SA_CONST) {
			bool t = op == BPF_JEQ ? a.k == k : op == BPF_JGT ? a.k > k
				 : op == BPF_JGE ? a.k >= k : (a.k & k) != 0;
			pc = t ? pt : pf;
			continue;
		}
		bool whole = a.k == UINT32_MAX, flip = false;
		if (whole && op == BPF_JEQ && !wset_has(&c[a.w], k)) {
			/* the common case in a chain of values, without a split */
			pc = pf;
			continue;
		}
		struct wpred wp;
		switch (op) {
		case BPF_JEQ:
			wp = whole ? (struct wpred){ .kind = W_EQ, .c = k }
				   : (struct wpred){ .kind = W_MASK, .m = a.k, .v = k };
			break;
		case BPF_JGT:
		case BPF_JGE:
			if (!whole) {
				/* an order on a masked word is no interval */
				s->give_up = true;
				return;
			}
			wp = (struct wpred){ .kind = W_LT, .c = (uint64_t)k + (op == BPF_JGT) };
			flip = true;
			break;
		default:
			wp = (struct wpred){ .kind = W_MASK, .m = a.k & k, .v = 0 };
			flip = true;
			break;
		}
		struct wset out[34], keep = c[a.w];
		bool truth[34];
		size_t n = wsplit(&keep, &wp, out, truth);
		for (size_t i = 0; i + 1 < n && !s->give_up && !s->mismatch; i++) {
			c[a.w] = out[i];
			program_class(s, c, truth[i] != flip ? pt : pf, a, depth + 1);
		}
		if (!n) {
			s->give_up = true;	/* a class is never empty */
			return;
		}
		c[a.w] = out[n - 1];
		pc = truth[n - 1] != flip ? pt : pf;
	}
}

int verify_args_symbolic(const scmpc_policy *p, const struct arch_view *v,
			 const struct sock_filter *insns, size_t len, uint32_t audit, uint32_t nr,
			 struct seccomp_data *witness)
{
	struct sym s = { .p = p, .v = v, .insns = insns, .len = len, .audit = audit, .nr = nr };
	if (view_tree(v, nr))
		return 0;
	const struct limit *l = call_limit(p, v->info->audit, nr);
	if (limit_hits(l, nr)) {
		s.limited = true;
		s.limit_action = l->action;
	}
	arch_view_find(v, nr, &s.lo, &s.hi);
	size_t n = s.hi - s.lo;
	s.keys = malloc((n ? n : 1) * sizeof(*s.keys));
	s.other = malloc((n ? n : 1) * sizeof(*s.other));
	if (!s.keys || !s.other) {
		free(s.keys);
		free(s.other);
		return -ENOMEM;
	}
	for (size_t i = s.lo; i < s.hi; i++) {
		const struct rule *r = view_rule(p, v, i);
		const struct scmpc_cond *eq = NULL;
		for (size_t k = 0; k < r->nconds && !eq; k++)
			if (r->conds[k].op == SCMPC_OP_EQ)
				eq = &r->conds[k];
		if (!eq) {
			s.other[s.nother++] = i;
			continue;
		}
		bool w32 = v->info->compat32 || (eq->flags & SCMPC_COND_32BIT);
		s.keys[s.nkeys++] = (struct sym_key){ eq->value, i, (uint8_t)(eq->arg + (w32 ? 6 : 0)) };
	}
	qsort(s.keys, s.nkeys, sizeof(*s.keys), cmp_sym_key);
	struct wset c[SYM_WORDS];
	for (unsigned w = 0; w < SYM_WORDS; w++)
		c[w] = (struct wset){ 0, w == SYM_ZERO ? 0 : UINT32_MAX, 0, 0 };
	program_class(&s, c, 0, (struct sym_acc){ SA_CONST, 0, 0 }, 0);
	free(s.keys);
	free(s.other);
	if (s.mismatch) {
		*witness = s.witness;
		return -EPROTO;
	}
	return s.give_up ? 0 : 1;
}

