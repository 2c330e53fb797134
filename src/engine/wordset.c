/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* Sets of a 32-bit word's values (struct wcon, engine.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "engine/engine.h"

/* ------------------------------------------------------ sets of a word */

bool wcon_trivial(const struct wcon *c)
{
	return c->lo == 0 && c->hi == 0xffffffffU && !c->m && !c->ne;
}

bool wcon_has(const struct wcon *c, uint32_t x)
{
	if (x < c->lo || x > c->hi || (x & c->m) != c->v)
		return false;
	for (const struct ne *n = c->ne; n; n = n->next)
		if ((x & n->m) == n->v)
			return false;
	return true;
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

/*
 * Whether some x in [LO, HI] has the bits under A equal to V and lies in
 * none of the excluded cubes of L1 and L2: 1 (*OUT gets one), 0 none, -1
 * when *BUDGET runs out.  The excluded cubes are clauses over x's 32 bits
 * ("some bit under ne->m differs from ne->v"), so this is a small DPLL
 * search: bits a clause forces are set, a clause all of whose bits are set
 * as it excludes ends the branch, and the branch bit is taken from the
 * shortest clause still open.  Where a scan from LO would try values one
 * excluded cube at a time (hundreds of cubes on the low bits of a word
 * that spans billions of values), this decides in a few dozen steps.
 */
static int sat(uint32_t lo, uint32_t hi, uint32_t A, uint32_t V, const struct ne *l1,
	       const struct ne *l2, unsigned *budget, uint32_t *out)
{
	if (!*budget)
		return -1;
	--*budget;
	for (bool again = true; again;) {
		again = false;
		/* the values the fixed bits still allow span [V, V | ~A] */
		if (V > hi || (V | ~A) < lo)
			return 0;
		for (int k = 0; k < 2; k++)
			for (const struct ne *n = k ? l2 : l1; n; n = n->next) {
				if ((n->m & A) & (V ^ n->v))
					continue;	/* a fixed bit already differs */
				uint32_t open = n->m & ~A;
				if (!open)
					return 0;	/* every bit as it excludes */
				if (!(open & (open - 1))) {
					A |= open;	/* the last open bit must differ */
					V |= ~n->v & open;
					again = true;
				}
			}
	}
	/* Choose from the shortest clause still open; with none open any
	 * value the fixed bits allow will do. */
	uint32_t branch = 0;
	int best = 33;
	for (int k = 0; k < 2; k++)
		for (const struct ne *n = k ? l2 : l1; n; n = n->next) {
			uint32_t open = n->m & ~A;
			if (((n->m & A) & (V ^ n->v)) || !open)
				continue;
			int c = __builtin_popcount(open);
			if (c < best) {
				best = c;
				branch = 1U << top_bit(open);
			}
		}
	if (!branch) {
		uint32_t x;
		if (!cube_next(lo, A, V, &x) || x > hi)
			return 0;
		*out = x;
		return 1;
	}
	int r0 = sat(lo, hi, A | branch, V & ~branch, l1, l2, budget, out);
	if (r0 != 0)
		return r0;
	return sat(lo, hi, A | branch, V | branch, l1, l2, budget, out);
}

#define SAT_BUDGET 65536U	/* search nodes of one question */

/* Whether C (with the cubes of EXTRA excluded too) has a value in [LO,
 * HI]: sat()'s answer. */
static int wcon_any(const struct wcon *c, const struct ne *extra, uint32_t lo, uint32_t hi,
		    uint32_t *out)
{
	unsigned budget = SAT_BUDGET;
	if (lo < c->lo)
		lo = c->lo;
	if (hi > c->hi)
		hi = c->hi;
	if (lo > hi)
		return 0;
	if (lo == hi) {
		/* One value: a membership test, linear in the cubes, where
		 * the search would branch bit by bit over every one of them. */
		if ((lo & c->m) != c->v)
			return 0;
		for (int k = 0; k < 2; k++)
			for (const struct ne *n = k ? extra : c->ne; n; n = n->next)
				if ((lo & n->m) == n->v)
					return 0;
		*out = lo;
		return 1;
	}
	/* Most sets have a value near their low end that no cube excludes
	 * (a path that left a chain of `jeq` holds every number between the
	 * constants): a few steps of wcon_first()'s scan find it in time
	 * linear in the cubes, where the search would branch bit by bit
	 * over every cube.  The scan is exact; only when it runs out does
	 * the search decide. */
	uint32_t x = lo;
	for (int step = 0; step < 4; step++) {
		uint32_t y;
		if (!cube_next(x, c->m, c->v, &y) || y > hi)
			return 0;
		x = y;
		const struct ne *hit = NULL;
		for (int k = 0; k < 2 && !hit; k++)
			for (const struct ne *n = k ? extra : c->ne; n && !hit; n = n->next)
				if ((x & n->m) == n->v)
					hit = n;
		if (!hit) {
			*out = x;
			return 1;
		}
		/* every value above x that keeps x's bits under the cube's
		 * mask is in the cube too */
		if (!cube_leave(x, hit->m, &y) || y > hi)
			return 0;
		x = y;
	}
	return sat(lo, hi, c->m, c->v, c->ne, extra, &budget, out);
}

/* The least value >= FROM of C and not in EXTRA's cubes, one bit at a
 * time from the top: of the two halves of each subtree the lower is taken
 * when wcon_any() finds a value there.  At most 64 questions. */
static int wcon_least(const struct wcon *c, const struct ne *extra, uint32_t from, uint32_t *out)
{
	uint32_t x, prefix = 0;
	int r = wcon_any(c, extra, from, 0xffffffffU, &x);
	if (r <= 0)
		return r;
	for (int b = 31; b >= 0; b--) {
		uint32_t span = b ? (1U << b) - 1 : 0;
		struct wcon half = *c;
		/* the lower child: bit b clear under the prefix so far */
		uint32_t top = b == 31 ? 0 : ~((1U << (b + 1)) - 1);
		half.m |= top | (1U << b);
		if ((c->m & (top | (1U << b))) & (c->v ^ prefix)) {
			prefix |= 1U << b;	/* the cube fixes the bit to 1 */
			continue;
		}
		half.v = (c->v & c->m & ~(top | (1U << b))) | prefix;
		uint32_t lo = prefix > from ? prefix : from, hi = prefix | span;
		r = lo <= hi ? wcon_any(&half, extra, lo, hi, &x) : 0;
		if (r < 0)
			return r;
		if (r == 0)
			prefix |= 1U << b;
	}
	*out = prefix;
	return 1;
}

/* Smallest value >= FROM in C that no cube of EXTRA holds either: 1
 * found, 0 none, -1 when even the exact search gave up. */
static int wcon_first_x(const struct wcon *c, const struct ne *extra, uint32_t from, uint32_t *out)
{
	/* A scan that skips cube by cube finds it at once in most sets;
	 * where it does not, the search by halves decides. */
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
	return wcon_least(c, extra, from, out);
}

int wcon_first(const struct wcon *c, uint32_t from, uint32_t *out)
{
	return wcon_first_x(c, NULL, from, out);
}

/* Whether no value is in both A and B (an undecided search says no). */
bool wcon_disjoint(const struct wcon *a, const struct wcon *b)
{
	struct wcon m = *a;
	uint32_t x;
	m.lo = a->lo > b->lo ? a->lo : b->lo;
	m.hi = a->hi < b->hi ? a->hi : b->hi;
	if (m.lo > m.hi || ((a->m & b->m) & (a->v ^ b->v)))
		return true;
	m.m |= b->m;
	m.v |= b->v;
	return wcon_any(&m, b->ne, 0, 0xffffffffU, &x) == 0;
}

/* The last value of the run of C's values that starts at X (in C). */
uint32_t wcon_run_end(const struct wcon *c, uint32_t x)
{
	uint32_t end = c->hi, y;
	if (cube_leave(x, c->m, &y) && y - 1 < end)
		end = y - 1;
	for (const struct ne *n = c->ne; n; n = n->next)
		if (cube_next(x, n->m, n->v, &y) && y - 1 < end)
			end = y - 1;
	return end;
}

bool wcon_feasible(const struct wcon *c)
{
	uint32_t x;
	/* An undecided search keeps the path: a path no call takes gives
	 * rules no call matches, which changes nothing. */
	return wcon_any(c, NULL, 0, 0xffffffffU, &x) != 0;
}

bool wcon_meets(const struct wcon *c, const struct piece *p)
{
	uint32_t x;
	switch (p->kind) {
	case P_RANGE:
		return p->a <= p->b && wcon_any(c, NULL, p->a, p->b, &x) != 0;
	case P_CUBE: {
		if ((c->m & p->a) & (c->v ^ p->b))
			return false;
		struct wcon m = *c;
		m.m |= p->a;
		m.v |= p->b;
		return wcon_any(&m, NULL, 0, 0xffffffffU, &x) != 0;
	}
	case P_NOT: {
		if (!p->a)
			return false;	/* (w & 0) != 0 never holds */
		/* the excluded cube as one more clause, on the stack */
		struct ne e = { p->a, p->b, NULL };
		return wcon_any(c, &e, 0, 0xffffffffU, &x) != 0;
	}
	default:
		return wcon_any(c, NULL, 0, 0xffffffffU, &x) != 0;
	}
}

/* Append C's values within [LO, HI] as disjoint intervals, tagged PATH. */
int wcon_intervals(const struct wcon *c, uint32_t lo, uint32_t hi, uint32_t path,
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

/* A new excluded pattern (M, V) in front of NEXT, from the arena's chunks; NULL without memory. */
static const struct ne *ne_push(struct wcon_arena *ar, const struct ne *next, uint32_t m, uint32_t v)
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

void wcon_arena_free(struct wcon_arena *ar)
{
	while (ar->head) {
		struct chunk *c = ar->head;
		ar->head = c->next;
		free(c);
	}
}

/* Restrict C by P.  Returns 1 when values remain, 0 when none do, or
 * -ENOMEM. */
int wcon_apply(struct wcon_arena *ar, struct wcon *c, const struct piece *p)
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

