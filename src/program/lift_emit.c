/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* Lifting: the rules, one per path and number. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "program/lift.h"

/* ----------------------------------------------------------------- emit */

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
int lift_word_alts(const struct wcon *c, bool split, struct alts *out, uint32_t **pts,
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

void lift_tmpls_free(struct tmpls *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->v[i].conds);
	free(t->v);
	memset(t, 0, sizeof(*t));
}

/* Rules saying path P on ABI AB (every path whose action is not the
 * default; a call no rule matches gets the default). */
int lift_path_rules(const struct abi *ab, const struct path *p, uint32_t pi, bool split,
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
			err = lift_word_alts(c, split || h, &alts[nw], &pts[nw], &npts[nw]);
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
/* A path that keeps a widened set from growing over it, and one word
 * (an index into relax()'s words) on which the set is apart from it. */
struct blocker {
	const struct path *o;
	uint32_t apart;
	/* k + 1 when, widening word k, no other word was found apart:
	 * true for every try at word k, the other words staying put */
	uint32_t stuck;
};

/* Whether A and B are apart by their intervals or cubes alone, which
 * costs no search.  False says nothing. */
static inline bool apart_bounds(const struct wcon *a, const struct wcon *b)
{
	return (a->lo > b->lo ? a->lo : b->lo) > (a->hi < b->hi ? a->hi : b->hi) ||
	       ((a->m & b->m) & (a->v ^ b->v));
}

/* The same, or a single value of one that the other lacks. */
static bool apart_plainly(const struct wcon *a, const struct wcon *b)
{
	if (apart_bounds(a, b))
		return true;
	if (a->lo == a->hi)
		return !wcon_has(a, a->lo) || !wcon_has(b, a->lo);
	if (b->lo == b->hi)
		return !wcon_has(a, b->lo) || !wcon_has(b, b->lo);
	return false;
}

/* A word of WORDS[0..NW) other than SKIP on which OUT is apart from O, or
 * NW when there is none. */
static uint32_t apart_word(const struct path *out, const struct path *o, const uint32_t *words,
			   uint32_t nw, uint32_t skip, uint64_t *steps)
{
	/* Paths that parted at a jump on a constant are apart on its word
	 * plainly; most pairs are found so before any word is searched.
	 * Any word apart will do: relax() asks whether one is, not which. */
	for (uint32_t i = 0; i < nw; i++) {
		if (i == skip)
			continue;
		++*steps;
		if (apart_plainly(&out->w[words[i]], &o->w[words[i]]))
			return i;
	}
	for (uint32_t i = 0; i < nw; i++) {
		if (i == skip)
			continue;
		*steps += LIFT_SEARCH_STEPS;
		if (wcon_disjoint(&out->w[words[i]], &o->w[words[i]]))
			return i;
	}
	return nw;
}

static void relax(const struct walker *L, const struct abi *ab, const uint32_t *idx, uint32_t n,
		  uint32_t pi, uint32_t d, bool d_rules, bool disjoint, struct blocker *bk,
		  uint64_t *steps, struct path *out)
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
	/* Each blocker with one word the set is apart from it on: widening
	 * another word cannot bring them together, so a widening is tested
	 * only against the blockers apart on the widened word, and a new
	 * word is looked for only when that one is lost.  Testing every
	 * blocker on every word for every widening made the lifts of issue
	 * #24's argument-heavy programs take tens of seconds. */
	size_t nb = 0;
	for (uint32_t q = 0; q < n; q++) {
		const struct path *o = &L->paths[idx[q]];
		/* Under the runtimes' reading (libseccomp's order of
		 * comparisons, not the most restrictive match) only rules
		 * apart from every other action's mean what they say. */
		bool blocks = (o->ret == d && !d_rules) || scmpc_action_cmp(o->ret, p->ret) > 0 ||
			      (disjoint && o->ret != p->ret);
		if (q == pi || !blocks)
			continue;
		/* a word whose interval or cube keeps it apart (most are,
		 * nothing searched), else one a search finds */
		uint32_t a = 0;
		while (a < nw && (++*steps, !apart_bounds(&p->w[words[a]], &o->w[words[a]])))
			a++;
		if (a == nw)
			a = apart_word(out, o, words, nw, nw, steps);
		bk[nb] = (struct blocker){ o, a, 0 };
		/* apart on no word these rules can test: no widening holds */
		if (bk[nb++].apart == nw)
			return;
	}
	uint32_t widened = 0;	/* words no longer as the path has them */
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
			for (size_t b = 0; b < nb && ok; b++) {
				/* apart on another word, or still on this one;
				 * a blocker apart on none is not apart at all
				 * (only a path of the same calls is) and stops
				 * every widening, as it always did */
				if (bk[b].apart != k)
					continue;
				*steps += LIFT_SEARCH_STEPS;
				if (wcon_disjoint(&out->w[w], &bk[b].o->w[w]))
					continue;
				if (bk[b].stuck == k + 1) {
					ok = false;
					break;
				}
				/* a word not widened yet is as the path has it:
				 * its interval or cube first, no search */
				uint32_t j = 0;
				while (j < nw && (j == k || (widened & (1U << j)) ||
						  (++*steps, !apart_bounds(&p->w[words[j]],
									   &bk[b].o->w[words[j]]))))
					j++;
				if (j < nw) {
					bk[b].apart = j;
					continue;
				}
				bk[b].apart = apart_word(out, bk[b].o, words, nw, k, steps);
				ok = bk[b].apart < nw;
				if (!ok) {
					bk[b].apart = k;	/* the kept value is apart there */
					bk[b].stuck = k + 1;
				}
			}
			if (ok) {
				widened |= 1U << k;
				break;
			}
			out->w[w] = keep;
		}
	}
}

/* A template's action and conditions, hashed field by field, not over the
 * bytes: struct scmpc_cond has tail padding, which the compound literals
 * that fill it leave as whatever the heap held, so that the dedup
 * depended on the allocator's history and one policy lifted to different
 * rule lists from run to run.  A multiply per field, not per byte: the
 * hash was 41% of a lift of issue #24's 3,611-instruction program. */
static uint64_t mix(uint64_t h, uint64_t x)
{
	h = (h ^ x) * 0x9e3779b97f4a7c15ULL;
	return h ^ (h >> 32);
}

uint64_t tmpl_hash(const struct tmpl *t, unsigned skip)
{
	uint64_t h = mix(t->action, 0);
	for (size_t i = 0; i < t->nconds; i++) {
		const struct scmpc_cond *c = &t->conds[i];
		if (c->arg == skip)
			continue;
		h = mix(h, (uint64_t)c->arg << 40 | (uint64_t)c->op << 32 | c->flags);
		h = mix(mix(h, c->value), c->value2);
	}
	return h;
}

bool tmpl_same(const struct tmpl *a, const struct tmpl *b, unsigned skip)
{
	if (a->action != b->action)
		return false;
	size_t i = 0, j = 0;
	for (;;) {
		while (i < a->nconds && a->conds[i].arg == skip)
			i++;
		while (j < b->nconds && b->conds[j].arg == skip)
			j++;
		if (i == a->nconds || j == b->nconds)
			return i == a->nconds && j == b->nconds;
		const struct scmpc_cond *x = &a->conds[i++], *y = &b->conds[j++];
		if (x->arg != y->arg || x->op != y->op || x->value != y->value ||
		    x->value2 != y->value2 || x->flags != y->flags)
			return false;
	}
}

/* The templates kept so far, by hash: indices + 1 into T (0: empty), a
 * power of two of slots at most half full. */
struct tmpl_set {
	uint32_t *slot;
	size_t cap, n;
};

/* Whether T->v[K] is in S, or when ADD, put it there: 1 found, 0 not
 * (added), -ENOMEM. */
static int tmpl_set_find(struct tmpl_set *s, const struct tmpls *t, size_t k, bool add)
{
	if (add && 2 * (s->n + 1) > s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 256;
		uint32_t *slot = calloc(cap, sizeof(*slot));
		if (!slot)
			return -ENOMEM;
		for (size_t i = 0; i < s->cap; i++)
			if (s->slot[i]) {
				size_t h = (size_t)tmpl_hash(&t->v[s->slot[i] - 1], TMPL_ALL) & (cap - 1);
				while (slot[h])
					h = (h + 1) & (cap - 1);
				slot[h] = s->slot[i];
			}
		free(s->slot);
		s->slot = slot;
		s->cap = cap;
	}
	if (!s->cap)
		return 0;
	for (size_t h = (size_t)tmpl_hash(&t->v[k], TMPL_ALL) & (s->cap - 1);; h = (h + 1) & (s->cap - 1)) {
		if (!s->slot[h]) {
			if (add) {
				s->slot[h] = (uint32_t)k + 1;
				s->n++;
			}
			return 0;
		}
		if (tmpl_same(&t->v[s->slot[h] - 1], &t->v[k], TMPL_ALL))
			return 1;
	}
}

/* Whether A excludes every value of the cube (w & M) == V, without a
 * search: false says nothing. */
static bool wcon_misses(const struct wcon *a, uint32_t m, uint32_t v)
{
	if ((a->m & m) & (a->v ^ v))
		return true;	/* A's cube is elsewhere */
	uint32_t low = m & (0U - m);
	if (m && m + low == 0 && (a->hi < v || a->lo > v + (low - 1)))
		return true;	/* the cube is an interval A's misses */
	for (const struct ne *n = a->ne; n; n = n->next)
		if (!(n->m & ~m) && (v & n->m) == n->v)
			return true;	/* A excludes a cube holding it */
	return false;
}

/*
 * Whether every value of A is in B: false when a search is undecided.  A
 * is a path's set and B one relax() widened from a path of the same
 * number (an interval, a cube and excluded cubes, or part of these), so
 * that they share bounds, cubes and excluded cubes mostly, which answer
 * without a search; a search (wcon_meets(), which says yes when it cannot
 * tell) costs LIFT_SEARCH_STEPS.
 */
static bool wcon_within(const struct wcon *a, const struct wcon *b, uint64_t *steps)
{
	if (wcon_trivial(b))
		return true;
	if (a->lo == a->hi)
		return wcon_has(b, a->lo);
	struct piece out[2] = { { P_RANGE, 0, b->lo - 1 }, { P_RANGE, b->hi + 1, 0xffffffffU } };
	for (int i = 0; i < 2; i++) {
		if (i == 0 ? a->lo >= b->lo : a->hi <= b->hi)
			continue;
		*steps += LIFT_SEARCH_STEPS;
		if (wcon_meets(a, &out[i]))
			return false;
	}
	/* A's cube fixes every bit B's fixes, as B fixes it; else a value
	 * of A outside B's cube is searched for. */
	if ((b->m & ~a->m) || ((a->v ^ b->v) & b->m)) {
		*steps += LIFT_SEARCH_STEPS;
		if (wcon_meets(a, &(struct piece){ P_NOT, b->m, b->v }))
			return false;
	}
	for (const struct ne *n = b->ne; n; n = n->next) {
		if (wcon_misses(a, n->m, n->v))
			continue;
		*steps += LIFT_SEARCH_STEPS;
		if (wcon_meets(a, &(struct piece){ P_CUBE, n->m, n->v }))
			return false;
	}
	return true;
}

/* Whether the rules of W, widened from a path of ABI AB, match every call
 * of path P: on every word a rule tests. */
static bool path_within(const struct abi *ab, const struct path *p, const struct path *w,
			uint64_t *steps)
{
	for (unsigned a = 0; a < 6; a++)
		for (int h = 0; h < 2; h++) {
			unsigned k = arg_word(a, h, ab->info->big_endian);
			if (!(h && ab->info->compat32) && !wcon_within(&p->w[k], &w->w[k], steps))
				return false;
		}
	return true;
}

/* The rules of the paths IDX[0..N) into T, the default's paths with rules
 * of their own when D_RULES. */
static int set_tmpls(struct emitter *e, const struct abi *ab, const uint32_t *idx, uint32_t n,
		     uint32_t nr, bool d_rules, struct tmpls *t)
{
	struct blocker *bk = malloc((n ? n : 1) * sizeof(*bk));
	struct tmpl_set seen = { 0 };
	struct path *wide = NULL;	/* the widened paths so far */
	size_t nwide = 0, capwide = 0;
	if (!bk)
		return diag_err(e->L->d, -ENOMEM, NULL, "out of memory");
	int ret = 0;
	for (uint32_t i = 0; i < n && !ret; i++) {
		if (e->L->paths[idx[i]].ret == e->D && !d_rules)
			continue;
		if (e->relax_steps > LIFT_MAX_STEPS) {
			ret = diag_err(e->L->d, -E2BIG, NULL, "on %s, nr %#x: the program's paths "
				       "are too many to say as rules within the lifter's bound of "
				       "%llu steps (%u paths for this number)", ab->info->name, nr,
				       (unsigned long long)LIFT_MAX_STEPS, n);
			break;
		}
		/* A path the rules of an earlier widened path of its action
		 * already match needs none: those rules give it its action,
		 * and no rule of a more restrictive one reaches it (it blocks
		 * their widening).  Widened sets are few, mostly the source
		 * policy's rules, where paths per number run into thousands:
		 * relaxing each of them against all was quadratic in them. */
		const struct path *p = &e->L->paths[idx[i]];
		bool covered = false;
		for (size_t k = 0; k < nwide && !covered; k++) {
			e->relax_steps++;
			covered = wide[k].ret == p->ret &&
				  path_within(ab, p, &wide[k], &e->relax_steps);
		}
		if (covered)
			continue;
		if (!array_reserve(&wide, &capwide, nwide, sizeof(*wide), 16)) {
			ret = diag_err(e->L->d, -ENOMEM, NULL, "out of memory");
			break;
		}
		relax(e->L, ab, idx, n, i, e->D, d_rules, e->disjoint, bk, &e->relax_steps,
		      &wide[nwide]);
		size_t mark = t->n;
		int err = lift_path_rules(ab, &wide[nwide], idx[i], false, t);
		if (err == -ERANGE) {
			while (t->n > mark)
				free(t->v[--t->n].conds);
			err = lift_path_rules(ab, &wide[nwide], idx[i], true, t);
		}
		nwide++;
		if (err == -E2BIG || err == -ERANGE) {
			ret = walk_err(e->L, -ENOTSUP, p->prog, p->insn,
				       "on %s, the arguments that lead to this return for nr %#x "
				       "split into more than %d rules of at most 64 conditions",
				       ab->info->name, nr, MAX_ALTS);
			break;
		}
		if (err < 0) {
			ret = diag_err(e->L->d, err, NULL, "out of memory");
			break;
		}
		/* Widened paths of one action can say the same: once.  By
		 * hash: comparing each with every earlier one was quadratic in
		 * the rules, seconds on issue #24's argument-heavy lifts. */
		for (size_t k = mark; k < t->n;) {
			int dup = tmpl_set_find(&seen, t, k, false);
			if (!dup) {
				k++;
				continue;
			}
			free(t->v[k].conds);
			t->v[k] = t->v[--t->n];
		}
		for (size_t k = mark; k < t->n && !ret; k++)
			if (tmpl_set_find(&seen, t, k, true) < 0)
				ret = diag_err(e->L->d, -ENOMEM, NULL, "out of memory");
	}
	free(seen.slot);
	free(wide);
	free(bk);
	return ret;
}

/*
 * The rules per action of the paths IDX[0..N) on AB, as the emitter
 * writes them with rules for every action (which no default changes):
 * the paths that widened rules of an earlier path match counted out.
 * Counting paths instead weighed a number's "no rule matched" paths (the
 * complement of its rules, thousands on issue #24's argument-heavy
 * programs, few of which merge) like its rules' paths (which merge into
 * about the source policy's rules), and chose defaults that left the
 * complement to be said as rules.  The steps go to *STEPS, the lifter's
 * bound.  DISJOINT: widened as SCMPC_LIFT_NAMED asks (struct emitter).
 */
int lift_weigh(struct walker *L, const struct abi *ab, const uint32_t *idx, uint32_t n,
	       uint32_t nr, bool disjoint, uint64_t *steps, struct retw **out, size_t *nout,
	       struct tmpls *all)
{
	struct emitter e = { .L = L, .disjoint = disjoint, .relax_steps = *steps };
	struct tmpls t = { 0 };
	size_t cap = 0;
	int err = set_tmpls(&e, ab, idx, n, nr, true, &t);
	*steps = e.relax_steps;
	for (size_t i = 0; i < t.n && !err; i++) {
		size_t k = 0;
		while (k < *nout && (*out)[k].ret != t.v[i].action)
			k++;
		if (k == *nout) {
			if (!array_reserve(out, &cap, *nout, sizeof(**out), 4)) {
				err = diag_err(L->d, -ENOMEM, NULL, "out of memory");
				break;
			}
			(*out)[(*nout)++] = (struct retw){ t.v[i].action, 0 };
		}
		(*out)[k].rules++;
	}
	if (err < 0)
		lift_tmpls_free(&t);
	*all = t;
	return err;
}

static size_t tmpls_conds(const struct tmpls *t)
{
	size_t n = 0;
	for (size_t i = 0; i < t->n; i++)
		n += t->v[i].nconds;
	return n;
}

/* A copy of T, into *OUT (empty). */
static int tmpls_copy(const struct tmpls *t, struct tmpls *out)
{
	if (!t->n)
		return 0;
	out->v = calloc(t->n, sizeof(*out->v));
	if (!out->v)
		return -ENOMEM;
	out->cap = t->n;
	for (size_t i = 0; i < t->n; i++) {
		struct tmpl x = t->v[i];
		x.conds = malloc((x.nconds ? x.nconds : 1) * sizeof(*x.conds));
		if (!x.conds) {
			lift_tmpls_free(out);
			return -ENOMEM;
		}
		if (x.nconds)
			memcpy(x.conds, t->v[i].conds, x.nconds * sizeof(*x.conds));
		out->v[out->n++] = x;
	}
	return 0;
}

/* The rules for a number of the segment KEY, made once per segment: with
 * or without rules for the default's paths, whichever says it in fewer
 * rules (then conditions). */
static int emitter_tmpls(struct emitter *e, const struct abi *ab, const void *key,
			 const struct tmpls *all, const struct abi *all_ab, const uint32_t *idx,
			 uint32_t n, uint32_t nr)
{
	if (e->key == key)
		return 0;
	lift_tmpls_free(&e->t);
	e->key = NULL;
	int err = lift_dep_check(e->L, ab, idx, n, nr);
	if (err < 0)
		return err;
	struct tmpls alt = { 0 };
	if ((err = set_tmpls(e, ab, idx, n, nr, false, &e->t)) < 0)
		return err;
	if (all_ab == ab) {
		/* lift_weigh() wrote these already, on this ABI */
		if ((err = tmpls_copy(all, &alt)) < 0)
			return diag_err(e->L->d, err, NULL, "out of memory");
	} else if ((err = set_tmpls(e, ab, idx, n, nr, true, &alt)) < 0) {
		lift_tmpls_free(&alt);
		return err;
	}
	/* Each joined before they are weighed: the word-by-word rules of a
	 * 64-bit comparison cost the program more than the one rule.  The
	 * smaller first; the other only when a join could make it win (one
	 * joins a few rules into one: four to one where two arguments are
	 * split): issue #24's 3,611 instructions have a number of 39 rules
	 * against 150,674, whose join was a third of the lift. */
	struct tmpls *small = alt.n < e->t.n ? &alt : &e->t, *large = small == &alt ? &e->t : &alt;
	if ((err = lift_join(small)) < 0 ||
	    (large->n <= 4 * small->n && (err = lift_join(large)) < 0)) {
		lift_tmpls_free(&alt);
		return diag_err(e->L->d, err, NULL, "out of memory");
	}
	if (alt.n < e->t.n || (alt.n == e->t.n && tmpls_conds(&alt) < tmpls_conds(&e->t))) {
		lift_tmpls_free(&e->t);
		e->t = alt;
	} else {
		lift_tmpls_free(&alt);
	}
	e->key = key;
	return 0;
}

/* Add one rule of a path to the lifted policy, its origin naming the path's return. */
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

static int emit_set(struct emitter *e, struct abi *ab, const void *key, const struct tmpls *all,
		    const struct abi *all_ab, bool dep, uint32_t ret, const uint32_t *idx,
		    uint32_t n, uint32_t nr)
{
	if (!dep)
		return emit_rule(e, ab, nr, ret, NULL, 0, idx[0]);
	int err = emitter_tmpls(e, ab, key, all, all_ab, idx, n, nr);
	for (size_t i = 0; i < e->t.n && !err; i++)
		err = emit_rule(e, ab, nr, e->t.v[i].action, e->t.v[i].conds, e->t.v[i].nconds,
				e->t.v[i].path);
	return err;
}

int lift_emit_numbers(struct emitter *e, struct abi *ab, const struct seg *s, uint32_t lo,
			uint32_t hi)
{
	for (uint64_t nr = lo; nr <= hi; nr++) {
		int err = emit_set(e, ab, s, &s->all, s->all_ab, s->dep, s->ret, &ab->idx[s->first],
				   s->n, (uint32_t)nr);
		if (err < 0)
			return err;
	}
	return 0;
}

int lift_emit_m1(struct emitter *e, struct abi *ab, const struct dec *m1)
{
	return emit_set(e, ab, m1, &m1->all, m1->all_ab, m1->dep, m1->ret, &ab->idx[m1->first],
			m1->n, 0xffffffffU);
}

int lift_emit_name(struct emitter *e, struct abi *ab, uint32_t nr)
{
	for (size_t j = 0; j < ab->nsegs; j++)
		if (ab->segs[j].lo <= nr && nr <= ab->segs[j].hi)
			return emit_rule(e, ab, nr, e->D, NULL, 0, ab->idx[ab->segs[j].first]);
	return 0;
}

