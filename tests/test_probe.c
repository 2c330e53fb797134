/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * The probes for comparing programs (src/program/probe.c), through the public API
 * only: argument values from policies and programs, the numbers of an
 * ABI, and what one call's decision reads.  Expected values are worked out
 * by hand from the documentation in scmpc.h.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <linux/audit.h>
#include "scmpc.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static bool has(const uint64_t *v, size_t n, uint64_t x)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == x)
			return true;
	return false;
}

static void assert_sorted_unique(const uint64_t *v, size_t n)
{
	for (size_t i = 1; i < n; i++)
		assert_true(v[i - 1] < v[i]);
}

static void test_empty_set(void **state)
{
	(void)state;
	scmpc_probes *ps = scmpc_probes_new();
	const uint64_t *v = (const uint64_t *)1;

	assert_non_null(ps);
	for (unsigned a = 0; a < 6; a++) {
		assert_int_equal(scmpc_probes_values(ps, a, &v), 2);
		assert_true(v[0] == 0 && v[1] == UINT64_MAX);
	}
	assert_int_equal(scmpc_probes_values(ps, 6, &v), 0);
	assert_null(v);
	assert_int_equal(scmpc_probes_values(NULL, 0, NULL), 0);
	assert_int_equal(scmpc_probes_add_policy(NULL, NULL, NULL), -EINVAL);
	assert_int_equal(scmpc_probes_add_policy(ps, NULL, NULL), -EINVAL);
	assert_int_equal(scmpc_probes_add_prog(ps, NULL, 1, NULL), -EINVAL);
	struct sock_filter ret = BPF_STMT(BPF_RET | BPF_K, SCMPC_ACT_ALLOW);
	assert_int_equal(scmpc_probes_add_prog(ps, &ret, 0, NULL), -EINVAL);
	scmpc_probes_free(ps);
	scmpc_probes_free(NULL);
}

static void test_values_from_policy(void **state)
{
	(void)state;
	scmpc_policy *p = scmpc_policy_new(SCMPC_ACT_ALLOW);
	scmpc_probes *ps = scmpc_probes_new();
	struct scmpc_cond eq = { .arg = 1, .op = SCMPC_OP_EQ, .value = 5 };
	struct scmpc_cond masked = { .arg = 2, .op = SCMPC_OP_MASKED_EQ, .value = 0xf0,
				     .value2 = 0x30 };
	struct scmpc_rule r1 = { .sz = sizeof(r1), .syscall = "read",
				 .action = SCMPC_ACT_ERRNO(1), .conds = &eq, .nconds = 1 };
	struct scmpc_rule r2 = { .sz = sizeof(r2), .syscall = "write",
				 .action = SCMPC_ACT_ERRNO(1), .conds = &masked, .nconds = 1 };
	const uint64_t *v;
	size_t n;

	assert_non_null(p);
	assert_non_null(ps);
	assert_int_equal(scmpc_policy_add_rule(p, &r1, NULL), 0);
	assert_int_equal(scmpc_policy_add_rule(p, &r2, NULL), 1);
	assert_int_equal(scmpc_probes_add_policy(ps, p, NULL), 0);

	n = scmpc_probes_values(ps, 1, &v);
	assert_sorted_unique(v, n);
	assert_int_equal(n, 6);	/* 0, 4, 5, 6, 5 with the high word flipped, ~0 */
	assert_true(has(v, n, 4) && has(v, n, 5) && has(v, n, 6));
	assert_true(has(v, n, 0xffffffff00000005ULL));
	/* the datum, the datum with every bit outside the mask set, the
	 * mask, the datum with the mask's lowest bit flipped */
	n = scmpc_probes_values(ps, 2, &v);
	assert_sorted_unique(v, n);
	assert_true(has(v, n, 0x30) && has(v, n, 0x30 | ~0xf0ULL) && has(v, n, 0xf0) &&
		    has(v, n, 0x20));
	assert_int_equal(scmpc_probes_values(ps, 0, &v), 2);

	/* adding again changes nothing */
	assert_int_equal(scmpc_probes_add_policy(ps, p, NULL), 0);
	assert_int_equal(scmpc_probes_values(ps, 1, &v), 6);
	scmpc_probes_free(ps);
	scmpc_policy_free(p);
}

static void test_values_from_prog(void **state)
{
	(void)state;
	/* args[0]'s low word against 7; args[3]'s high word (offset 44)
	 * masked with 0x100 */
	struct sock_filter p[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 16),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 7, 0, 2),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 44),
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, 0x100, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SCMPC_ACT_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SCMPC_ACT_ERRNO(1)),
	};
	scmpc_probes *ps = scmpc_probes_new();
	const uint64_t *v;
	size_t n;

	assert_int_equal(scmpc_probes_add_prog(ps, p, N(p), NULL), 0);
	/* the tested word {0, 6, 7, 8, 0xffffffff} paired with {0, 0xffffffff}
	 * for the other, both as the low word (little-endian) and as the high
	 * one (big-endian): 10 + 10 less the 4 that coincide */
	n = scmpc_probes_values(ps, 0, &v);
	assert_sorted_unique(v, n);
	assert_int_equal(n, 16);
	assert_true(has(v, n, 7) && has(v, n, 0xffffffff00000007ULL) && has(v, n, 0xffffffff));
	assert_true(has(v, n, 0x700000000ULL) && has(v, n, 0x7ffffffffULL));
	/* the tested word is the high one */
	n = scmpc_probes_values(ps, 3, &v);
	assert_true(has(v, n, 0x10000000000ULL) && has(v, n, 0xff00000000ULL) &&
		    has(v, n, 0x101ffffffffULL));
	assert_int_equal(scmpc_probes_values(ps, 1, &v), 2);
	scmpc_probes_free(ps);
}

static void test_numbers(void **state)
{
	(void)state;
	uint32_t *v = NULL;
	int n;

	n = scmpc_arch_probe_numbers(SCMPC_ARCH_X86_64, &v, NULL);
	assert_true(n > 1024);
	for (int i = 0; i < 1024; i++)
		assert_int_equal(v[i], (uint32_t)i);
	for (int i = 1; i < n; i++)
		assert_true(v[i - 1] < v[i]);
	assert_int_equal(v[n - 4], 0x3fffffff);
	assert_int_equal(v[n - 1], 0xffffffff);
	free(v);

	n = scmpc_arch_probe_numbers(SCMPC_ARCH_X32, &v, NULL);
	assert_true(n > 0);
	assert_int_equal(v[0], 0x40000000);
	assert_int_equal(v[n - 1], 0xfffffffe);
	free(v);

	n = scmpc_arch_probe_numbers(SCMPC_ARCH_ARM, &v, NULL);
	bool lo = false, hi = false, past = false;
	for (int i = 0; i < n; i++) {
		lo |= v[i] == 0x0f0000;
		hi |= v[i] == 0x0f0800;
		past |= v[i] == 0x0f0801;
	}
	assert_true(lo && hi && !past);
	free(v);

	/* mips n64 numbers from 5000: 0 and 4999 are the other ABIs' */
	n = scmpc_arch_probe_numbers(SCMPC_ARCH_MIPS64, &v, NULL);
	assert_true(n > 2);
	assert_int_equal(v[0], 0);
	assert_int_equal(v[1], 4999);
	assert_int_equal(v[2], 5000);
	free(v);

	assert_int_equal(scmpc_arch_probe_numbers(SCMPC_ARCH_NONE, &v, NULL), -EINVAL);
	assert_int_equal(scmpc_arch_probe_numbers(SCMPC_ARCH_X86_64, NULL, NULL), -EINVAL);
}

static void test_arg_use(void **state)
{
	(void)state;
	struct sock_filter p[] = {
		/* 0 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0),
		/* 1 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 1, 2, 0),
		/* 2 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 2, 5, 0),
		/* 3 */ BPF_STMT(BPF_RET | BPF_K, SCMPC_ACT_ALLOW),
		/* 4 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 16),
		/* 5 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 5, 0, 1),
		/* 6 */ BPF_STMT(BPF_RET | BPF_K, SCMPC_ACT_ERRNO(1)),
		/* 7 */ BPF_STMT(BPF_RET | BPF_K, SCMPC_ACT_ALLOW),
		/* 8 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 32),
		/* 9 */ BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 0xff),
		/* 10 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 3, 0, 1),
		/* 11 */ BPF_STMT(BPF_RET | BPF_K, SCMPC_ACT_ERRNO(2)),
		/* 12 */ BPF_STMT(BPF_RET | BPF_K, SCMPC_ACT_ALLOW),
	};
	struct seccomp_data sd = { .arch = AUDIT_ARCH_X86_64 };
	struct scmpc_arg_use u = { .sz = sizeof(u) };

	sd.nr = 0;
	assert_int_equal(scmpc_prog_arg_use(p, N(p), &sd, &u, NULL), 0);
	assert_int_equal(u.first_load, -1);
	assert_int_equal(u.masked, 0);
	sd.nr = 1;
	assert_int_equal(scmpc_prog_arg_use(p, N(p), &sd, &u, NULL), 0);
	assert_int_equal(u.first_load, 4);
	assert_int_equal(u.masked, 0);
	/* args[2] through `and`, whatever the arguments */
	sd.nr = 2;
	sd.args[2] = 3;
	assert_int_equal(scmpc_prog_arg_use(p, N(p), &sd, &u, NULL), 0);
	assert_int_equal(u.first_load, 8);
	assert_int_equal(u.masked, 1U << 2);
	assert_int_equal(u.sz, sizeof(u));

	u.sz = offsetof(struct scmpc_arg_use, masked);
	assert_int_equal(scmpc_prog_arg_use(p, N(p), &sd, &u, NULL), -EINVAL);
	u.sz = sizeof(u);
	assert_int_equal(scmpc_prog_arg_use(NULL, N(p), &sd, &u, NULL), -EINVAL);
	assert_int_equal(scmpc_prog_arg_use(p, N(p), NULL, &u, NULL), -EINVAL);
	assert_int_equal(scmpc_prog_arg_use(p, N(p), &sd, NULL, NULL), -EINVAL);
	/* a program the emulator cannot run to its end */
	scmpc_diag *d = scmpc_diag_new();
	assert_int_equal(scmpc_prog_arg_use(p, 2, &sd, &u, d), -EINVAL);
	assert_non_null(strstr(scmpc_diag_message(d), "cannot run"));
	scmpc_diag_free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty_set),
		cmocka_unit_test(test_values_from_policy),
		cmocka_unit_test(test_values_from_prog),
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_arg_use),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
