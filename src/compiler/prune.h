/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* Tests whose outcome is implied, dropped from a call's DAG (prune.c). */
#ifndef SCMPC_PRUNE_H
#define SCMPC_PRUNE_H

#include "compiler/dag.h"

struct pruner;

/* A pruner for the calls of G; NULL on ENOMEM. */
struct pruner *pruner_new(struct dag *g);
void pruner_free(struct pruner *pr);

/* The decision ROOT makes when entered with every argument word free and
 * the word of seccomp_data at offset AOFF in A, without a jump only one side of which
 * any input reaches: ROOT itself when there is none, or when the walk
 * would take more steps than its bound; NODE_NONE on ENOMEM (G->oom set).
 * The same ROOT gives the same result for the pruner's life. */
uint32_t prune_call(struct pruner *pr, uint32_t root, uint32_t aoff);

/* The same for a DAG lower_syscall() built: it cuts each word once into
 * pieces on which every condition resolves alike, so only a mask test
 * (a jset, or an and) can leave a fact that a later test does not hear
 * of; without one, ROOT is returned as it is, unwalked. */
uint32_t prune_lowered(struct pruner *pr, uint32_t root, uint32_t aoff);

#endif
