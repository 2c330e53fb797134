/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* What the compiler driver asks of the splitter (split.c); not installed. */
#ifndef SCMPC_SPLIT_H
#define SCMPC_SPLIT_H

#include "internal.h"

/* A compile on the splitter's behalf: a piece that does not fit is an
 * answer to the search, not an error worth a hint, and asking for the
 * hint there would search again from inside the search. */
#define COMPILE_NO_SPLIT_HINT 0x80000000U

/* Refuse SCMPC_COMPILE_* flags this version does not know (but EXTRA) or
 * that exclude each other; 0 or -EINVAL with the message in D. */
int compile_flags_check(unsigned flags, unsigned extra, scmpc_diag *d);

/* How many programs of at most 4096 instructions scmpc_compile_split()
 * would make of P (the pieces compiled but not verified), or 0 when no
 * split fits: a group of rules alone is too big, or P needs no split. */
size_t split_count(const scmpc_policy *p);
/* Add to D's error (P did not fit in one program) how many programs
 * scmpc_compile_split() would make of it, when it can. */
void split_hint(const scmpc_policy *p, scmpc_diag *d);

#endif
