/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Generated policies that the benchmarks measure and the tests hold to
 * the same promises: one definition, so that a family the benchmark shows
 * is a family the suites check.  All are for x86_64; each returns NULL on
 * failure.
 */
#ifndef SCMPC_TESTS_FAMILIES_H
#define SCMPC_TESTS_FAMILIES_H

#include <stdbool.h>
#include "scmpc.h"

/* 1 to 3 unconditional allows (read, write, exit_group), the rest ERRNO(1). */
scmpc_policy *family_tiny(unsigned rules);

/* NAME allowed for N values of arg0, every third number from 3; WIDE gives
 * each value a high word of its own (full 64-bit constants).  Default
 * ERRNO(1). */
scmpc_policy *family_value_set(const char *name, unsigned n, bool wide);

/* ioctl, fcntl and prctl, each allowed for 19 full 64-bit values of arg0:
 * the same values for all three, or (OWN) values of its own for each. */
scmpc_policy *family_wide_sets(bool own);

/* A virtual machine monitor's filter as such programs write them: 76
 * rules of 2 or 3 argument conditions, 18 unconditional calls. */
scmpc_policy *family_vmm(void);

/* N calls (the lowest numbers with a name), each allowed for R distinct
 * arg0 values of its own, or unconditionally when R is 0. */
scmpc_policy *family_synthetic(unsigned n, unsigned r);

/* N argument-free calls spread evenly over the table (numbers 0..449),
 * the rest ERRNO(1): the small scattered allowlists. */
scmpc_policy *family_scattered(unsigned n);

/* The first N names of a daemon's argument-free allowlist (up to 91). */
scmpc_policy *family_allowlist(unsigned n);

/* Firecracker's three filters in shape: a thread's calls allowed outright
 * and calls allowed for a few values of one to three arguments, each value
 * a rule, the rest TRAP.  KIND 0 is the VMM thread's, 1 the API thread's,
 * 2 a vCPU thread's; SEED (0: the shape as it is) drops and varies some
 * of the calls and values; QWORD compares all 64 bits, else the low 32
 * only, as Firecracker's "dword" does (a mask of the low word). */
scmpc_policy *family_firecracker(unsigned kind, unsigned seed, bool qword);

/* Two rules of one call with 64-bit order conditions (an address above
 * the first page, a length over 4 GiB, a bound on a flag): the smallest
 * policy whose plain chain tests a high word for a range. */
scmpc_policy *family_two_rule_64(void);

#endif
