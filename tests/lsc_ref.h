/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * The libseccomp reference compiler: builds, with libseccomp 2.5.x, a filter
 * meant to decide every call as an scmpc policy does, so differential tests
 * and benchmarks can hold scmpc against an independent implementation.
 *
 * Names are resolved per ABI with scmpc_syscall_resolve(), so both compilers
 * see the same numbers.
 *
 * What libseccomp cannot say the way scmpc means it (see lsc_check()):
 *  - SCMPC_COND_32BIT: SCMP_CMP32 / SCMP_A*_32 in 2.5.4 only truncate the
 *    datum; the argument's high word is still compared.  lsc_compile()
 *    refuses such policies with -EOPNOTSUPP.
 *  - The unknown-syscall action: libseccomp has no "nr > N" test, so the
 *    reference gives those numbers the default action.
 *  - Overlapping rules with different actions: scmpc lets the most
 *    restrictive one win; libseccomp's result depends on its rule tree (the
 *    first unconditional rule silently drops later ones, identical
 *    conditions give -EEXIST).
 *  - Rules whose action equals the default: libseccomp refuses them
 *    (-EACCES), so the reference leaves them out, as runc does.  That is
 *    harmless unless such a rule can match together with a less restrictive
 *    rule for the same call, where scmpc lets the default-valued rule win.
 *  - SCMPC_MERGE_LIBSECCOMP models libseccomp's "first unconditional rule
 *    decides", but in the IR a default-action rule (which runc drops and
 *    libseccomp refuses) can be that rule, and a rule whose conditions
 *    libseccomp drops as always true cannot (see merge_model_bits()).
 *  - On i386/arm, libseccomp keeps only the low word of a 64-bit datum,
 *    while scmpc folds a condition no 32-bit value meets to a constant.
 *  - i386 socket/IPC calls: see lsc_policy_multiplexes().
 *  - libseccomp treats x32 as a 32-bit ABI: it compares only the low words
 *    of arguments and constants, where scmpc compares all 64 bits.
 *  - MASKED_EQ whose expected value has bits outside the mask: libseccomp
 *    masks the expected value too, (arg & m) == (v & m); for scmpc, as
 *    written in OCI, (arg & m) == v never holds.
 *  - libseccomp 2.5.4 bugs: when rules for one call test a common argument
 *    its tree merge can lose rules (see tree_merge_unsafe() in lsc_ref.c
 *    for the exact patterns and reproducers).
 */
#ifndef SCMPC_TESTS_LSC_REF_H
#define SCMPC_TESTS_LSC_REF_H

#include <stddef.h>
#include <linux/filter.h>
#include "scmpc.h"

/* Compile P with libseccomp at OPTIMIZE_LEVEL (1: linear, 2: binary tree).
 * *INSNS is malloc'ed.  Returns 0 or a negative errno with a message in ERR
 * (-EOPNOTSUPP when P uses something libseccomp cannot express,
 * -ETIMEDOUT when libseccomp hangs: the work runs in a forked child, since
 * 2.5.4 can loop forever adding rules). */
int lsc_compile(const scmpc_policy *p, int optimize_level, struct sock_filter **insns,
		size_t *len, char *err, size_t errlen);

/* lsc_compile() in two steps and in this process, so that benchmarks time
 * only libseccomp's work (filter, rules, export) and not the reference's own
 * name lookups and checks.  The plan refers to P, which must outlive it.
 * Only for policies known not to make libseccomp hang. */
typedef struct lsc_plan lsc_plan;
int lsc_plan_new(const scmpc_policy *p, lsc_plan **out, char *err, size_t errlen);
int lsc_plan_compile(const lsc_plan *pl, int optimize_level, struct sock_filter **insns,
		     size_t *len, char *err, size_t errlen);
void lsc_plan_free(lsc_plan *pl);

/* Reasons libseccomp's decisions may differ from the policy's (bits). */
#define LSC_DIFF_COND32		0x01U	/* SCMPC_COND_32BIT condition */
#define LSC_DIFF_UNKNOWN	0x02U	/* unknown-syscall action set */
#define LSC_DIFF_OVERLAP	0x04U	/* rules with different actions may match together */
#define LSC_DIFF_DEFAULT_RULE	0x08U	/* a default-action rule may overlap a weaker one */
#define LSC_DIFF_WIDE32		0x10U	/* 64-bit constant on an ABI libseccomp takes as 32-bit */
#define LSC_DIFF_SAME_ARG	0x20U	/* two conditions on one argument in a rule (-EINVAL) */
#define LSC_DIFF_MASKED		0x40U	/* MASKED_EQ value with bits outside the mask */
#define LSC_DIFF_TREE		0x80U	/* rules libseccomp 2.5.4 merges wrongly */
#define LSC_DIFF_UNNAMED	0x200U	/* a call libseccomp 2.5.4's table lacks: its
					   programs give the default action there */

/* ABIs whose arguments libseccomp compares as 32-bit: i386, arm and x32. */
bool lsc_narrow_abi(enum scmpc_arch a);

/* The LSC_DIFF_* bits that apply to P; WHY (if not NULL) gets the first
 * offending rule in words.  Overlap detection is conservative: rules are
 * reported as overlapping unless one argument's conditions provably
 * exclude each other. */
unsigned lsc_check(const scmpc_policy *p, char *why, size_t whylen);

/* The same reasons per call (LSC_DIFF_OVERLAP, _DEFAULT_RULE, _WIDE32,
 * _MASKED, _TREE, _UNNAMED): *OUT (malloc'ed) lists each (ABI, number) with
 * a reason, possibly in several entries.  Returns the count or a negative
 * errno. */
struct lsc_call_diff {
	enum scmpc_arch arch;
	uint32_t nr;
	unsigned bits;
};
long lsc_call_diffs(const scmpc_policy *p, struct lsc_call_diff **out);
unsigned lsc_call_diff_find(const struct lsc_call_diff *d, size_t n, enum scmpc_arch a,
			    uint32_t nr);

/* True when P has rules for socket or SysV IPC calls on ABI A and A has the
 * socketcall(2)/ipc(2) multiplexers: both compilers add multiplexed copies
 * of those rules, scmpc's restrictive merge differently from libseccomp
 * (see include/scmpc.h), its LIBSECCOMP merge as libseccomp does. */
bool lsc_policy_multiplexes(const scmpc_policy *p, enum scmpc_arch a);

#endif
