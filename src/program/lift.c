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
 * abi_build() pins seccomp_data.arch to each ABI's AUDIT_ARCH and cuts the
 * number space into segments on which the same paths hold; a segment is a
 * constant action or depends on the arguments.  fit() chooses how the
 * policy IR says that per ABI (default action, unknown-syscall action,
 * runc-style limit, rules for single numbers), and the emitter writes one
 * rule per path and number, whose conditions are the path's argument sets.
 * Since at most one path holds, at most one rule matches a call, and the
 * restrictive merge's "most restrictive match wins" is the program's own
 * decision.  A rule is widened (relax()) only over paths whose action is
 * more restrictive and that have rules of their own, which then still win.
 * Before a policy leaves, check() runs a witness of every path through
 * both the program and the policy.
 *
 * Nothing is approximated: a program this cannot follow exactly is refused
 * with the instruction that stops it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check/check.h"
#include "bpf/bpf.h"

#define NWORDS 16		/* 32-bit words of struct seccomp_data */
#define W_NR 0
#define W_ARCH 1
#define W_IP 2			/* words 2 and 3 */
#define W_ARGS 4		/* words 4..15: two per argument */

#define MAX_PATHS_DEFAULT 65536
#define MAX_STEPS 200000000ULL	/* instructions walked over all paths */
#define PIN_MAX 64		/* values a word may take to be followed one by one */
#define SCAN_BUDGET 200000	/* skips of one search through a word's values */
#define MAX_INTERVALS 65536	/* intervals of one path's number set */
#define MAX_RULE_NUMBERS 65536	/* numbers a lifted policy may name */
#define MAX_RULES (1U << 20)
#define MAX_ALTS 4096		/* alternatives one path's argument sets split into */

#define RET_ACTION_FULL 0xffff0000U

static int act_rank(uint32_t r)
{
	return (int32_t)(r & RET_ACTION_FULL);
}

/* ------------------------------------------------------ sets of a word */

/* An excluded cube: (w & m) != v.  Lists are shared between the paths that
 * forked from one another, so nodes are never changed once linked. */
struct ne {
	uint32_t m, v;
	const struct ne *next;
};

struct chunk {
	struct chunk *next;
	size_t used;
	struct ne nodes[1024];
};

/* The values of one word on a path: lo <= w <= hi, (w & m) == v and, for
 * each excluded cube, (w & ne->m) != ne->v. */
struct wcon {
	uint32_t lo, hi;
	uint32_t m, v;
	const struct ne *ne;
	int32_t insn;		/* the first jump that constrained it, or -1 */
	uint16_t prog;		/* in which filter */
};

static const struct wcon wcon_all = { 0, 0xffffffffU, 0, 0, NULL, -1, 0 };

static bool wcon_trivial(const struct wcon *c)
{
	return c->lo == 0 && c->hi == 0xffffffffU && !c->m && !c->ne;
}

static bool wcon_has(const struct wcon *c, uint32_t x)
{
	if (x < c->lo || x > c->hi || (x & c->m) != c->v)
		return false;
	for (const struct ne *n = c->ne; n; n = n->next)
		if ((x & n->m) == n->v)
			return false;
	return true;
}

static int top_bit(uint32_t x)
{
	return 31 - __builtin_clz(x);
}

/* Smallest w >= x with (w & m) == v (v within m). */
static bool cube_next(uint32_t x, uint32_t m, uint32_t v, uint32_t *out)
{
	if ((x & m) == v) {
		*out = x;
		return true;
	}
	int p = top_bit((x & m) ^ v);
	uint32_t bit = 1U << p, below = bit - 1;
	if (v & bit) {
		/* x has 0 where v wants 1: set it, and the least below. */
		*out = (x & ~(below | bit)) | bit | (v & below);
		return true;
	}
	/* x has 1 where v wants 0: carry into the lowest free bit above
	 * that x has clear. */
	uint32_t above = ~(below | bit), cand = ~x & ~m & above;
	if (!cand)
		return false;
	uint32_t q = 1U << __builtin_ctz(cand);
	*out = (x & ~((q - 1) | q)) | q | (v & (q - 1));
	return true;
}

/* Smallest w > x whose bits under M differ from x's. */
static bool cube_leave(uint32_t x, uint32_t m, uint32_t *out)
{
	if (!m)
		return false;
	uint32_t y = x | ((m & (0U - m)) - 1);
	if (y == 0xffffffffU)
		return false;
	*out = y + 1;
	return true;
}

/* Smallest value >= FROM in C that no cube of EXTRA holds either: 1
 * found, 0 none, -1 search budget spent. */
static int wcon_first_x(const struct wcon *c, const struct ne *extra, uint32_t from, uint32_t *out)
{
	uint32_t x = from > c->lo ? from : c->lo;
	for (unsigned budget = 0; budget < SCAN_BUDGET; budget++) {
		uint32_t y;
		if (x > c->hi || !cube_next(x, c->m, c->v, &y) || y > c->hi)
			return 0;
		x = y;
		const struct ne *hit = NULL;
		for (const struct ne *n = c->ne; n && !hit; n = n->next)
			if ((x & n->m) == n->v)
				hit = n;
		for (const struct ne *n = extra; n && !hit; n = n->next)
			if ((x & n->m) == n->v)
				hit = n;
		if (!hit) {
			*out = x;
			return 1;
		}
		if (!cube_leave(x, hit->m, &y))
			return 0;
		x = y;
	}
	return -1;
}

static int wcon_first(const struct wcon *c, uint32_t from, uint32_t *out)
{
	return wcon_first_x(c, NULL, from, out);
}

/* Whether no value is in both A and B (an undecided search says no). */
static bool wcon_disjoint(const struct wcon *a, const struct wcon *b)
{
	struct wcon m = *a;
	uint32_t x;
	m.lo = a->lo > b->lo ? a->lo : b->lo;
	m.hi = a->hi < b->hi ? a->hi : b->hi;
	if (m.lo > m.hi || ((a->m & b->m) & (a->v ^ b->v)))
		return true;
	m.m |= b->m;
	m.v |= b->v;
	return wcon_first_x(&m, b->ne, 0, &x) == 0;
}

/* The last value of the run of C's values that starts at X (in C). */
static uint32_t wcon_run_end(const struct wcon *c, uint32_t x)
{
	uint32_t end = c->hi, y;
	if (cube_leave(x, c->m, &y) && y - 1 < end)
		end = y - 1;
	for (const struct ne *n = c->ne; n; n = n->next)
		if (cube_next(x, n->m, n->v, &y) && y - 1 < end)
			end = y - 1;
	return end;
}

static bool wcon_feasible(const struct wcon *c)
{
	uint32_t x;
	/* An undecided search keeps the path: a path no call takes gives
	 * rules no call matches, which changes nothing. */
	return wcon_first(c, 0, &x) != 0;
}

struct ival {
	uint32_t lo, hi;
	uint32_t path;
};

struct ivals {
	struct ival *v;
	size_t n, cap;
};

/* Append C's values within [LO, HI] as disjoint intervals, tagged PATH. */
static int wcon_intervals(const struct wcon *c, uint32_t lo, uint32_t hi, uint32_t path,
			  struct ivals *out)
{
	uint32_t x = lo;
	for (size_t count = 0;; count++) {
		uint32_t f;
		int r = wcon_first(c, x, &f);
		if (r < 0 || count >= MAX_INTERVALS)
			return -E2BIG;
		if (r == 0 || f > hi)
			return 0;
		uint32_t e = wcon_run_end(c, f);
		if (e > hi)
			e = hi;
		if (!array_reserve(&out->v, &out->cap, out->n, sizeof(*out->v), 64))
			return -ENOMEM;
		out->v[out->n++] = (struct ival){ f, e, path };
		if (e == hi)
			return 0;
		x = e + 1;
	}
}

/* How a branch restricts a word. */
enum { P_ALL, P_RANGE, P_CUBE, P_NOT };
struct piece {
	uint8_t kind;
	uint32_t a, b;		/* RANGE: [a, b]; CUBE, NOT: mask a, value b */
};

struct arena {
	struct chunk *head;
};

static const struct ne *ne_push(struct arena *ar, const struct ne *next, uint32_t m, uint32_t v)
{
	if (!ar->head || ar->head->used == ARRAY_SIZE(ar->head->nodes)) {
		struct chunk *c = malloc(sizeof(*c));
		if (!c)
			return NULL;
		c->next = ar->head;
		c->used = 0;
		ar->head = c;
	}
	struct ne *n = &ar->head->nodes[ar->head->used++];
	*n = (struct ne){ m, v, next };
	return n;
}

static void arena_free(struct arena *ar)
{
	while (ar->head) {
		struct chunk *c = ar->head;
		ar->head = c->next;
		free(c);
	}
}

/* Restrict C by P.  Returns 1 when values remain, 0 when none do, or
 * -ENOMEM. */
static int wcon_apply(struct arena *ar, struct wcon *c, const struct piece *p)
{
	switch (p->kind) {
	case P_ALL:
		return 1;
	case P_RANGE:
		if (p->a > c->lo)
			c->lo = p->a;
		if (p->b < c->hi)
			c->hi = p->b;
		if (c->lo > c->hi)
			return 0;
		break;
	case P_CUBE:
		if ((c->m & p->a) & (c->v ^ p->b))
			return 0;
		c->m |= p->a;
		c->v |= p->b;
		break;
	case P_NOT: {
		uint32_t m = p->a, v = p->b;
		if (!m)
			return 0;	/* (w & 0) != 0 never holds */
		if ((c->m & m) & (c->v ^ v))
			return 1;	/* the fixed bits already differ */
		if ((m & ~c->m) == 0)
			return 0;	/* the fixed bits are exactly the cube */
		if (m == 0xffffffffU) {
			if (v < c->lo || v > c->hi)
				return 1;
			/* A point at an end of the interval moves the end. */
			if (v == c->lo) {
				if (c->lo == c->hi)
					return 0;
				c->lo++;
				break;
			}
			if (v == c->hi) {
				c->hi--;
				break;
			}
		}
		const struct ne *n = ne_push(ar, c->ne, m, v);
		if (!n)
			return -ENOMEM;
		c->ne = n;
		break;
	}
	}
	return wcon_feasible(c) ? 1 : 0;
}

/* ------------------------------------------------------- symbolic values */

enum { S_CONST, S_BITS, S_OFFSET, S_OPAQUE };

/*
 * A value of the program: a constant, or a function of word W of
 * seccomp_data that jumps can be turned into sets of W's values:
 *   S_BITS    ((w >> sh) & keep) ^ val (sh < 0: shifted left), every output
 *             bit a bit of w, possibly flipped, or a constant: what and,
 *             or, xor, shifts and multiplications or divisions by powers of
 *             two make of a word;
 *   S_OFFSET  w + c (mod 2^32): add and sub on a word as loaded;
 *   S_OPAQUE  anything else (two words combined, arithmetic on a word with
 *             too many values): refused where a jump or RET reads it.
 */
struct sym {
	uint8_t kind;
	uint8_t word;
	int8_t sh;
	uint32_t c;		/* S_CONST: the value; S_OFFSET: the addend */
	uint32_t keep, val;	/* S_BITS */
	int32_t insn;		/* S_OPAQUE: where the value stopped being followable */
	uint16_t prog;
};

static struct sym sym_const(uint32_t c)
{
	return (struct sym){ .kind = S_CONST, .c = c };
}

static struct sym sym_word(uint8_t w)
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
static void sym_resolve(struct sym *s, const struct wcon *w)
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

static uint32_t alu_const(uint16_t op, uint32_t a, uint32_t k)
{
	switch (op) {
	case BPF_ADD: return a + k;
	case BPF_SUB: return a - k;
	case BPF_MUL: return a * k;
	case BPF_DIV: return k ? a / k : 0;	/* the caller ends the path on 0 */
	case BPF_OR: return a | k;
	case BPF_AND: return a & k;
	case BPF_XOR: return a ^ k;
	case BPF_LSH: return a << (k & 31);
	case BPF_RSH: return a >> (k & 31);
	case BPF_NEG: return 0U - a;
	default: return a;
	}
}

enum { ALU_OK, ALU_PIN };

/* Apply A = A OP K to S.  ALU_PIN: the result is no function the jumps
 * can read as sets of the word; the caller follows the word's values one
 * by one, or makes it opaque. */
static int sym_alu(struct sym *s, uint16_t op, uint32_t k)
{
	unsigned t;
	switch (s->kind) {
	case S_CONST:
		s->c = alu_const(op, s->c, k);
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
		bits_shift(s, k & 31, op == BPF_LSH);
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

/* Pieces of each side of a jump, at most 33 cubes (a comparison bit by
 * bit) or two ranges each. */
struct split {
	struct piece t[34], f[34];
	size_t nt, nf;
};

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

/* S > K, for S as in bits_monotone(): [thr, max] is true, [0, thr) false. */
static void split_monotone_gt(const struct sym *s, uint32_t k, struct split *o)
{
	if (bits_eval(s, 0xffffffffU) <= k) {
		add_piece(o->f, &o->nf, P_ALL, 0, 0);
		return;
	}
	uint64_t lo = 0, hi = 0xffffffffULL;	/* the least w with S(w) > k */
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		if (bits_eval(s, (uint32_t)mid) > k)
			hi = mid;
		else
			lo = mid + 1;
	}
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
	uint64_t lo = 0, hi = period;	/* the least w of the first period with S(w) > k */
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		if (bits_eval(s, (uint32_t)mid) > k)
			hi = mid;
		else
			lo = mid + 1;
	}
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
static bool split_cond(const struct sym *s, uint16_t op, uint32_t k, struct split *o)
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

/* ---------------------------------------------------------------- walk */

struct state {
	uint32_t pc;
	uint16_t prog;		/* the filter running */
	uint16_t acc_prog;	/* stack: the filter whose return holds */
	uint32_t acc;		/* stack: the result so far */
	int32_t acc_insn;
	struct sym a, x, mem[BPF_MEMWORDS];
	struct wcon w[NWORDS];
};

struct path {
	uint32_t ret;
	int32_t insn;		/* the RET that decided, -1 for the stack's initial ALLOW */
	uint16_t prog;
	struct wcon w[NWORDS];
};

struct lifter {
	const struct sock_filter *const *progs;
	const size_t *lens;
	size_t n;
	bool stack;		/* the kernel's combination of several filters */
	size_t max_paths;
	uint64_t steps;
	struct arena ar;
	struct state *stk;
	size_t nstk, capstk;
	struct path *paths;
	size_t npaths, cappaths;
	scmpc_diag *d;
};

/* An error at instruction INSN of filter PROG. */
static int lerr(const struct lifter *L, int err, unsigned prog, long insn, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static int lerr(const struct lifter *L, int err, unsigned prog, long insn, const char *fmt, ...)
{
	char msg[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (L->n > 1)
		return diag_err_insn(L->d, err, insn, "filter %u (of %zu, oldest 0), insn %ld: %s",
				     prog, L->n, insn, msg);
	return diag_err_insn(L->d, err, insn, "insn %ld: %s", insn, msg);
}

static const char *word_name(unsigned w, char *buf, size_t len)
{
	if (w == W_NR)
		return "nr";
	if (w == W_ARCH)
		return "arch";
	if (w < W_ARGS)
		return "instruction_pointer";
	snprintf(buf, len, "a word of args[%u]", (w - W_ARGS) / 2);
	return buf;
}

static int push(struct lifter *L, const struct state *s)
{
	if (!array_reserve(&L->stk, &L->capstk, L->nstk, sizeof(*L->stk), 64))
		return diag_err(L->d, -ENOMEM, NULL, "out of memory");
	L->stk[L->nstk++] = *s;
	return 0;
}

/* Follow the values of word W one by one: a copy of S per value, at the
 * same instruction, where everything read from W is then a constant.
 * Returns 1 when done, 0 when W has more than PIN_MAX values. */
static int pin_word(struct lifter *L, const struct state *s, unsigned w)
{
	uint32_t vals[PIN_MAX], x = 0;
	size_t n = 0;
	for (;;) {
		uint32_t f;
		int r = wcon_first(&s->w[w], x, &f);
		if (r < 0 || (r > 0 && n == PIN_MAX))
			return 0;
		if (r == 0)
			break;
		vals[n++] = f;
		if (f == 0xffffffffU)
			break;
		x = f + 1;
	}
	for (size_t i = n; i-- > 0;) {
		struct state c = *s;
		c.w[w].lo = c.w[w].hi = vals[i];
		if (c.w[w].insn < 0) {
			c.w[w].insn = (int32_t)s->pc;
			c.w[w].prog = s->prog;
		}
		int err = push(L, &c);
		if (err < 0)
			return err;
	}
	return 1;
}

static bool sym_symbolic(const struct sym *s)
{
	return s->kind == S_BITS || s->kind == S_OFFSET;
}

/* The path ends with return value R of the running filter. */
static int finish(struct lifter *L, struct state *s, uint32_t r, bool *more)
{
	*more = false;
	if (L->stack) {
		/* seccomp_run_filters(): newest first, a strictly lower
		 * action replaces the result, so ties keep the newer one. */
		if (act_rank(r) < act_rank(s->acc)) {
			s->acc = r;
			s->acc_prog = s->prog;
			s->acc_insn = (int32_t)s->pc;
		}
		/* Nothing ranks below KILL_PROCESS: older filters cannot
		 * change the result. */
		if (s->prog > 0 && act_rank(s->acc) != act_rank(SCMPC_ACT_KILL_PROCESS)) {
			s->prog--;
			s->pc = 0;
			s->a = s->x = sym_const(0);
			for (size_t i = 0; i < BPF_MEMWORDS; i++)
				s->mem[i] = sym_const(0);
			*more = true;
			return 0;
		}
		r = s->acc;
	} else {
		s->acc_prog = s->prog;
		s->acc_insn = (int32_t)s->pc;
	}
	if (!scmpc_action_valid(r)) {
		char act[32];
		scmpc_action_str(r, act, sizeof(act));
		return lerr(L, -ENOTSUP, s->acc_prog, s->acc_insn,
			    "returns 0x%08x (%s), which is no action a policy can hold (the kernel "
			    "reads it as another action)", r, act);
	}
	if (L->npaths >= L->max_paths)
		return lerr(L, -E2BIG, s->prog, s->pc,
			    "the program has more than %zu paths (the bound, "
			    "scmpc_lift_opts.max_paths); not lifted", L->max_paths);
	if (!array_reserve(&L->paths, &L->cappaths, L->npaths, sizeof(*L->paths), 256))
		return diag_err(L->d, -ENOMEM, NULL, "out of memory");
	struct path *p = &L->paths[L->npaths++];
	p->ret = r;
	p->insn = s->acc_insn;
	p->prog = s->acc_prog;
	memcpy(p->w, s->w, sizeof(p->w));
	return 0;
}

/* Fork S at a jump: each piece of each side restricts word W. */
static int fork_split(struct lifter *L, const struct state *s, unsigned w, const struct split *sp,
		      uint32_t tgt_t, uint32_t tgt_f)
{
	for (int side = 1; side >= 0; side--) {
		const struct piece *pc = side ? sp->t : sp->f;
		size_t n = side ? sp->nt : sp->nf;
		for (size_t i = 0; i < n; i++) {
			struct state c = *s;
			int r = wcon_apply(&L->ar, &c.w[w], &pc[i]);
			if (r < 0)
				return diag_err(L->d, r, NULL, "out of memory");
			if (!r)
				continue;
			if (pc[i].kind != P_ALL && c.w[w].insn < 0) {
				c.w[w].insn = (int32_t)s->pc;
				c.w[w].prog = s->prog;
			}
			c.pc = side ? tgt_t : tgt_f;
			int err = push(L, &c);
			if (err < 0)
				return err;
		}
	}
	return 0;
}

static int refuse_opaque(struct lifter *L, const struct state *s, const struct sym *v,
			 const char *use)
{
	return lerr(L, -ENOTSUP, s->prog, s->pc,
		    "%s a value computed at insn %d that is no function of one word of "
		    "seccomp_data scmpc can follow (two words combined, or arithmetic on a "
		    "word with more than %d possible values)", use, v->insn, PIN_MAX);
}

static int jump(struct lifter *L, struct state *s, const struct sock_filter *f, bool *cont)
{
	uint16_t op = BPF_OP(f->code);
	uint32_t tgt_t = s->pc + 1 + f->jt, tgt_f = s->pc + 1 + f->jf;
	struct sym lhs = s->a, rhs = BPF_SRC(f->code) == BPF_X ? s->x : sym_const(f->k);
	char wb[32];

	*cont = false;
	sym_resolve(&lhs, s->w);
	sym_resolve(&rhs, s->w);
	if (tgt_t == tgt_f) {
		s->pc = tgt_t;
		*cont = true;
		return 0;
	}
	if (lhs.kind == S_OPAQUE)
		return refuse_opaque(L, s, &lhs, "compares");
	if (rhs.kind == S_OPAQUE)
		return refuse_opaque(L, s, &rhs, "compares");
	if (lhs.kind == S_CONST && rhs.kind == S_CONST) {
		bool taken = op == BPF_JEQ ? lhs.c == rhs.c : op == BPF_JGT ? lhs.c > rhs.c
			   : op == BPF_JGE ? lhs.c >= rhs.c : (lhs.c & rhs.c) != 0;
		s->pc = taken ? tgt_t : tgt_f;
		*cont = true;
		return 0;
	}
	if (sym_symbolic(&lhs) && sym_symbolic(&rhs)) {
		/* Two values of the call compared: only as constants, one
		 * by one, when one of them has few values. */
		int r = pin_word(L, s, rhs.word);
		if (r == 0)
			r = pin_word(L, s, lhs.word);
		if (r == 0)
			return lerr(L, -ENOTSUP, s->prog, s->pc,
				    "compares two values read from the call (%s and %s), each "
				    "with more than %d possible values",
				    word_name(lhs.word, wb, sizeof(wb)),
				    rhs.word == lhs.word ? "itself" : "another word", PIN_MAX);
		return r < 0 ? r : 0;
	}
	const struct sym *v = &lhs;
	uint32_t k = rhs.c;
	bool swap = false;
	if (lhs.kind == S_CONST) {
		/* c OP x: equality and jset are symmetric; c > x is !(x >= c)
		 * and c >= x is !(x > c). */
		v = &rhs;
		k = lhs.c;
		if (op == BPF_JGT) {
			op = BPF_JGE;
			swap = true;
		} else if (op == BPF_JGE) {
			op = BPF_JGT;
			swap = true;
		}
	}
	struct split sp;
	if (!split_cond(v, op, k, &sp)) {
		int r = pin_word(L, s, v->word);
		if (r == 0)
			return lerr(L, -ENOTSUP, s->prog, s->pc,
				    "tests bits of an arithmetic result on %s, which has more than "
				    "%d possible values", word_name(v->word, wb, sizeof(wb)), PIN_MAX);
		return r < 0 ? r : 0;
	}
	return fork_split(L, s, v->word, &sp, swap ? tgt_f : tgt_t, swap ? tgt_t : tgt_f);
}

/* Run S until its path ends or forks; forks go on the stack. */
static int walk(struct lifter *L, struct state *s)
{
	for (;;) {
		const struct sock_filter *prog = L->progs[s->prog];
		size_t len = L->lens[s->prog];
		if (s->pc >= len)
			return lerr(L, -EINVAL, s->prog, s->pc, "runs past the end of the program");
		if (++L->steps > MAX_STEPS)
			return lerr(L, -E2BIG, s->prog, s->pc,
				    "more than %llu instructions walked over all paths; not lifted",
				    (unsigned long long)MAX_STEPS);
		const struct sock_filter *f = &prog[s->pc];
		uint32_t k = f->k;
		switch (f->code) {
		case BPF_LD | BPF_W | BPF_ABS:
			s->a = sym_word((uint8_t)(k / 4));
			break;
		case BPF_LD | BPF_W | BPF_LEN:
			s->a = sym_const((uint32_t)sizeof(struct seccomp_data));
			break;
		case BPF_LDX | BPF_W | BPF_LEN:
			s->x = sym_const((uint32_t)sizeof(struct seccomp_data));
			break;
		case BPF_LD | BPF_IMM:
			s->a = sym_const(k);
			break;
		case BPF_LDX | BPF_IMM:
			s->x = sym_const(k);
			break;
		case BPF_LD | BPF_MEM:
			s->a = s->mem[k % BPF_MEMWORDS];
			break;
		case BPF_LDX | BPF_MEM:
			s->x = s->mem[k % BPF_MEMWORDS];
			break;
		case BPF_ST:
			s->mem[k % BPF_MEMWORDS] = s->a;
			break;
		case BPF_STX:
			s->mem[k % BPF_MEMWORDS] = s->x;
			break;
		case BPF_MISC | BPF_TAX:
			s->x = s->a;
			break;
		case BPF_MISC | BPF_TXA:
			s->a = s->x;
			break;
		case BPF_JMP | BPF_JA:
			s->pc += 1 + k;
			continue;
		case BPF_RET | BPF_K:
		case BPF_RET | BPF_A: {
			uint32_t r = k;
			if (f->code == (BPF_RET | BPF_A)) {
				struct sym v = s->a;
				sym_resolve(&v, s->w);
				if (v.kind == S_OPAQUE)
					return refuse_opaque(L, s, &v, "returns");
				if (v.kind != S_CONST) {
					int rc = pin_word(L, s, v.word);
					char wb[32];
					if (rc == 0)
						return lerr(L, -ENOTSUP, s->prog, s->pc,
							    "returns a value read from %s, which "
							    "has more than %d possible values here",
							    word_name(v.word, wb, sizeof(wb)), PIN_MAX);
					return rc < 0 ? rc : 0;
				}
				r = v.c;
			}
			bool more;
			int err = finish(L, s, r, &more);
			if (err < 0 || !more)
				return err;
			continue;
		}
		default:
			if (BPF_CLASS(f->code) == BPF_JMP) {
				bool cont;
				int err = jump(L, s, f, &cont);
				if (err < 0 || !cont)
					return err;
				continue;
			}
			if (BPF_CLASS(f->code) == BPF_ALU) {
				uint16_t op = BPF_OP(f->code);
				struct sym operand = sym_const(k);
				if (op != BPF_NEG && BPF_SRC(f->code) == BPF_X) {
					operand = s->x;
					sym_resolve(&operand, s->w);
				}
				sym_resolve(&s->a, s->w);
				if (operand.kind != S_CONST) {
					/* A value of the call as operand.  Division
					 * must be followed at once (x == 0 ends the
					 * program); a commutative op on a constant A
					 * applies A to it; anything else is followed
					 * value by value when few, else opaque. */
					bool comm = op == BPF_ADD || op == BPF_MUL || op == BPF_AND ||
						    op == BPF_OR || op == BPF_XOR;
					if (comm && s->a.kind == S_CONST && operand.kind != S_OPAQUE) {
						uint32_t c = s->a.c;
						s->a = operand;
						if (sym_alu(&s->a, op, c) == ALU_OK)
							break;
						s->a = sym_const(c);	/* undo: pin below */
					}
					if (operand.kind != S_OPAQUE) {
						int r = pin_word(L, s, operand.word);
						if (r != 0)
							return r < 0 ? r : 0;
					}
					if (op == BPF_DIV)
						return lerr(L, -ENOTSUP, s->prog, s->pc,
							    "divides by a value of the call that "
							    "may be 0 (which ends the program) and "
							    "has more than %d possible values",
							    PIN_MAX);
					s->a = (struct sym){ .kind = S_OPAQUE,
							     .insn = (int32_t)s->pc,
							     .prog = s->prog };
					break;
				}
				if (op == BPF_DIV && BPF_SRC(f->code) == BPF_X && operand.c == 0) {
					/* `div x` by 0 returns 0 from the filter, as the
					 * kernel's converted program does. */
					bool more;
					int err = finish(L, s, 0, &more);
					if (err < 0 || !more)
						return err;
					continue;
				}
				uint32_t kk = operand.c;
				if (BPF_SRC(f->code) == BPF_X && (op == BPF_LSH || op == BPF_RSH))
					kk &= 31;	/* as the interpreter masks it */
				struct sym before = s->a;
				if (sym_alu(&s->a, op, kk) == ALU_PIN) {
					s->a = before;
					int r = pin_word(L, s, before.word);
					if (r != 0)
						return r < 0 ? r : 0;
					s->a = (struct sym){ .kind = S_OPAQUE, .insn = (int32_t)s->pc,
							     .prog = s->prog };
				}
				break;
			}
			return lerr(L, -EINVAL, s->prog, s->pc,
				    "opcode 0x%02x is not one seccomp accepts", f->code);
		}
		s->pc++;
	}
}

static int walk_all(struct lifter *L)
{
	struct state s0;
	memset(&s0, 0, sizeof(s0));
	s0.prog = (uint16_t)(L->n - 1);	/* the newest filter runs first */
	s0.acc = SCMPC_ACT_ALLOW;
	s0.acc_insn = -1;
	s0.acc_prog = s0.prog;
	s0.a = s0.x = sym_const(0);
	for (size_t i = 0; i < BPF_MEMWORDS; i++)
		s0.mem[i] = sym_const(0);
	for (size_t i = 0; i < NWORDS; i++)
		s0.w[i] = wcon_all;
	int err = push(L, &s0);
	while (!err && L->nstk) {
		struct state s = L->stk[--L->nstk];
		err = walk(L, &s);
	}
	return err;
}

/* ------------------------------------------------------------- analysis */

/* The rules a number of an argument-dependent segment needs for the paths
 * ending in RET: a default other than RET pays them. */
struct retw {
	uint32_t ret;
	uint64_t rules;
};

/* Numbers of one ABI on which the same paths hold. */
struct seg {
	uint32_t lo, hi;
	bool dep;		/* the action depends on the arguments */
	uint32_t ret;		/* !dep: the action */
	uint32_t first, n;	/* its paths: idx[first .. first + n) */
	struct retw *rw;	/* dep: rules per action, to weigh defaults */
	size_t nrw;
};

/* The decision of nr == -1 under an AUDIT_ARCH. */
struct dec {
	bool dep;
	uint32_t ret;
	uint32_t first, n;
	struct retw *rw;
	size_t nrw;
};

/* How fit() lets the policy say one ABI's decision. */
struct plan {
	bool lim;		/* a limit (scmpc_policy_set_limit) */
	uint32_t lim_max, lim_act;
	unsigned lim_flags;
	bool r3;		/* x32: x86_64's limit decides 0x80000000-0xbfffffff */
	int64_t teff;		/* POLICY_MAX: the highest number named */
	bool name_t;		/* name teff with a rule of the default action */
	bool m1;		/* -1 gets its rules here */
};

struct abi {
	enum scmpc_arch arch;
	const struct arch_info *info;
	uint32_t blk[3][2];	/* the numbers the ABI's rules decide */
	size_t nblk;
	struct seg *segs;
	size_t nsegs;
	uint32_t *idx;
	size_t nidx;
	struct dec m1;		/* -1 under its AUDIT_ARCH */
	bool all_bad;		/* every number gets the bad-arch action */
	bool in;		/* one of the policy's ABIs */
	struct plan pl;
};

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* Under x86_64's AUDIT_ARCH, numbers from 0x40000000 up reach x32's rules
 * (arch_of_call()), but a limit is chosen by bit 30 (call_limit()): these,
 * with bit 30 clear, fall under x86_64's limit. */
#define R3_LO 0x80000000U
#define R3_HI 0xbfffffffU

/* The numbers that reach ABI A's rules (-1 is decided apart), in blocks
 * that no segment crosses: x32's middle one is R3. */
static void abi_blocks(struct abi *ab)
{
	ab->nblk = 1;
	ab->blk[0][0] = 0;
	ab->blk[0][1] = 0xfffffffeU;
	if (ab->arch == SCMPC_ARCH_X86_64) {
		ab->blk[0][1] = X32_SYSCALL_BIT - 1;
	} else if (ab->arch == SCMPC_ARCH_X32) {
		ab->nblk = 3;
		ab->blk[0][0] = X32_SYSCALL_BIT;
		ab->blk[0][1] = R3_LO - 1;
		ab->blk[1][0] = R3_LO;
		ab->blk[1][1] = R3_HI;
		ab->blk[2][0] = R3_HI + 1;
		ab->blk[2][1] = 0xfffffffeU;
	}
}

static bool blk_start(const struct abi *ab, uint32_t n)
{
	for (size_t k = 0; k < ab->nblk; k++)
		if (ab->blk[k][0] == n)
			return true;
	return false;
}

/* Whether all paths of IDX[FIRST..FIRST+N) return the same; *RET gets it. */
static bool same_ret(const struct lifter *L, const uint32_t *idx, uint32_t first, uint32_t n,
		     uint32_t *ret)
{
	*ret = L->paths[idx[first]].ret;
	for (uint32_t i = 1; i < n; i++)
		if (L->paths[idx[first + i]].ret != *ret)
			return false;
	return true;
}

static bool abi_idx_add(struct abi *ab, size_t *cap, uint32_t path)
{
	if (!array_reserve(&ab->idx, cap, ab->nidx, sizeof(*ab->idx), 256))
		return false;
	ab->idx[ab->nidx++] = path;
	return true;
}

/* Cut ABI AB's numbers into segments, and find its -1 decision. */
static int abi_build(struct lifter *L, struct abi *ab)
{
	struct ivals iv = { 0 };
	uint64_t *b = NULL;
	uint32_t *cnt = NULL, *pos = NULL;
	size_t capidx = 0, capseg = 0;
	uint32_t audit = ab->info->audit;
	int err = 0;

	abi_blocks(ab);
	for (size_t i = 0; i < L->npaths; i++) {
		const struct path *p = &L->paths[i];
		if (!wcon_has(&p->w[W_ARCH], audit))
			continue;
		for (size_t k = 0; k < ab->nblk && !err; k++)
			err = wcon_intervals(&p->w[W_NR], ab->blk[k][0], ab->blk[k][1], (uint32_t)i, &iv);
		if (err == -E2BIG) {
			err = lerr(L, err, p->prog, p->insn,
				   "the syscall numbers that reach this return split into more "
				   "than %d intervals; not lifted", MAX_INTERVALS);
			goto out;
		}
		if (err < 0)
			goto oom;
	}
	size_t nb = 0;
	b = malloc((2 * iv.n + 1) * sizeof(*b));
	if (!b)
		goto oom;
	for (size_t i = 0; i < iv.n; i++) {
		b[nb++] = iv.v[i].lo;
		b[nb++] = (uint64_t)iv.v[i].hi + 1;
	}
	qsort(b, nb, sizeof(*b), cmp_u64);
	size_t u = 0;
	for (size_t i = 0; i < nb; i++)
		if (!u || b[i] != b[u - 1])
			b[u++] = b[i];
	nb = u;
	/* Elementary segment j is [b[j], b[j+1]); count its paths, then file
	 * them (a CSR table: pos[j] .. pos[j+1]). */
	cnt = calloc(nb + 1, sizeof(*cnt));
	pos = calloc(nb + 1, sizeof(*pos));
	if (!cnt || !pos)
		goto oom;
	for (size_t i = 0; i < iv.n; i++) {
		uint64_t *at = bsearch(&(uint64_t){ iv.v[i].lo }, b, nb, sizeof(*b), cmp_u64);
		for (size_t j = (size_t)(at - b); j + 1 < nb && b[j] <= iv.v[i].hi; j++)
			cnt[j]++;
	}
	uint32_t total = 0;
	for (size_t j = 0; j < nb; j++) {
		pos[j] = total;
		total += cnt[j];
	}
	ab->idx = malloc(((size_t)total + 1) * sizeof(*ab->idx));
	if (!ab->idx)
		goto oom;
	capidx = (size_t)total + 1;
	ab->nidx = total;
	memset(cnt, 0, (nb + 1) * sizeof(*cnt));
	for (size_t i = 0; i < iv.n; i++) {
		uint64_t *at = bsearch(&(uint64_t){ iv.v[i].lo }, b, nb, sizeof(*b), cmp_u64);
		for (size_t j = (size_t)(at - b); j + 1 < nb && b[j] <= iv.v[i].hi; j++)
			ab->idx[pos[j] + cnt[j]++] = iv.v[i].path;
	}
	for (size_t j = 0; j + 1 < nb; j++) {
		if (!cnt[j])
			continue;	/* between the ABI's blocks */
		struct seg s = { .lo = (uint32_t)b[j], .hi = (uint32_t)(b[j + 1] - 1), .first = pos[j],
				 .n = cnt[j] };
		s.dep = !same_ret(L, ab->idx, s.first, s.n, &s.ret);
		struct seg *prev = ab->nsegs ? &ab->segs[ab->nsegs - 1] : NULL;
		if (prev && prev->hi + 1 == s.lo && !blk_start(ab, s.lo) && prev->dep == s.dep &&
		    (s.dep ? prev->n == s.n && !memcmp(&ab->idx[prev->first], &ab->idx[s.first],
							 s.n * sizeof(*ab->idx))
			   : prev->ret == s.ret)) {
			prev->hi = s.hi;
			continue;
		}
		if (!array_reserve(&ab->segs, &capseg, ab->nsegs, sizeof(*ab->segs), 64))
			goto oom;
		ab->segs[ab->nsegs++] = s;
	}
	/* Every number reaches some path: the paths cover every call. */
	uint64_t covered = 0, want = 0;
	for (size_t j = 0; j < ab->nsegs; j++)
		covered += (uint64_t)ab->segs[j].hi - ab->segs[j].lo + 1;
	for (size_t k = 0; k < ab->nblk; k++)
		want += (uint64_t)ab->blk[k][1] - ab->blk[k][0] + 1;
	if (covered != want) {
		err = diag_err(L->d, -EPROTO, NULL, "internal error: the paths of the program "
			       "do not cover every syscall number of %s", ab->info->name);
		goto out;
	}
	/* -1, under this AUDIT_ARCH whatever bit 30 says. */
	ab->m1.first = (uint32_t)ab->nidx;
	for (size_t i = 0; i < L->npaths; i++)
		if (wcon_has(&L->paths[i].w[W_ARCH], audit) &&
		    wcon_has(&L->paths[i].w[W_NR], 0xffffffffU) && !abi_idx_add(ab, &capidx, (uint32_t)i))
			goto oom;
	ab->m1.n = (uint32_t)(ab->nidx - ab->m1.first);
	if (!ab->m1.n) {
		err = diag_err(L->d, -EPROTO, NULL, "internal error: no path of the program "
			       "decides nr -1 on %s", ab->info->name);
		goto out;
	}
	ab->m1.dep = !same_ret(L, ab->idx, ab->m1.first, ab->m1.n, &ab->m1.ret);
	goto out;
oom:
	err = diag_err(L->d, -ENOMEM, NULL, "out of memory");
out:
	free(iv.v);
	free(b);
	free(cnt);
	free(pos);
	return err;
}

static bool seg_is(const struct seg *s, uint32_t act)
{
	return !s->dep && s->ret == act;
}

static bool dec_is(const struct dec *m, uint32_t act)
{
	return !m->dep && m->ret == act;
}

/* The high word of argument I under byte order BE. */
static unsigned arg_word(unsigned i, bool high, bool be)
{
	return W_ARGS + 2 * i + (high == be ? 0 : 1);
}

/* A decision that depends on the arguments must depend on nothing a rule
 * cannot test: not on instruction_pointer, and on a 32-bit ABI not on an
 * argument's high word (which the policy never compares there). */
static int dep_check(const struct lifter *L, const struct abi *ab, const uint32_t *idx,
		     uint32_t n, uint32_t nr)
{
	bool be = ab->info->big_endian;
	for (uint32_t i = 0; i < n; i++) {
		const struct path *p = &L->paths[idx[i]];
		for (unsigned w = W_IP; w < W_ARGS; w++)
			if (!wcon_trivial(&p->w[w]))
				return lerr(L, -ENOTSUP, p->w[w].prog, p->w[w].insn,
					    "on %s the decision of nr %#x depends on "
					    "instruction_pointer, which a policy cannot test",
					    ab->info->name, nr);
		if (!ab->info->compat32)
			continue;
		for (unsigned a = 0; a < 6; a++) {
			const struct wcon *c = &p->w[arg_word(a, true, be)];
			if (!wcon_trivial(c))
				return lerr(L, -ENOTSUP, c->prog, c->insn,
					    "on %s the decision of nr %#x depends on the high word "
					    "of args[%u], which a policy for a 32-bit ABI never "
					    "compares", ab->info->name, nr, a);
		}
	}
	return 0;
}

/* ------------------------------------------------------------------ fit */

struct fitp {
	uint32_t D;		/* the default action */
	bool U_set;
	uint32_t U;		/* the unknown-syscall action */
	enum scmpc_unknown_threshold thr;
};

#define COST_INF UINT64_MAX

/* Emitting: where rules go. */
struct emitter;
static int emit_numbers(struct emitter *e, struct abi *ab, const struct seg *s, uint32_t lo,
			uint32_t hi);
static int emit_m1(struct emitter *e, struct abi *ab, const struct dec *m1);
static int emit_name(struct emitter *e, struct abi *ab, uint32_t nr);

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
				cost++;
				if (e && (*err = emit_name(e, ab, (uint32_t)t)) < 0)
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
			if (s->dep)
				drules += (end - x + 1) * dep_rules(s->rw, s->nrw, f->D);
			if (e && (*err = emit_numbers(e, ab, s, (uint32_t)x, (uint32_t)end)) < 0)
				return COST_INF;
		}
	}
	if (m1_rules && !(pl->lim && m1_lim) && !dec_is(m1_rules, f->D)) {
		pl->m1 = true;
		cost++;
		if (m1_rules->dep)
			drules += dep_rules(m1_rules->rw, m1_rules->nrw, f->D);
		if (e && (*err = emit_m1(e, ab, m1_rules)) < 0)
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
static bool m1_host(struct abi *abis, size_t nab, const struct abi *ab)
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
static uint64_t plan_all(struct abi *abis, size_t nab, const struct fitp *f, int *opts,
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
static int fit(struct lifter *L, struct abi *abis, size_t nab, struct fitp *best, int *opts)
{
	uint32_t cand[64];
	size_t nc = 0;
	int err = 0, tmp[SCMPC_ARCH_COUNT];
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
						  thr ? SCMPC_UNKNOWN_POLICY_MAX : SCMPC_UNKNOWN_TABLE_MAX };
				uint64_t cost = plan_all(abis, nab, &f, tmp, NULL, &err);
				if (cost < best_cost) {
					best_cost = cost;
					*best = f;
					memcpy(opts, tmp, sizeof(tmp));
				}
			}
	if (best_cost != COST_INF)
		return 0;
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
			return lerr(L, -ENOTSUP, p->prog, p->insn,
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

/* ----------------------------------------------------------------- emit */

/* One way a word's values split into what conditions can say. */
struct alt {
	uint32_t lo, hi, m, v;
};

struct alts {
	struct alt *v;
	size_t n, cap;
};

static bool alts_add(struct alts *a, struct alt x)
{
	if (!array_reserve(&a->v, &a->cap, a->n, sizeof(*a->v), 8))
		return false;
	a->v[a->n++] = x;
	return true;
}

static int cmp_u32v(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

static bool few_points(uint32_t m)
{
	return __builtin_popcount(~m) <= 3;
}

/* Disjoint alternatives whose union is C, each an interval and a cube; the
 * excluded points of C go to *PTS (to be said as `!=`) unless SPLIT, when
 * they cut the intervals instead.  Partial excluded cubes always split:
 * (w & m) != v is "the first bit of m that differs", bit by bit. */
static int word_alts(const struct wcon *c, bool split, struct alts *out, uint32_t **pts,
		     size_t *npts)
{
	struct alts cur = { 0 }, nxt = { 0 };
	size_t np = 0;
	int err = -ENOMEM;

	out->n = 0;
	*pts = NULL;
	*npts = 0;
	/* A cube with at most 3 free bits is at most 8 points: said as `!=`
	 * (or cuts of the interval), not split bit by bit. */
	for (const struct ne *n = c->ne; n; n = n->next)
		if (few_points(n->m))
			np += 1U << __builtin_popcount(~n->m);
	uint32_t *p = malloc((np + 1) * sizeof(*p));
	if (!p)
		return -ENOMEM;
	np = 0;
	for (const struct ne *n = c->ne; n; n = n->next) {
		if (!few_points(n->m))
			continue;
		/* Every value of the free bits, counted through them. */
		uint32_t fr = ~n->m, x = 0;
		do {
			p[np++] = n->v | x;
			x = (x - fr) & fr;
		} while (x);
	}
	qsort(p, np, sizeof(*p), cmp_u32v);
	size_t u = 0;
	for (size_t i = 0; i < np; i++)
		if (!u || p[i] != p[u - 1])
			p[u++] = p[i];
	np = u;
	if (!alts_add(&cur, (struct alt){ c->lo, c->hi, c->m, c->v }))
		goto out;
	for (const struct ne *n = c->ne; n; n = n->next) {
		if (few_points(n->m))
			continue;
		nxt.n = 0;
		for (size_t i = 0; i < cur.n; i++) {
			struct alt a = cur.v[i];
			if ((a.m & n->m) & (a.v ^ n->v)) {	/* already differs */
				if (!alts_add(&nxt, a))
					goto out;
				continue;
			}
			uint32_t low = n->m & (0U - n->m);
			if (n->m + low == 0) {
				/* A mask of w's top bits: its cube is the interval
				 * [v, v + low - 1], whose complement is two. */
				struct alt x = a, y = a;
				if (n->v > 0 && a.lo <= n->v - 1) {
					x.hi = a.hi < n->v - 1 ? a.hi : n->v - 1;
					if (!alts_add(&nxt, x))
						goto out;
				}
				uint32_t after = n->v + low;	/* 0 when the cube ends at the top */
				if (after && a.hi >= after) {
					y.lo = a.lo > after ? a.lo : after;
					if (!alts_add(&nxt, y))
						goto out;
				}
				continue;
			}
			uint32_t free = n->m & ~a.m, prefix = 0;
			while (free) {
				uint32_t b = 1U << top_bit(free);
				free &= ~b;
				struct alt x = { a.lo, a.hi, a.m | prefix | b,
						 a.v | (n->v & prefix) | (~n->v & b) };
				prefix |= b;
				if (!alts_add(&nxt, x))
					goto out;
			}
			if (nxt.n > MAX_ALTS) {
				err = -E2BIG;
				goto out;
			}
		}
		struct alts t = cur;
		cur = nxt;
		nxt = t;
	}
	for (size_t i = 0; i < cur.n; i++) {
		struct alt a = cur.v[i];
		/* Points split the interval where they have to. */
		size_t k = 0;
		while (split && k < np && p[k] < a.lo)
			k++;
		for (;;) {
			struct alt x = a;
			if (split && k < np && p[k] <= a.hi) {
				if (p[k] > a.lo) {
					x.hi = p[k] - 1;
					struct wcon t = { x.lo, x.hi, x.m, x.v, c->ne, -1, 0 };
					if (wcon_feasible(&t) && !alts_add(out, x))
						goto out;
				}
				if (p[k] == a.hi)
					break;
				a.lo = p[k] + 1;
				k++;
				continue;
			}
			struct wcon t = { x.lo, x.hi, x.m, x.v, c->ne, -1, 0 };
			if (wcon_feasible(&t) && !alts_add(out, x))
				goto out;
			break;
		}
		if (out->n > MAX_ALTS) {
			err = -E2BIG;
			goto out;
		}
	}
	if (!split) {
		*pts = p;
		*npts = np;
		p = NULL;
	}
	err = 0;
out:
	free(p);
	free(cur.v);
	free(nxt.v);
	return err;
}

/* Conditions on argument ARG saying alternative A of its HIGH or low word
 * (with the excluded points PTS of the low word). */
static size_t alt_conds(const struct alt *a, unsigned arg, bool high, const uint32_t *pts,
			size_t npts, struct scmpc_cond *out)
{
	size_t n = 0;
	if (high) {
		uint64_t lo = (uint64_t)a->lo << 32, hi = ((uint64_t)a->hi << 32) | 0xffffffffULL;
		if (a->lo == a->hi || a->m == 0xffffffffU) {
			uint32_t v = a->lo == a->hi ? a->lo : a->v;
			out[n++] = (struct scmpc_cond){ .arg = arg, .op = SCMPC_OP_MASKED_EQ,
							.value = 0xffffffff00000000ULL,
							.value2 = (uint64_t)v << 32 };
			return n;
		}
		if (a->lo)
			out[n++] = (struct scmpc_cond){ .arg = arg, .op = SCMPC_OP_GE, .value = lo };
		if (a->hi != 0xffffffffU)
			out[n++] = (struct scmpc_cond){ .arg = arg, .op = SCMPC_OP_LE, .value = hi };
		if (a->m)
			out[n++] = (struct scmpc_cond){ .arg = arg, .op = SCMPC_OP_MASKED_EQ,
							.value = (uint64_t)a->m << 32,
							.value2 = (uint64_t)a->v << 32 };
		return n;
	}
	const unsigned f32 = SCMPC_COND_32BIT;
	if (a->lo == a->hi || a->m == 0xffffffffU) {
		uint32_t v = a->lo == a->hi ? a->lo : a->v;
		out[n++] = (struct scmpc_cond){ .arg = arg, .op = SCMPC_OP_EQ, .value = v, .flags = f32 };
		return n;
	}
	if (a->lo)
		out[n++] = (struct scmpc_cond){ .arg = arg, .op = SCMPC_OP_GE, .value = a->lo,
						.flags = f32 };
	if (a->hi != 0xffffffffU)
		out[n++] = (struct scmpc_cond){ .arg = arg, .op = SCMPC_OP_LE, .value = a->hi,
						.flags = f32 };
	if (a->m)
		out[n++] = (struct scmpc_cond){ .arg = arg, .op = SCMPC_OP_MASKED_EQ, .value = a->m,
						.value2 = a->v, .flags = f32 };
	/* An excluded point may sit at an end: excluded before the interval
	 * shrank to it. */
	for (size_t i = 0; i < npts; i++)
		if (pts[i] >= a->lo && pts[i] <= a->hi && (pts[i] & a->m) == a->v)
			out[n++] = (struct scmpc_cond){ .arg = arg, .op = SCMPC_OP_NE,
							.value = pts[i], .flags = f32 };
	return n;
}

/* A rule to add for each number of a segment. */
struct tmpl {
	uint32_t action;
	struct scmpc_cond *conds;
	size_t nconds;
	uint32_t path;
};

struct tmpls {
	struct tmpl *v;
	size_t n, cap;
};

static void tmpls_free(struct tmpls *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->v[i].conds);
	free(t->v);
	memset(t, 0, sizeof(*t));
}

/* Rules saying path P on ABI AB (every path whose action is not the
 * default; a call no rule matches gets the default). */
static int path_rules(const struct abi *ab, const struct path *p, uint32_t pi, bool split,
		      struct tmpls *out)
{
	bool be = ab->info->big_endian;
	struct alts alts[12] = { { 0 } };
	uint32_t *pts[12] = { NULL };
	size_t npts[12] = { 0 }, nw = 0;
	unsigned warg[12];
	bool whigh[12];
	int err = 0;

	for (unsigned a = 0; a < 6; a++)
		for (int h = 1; h >= 0; h--) {
			const struct wcon *c = &p->w[arg_word(a, h, be)];
			if (wcon_trivial(c) || (h && ab->info->compat32))
				continue;
			/* The high word's points always split: `!=` on a
			 * whole argument would say something else. */
			err = word_alts(c, split || h, &alts[nw], &pts[nw], &npts[nw]);
			if (err < 0)
				goto out;
			warg[nw] = a;
			whigh[nw] = h;
			nw++;
		}
	/* One rule per combination of the words' alternatives. */
	size_t total = 1;
	for (size_t i = 0; i < nw; i++) {
		total *= alts[i].n;
		if (total > MAX_ALTS) {
			err = -E2BIG;
			goto out;
		}
	}
	size_t at[12] = { 0 };
	for (size_t r = 0; r < total; r++) {
		size_t n = 0, extra = 0;
		for (size_t i = 0; i < nw; i++)
			extra += npts[i];
		struct scmpc_cond *conds = malloc((12 * 4 + extra + 1) * sizeof(*conds));
		if (!conds) {
			err = -ENOMEM;
			goto out;
		}
		for (size_t i = 0; i < nw; i++)
			n += alt_conds(&alts[i].v[at[i]], warg[i], whigh[i], pts[i], npts[i], conds + n);
		if (n > 64) {
			free(conds);
			err = -ERANGE;	/* too many `!=`: the caller splits them */
			goto out;
		}
		if (!array_reserve(&out->v, &out->cap, out->n, sizeof(*out->v), 8)) {
			free(conds);
			err = -ENOMEM;
			goto out;
		}
		out->v[out->n++] = (struct tmpl){ p->ret, conds, n, pi };
		for (size_t i = 0; i < nw && ++at[i] == alts[i].n; i++)
			at[i] = 0;
	}
out:
	for (size_t i = 0; i < 12; i++) {
		free(alts[i].v);
		free(pts[i]);
	}
	return err;
}

struct emitter {
	struct lifter *L;
	scmpc_policy *p;
	uint32_t D;
	size_t nrules;
	/* The templates of the last segment written, reused for its numbers. */
	const void *key;
	struct tmpls t;
};

/* How much a word's set costs to say: its excluded cubes most. */
static unsigned wcon_weight(const struct wcon *c)
{
	unsigned w = (c->lo > 0) + (c->hi < 0xffffffffU) + (c->m != 0);
	for (const struct ne *n = c->ne; n; n = n->next)
		w += few_points(n->m) ? 1 : 4;
	return w;
}

/*
 * The set path IDX[PI] says, widened where the restrictive merge allows:
 * a rule may also match calls of paths whose action is more restrictive
 * (their own rules win there), never those of a path with a less
 * restrictive action, nor, unless D_RULES gives them rules too, those of
 * the paths with the default action D (no rule there to win).  Word by
 * word, costliest first, a set is dropped, or its excluded cubes, while
 * every such path stays apart from the widened set on some other word.
 */
static void relax(const struct lifter *L, const struct abi *ab, const uint32_t *idx, uint32_t n,
		  uint32_t pi, uint32_t d, bool d_rules, struct path *out)
{
	const struct path *p = &L->paths[idx[pi]];
	uint32_t words[12], nw = 0;
	*out = *p;
	for (unsigned a = 0; a < 6; a++)
		for (int h = 0; h < 2; h++) {
			unsigned w = arg_word(a, h, ab->info->big_endian);
			if (!wcon_trivial(&p->w[w]) && !(h && ab->info->compat32))
				words[nw++] = w;
		}
	/* Costliest first: insertion sort on a dozen words. */
	for (uint32_t i = 1; i < nw; i++)
		for (uint32_t j = i; j > 0 && wcon_weight(&p->w[words[j]]) >
					     wcon_weight(&p->w[words[j - 1]]); j--) {
			uint32_t t = words[j];
			words[j] = words[j - 1];
			words[j - 1] = t;
		}
	for (uint32_t k = 0; k < nw; k++) {
		unsigned w = words[k];
		/* Drop: everything; the cube and the excluded cubes (the
		 * interval kept); the excluded cubes; the cube. */
		for (int variant = 0; variant < 4; variant++) {
			struct wcon keep = out->w[w];
			if ((variant == 1 && !keep.m && !keep.ne) || (variant == 2 && !keep.ne) ||
			    (variant == 3 && !keep.m))
				continue;
			if (variant == 0) {
				out->w[w] = wcon_all;
			} else {
				if (variant != 3)
					out->w[w].ne = NULL;
				if (variant != 2)
					out->w[w].m = out->w[w].v = 0;
			}
			bool ok = true;
			for (uint32_t q = 0; q < n && ok; q++) {
				const struct path *o = &L->paths[idx[q]];
				bool blocks = (o->ret == d && !d_rules) ||
					      scmpc_action_cmp(o->ret, p->ret) > 0;
				if (q == pi || !blocks)
					continue;
				bool apart = false;
				for (uint32_t i = 0; i < nw && !apart; i++)
					apart = wcon_disjoint(&out->w[words[i]], &o->w[words[i]]);
				ok = apart;
			}
			if (ok)
				break;
			out->w[w] = keep;
		}
	}
}

/* The rules of the paths IDX[0..N) into T, the default's paths with rules
 * of their own when D_RULES. */
static int set_tmpls(struct emitter *e, const struct abi *ab, const uint32_t *idx, uint32_t n,
		     uint32_t nr, bool d_rules, struct tmpls *t)
{
	for (uint32_t i = 0; i < n; i++) {
		if (e->L->paths[idx[i]].ret == e->D && !d_rules)
			continue;
		struct path wide;
		relax(e->L, ab, idx, n, i, e->D, d_rules, &wide);
		size_t mark = t->n;
		int err = path_rules(ab, &wide, idx[i], false, t);
		if (err == -ERANGE) {
			while (t->n > mark)
				free(t->v[--t->n].conds);
			err = path_rules(ab, &wide, idx[i], true, t);
		}
		if (err == -E2BIG || err == -ERANGE) {
			const struct path *p = &e->L->paths[idx[i]];
			return lerr(e->L, -ENOTSUP, p->prog, p->insn,
				    "on %s, the arguments that lead to this return for nr %#x "
				    "split into more than %d rules of at most 64 conditions",
				    ab->info->name, nr, MAX_ALTS);
		}
		if (err < 0)
			return diag_err(e->L->d, err, NULL, "out of memory");
		/* Widened paths of one action can say the same: once. */
		for (size_t k = mark; k < t->n;) {
			bool dup = false;
			for (size_t j = 0; j < mark && !dup; j++)
				dup = t->v[j].action == t->v[k].action &&
				      t->v[j].nconds == t->v[k].nconds &&
				      !memcmp(t->v[j].conds, t->v[k].conds,
					      t->v[k].nconds * sizeof(*t->v[k].conds));
			if (!dup) {
				k++;
				continue;
			}
			free(t->v[k].conds);
			t->v[k] = t->v[--t->n];
		}
	}
	return 0;
}

static size_t tmpls_conds(const struct tmpls *t)
{
	size_t n = 0;
	for (size_t i = 0; i < t->n; i++)
		n += t->v[i].nconds;
	return n;
}

/* The rules for a number of the segment KEY, made once per segment: with
 * or without rules for the default's paths, whichever says it in fewer
 * rules (then conditions). */
static int emitter_tmpls(struct emitter *e, const struct abi *ab, const void *key,
			 const uint32_t *idx, uint32_t n, uint32_t nr)
{
	if (e->key == key)
		return 0;
	tmpls_free(&e->t);
	e->key = NULL;
	int err = dep_check(e->L, ab, idx, n, nr);
	if (err < 0)
		return err;
	struct tmpls alt = { 0 };
	if ((err = set_tmpls(e, ab, idx, n, nr, false, &e->t)) < 0 ||
	    (err = set_tmpls(e, ab, idx, n, nr, true, &alt)) < 0) {
		tmpls_free(&alt);
		return err;
	}
	if (alt.n < e->t.n || (alt.n == e->t.n && tmpls_conds(&alt) < tmpls_conds(&e->t))) {
		tmpls_free(&e->t);
		e->t = alt;
	} else {
		tmpls_free(&alt);
	}
	e->key = key;
	return 0;
}

static int emit_rule(struct emitter *e, const struct abi *ab, uint32_t nr, uint32_t action,
		     const struct scmpc_cond *conds, size_t n, uint32_t path)
{
	char origin[48];
	const struct path *p = &e->L->paths[path];
	if (++e->nrules > MAX_RULES)
		return diag_err(e->L->d, -ENOTSUP, NULL, "the lifted policy needs more than %u rules",
				MAX_RULES);
	if (p->insn < 0)
		snprintf(origin, sizeof(origin), "every filter allows");
	else if (e->L->n > 1)
		snprintf(origin, sizeof(origin), "filter %u insn %d", p->prog, p->insn);
	else
		snprintf(origin, sizeof(origin), "insn %d", p->insn);
	struct scmpc_rule r = { .sz = sizeof(r), .nr = nr, .arch = ab->arch, .action = action,
				.conds = conds, .nconds = n, .origin = origin };
	int err = scmpc_policy_add_rule(e->p, &r, e->L->d);
	return err < 0 ? err : 0;
}

static int emit_set(struct emitter *e, struct abi *ab, const void *key, bool dep, uint32_t ret,
		    const uint32_t *idx, uint32_t n, uint32_t nr)
{
	if (!dep)
		return emit_rule(e, ab, nr, ret, NULL, 0, idx[0]);
	int err = emitter_tmpls(e, ab, key, idx, n, nr);
	for (size_t i = 0; i < e->t.n && !err; i++)
		err = emit_rule(e, ab, nr, e->t.v[i].action, e->t.v[i].conds, e->t.v[i].nconds,
				e->t.v[i].path);
	return err;
}

static int emit_numbers(struct emitter *e, struct abi *ab, const struct seg *s, uint32_t lo,
			uint32_t hi)
{
	for (uint64_t nr = lo; nr <= hi; nr++) {
		int err = emit_set(e, ab, s, s->dep, s->ret, &ab->idx[s->first], s->n, (uint32_t)nr);
		if (err < 0)
			return err;
	}
	return 0;
}

static int emit_m1(struct emitter *e, struct abi *ab, const struct dec *m1)
{
	return emit_set(e, ab, m1, m1->dep, m1->ret, &ab->idx[m1->first], m1->n, 0xffffffffU);
}

static int emit_name(struct emitter *e, struct abi *ab, uint32_t nr)
{
	for (size_t j = 0; j < ab->nsegs; j++)
		if (ab->segs[j].lo <= nr && nr <= ab->segs[j].hi)
			return emit_rule(e, ab, nr, e->D, NULL, 0, ab->idx[ab->segs[j].first]);
	return 0;
}

/* ---------------------------------------------------------------- check */

/* What the program (the stack) returns for SD, as the kernel runs it. */
static int stack_eval(const struct lifter *L, const struct seccomp_data *sd, uint32_t *ret)
{
	uint32_t acc = SCMPC_ACT_ALLOW;
	for (size_t i = L->n; i-- > 0;) {
		uint32_t r;
		int err = scmpc_emulate(L->progs[i], L->lens[i], sd, &r, NULL);
		if (err < 0)
			return err;
		if (!L->stack) {
			*ret = r;
			return 0;
		}
		if (act_rank(r) < act_rank(acc))
			acc = r;
	}
	*ret = acc;
	return 0;
}

/* A value of C outside the AUDIT_ARCH values AUD: 1 (in *OUT), 0 when
 * there is none, -1 when C has too many intervals to tell. */
static int arch_outside(const struct wcon *c, const uint32_t *aud, size_t na, uint32_t *out)
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
static size_t table_audits(uint32_t *aud)
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
static int probe(const struct lifter *L, const scmpc_policy *p, const struct arch_view *views,
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
static int check(const struct lifter *L, const scmpc_policy *p, const struct abi *abis,
		 size_t nab, bool unknown)
{
	struct arch_view views[SCMPC_ARCH_COUNT];
	uint32_t aud[SCMPC_ARCH_COUNT];
	size_t na = table_audits(aud);
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
		if (!err && unknown && arch_outside(&pa->w[W_ARCH], aud, na, &arch) > 0 &&
		    wcon_first(&pa->w[W_NR], 0, &nr) > 0)
			err = probe(L, p, views, i, arch, nr);
	}
	policy_views_fini(p, views, p->narches);
	return err;
}

/* Rules path PI gives on AB: the product of its words' alternatives
 * (path_rules() without writing them). */
static int path_weight(const struct lifter *L, const struct abi *ab, uint32_t pi, uint64_t *out)
{
	const struct path *p = &L->paths[pi];
	bool be = ab->info->big_endian;
	*out = 1;
	for (unsigned a = 0; a < 6; a++)
		for (int h = 1; h >= 0; h--) {
			const struct wcon *c = &p->w[arg_word(a, h, be)];
			if (wcon_trivial(c) || (h && ab->info->compat32))
				continue;
			struct alts al = { 0 };
			uint32_t *pts = NULL;
			size_t np;
			int err = word_alts(c, h, &al, &pts, &np);
			free(al.v);
			free(pts);
			if (err == -ENOMEM)
				return err;
			*out *= err < 0 ? MAX_ALTS : (al.n ? al.n : 1);
			if (*out > MAX_ALTS)
				*out = MAX_ALTS;
		}
	return 0;
}

/* The rules per action of the paths IDX[0..N) on AB. */
static int weigh(const struct lifter *L, const struct abi *ab, const uint32_t *idx, uint32_t n,
		 struct retw **out, size_t *nout)
{
	size_t cap = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint64_t w;
		int err = path_weight(L, ab, idx[i], &w);
		if (err < 0)
			return err;
		uint32_t ret = L->paths[idx[i]].ret;
		size_t k = 0;
		while (k < *nout && (*out)[k].ret != ret)
			k++;
		if (k == *nout) {
			if (!array_reserve(out, &cap, *nout, sizeof(**out), 4))
				return -ENOMEM;
			(*out)[(*nout)++] = (struct retw){ ret, 0 };
		}
		(*out)[k].rules += w;
	}
	return 0;
}

/* --------------------------------------------------------------- driver */

/* The bad-arch action: what the program returns for an AUDIT_ARCH no ABI
 * has, which must be one action whatever the rest of the call. */
static int bad_arch(const struct lifter *L, uint32_t *out)
{
	uint32_t aud[SCMPC_ARCH_COUNT], w;
	size_t na = table_audits(aud), first = SIZE_MAX;
	for (size_t i = 0; i < L->npaths; i++) {
		const struct path *p = &L->paths[i];
		if (!arch_outside(&p->w[W_ARCH], aud, na, &w))
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
		return lerr(L, -ENOTSUP, p->prog, p->insn,
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
		for (size_t j = 0; j < abis[i].nsegs; j++)
			free(abis[i].segs[j].rw);
		free(abis[i].m1.rw);
		free(abis[i].segs);
		free(abis[i].idx);
	}
}

/* The policy's ABIs in the order the newest program tests them, then the
 * older ones', then the table's. */
static void order_abis(const struct lifter *L, struct abi *abis, size_t nab,
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

static int lift_stack(const struct sock_filter *const *progs, const size_t *lens, size_t n,
		      bool stack, const struct scmpc_lift_opts *o, scmpc_policy **out,
		      scmpc_diag *d)
{
	struct scmpc_lift_opts opts;
	struct lifter L = { .progs = progs, .lens = lens, .n = n, .stack = stack, .d = d };
	struct abi abis[SCMPC_ARCH_COUNT];
	size_t nab = 0;
	scmpc_policy *p = NULL;
	struct emitter em = { 0 };
	int err;

	memset(abis, 0, sizeof(abis));
	if ((err = OPTS_VALID(o, scmpc_lift_opts, sz, d)) < 0)
		return err;
	OPTS_COPY(opts, o);
	if (!out)
		return diag_err(d, -EINVAL, NULL, "no place to store the policy");
	*out = NULL;
	if (!progs || !lens || n == 0)
		return diag_err(d, -EINVAL, NULL, "no program given");
	if (n > UINT16_MAX)
		return diag_err(d, -E2BIG, NULL, "%zu filters: at most %u can be merged", n,
				UINT16_MAX);
	if (opts.flags & ~SCMPC_LIFT_BAD_ARCH)
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

	if ((err = walk_all(&L)) < 0)
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
		if ((err = abi_build(&L, ab)) < 0)
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
				err = dep_check(&L, ab, &ab->idx[ab->segs[j].first], ab->segs[j].n,
						ab->segs[j].lo);
		if (err || !ab->in || !ab->m1.dep || !m1_host(abis, nab, ab))
			continue;
		err = dep_check(&L, ab, &ab->idx[ab->m1.first], ab->m1.n, 0xffffffffU);
		if (err == -ENOTSUP && ab == x32 && x64) {
			/* -1 tests what x32's rules cannot: x86_64's can. */
			x64->in = true;
			err = dep_check(&L, x64, &x64->idx[x64->m1.first], x64->m1.n, 0xffffffffU);
		}
	}
	if (err < 0)
		goto out;
	for (size_t i = 0; i < nab && !err; i++) {
		struct abi *ab = &abis[i];
		for (size_t j = 0; j < ab->nsegs && ab->in && !err; j++)
			if (ab->segs[j].dep)
				err = weigh(&L, ab, &ab->idx[ab->segs[j].first], ab->segs[j].n,
					    &ab->segs[j].rw, &ab->segs[j].nrw);
		if (!err && ab->in && ab->m1.dep && m1_host(abis, nab, ab))
			err = weigh(&L, ab, &ab->idx[ab->m1.first], ab->m1.n, &ab->m1.rw, &ab->m1.nrw);
		if (err == -ENOMEM)
			err = diag_err(d, err, NULL, "out of memory");
	}
	if (err < 0)
		goto out;

	struct fitp f = { .D = B };
	int opts_lim[SCMPC_ARCH_COUNT] = { 0 };
	bool any = false;
	for (size_t i = 0; i < nab; i++)
		any |= abis[i].in;
	/* R3 (0x80000000-0xbfffffff) under x86_64's AUDIT_ARCH can have an
	 * action of its own only through x86_64's limit: when x32 is in and
	 * x86_64 is not, and nothing else fits, x86_64 comes in for that. */
	bool retry = x32 && x32->in && x64 && !x64->in;
	L.d = retry ? NULL : d;
	if (any && (err = fit(&L, abis, nab, &f, opts_lim)) == -ENOTSUP && retry) {
		x64->in = true;
		if ((err = fit(&L, abis, nab, &f, opts_lim)) < 0) {
			x64->in = false;
			L.d = d;
			err = fit(&L, abis, nab, &f, opts_lim);
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
	if (any && plan_all(abis, nab, &f, opts_lim, &em, &err) == COST_INF) {
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
	if ((err = check(&L, p, abis, nab, !(opts.flags & SCMPC_LIFT_BAD_ARCH))) < 0)
		goto out;
	*out = p;
	p = NULL;
out:
	tmpls_free(&em.t);
	scmpc_policy_free(p);
	abis_free(abis, nab);
	free(L.paths);
	free(L.stk);
	arena_free(&L.ar);
	return err;
}

SCMPC_API int scmpc_lift(const struct sock_filter *insns, size_t len,
			 const struct scmpc_lift_opts *o, scmpc_policy **out, scmpc_diag *d)
{
	const struct sock_filter *progs[1] = { insns };
	return lift_stack(progs, &len, 1, false, o, out, d);
}

SCMPC_API int scmpc_merge_stack(const struct sock_filter *const *progs, const size_t *lens,
				size_t n, const struct scmpc_lift_opts *o, scmpc_policy **out,
				scmpc_diag *d)
{
	return lift_stack(progs, lens, n, true, o, out, d);
}
