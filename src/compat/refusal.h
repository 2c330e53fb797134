/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * libseccomp's refusal of a rule its tree of comparisons will not take
 * (-EEXIST), decided one add at a time.
 *
 * libseccomp merges each rule into the tree of its call as it is added, so
 * whether it refuses the k-th rule on a call depends on that call's rules
 * alone.  An index per ABI keeps, for each number a rule decides (its own,
 * and socketcall(2) or ipc(2) for a multiplexed call there), the rules that
 * reached it and, once two of them have different actions, the tree
 * (lsc_tree.h) grown one insert per add, so that an add costs about what
 * libseccomp's own insertion costs instead of rebuilding every related
 * call's tree.  What it decides is what scmpc_policy_check() decides for a
 * policy of the ABI's rules under SCMPC_MERGE_LIBSECCOMP_STRICT, which the
 * library ran on every add before.
 */
#ifndef SCMPC_COMPAT_REFUSAL_H
#define SCMPC_COMPAT_REFUSAL_H

#include "compat.h"

struct compat_index;

/* An empty index for ABI A; NULL without memory (or for an ABI scmpc does
 * not know). */
struct compat_index *compat_index_new(enum scmpc_arch a);
void compat_index_free(struct compat_index *x);

/* Rule R about to become rule IDX of the ABI's filter, whose rules
 * RULES[0..IDX) the index holds already: 0 when libseccomp takes it (the
 * index then holds it too, until compat_index_undo()), -EEXIST when it
 * refuses it, -ENOMEM; on an error the index is as it was. */
int compat_index_add(struct compat_index *x, const struct compat_rule *rules, uint32_t idx,
		     const struct compat_rule *r);
/* Take back the add that succeeded last (one rule add lands on several
 * ABIs, all or none). */
void compat_index_undo(struct compat_index *x);
/* The add that succeeded last stays; what it made useless goes. */
void compat_index_commit(struct compat_index *x);

/* How many rules the index holds: a filter's index covers its rules
 * [0, n). */
size_t compat_index_count(const struct compat_index *x);

#endif
