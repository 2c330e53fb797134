/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Test-case reduction for policies: when a differential test finds a policy
 * on which two programs disagree, shrink it to a locally minimal one that
 * still shows the failure, and print it as C a developer can paste.
 *
 * The shrinker knows nothing about what "fails" means: the caller's
 * predicate decides, and it is called on every candidate, so whatever the
 * caller derives from the policy (probe points, expected differences) is
 * derived afresh.  Every candidate is rebuilt through the public API, so a
 * reproducer never depends on state the API cannot create.
 */
#ifndef SCMPC_TESTS_SHRINK_H
#define SCMPC_TESTS_SHRINK_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "scmpc.h"

/* True when P still shows the failure being shrunk. */
typedef bool (*shrink_pred)(const scmpc_policy *p, void *ctx);

struct shrink_opts {
	unsigned max_checks;	/* predicate calls; 0 = 5000 */
	uint64_t max_ns;	/* wall time; 0 = 10 s */
};

struct shrink_stats {
	unsigned checks;	/* predicate calls, the first (the copy) included */
	unsigned kept;		/* reductions that kept the failure */
	uint64_t ns;
	bool exhausted;		/* the budget ran out before a local minimum */
	bool lost;		/* the copy of the input no longer fails */
};

/* Shrink P while PRED holds.  Returns a new policy (the caller frees it),
 * or NULL when P's copy through the API does not fail (ST->lost) or memory
 * ran out.  Reductions, repeated until none applies or the budget is spent:
 * drop rules (halves, quarters, ... single rules), drop conditions, drop
 * ABIs, unset the unknown action, restrictive merge, no load flags,
 * KILL_PROCESS for bad arches, a simpler default (ALLOW, KILL_PROCESS,
 * ERRNO(1)), simpler rule actions (the default, ALLOW, ...), and simpler
 * conditions (==, 64-bit, argument 0, constants 0, 1, or the low word). */
scmpc_policy *shrink_policy(const scmpc_policy *p, shrink_pred pred, void *ctx,
			    const struct shrink_opts *o, struct shrink_stats *st);

/* Conditions over all rules of P. */
size_t shrink_cond_count(const scmpc_policy *p);

/* Statements that build P with the public API, into a variable `p`, each
 * line starting with INDENT. */
void shrink_print_c(FILE *f, const scmpc_policy *p, const char *indent);
/* `struct seccomp_data NAME = { ... };` for SD. */
void shrink_print_sd_c(FILE *f, const struct seccomp_data *sd, const char *name,
		       const char *indent);
/* ACT as a C expression: SCMPC_ACT_ERRNO(13), ... */
const char *shrink_act_c(uint32_t act, char *buf, size_t len);

#endif
