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

#include "policy/policy.h"

struct lsc_tree;

/* The tree libseccomp builds, one rule at a time as its rule adds grow it:
 * empty, for an ABI whose arguments are compared word by word when WIDE
 * (64-bit) or by their low word.  With PRUNE, each insert first prunes the
 * tree as libseccomp's add does (a covered rule is dropped, a covered
 * subtree goes): what it then refuses is what libseccomp refuses, but the
 * tree may miss rules, so only the compatible library's refusals use it.
 * NULL without memory. */
struct lsc_tree *lsc_tree_new(bool wide, bool prune);
/* Merge rule R (conditional, not the default action; its action from
 * policy rule SOURCE) into T, as libseccomp does when the rule is added
 * after those T holds.  0; -EEXIST where libseccomp refuses the rule,
 * -ELOOP where it would not finish (its merge steps, counted over every
 * insert into T, pass a bound), -ENOMEM: then T is as it was.  About the
 * cost of libseccomp's own insertion: the levels the chain meets. */
int lsc_tree_insert(struct lsc_tree *t, const struct rule *r, uint32_t source);
/* Take back the last insert that succeeded, when no insert came after it
 * (a rule add that another ABI refuses is taken back on every ABI). */
void lsc_tree_undo(struct lsc_tree *t);

/* The tree libseccomp builds when the rules at view positions POS[0..N)
 * of V (one number, none unconditional) are added in that order.  Where
 * libseccomp fails, a warning says so and the result is -EEXIST (a rule it
 * refuses: runc and crun then refuse the profile) or -ELOOP (it would not
 * finish); -ENOMEM is an error. */
int lsc_tree_build(struct lsc_tree **out, const scmpc_policy *p, const struct arch_view *v,
		   const size_t *pos, size_t npos, scmpc_diag *d);
void lsc_tree_free(struct lsc_tree *t);

/* libseccomp drops a condition that tests nothing (a zero mask against
 * zero), so a rule made only of such conditions is unconditional to it:
 * it replaces the call's tree. */
bool lsc_unconditional(const struct rule *r);

/* The action the tree gives SD's arguments, and the policy rule it comes
 * from; false when no branch decides (the call then gets the default
 * action). */
bool lsc_tree_eval(const struct lsc_tree *t, const struct seccomp_data *sd, uint32_t *act,
		   uint32_t *rule);

/* One comparison of a level as the program makes it: the word ((ARG's
 * high half when HI) & MASK) OP DATUM, OP a BPF_JEQ, BPF_JGT or BPF_JGE;
 * per branch ([1] taken when it holds) an action, or the level SUB goes on
 * to (LSC_NONE: neither, the next comparison is tried). */
struct lsc_cmp {
	uint8_t arg;
	bool hi;
	uint32_t mask, datum;
	uint16_t op;
	bool has[2];
	uint32_t act[2];
	int32_t sub[2];
};
#define LSC_NONE (-1)
#define LSC_ROOT (-2)
/* The comparisons of the level that AT (a SUB, or LSC_ROOT) is on, in the
 * order the program tries them: their count, *OUT malloc'ed (NULL when
 * none), or -ENOMEM.  The compiler lowers trees through this
 * (compiler/lsc_lower.c). */
long lsc_tree_level(const struct lsc_tree *t, int32_t at, struct lsc_cmp **out);

/* Whether some argument vector can meet both rules (on an ABI that
 * compares low words only when COMPAT32).  False only when one argument's
 * conditions provably exclude each other. */
bool rules_may_overlap(const struct rule *a, const struct rule *b, bool compat32);

#endif
