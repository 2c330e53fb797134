/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Exact answers about programs (compare.c: diff and subset; intersect.c):
 * what the files of this folder share.  They read programs through the
 * engine and build programs through the compiler's public entry points
 * (optimize.c through compile_policy(), which is scmpc_compile() without
 * the search for a split that a too-large program's message names);
 * nothing below includes them.
 */
#ifndef SCMPC_ANSWER_H
#define SCMPC_ANSWER_H

#include "engine/engine.h"

/* Walk PROGS[0..N) side by side (the engine's EACH mode) into W, after the
 * kernel's acceptance check of each: 0 or a negative errno (D says why).
 * W is the caller's to walker_fini(), whatever the result. */
int answer_walk(struct walker *W, const struct sock_filter *const *progs, const size_t *lens,
		size_t n, size_t max_paths, scmpc_diag *d);

/* The same for PROGS[0..N-1) as the stack they make and PROGS[N-1] set
 * against it (the engine's STACK_THEN mode): W->each as answer_walk()'s,
 * ALLOW for a filter older than a KILL_PROCESS, which did not run. */
int answer_walk_stack(struct walker *W, const struct sock_filter *const *progs,
		      const size_t *lens, size_t n, size_t max_paths, scmpc_diag *d);

/* CAND is less restrictive than BASE by the kernel's precedence, or as
 * restrictive with other data unless IGNORE_DATA. */
bool answer_looser(uint32_t base, uint32_t cand, bool ignore_data);

/* What the kernel returns for a stack whose filters (oldest first) return
 * RETS[0..N): the lowest action, ties to the newest. */
uint32_t answer_stack(const uint32_t *rets, size_t n);

/* What the canary of CANDIDATE returns where ENFORCED returns ENFORCED:
 * LOG where ENFORCED allows the call and CANDIDATE would not let it run
 * (neither ALLOW nor LOG), else ENFORCED's own decision. */
uint32_t answer_canary(uint32_t enforced, uint32_t candidate);

/* The end of every answer that makes a program: on ERR < 0 free PROG and
 * P and return ERR; else hand PROG to *OUT and P to *POLICY (freed when
 * POLICY is NULL) and return 0. */
int answer_hand_out(int err, scmpc_prog *prog, scmpc_policy *p, scmpc_prog **out,
		    scmpc_policy **policy);

#endif
