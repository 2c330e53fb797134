/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Lifting: rules of one number that differ on one argument only, joined.
 *
 * The lifter says a path word by word (lift_emit.c): `a1 > 0x100000005` comes
 * out as two rules (`hi > 1`; `hi == 1 && lo > 5`), `a1 != 5` as two
 * (`hi >= 1`; `lo != 5`), a range across high words as three.  Compiled, each
 * rule pays its own tests: issue #24's lifted policies of 950-1,800 rules came
 * out at 4,400-8,000 instructions, past the kernel's 4096, from programs of
 * 2,700-4,100.  Rules of one action whose other conditions are the same match
 * the union of their sets on the argument left: when that union is an
 * interval of the 64-bit value, less at most one point, it is one rule.  A
 * rule's set of that shape is said as 64-bit comparisons whether joined or
 * not, as a policy says it, so that rules of one argument share tests.
 *
 * Near-linear: the rules are sorted by a hash of all but the argument and by
 * where their set starts, and each run of equal rests is swept once; an
 * earlier join that tried every pair was too slow.  Exact: a union is taken
 * only where it is the one set said, and the lifted policy is checked against
 * the program afterwards (lift_check.c) as before.
 */
#include <stdlib.h>
#include <string.h>
#include "program/lift.h"

#define LOW32 0xffffffffULL

/* A set of one argument's 64-bit values.  IV: [lo, hi], less the point pt
 * when has_pt (lo < pt < hi).  PROD: high words [hl, hh] (more than one, or
 * with a point out) by low words [ll, lh], less the low word pt when has_pt.
 * NONE: a set this file does not join. */
struct set64 {
	enum { S_NONE, S_IV, S_PROD } kind;
	bool has_pt;
	uint64_t lo, hi, pt;
	uint32_t hl, hh, ll, lh;
};

static const struct set64 set_none = { .kind = S_NONE };

static uint64_t max64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}
static uint64_t min64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* An interval less a point, the point dropped where it is outside and
 * the interval shrunk where it is an end. */
static struct set64 iv(uint64_t lo, uint64_t hi, bool has_pt, uint64_t pt)
{
	if (has_pt && (pt < lo || pt > hi))
		has_pt = false;
	if (has_pt && lo == hi)
		return set_none;	/* empty: never a rule's set */
	if (has_pt && pt == lo) {
		lo++;
		has_pt = false;
	} else if (has_pt && pt == hi) {
		hi--;
		has_pt = false;
	}
	return (struct set64){ .kind = S_IV, .lo = lo, .hi = hi, .has_pt = has_pt,
			       .pt = has_pt ? pt : 0 };
}

/* High words [HL, HH] by low words [LL, LH] less PT: an interval when it
 * is one high word or every low word. */
static struct set64 prod(uint32_t hl, uint32_t hh, uint32_t ll, uint32_t lh, bool has_pt,
			 uint32_t pt)
{
	if (has_pt && (pt < ll || pt > lh))
		has_pt = false;
	if (hl == hh)
		return iv((uint64_t)hl << 32 | ll, (uint64_t)hl << 32 | lh, has_pt,
			  (uint64_t)hl << 32 | pt);
	if (!has_pt && ll == 0 && lh == UINT32_MAX)
		return iv((uint64_t)hl << 32, (uint64_t)hh << 32 | LOW32, false, 0);
	return (struct set64){ .kind = S_PROD, .hl = hl, .hh = hh, .ll = ll, .lh = lh,
			       .has_pt = has_pt, .pt = pt };
}

/* Where S starts: the sweep's order. */
static uint64_t set_start(const struct set64 *s)
{
	return s->kind == S_PROD ? (uint64_t)s->hl << 32 | s->ll : s->lo;
}

/* The set conditions C[0..N) (all on one argument) say, as the lifter
 * writes them: 64-bit bounds and high-word equalities with 32-bit bounds,
 * equalities and one `!=` of the low word, or with one 64-bit `!=` (as
 * conds_of() writes a set joined in an earlier round). */
static struct set64 set_of(const struct scmpc_cond *c, size_t n)
{
	uint64_t lo = 0, hi = UINT64_MAX;
	uint32_t ll = 0, lh = UINT32_MAX;
	bool low = false, has_pt = false, has_pt64 = false;
	uint32_t pt = 0;
	uint64_t pt64 = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t v = c[i].value;
		if (c[i].flags & SCMPC_COND_32BIT) {
			low = true;
			if (v > UINT32_MAX)
				return set_none;
			uint32_t w = (uint32_t)v;
			switch (c[i].op) {
			case SCMPC_OP_EQ:
				ll = ll > w ? ll : w;
				lh = lh < w ? lh : w;
				break;
			case SCMPC_OP_GE:
				ll = ll > w ? ll : w;
				break;
			case SCMPC_OP_LE:
				lh = lh < w ? lh : w;
				break;
			case SCMPC_OP_NE:
				if (has_pt)
					return set_none;
				has_pt = true;
				pt = w;
				break;
			default:
				return set_none;
			}
			continue;
		}
		switch (c[i].op) {
		case SCMPC_OP_EQ:
			lo = max64(lo, v);
			hi = min64(hi, v);
			break;
		case SCMPC_OP_GE:
			lo = max64(lo, v);
			break;
		case SCMPC_OP_LE:
			hi = min64(hi, v);
			break;
		case SCMPC_OP_NE:
			/* one, as conds_of() writes it */
			if (has_pt64)
				return set_none;
			has_pt64 = true;
			pt64 = v;
			break;
		case SCMPC_OP_MASKED_EQ:
			/* a high word's value, as lift_emit.c says it */
			if (v != ~LOW32)
				return set_none;
			lo = max64(lo, c[i].value2 & ~LOW32);
			hi = min64(hi, (c[i].value2 & ~LOW32) | LOW32);
			break;
		default:
			return set_none;
		}
	}
	if (lo > hi || ll > lh || (has_pt64 && low))
		return set_none;
	if (!low)
		return iv(lo, hi, has_pt64, pt64);
	/* with low-word conditions, whole high words only */
	if ((lo & LOW32) || (hi & LOW32) != LOW32)
		return set_none;
	return prod((uint32_t)(lo >> 32), (uint32_t)(hi >> 32), ll, lh, has_pt, pt);
}

/* Part of a set: high words [HL, HH] by the low words of N intervals. */
struct piece64 {
	uint32_t hl, hh;
	uint32_t lo[2][2];
	unsigned n;
};

/* High words [HL, HH] by low words [LL, LH] less PT (when HAS_PT), into
 * OUT[*N..]: a piece per run of high words alike. */
static void add_pieces(uint32_t hl, uint32_t hh, uint32_t ll, uint32_t lh, bool has_pt,
		       uint32_t pt, struct piece64 *out, size_t *n)
{
	struct piece64 p = { hl, hh, { { ll, lh } }, 1 };
	if (has_pt && pt >= ll && pt <= lh) {
		p.n = 0;
		if (pt > ll)
			p.lo[p.n][0] = ll, p.lo[p.n][1] = pt - 1, p.n++;
		if (pt < lh)
			p.lo[p.n][0] = pt + 1, p.lo[p.n][1] = lh, p.n++;
	}
	if (p.n)
		out[(*n)++] = p;
}

/* S as pieces (at most five) into OUT[*N..]. */
static void set_pieces(const struct set64 *s, struct piece64 *out, size_t *n)
{
	if (s->kind == S_PROD) {
		add_pieces(s->hl, s->hh, s->ll, s->lh, s->has_pt, s->pt, out, n);
		return;
	}
	uint32_t h0 = (uint32_t)(s->lo >> 32), h1 = (uint32_t)(s->hi >> 32);
	uint32_t l0 = (uint32_t)s->lo, l1 = (uint32_t)s->hi;
	uint32_t ph = (uint32_t)(s->pt >> 32), pl = (uint32_t)s->pt;
	if (h0 == h1) {
		add_pieces(h0, h0, l0, l1, s->has_pt, pl, out, n);
		return;
	}
	add_pieces(h0, h0, l0, UINT32_MAX, s->has_pt && ph == h0, pl, out, n);
	if (h1 - h0 >= 2) {
		/* the whole high words between, the point's cut out */
		if (s->has_pt && ph > h0 && ph < h1) {
			if (ph > h0 + 1)
				add_pieces(h0 + 1, ph - 1, 0, UINT32_MAX, false, 0, out, n);
			add_pieces(ph, ph, 0, UINT32_MAX, true, pl, out, n);
			if (ph < h1 - 1)
				add_pieces(ph + 1, h1 - 1, 0, UINT32_MAX, false, 0, out, n);
		} else {
			add_pieces(h0 + 1, h1 - 1, 0, UINT32_MAX, false, 0, out, n);
		}
	}
	add_pieces(h1, h1, 0, l1, s->has_pt && ph == h1, pl, out, n);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

static int cmp_lo(const void *a, const void *b)
{
	const uint32_t *x = a, *y = b;
	return (x[0] > y[0]) - (x[0] < y[0]);
}

/* The 64-bit interval [LO, HI] after the intervals IV[0..*N) (in order),
 * joined to the last where they touch; false past three (no join then). */
static bool iv_push(uint64_t (*iv)[2], size_t *n, uint64_t lo, uint64_t hi)
{
	if (*n && iv[*n - 1][1] != UINT64_MAX && iv[*n - 1][1] + 1 >= lo) {
		iv[*n - 1][1] = max64(iv[*n - 1][1], hi);
		return true;
	}
	if (*n == 3)
		return false;
	iv[*n][0] = lo;
	iv[(*n)++][1] = hi;
	return true;
}

/*
 * The union of S[0..N) as one set (an interval less at most one point),
 * or NONE.  The sets are cut into pieces (high words by low-word
 * intervals); between each two ends of pieces' high words the low words of
 * the pieces there are joined, and the 64-bit intervals they make, in
 * order, must join into one, or two a single value apart.  PC and BP are
 * the caller's, room for 5 * N pieces and twice their ends, LW for 10 * N
 * low-word intervals.
 */
static struct set64 set_union(const struct set64 *s, size_t n, struct piece64 *pc, uint64_t *bp,
			      uint32_t (*lw)[2])
{
	size_t np = 0, nb = 0, niv = 0;
	uint64_t iv64[3][2];
	for (size_t i = 0; i < n; i++)
		set_pieces(&s[i], pc, &np);
	for (size_t i = 0; i < np; i++) {
		bp[nb++] = pc[i].hl;
		bp[nb++] = (uint64_t)pc[i].hh + 1;
	}
	qsort(bp, nb, sizeof(*bp), cmp_u64);
	for (size_t b = 0; b + 1 < nb; b++) {
		if (bp[b] == bp[b + 1])
			continue;
		uint32_t h0 = (uint32_t)bp[b], h1 = (uint32_t)(bp[b + 1] - 1);
		size_t nl = 0;
		for (size_t i = 0; i < np; i++)
			if (pc[i].hl <= h0 && pc[i].hh >= h1)
				for (unsigned k = 0; k < pc[i].n; k++) {
					lw[nl][0] = pc[i].lo[k][0];
					lw[nl++][1] = pc[i].lo[k][1];
				}
		if (!nl)
			continue;
		qsort(lw, nl, sizeof(*lw), cmp_lo);
		/* the low words joined where they touch */
		size_t m = 0;
		for (size_t i = 1; i < nl; i++) {
			if (lw[m][1] == UINT32_MAX || lw[m][1] + 1 >= lw[i][0]) {
				if (lw[i][1] > lw[m][1])
					lw[m][1] = lw[i][1];
			} else {
				lw[++m][0] = lw[i][0];
				lw[m][1] = lw[i][1];
			}
		}
		nl = m + 1;
		/* several high words with part of their low words: a gap
		 * per word, unless there are two of them at most */
		if (h0 != h1 && !(nl == 1 && lw[0][0] == 0 && lw[0][1] == UINT32_MAX) &&
		    h1 - h0 > 1)
			return set_none;
		for (uint64_t h = h0; h <= h1; h++) {
			bool whole = nl == 1 && lw[0][0] == 0 && lw[0][1] == UINT32_MAX;
			if (whole) {
				if (!iv_push(iv64, &niv, h << 32, (uint64_t)h1 << 32 | LOW32))
					return set_none;
				break;
			}
			for (size_t i = 0; i < nl; i++)
				if (!iv_push(iv64, &niv, h << 32 | lw[i][0], h << 32 | lw[i][1]))
					return set_none;
		}
	}
	if (niv == 1)
		return iv(iv64[0][0], iv64[0][1], false, 0);
	if (niv == 2 && iv64[0][1] + 2 == iv64[1][0])
		return iv(iv64[0][0], iv64[1][1], true, iv64[0][1] + 1);
	return set_none;
}

/* The conditions on argument ARG saying interval S (at most three) into
 * OUT; how many. */
static size_t conds_of(const struct set64 *s, unsigned arg, struct scmpc_cond *out)
{
	size_t n = 0;
	if (s->lo == s->hi) {
		out[n++] = (struct scmpc_cond){ .arg = arg, .op = SCMPC_OP_EQ, .value = s->lo };
		return n;
	}
	if (s->lo)
		out[n++] = (struct scmpc_cond){ .arg = arg, .op = SCMPC_OP_GE, .value = s->lo };
	if (s->hi != UINT64_MAX)
		out[n++] = (struct scmpc_cond){ .arg = arg, .op = SCMPC_OP_LE, .value = s->hi };
	if (s->has_pt)
		out[n++] = (struct scmpc_cond){ .arg = arg, .op = SCMPC_OP_NE, .value = s->pt };
	return n;
}

struct member {
	uint64_t hash, start;
	size_t at;		/* index into the templates */
	size_t first;		/* its first condition on the argument */
	struct set64 set;
};

static int cmp_member(const void *a, const void *b)
{
	const struct member *x = a, *y = b;
	if (x->hash != y->hash)
		return x->hash < y->hash ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->at > y->at) - (x->at < y->at);
}

/* Template T's conditions on ARG replaced by those saying S, in place of
 * the first of them (the lifter writes an argument's conditions together,
 * in the order of the arguments). */
static int tmpl_set_arg(struct tmpl *t, unsigned arg, const struct set64 *s)
{
	struct scmpc_cond *c = malloc((t->nconds + 3) * sizeof(*c));
	if (!c)
		return -ENOMEM;
	size_t n = 0;
	bool put = false;
	for (size_t i = 0; i < t->nconds; i++) {
		if (t->conds[i].arg != arg) {
			if (!put && t->conds[i].arg > arg) {
				n += conds_of(s, arg, c + n);
				put = true;
			}
			c[n++] = t->conds[i];
		}
	}
	if (!put)
		n += conds_of(s, arg, c + n);
	free(t->conds);
	t->conds = c;
	t->nconds = n;
	return 0;
}

/* Room for set_union() on at most RUN_MAX sets. */
#define RUN_MAX 64
struct scratch {
	struct piece64 pc[5 * RUN_MAX];
	uint64_t bp[10 * RUN_MAX];
	uint32_t lw[10 * RUN_MAX][2];
	struct set64 sets[RUN_MAX];
};

/* Template T's conditions on ARG, from K on, say S as conds_of() does. */
static bool said_so(const struct tmpl *t, size_t k, unsigned arg, const struct set64 *s)
{
	struct scmpc_cond c[3];
	size_t n = conds_of(s, arg, c), i = 0;
	for (; k < t->nconds && t->conds[k].arg == arg; k++, i++) {
		const struct scmpc_cond *x = &t->conds[k];
		if (i == n || x->op != c[i].op || x->value != c[i].value || x->flags ||
		    x->value2 != c[i].value2)
			return false;
	}
	return i == n;
}

/* Rules M[0..N) (equal but on ARG) joined where their union is one set:
 * all of them at once when there are at most RUN_MAX (three word by word
 * rules may make one interval where no two of them do), else (or failing
 * that) each into the one before, in the order their sets start, while
 * the union is one set.  The rules joined into others are marked in GONE
 * and counted in *JOINED.  Every rule left whose set is an interval (less
 * a point) says it as 64-bit comparisons, joined or not: the words said
 * apart (`hi == 0 && lo <= 5` for `a <= 5`) compiled to 8-11% more
 * instructions on issue #24's lifted policies, tests the compiler shares
 * between rules of one argument said alike. */
static int join_run(struct tmpls *t, unsigned arg, struct member *m, size_t n, bool *gone,
		    size_t *joined, struct scratch *sc)
{
	struct set64 u = set_none;
	if (n >= 2 && n <= RUN_MAX) {
		for (size_t i = 0; i < n; i++)
			sc->sets[i] = m[i].set;
		u = set_union(sc->sets, n, sc->pc, sc->bp, sc->lw);
	}
	if (u.kind == S_IV) {
		m[0].set = u;
		for (size_t i = 1; i < n; i++)
			gone[m[i].at] = true;
		*joined += n - 1;
	} else {
		for (size_t acc = 0, i = 1; i < n; i++) {
			struct set64 two[2] = { m[acc].set, m[i].set };
			u = set_union(two, 2, sc->pc, sc->bp, sc->lw);
			if (u.kind != S_IV) {
				acc = i;
				continue;
			}
			m[acc].set = u;
			gone[m[i].at] = true;
			++*joined;
		}
	}
	for (size_t i = 0; i < n; i++) {
		const struct tmpl *x = &t->v[m[i].at];
		if (gone[m[i].at] || m[i].set.kind != S_IV ||
		    said_so(x, m[i].first, arg, &m[i].set))
			continue;
		if (tmpl_set_arg(&t->v[m[i].at], arg, &m[i].set) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* One pass over argument ARG: the rules sorted by the rest and by where
 * their sets start, and each run of rules equal but on ARG joined.  The
 * rules joined into others are dropped, the order of the rest kept. */
static int join_arg(struct tmpls *t, unsigned arg, struct member *m, bool *gone,
		    size_t *joined, struct scratch *sc)
{
	size_t n = 0;
	for (size_t i = 0; i < t->n; i++) {
		size_t k = 0;
		while (k < t->v[i].nconds && t->v[i].conds[k].arg != arg)
			k++;
		size_t e = k;
		while (e < t->v[i].nconds && t->v[i].conds[e].arg == arg)
			e++;
		struct set64 s = set_of(t->v[i].conds + k, e - k);
		if (s.kind == S_NONE)
			continue;
		m[n++] = (struct member){ tmpl_hash(&t->v[i], arg), set_start(&s), i, k, s };
	}
	qsort(m, n, sizeof(*m), cmp_member);
	for (size_t i = 0; i < n;) {
		/* a run: one hash, the rest as its first rule's (another rest
		 * of the same hash, which is rare, cuts it) */
		size_t j = i + 1;
		while (j < n && m[j].hash == m[i].hash && tmpl_same(&t->v[m[i].at], &t->v[m[j].at], arg))
			j++;
		int err = join_run(t, arg, m + i, j - i, gone, joined, sc);
		if (err < 0)
			return err;
		i = j;
	}
	size_t w = 0;
	for (size_t i = 0; i < t->n; i++) {
		if (gone[i]) {
			free(t->v[i].conds);
			gone[i] = false;
			continue;
		}
		t->v[w++] = t->v[i];
	}
	t->n = w;
	return 0;
}

int lift_join(struct tmpls *t)
{
	if (t->n < 2)
		return 0;
	struct member *m = malloc(t->n * sizeof(*m));
	bool *gone = calloc(t->n, sizeof(*gone));
	struct scratch *sc = malloc(sizeof(*sc));
	int err = m && gone && sc ? 0 : -ENOMEM;
	/* A join on one argument can make two rules equal but on another:
	 * again while any joins, at most a few rounds (each removes rules). */
	for (int round = 0; round < 4 && !err; round++) {
		size_t joined = 0;
		for (unsigned arg = 0; arg < 6 && !err; arg++)
			err = join_arg(t, arg, m, gone, &joined, sc);
		if (!joined)
			break;
	}
	free(sc);
	free(m);
	free(gone);
	return err;
}
