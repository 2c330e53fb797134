/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Search-tree layout and the DAG's memo of built trees: a tree asked for
 * twice is built once and charges its work twice; a trial that is given
 * up takes its trees with it; every tree decides each range as given.
 *
 * Decisions are checked by walking the DAG here, against the ranges the
 * test wrote; sizes against counts derived by hand.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <linux/filter.h>
#include "compiler/dag.h"
#include "compiler/layout.h"
#include "compiler/treecache.h"
#include "testutil.h"

/* The return value the DAG gives for accumulator value V from ROOT; the
 * walk fails the test on a node id the DAG does not hold. */
static uint32_t walk(const struct dag *g, uint32_t root, uint32_t v)
{
	uint32_t id = root;
	for (;;) {
		assert_true(id < g->n);
		const struct node *n = dag_node(g, id);
		if (n->kind == N_RET)
			return n->k;
		assert_int_equal(n->kind, N_JMP);
		bool t;
		switch (n->op) {
		case BPF_JEQ:
			t = v == n->k;
			break;
		case BPF_JGE:
			t = v >= n->k;
			break;
		default:
			fail_msg("unexpected op %u", n->op);
			return 0;
		}
		id = t ? n->a : n->b;
	}
}

/* N ranges from 0 in steps of 10, alternating between nodes A and B. */
static void ranges(struct range *r, size_t n, uint32_t a, uint32_t b)
{
	for (size_t i = 0; i < n; i++)
		r[i] = (struct range){ .lo = (uint32_t)(10 * i), .node = i % 2 ? b : a, .weight = 1,
				       .hot = true };
}

static void check_decides(const struct dag *g, uint32_t root, const struct range *r, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint32_t want = dag_node(g, r[i].node)->k;
		assert_int_equal(walk(g, root, r[i].lo), want);
		assert_int_equal(walk(g, root, r[i].lo + 9), want);
	}
}

static void test_memo_hit(void **state)
{
	(void)state;
	struct dag g;
	dag_init(&g);
	uint32_t a = dag_ret(&g, 1), b = dag_ret(&g, 2);
	struct range r[12];
	ranges(r, 12, a, b);
	for (int goal = LAYOUT_NUMBERS; goal <= LAYOUT_ARGS_COMPACT; goal++) {
		uint64_t w0 = g.work;
		uint32_t root = layout_tree(&g, r, 12, (enum layout_goal)goal);
		assert_int_not_equal(root, NODE_NONE);
		size_t nodes = g.n;
		uint64_t w1 = g.work;
		/* Asked again: the same root, no node added, the same work
		 * charged again. */
		assert_int_equal(layout_tree(&g, r, 12, (enum layout_goal)goal), root);
		assert_int_equal(g.n, nodes);
		assert_true(g.work - w1 == w1 - w0);
		check_decides(&g, root, r, 12);
	}
	/* Twelve ranges of two alternating decisions need eleven tests
	 * (one boundary each, none can share): every goal's tree has them
	 * all and no more. */
	assert_int_equal(dag_reach(&g, layout_tree(&g, r, 12, LAYOUT_ARGS)), 11 + 2);
	dag_fini(&g);
}

static void test_memo_forgets_failed_trial(void **state)
{
	(void)state;
	struct dag g;
	dag_init(&g);
	uint32_t a = dag_ret(&g, 1);
	struct dag_mark m;
	dag_trial_begin(&g, &m, 1000, 1000);
	uint32_t x = dag_ret(&g, 111);
	struct range r[10];
	ranges(r, 10, a, x);
	uint32_t stale = layout_tree(&g, r, 10, LAYOUT_ARGS);
	assert_int_not_equal(stale, NODE_NONE);
	check_decides(&g, stale, r, 10);
	/* Past the trial's work bound: given up, its nodes gone. */
	assert_false(dag_charge(&g, 2000));
	assert_false(dag_trial_end(&g, &m));
	assert_int_equal(g.n, m.n);

	/* The same node id now holds another return; the same key must not
	 * bring back the tree that decided 111. */
	uint32_t y = dag_ret(&g, 222);
	assert_int_equal(y, x);
	uint32_t root = layout_tree(&g, r, 10, LAYOUT_ARGS);
	assert_int_not_equal(root, NODE_NONE);
	check_decides(&g, root, r, 10);
	assert_int_equal(walk(&g, root, 15), 222);
	dag_fini(&g);
}

/* A trial that succeeds keeps its trees: asked again after it, no work
 * is redone and the root is the same. */
static void test_memo_keeps_kept_trial(void **state)
{
	(void)state;
	struct dag g;
	dag_init(&g);
	uint32_t a = dag_ret(&g, 1);
	struct dag_mark m;
	dag_trial_begin(&g, &m, 1000, 1000000);
	uint32_t x = dag_ret(&g, 7);
	struct range r[9];
	ranges(r, 9, a, x);
	uint32_t root = layout_tree(&g, r, 9, LAYOUT_NUMBERS);
	assert_true(dag_trial_end(&g, &m));
	size_t nodes = g.n;
	assert_int_equal(layout_tree(&g, r, 9, LAYOUT_NUMBERS), root);
	assert_int_equal(g.n, nodes);
	check_decides(&g, root, r, 9);
	dag_fini(&g);
}

/* Value sets (single values in a background) of every length up to past
 * the longest chain the searches consider, with several point runs: the
 * tree decides every value and every gap as given, for each goal. */
static void test_value_sets_decide(void **state)
{
	(void)state;
	for (size_t len = 2; len <= 70; len++) {
		struct dag g;
		dag_init(&g);
		uint32_t bg = dag_ret(&g, 0), hit[3] = { dag_ret(&g, 5), dag_ret(&g, 6),
							 dag_ret(&g, 7) };
		struct range r[160];
		size_t n = 0;
		r[n++] = (struct range){ 0, bg, 1, true };
		for (size_t i = 0; i < len; i++) {
			/* one point, or (every fifth) two adjacent ones that
			 * decide apart, then the background again */
			uint32_t v = (uint32_t)(10 * i + 3);
			r[n++] = (struct range){ v, hit[i % 3], 1, true };
			if (i % 5 == 4)
				r[n++] = (struct range){ ++v, hit[(i + 1) % 3], 1, true };
			r[n++] = (struct range){ v + 1, bg, 1, true };
		}
		for (int goal = LAYOUT_NUMBERS; goal <= LAYOUT_ARGS_COMPACT; goal++) {
			uint32_t root = layout_tree(&g, r, n, (enum layout_goal)goal);
			assert_int_not_equal(root, NODE_NONE);
			for (size_t i = 0; i < n; i++) {
				uint32_t hi = i + 1 < n ? r[i + 1].lo - 1 : r[i].lo + 100;
				uint32_t want = dag_node(&g, r[i].node)->k;
				assert_int_equal(walk(&g, root, r[i].lo), want);
				assert_int_equal(walk(&g, root, hi), want);
			}
		}
		dag_fini(&g);
	}
}

/*
 * The exact search skips splits it can prove cannot win (f_window() in
 * src/compiler/layout.c and what follows it); layout_tree_exhaustive()
 * tries every one.  Both must build the same tree, tie-breaks included,
 * so the same root (the DAG shares equal nodes).  The inputs mix the
 * shapes the compiler meets: leaves of many costs (argument checks under
 * a number), cold runs, single values in a background (jeq chains, whose
 * background rule can make the worst key fall as an interval grows, where
 * the pruning must stand down), allowlists, and weights from 0 up.
 */
enum shape { SHAPE_MIXED, SHAPE_ALLOWLIST, SHAPE_VALUE_SET, SHAPE_WIDE_FIRST, SHAPE_NSHAPES };

static size_t random_ranges(struct testutil_rng *rng, struct dag *g, enum shape shape,
			    struct range *r, size_t max)
{
	/* Leaves costing 1 (returns) to 9 (tests above a return). */
	uint32_t leaf[12];
	for (uint32_t c = 0; c < ARRAY_SIZE(leaf); c++) {
		uint32_t x = dag_ret(g, c < 4 ? c : 1);
		for (uint32_t t = 4; t <= c; t++)
			x = dag_jmp(g, BPF_JEQ, 1000 * c + t, x, dag_ret(g, 0));
		leaf[c] = x;
	}
	size_t n = 2 + testutil_rng_below(rng, (uint32_t)max - 1);
	uint32_t lo = 0;
	for (size_t i = 0; i < n; i++) {
		uint32_t node, step;
		switch (shape) {
		case SHAPE_ALLOWLIST:	/* points allowed in a denied background */
			node = i % 2 ? leaf[1 + testutil_rng_below(rng, 2) * 9] : leaf[0];
			step = i % 2 ? 1 : 1 + testutil_rng_below(rng, 12);
			break;
		case SHAPE_VALUE_SET:	/* few decisions, mostly single values */
			node = leaf[testutil_rng_below(rng, 3)];
			step = testutil_rng_below(rng, 4) ? 1 : 2 + testutil_rng_below(rng, 5);
			break;
		case SHAPE_WIDE_FIRST:	/* runs of single values, each after a wide range */
			node = leaf[testutil_rng_below(rng, 3)];
			step = testutil_rng_below(rng, 12) ? 1 : 2 + testutil_rng_below(rng, 5);
			break;
		default:
			node = leaf[testutil_rng_below(rng, ARRAY_SIZE(leaf))];
			step = testutil_rng_below(rng, 2) ? 1 : 1 + testutil_rng_below(rng, 40);
			break;
		}
		if (i && node == r[i - 1].node)
			node = node == leaf[0] ? leaf[2] : leaf[0];
		uint32_t weight = testutil_rng_below(rng, 8) ? 1 + testutil_rng_below(rng, step * 3)
							     : testutil_rng_below(rng, 2);
		/* a cold run now and then, as x32's numbers are in x86_64's tree */
		bool hot = i < n / 2 || i > n / 2 + n / 8 || shape >= SHAPE_VALUE_SET;
		r[i] = (struct range){ lo, node, weight, hot };
		lo += step;
	}
	return n;
}

static void test_search_matches_exhaustive(void **state)
{
	(void)state;
	struct testutil_rng rng;
	testutil_rng_seed(&rng, 26);
	static struct range r[200];
	unsigned cases = 0;
	for (unsigned round = 0; round < 600; round++) {
		struct dag g;
		dag_init(&g);
		enum shape shape = (enum shape)(round % SHAPE_NSHAPES);
		/* most cases the size the exact search takes, some past it */
		size_t n = random_ranges(&rng, &g, shape, r, round % 10 ? 170 : ARRAY_SIZE(r));
		for (int goal = LAYOUT_NUMBERS; goal <= LAYOUT_ARGS_COMPACT; goal++) {
			uint32_t fast = layout_tree(&g, r, n, (enum layout_goal)goal);
			uint32_t slow = layout_tree_exhaustive(&g, r, n, (enum layout_goal)goal);
			assert_int_not_equal(fast, NODE_NONE);
			if (fast != slow)
				fail_msg("round %u, %zu ranges, goal %d: trees differ", round, n, goal);
			cases++;
		}
		dag_fini(&g);
	}
	assert_int_equal(cases, 600 * 4);
}

/*
 * layout_capped() sums each split's fewest tests in one pass over a row
 * and a transposed column (cap_costs() in src/compiler/layout.c);
 * layout_capped_plain() sums them index by index as the search first did.
 * Every slack and both counts (tests, eBPF) must build the same tree.
 */
static void test_capped_matches_plain(void **state)
{
	(void)state;
	struct testutil_rng rng;
	testutil_rng_seed(&rng, 2626);
	static struct range r[200];
	unsigned cases = 0;
	for (unsigned round = 0; round < 160; round++) {
		struct dag g;
		dag_init(&g);
		enum shape shape = (enum shape)(round % SHAPE_NSHAPES);
		size_t n = random_ranges(&rng, &g, shape, r, round % 8 ? 40 : 120);
		for (unsigned slack = 0; slack <= LAYOUT_SLACK_MAX; slack++) {
			for (int ebpf = 0; ebpf < 2; ebpf++) {
				uint32_t fast = layout_capped(&g, r, n, slack, ebpf);
				uint32_t slow = layout_capped_plain(&g, r, n, slack, ebpf);
				assert_int_not_equal(fast, NODE_NONE);
				if (fast != slow)
					fail_msg("round %u, %zu ranges, slack %u, ebpf %d: trees differ",
						 round, n, slack, ebpf);
				cases++;
			}
		}
		dag_fini(&g);
	}
	assert_int_equal(cases, 160 * (LAYOUT_SLACK_MAX + 1) * 2);
}


/*
 * A compile's later lowerings replay the searches of its earlier ones
 * (src/compiler/treecache.c) into a fresh DAG whose node ids differ.
 * The replay must leave that DAG exactly as the search would: the same
 * root, the same nodes, the same work charged, and, when the DAG's work
 * bound stops the build part way, the same stop.  Each round searches
 * the ranges in one DAG (kept), then builds them in two more DAGs that
 * hold other nodes first, one replaying, one searching.
 */
static size_t shared_ranges(struct testutil_rng rng, struct dag *g, enum shape shape,
			    struct range *r, size_t max, unsigned pad)
{
	for (unsigned i = 0; i < pad; i++)
		dag_ret(g, 90000 + i);
	return random_ranges(&rng, g, shape, r, max);
}

static void test_shared_matches_search(void **state)
{
	(void)state;
	struct testutil_rng rng;
	testutil_rng_seed(&rng, 2626 * 26);
	static struct range ra[200], rb[200], rc[200];
	unsigned replayed = 0, stopped = 0;
	for (unsigned round = 0; round < 200; round++) {
		enum shape shape = (enum shape)(round % SHAPE_NSHAPES);
		size_t max = round % 10 ? 170 : ARRAY_SIZE(ra);
		struct testutil_rng at = rng;
		testutil_rng_next(&rng);
		for (int goal = LAYOUT_NUMBERS; goal <= LAYOUT_ARGS_COMPACT; goal++) {
			struct tree_cache *c = tree_cache_new();
			assert_non_null(c);
			struct dag a, b, s;
			dag_init(&a);
			dag_init(&b);
			dag_init(&s);
			a.trees = b.trees = c;
			size_t n = shared_ranges(at, &a, shape, ra, max, 0);
			assert_int_equal(shared_ranges(at, &b, shape, rb, max, 3 + round % 5), n);
			assert_int_equal(shared_ranges(at, &s, shape, rc, max, 3 + round % 5), n);
			uint32_t ka = layout_tree(&a, ra, n, (enum layout_goal)goal);
			assert_int_not_equal(ka, NODE_NONE);
			size_t kept = tree_cache_count(c);
			/* Every other round the work bound falls inside the
			 * build (where it charges any): both stop, at the same
			 * point. */
			if (round % 2 && a.work > 1)
				b.max_work = s.max_work = b.work + a.work / 2;
			uint32_t kb = layout_tree(&b, rb, n, (enum layout_goal)goal);
			uint32_t ks = layout_tree(&s, rc, n, (enum layout_goal)goal);
			if (kb != ks || b.n != s.n || b.work != s.work || b.oom != s.oom ||
			    b.too_big != s.too_big)
				fail_msg("round %u, %zu ranges, goal %d: replay %u (%zu nodes, work %llu)"
					 " != search %u (%zu nodes, work %llu)", round, n, goal, kb, b.n,
					 (unsigned long long)b.work, ks, s.n, (unsigned long long)s.work);
			stopped += b.too_big;
			for (size_t i = 0; i < b.n; i++)
				if (memcmp(&b.nodes[i], &s.nodes[i], sizeof(b.nodes[i])))
					fail_msg("round %u, goal %d: node %zu differs", round, goal, i);
			/* A tree of 16 ranges or more is kept and replayed, not searched again. */
			if (n >= 16 && kept) {
				assert_int_equal(tree_cache_count(c), kept);
				replayed++;
			}
			dag_fini(&a);
			dag_fini(&b);
			dag_fini(&s);
			tree_cache_free(c);
		}
	}
	if (replayed < 500 || stopped < 20)
		fail_msg("%u replays, %u stopped builds", replayed, stopped);
}

/* Ranges alike in all but which of them share a node, or in all but a
 * node's cost, are different searches: the cache must not replay one for
 * the other. */
static void test_shared_tells_nodes_apart(void **state)
{
	(void)state;
	struct tree_cache *c = tree_cache_new();
	assert_non_null(c);
	struct dag g;
	dag_init(&g);
	g.trees = c;
	uint32_t a = dag_ret(&g, 1), b = dag_ret(&g, 2), x = dag_ret(&g, 3);
	struct range r[24];
	ranges(r, 24, a, b);
	uint32_t two = layout_tree(&g, r, 24, LAYOUT_NUMBERS);
	check_decides(&g, two, r, 24);
	/* The same costs, bounds and weights, a third return in the middle. */
	r[11].node = x;
	uint32_t three = layout_tree(&g, r, 24, LAYOUT_NUMBERS);
	assert_int_not_equal(three, NODE_NONE);
	check_decides(&g, three, r, 24);
	/* The same pattern of nodes, the middle one an argument check: it
	 * costs more, which the search weighs. */
	uint32_t y = dag_jmp(&g, BPF_JEQ, 5, x, dag_ret(&g, 4));
	r[11].node = y;
	uint32_t check = layout_tree(&g, r, 24, LAYOUT_NUMBERS);
	assert_int_not_equal(check, NODE_NONE);
	assert_int_equal(walk(&g, check, r[10].lo), 1);
	assert_int_equal(walk(&g, check, r[11].lo), 4);
	assert_int_equal(walk(&g, check, r[13].lo), 2);
	assert_int_equal(tree_cache_count(c), 3);
	dag_fini(&g);
	tree_cache_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_memo_hit),
		cmocka_unit_test(test_memo_forgets_failed_trial),
		cmocka_unit_test(test_memo_keeps_kept_trial),
		cmocka_unit_test(test_value_sets_decide),
		cmocka_unit_test(test_search_matches_exhaustive),
		cmocka_unit_test(test_capped_matches_plain),
		cmocka_unit_test(test_shared_matches_search),
		cmocka_unit_test(test_shared_tells_nodes_apart),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
