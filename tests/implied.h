/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Tests whose outcome is implied: a conditional jump with two distinct
 * targets of which every input that reaches it takes the same one.  Such a
 * jump is correct (the semantic check passes) but wastes an instruction and
 * a step on every path through it, so nothing else catches it.  Found
 * exactly with the engine: every path of the program, each replayed on one
 * of its inputs to learn the outcome it takes at every jump it passes.
 */
#ifndef SCMPC_TESTS_IMPLIED_H
#define SCMPC_TESTS_IMPLIED_H

#include <linux/filter.h>
#include <stddef.h>
#include <stdint.h>

struct implied {
	size_t jumps;		/* conditional jumps with two distinct targets, reached */
	size_t implied;		/* of those, the ones only one outcome reaches */
	long first;		/* the first such instruction, -1 when none */
	int first_taken;	/* its only outcome: 1 true, 0 false */
	size_t paths;		/* paths walked */
};

/* Fill R for the program; 0, or a negative errno when the engine cannot
 * walk it within MAX_PATHS paths (-E2BIG) or refuses it. */
int implied_tests(const struct sock_filter *insns, size_t len, size_t max_paths,
		  struct implied *r);

#endif
