/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * The AArch32 compat ABI at a real arm64 kernel (CONFIG_COMPAT): a filter
 * loaded by a 64-bit process stays in force across execve of a 32-bit ARM
 * program, whose calls reach it with AUDIT_ARCH_ARM (0x40000028) and arm
 * EABI numbers (arch/arm/tools/syscall.tbl).  The numbers overlap the
 * native table (arm getppid and getpgrp are 64 and 65, aarch64 write and
 * readv), so a rule must stay on its ABI.  The program is a few A32
 * instructions that this suite writes out as an ELF file itself: no arm
 * compiler is needed.  The harness is tests/compat_probe.h's.
 *
 * Complements test_load.c, whose compat tests are x86_64's.  Skips where
 * the native ABI is not aarch64, or where the kernel or CPU cannot run
 * AArch32 programs.
 */

#include "../compat_probe.h"

static const struct compat_abi abi = {
	.native = SCMPC_ARCH_AARCH64, .compat = SCMPC_ARCH_ARM, .machine = EM_ARM,
	.data = ELFDATA2LSB, .flags = EF_ARM_EABI_VER5,	/* AArch32 needs the EABI version */
	.noexec = "the kernel or the CPU cannot run AArch32 programs",
};

/* ------------------------------------------------------- the A32 program */

/* A32 encodings, condition "always". */
#define A32_MOV_IMM(rd, imm12) (0xe3a00000U | (rd) << 12 | (imm12))
#define A32_ORR_IMM(rd, rn, imm12) (0xe3800000U | (rn) << 16 | (rd) << 12 | (imm12))
#define A32_MOV_REG(rd, rm) (0xe1a00000U | (rd) << 12 | (rm))
#define A32_SUB_IMM(rd, rn, imm8) (0xe2400000U | (rn) << 16 | (rd) << 12 | (imm8))
#define A32_STR_IMM(rt, rn, off) (0xe5800000U | (rn) << 16 | (rt) << 12 | (off))
#define A32_SVC0 0xef000000U
#define A32_B_SELF 0xeafffffeU
#define SP 13

struct a32 {
	uint32_t code[256];
	size_t n;
};

static void emit(struct a32 *p, uint32_t insn)
{
	assert_true(p->n < sizeof(p->code) / sizeof(p->code[0]));
	p->code[p->n++] = insn;
}

/* RD = V: a MOV of its lowest non-zero byte and an ORR per further byte,
 * each an 8-bit immediate rotated right by an even amount. */
static void load_const(struct a32 *p, unsigned rd, uint32_t v)
{
	bool first = true;

	for (unsigned shift = 0; shift < 32; shift += 8) {
		uint32_t byte = (v >> shift) & 0xff;
		uint32_t imm12 = ((32 - shift) % 32 / 2) << 8 | byte;

		if (!byte)
			continue;
		emit(p, first ? A32_MOV_IMM(rd, imm12) : A32_ORR_IMM(rd, rd, imm12));
		first = false;
	}
	if (first)
		emit(p, A32_MOV_IMM(rd, 0));
}

struct call {
	uint32_t nr;
	uint32_t arg0;
};

/* Issue each call, keep its r0 on the stack, write the results to stdout
 * as 32-bit words and exit_group(0). */
static void a32_program(struct a32 *p, const struct call *calls, size_t n)
{
	int64_t write_nr = scmpc_syscall_resolve(SCMPC_ARCH_ARM, "write");
	int64_t exit_nr = scmpc_syscall_resolve(SCMPC_ARCH_ARM, "exit_group");

	assert_true(write_nr > 0 && exit_nr > 0 && n <= 16);
	p->n = 0;
	emit(p, A32_SUB_IMM(SP, SP, 64));
	emit(p, A32_MOV_REG(4, SP));
	for (size_t i = 0; i < n; i++) {
		load_const(p, 7, calls[i].nr);
		load_const(p, 0, calls[i].arg0);
		load_const(p, 1, 0);
		load_const(p, 2, 0);
		emit(p, A32_SVC0);
		emit(p, A32_STR_IMM(0, 4, (uint32_t)(4 * i)));
	}
	load_const(p, 7, (uint32_t)write_nr);
	load_const(p, 0, 1);
	emit(p, A32_MOV_REG(1, 4));
	load_const(p, 2, (uint32_t)(4 * n));
	emit(p, A32_SVC0);
	load_const(p, 7, (uint32_t)exit_nr);
	load_const(p, 0, 0);
	emit(p, A32_SVC0);
	emit(p, A32_B_SELF);
}

/* ------------------------------------------------------------- harness */

static int setup(void **state)
{
	(void)state;
	return compat_setup(&abi);
}

static int teardown(void **state)
{
	(void)state;
	return compat_teardown();
}

static uint32_t arm_nr(const char *name)
{
	return compat_nr(&abi, name);
}

/* compat_policy()'s rules, and the ARM-private cacheflush denied on arm.
 * readv, aarch64's 65 and arm's getpgrp, is denied on aarch64, which must
 * not leak to arm. */
static scmpc_prog *compat_prog(bool with_arm)
{
	scmpc_policy *p = compat_policy(&abi, with_arm);
	if (with_arm)
		add_rule(p, "cacheflush", SCMPC_ARCH_ARM, SCMPC_ACT_ERRNO(EXDEV), NULL);
	return compat_compile(p);
}

static void write_a32(const struct a32 *p)
{
	write_probe(&abi, p->code, p->n * sizeof(p->code[0]));
}

/* ------------------------------------------------------------------ tests */

static void test_arm_rules(void **state)
{
	(void)state;
	compat_require(&abi);
	const uint32_t getppid_nr = arm_nr("getppid"), getpgrp_nr = arm_nr("getpgrp");
	const struct call calls[] = {
		{ getppid_nr, 5 },		/* denied: EDOM */
		{ getppid_nr, 6 },		/* the parent, this process */
		{ getpgrp_nr, 3 },		/* allowed: aarch64's readv rule stays there */
		{ getpgrp_nr, 8 },		/* denied: ERANGE */
		{ getpgrp_nr, 0xffffffff },	/* unsigned: above 7, denied */
		{ arm_nr("cacheflush"), 0 },	/* ARM private number: EXDEV */
		{ arm_nr("getpid"), 0 },
	};
	struct a32 p;
	struct run r;

	/* The overlap the filter must keep apart. */
	assert_int_equal(scmpc_syscall_resolve(SCMPC_ARCH_AARCH64, "readv"), getpgrp_nr);
	assert_int_equal(arm_nr("cacheflush"), 0x0f0002);
	a32_program(&p, calls, sizeof(calls) / sizeof(calls[0]));
	write_a32(&p);
	scmpc_prog *prog = compat_prog(true);
	run_probe(&abi, prog, &r);
	scmpc_prog_free(prog);
	if (!WIFEXITED(r.status) || WEXITSTATUS(r.status) != 0)
		fail_msg("probe: status 0x%x: %s", r.status, r.err);
	assert_int_equal(r.nout, sizeof(calls) / sizeof(calls[0]));
	assert_int_equal(r.out[0], -EDOM);
	assert_int_equal(r.out[1], getpid());
	assert_true(r.out[2] >= 0);
	assert_int_equal(r.out[3], -ERANGE);
	assert_int_equal(r.out[4], -ERANGE);
	assert_int_equal(r.out[5], -EXDEV);
	assert_true(r.out[6] > 0 && r.out[6] != getpid());
	print_message("AArch32 probe under the filter: getppid(5) %d, getppid(6) %d, "
		      "getpgrp(3) %d, getpgrp(8) %d, getpgrp(~0) %d, cacheflush %d, getpid %d\n",
		      r.out[0], r.out[1], r.out[2], r.out[3], r.out[4], r.out[5], r.out[6]);
}

/* A filter without an arm section: the first AArch32 call gets the
 * bad-arch action. */
static void test_arm_bad_arch(void **state)
{
	(void)state;
	compat_require(&abi);
	const struct call calls[] = { { arm_nr("getpid"), 0 } };
	struct a32 p;
	struct run r;

	a32_program(&p, calls, 1);
	write_a32(&p);
	scmpc_prog *prog = compat_prog(false);
	run_probe(&abi, prog, &r);
	scmpc_prog_free(prog);
	if (!WIFSIGNALED(r.status) || WTERMSIG(r.status) != SIGSYS)
		fail_msg("an AArch32 call under an aarch64-only filter: status 0x%x, %zu words: %s",
			 r.status, r.nout, r.err);
	assert_int_equal(r.nout, 0);
}

/* The same program with no filter at all: the probe itself is sound. */
static void test_arm_unfiltered(void **state)
{
	(void)state;
	compat_require(&abi);
	const struct call calls[] = { { arm_nr("getppid"), 5 }, { arm_nr("getpid"), 0 } };
	struct a32 p;
	struct run r;

	a32_program(&p, calls, 2);
	write_a32(&p);
	run_probe(&abi, NULL, &r);
	assert_true(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0);
	assert_int_equal(r.nout, 2);
	assert_int_equal(r.out[0], getpid());
	assert_int_equal(r.out[1], r.pid);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_arm_unfiltered),
		cmocka_unit_test(test_arm_rules),
		cmocka_unit_test(test_arm_bad_arch),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
