/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * What one condition means, written once for the tests and the fuzzers
 * (probe selection, the kernel differential, the fuzzers' reference) and
 * independently of the library's own evaluator (src/policy/policy_eval.c), which
 * they judge: a bug there must not be copied here.
 */
#ifndef SCMPC_TESTS_ORACLE_H
#define SCMPC_TESTS_ORACLE_H

#include <stdbool.h>
#include <stdint.h>

#include "scmpc.h"

/* Whether argument X meets C: on a 32-bit ABI (COMPAT32) or for a
 * SCMPC_COND_32BIT condition only the low word of X takes part, compared
 * with the whole constant; MASKED_EQ masks both sides, as libseccomp does. */
static inline bool oracle_cond(const struct scmpc_cond *c, uint64_t x, bool compat32)
{
	if (compat32 || (c->flags & SCMPC_COND_32BIT))
		x &= 0xffffffffULL;
	switch (c->op) {
	case SCMPC_OP_EQ: return x == c->value;
	case SCMPC_OP_NE: return x != c->value;
	case SCMPC_OP_LT: return x < c->value;
	case SCMPC_OP_LE: return x <= c->value;
	case SCMPC_OP_GT: return x > c->value;
	case SCMPC_OP_GE: return x >= c->value;
	case SCMPC_OP_MASKED_EQ: return (x & c->value) == (c->value2 & c->value);
	}
	return false;
}

#endif
