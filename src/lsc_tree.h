/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * libseccomp's tree of one syscall's argument checks, as runc and crun get
 * it from libseccomp 2.5.4: what the LIBSECCOMP merge decides for a call
 * whose conditional rules with different actions can match the same
 * arguments.  There "the most restrictive action wins" is not what the
 * runtimes install; the order libseccomp puts the comparisons in decides.
 */
#ifndef SCMPC_LSC_TREE_H
#define SCMPC_LSC_TREE_H

#include "dag.h"
#include "internal.h"

struct lsc_tree;

/* The tree libseccomp builds when the rules at view positions POS[0..N)
 * of V (one number, none unconditional) are added in that order.  Where
 * libseccomp fails, a warning says so and the result is -EEXIST (a rule it
 * refuses: runc and crun then refuse the profile) or -ELOOP (it would not
 * finish); -ENOMEM is an error. */
int lsc_tree_build(struct lsc_tree **out, const scmpc_policy *p, const struct arch_view *v,
		   const size_t *pos, size_t npos, scmpc_diag *d);
void lsc_tree_free(struct lsc_tree *t);

/* The action the tree gives SD's arguments, and the policy rule it comes
 * from; false when no branch decides (the call then gets the default
 * action). */
bool lsc_tree_eval(const struct lsc_tree *t, const struct seccomp_data *sd, uint32_t *act,
		   uint32_t *rule);

/* The tree as DAG nodes on ABI AI, going to NONE where no branch decides;
 * NODE_NONE on failure (g->oom set). */
uint32_t lsc_tree_lower(struct dag *g, const struct lsc_tree *t, const struct arch_info *ai,
			uint32_t none);

/* Whether some argument vector can meet both rules (on an ABI that
 * compares low words only when COMPAT32).  False only when one argument's
 * conditions provably exclude each other. */
bool rules_may_overlap(const struct rule *a, const struct rule *b, bool compat32);

#endif
