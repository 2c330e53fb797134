/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
#ifndef SCMPC_EMIT_H
#define SCMPC_EMIT_H

#include "compiler/dag.h"

/* Lay out the DAG below ROOT as a cBPF program (*OUT malloc'ed). */
int emit_program(const struct dag *g, uint32_t root, struct sock_filter **out, size_t *len,
		 scmpc_diag *d);

#endif
