/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* The policy IR: validation with precise errors, and its reference meaning. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>
#include <linux/audit.h>
#include "scmpc.h"

static struct seccomp_data call(enum scmpc_arch a, uint32_t nr, uint64_t a0)
{
	struct seccomp_data sd = { .nr = (int)nr, .arch = scmpc_arch_audit(a) };
	sd.args[0] = a0;
	return sd;
}

static int add(scmpc_policy *p, const char *name, uint32_t act, const struct scmpc_cond *c,
	       size_t n, scmpc_diag *d)
{
	struct scmpc_rule r = { .sz = sizeof(r), .syscall = name, .action = act, .conds = c,
				.nconds = n, .origin = "test" };
	return scmpc_policy_add_rule(p, &r, d);
}

static void test_rejects_bad_rules(void **state)
{
	(void)state;
	scmpc_diag *d = scmpc_diag_new();
	scmpc_policy *p = scmpc_policy_new(SCMPC_ACT_ERRNO(1));
	assert_non_null(p);

	struct scmpc_cond bad_arg = { .arg = 6, .op = SCMPC_OP_EQ, .value = 1 };
	assert_int_equal(add(p, "read", SCMPC_ACT_ALLOW, &bad_arg, 1, d), -EINVAL);
	assert_string_equal(scmpc_diag_message(d), "condition 0: argument index 6 is not 0-5");
	assert_string_equal(scmpc_diag_where(d), "test");

	struct scmpc_cond bad_op = { .arg = 0, .op = 99, .value = 1 };
	assert_int_equal(add(p, "read", SCMPC_ACT_ALLOW, &bad_op, 1, d), -EINVAL);
	assert_string_equal(scmpc_diag_message(d), "condition 0: unknown operator 99");

	assert_int_equal(add(p, "read", SCMPC_ACT_ERRNO(5000), NULL, 0, d), -ERANGE);
	assert_string_equal(scmpc_diag_message(d), "errno 5000 is above 4095 (the kernel caps it)");

	assert_int_equal(add(p, "read", 0x00040000, NULL, 0, d), -EINVAL);
	assert_int_equal(add(p, "read", SCMPC_ACT_ALLOW | 1, NULL, 0, d), -EINVAL);
	assert_int_equal(add(p, "", SCMPC_ACT_ALLOW, NULL, 0, d), -EINVAL);

	struct scmpc_rule bynr = { .sz = sizeof(bynr), .nr = 5, .action = SCMPC_ACT_ALLOW };
	assert_int_equal(scmpc_policy_add_rule(p, &bynr, d), -EINVAL);
	assert_string_equal(scmpc_diag_message(d), "a rule by number needs an architecture");

	assert_int_equal(scmpc_policy_set_flags(p, 0x40, d), -EINVAL);
	assert_int_equal(scmpc_policy_set_flags(p, 0x1 | 0x4, d), 0);
	assert_int_equal(scmpc_policy_flags(p), 0x5);
	assert_int_equal(scmpc_policy_rule_count(p), 0);

	/* No ABI: nothing to compile. */
	scmpc_prog *prog = NULL;
	assert_int_equal(scmpc_compile(p, NULL, &prog, d), -EINVAL);
	assert_string_equal(scmpc_diag_message(d), "the policy has no architecture");
	assert_null(prog);

	assert_null(scmpc_policy_new(0x12345678));
	scmpc_policy_free(p);
	scmpc_diag_free(d);
}

static void test_actions(void **state)
{
	(void)state;
	char buf[32];
	/* Kernel precedence: KILL_PROCESS < KILL_THREAD < TRAP < ERRNO < USER_NOTIF
	 * < TRACE < LOG < ALLOW, as signed values of the action bits. */
	uint32_t order[] = { SCMPC_ACT_KILL_PROCESS, SCMPC_ACT_KILL_THREAD, SCMPC_ACT_TRAP,
			     SCMPC_ACT_ERRNO(1), SCMPC_ACT_ERRNO(2), SCMPC_ACT_USER_NOTIF,
			     SCMPC_ACT_TRACE(0), SCMPC_ACT_LOG, SCMPC_ACT_ALLOW };
	for (size_t i = 0; i + 1 < sizeof(order) / sizeof(order[0]); i++) {
		assert_true(scmpc_action_cmp(order[i], order[i + 1]) < 0);
		assert_true(scmpc_action_cmp(order[i + 1], order[i]) > 0);
		assert_true(scmpc_action_valid(order[i]));
	}
	assert_false(scmpc_action_valid(SCMPC_ACT_ERRNO(4096)));
	assert_true(scmpc_action_valid(SCMPC_ACT_ERRNO(4095)));
	scmpc_action_str(SCMPC_ACT_ERRNO(38), buf, sizeof(buf));
	assert_string_equal(buf, "ERRNO(38)");
	scmpc_action_str(SCMPC_ACT_KILL_PROCESS, buf, sizeof(buf));
	assert_string_equal(buf, "KILL_PROCESS");
	scmpc_action_str(SCMPC_ACT_TRACE(7), buf, sizeof(buf));
	assert_string_equal(buf, "TRACE(7)");
}

static void test_arches(void **state)
{
	(void)state;
	assert_int_equal(scmpc_arch_from_name("amd64"), SCMPC_ARCH_X86_64);
	assert_int_equal(scmpc_arch_from_name("SCMP_ARCH_X86"), SCMPC_ARCH_I386);
	assert_int_equal(scmpc_arch_from_name("arm64"), SCMPC_ARCH_AARCH64);
	assert_int_equal(scmpc_arch_from_name("SCMP_ARCH_MIPS"), SCMPC_ARCH_NONE);
	assert_int_equal(scmpc_arch_audit(SCMPC_ARCH_X86_64), AUDIT_ARCH_X86_64);
	assert_int_equal(scmpc_arch_audit(SCMPC_ARCH_X32), AUDIT_ARCH_X86_64);
	assert_int_equal(scmpc_arch_audit(SCMPC_ARCH_I386), AUDIT_ARCH_I386);
	assert_int_equal(scmpc_arch_audit(SCMPC_ARCH_AARCH64), AUDIT_ARCH_AARCH64);
	assert_int_equal(scmpc_arch_audit(SCMPC_ARCH_ARM), AUDIT_ARCH_ARM);
	/* Numbers from the reference's table (§9.1), through libseccomp. */
	assert_int_equal(scmpc_syscall_resolve(SCMPC_ARCH_X86_64, "seccomp"), 317);
	assert_int_equal(scmpc_syscall_resolve(SCMPC_ARCH_AARCH64, "seccomp"), 277);
	assert_int_equal(scmpc_syscall_resolve(SCMPC_ARCH_AARCH64, "openat"), 56);
	assert_int_equal(scmpc_syscall_resolve(SCMPC_ARCH_AARCH64, "open"), -ENOENT);
	assert_int_equal(scmpc_syscall_resolve(SCMPC_ARCH_X32, "read"), 0x40000000);
	assert_int_equal(scmpc_syscall_resolve(SCMPC_ARCH_I386, "seccomp"), 354);
	/* i386's direct socket call (since 4.3), not libseccomp's pseudo-number. */
	assert_int_equal(scmpc_syscall_resolve(SCMPC_ARCH_I386, "socket"), 359);
	assert_int_equal(scmpc_syscall_resolve(SCMPC_ARCH_X86_64, "no_such_call"), -ENOENT);
	char name[32];
	assert_true(scmpc_syscall_name(SCMPC_ARCH_X86_64, 59, name, sizeof(name)));
	assert_string_equal(name, "execve");
}

/* The semantics the header promises, checked on the reference evaluator. */
static void test_semantics(void **state)
{
	(void)state;
	scmpc_diag *d = scmpc_diag_new();
	scmpc_policy *p = scmpc_policy_new(SCMPC_ACT_ERRNO(1));
	assert_int_equal(scmpc_policy_add_arch(p, SCMPC_ARCH_X86_64, d), 0);
	assert_int_equal(scmpc_policy_add_arch(p, SCMPC_ARCH_I386, d), 0);

	struct scmpc_cond gt5 = { .arg = 0, .op = SCMPC_OP_GT, .value = 5 };
	struct scmpc_cond eq7 = { .arg = 0, .op = SCMPC_OP_EQ, .value = 7 };
	/* Added in the less restrictive order on purpose: insertion order
	 * must not matter. */
	assert_true(add(p, "write", SCMPC_ACT_ALLOW, &gt5, 1, d) >= 0);
	assert_true(add(p, "write", SCMPC_ACT_ERRNO(13), &eq7, 1, d) >= 0);
	assert_true(add(p, "write", SCMPC_ACT_ERRNO(9), &eq7, 1, d) >= 0);
	assert_true(add(p, "read", SCMPC_ACT_ALLOW, NULL, 0, d) >= 0);

	struct seccomp_data sd = call(SCMPC_ARCH_X86_64, 1, 6);
	assert_int_equal(scmpc_policy_eval(p, &sd, NULL), SCMPC_ACT_ALLOW);
	sd = call(SCMPC_ARCH_X86_64, 1, 7);	/* ERRNO(9) and ERRNO(13) match: lower data */
	int rule = -2;
	assert_int_equal(scmpc_policy_eval(p, &sd, &rule), SCMPC_ACT_ERRNO(9));
	assert_int_equal(rule, 2);
	sd = call(SCMPC_ARCH_X86_64, 1, 5);	/* no rule matches: the default */
	assert_int_equal(scmpc_policy_eval(p, &sd, &rule), SCMPC_ACT_ERRNO(1));
	assert_int_equal(rule, -1);
	/* 64-bit on x86_64: a high word makes the value larger than 5. */
	sd = call(SCMPC_ARCH_X86_64, 1, 0x100000000ULL);
	assert_int_equal(scmpc_policy_eval(p, &sd, NULL), SCMPC_ACT_ALLOW);
	/* 32-bit on i386 (write is 4): only the low word counts. */
	sd = call(SCMPC_ARCH_I386, 4, 0x100000000ULL);
	assert_int_equal(scmpc_policy_eval(p, &sd, NULL), SCMPC_ACT_ERRNO(1));
	sd = call(SCMPC_ARCH_I386, 4, 0xffffffff00000007ULL);
	assert_int_equal(scmpc_policy_eval(p, &sd, NULL), SCMPC_ACT_ERRNO(9));
	/* Foreign ABI, x32 number without x32 in the policy, tracer's -1. */
	sd = call(SCMPC_ARCH_AARCH64, 63, 0);
	assert_int_equal(scmpc_policy_eval(p, &sd, NULL), SCMPC_ACT_KILL_PROCESS);
	sd = call(SCMPC_ARCH_X86_64, 0x40000000, 0);
	assert_int_equal(scmpc_policy_eval(p, &sd, NULL), SCMPC_ACT_KILL_PROCESS);
	sd = call(SCMPC_ARCH_X86_64, 0xffffffff, 0);
	assert_int_equal(scmpc_policy_eval(p, &sd, NULL), SCMPC_ACT_ERRNO(1));

	/* Unknown numbers: above the highest number the policy names. */
	assert_int_equal(scmpc_policy_set_unknown_action(p, SCMPC_ACT_ERRNO(38),
							 SCMPC_UNKNOWN_POLICY_MAX, d), 0);
	sd = call(SCMPC_ARCH_X86_64, 2, 0);	/* above write (1), the highest named */
	assert_int_equal(scmpc_policy_eval(p, &sd, NULL), SCMPC_ACT_ERRNO(38));
	sd = call(SCMPC_ARCH_X86_64, 0, 0);
	assert_int_equal(scmpc_policy_eval(p, &sd, NULL), SCMPC_ACT_ALLOW);
	sd = call(SCMPC_ARCH_I386, 2, 0);	/* fork on i386, below write (4) */
	assert_int_equal(scmpc_policy_eval(p, &sd, NULL), SCMPC_ACT_ERRNO(1));
	sd = call(SCMPC_ARCH_I386, 5, 0);
	assert_int_equal(scmpc_policy_eval(p, &sd, NULL), SCMPC_ACT_ERRNO(38));
	sd = call(SCMPC_ARCH_X86_64, 0xffffffff, 0);
	assert_int_equal(scmpc_policy_eval(p, &sd, NULL), SCMPC_ACT_ERRNO(1));

	/* Above the table: read's x86_64 table ends far above 1. */
	assert_int_equal(scmpc_policy_set_unknown_action(p, SCMPC_ACT_ERRNO(38),
							 SCMPC_UNKNOWN_TABLE_MAX, d), 0);
	sd = call(SCMPC_ARCH_X86_64, 2, 0);
	assert_int_equal(scmpc_policy_eval(p, &sd, NULL), SCMPC_ACT_ERRNO(1));
	sd = call(SCMPC_ARCH_X86_64, 5000, 0);
	assert_int_equal(scmpc_policy_eval(p, &sd, NULL), SCMPC_ACT_ERRNO(38));
	scmpc_policy_free(p);
	scmpc_diag_free(d);
}

/* What runc gets from libseccomp for overlapping rules (checked against
 * libseccomp 2.5.4 by hand: seccomp_rule_add then seccomp_export_pfc). */
static void test_libseccomp_merge(void **state)
{
	(void)state;
	scmpc_diag *d = scmpc_diag_new();
	scmpc_policy *p = scmpc_policy_new(SCMPC_ACT_TRAP);
	assert_int_equal(scmpc_policy_add_arch(p, SCMPC_ARCH_X86_64, d), 0);
	assert_int_equal(scmpc_policy_set_merge(p, SCMPC_MERGE_LIBSECCOMP, d), 0);
	struct scmpc_cond eq5 = { .arg = 0, .op = SCMPC_OP_EQ, .value = 5 };
	struct scmpc_cond none = { .arg = 4, .op = SCMPC_OP_MASKED_EQ, .value = 0, .value2 = 0 };
	/* A rule with the default action is refused, so the ALLOW after it is
	 * the first unconditional rule. */
	assert_true(add(p, "getpid", SCMPC_ACT_TRAP, NULL, 0, d) >= 0);
	assert_true(add(p, "getpid", SCMPC_ACT_ALLOW, NULL, 0, d) >= 0);
	/* The first unconditional rule wins over later ones of any kind... */
	assert_true(add(p, "read", SCMPC_ACT_ALLOW, NULL, 0, d) >= 0);
	assert_true(add(p, "read", SCMPC_ACT_ERRNO(2), NULL, 0, d) >= 0);
	assert_true(add(p, "read", SCMPC_ACT_KILL_PROCESS, &eq5, 1, d) >= 0);
	/* ...replaces earlier conditional ones... */
	assert_true(add(p, "write", SCMPC_ACT_KILL_PROCESS, &eq5, 1, d) >= 0);
	assert_true(add(p, "write", SCMPC_ACT_ALLOW, NULL, 0, d) >= 0);
	/* ...and a condition that tests nothing leaves a rule unconditional. */
	assert_true(add(p, "futex", SCMPC_ACT_ERRNO(38), &none, 1, d) >= 0);
	assert_true(add(p, "futex", SCMPC_ACT_ERRNO(1), NULL, 0, d) >= 0);

	struct seccomp_data sd = call(SCMPC_ARCH_X86_64, 39, 0);	/* getpid */
	assert_int_equal(scmpc_policy_eval(p, &sd, NULL), SCMPC_ACT_ALLOW);
	sd = call(SCMPC_ARCH_X86_64, 0, 5);				/* read */
	assert_int_equal(scmpc_policy_eval(p, &sd, NULL), SCMPC_ACT_ALLOW);
	sd = call(SCMPC_ARCH_X86_64, 1, 5);				/* write */
	assert_int_equal(scmpc_policy_eval(p, &sd, NULL), SCMPC_ACT_ALLOW);
	sd = call(SCMPC_ARCH_X86_64, 202, 0);				/* futex */
	assert_int_equal(scmpc_policy_eval(p, &sd, NULL), SCMPC_ACT_ERRNO(38));

	/* The restrictive merge reads the same rules differently. */
	assert_int_equal(scmpc_policy_set_merge(p, SCMPC_MERGE_RESTRICTIVE, d), 0);
	sd = call(SCMPC_ARCH_X86_64, 39, 0);
	assert_int_equal(scmpc_policy_eval(p, &sd, NULL), SCMPC_ACT_TRAP);
	sd = call(SCMPC_ARCH_X86_64, 0, 5);
	assert_int_equal(scmpc_policy_eval(p, &sd, NULL), SCMPC_ACT_KILL_PROCESS);
	sd = call(SCMPC_ARCH_X86_64, 202, 0);
	assert_int_equal(scmpc_policy_eval(p, &sd, NULL), SCMPC_ACT_ERRNO(1));
	scmpc_policy_free(p);
	scmpc_diag_free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rejects_bad_rules),
		cmocka_unit_test(test_actions),
		cmocka_unit_test(test_arches),
		cmocka_unit_test(test_semantics),
		cmocka_unit_test(test_libseccomp_merge),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
