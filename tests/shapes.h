/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * The shapes issue #24 bounds: argument-heavy programs compiled from
 * random policies of one to three ABIs, grown to a target length.  Shared
 * by bench/bench_answer.c (timing) and tests/test_bounds.c (that each
 * command finishes or names its bound).  Public API only.
 */
#ifndef SCMPC_TEST_SHAPES_H
#define SCMPC_TEST_SHAPES_H

#include <stddef.h>
#include <stdint.h>
#include <scmpc.h>

/* A program of at least TARGET instructions (or the largest the growth
 * reached under 4096) compiled from a random policy of SEED: one to three
 * little-endian ABIs, rules of one to three argument conditions each.
 * NULL on failure.  *NABIS (if not NULL) gets how many ABIs it serves. */
scmpc_prog *shape_args_prog(uint64_t seed, size_t target, size_t *nabis);
/* The same on the ABIs ABIS[0..N) (at most three, x32 after x86_64),
 * as the filters of one stack share them. */
scmpc_prog *shape_args_prog_on(uint64_t seed, size_t target, const enum scmpc_arch *abis,
			       size_t n, size_t *nabis);

#endif
