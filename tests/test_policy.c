/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* The policy IR: validation with precise errors, and its reference meaning. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <linux/audit.h>
#include "internal.h"
#include "testutil.h"

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
	assert_string_equal(scmpc_diag_message(d), "errno 5000 is out of range 0-4095 (the kernel caps "
			    "errno at 4095)");
	/* Beyond 16 bits the macros must not wrap onto a valid value:
	 * 65549 = 0x1000d would be ERRNO(13), 70000 TRACE(4464). */
	assert_int_equal(SCMPC_ACT_ERRNO(65549), SCMPC_ACT_OUT_OF_RANGE);
	assert_int_equal(SCMPC_ACT_ERRNO(-1), SCMPC_ACT_OUT_OF_RANGE);
	assert_int_equal(SCMPC_ACT_TRACE(70000), SCMPC_ACT_OUT_OF_RANGE);
	assert_int_equal(SCMPC_ACT_TRACE(65535), 0x7ff0ffffU);
	assert_false(scmpc_action_valid(SCMPC_ACT_OUT_OF_RANGE));
	assert_int_equal(add(p, "read", SCMPC_ACT_ERRNO(65549), NULL, 0, d), -ERANGE);
	assert_string_equal(scmpc_diag_message(d), "action data out of range: SCMPC_ACT_ERRNO() "
			    "takes 0-4095, SCMPC_ACT_TRACE() 0-65535");
	assert_int_equal(add(p, "read", SCMPC_ACT_TRACE(70000), NULL, 0, d), -ERANGE);
	assert_null(scmpc_policy_new(SCMPC_ACT_ERRNO(70000)));

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

	/* USER_NOTIF by default: the kernel takes it, so the policy does,
	 * and the compile says what it means (runc refuses it). */
	p = scmpc_policy_new(SCMPC_ACT_USER_NOTIF);
	assert_non_null(p);
	assert_int_equal(scmpc_policy_add_arch(p, SCMPC_ARCH_X86_64, d), 0);
	scmpc_diag_clear(d);
	assert_int_equal(scmpc_compile(p, NULL, &prog, d), 0);
	assert_int_equal(scmpc_diag_warning_count(d), 1);
	assert_string_equal(scmpc_diag_warning(d, 0),
			    "the default action is USER_NOTIF: every call no rule decides, including "
			    "those that would hand the listener to a supervisor, waits for an answer "
			    "from the listener (runc refuses this default; a supervisor can take the "
			    "listener with pidfd_getfd(2))");
	scmpc_prog_free(prog);
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

/* Every ABI libseccomp knows: scmpc's name, the AUDIT_ARCH value the kernel
 * headers give it (include/uapi/linux/audit.h), its byte order (big-endian:
 * no __AUDIT_ARCH_LE bit) and one name per spelling family.  read's number
 * on each, from the kernel's syscall tables (arch/.../syscall*.tbl; mips
 * numbers from 4000/5000/6000, x32 with bit 30). */
static void test_arches(void **state)
{
	(void)state;
	static const struct {
		enum scmpc_arch a;
		const char *name;
		uint32_t audit;
		bool be;
		const char *spellings[3];
		int64_t read_nr;
	} facts[] = {
		{ SCMPC_ARCH_X86_64, "x86_64", AUDIT_ARCH_X86_64, false, { "amd64", "SCMP_ARCH_X86_64", "x86-64" }, 0 },
		{ SCMPC_ARCH_I386, "i386", AUDIT_ARCH_I386, false, { "x86", "SCMP_ARCH_X86", "386" }, 3 },
		{ SCMPC_ARCH_X32, "x32", AUDIT_ARCH_X86_64, false, { "SCMP_ARCH_X32", "X32", "x32" }, 0x40000000 },
		{ SCMPC_ARCH_AARCH64, "aarch64", AUDIT_ARCH_AARCH64, false, { "arm64", "SCMP_ARCH_AARCH64", "AArch64" }, 63 },
		{ SCMPC_ARCH_ARM, "arm", AUDIT_ARCH_ARM, false, { "armv7l", "SCMP_ARCH_ARM", "armhf" }, 3 },
		{ SCMPC_ARCH_LOONGARCH64, "loongarch64", 0xC0000102U, false, { "loong64", "SCMP_ARCH_LOONGARCH64", "loongarch64" }, 63 },
		{ SCMPC_ARCH_M68K, "m68k", AUDIT_ARCH_M68K, true, { "SCMP_ARCH_M68K", "m68k", "M68K" }, 3 },
		{ SCMPC_ARCH_MIPS, "mips", AUDIT_ARCH_MIPS, true, { "SCMP_ARCH_MIPS", "mips", "MIPS" }, 4003 },
		{ SCMPC_ARCH_MIPSEL, "mipsel", AUDIT_ARCH_MIPSEL, false, { "mipsle", "SCMP_ARCH_MIPSEL", "mipsel" }, 4003 },
		{ SCMPC_ARCH_MIPS64, "mips64", AUDIT_ARCH_MIPS64, true, { "SCMP_ARCH_MIPS64", "mips64", "MIPS64" }, 5000 },
		{ SCMPC_ARCH_MIPSEL64, "mipsel64", AUDIT_ARCH_MIPSEL64, false, { "mips64le", "SCMP_ARCH_MIPSEL64", "mips64el" }, 5000 },
		{ SCMPC_ARCH_MIPS64N32, "mips64n32", AUDIT_ARCH_MIPS64N32, true, { "mips64p32", "SCMP_ARCH_MIPS64N32", "mips64n32" }, 6000 },
		{ SCMPC_ARCH_MIPSEL64N32, "mipsel64n32", AUDIT_ARCH_MIPSEL64N32, false, { "mips3l64n32", "SCMP_ARCH_MIPSEL64N32", "mips64p32le" }, 6000 },
		{ SCMPC_ARCH_PARISC, "parisc", AUDIT_ARCH_PARISC, true, { "hppa", "SCMP_ARCH_PARISC", "parisc" }, 3 },
		{ SCMPC_ARCH_PARISC64, "parisc64", AUDIT_ARCH_PARISC64, true, { "hppa64", "SCMP_ARCH_PARISC64", "parisc64" }, 3 },
		{ SCMPC_ARCH_PPC, "ppc", AUDIT_ARCH_PPC, true, { "powerpc", "SCMP_ARCH_PPC", "ppc" }, 3 },
		{ SCMPC_ARCH_PPC64, "ppc64", AUDIT_ARCH_PPC64, true, { "powerpc64", "SCMP_ARCH_PPC64", "ppc64" }, 3 },
		{ SCMPC_ARCH_PPC64LE, "ppc64le", AUDIT_ARCH_PPC64LE, false, { "ppc64el", "SCMP_ARCH_PPC64LE", "ppc64le" }, 3 },
		{ SCMPC_ARCH_RISCV64, "riscv64", AUDIT_ARCH_RISCV64, false, { "SCMP_ARCH_RISCV64", "riscv64", "RISCV64" }, 63 },
		{ SCMPC_ARCH_S390, "s390", AUDIT_ARCH_S390, true, { "SCMP_ARCH_S390", "s390", "S390" }, 3 },
		{ SCMPC_ARCH_S390X, "s390x", AUDIT_ARCH_S390X, true, { "SCMP_ARCH_S390X", "s390x", "S390X" }, 3 },
		{ SCMPC_ARCH_SH, "sh", AUDIT_ARCH_SHEL, false, { "sh4", "SCMP_ARCH_SH", "shel" }, 3 },
		{ SCMPC_ARCH_SHEB, "sheb", AUDIT_ARCH_SH, true, { "sh4eb", "SCMP_ARCH_SHEB", "sheb" }, 3 },
	};
	assert_int_equal(sizeof(facts) / sizeof(facts[0]), SCMPC_ARCH_COUNT);
	for (size_t i = 0; i < sizeof(facts) / sizeof(facts[0]); i++) {
		enum scmpc_arch a = facts[i].a;
		assert_string_equal(scmpc_arch_name(a), facts[i].name);
		assert_int_equal(scmpc_arch_from_name(facts[i].name), a);
		assert_int_equal(scmpc_arch_audit(a), facts[i].audit);
		assert_int_equal(scmpc_arch_big_endian(a), facts[i].be);
		for (size_t k = 0; k < 3; k++)
			if (scmpc_arch_from_name(facts[i].spellings[k]) != a)
				fail_msg("'%s' is not %s", facts[i].spellings[k], facts[i].name);
		assert_int_equal(scmpc_syscall_resolve(a, "read"), facts[i].read_nr);
	}
	assert_int_equal(scmpc_arch_from_name("sparc64"), SCMPC_ARCH_NONE);
	assert_int_equal(scmpc_arch_from_name(""), SCMPC_ARCH_NONE);
	assert_int_equal(scmpc_arch_from_name(NULL), SCMPC_ARCH_NONE);
	assert_null(scmpc_arch_name(SCMPC_ARCH_COUNT + 1));

	assert_int_equal(scmpc_syscall_resolve(SCMPC_ARCH_X86_64, "seccomp"), 317);
	assert_int_equal(scmpc_syscall_resolve(SCMPC_ARCH_AARCH64, "seccomp"), 277);
	assert_int_equal(scmpc_syscall_resolve(SCMPC_ARCH_AARCH64, "openat"), 56);
	assert_int_equal(scmpc_syscall_resolve(SCMPC_ARCH_AARCH64, "open"), -ENOENT);
	assert_int_equal(scmpc_syscall_resolve(SCMPC_ARCH_I386, "seccomp"), 354);
	/* i386's direct socket call (since 4.3); accept has none there */
	assert_int_equal(scmpc_syscall_resolve(SCMPC_ARCH_I386, "socket"), 359);
	assert_int_equal(scmpc_syscall_resolve(SCMPC_ARCH_I386, "accept"), -ENOENT);
	assert_int_equal(scmpc_syscall_resolve(SCMPC_ARCH_S390X, "socketcall"), 102);
	assert_int_equal(scmpc_syscall_resolve(SCMPC_ARCH_MIPS, "socketcall"), 4102);
	/* calls newer than Debian 12's libseccomp 2.5.4 */
	assert_int_equal(scmpc_syscall_resolve(SCMPC_ARCH_X86_64, "mseal"), 462);
	assert_int_equal(scmpc_syscall_resolve(SCMPC_ARCH_X86_64, "listmount"), 458);
	assert_int_equal(scmpc_syscall_resolve(SCMPC_ARCH_X86_64, "uretprobe"), 335);
	assert_int_equal(scmpc_syscall_resolve(SCMPC_ARCH_AARCH64, "setxattrat"), 463);
	/* ARM's private calls */
	assert_int_equal(scmpc_syscall_resolve(SCMPC_ARCH_ARM, "set_tls"), 0x0f0005);
	assert_int_equal(scmpc_syscall_resolve(SCMPC_ARCH_ARM, "breakpoint"), 0x0f0001);
	assert_int_equal(scmpc_syscall_resolve(SCMPC_ARCH_X86_64, "no_such_call"), -ENOENT);
	char name[32];
	assert_true(scmpc_syscall_name(SCMPC_ARCH_X86_64, 59, name, sizeof(name)));
	assert_string_equal(name, "execve");
	assert_true(scmpc_syscall_name(SCMPC_ARCH_MIPS64, 5057, name, sizeof(name)));
	assert_string_equal(name, "execve");
	assert_true(scmpc_syscall_name(SCMPC_ARCH_X32, 0x40000000U + 520, name, sizeof(name)));
	assert_string_equal(name, "execve");
	assert_false(scmpc_syscall_name(SCMPC_ARCH_MIPS64, 57, name, sizeof(name)));
	assert_non_null(scmpc_syscall_table_version());

	/* One program serves one byte order. */
	scmpc_diag *d = scmpc_diag_new();
	scmpc_policy *p = scmpc_policy_new(SCMPC_ACT_ALLOW);
	assert_int_equal(scmpc_policy_add_arch(p, SCMPC_ARCH_S390X, d), 0);
	assert_int_equal(scmpc_policy_add_arch(p, SCMPC_ARCH_S390, d), 0);
	assert_int_equal(scmpc_policy_add_arch(p, SCMPC_ARCH_X86_64, d), -EDOM);
	assert_non_null(strstr(scmpc_diag_message(d), "byte order"));
	assert_int_equal(scmpc_policy_arch_count(p), 2);
	scmpc_policy_free(p);
	scmpc_diag_free(d);
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

/* The verifier's call index (policy_eval.c) must give exactly the plain
 * scan's decision and rule on calls with hundreds of rules: equalities
 * filed by 64- and 32-bit constants, runs of order comparisons and `!=`
 * rules, the rules left to scan, compat32 ABIs. */
static void test_call_index(void **state)
{
	(void)state;
	static const uint64_t pool[] = { 0, 1, 2, 7, 0xffffffff, 0x100000000ULL,
					 0x100000007ULL, 0xffffffff00000007ULL, UINT64_MAX };
	static const uint32_t acts[] = { SCMPC_ACT_ALLOW, SCMPC_ACT_ERRNO(1), SCMPC_ACT_ERRNO(2),
					 SCMPC_ACT_LOG, SCMPC_ACT_KILL_PROCESS, SCMPC_ACT_TRAP };
	static const enum scmpc_arch arches[] = { SCMPC_ARCH_X86_64, SCMPC_ARCH_I386,
						  SCMPC_ARCH_X32, SCMPC_ARCH_AARCH64 };
	struct testutil_rng r;
	unsigned long compared = 0, matched = 0;

	/* By hand first: two `!=` rules on one constant, the later one more
	 * restrictive (neither holds at the constant), and runs of `<`/`>=`
	 * whose best rule is not at the run's end. */
	static const struct { enum scmpc_op op; uint64_t c; uint32_t act; } fixed[][4] = {
		{ { SCMPC_OP_NE, 5, SCMPC_ACT_ALLOW }, { SCMPC_OP_NE, 5, SCMPC_ACT_ERRNO(1) } },
		{ { SCMPC_OP_NE, 5, SCMPC_ACT_ERRNO(1) }, { SCMPC_OP_NE, 5, SCMPC_ACT_ALLOW },
		  { SCMPC_OP_NE, 6, SCMPC_ACT_LOG } },
		{ { SCMPC_OP_LT, 5, SCMPC_ACT_ALLOW }, { SCMPC_OP_LT, 9, SCMPC_ACT_TRAP },
		  { SCMPC_OP_LE, 2, SCMPC_ACT_ERRNO(1) }, { SCMPC_OP_GE, 7, SCMPC_ACT_LOG } },
		{ { SCMPC_OP_GT, 5, SCMPC_ACT_ALLOW }, { SCMPC_OP_GE, 5, SCMPC_ACT_TRAP },
		  { SCMPC_OP_GT, UINT64_MAX, SCMPC_ACT_ERRNO(1) }, { SCMPC_OP_LE, UINT64_MAX, SCMPC_ACT_LOG } },
	};
	for (size_t f = 0; f < ARRAY_SIZE(fixed); f++) {
		scmpc_policy *p = scmpc_policy_new(SCMPC_ACT_KILL_PROCESS);
		assert_non_null(p);
		assert_int_equal(scmpc_policy_add_arch(p, SCMPC_ARCH_X86_64, NULL), 0);
		for (size_t i = 0; i < 4 && fixed[f][i].op; i++) {
			struct scmpc_cond c = { .arg = 0, .op = fixed[f][i].op, .value = fixed[f][i].c };
			scmpc_diag *d = scmpc_diag_new();
			if (add(p, "ioctl", fixed[f][i].act, &c, 1, d) < 0)
				fail_msg("case %zu rule %zu: %s", f, i, scmpc_diag_message(d));
			scmpc_diag_free(d);
		}
		/* Rules no probe meets, so that the call has enough to be filed. */
		for (uint64_t i = 0; i < CALL_INDEX_MIN; i++) {
			struct scmpc_cond c = { .arg = 5, .op = SCMPC_OP_EQ, .value = 0xdead0000 + i };
			assert_true(add(p, "ioctl", SCMPC_ACT_TRAP, &c, 1, NULL) >= 0);
		}
		struct arch_view v;
		struct call_index ix;
		uint32_t nr = (uint32_t)scmpc_syscall_resolve(SCMPC_ARCH_X86_64, "ioctl");
		assert_int_equal(arch_view_init(&v, p, SCMPC_ARCH_X86_64, NULL), 0);
		assert_int_equal(call_index_init(&ix, p, &v, nr), 0);
		assert_true(ix.filed);
		for (uint64_t x = 0; x < 12; x++) {
			struct seccomp_data sd = { .nr = (int)nr, .arch = AUDIT_ARCH_X86_64 };
			int r1, r2;
			sd.args[0] = x == 11 ? UINT64_MAX : x;
			uint32_t want = eval_on_view(p, &v, &sd, &r1);
			uint32_t got = eval_indexed(p, &v, &ix, &sd, &r2);
			if (got != want || r1 != r2)
				fail_msg("case %zu, arg0 %llu: scan %s (rule %d), index %s (rule %d)", f,
					 (unsigned long long)sd.args[0], testutil_act(want), r1,
					 testutil_act(got), r2);
		}
		call_index_fini(&ix);
		arch_view_fini(&v);
		scmpc_policy_free(p);
	}

	testutil_rng_seed(&r, 0x1dec0de);
	for (unsigned round = 0; round < 120; round++) {
		enum scmpc_arch a = arches[round % ARRAY_SIZE(arches)];
		scmpc_policy *p = scmpc_policy_new(acts[testutil_rng_below(&r, ARRAY_SIZE(acts))]);
		assert_non_null(p);
		assert_int_equal(scmpc_policy_add_arch(p, a, NULL), 0);
		unsigned nrules = 1 + testutil_rng_below(&r, round % 4 == 3 ? 12 : round % 3 ? 40 : 400);
		for (unsigned i = 0; i < nrules; i++) {
			struct scmpc_cond c[3];
			/* Every fourth policy: one condition per rule, any operator,
			 * so that runs of `<` and `!=` rules share constants. */
			bool single = round % 4 == 3;
			size_t n = single ? 1 : testutil_rng_below(&r, 8) ? 1 + testutil_rng_below(&r, 3) : 0;
			for (size_t k = 0; k < n; k++) {
				c[k] = (struct scmpc_cond){
					.arg = testutil_rng_below(&r, single ? 2 : 3),
					.op = !single && testutil_rng_below(&r, 3)
						      ? SCMPC_OP_EQ
						      : 1 + testutil_rng_below(&r, 7),
					.value = pool[testutil_rng_below(&r, ARRAY_SIZE(pool))],
					.flags = testutil_rng_below(&r, 4) ? 0 : SCMPC_COND_32BIT,
				};
				if (c[k].op == SCMPC_OP_MASKED_EQ)
					c[k].value2 = c[k].value &
						      pool[testutil_rng_below(&r, ARRAY_SIZE(pool))];
			}
			scmpc_diag *d = scmpc_diag_new();
			if (add(p, "ioctl", acts[testutil_rng_below(&r, ARRAY_SIZE(acts))], c, n, d) < 0)
				fail_msg("%s", scmpc_diag_message(d));
			scmpc_diag_free(d);
		}
		struct arch_view v;
		struct call_index ix;
		assert_int_equal(arch_view_init(&v, p, a, NULL), 0);
		uint32_t nr = (uint32_t)scmpc_syscall_resolve(a, "ioctl");
		assert_int_equal(call_index_init(&ix, p, &v, nr), 0);
		for (unsigned k = 0; k < 600; k++) {
			struct seccomp_data sd = { .nr = (int)nr, .arch = scmpc_arch_audit(a) };
			for (unsigned j = 0; j < 6; j++)
				sd.args[j] = pool[testutil_rng_below(&r, ARRAY_SIZE(pool))];
			if (k % 100 == 99)	/* another call, and the tracer's -1 */
				sd.nr = k % 200 == 199 ? -1 : (int)nr + 1;
			int r1, r2;
			uint32_t want = eval_on_view(p, &v, &sd, &r1);
			uint32_t got = eval_indexed(p, &v, &ix, &sd, &r2);
			if (got != want || r1 != r2)
				fail_msg("round %u probe %u: scan %s (rule %d), index %s (rule %d)", round,
					 k, testutil_act(want), r1, testutil_act(got), r2);
			compared++;
			matched += r1 >= 0;
		}
		call_index_fini(&ix);
		arch_view_fini(&v);
		scmpc_policy_free(p);
	}
	/* The pool makes rules match often: the comparison is not all misses. */
	assert_true(matched > compared / 4);
}

/* A view's entries are sorted by number, then policy rule, then view rule
 * (the order rule lookups and first-match decisions rely on), whether
 * arch_view_init() took the radix sort (no multiplexed copies) or qsort():
 * random names in random order, some of them socket and IPC calls, some
 * rules on one ABI only, on ABIs with and without socketcall(2). */
static void test_view_order(void **state)
{
	(void)state;
	static const char *const names[] = { "read", "write", "openat", "ioctl", "socket",
					     "connect", "semop", "shmat", "futex", "mmap",
					     "clone", "exit_group", "recvmsg", "prctl", "close" };
	static const enum scmpc_arch arches[] = { SCMPC_ARCH_X86_64, SCMPC_ARCH_I386,
						  SCMPC_ARCH_AARCH64, SCMPC_ARCH_S390X };
	struct testutil_rng r;
	testutil_rng_seed(&r, 26);
	unsigned views = 0;
	for (unsigned round = 0; round < 200; round++) {
		scmpc_policy *p = scmpc_policy_new(SCMPC_ACT_ERRNO(1));
		assert_non_null(p);
		enum scmpc_arch a = arches[round % ARRAY_SIZE(arches)];
		assert_int_equal(scmpc_policy_add_arch(p, a, NULL), 0);
		unsigned nrules = 1 + testutil_rng_below(&r, 60);
		for (unsigned i = 0; i < nrules; i++) {
			struct scmpc_cond c = { .arg = 0, .op = SCMPC_OP_EQ,
						.value = testutil_rng_below(&r, 4) };
			struct scmpc_rule rule = {
				.sz = sizeof(rule),
				.syscall = names[testutil_rng_below(&r, ARRAY_SIZE(names))],
				.arch = testutil_rng_below(&r, 4) ? SCMPC_ARCH_NONE : a,
				.action = testutil_rng_below(&r, 2) ? SCMPC_ACT_ALLOW : SCMPC_ACT_LOG,
				.conds = &c,
				.nconds = testutil_rng_below(&r, 2),
			};
			assert_true(scmpc_policy_add_rule(p, &rule, NULL) >= 0);
		}
		struct arch_view v;
		assert_int_equal(arch_view_init(&v, p, a, NULL), 0);
		for (size_t i = 1; i < v.nrs; i++) {
			const struct resolved *x = &v.rs[i - 1], *y = &v.rs[i];
			bool before = x->nr != y->nr ? x->nr < y->nr
				      : x->order != y->order ? x->order < y->order
							     : x->rule < y->rule;
			if (!before)
				fail_msg("round %u: entries %zu and %zu out of order", round, i - 1, i);
		}
		views += v.nrs > 1;
		arch_view_fini(&v);
		scmpc_policy_free(p);
	}
	assert_true(views > 150);
}

/* The options-struct contract: too-small sz, unknown trailing fields and
 * NULL handles are refused with a message, never read past or crashed on. */
static void test_struct_contract(void **state)
{
	(void)state;
	scmpc_diag *d = scmpc_diag_new();
	scmpc_policy *p = scmpc_policy_new(SCMPC_ACT_ERRNO(1));
	assert_int_equal(scmpc_policy_add_arch(p, SCMPC_ARCH_X86_64, d), 0);
	struct scmpc_cond c = { .arg = 0, .op = SCMPC_OP_EQ, .value = 7 };

	/* sz stopping before the conditions would turn a conditional ALLOW
	 * into an unconditional one */
	struct scmpc_rule r = { .sz = offsetof(struct scmpc_rule, conds), .syscall = "read",
				.action = SCMPC_ACT_ALLOW, .conds = &c, .nconds = 1 };
	assert_int_equal(scmpc_policy_add_rule(p, &r, d), -EINVAL);
	assert_non_null(strstr(scmpc_diag_message(d), "struct scmpc_rule: sz is"));
	r.sz = 12;	/* cuts the name pointer */
	assert_int_equal(scmpc_policy_add_rule(p, &r, d), -EINVAL);
	assert_int_equal(scmpc_policy_rule_count(p), 0);

	/* a newer caller's struct: zero past what this version knows is fine,
	 * a field set there is refused */
	struct {
		struct scmpc_rule r;
		uint64_t newer[2];
	} big = { .r = { .sz = sizeof(big), .syscall = "read", .action = SCMPC_ACT_ALLOW,
			 .conds = &c, .nconds = 1 } };
	big.r.sz = sizeof(big);
	assert_true(scmpc_policy_add_rule(p, &big.r, d) >= 0);
	big.newer[1] = 1;
	assert_int_equal(scmpc_policy_add_rule(p, &big.r, d), -EINVAL);
	assert_non_null(strstr(scmpc_diag_message(d), "does not know"));
	assert_int_equal(scmpc_policy_rule_count(p), 1);

	/* options structs, through the one-line initializer */
	SCMPC_OPTS(scmpc_compile_opts, o, .flags = 0);
	assert_int_equal(o.sz, sizeof(struct scmpc_compile_opts));
	scmpc_prog *prog = NULL;
	assert_int_equal(scmpc_compile(p, &o, &prog, d), 0);
	scmpc_prog_free(prog);
	o.sz = 4;
	assert_int_equal(scmpc_compile(p, &o, &prog, d), -EINVAL);
	struct {
		struct scmpc_compile_opts o;
		uint32_t newer;
	} bo = { .o = { .sz = sizeof(bo) }, .newer = 3 };
	bo.o.sz = sizeof(bo);
	assert_int_equal(scmpc_compile(p, &bo.o, &prog, d), -EINVAL);

	/* NULL handles */
	assert_int_equal(scmpc_policy_add_arch(NULL, SCMPC_ARCH_X86_64, d), -EINVAL);
	assert_int_equal(scmpc_policy_add_rule(NULL, &r, d), -EINVAL);
	assert_int_equal(scmpc_policy_add_rule(p, NULL, d), -EINVAL);
	struct seccomp_data sd = { .nr = 0, .arch = AUDIT_ARCH_X86_64 };
	assert_int_equal(scmpc_policy_eval(NULL, &sd, NULL), SCMPC_ACT_KILL_PROCESS);
	assert_int_equal(scmpc_policy_eval(p, NULL, NULL), SCMPC_ACT_KILL_PROCESS);
	assert_int_equal(scmpc_policy_rule_count(NULL), 0);
	assert_int_equal(scmpc_policy_arch_count(NULL), 0);
	assert_int_equal(scmpc_policy_set_flags(NULL, 0, d), -EINVAL);
	assert_int_equal(scmpc_policy_set_bad_arch_action(NULL, SCMPC_ACT_KILL_THREAD, d), -EINVAL);
	assert_int_equal(scmpc_policy_set_limit(NULL, SCMPC_ARCH_X86_64, 10, SCMPC_ACT_ERRNO(38), 0,
						d), -EINVAL);
	scmpc_policy_free(p);
	scmpc_diag_free(d);
}

/* scmpc_policy_rule(): each rule as it was added, by name or by number. */
static void test_rule_read_back(void **state)
{
	(void)state;
	scmpc_policy *p = scmpc_policy_new(SCMPC_ACT_ALLOW);
	struct scmpc_cond c[2] = {
		{ .arg = 1, .op = SCMPC_OP_GE, .value = 3 },
		{ .arg = 0, .op = SCMPC_OP_MASKED_EQ, .value = 0xf0, .value2 = 0x3c },
	};
	struct scmpc_rule by_name = { .sz = sizeof(by_name), .syscall = "read",
				      .action = SCMPC_ACT_ERRNO(1), .conds = c, .nconds = 2,
				      .origin = "syscalls[0]" };
	struct scmpc_rule by_nr = { .sz = sizeof(by_nr), .nr = 59, .arch = SCMPC_ARCH_X86_64,
				    .action = SCMPC_ACT_KILL_PROCESS };
	struct scmpc_rule_info ri = { .sz = sizeof(ri) };

	assert_int_equal(scmpc_policy_add_rule(p, &by_name, NULL), 0);
	assert_int_equal(scmpc_policy_add_rule(p, &by_nr, NULL), 1);
	assert_int_equal(scmpc_policy_rule(p, 0, &ri), 0);
	assert_string_equal(ri.syscall, "read");
	assert_int_equal(ri.arch, SCMPC_ARCH_NONE);
	assert_int_equal(ri.action, SCMPC_ACT_ERRNO(1));
	assert_int_equal(ri.nconds, 2);
	assert_int_equal(ri.conds[0].value, 3);
	assert_int_equal(ri.conds[1].value2, 0x30);	/* stored masked */
	assert_string_equal(ri.origin, "syscalls[0]");
	assert_int_equal(scmpc_policy_rule(p, 1, &ri), 0);
	assert_null(ri.syscall);
	assert_int_equal(ri.nr, 59);
	assert_int_equal(ri.arch, SCMPC_ARCH_X86_64);
	assert_int_equal(ri.nconds, 0);
	assert_null(ri.origin);

	/* a newer caller's larger struct gets zeros past this version's */
	struct {
		struct scmpc_rule_info ri;
		uint64_t newer;
	} big = { .ri = { .sz = sizeof(big) }, .newer = 7 };
	big.ri.sz = sizeof(big);
	assert_int_equal(scmpc_policy_rule(p, 1, &big.ri), 0);
	assert_int_equal(big.newer, 0);
	assert_int_equal(big.ri.sz, sizeof(big));

	assert_int_equal(scmpc_policy_rule(p, 2, &ri), -EINVAL);
	assert_int_equal(scmpc_policy_rule(NULL, 0, &ri), -EINVAL);
	assert_int_equal(scmpc_policy_rule(p, 0, NULL), -EINVAL);
	ri.sz = offsetof(struct scmpc_rule_info, origin);
	assert_int_equal(scmpc_policy_rule(p, 0, &ri), -EINVAL);
	scmpc_policy_free(p);
}

/* scmpc_arch_describe(): facts checked against the kernel's headers
 * (AUDIT_ARCH_* in linux/audit.h, __X32_SYSCALL_BIT) and the output-struct
 * contract. */
static void test_arch_describe(void **state)
{
	(void)state;
	struct scmpc_arch_info ai = { .sz = sizeof(ai) };
	assert_int_equal(scmpc_arch_describe(SCMPC_ARCH_X86_64, &ai), 0);
	assert_string_equal(ai.name, "x86_64");
	assert_int_equal(ai.audit, 0xc000003eU);
	assert_int_equal(ai.nr_base, 0);
	assert_false(ai.big_endian);
	assert_false(ai.args32);
	assert_true(ai.cached);
	assert_int_equal(ai.host, SCMPC_ARCH_X86_64);
	assert_true(ai.table_max >= 461);	/* lsm_list_modules, Linux 6.8 */

	assert_int_equal(scmpc_arch_describe(SCMPC_ARCH_X32, &ai), 0);
	assert_int_equal(ai.audit, 0xc000003eU);
	assert_int_equal(ai.nr_base, 0x40000000U);
	assert_false(ai.cached);
	assert_int_equal(ai.host, SCMPC_ARCH_X86_64);

	assert_int_equal(scmpc_arch_describe(SCMPC_ARCH_I386, &ai), 0);
	assert_int_equal(ai.audit, 0x40000003U);
	assert_true(ai.args32);
	assert_int_equal(ai.host, SCMPC_ARCH_X86_64);

	assert_int_equal(scmpc_arch_describe(SCMPC_ARCH_S390X, &ai), 0);
	assert_int_equal(ai.audit, 0x80000016U);
	assert_true(ai.big_endian);

	/* a newer caller's larger struct gets zeros past this version's */
	struct {
		struct scmpc_arch_info ai;
		uint64_t newer;
	} big;
	memset(&big, 0xff, sizeof(big));
	big.ai.sz = sizeof(big);
	assert_int_equal(scmpc_arch_describe(SCMPC_ARCH_AARCH64, &big.ai), 0);
	assert_int_equal(big.newer, 0);
	assert_int_equal(big.ai.sz, sizeof(big));
	assert_int_equal(big.ai.audit, 0xc00000b7U);

	ai.sz = offsetof(struct scmpc_arch_info, table_max);
	assert_int_equal(scmpc_arch_describe(SCMPC_ARCH_X86_64, &ai), -EINVAL);
	ai.sz = sizeof(ai);
	assert_int_equal(scmpc_arch_describe(SCMPC_ARCH_NONE, &ai), -EINVAL);
	assert_int_equal(scmpc_arch_describe(SCMPC_ARCH_X86_64, NULL), -EINVAL);
}

/* The SECCOMP_FILTER_FLAG_* names and bits (linux/seccomp.h). */
static void test_filter_flags(void **state)
{
	(void)state;
	bool oci = false;
	assert_int_equal(scmpc_filter_flag("tsync", &oci), 0x1);
	assert_true(oci);
	assert_int_equal(scmpc_filter_flag("SECCOMP_FILTER_FLAG_SPEC_ALLOW", NULL), 0x4);
	assert_int_equal(scmpc_filter_flag("seccomp_filter_flag_log", NULL), 0x2);
	assert_int_equal(scmpc_filter_flag("new-listener", &oci), 0x8);
	assert_false(oci);
	assert_int_equal(scmpc_filter_flag("TSYNC_ESRCH", &oci), 0x10);
	assert_false(oci);
	assert_int_equal(scmpc_filter_flag("wait_killable_recv", &oci), 0x20);
	assert_true(oci);
	assert_int_equal(scmpc_filter_flag("TSYNCX", NULL), 0);
	assert_int_equal(scmpc_filter_flag("TSYN", NULL), 0);
	assert_int_equal(scmpc_filter_flag("SECCOMP_FILTER_FLAG_", NULL), 0);
	assert_int_equal(scmpc_filter_flag("", NULL), 0);
	assert_int_equal(scmpc_filter_flag(NULL, NULL), 0);
	assert_string_equal(scmpc_filter_flag_name(0x2), "LOG");
	assert_string_equal(scmpc_filter_flag_name(0x20), "WAIT_KILLABLE_RECV");
	assert_null(scmpc_filter_flag_name(0x40));
	assert_null(scmpc_filter_flag_name(0x3));
	assert_int_equal(SCMPC_KERNEL_VERSION(5, 11, 0), 0x050b00);
	assert_int_equal(SCMPC_KERNEL_VERSION(4, 19, 300), 0x0413ff);
	/* This machine runs a 6.x kernel; anything with seccomp is >= 3.5. */
	assert_true(scmpc_kernel_running() >= SCMPC_KERNEL_VERSION(3, 5, 0));
}

static void test_conds_witness(void **state)
{
	(void)state;
	struct scmpc_cond c[] = {
		{ .arg = 0, .op = SCMPC_OP_NE, .value = 5 },
		{ .arg = 1, .op = SCMPC_OP_LT, .value = 0 },
		{ .arg = 2, .op = SCMPC_OP_MASKED_EQ, .value = 0xff, .value2 = 0x12 },
		{ .arg = 3, .op = SCMPC_OP_GT, .value = 7 },
		{ .arg = 5, .op = SCMPC_OP_LT, .value = 9 },
	};
	uint64_t args[6] = { 1, 1, 1, 1, 1, 1 };

	assert_int_equal(scmpc_conds_witness(c, ARRAY_SIZE(c), args), 0);
	assert_int_equal(args[0], 6);
	assert_int_equal(args[1], 0);
	assert_int_equal(args[2], 0x12);
	assert_int_equal(args[3], 8);
	assert_int_equal(args[4], 0);
	assert_int_equal(args[5], 8);
	assert_int_equal(scmpc_conds_witness(NULL, 0, args), 0);
	assert_int_equal(args[0], 0);

	struct scmpc_cond bad = { .arg = 6, .op = SCMPC_OP_EQ };
	assert_int_equal(scmpc_conds_witness(&bad, 1, args), -EINVAL);
	assert_int_equal(scmpc_conds_witness(NULL, 1, args), -EINVAL);
	assert_int_equal(scmpc_conds_witness(c, 1, NULL), -EINVAL);
}

/* ------------------------------------------------------------ explain */

static scmpc_policy *lsc_policy(enum scmpc_merge m)
{
	scmpc_policy *p = scmpc_policy_new(SCMPC_ACT_ALLOW);
	assert_non_null(p);
	assert_int_equal(scmpc_policy_add_arch(p, SCMPC_ARCH_X86_64, NULL), 0);
	assert_int_equal(scmpc_policy_set_merge(p, m, NULL), 0);
	return p;
}

static struct seccomp_data call2(uint32_t nr, uint64_t a0, uint64_t a1)
{
	struct seccomp_data sd = call(SCMPC_ARCH_X86_64, nr, a0);
	sd.args[1] = a1;
	return sd;
}

/* Issue #28: `a0 > 1` ERRNO(1) then `a0 >= 1 && a1 != 1` ERRNO(2):
 * libseccomp's tree reaches no action for (1, 0xffffffff) although the
 * second rule holds, so the call gets the default.  explain must name that
 * rule as overridden by the order, not say that no rule matches. */
static void test_explain_shadowed_default(void **state)
{
	(void)state;
	const struct scmpc_cond r0[] = { { .arg = 0, .op = SCMPC_OP_GT, .value = 1 } };
	const struct scmpc_cond r1[] = { { .arg = 0, .op = SCMPC_OP_GE, .value = 1 },
					 { .arg = 1, .op = SCMPC_OP_NE, .value = 1 } };
	struct seccomp_data sd = call2(135, 1, 0xffffffff);

	for (int m = 0; m < 2; m++) {
		scmpc_policy *p = lsc_policy(m ? SCMPC_MERGE_LIBSECCOMP : SCMPC_MERGE_RESTRICTIVE);
		assert_int_equal(add(p, "personality", SCMPC_ACT_ERRNO(1), r0, 1, NULL), 0);
		assert_int_equal(add(p, "personality", SCMPC_ACT_ERRNO(2), r1, 2, NULL), 1);
		struct scmpc_explanation e = { .sz = sizeof(e) };
		assert_int_equal(scmpc_policy_explain(p, &sd, &e, NULL), 0);
		assert_int_equal(e.action, scmpc_policy_eval(p, &sd, NULL));
		assert_int_equal(e.arch, SCMPC_ARCH_X86_64);
		assert_int_equal(e.matching, 1);
		assert_int_equal(e.severity_action, SCMPC_ACT_ERRNO(2));
		if (m) {
			assert_int_equal(e.action, SCMPC_ACT_ALLOW);
			assert_int_equal(e.reason, SCMPC_REASON_ORDER);
			assert_int_equal(e.rule, -1);
			assert_int_equal(e.order_rule, -1);
			assert_int_equal(e.overridden, 1);
		} else {
			assert_int_equal(e.action, SCMPC_ACT_ERRNO(2));
			assert_int_equal(e.reason, SCMPC_REASON_RULE);
			assert_int_equal(e.rule, 1);
			assert_int_equal(e.overridden, -1);
		}
		uint64_t mask = 0;
		assert_int_equal(scmpc_policy_rule_holds(p, 0, &sd, &mask), 0);
		assert_int_equal(mask, 0);
		assert_int_equal(scmpc_policy_rule_holds(p, 1, &sd, &mask), 1);
		assert_int_equal(mask, 3);
		scmpc_policy_free(p);
	}
}

/* Found by test_explain_fuzz's search: the tree gives ERRNO(2) for (1, 5)
 * through the comparisons of rule 0, whose `a0 < 1` is false, while rule 1
 * holds.  scmpc_policy_eval() names rule 0; explain calls it an effect of
 * the order and says which condition fails. */
static void test_explain_order_rule(void **state)
{
	(void)state;
	const struct scmpc_cond r0[] = { { .arg = 1, .op = SCMPC_OP_NE, .value = 3 },
					 { .arg = 0, .op = SCMPC_OP_LT, .value = 1 } };
	const struct scmpc_cond r1[] = { { .arg = 0, .op = SCMPC_OP_LE, .value = 1 },
					 { .arg = 1, .op = SCMPC_OP_NE, .value = 0 } };
	struct seccomp_data sd = call2(135, 1, 5);
	scmpc_policy *p = lsc_policy(SCMPC_MERGE_LIBSECCOMP);

	assert_int_equal(add(p, "personality", SCMPC_ACT_ERRNO(2), r0, 2, NULL), 0);
	assert_int_equal(add(p, "personality", SCMPC_ACT_ERRNO(4), r1, 2, NULL), 1);
	struct scmpc_explanation e = { .sz = sizeof(e) };
	assert_int_equal(scmpc_policy_explain(p, &sd, &e, NULL), 0);
	assert_int_equal(e.action, SCMPC_ACT_ERRNO(2));
	assert_int_equal(e.reason, SCMPC_REASON_ORDER);
	assert_int_equal(e.rule, -1);
	assert_int_equal(e.order_rule, 0);
	assert_int_equal(e.order_failed, 2);	/* condition 1, a0 < 1 */
	assert_int_equal(e.overridden, 1);
	assert_int_equal(e.severity_action, SCMPC_ACT_ERRNO(4));
	/* Where the tree and severity agree, the rule that holds decides. */
	sd = call2(135, 0, 5);
	assert_int_equal(scmpc_policy_explain(p, &sd, &e, NULL), 0);
	assert_int_equal(e.reason, SCMPC_REASON_RULE);
	assert_int_equal(e.action, SCMPC_ACT_ERRNO(2));
	assert_int_equal(e.rule, 0);
	assert_int_equal(e.matching, 2);
	scmpc_policy_free(p);
}

/* The other reasons, and the contract. */
static void test_explain_reasons(void **state)
{
	(void)state;
	scmpc_policy *p = scmpc_policy_new(SCMPC_ACT_ERRNO(1));
	struct scmpc_explanation e = { .sz = sizeof(e) };
	const struct scmpc_cond big = { .arg = 0, .op = SCMPC_OP_EQ, .value = 0x100000001ULL };

	assert_non_null(p);
	assert_int_equal(scmpc_policy_add_arch(p, SCMPC_ARCH_X86_64, NULL), 0);
	assert_int_equal(scmpc_policy_add_arch(p, SCMPC_ARCH_I386, NULL), 0);
	assert_int_equal(add(p, "read", SCMPC_ACT_ALLOW, NULL, 0, NULL), 0);
	assert_int_equal(add(p, "write", SCMPC_ACT_ALLOW, &big, 1, NULL), 1);
	assert_int_equal(scmpc_policy_set_limit(p, SCMPC_ARCH_X86_64, 300, SCMPC_ACT_ERRNO(38), 0,
						NULL), 0);
	assert_int_equal(scmpc_policy_set_unknown_action(p, SCMPC_ACT_ERRNO(22),
							 SCMPC_UNKNOWN_POLICY_MAX, NULL), 0);
	struct seccomp_data sd = call(SCMPC_ARCH_X86_64, 0, 0);
	assert_int_equal(scmpc_policy_explain(p, &sd, &e, NULL), 0);
	assert_int_equal(e.reason, SCMPC_REASON_RULE);
	assert_int_equal(e.rule, 0);
	sd = call(SCMPC_ARCH_X86_64, 1, 0);	/* write's condition is false */
	assert_int_equal(scmpc_policy_explain(p, &sd, &e, NULL), 0);
	assert_int_equal(e.reason, SCMPC_REASON_DEFAULT);
	assert_int_equal(e.action, SCMPC_ACT_ERRNO(1));
	sd = call(SCMPC_ARCH_X86_64, 400, 0);
	assert_int_equal(scmpc_policy_explain(p, &sd, &e, NULL), 0);
	assert_int_equal(e.reason, SCMPC_REASON_LIMIT);
	assert_int_equal(e.action, SCMPC_ACT_ERRNO(38));
	sd = call(SCMPC_ARCH_I386, 400, 0);
	assert_int_equal(scmpc_policy_explain(p, &sd, &e, NULL), 0);
	assert_int_equal(e.reason, SCMPC_REASON_UNKNOWN);
	assert_int_equal(e.action, SCMPC_ACT_ERRNO(22));
	assert_int_equal(e.arch, SCMPC_ARCH_I386);
	sd = call(SCMPC_ARCH_AARCH64, 63, 0);
	assert_int_equal(scmpc_policy_explain(p, &sd, &e, NULL), 0);
	assert_int_equal(e.reason, SCMPC_REASON_BAD_ARCH);
	assert_int_equal(e.arch, SCMPC_ARCH_NONE);
	assert_int_equal(e.action, SCMPC_ACT_KILL_PROCESS);

	/* i386 compares low words; libseccomp keeps the constant's low word
	 * too, so under its merge write(1) holds there and on x86_64 not. */
	sd = call(SCMPC_ARCH_I386, 4, 1);
	assert_int_equal(scmpc_policy_rule_holds(p, 1, &sd, NULL), 0);
	assert_int_equal(scmpc_policy_set_merge(p, SCMPC_MERGE_LIBSECCOMP, NULL), 0);
	assert_int_equal(scmpc_policy_rule_holds(p, 1, &sd, NULL), 1);
	assert_int_equal(scmpc_policy_explain(p, &sd, &e, NULL), 0);
	assert_int_equal(e.reason, SCMPC_REASON_RULE);
	assert_int_equal(e.rule, 1);
	sd = call(SCMPC_ARCH_X86_64, 1, 1);
	assert_int_equal(scmpc_policy_rule_holds(p, 1, &sd, NULL), 0);

	assert_int_equal(scmpc_policy_rule_holds(p, 2, &sd, NULL), -EINVAL);
	assert_int_equal(scmpc_policy_rule_holds(NULL, 0, &sd, NULL), -EINVAL);
	assert_int_equal(scmpc_policy_rule_holds(p, 0, NULL, NULL), -EINVAL);
	scmpc_diag *d = scmpc_diag_new();
	e.sz = offsetof(struct scmpc_explanation, matching);
	assert_int_equal(scmpc_policy_explain(p, &sd, &e, d), -EINVAL);
	assert_non_null(strstr(scmpc_diag_message(d), "sz"));
	e.sz = sizeof(e);
	assert_int_equal(scmpc_policy_explain(NULL, &sd, &e, d), -EINVAL);
	assert_int_equal(scmpc_policy_explain(p, NULL, &e, d), -EINVAL);
	assert_int_equal(scmpc_policy_explain(p, &sd, NULL, d), -EINVAL);
	scmpc_diag_free(d);
	scmpc_policy_free(p);
}

/* Independent reading of a condition, as the header states it (64-bit
 * ABI, no 32-bit flag). */
static bool ref_cond(const struct scmpc_cond *c, const uint64_t *a)
{
	uint64_t x = a[c->arg];
	switch (c->op) {
	case SCMPC_OP_EQ: return x == c->value;
	case SCMPC_OP_NE: return x != c->value;
	case SCMPC_OP_LT: return x < c->value;
	case SCMPC_OP_LE: return x <= c->value;
	case SCMPC_OP_GT: return x > c->value;
	case SCMPC_OP_GE: return x >= c->value;
	default: return (x & c->value) == c->value2;
	}
}

/* Small random policies under the LIBSECCOMP merge, 2-4 conditional rules
 * on one call: whatever explain names is checked against an evaluation of
 * the conditions made here.  The rule it says decides holds and gives the
 * action; an order rule does not hold, its failed conditions exactly those
 * false here; ORDER exactly when the action is not the severity of the
 * rules that hold.  (This search found test_explain_order_rule's policy,
 * which scmpc_policy_eval() attributes to a rule that does not hold.) */
static void test_explain_fuzz(void **state)
{
	(void)state;
	static const uint64_t vals[] = { 0, 1, 2, 3, 5, 0xffffffff, 0x100000000ULL };
	unsigned seed = 28, orders = 0, misattributed = 0;

	for (int it = 0; it < 1500; it++) {
		scmpc_policy *p = lsc_policy(SCMPC_MERGE_LIBSECCOMP);
		struct scmpc_cond conds[4][2];
		size_t nconds[4], nrules = 2 + rand_r(&seed) % 3;
		for (size_t r = 0; r < nrules; r++) {
			nconds[r] = 1 + rand_r(&seed) % 2;
			for (size_t c = 0; c < nconds[r]; c++)
				conds[r][c] = (struct scmpc_cond){ .arg = rand_r(&seed) % 2,
								   .op = 1 + rand_r(&seed) % 6,
								   .value = rand_r(&seed) % 4 };
			assert_int_equal(add(p, "personality", SCMPC_ACT_ERRNO(r + 1), conds[r],
					     nconds[r], NULL), (int)r);
		}
		scmpc_diag *d = scmpc_diag_new();
		assert_int_equal(scmpc_policy_check(p, d), 0);
		bool refused = scmpc_diag_warning_count(d) > 0;	/* libseccomp's EEXIST */
		scmpc_diag_free(d);
		for (int t = 0; t < 40 && !refused; t++) {
			uint64_t a[6] = { vals[rand_r(&seed) % 7], vals[rand_r(&seed) % 7] };
			struct seccomp_data sd = call2(135, a[0], a[1]);
			struct scmpc_explanation e = { .sz = sizeof(e) };
			bool holds[4];
			uint32_t sev = SCMPC_ACT_ALLOW;
			size_t matching = 0;
			for (size_t r = 0; r < nrules; r++) {
				uint64_t want = 0, mask;
				for (size_t c = 0; c < nconds[r]; c++)
					want |= (uint64_t)ref_cond(&conds[r][c], a) << c;
				holds[r] = want == ((uint64_t)1 << nconds[r]) - 1;
				assert_int_equal(scmpc_policy_rule_holds(p, r, &sd, &mask), holds[r]);
				assert_int_equal(mask, want);
				if (holds[r]) {
					matching++;
					if (scmpc_action_cmp(SCMPC_ACT_ERRNO(r + 1), sev) < 0)
						sev = SCMPC_ACT_ERRNO(r + 1);
				}
			}
			assert_int_equal(scmpc_policy_explain(p, &sd, &e, NULL), 0);
			int evr;
			assert_int_equal(e.action, scmpc_policy_eval(p, &sd, &evr));
			assert_int_equal(e.matching, matching);
			assert_int_equal(e.severity_action, sev);
			assert_int_equal(e.reason == SCMPC_REASON_ORDER, e.action != sev);
			if (evr >= 0 && !holds[evr])
				misattributed++;
			if (e.rule >= 0) {
				assert_true(holds[e.rule]);
				assert_int_equal(SCMPC_ACT_ERRNO(e.rule + 1), e.action);
			}
			if (e.reason == SCMPC_REASON_RULE)
				assert_true(e.rule >= 0);
			if (e.reason == SCMPC_REASON_DEFAULT)
				assert_int_equal(matching, 0);
			if (e.order_rule >= 0) {
				assert_int_equal(e.reason, SCMPC_REASON_ORDER);
				assert_false(holds[e.order_rule]);
				uint64_t failed = 0;
				for (size_t c = 0; c < nconds[e.order_rule]; c++)
					failed |= (uint64_t)!ref_cond(&conds[e.order_rule][c], a) << c;
				assert_int_equal(e.order_failed, failed);
			}
			if (e.overridden >= 0) {
				assert_int_equal(e.reason, SCMPC_REASON_ORDER);
				assert_true(holds[e.overridden]);
				assert_int_equal(SCMPC_ACT_ERRNO(e.overridden + 1), sev);
			}
			orders += e.reason == SCMPC_REASON_ORDER;
		}
		scmpc_policy_free(p);
	}
	/* The search must meet the cases it is about. */
	assert_true(orders > 50);
	assert_true(misattributed > 0);
}

/* A copy with and without a rule: settings kept, rules and origins
 * copied, indexes closed up. */
static void test_policy_copy(void **state)
{
	(void)state;
	scmpc_policy *p = scmpc_policy_new(SCMPC_ACT_ERRNO(1)), *q = NULL;
	const struct scmpc_cond c = { .arg = 0, .op = SCMPC_OP_EQ, .value = 7 };
	struct scmpc_rule_info ri = { .sz = sizeof(ri) };

	assert_non_null(p);
	assert_int_equal(scmpc_policy_add_arch(p, SCMPC_ARCH_X86_64, NULL), 0);
	assert_int_equal(scmpc_policy_set_merge(p, SCMPC_MERGE_LIBSECCOMP, NULL), 0);
	assert_int_equal(scmpc_policy_set_bad_arch_action(p, SCMPC_ACT_TRAP, NULL), 0);
	assert_int_equal(add(p, "read", SCMPC_ACT_ALLOW, NULL, 0, NULL), 0);
	assert_int_equal(add(p, "write", SCMPC_ACT_ALLOW, &c, 1, NULL), 1);
	assert_int_equal(add(p, "close", SCMPC_ACT_ALLOW, NULL, 0, NULL), 2);

	assert_int_equal(scmpc_policy_copy(p, NULL, &q, NULL), 0);
	assert_int_equal(scmpc_policy_rule_count(q), 3);
	struct seccomp_data sd = call(SCMPC_ARCH_X86_64, 1, 7);
	assert_int_equal(scmpc_policy_eval(q, &sd, NULL), SCMPC_ACT_ALLOW);
	sd = call(SCMPC_ARCH_AARCH64, 1, 7);
	assert_int_equal(scmpc_policy_eval(q, &sd, NULL), SCMPC_ACT_TRAP);
	scmpc_policy_free(q);

	const bool keep[3] = { true, false, true };
	assert_int_equal(scmpc_policy_copy(p, keep, &q, NULL), 0);
	assert_int_equal(scmpc_policy_rule_count(q), 2);
	assert_int_equal(scmpc_policy_rule(q, 1, &ri), 0);
	assert_string_equal(ri.syscall, "close");
	assert_string_equal(ri.origin, "test");
	sd = call(SCMPC_ARCH_X86_64, 1, 7);
	assert_int_equal(scmpc_policy_eval(q, &sd, NULL), SCMPC_ACT_ERRNO(1));
	/* The copy is its own: the original outlives nothing of it. */
	scmpc_policy_free(p);
	sd = call(SCMPC_ARCH_X86_64, 3, 0);
	assert_int_equal(scmpc_policy_eval(q, &sd, NULL), SCMPC_ACT_ALLOW);
	const bool none[2] = { false, false };
	assert_int_equal(scmpc_policy_copy(q, none, &p, NULL), 0);
	assert_int_equal(scmpc_policy_rule_count(p), 0);
	assert_int_equal(scmpc_policy_eval(p, &sd, NULL), SCMPC_ACT_ERRNO(1));
	scmpc_policy_free(p);
	assert_int_equal(scmpc_policy_copy(NULL, NULL, &p, NULL), -EINVAL);
	assert_null(p);
	assert_int_equal(scmpc_policy_copy(q, NULL, NULL, NULL), -EINVAL);
	scmpc_policy_free(q);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rejects_bad_rules),
		cmocka_unit_test(test_actions),
		cmocka_unit_test(test_arches),
		cmocka_unit_test(test_semantics),
		cmocka_unit_test(test_libseccomp_merge),
		cmocka_unit_test(test_call_index),
		cmocka_unit_test(test_view_order),
		cmocka_unit_test(test_struct_contract),
		cmocka_unit_test(test_rule_read_back),
		cmocka_unit_test(test_conds_witness),
		cmocka_unit_test(test_arch_describe),
		cmocka_unit_test(test_filter_flags),
		cmocka_unit_test(test_explain_shadowed_default),
		cmocka_unit_test(test_explain_order_rule),
		cmocka_unit_test(test_explain_reasons),
		cmocka_unit_test(test_explain_fuzz),
		cmocka_unit_test(test_policy_copy),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
