/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Executed-path figures of a program against the policy it stands for,
 * shared by bench_compare and bench_gvisor so that every compiler they
 * compare is measured by one piece of code (scmpc_emulate()), whoever
 * built the program.
 */
#ifndef SCMPC_BENCH_PATHS_H
#define SCMPC_BENCH_PATHS_H

#include <stddef.h>
#include "scmpc.h"

/* Instructions executed for SD, 0 when the program cannot run it. */
unsigned bench_steps(const struct sock_filter *insns, size_t len, const struct seccomp_data *sd);

/* Longest executed path over the first 1024 numbers of P's first ABI and
 * every probe vector of each argument-checked call; *AF (if not NULL) gets
 * the longest over the numbers whose decision needs no argument. */
unsigned bench_worst_path(const scmpc_policy *p, const struct sock_filter *insns, size_t len,
			  unsigned *af);

/* The mean path over P's argument-checked rules, each run on the
 * arguments that meet it (scmpc_conds_witness()) on the first ABI: the
 * figure issue #26 holds scmpc to against gVisor's.  -1 when P has none. */
double bench_arg_rule_mean(const scmpc_policy *p, const struct sock_filter *insns, size_t len);

#endif
