/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Search trees over ranges of a 32-bit value (syscall numbers, argument
 * half-words).
 *
 * The tree minimises the worst executed path, counting each leaf's own
 * cost (an argument check below a syscall leaf costs more than a return),
 * and among the trees with that worst path the one with the least mean
 * path, weighting each range by how many interesting numbers it covers.
 * An exact interval search finds it for trees of up to DP_MAX leaves; a
 * greedy that merges the cheapest adjacent pair, lighter pairs first, takes
 * larger ones, unless a value set is smaller as runs of jeq under a jge
 * tree (large()).  Single values inside a range that decides otherwise
 * cost one `jeq` each instead of two splits, and the searches consider it.
 * The goals (enum layout_goal) order worst path, mean path and size;
 * hot_layout() at the end trades a bounded worst path for a workload's
 * mean path, on the same items and chains.
 *
 * In a syscall-number tree an argument-checked leaf weighs half its cost:
 * at full weight the few such leaves would claim the top of the tree and
 * lengthen the number dispatch that every other call pays, and at no
 * weight their paths (dispatch plus argument checks) would be the longest
 * in the program; half splits the difference.  Cold ranges (far outside
 * the numbers real calls use, such as x32 numbers inside the x86_64 tree)
 * are pushed down by a fixed bias so they never lengthen hot paths.
 */
#include <linux/filter.h>
#include <stdlib.h>
#include <string.h>
#include "compiler/layout.h"
#include "compiler/treecache.h"

#define COLD_BIAS 24

struct item {
	uint32_t node;
	int key;		/* cost the worst path is measured in */
	uint64_t weight;
	uint32_t lo;
	bool leaf;		/* an input range, not a merged subtree */
	bool point;		/* a leaf covering exactly one value */
};

bool range_push(struct range_vec *rv, uint32_t lo, uint32_t node, uint32_t weight, bool hot)
{
	if (rv->n && rv->v[rv->n - 1].node == node) {
		rv->v[rv->n - 1].weight += weight;
		rv->v[rv->n - 1].hot |= hot;
		return true;
	}
	if (!array_reserve(&rv->v, &rv->cap, rv->n, sizeof(*rv->v), 64))
		return false;
	rv->v[rv->n++] = (struct range){ lo, node, weight, hot };
	return true;
}

void range_vec_free(struct range_vec *rv)
{
	free(rv->v);
	memset(rv, 0, sizeof(*rv));
}

static int imax(int a, int b) { return a > b ? a : b; }

/* dag_jmp() and dag_charge() for the searches layout_tree() runs: while
 * the DAG records (treecache.h), each call is kept, so that the next
 * lowering of the compile can make them again without the search. */
static uint32_t jmp(struct dag *g, uint8_t op, uint32_t k, uint32_t t, uint32_t f)
{
	uint32_t id = dag_jmp(g, op, k, t, f);
	if (g->rec)
		tree_rec_jmp(g->rec, op, k, t, f, id);
	return id;
}

static bool charge(struct dag *g, uint64_t n)
{
	if (g->rec)
		tree_rec_charge(g->rec, n);
	return dag_charge(g, n);
}

static bool is_triple(const struct item *it, size_t i)
{
	return it[i].leaf && it[i + 1].leaf && it[i + 2].leaf && it[i + 1].point &&
	       it[i].node == it[i + 2].node;
}

static uint32_t merge_node(struct dag *g, const struct item *a, const struct item *b,
			   const struct item *c)
{
	if (c)
		return jmp(g, BPF_JEQ, b->lo, b->node, a->node);
	return jmp(g, BPF_JGE, b->lo, b->node, a->node);
}

/* Greedy: repeatedly merge the adjacent pair (or X p X triple) whose merged
 * key is smallest, the lighter first among equals.  Items [lo, hi) are
 * replaced by one, *MADE counting the nodes it took; returns false on
 * ENOMEM. */
static bool greedy(struct dag *g, struct item *it, size_t *m, size_t lo, size_t hi,
		   uint32_t *made)
{
	for (; hi - lo > 1; *made += 1) {
		if (!charge(g, hi - lo))
			return false;
		size_t best = lo;
		bool best_triple = false;
		int best_key = 0;
		uint64_t best_w = 0;
		for (size_t i = lo; i + 1 < hi; i++) {
			int key = imax(it[i].key, it[i + 1].key) + 1;
			uint64_t w = it[i].weight + it[i + 1].weight;
			bool triple = false;
			if (i + 2 < hi && is_triple(it, i)) {
				int tk = imax(imax(it[i].key, it[i + 2].key), it[i + 1].key) + 1;
				if (tk <= key) {
					triple = true;
					key = tk;
					w += it[i + 2].weight;
				}
			}
			bool better = i == lo || key < best_key ||
				      (key == best_key && triple && !best_triple) ||
				      (key == best_key && triple == best_triple && w < best_w);
			if (better) {
				best = i;
				best_key = key;
				best_triple = triple;
				best_w = w;
			}
		}
		size_t consumed = best_triple ? 3 : 2;
		struct item merged = { .key = best_key, .weight = best_w, .lo = it[best].lo };
		merged.node = merge_node(g, &it[best], &it[best + 1],
					 best_triple ? &it[best + 2] : NULL);
		if (merged.node == NODE_NONE)
			return false;
		it[best] = merged;
		memmove(&it[best + 1], &it[best + consumed], (*m - best - consumed) * sizeof(*it));
		*m -= consumed - 1;
		hi -= consumed - 1;
	}
	return true;
}

/*
 * Exact for its objective (enum layout_goal): over all trees of splits and
 * jeq chains, the least worst key, weighted depth and instructions in the
 * goal's order.  A jeq chain covers a run of ranges that all decide
 * alike (the background) but for single values, testing each of those in
 * turn: it is how a handful of values is cheapest to pick out, and a split
 * above it keeps the path short when there are many.  O(n^3), so it runs
 * on trees of moderate size; the greedy takes larger ones.
 */
#define DP_MAX 160
#define CHAIN_MAX 16

struct dp {
	size_t n;
	enum layout_goal goal;
	int16_t *split;		/* >= 0: split after it; -1: a jeq chain */
	const struct chain_tab *chains;
};

#define AT(t, i, j) ((t)[(i) * dp->n + (j)])

/* The background of a chain over [i, j]: the first range wider than one
 * value, else the last; chain-able when every other range is one value. */
static bool chain_of(const struct item *it, size_t i, size_t j, uint32_t *bg, uint32_t *tests)
{
	*bg = it[j].node;
	for (size_t k = i; k <= j; k++)
		if (!it[k].point) {
			*bg = it[k].node;
			break;
		}
	*tests = 0;
	for (size_t k = i; k <= j; k++) {
		if (!it[k].leaf)
			return false;
		if (it[k].node == *bg)
			continue;
		if (!it[k].point)
			return false;
		(*tests)++;
	}
	return *tests > 0;
}

/* The jeq chain over [i, j] with background BG, first value tested first. */
static uint32_t chain_build(struct dag *g, const struct item *it, size_t i, size_t j, uint32_t bg)
{
	uint32_t node = bg;
	for (size_t m = j + 1; m-- > i;)
		if (it[m].node != bg)
			node = jmp(g, BPF_JEQ, it[m].lo, it[m].node, node);
	return node;
}

/* Build the tree the interval search chose for items I..J, from its split table. */
static uint32_t dp_build(struct dag *g, const struct dp *dp, const struct item *it, size_t i,
			 size_t j)
{
	if (i == j)
		return it[i].node;
	int k = AT(dp->split, i, j);
	if (k < 0) {
		uint32_t bg, tests;
		chain_of(it, i, j, &bg, &tests);
		return chain_build(g, it, i, j, bg);
	}
	uint32_t left = dp_build(g, dp, it, i, (size_t)k);
	uint32_t right = dp_build(g, dp, it, (size_t)k + 1, j);
	if (left == NODE_NONE || right == NODE_NONE)
		return NODE_NONE;
	return jmp(g, BPF_JGE, it[k + 1].lo, right, left);
}

/* Whether worst key F, weighted sum S and size Z beat the best so far (BF, BS, BZ) in the order
 * the DP's goal ranks them. */
static bool better(const struct dp *dp, int f, uint64_t s, uint32_t z, int bf, uint64_t bs,
		   uint32_t bz)
{
	switch (dp->goal) {
	case LAYOUT_NUMBERS:
		if (f != bf)
			return f < bf;
		return s != bs ? s < bs : z < bz;
	case LAYOUT_NUMBERS_SIZE:
	case LAYOUT_ARGS:
		if (f != bf)
			return f < bf;
		return z != bz ? z < bz : s < bs;
	default:
		if (z != bz)
			return z < bz;
		return f != bf ? f < bf : s < bs;
	}
}

/*
 * The split search is the DP's inner loop, run O(n^3) times, so it
 * compares one integer per split instead of calling better(): each cell's
 * worst key (less the smallest leaf key), weighted depth and size are
 * packed into one word, the goal's first criterion in the high bits, so
 * that the packed order is better()'s order.  Depth and size add up over
 * the two halves of a split and the worst key is their maximum, so a
 * split's word is the sum of its halves' with the larger worst-key field.
 * The fields hold what a DP over DP_MAX leaves can reach unless the keys
 * or the weights are extreme; pack_fits() says so, else the plain loop
 * runs, as it does for a goal goal_packing() does not know (a new goal
 * needs only better(); its field order here makes it fast).
 */
#define F_BITS 13	/* worst key above the smallest leaf key */
#define S_BITS 33	/* weighted depth of one cell (a split sums two) */
#define Z_BITS 15	/* instructions of one cell */

/* The worst key, when it comes first, is the word's top field: f_window()
 * compares whole words against it. */
_Static_assert(S_BITS + 1 + Z_BITS + 1 + F_BITS + 1 == 64, "the worst key is the top field");

struct packing {
	unsigned f, s, z;	/* shift of each field */
	bool f_first;		/* the worst key is the first criterion */
};

/* False for a goal without a packing: it runs the plain loop. */
static bool goal_packing(enum layout_goal goal, struct packing *pk)
{
	switch (goal) {
	case LAYOUT_NUMBERS:	/* f | s | z */
		*pk = (struct packing){ S_BITS + 1 + Z_BITS + 1, Z_BITS + 1, 0, true };
		return true;
	case LAYOUT_NUMBERS_SIZE:
	case LAYOUT_ARGS:	/* f | z | s */
		*pk = (struct packing){ S_BITS + 1 + Z_BITS + 1, 0, S_BITS + 1, true };
		return true;
	case LAYOUT_ARGS_COMPACT:	/* z | f | s */
		*pk = (struct packing){ S_BITS + 1, 0, S_BITS + 1 + F_BITS + 1, false };
		return true;
	default:
		return false;
	}
}

/*
 * The split search over interval [i, j] reads row i of the cell matrix
 * (ROW[k] is cell (i, k)) and column j shifted by one (COL[k] is cell
 * (k + 1, j)), so that index k gives the two halves of split k.
 */
struct split_scan {
	const uint64_t *row, *col;
	uint64_t fmask;		/* the worst-key field */
};

/* Split K's word: the larger worst key, the other fields summed. */
static inline uint64_t split_word(const struct split_scan *sc, size_t k)
{
	uint64_t a = sc->row[k], b = sc->col[k], fa = a & sc->fmask, fb = b & sc->fmask;
	return (fa > fb ? fa : fb) + (a - fa) + (b - fb);
}

/* Split K's word less its worst key: the order among splits of one worst key. */
static inline uint64_t split_rest(const struct split_scan *sc, size_t k)
{
	return (sc->row[k] & ~sc->fmask) + (sc->col[k] & ~sc->fmask);
}

/* The first k in [i, j) with the least split word; two running minima,
 * so that the loop is not one long chain of dependent compares. */
static size_t first_least(const struct split_scan *sc, size_t i, size_t j)
{
	uint64_t b0 = UINT64_MAX, b1 = UINT64_MAX;
	size_t k0 = i, k1 = i, k = i;
	for (; k + 2 <= j; k += 2) {
		uint64_t v0 = split_word(sc, k), v1 = split_word(sc, k + 1);
		bool l0 = v0 < b0, l1 = v1 < b1;
		b0 = l0 ? v0 : b0;
		k0 = l0 ? k : k0;
		b1 = l1 ? v1 : b1;
		k1 = l1 ? k + 1 : k1;
	}
	if (k < j) {
		uint64_t v0 = split_word(sc, k);
		if (v0 < b0) {
			b0 = v0;
			k0 = k;
		}
	}
	return b1 < b0 || (b1 == b0 && k1 < k0) ? k1 : k0;
}

/*
 * The splits worth scanning when the worst key comes first.  A split's
 * worst key is the larger of its halves', FA(k) = F(i, k) and
 * FB(k) = F(k + 1, j).  Where F never falls as an interval grows (which
 * dp_packed() checks cell by cell), FA rises with k and FB falls, so the
 * splits with the least worst key are one run around the crossing (the
 * first k with FA(k) >= FB(k), or j), and every split outside it has a
 * larger worst key and so a larger word: the first least word over the
 * run is the first least word over all splits.
 *
 * The crossing of [i, j] lies between those of [i, j - 1] and
 * [i + 1, j] (below the first, FB only grew with j; at the second, FA
 * only grew with i going down), so CLO and CHI, those crossings, bound a
 * search whose lengths add up to O(n) along a diagonal of the table, as
 * in Knuth's bound on roots.  The run is found by walking out from the
 * crossing: it is short, and each step is independent of the last where a
 * binary search's steps wait on each other; the walk scans the run as it
 * goes.  Returns the crossing, and in *K the first split of least word.
 */
static size_t f_window(const struct split_scan *sc, size_t i, size_t j, size_t clo, size_t chi,
		       size_t *k)
{
	const uint64_t *row = sc->row, *col = sc->col;
	uint64_t fmask = sc->fmask;
	size_t a = clo;
	while (a < chi && (row[a] & fmask) < (col[a] & fmask))
		a++;
	/* The least worst key: FA at the crossing or FB just before it; S
	 * a split that has it. */
	uint64_t best = a < j ? row[a] & fmask : UINT64_MAX;
	size_t s = a;
	if (a > i && (col[a - 1] & fmask) < best) {
		best = col[a - 1] & fmask;
		s = a - 1;
	}
	/* Walk out from S over the run, keeping the first least word: to
	 * the left a tie moves to the earlier split, to the right it stays.
	 * The worst key is the top field (goal_packing()), so a cell's is at
	 * most BEST when the whole word is at most BEST with every lower bit
	 * set. */
	uint64_t bv = split_rest(sc, s), top = best | ~fmask;
	size_t kb = s;
	for (size_t l = s; l > i && col[l - 1] <= top; l--) {
		uint64_t v = split_rest(sc, l - 1);
		bool le = v <= bv;
		bv = le ? v : bv;
		kb = le ? l - 1 : kb;
	}
	for (size_t r = s + 1; r < j && row[r] <= top; r++) {
		uint64_t v = split_rest(sc, r);
		bool lt = v < bv;
		bv = lt ? v : bv;
		kb = lt ? r : kb;
	}
	*k = kb;
	return a;
}

/* Whether the DP's figures for these N items fit the packed cells' bit fields. */
static bool pack_fits(const struct item *it, size_t n, int kmin)
{
	int kmax = kmin;
	uint64_t w = 0;
	for (size_t i = 0; i < n; i++) {
		kmax = imax(kmax, it[i].key);
		w += it[i].weight;
		if (w >> S_BITS)
			return false;
	}
	/* A depth is at most n; a cell's worst key at most its largest leaf
	 * key plus its depth. */
	return n < (1u << Z_BITS) && (uint64_t)(kmax - kmin) + n < (1u << F_BITS) &&
	       (w * n) >> S_BITS == 0;
}

/* The worst key F, weighted depth S and instructions Z of the chain over
 * [i, j]; false when there is none. */
static bool chain_cost(const struct item *it, size_t i, size_t j, int *f, uint64_t *s,
		       uint32_t *z)
{
	uint32_t bg, tests;
	if (!chain_of(it, i, j, &bg, &tests))
		return false;
	/* The m-th tested value is m deep, the background `tests` deep. */
	*f = INT32_MIN;
	*s = 0;
	*z = tests;
	uint32_t m = 0;
	for (size_t k = i; k <= j; k++) {
		uint32_t depth = it[k].node == bg ? tests : ++m;
		*f = imax(*f, it[k].key + (int)depth);
		*s += it[k].weight * depth;
	}
	return true;
}

/*
 * chain_cost() of every interval of up to MAXLEN items, which the searches
 * ask for once per interval (per budget in hot_search()).  From item i on,
 * once the background is fixed (the first range wider than one value),
 * each further item adds to the chain in constant time; before that the
 * background is the last item and each interval is costed afresh.
 */
struct chain_cell {
	uint64_t s;
	int f;
	uint32_t z;		/* tests; 0: no chain */
};

struct chain_tab {
	size_t maxlen;
	struct chain_cell *c;	/* interval [i, i + d] at c[i * maxlen + d] */
};

/* The costs of the chains that start at item I, for each end up to MAXLEN items on. */
static void chain_row(const struct item *it, size_t n, size_t i, size_t maxlen,
		      struct chain_cell *row)
{
	size_t end = n - i < maxlen ? n : i + maxlen, p = i;
	for (; p < end && it[p].point; p++) {
		struct chain_cell *c = &row[p - i];
		uint32_t tests;
		c->z = chain_cost(it, i, p, &c->f, &c->s, &tests) ? tests : 0;
	}
	uint32_t bg = p < end ? it[p].node : NODE_NONE, tests = 0;
	int tmax = INT32_MIN, bgmax = INT32_MIN;
	uint64_t ts = 0, bgw = 0;
	bool ok = true;
	for (size_t k = i; k < end; k++) {
		if (!it[k].leaf) {
			ok = false;
		} else if (it[k].node == bg) {
			bgmax = imax(bgmax, it[k].key);
			bgw += it[k].weight;
		} else if (!it[k].point) {
			ok = false;
		} else {
			tests++;
			tmax = imax(tmax, it[k].key + (int)tests);
			ts += it[k].weight * tests;
		}
		if (k < p)
			continue;
		struct chain_cell *c = &row[k - i];
		c->z = ok ? tests : 0;
		c->f = imax(tmax, bgmax + (int)tests);
		c->s = ts + bgw * tests;
	}
}

static bool chain_tab_init(struct chain_tab *t, const struct item *it, size_t n, size_t maxlen)
{
	t->maxlen = maxlen < n ? maxlen : n;
	t->c = malloc(n * t->maxlen * sizeof(*t->c));
	if (!t->c)
		return false;
	for (size_t i = 0; i < n; i++)
		chain_row(it, n, i, t->maxlen, &t->c[i * t->maxlen]);
	return true;
}

/* The chain over [i, j], or NULL when there is none or it is longer than
 * the table holds. */
static inline const struct chain_cell *chain_at(const struct chain_tab *t, size_t i, size_t j)
{
	if (j - i >= t->maxlen)
		return NULL;
	const struct chain_cell *c = &t->c[i * t->maxlen + (j - i)];
	return c->z ? c : NULL;
}

/* A chain of more than 16 tests never has the least worst path; only a
 * size-first search needs longer ones. */
static size_t chain_maxlen(enum layout_goal goal, size_t n)
{
	return goal == LAYOUT_ARGS_COMPACT ? n : 2 * CHAIN_MAX + 1;
}

/* The chain over [i, j] when there is one and it beats the best split
 * (F, S, Z): updates them and returns true. */
static inline bool chain_wins(const struct dp *dp, size_t i, size_t j, int *bf, uint64_t *bs,
			      uint32_t *bz)
{
	const struct chain_cell *c = chain_at(dp->chains, i, j);
	if (!c || !better(dp, c->f, c->s, c->z, *bf, *bs, *bz))
		return false;
	*bf = c->f;
	*bs = c->s;
	*bz = c->z;
	return true;
}

/* Intervals shorter than this are scanned whole: finding the run costs
 * about what it saves. */
#define WINDOW_MIN 8

/* The DP on packed words.  One n x n matrix holds both: cell (i, j) at
 * [i][j] (i <= j) for the scan along a row, and again at [j][i] for the
 * scan along a column.  With the worst key first and F monotone in the
 * intervals computed so far, f_window() narrows the scan; EXHAUSTIVE
 * (for the tests) scans every split. */
static bool dp_packed(struct dp *dp, const struct item *it, const uint64_t *wsum, int kmin,
		      struct packing pk, bool exhaustive)
{
	size_t n = dp->n;
	uint64_t fmask = ((1ULL << (F_BITS + 1)) - 1) << pk.f;
	uint64_t smask = (1ULL << (S_BITS + 1)) - 1, zmask = (1ULL << (Z_BITS + 1)) - 1;
	uint64_t *cell = malloc(n * n * sizeof(*cell));
	if (!cell)
		return false;
	/*
	 * f_window() needs F not to fall along row i (cells (i, i..j - 1))
	 * nor up column j (cells (i + 1..j, j)); ROW[i] and COL[j] say so
	 * for the cells computed so far, which are all it reads.  A jeq
	 * chain can break it (its background is the first wide range, else
	 * the last item, so one more item can change which values it tests);
	 * that row or column is then scanned split by split.  The bounds on
	 * the crossing read neighbouring rows and columns too, so they hold
	 * only while no cell at all has broken it (ALL).
	 */
	bool row[DP_MAX], col[DP_MAX], all = pk.f_first && !exhaustive;
	for (size_t i = 0; i < n; i++) {
		AT(cell, i, i) = (uint64_t)(it[i].key - kmin) << pk.f;
		row[i] = col[i] = all;
	}
	for (size_t len = 2; len <= n; len++) {
		for (size_t i = 0; i + len <= n; i++) {
			size_t j = i + len - 1, k;
			struct split_scan sc = { &AT(cell, i, 0), &AT(cell, j, 0) + 1, fmask };
			if (row[i] && col[j] && len >= WINDOW_MIN) {
				/* each cell's crossing kept in the split table's
				 * lower half, which is otherwise unused */
				bool bounded = all && len > WINDOW_MIN;
				size_t clo = bounded ? (size_t)AT(dp->split, j - 1, i) : i;
				size_t chi = bounded ? (size_t)AT(dp->split, j, i + 1) : j;
				AT(dp->split, j, i) = (int16_t)f_window(&sc, i, j, clo, chi, &k);
			} else {
				k = first_least(&sc, i, j);
			}
			uint64_t l = sc.row[k], r = sc.col[k];
			uint64_t fw = (l & fmask) > (r & fmask) ? l & fmask : r & fmask;
			int bf = (int)(fw >> pk.f) + kmin + 1;
			uint64_t bs = ((l >> pk.s) & smask) + ((r >> pk.s) & smask) + wsum[j + 1] - wsum[i];
			uint32_t bz = (uint32_t)(((l >> pk.z) & zmask) + ((r >> pk.z) & zmask) + 1);
			AT(dp->split, i, j) = chain_wins(dp, i, j, &bf, &bs, &bz) ? -1 : (int16_t)k;
			uint64_t f = (uint64_t)(bf - kmin) << pk.f;
			AT(cell, i, j) = AT(cell, j, i) = f + (bs << pk.s) + ((uint64_t)bz << pk.z);
			bool rise_row = f >= (AT(cell, i, j - 1) & fmask);
			bool rise_col = f >= (AT(cell, i + 1, j) & fmask);
			row[i] = row[i] && rise_row;
			col[j] = col[j] && rise_col;
			all = all && rise_row && rise_col;
		}
	}
	free(cell);
	return true;
}

/* The same search comparing with better(), for keys or weights too large
 * to pack. */
static bool dp_plain(struct dp *dp, const struct item *it, const uint64_t *wsum)
{
	size_t n = dp->n;
	int *f = malloc(n * n * sizeof(*f));
	uint64_t *s = malloc(n * n * sizeof(*s));
	uint32_t *z = malloc(n * n * sizeof(*z));
	bool ok = f && s && z;
	for (size_t i = 0; i < n && ok; i++) {
		AT(f, i, i) = it[i].key;
		AT(s, i, i) = 0;
		AT(z, i, i) = 0;
	}
	for (size_t len = 2; len <= n && ok; len++) {
		for (size_t i = 0; i + len <= n; i++) {
			size_t j = i + len - 1;
			uint64_t w = wsum[j + 1] - wsum[i];
			int bf = INT32_MAX;
			uint64_t bs = UINT64_MAX;
			uint32_t bz = UINT32_MAX;
			int16_t bk = 0;
			for (size_t k = i; k < j; k++) {
				int fv = imax(AT(f, i, k), AT(f, k + 1, j)) + 1;
				uint64_t sv = AT(s, i, k) + AT(s, k + 1, j) + w;
				uint32_t zv = AT(z, i, k) + AT(z, k + 1, j) + 1;
				if (better(dp, fv, sv, zv, bf, bs, bz)) {
					bf = fv;
					bs = sv;
					bz = zv;
					bk = (int16_t)k;
				}
			}
			if (chain_wins(dp, i, j, &bf, &bs, &bz))
				bk = -1;
			AT(f, i, j) = bf;
			AT(s, i, j) = bs;
			AT(z, i, j) = bz;
			AT(dp->split, i, j) = bk;
		}
	}
	free(f);
	free(s);
	free(z);
	return ok;
}

/* The exact interval search over N items for GOAL; NODE_NONE (and oom) without memory. */
static uint32_t optimal(struct dag *g, const struct item *it, size_t n, enum layout_goal goal,
			bool exhaustive)
{
	struct chain_tab chains = { 0 };
	struct dp dpv = { .n = n, .goal = goal, .chains = &chains }, *dp = &dpv;
	int kmin = it[0].key;
	for (size_t i = 1; i < n; i++)
		kmin = it[i].key < kmin ? it[i].key : kmin;
	uint64_t *wsum = malloc((n + 1) * sizeof(*wsum));
	dp->split = malloc(n * n * sizeof(*dp->split));
	uint32_t root = NODE_NONE;
	if (!wsum || !dp->split || !chain_tab_init(&chains, it, n, chain_maxlen(goal, n)))
		goto out;
	wsum[0] = 0;
	for (size_t i = 0; i < n; i++)
		wsum[i + 1] = wsum[i] + it[i].weight;
	struct packing pk;
	bool packed = goal_packing(goal, &pk) && pack_fits(it, n, kmin);
	if (packed ? dp_packed(dp, it, wsum, kmin, pk, exhaustive) : dp_plain(dp, it, wsum))
		root = dp_build(g, dp, it, 0, n - 1);
out:
	if (root == NODE_NONE)
		g->oom = true;
	free(wsum);
	free(dp->split);
	free(chains.c);
	return root;
}

/*
 * Past DP_MAX leaves.  A value set (a chain-able run of items) is cut into
 * runs of jeq tests under a balanced jge tree: R runs of a set of T values
 * cost T + R - 1 instructions for a path of about log2(R) + T / R, where
 * the greedy's pairs and triples cost about 1.5 T.  The run length with
 * the least worst key, then size, is held against the greedy's tree and
 * taken only when it is better by those measures, so layouts the greedy
 * made stay as they were.  Size first, it is one run: every further run
 * costs the emitter its own returns (a jump reaches 255 instructions, so
 * a long chain already repeats its match's return every 255 tests, and a
 * run adds its background's and a `ja` to its jge's far side), about
 * three instructions a run, where libseccomp's level 1 has 21 above the
 * values on a 2,000-value set, and the chain's path is the path of
 * libseccomp's own chain over the set.
 */
struct runs {
	const struct item *it;
	const size_t *cut;	/* run r is items [cut[r], cut[r + 1]) */
	const uint64_t *wsum;
};

/* The worst key F, weighted depth S and size Z of the jge tree over runs
 * [lo, hi), split at the middle run; false when a run is no chain. */
static bool runs_cost(const struct runs *rs, size_t lo, size_t hi, int *f, uint64_t *s, uint32_t *z)
{
	if (hi - lo == 1) {
		size_t a = rs->cut[lo], b = rs->cut[hi] - 1;
		if (a == b) {
			*f = rs->it[a].key;
			*s = 0;
			*z = 0;
			return true;
		}
		return chain_cost(rs->it, a, b, f, s, z);
	}
	size_t mid = lo + (hi - lo) / 2;
	int fl, fr;
	uint64_t sl, sr;
	uint32_t zl, zr;
	if (!runs_cost(rs, lo, mid, &fl, &sl, &zl) || !runs_cost(rs, mid, hi, &fr, &sr, &zr))
		return false;
	*f = imax(fl, fr) + 1;
	*s = sl + sr + rs->wsum[rs->cut[hi]] - rs->wsum[rs->cut[lo]];
	*z = zl + zr + 1;
	return true;
}

/* A jge tree over the runs LO..HI of RS, each run a chain of jeq. */
static uint32_t runs_build(struct dag *g, const struct runs *rs, size_t lo, size_t hi)
{
	if (hi - lo == 1) {
		size_t a = rs->cut[lo], b = rs->cut[hi] - 1;
		uint32_t bg, tests;
		if (a == b)
			return rs->it[a].node;
		chain_of(rs->it, a, b, &bg, &tests);
		return chain_build(g, rs->it, a, b, bg);
	}
	size_t mid = lo + (hi - lo) / 2;
	uint32_t left = runs_build(g, rs, lo, mid), right = runs_build(g, rs, mid, hi);
	if (left == NODE_NONE || right == NODE_NONE)
		return NODE_NONE;
	return jmp(g, BPF_JGE, rs->it[rs->cut[mid]].lo, right, left);
}

/* Cut the T tests at positions POS into runs of L (the first run from
 * item 0); returns the number of runs. */
static size_t runs_cut(const size_t *pos, size_t t, size_t l, size_t m, size_t *cut)
{
	size_t r = 0;
	for (size_t k = 0; k < t; k += l)
		cut[r++] = k ? pos[k] : 0;
	cut[r] = m;
	return r;
}

/* A tree for more items than the exact search takes: jeq runs under a jge tree, or the greedy's
 * when better. */
static uint32_t large(struct dag *g, struct item *it, size_t m, enum layout_goal goal)
{
	uint32_t bg, t32, root = NODE_NONE;
	size_t *pos = NULL, *cut = NULL;
	uint64_t *wsum = NULL;
	if (!chain_of(it, 0, m - 1, &bg, &t32))
		goto greedy;
	size_t t = t32, best_l = 0;
	pos = malloc(t * sizeof(*pos));
	cut = malloc((t + 1) * sizeof(*cut));
	wsum = malloc((m + 1) * sizeof(*wsum));
	if (!pos || !cut || !wsum)
		goto out;
	wsum[0] = 0;
	for (size_t k = 0, n = 0; k < m; k++) {
		wsum[k + 1] = wsum[k] + it[k].weight;
		if (it[k].node != bg)
			pos[n++] = k;
	}
	struct runs rs = { it, cut, wsum };
	int bf = INT32_MAX;
	uint64_t bs = UINT64_MAX;
	uint32_t bz = UINT32_MAX;
	struct dp dpv = { .n = m, .goal = goal };
	if (goal == LAYOUT_ARGS_COMPACT) {
		best_l = t;
	} else {
		for (size_t l = 1; l <= CHAIN_MAX && l <= t; l++) {
			int f;
			uint64_t s;
			uint32_t z;
			if (runs_cost(&rs, 0, runs_cut(pos, t, l, m, cut), &f, &s, &z) &&
			    better(&dpv, f, s, z, bf, bs, bz)) {
				bf = f;
				bs = s;
				bz = z;
				best_l = l;
			}
		}
		/* The greedy's tree on a copy: the runs replace it only when
		 * they are better on its own measures. */
		struct item *copy = best_l ? malloc(m * sizeof(*copy)) : NULL;
		if (best_l && !copy)
			goto out;
		if (copy) {
			size_t cm = m;
			uint32_t made = 0;
			memcpy(copy, it, m * sizeof(*copy));
			bool ok = greedy(g, copy, &cm, 0, cm, &made);
			int gf = copy[0].key;
			root = copy[0].node;
			free(copy);
			if (!ok) {
				root = NODE_NONE;
				goto out;
			}
			if (gf < bf || (gf == bf && made <= bz))
				goto out;
		}
	}
	if (best_l) {
		root = runs_build(g, &rs, 0, runs_cut(pos, t, best_l, m, cut));
		goto out;
	}
greedy:;
	uint32_t made = 0;
	root = greedy(g, it, &m, 0, m, &made) ? it[0].node : NODE_NONE;
out:
	free(pos);
	free(cut);
	free(wsum);
	return root;
}

static uint32_t layout_build(struct dag *g, const struct range *r, size_t n,
			     enum layout_goal goal, bool exhaustive);

/* Trees this small cost less to build than to look up. */
#define MEMO_MIN 8
/* Below this many ranges the search costs about what keeping its calls
 * across lowerings would (the key, the record, the replay). */
#define SHARE_MIN 16

/* The key of a search in the compile's tree cache (treecache.h): what
 * layout_build() reads of each range, with the node named by the first
 * range that has it, since node ids differ from DAG to DAG.  NULL
 * without memory. */
static uint32_t *share_key(const struct dag *g, const struct range *r, size_t n,
			   enum layout_goal goal, size_t *nkey)
{
	size_t cap = 16;
	while (cap < 2 * n)
		cap *= 2;
	uint32_t *key = malloc((2 + 4 * n) * sizeof(*key));
	uint32_t *slot = malloc(cap * sizeof(*slot));	/* range index + 1, 0 empty */
	if (!key || !slot) {
		free(key);
		free(slot);
		return NULL;
	}
	memset(slot, 0, cap * sizeof(*slot));
	key[0] = goal;
	key[1] = (uint32_t)n;
	for (size_t i = 0; i < n; i++) {
		size_t h = (r[i].node * 0x9e3779b1u) & (cap - 1);
		while (slot[h] && r[slot[h] - 1].node != r[i].node)
			h = (h + 1) & (cap - 1);
		if (!slot[h])
			slot[h] = (uint32_t)i + 1;
		uint32_t *w = &key[2 + 4 * i];
		w[0] = r[i].lo;
		w[1] = r[i].weight;
		w[2] = (uint32_t)g->nodes[r[i].node].cost << 1 | r[i].hot;
		w[3] = slot[h] - 1;
	}
	free(slot);
	*nkey = 2 + 4 * n;
	return key;
}

/* layout_build() through the compile's tree cache: replayed when an
 * earlier lowering searched the same ranges, else searched and kept. */
static uint32_t shared_build(struct dag *g, const struct range *r, size_t n, enum layout_goal goal)
{
	size_t nkey;
	uint32_t *key = g->trees && !g->rec && n >= SHARE_MIN ? share_key(g, r, n, goal, &nkey)
							       : NULL;
	if (!key)
		return layout_build(g, r, n, goal, false);
	uint32_t root;
	if (!tree_cache_replay(g->trees, g, key, nkey, r, n, &root)) {
		struct tree_rec rec = { 0 };
		g->rec = &rec;
		root = layout_build(g, r, n, goal, false);
		g->rec = NULL;
		if (root != NODE_NONE && !g->oom)
			tree_cache_put(g->trees, key, nkey, &rec, r, n, root);
		tree_rec_free(&rec);
	}
	free(key);
	return root;
}

/* The lowering asks for the same tree (the same ranges over the same
 * subtrees) under each argument prefix that leads to it; the DAG keeps
 * what was built. */
uint32_t layout_tree(struct dag *g, const struct range *r, size_t n, enum layout_goal goal)
{
	if (n < MEMO_MIN || n > SIZE_MAX / 4 / sizeof(uint32_t) - 2)
		return layout_build(g, r, n, goal, false);
	uint32_t buf[2 + 4 * 64];
	uint32_t *key = 2 + 4 * n <= ARRAY_SIZE(buf) ? buf : malloc((2 + 4 * n) * sizeof(*key));
	uint32_t maxid = 0;
	if (!key)
		return layout_build(g, r, n, goal, false);
	key[0] = goal;
	key[1] = (uint32_t)n;
	for (size_t i = 0; i < n; i++) {
		uint32_t *w = &key[2 + 4 * i];
		w[0] = r[i].lo;
		w[1] = r[i].node;
		w[2] = r[i].weight;
		w[3] = r[i].hot;
		maxid = r[i].node > maxid ? r[i].node : maxid;
	}
	uint32_t root = dag_memo_get(g, key, 2 + 4 * n);
	if (root == NODE_NONE && !g->oom) {
		uint64_t work = g->work;
		root = shared_build(g, r, n, goal);
		if (root != NODE_NONE && !g->oom)
			dag_memo_put(g, key, 2 + 4 * n, root, root > maxid ? root : maxid,
				     g->work - work);
	}
	if (key != buf)
		free(key);
	return root;
}

uint32_t layout_tree_exhaustive(struct dag *g, const struct range *r, size_t n,
				enum layout_goal goal)
{
	return layout_build(g, r, n, goal, true);
}

/* The search tree over N ranges for GOAL, by the exact search or, past DP_MAX, the large-tree
 * builders. */
static uint32_t layout_build(struct dag *g, const struct range *r, size_t n,
			     enum layout_goal goal, bool exhaustive)
{
	if (n == 0)
		return NODE_NONE;
	if (n == 1)
		return r[0].node;
	/* A search tree telling N ranges apart has (N - 1) / 2 comparisons at
	 * least (a jeq settles two boundaries, a jge one).  Far past what the
	 * kernel loads, refuse before the quadratic greedy spends seconds on
	 * it; nearer, build it so the error can name the program's size. */
	if ((n - 1) / 2 > 2 * BPF_MAXINSNS) {
		if (g->trial_nodes) {
			g->trial_failed = true;	/* the caller has another way */
		} else {
			if (!g->too_big) {
				g->limit = DAG_LIMIT_RANGES;
				g->ranges = n;
			}
			g->too_big = true;
		}
		g->oom = true;
		return NODE_NONE;
	}

	struct item *it = malloc(n * sizeof(*it));
	if (!it) {
		g->oom = true;
		return NODE_NONE;
	}
	for (size_t i = 0; i < n; i++) {
		uint32_t hi = i + 1 < n ? r[i + 1].lo - 1 : UINT32_MAX;
		int cost = g->nodes[r[i].node].cost;
		if (goal == LAYOUT_NUMBERS || goal == LAYOUT_NUMBERS_SIZE)
			cost = (cost + 1) / 2;
		it[i] = (struct item){
			.node = r[i].node,
			.key = cost - (r[i].hot ? 0 : COLD_BIAS),
			.weight = r[i].weight,
			.lo = r[i].lo,
			.leaf = true,
			.point = hi == r[i].lo,
		};
	}

	/* Runs of cold ranges become one subtree each before the real search,
	 * which keeps the exact search small; laid out for size, a search
	 * that small takes them as they are, where a jeq chain can pick a
	 * cold value out along with the hot ones (an x32 call next to its
	 * x86_64 twin). */
	size_t m = n;
	uint32_t made = 0;
	for (size_t i = 0; i < m && !(goal == LAYOUT_NUMBERS_SIZE && n <= DP_MAX); i++) {
		if (it[i].key >= 0)
			continue;
		size_t j = i;
		while (j < m && it[j].key < 0)
			j++;
		if (j - i > 1 && !greedy(g, it, &m, i, j, &made))
			goto oom;
	}
	uint32_t root;
	if (m <= DP_MAX)
		root = optimal(g, it, m, goal, exhaustive);
	else if ((root = large(g, it, m, goal)) == NODE_NONE)
		goto oom;
	free(it);
	return root;
oom:
	free(it);
	g->oom = true;
	return NODE_NONE;
}

/* ---- LAYOUT_NUMBERS for a workload (hot_layout) */

/*
 * The bounded search: with S_t(i, j) the least weighted depth of a tree
 * over items [i, j] whose worst key is at most base + t, a split's is
 * S_{t-1} of both sides plus the weight of [i, j]; a jeq chain's is
 * chain_cost()'s.  The first budget at which the whole range has a tree is
 * the least worst path (the one layout_tree() finds for LAYOUT_NUMBERS,
 * whose measure this is: argument checks at half their cost), and the tree
 * is taken SCMPC_HOT_SLACK budgets later, so the default tree is among the
 * candidates and the workload's mean path can only improve on it.  Two
 * instructions of slack let a call that takes most of the workload rise
 * about two levels, where most of the gain is, while any call the workload
 * leaves out is at most two compares slower.  Ranges outside the numbers
 * real calls use (x32's inside x86_64's tree, -1, the far end) are laid
 * out apart by layout_tree(), as it does itself, and left unconstrained
 * here.  O(n^3) per budget, so only a workload pays it.
 */
#define HOT_INF UINT64_MAX
#define COLD_KEY (INT32_MIN / 2)

struct hot_dp {
	size_t n;
	const struct item *it;
	const struct chain_tab *chains;
	int16_t **choice;	/* per budget: -2 none, -1 chain, else the split */
	size_t nbudgets, cap;
};

/* Build the tree the workload search chose for items I..J under extra-depth budget T. */
static uint32_t hot_build(struct dag *g, const struct hot_dp *h, size_t i, size_t j, size_t t)
{
	const struct item *it = h->it;
	if (i == j)
		return it[i].node;
	int16_t k = h->choice[t][i * h->n + j];
	if (k < 0) {
		uint32_t bg, tests;
		chain_of(it, i, j, &bg, &tests);
		return chain_build(g, it, i, j, bg);
	}
	uint32_t left = hot_build(g, h, i, (size_t)k, t - 1);
	uint32_t right = hot_build(g, h, (size_t)k + 1, j, t - 1);
	if (left == NODE_NONE || right == NODE_NONE)
		return NODE_NONE;
	return dag_jmp(g, BPF_JGE, it[k + 1].lo, right, left);
}

/* One budget's layer: S and instruction counts of every interval from the
 * previous layer's (PS, PZ). */
static void hot_layer(struct hot_dp *h, const uint64_t *wsum, const int *maxkey, int d, bool first,
		      const uint64_t *ps, const uint32_t *pz, uint64_t *cs, uint32_t *cz, int16_t *ch)
{
	size_t n = h->n;
	for (size_t len = 1; len <= n; len++) {
		for (size_t i = 0; i + len <= n; i++) {
			size_t j = i + len - 1, ij = i * n + j;
			uint64_t bs = HOT_INF;
			uint32_t bz = UINT32_MAX;
			int16_t bk = -2;
			if (maxkey[ij] <= d && len == 1) {
				bs = 0;
				bz = 0;
			} else if (maxkey[ij] < d) {
				uint64_t w = wsum[j + 1] - wsum[i];
				for (size_t k = i; !first && k < j; k++) {
					uint64_t a = ps[i * n + k], b = ps[(k + 1) * n + j];
					if (a == HOT_INF || b == HOT_INF)
						continue;
					uint64_t sv = a + b + w;
					uint32_t zv = pz[i * n + k] + pz[(k + 1) * n + j] + 1;
					if (sv < bs || (sv == bs && zv < bz)) {
						bs = sv;
						bz = zv;
						bk = (int16_t)k;
					}
				}
				/* As in chain_wins(): the table holds no longer
				 * chains, which never have the least worst path. */
				const struct chain_cell *c = chain_at(h->chains, i, j);
				if (c && c->f <= d && (c->s < bs || (c->s == bs && c->z < bz))) {
					bs = c->s;
					bz = c->z;
					bk = -1;
				}
			}
			cs[ij] = bs;
			cz[ij] = bz;
			ch[ij] = bk;
		}
	}
}

/* The tree with the least expected path over the workload whose worst path is within
 * SCMPC_HOT_SLACK of the least. */
static uint32_t hot_search(struct dag *g, const struct item *it, size_t n)
{
	struct chain_tab chains = { 0 };
	struct hot_dp h = { .n = n, .it = it, .chains = &chains };
	uint64_t *wsum = malloc((n + 1) * sizeof(*wsum));
	int *maxkey = malloc(n * n * sizeof(*maxkey));
	uint64_t *s[2] = { malloc(n * n * sizeof(uint64_t)), malloc(n * n * sizeof(uint64_t)) };
	uint32_t *z[2] = { malloc(n * n * sizeof(uint32_t)), malloc(n * n * sizeof(uint32_t)) };
	uint32_t root = NODE_NONE;
	if (!wsum || !maxkey || !s[0] || !s[1] || !z[0] || !z[1] ||
	    !chain_tab_init(&chains, it, n, chain_maxlen(LAYOUT_NUMBERS, n)))
		goto out;
	int base = INT32_MAX;
	wsum[0] = 0;
	for (size_t i = 0; i < n; i++) {
		wsum[i + 1] = wsum[i] + it[i].weight;
		if (it[i].key != COLD_KEY && it[i].key < base)
			base = it[i].key;
		for (size_t j = i; j < n; j++)
			maxkey[i * n + j] = imax(j > i ? maxkey[i * n + j - 1] : COLD_KEY, it[j].key);
	}
	if (base == INT32_MAX)
		base = 0;
	/* A tree of n leaves has a path of n - 1 at most: the loop ends. */
	size_t found = SIZE_MAX;
	for (size_t t = 0; found == SIZE_MAX || t <= found + SCMPC_HOT_SLACK; t++) {
		if (!array_reserve(&h.choice, &h.cap, h.nbudgets, sizeof(*h.choice), 32))
			goto out;
		int16_t *ch = h.choice[h.nbudgets] = malloc(n * n * sizeof(int16_t));
		if (!ch)
			goto out;
		h.nbudgets++;
		hot_layer(&h, wsum, maxkey, base + (int)t, t == 0, s[(t + 1) & 1], z[(t + 1) & 1],
			  s[t & 1], z[t & 1], ch);
		if (found == SIZE_MAX && s[t & 1][n - 1] != HOT_INF)
			found = t;
	}
	root = hot_build(g, &h, 0, n - 1, h.nbudgets - 1);
out:
	if (root == NODE_NONE)
		g->oom = true;
	for (size_t t = 0; t < h.nbudgets; t++)
		free(h.choice[t]);
	free(h.choice);
	free(wsum);
	free(maxkey);
	free(s[0]);
	free(s[1]);
	free(z[0]);
	free(z[1]);
	free(chains.c);
	return root;
}

uint32_t hot_layout(struct dag *g, const struct range *r, size_t n)
{
	struct item *it = malloc((n ? n : 1) * sizeof(*it));
	size_t m = 0;
	if (!it) {
		g->oom = true;
		return NODE_NONE;
	}
	for (size_t i = 0; i < n;) {
		size_t j = i + 1;
		if (!r[i].hot) {
			while (j < n && !r[j].hot)
				j++;
			uint64_t w = 0;
			for (size_t k = i; k < j; k++)
				w += r[k].weight;
			uint32_t node = layout_tree(g, r + i, j - i, LAYOUT_NUMBERS);
			if (node == NODE_NONE)
				goto fail;
			bool point = j - i == 1 && (j < n ? r[j].lo - 1 : UINT32_MAX) == r[i].lo;
			it[m++] = (struct item){ .node = node, .key = COLD_KEY, .weight = w,
						 .lo = r[i].lo, .leaf = j - i == 1, .point = point };
		} else {
			uint32_t hi = j < n ? r[j].lo - 1 : UINT32_MAX;
			int cost = dag_node(g, r[i].node)->cost;
			it[m++] = (struct item){ .node = r[i].node, .key = (cost + 1) / 2,
						 .weight = r[i].weight, .lo = r[i].lo, .leaf = true,
						 .point = hi == r[i].lo };
		}
		i = j;
	}
	uint32_t root;
	if (m > DP_MAX) {
		/* The larger trees of layout_tree(): the weights still order
		 * its ties. */
		free(it);
		return layout_tree(g, r, n, LAYOUT_NUMBERS);
	}
	root = m == 1 ? it[0].node : hot_search(g, it, m);
	free(it);
	return root;
fail:
	free(it);
	g->oom = true;
	return NODE_NONE;
}

/* ---- LAYOUT_NUMBERS_SIZE within a size bound (layout_capped) */

/*
 * A number tree whose program must stay within libseccomp's size (its
 * linear chain spends one jeq per call) can still spend what that leaves
 * on shorter paths: of the trees with at most SLACK tests more than the
 * fewest, the one with the least worst key, then the fewest tests, then
 * the least weighted depth.  With zmin(i, j) the fewest tests over items
 * [i, j], a tree of at most zmin(0, n - 1) + SLACK tests gives each of its
 * subtrees at most its own zmin plus SLACK, so a cell per interval and
 * extra e in 0..SLACK is exact for the worst key: a split at k costs
 * delta = zmin(i, k) + zmin(k + 1, j) + 1 - zmin(i, j) of the extra, and
 * its halves share the rest.  O(n^3 SLACK^2), so SLACK is cut to a bound
 * of work; past DP_MAX items it is the LAYOUT_NUMBERS_SIZE tree.
 *
 * Measured for the kernel's eBPF (EBPF), a test whose branches both go to
 * leaves (returns, or argument checks shared with other calls) counts
 * twice: neither can follow it in the program but once, so the converter
 * adds a `ja` to it.  That is the last test of each jeq chain and a split
 * between two leaves; each split that ends a chain costs a `ja` where the
 * chain it breaks did not.
 */
#define CAP_WORK_MAX (1u << 20)

struct cap_cell {
	uint64_t s;
	int f;
	uint16_t z;
	int16_t k;		/* split after it; -1 a jeq chain; -2 a leaf */
	uint8_t e1, e2;		/* the extra each half was given */
};

struct cap_dp {
	size_t n, ne;
	bool ebpf;		/* a test between two leaves counts twice */
	struct cap_cell *c;	/* (i, j, e) at c[(i * n + j) * ne + e] */
	uint16_t *zmin;		/* (i, j) at zmin[i * n + j] */
	uint16_t *zcol;		/* the same, (i, j) at zcol[j * n + i]: a column read in a row */
	uint32_t *cost;		/* per split k of the interval at hand, at cost[k - i]: its
				   fewest tests, zmin(i, k) + zmin(k + 1, j) + 1 */
};

#define CAP(dp, i, j, e) (&(dp)->c[((i) * (dp)->n + (j)) * (dp)->ne + (e)])

static bool cap_better(int f, uint32_t z, uint64_t s, const struct cap_cell *b)
{
	if (f != b->f)
		return f < b->f;
	return z != b->z ? z < b->z : s < b->s;
}

/* The cells (I, J, 0..NE - 1) from the smaller intervals' cells: the
 * chain, then each split whose own cost (DP->cost, cap_costs()) leaves
 * some of the extra, its halves sharing what is left every way. */
static void cap_fill(struct cap_dp *dp, const struct chain_tab *chains, const uint64_t *wsum,
		     size_t i, size_t j)
{
	size_t n = dp->n, ne = dp->ne;
	struct cap_cell *b = CAP(dp, i, j, 0);
	uint32_t zij = dp->zmin[i * n + j];
	uint64_t w = wsum[j + 1] - wsum[i];
	const struct chain_cell *ch = chain_at(chains, i, j);
	for (size_t e = 0; e < ne; e++) {
		b[e] = (struct cap_cell){ .f = INT32_MAX, .z = UINT16_MAX, .s = UINT64_MAX, .k = -1 };
		if (ch && ch->z + dp->ebpf <= zij + e)
			b[e] = (struct cap_cell){ .f = ch->f, .z = (uint16_t)(ch->z + dp->ebpf),
						  .s = ch->s, .k = -1 };
	}
	for (size_t k = i; k < j; k++) {
		uint32_t split = dp->cost[k - i];
		if (split >= zij + ne)
			continue;
		const struct cap_cell *l = CAP(dp, i, k, 0), *r = CAP(dp, k + 1, j, 0);
		size_t rooms = zij + ne - split;
		for (size_t room = 0; room < rooms; room++) {
			struct cap_cell *c = &b[split - zij + room];
			for (size_t e1 = 0; e1 <= room; e1++) {
				/* cap_better()'s order, each figure summed only
				 * when the ones before it tie */
				int f = imax(l[e1].f, r[room - e1].f) + 1;
				if (f > c->f)
					continue;
				uint32_t z = (uint32_t)l[e1].z + r[room - e1].z + 1;
				if (f == c->f && z > c->z)
					continue;
				uint64_t s = l[e1].s + r[room - e1].s + w;
				if (cap_better(f, z, s, c))
					*c = (struct cap_cell){ .f = f, .z = (uint16_t)z, .s = s,
								.k = (int16_t)k, .e1 = (uint8_t)e1,
								.e2 = (uint8_t)(room - e1) };
			}
		}
	}
}

/*
 * The fewest tests of each split of [I, J] into DP->cost, and the least of
 * them and CHAIN (the chain's) returned: zmin(I, J).  The DP reads each
 * split's cost twice (for zmin, then to pick the splits that leave some
 * extra), and the sum runs along row I of zmin and down column J, which
 * zcol holds as a row, so that it is one pass over two arrays the
 * compiler can vectorise.  Only a split between two single items, of an
 * interval of two, ends in two leaves and costs the eBPF count its `ja`.
 * PLAIN (for the tests) sums each split as the DP did before, index by
 * index.
 */
static uint32_t cap_costs(struct cap_dp *dp, size_t i, size_t j, uint32_t chain, bool plain)
{
	size_t n = dp->n;
	uint32_t z = chain, *cost = dp->cost;
	if (plain) {
		for (size_t k = i; k < j; k++) {
			cost[k - i] = dp->zmin[i * n + k] + dp->zmin[(k + 1) * n + j] + 1 +
				      (dp->ebpf && k == i && k + 1 == j);
			z = cost[k - i] < z ? cost[k - i] : z;
		}
		return z;
	}
	if (j == i + 1) {
		cost[0] = 1 + dp->ebpf;
		return cost[0] < z ? cost[0] : z;
	}
	const uint16_t *row = &dp->zmin[i * n + i], *col = &dp->zcol[j * n + i + 1];
	size_t m = j - i, k = 0;
	/* two running minima, so that the compares do not wait on each other */
	uint32_t z1 = z;
	for (; k + 2 <= m; k += 2) {
		uint32_t c0 = (uint32_t)row[k] + col[k] + 1, c1 = (uint32_t)row[k + 1] + col[k + 1] + 1;
		cost[k] = c0;
		cost[k + 1] = c1;
		z = c0 < z ? c0 : z;
		z1 = c1 < z1 ? c1 : z1;
	}
	for (; k < m; k++) {
		cost[k] = (uint32_t)row[k] + col[k] + 1;
		z = cost[k] < z ? cost[k] : z;
	}
	return z1 < z ? z1 : z;
}

static uint32_t cap_build(struct dag *g, const struct cap_dp *dp, const struct item *it, size_t i,
			  size_t j, size_t e)
{
	const struct cap_cell *c = CAP(dp, i, j, e);
	if (i == j)
		return it[i].node;
	if (c->k < 0) {
		uint32_t bg, tests;
		chain_of(it, i, j, &bg, &tests);
		return chain_build(g, it, i, j, bg);
	}
	size_t k = (size_t)c->k;
	uint32_t left = cap_build(g, dp, it, i, k, c->e1);
	uint32_t right = cap_build(g, dp, it, k + 1, j, c->e2);
	if (left == NODE_NONE || right == NODE_NONE)
		return NODE_NONE;
	return dag_jmp(g, BPF_JGE, it[k + 1].lo, right, left);
}

static uint32_t capped_build(struct dag *g, const struct range *r, size_t n, unsigned slack,
			     bool ebpf, bool plain)
{
	if (n > DP_MAX || n < 2)
		return layout_tree(g, r, n, LAYOUT_NUMBERS_SIZE);
	uint64_t splits = (uint64_t)n * n * n / 6 + 1;
	size_t ne = (slack < LAYOUT_SLACK_MAX ? slack : LAYOUT_SLACK_MAX) + 1;
	while (ne > 1 && splits * ne * (ne + 1) / 2 > CAP_WORK_MAX)
		ne--;
	struct item *it = malloc(n * sizeof(*it));
	uint64_t *wsum = malloc((n + 1) * sizeof(*wsum));
	struct chain_tab chains = { 0 };
	struct cap_dp dp = { .n = n, .ne = ne, .ebpf = ebpf,
			     .c = malloc(n * n * ne * sizeof(*dp.c)),
			     .zmin = malloc(n * n * sizeof(*dp.zmin)),
			     .zcol = malloc(n * n * sizeof(*dp.zcol)),
			     .cost = malloc(n * sizeof(*dp.cost)) };
	uint32_t root = NODE_NONE;
	if (!it || !wsum || !dp.c || !dp.zmin || !dp.zcol || !dp.cost ||
	    !dag_charge(g, splits * ne))
		goto out;
	/* The items as layout_build() makes them for LAYOUT_NUMBERS_SIZE on
	 * a tree this small: cold ranges pushed down, none merged ahead. */
	wsum[0] = 0;
	for (size_t i = 0; i < n; i++) {
		uint32_t hi = i + 1 < n ? r[i + 1].lo - 1 : UINT32_MAX;
		it[i] = (struct item){ .node = r[i].node, .weight = r[i].weight, .lo = r[i].lo,
				       .key = (g->nodes[r[i].node].cost + 1) / 2 -
					      (r[i].hot ? 0 : COLD_BIAS),
				       .leaf = true, .point = hi == r[i].lo };
		wsum[i + 1] = wsum[i] + it[i].weight;
	}
	if (!chain_tab_init(&chains, it, n, n))
		goto out;
	for (size_t len = 1; len <= n; len++) {
		for (size_t i = 0; i + len <= n; i++) {
			size_t j = i + len - 1;
			uint32_t z = 0;
			if (len > 1) {
				const struct chain_cell *ch = chain_at(&chains, i, j);
				z = cap_costs(&dp, i, j, ch ? ch->z + ebpf : UINT16_MAX, plain);
			}
			dp.zmin[i * n + j] = dp.zcol[j * n + i] = (uint16_t)z;
			if (len > 1)
				cap_fill(&dp, &chains, wsum, i, j);
			else
				for (size_t e = 0; e < ne; e++)
					*CAP(&dp, i, j, e) = (struct cap_cell){ .f = it[i].key, .k = -2 };
		}
	}
	root = cap_build(g, &dp, it, 0, n - 1, ne - 1);
out:
	if (root == NODE_NONE)
		g->oom = true;
	free(it);
	free(wsum);
	free(chains.c);
	free(dp.c);
	free(dp.zmin);
	free(dp.zcol);
	free(dp.cost);
	return root;
}

uint32_t layout_capped(struct dag *g, const struct range *r, size_t n, unsigned slack, bool ebpf)
{
	return capped_build(g, r, n, slack, ebpf, false);
}

uint32_t layout_capped_plain(struct dag *g, const struct range *r, size_t n, unsigned slack,
			     bool ebpf)
{
	return capped_build(g, r, n, slack, ebpf, true);
}
