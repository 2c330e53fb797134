/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* The library's internal declarations, all of them, for the tests and
 * benchmarks that reach past the public API (the library's own modules
 * include only what they use, from the folders below them). */
#ifndef SCMPC_TEST_INTERNAL_H
#define SCMPC_TEST_INTERNAL_H

#include "base/base.h"
#include "arch/arch.h"
#include "bpf/bpf.h"
#include "policy/policy.h"
#include "check/check.h"
#include "front/workload.h"

#endif
