/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
#ifndef SCMPC_ARGFIRST_H
#define SCMPC_ARGFIRST_H

#include "compiler/layout.h"

/* ROOT, the tree layout_tree() built over the N number ranges R for GOAL,
 * or a tree over them that reaches the argument-checked calls in fewer
 * tests and is neither larger nor longer on its worst path, overall or
 * over the argument-free ranges (argfirst.c).  NODE_NONE (g->oom) without
 * memory. */
uint32_t argfirst_tree(struct dag *g, const struct range *r, size_t n, enum layout_goal goal,
		       uint32_t root);

#endif
