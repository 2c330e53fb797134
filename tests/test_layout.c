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
#include <cmocka.h>
#include <linux/filter.h>
#include "compiler/dag.h"
#include "compiler/layout.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_memo_hit),
		cmocka_unit_test(test_memo_forgets_failed_trial),
		cmocka_unit_test(test_memo_keeps_kept_trial),
		cmocka_unit_test(test_value_sets_decide),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
