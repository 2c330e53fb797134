/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* The splitter (split.c), as the compiler's entry points (api.c) use it. */
#ifndef SCMPC_SPLIT_H
#define SCMPC_SPLIT_H

#include "bpf/bpf.h"
#include "policy/policy.h"

/* The largest program the kernel takes. */
#define SPLIT_MAX_INSNS 4096U

/* scmpc_compile_split() once its options are checked. */
int split_policy(const scmpc_policy *p, const struct scmpc_split_opts *opts, scmpc_prog ***out,
		 scmpc_diag *d);
/* How many programs of at most 4096 instructions scmpc_compile_split()
 * would make of P (the pieces compiled but not verified), or 0 when no
 * split fits: a group of rules alone is too big, or P needs no split. */
size_t split_count(const scmpc_policy *p);
/* Add to D's error (P did not fit in one program) how many programs
 * scmpc_compile_split() would make of it, when it can. */
void split_hint(const scmpc_policy *p, scmpc_diag *d);

#endif
