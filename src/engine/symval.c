/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* The values a program computes, followed symbolically (sym.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bpf/insn.h"
#include "engine/sym.h"

/* ------------------------------------------------------- symbolic values */

struct sym sym_const(uint32_t c)
{
	return (struct sym){ .kind = S_CONST, .c = c };
}

struct sym sym_word(uint8_t w)
{
	return (struct sym){ .kind = S_BITS, .word = w, .keep = 0xffffffffU };
}

static bool sym_identity(const struct sym *s)
{
	return s->kind == S_BITS && s->sh == 0 && s->keep == 0xffffffffU && s->val == 0;
}

/* Bits of w under the output bits MASK (within keep). */
static uint32_t bits_src(const struct sym *s, uint32_t mask)
{
	return s->sh >= 0 ? mask << s->sh : mask >> -s->sh;
}

static uint32_t bits_eval(const struct sym *s, uint32_t w)
{
	uint32_t x = s->sh >= 0 ? w >> s->sh : w << -s->sh;
	return (x & s->keep) ^ s->val;
}

static uint32_t sym_eval(const struct sym *s, uint32_t w)
{
	if (s->kind == S_OFFSET)
		return w + s->c;
	return bits_eval(s, w);
}

/* A bitwise value that no longer reads any bit of its word is a constant. */
static void bits_norm(struct sym *s)
{
	if (s->kind == S_BITS && !s->keep)
		*s = sym_const(s->val);
}

/* Shift a bitwise value left by T (RSH: right). */
static void bits_shift(struct sym *s, unsigned t, bool left)
{
	if (left) {
		s->keep <<= t;
		s->val <<= t;
		s->sh = (int8_t)(s->sh - (int)t);
	} else {
		s->keep >>= t;
		s->val >>= t;
		s->sh = (int8_t)(s->sh + (int)t);
	}
	/* With bits left, some output bit i reads w's bit i + sh, so sh
	 * stays within -31..31; without, the value is a constant. */
	bits_norm(s);
}

/* The value of S where its word can take one value only. */
void sym_resolve(struct sym *s, const struct wcon *w)
{
	if (s->kind != S_BITS && s->kind != S_OFFSET)
		return;
	const struct wcon *c = &w[s->word];
	if (c->lo == c->hi)
		*s = sym_const(sym_eval(s, c->lo));
	else if (c->m == 0xffffffffU)
		*s = sym_const(sym_eval(s, c->v));
	else if (s->kind == S_BITS && !(bits_src(s, s->keep) & ~c->m))
		*s = sym_const(bits_eval(s, c->v));	/* every bit it reads is fixed */
}

/* Apply A = A OP K to S.  ALU_PIN: the result is no function the jumps
 * can read as sets of the word; the caller follows the word's values one
 * by one, or makes it opaque. */
int sym_alu(struct sym *s, uint16_t op, uint32_t k)
{
	unsigned t;
	switch (s->kind) {
	case S_CONST:
		s->c = insn_alu(op, s->c, k);	/* the caller ends the path on div x by 0 */
		return ALU_OK;
	case S_OPAQUE:
		return ALU_OK;
	case S_OFFSET:
		if (op == BPF_ADD)
			s->c += k;
		else if (op == BPF_SUB)
			s->c -= k;
		else
			return ALU_PIN;
		if (!s->c)
			*s = sym_word(s->word);
		return ALU_OK;
	}
	switch (op) {
	case BPF_AND:
		s->keep &= k;
		s->val &= k;
		break;
	case BPF_OR:
		s->keep &= ~k;
		s->val |= k;
		break;
	case BPF_XOR:
		s->val ^= k;
		break;
	case BPF_LSH:
	case BPF_RSH:
		bits_shift(s, insn_shift_count(k), op == BPF_LSH);
		return ALU_OK;
	case BPF_MUL:
		if (!k) {
			*s = sym_const(0);
			return ALU_OK;
		}
		if (k & (k - 1))
			return ALU_PIN;
		bits_shift(s, (unsigned)__builtin_ctz(k), true);
		return ALU_OK;
	case BPF_DIV:
		if (!k || (k & (k - 1)))
			return ALU_PIN;
		bits_shift(s, (unsigned)__builtin_ctz(k), false);
		return ALU_OK;
	case BPF_ADD:
	case BPF_SUB:
		if (!k)
			return ALU_OK;
		if (!sym_identity(s))
			return ALU_PIN;
		t = s->word;
		*s = (struct sym){ .kind = S_OFFSET, .word = (uint8_t)t,
				   .c = op == BPF_ADD ? k : 0U - k };
		return ALU_OK;
	default:	/* BPF_NEG */
		return ALU_PIN;
	}
	bits_norm(s);
	return ALU_OK;
}

/* ------------------------------------------------------------ branches */

static void add_piece(struct piece *p, size_t *n, uint8_t kind, uint32_t a, uint32_t b)
{
	p[(*n)++] = (struct piece){ kind, a, b };
}

/* S reads a block of w's top bits, unflipped, so it grows with w. */
static bool bits_monotone(const struct sym *s)
{
	if (s->sh < 0 || (s->val & s->keep))
		return false;
	uint32_t full = 0xffffffffU >> s->sh, rest = full & ~s->keep;
	return !(s->keep & ~full) && rest == (s->keep & (0U - s->keep)) - 1;
}

/* The least w in [0, END) with S(w) > K, or END if none: a binary search,
 * for an S the caller has shown to grow with w there. */
static uint64_t least_above(const struct sym *s, uint32_t k, uint64_t end)
{
	uint64_t lo = 0, hi = end;
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		if (bits_eval(s, (uint32_t)mid) > k)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* S > K, for S as in bits_monotone(): [thr, max] is true, [0, thr) false. */
static void split_monotone_gt(const struct sym *s, uint32_t k, struct split *o)
{
	if (bits_eval(s, 0xffffffffU) <= k) {
		add_piece(o->f, &o->nf, P_ALL, 0, 0);
		return;
	}
	uint64_t lo = least_above(s, k, 0xffffffffULL);
	add_piece(o->t, &o->nt, P_RANGE, (uint32_t)lo, 0xffffffffU);
	if (lo)
		add_piece(o->f, &o->nf, P_RANGE, 0, (uint32_t)lo - 1);
}

/* S reads one block of w's bits, unflipped: within each period of 2^(top
 * bit of the block + 1) values of w, S grows with w.  *TOP gets that bit. */
static bool bits_periodic(const struct sym *s, int *top)
{
	if (s->val & s->keep)
		return false;
	uint32_t src = bits_src(s, s->keep);
	uint32_t low = src & (0U - src);
	if ((src + low) & src)	/* not one contiguous block */
		return false;
	*top = top_bit(src);
	return true;
}

/* S > K for S as in bits_periodic() with few periods: in each, [t, end]
 * is true and the rest false, t found once (S repeats in every period). */
static void split_periodic_gt(const struct sym *s, uint32_t k, int top, struct split *o)
{
	uint64_t period = 1ULL << (top + 1);
	uint64_t lo = least_above(s, k, period);	/* in the first period */
	for (uint64_t base = 0; base < (1ULL << 32); base += period) {
		if (lo < period)
			add_piece(o->t, &o->nt, P_RANGE, (uint32_t)(base + lo),
				  (uint32_t)(base + period - 1));
		if (lo > 0)
			add_piece(o->f, &o->nf, P_RANGE, (uint32_t)base, (uint32_t)(base + lo - 1));
	}
}

/* S OP K (OP JGT, or JGE when GE) for any bitwise S, compared bit by bit
 * from the top: each output bit either decides (a cube of w's bits fixed
 * so far plus this one) or is equal and the comparison goes on. */
static void split_bits_order(const struct sym *s, uint32_t k, bool ge, struct split *o)
{
	uint32_t pm = 0, pv = 0;
	for (int i = 31; i >= 0; i--) {
		uint32_t ob = 1U << i, kb = (k >> i) & 1U;
		if (!(s->keep & ob)) {
			uint32_t cb = (s->val >> i) & 1U;
			if (cb == kb)
				continue;
			if (cb > kb)
				add_piece(o->t, &o->nt, P_CUBE, pm, pv);
			else
				add_piece(o->f, &o->nf, P_CUBE, pm, pv);
			return;
		}
		uint32_t sb = bits_src(s, ob);
		uint32_t one = (s->val & ob) ? 0 : sb;	/* w's bit making output 1 */
		uint32_t zero = one ^ sb;
		if (!kb) {
			add_piece(o->t, &o->nt, P_CUBE, pm | sb, pv | one);
			pv |= zero;
		} else {
			add_piece(o->f, &o->nf, P_CUBE, pm | sb, pv | zero);
			pv |= one;
		}
		pm |= sb;
	}
	if (ge)
		add_piece(o->t, &o->nt, P_CUBE, pm, pv);
	else
		add_piece(o->f, &o->nf, P_CUBE, pm, pv);
}

/* w + c > k on [LO, HI], where w + c does not wrap: one range each side. */
static void split_offset_part(uint64_t lo, uint64_t hi, uint32_t c, uint64_t k, struct split *o)
{
	/* On the part, f(w) = w + c - (lo ? 2^32 : 0): monotone. */
	uint64_t base = lo ? (1ULL << 32) : 0;
	uint64_t thr = k + 1 + base;	/* least w + c with f > k */
	uint64_t t = thr > c ? thr - c : 0;
	if (t < lo)
		t = lo;
	if (t <= hi)
		add_piece(o->t, &o->nt, P_RANGE, (uint32_t)t, (uint32_t)hi);
	if (t > lo)
		add_piece(o->f, &o->nf, P_RANGE, (uint32_t)lo, (uint32_t)(t - 1 < hi ? t - 1 : hi));
}

/* Cut S's word by whether S OP K holds.  False when S has to be made
 * concrete first (jset on an offset value). */
bool sym_split(const struct sym *s, uint16_t op, uint32_t k, struct split *o)
{
	o->nt = o->nf = 0;
	if (op == BPF_JGE) {
		if (!k) {
			add_piece(o->t, &o->nt, P_ALL, 0, 0);
			return true;
		}
		int top;
		if (s->kind == S_BITS && !bits_monotone(s) && !(bits_periodic(s, &top) && top >= 29)) {
			split_bits_order(s, k, true, o);
			return true;
		}
		op = BPF_JGT;	/* x >= k is x > k - 1 */
		k--;
	}
	if (s->kind == S_OFFSET) {
		uint32_t c = s->c;
		switch (op) {
		case BPF_JEQ:
			add_piece(o->t, &o->nt, P_RANGE, k - c, k - c);
			add_piece(o->f, &o->nf, P_NOT, 0xffffffffU, k - c);
			return true;
		case BPF_JGT:
			/* w + c wraps once: below 2^32 - c and from there. */
			split_offset_part(0, 0xffffffffULL - c, c, k, o);
			split_offset_part((1ULL << 32) - c, 0xffffffffULL, c, k, o);
			return true;
		default:
			return false;
		}
	}
	switch (op) {
	case BPF_JEQ: {
		if (~s->keep & (s->val ^ k)) {	/* a constant bit differs */
			add_piece(o->f, &o->nf, P_ALL, 0, 0);
			return true;
		}
		uint32_t m = bits_src(s, s->keep), v = bits_src(s, (k ^ s->val) & s->keep);
#ifdef SCMPC_ENGINE_MUTANT
		/* tests/meson.build's answer-mutant: the engine loses the calls
		 * that equal an argument constant; the suite must notice */
		if (s->word < W_ARGS)
#endif
		add_piece(o->t, &o->nt, P_CUBE, m, v);
		add_piece(o->f, &o->nf, P_NOT, m, v);
		return true;
	}
	case BPF_JSET: {
		if (~s->keep & s->val & k) {	/* a constant bit is set */
			add_piece(o->t, &o->nt, P_ALL, 0, 0);
			return true;
		}
		uint32_t kk = k & s->keep;
		if (!kk) {
			add_piece(o->f, &o->nf, P_ALL, 0, 0);
			return true;
		}
		uint32_t m = bits_src(s, kk), v = bits_src(s, s->val & kk);
		add_piece(o->t, &o->nt, P_NOT, m, v);
		add_piece(o->f, &o->nf, P_CUBE, m, v);
		return true;
	}
	default: {	/* BPF_JGT */
		int top;
		if (bits_monotone(s))
			split_monotone_gt(s, k, o);
		else if (bits_periodic(s, &top) && top >= 29)
			split_periodic_gt(s, k, top, o);	/* at most 8 ranges a side */
		else
			split_bits_order(s, k, false, o);
		return true;
	}
	}
}

