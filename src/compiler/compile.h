/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * The compiler: a policy to a checked program.  compile.c is the pipeline
 * (options, views, lowering, layout, emission, both checks), size.c the
 * choice of layout, split.c the stack of programs for a policy too big for
 * one, api.c the public entry points over them.  It reads policies and
 * their views; it changes neither.
 */
#ifndef SCMPC_COMPILE_H
#define SCMPC_COMPILE_H

#include "bpf/bpf.h"
#include "policy/policy.h"

/* Refuse SCMPC_COMPILE_* flags this version does not know or that exclude
 * each other; 0 or -EINVAL with the message in D. */
int compile_flags_check(unsigned flags, scmpc_diag *d);

/* Lowering work (dag_charge() units) that several compiles share: the
 * splitter's bound on all the pieces it compiles.  Each lowering may spend
 * what is left, at most DAG_MAX_WORK, and what it spent is taken off. */
struct compile_budget {
	uint64_t left;
};

/* P compiled and checked as scmpc_compile() does (O already checked by
 * the caller, or NULL).  On -E2BIG, *SIZE_BOUND (if not NULL) says whether
 * the program's size stopped it, not one of the compiler's own bounds:
 * then a stack of programs may hold the policy.  BUDGET (or NULL) bounds
 * the lowering's work with the compiles that share it. */
int compile_policy(const scmpc_policy *p, const struct scmpc_compile_opts *o, scmpc_prog **out,
		   bool *size_bound, struct compile_budget *budget, scmpc_diag *d);

/* size.c: P's program emitted in the layout the caller's flags and the
 * program's size call for (*INSNS malloc'ed).  On -E2BIG, *SIZE_BOUND as
 * compile_policy() says; BUDGET as there. */
int size_lower_emit(const scmpc_policy *p, struct arch_view *views,
		    const struct scmpc_compile_opts *o, struct sock_filter **insns, size_t *len,
		    bool *size_bound, struct compile_budget *budget, scmpc_diag *d);

#endif
