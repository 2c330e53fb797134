/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * The s390 (31-bit) compat ABI at a real s390x kernel (CONFIG_COMPAT): a
 * filter loaded by a 64-bit process stays in force across execve of a
 * 31-bit program, whose calls reach it with AUDIT_ARCH_S390 (0x16) and
 * their arguments as 64-bit seccomp_data fields in big-endian order: the
 * kernel masks each to its low word, which sits at the field's higher
 * offset (args[0] at 20, not 16), where scmpc's s390 code must read it.
 * s390 and s390x number most calls alike (getppid is 64 on both), so a
 * rule must stay on its ABI.  The program is a few ESA/390 instructions
 * that this suite writes out as an ELF file itself: no 31-bit libc is
 * needed.  The harness is tests/compat_probe.h's.
 *
 * Complements test_load.c, whose compat tests are x86_64's.  Skips where
 * the native ABI is not s390x, or where the kernel cannot run 31-bit
 * programs.
 */

#include "../compat_probe.h"

static const struct compat_abi abi = {
	.native = SCMPC_ARCH_S390X, .compat = SCMPC_ARCH_S390, .machine = EM_S390,
	.data = ELFDATA2MSB,	/* this host is s390x: its byte order */
	.noexec = "the kernel cannot run 31-bit programs (CONFIG_COMPAT)",
};

/* ------------------------------------------------------- the 31-bit program */

struct s390_code {
	uint8_t code[1024];
	size_t n;
};

static void emit(struct s390_code *p, const uint8_t *bytes, size_t n)
{
	assert_true(p->n + n <= sizeof(p->code));
	memcpy(p->code + p->n, bytes, n);
	p->n += n;
}

/* IILF r, imm32 (RIL-a, C0r9): the low word of R; the kernel masks a
 * 31-bit task's arguments to it. */
static void iilf(struct s390_code *p, unsigned r, uint32_t v)
{
	const uint8_t b[] = { 0xc0, (uint8_t)(r << 4 | 0x9), (uint8_t)(v >> 24),
			      (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v };
	emit(p, b, sizeof(b));
}

/* IIHF r, imm32 (RIL-a, C0r8): the high word, which a 31-bit program
 * cannot see and the kernel drops. */
static void iihf(struct s390_code *p, unsigned r, uint32_t v)
{
	const uint8_t b[] = { 0xc0, (uint8_t)(r << 4 | 0x8), (uint8_t)(v >> 24),
			      (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v };
	emit(p, b, sizeof(b));
}

static void lr(struct s390_code *p, unsigned r1, unsigned r2)	/* LR (RR, 18) */
{
	const uint8_t b[] = { 0x18, (uint8_t)(r1 << 4 | r2) };
	emit(p, b, sizeof(b));
}

static void st(struct s390_code *p, unsigned r1, unsigned base, unsigned disp)	/* ST (RX, 50) */
{
	const uint8_t b[] = { 0x50, (uint8_t)(r1 << 4), (uint8_t)(base << 4 | disp >> 8),
			      (uint8_t)disp };
	emit(p, b, sizeof(b));
}

static void svc0(struct s390_code *p)	/* SVC 0: the number is in r1 */
{
	const uint8_t b[] = { 0x0a, 0x00 };
	emit(p, b, sizeof(b));
}

struct call {
	uint32_t nr;
	uint32_t arg0;
	uint32_t arg0_high;	/* put in r2's high word, to be dropped */
};

/* Issue each call, keep its r2 on the stack, write the results to stdout
 * as 32-bit (big-endian) words and exit_group(0). */
static void s390_program(struct s390_code *p, const struct call *calls, size_t n)
{
	int64_t write_nr = scmpc_syscall_resolve(SCMPC_ARCH_S390, "write");
	int64_t exit_nr = scmpc_syscall_resolve(SCMPC_ARCH_S390, "exit_group");
	static const uint8_t ahi_r15_m64[] = { 0xa7, 0xfa, 0xff, 0xc0 };	/* AHI r15,-64 */
	static const uint8_t j_self[] = { 0xa7, 0xf4, 0x00, 0x00 };	/* J . */

	assert_true(write_nr > 0 && exit_nr > 0 && n <= 16);
	p->n = 0;
	emit(p, ahi_r15_m64, sizeof(ahi_r15_m64));
	lr(p, 6, 15);
	for (size_t i = 0; i < n; i++) {
		iilf(p, 1, calls[i].nr);
		iihf(p, 2, calls[i].arg0_high);
		iilf(p, 2, calls[i].arg0);
		iilf(p, 3, 0);
		iilf(p, 4, 0);
		svc0(p);
		st(p, 2, 6, (unsigned)(4 * i));
	}
	iilf(p, 1, (uint32_t)write_nr);
	iilf(p, 2, 1);
	lr(p, 3, 6);
	iilf(p, 4, (uint32_t)(4 * n));
	svc0(p);
	iilf(p, 1, (uint32_t)exit_nr);
	iilf(p, 2, 0);
	svc0(p);
	emit(p, j_self, sizeof(j_self));
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

static uint32_t s390_nr(const char *name)
{
	return compat_nr(&abi, name);
}

/* compat_policy()'s rules: getppid and getpgrp are numbered alike on both
 * ABIs (64 and 65), so the s390 rules must stay on s390 (s390x's
 * getppid(5) is allowed), and readv (145 on both) is denied on s390x only,
 * which must not leak to s390. */
static scmpc_prog *compat_prog(bool with_s390)
{
	return compat_compile(compat_policy(&abi, with_s390));
}


/* ------------------------------------------------------------------ tests */

static void test_s390_rules(void **state)
{
	(void)state;
	compat_require(&abi);
	const uint32_t getppid_nr = s390_nr("getppid"), getpgrp_nr = s390_nr("getpgrp");
	const struct call calls[] = {
		{ getppid_nr, 5, 0 },		/* denied: EDOM */
		{ getppid_nr, 6, 0 },		/* the parent, this process */
		{ getppid_nr, 5, 1 },		/* high word dropped: still 5, EDOM */
		{ getpgrp_nr, 3, 0 },		/* allowed */
		{ getpgrp_nr, 8, 0 },		/* denied: ERANGE */
		{ getpgrp_nr, 0xffffffff, 0 },	/* unsigned: above 7, denied */
		{ getpgrp_nr, 3, 0xffffffff },	/* high word dropped: 3, allowed */
		{ s390_nr("readv"), 0xffffffff, 0 },	/* s390x's rule stays there: EBADF */
		{ s390_nr("getpid"), 0, 0 },
	};
	struct s390_code p;
	struct run r;

	/* The overlap the filter must keep apart. */
	assert_int_equal(scmpc_syscall_resolve(SCMPC_ARCH_S390X, "getppid"), getppid_nr);
	assert_int_equal(scmpc_syscall_resolve(SCMPC_ARCH_S390X, "readv"), s390_nr("readv"));
	s390_program(&p, calls, sizeof(calls) / sizeof(calls[0]));
	write_probe(&abi, p.code, p.n);
	scmpc_prog *prog = compat_prog(true);
	run_probe(&abi, prog, &r);
	scmpc_prog_free(prog);
	if (!WIFEXITED(r.status) || WEXITSTATUS(r.status) != 0)
		fail_msg("probe: status 0x%x: %s", r.status, r.err);
	if (r.nout != sizeof(calls) / sizeof(calls[0])) {
		for (size_t i = 0; i < r.nout; i++)
			print_message("word %zu: %d\n", i, r.out[i]);
		fail_msg("the probe wrote %zu words, not %zu: %s", r.nout,
			 sizeof(calls) / sizeof(calls[0]), r.err);
	}
	assert_int_equal(r.out[0], -EDOM);
	assert_int_equal(r.out[1], getpid());
	assert_int_equal(r.out[2], -EDOM);
	assert_true(r.out[3] >= 0);
	assert_int_equal(r.out[4], -ERANGE);
	assert_int_equal(r.out[5], -ERANGE);
	assert_true(r.out[6] >= 0);
	assert_int_equal(r.out[7], -EBADF);
	assert_true(r.out[8] > 0 && r.out[8] != getpid());
	print_message("31-bit probe under the filter: getppid(5) %d, getppid(6) %d, "
		      "getppid(1:5) %d, getpgrp(3) %d, getpgrp(8) %d, getpgrp(~0) %d, "
		      "getpgrp(~0:3) %d, readv %d, getpid %d\n",
		      r.out[0], r.out[1], r.out[2], r.out[3], r.out[4], r.out[5], r.out[6],
		      r.out[7], r.out[8]);
}

/* A filter without an s390 section: the first 31-bit call gets the
 * bad-arch action. */
static void test_s390_bad_arch(void **state)
{
	(void)state;
	compat_require(&abi);
	const struct call calls[] = { { s390_nr("getpid"), 0, 0 } };
	struct s390_code p;
	struct run r;

	s390_program(&p, calls, 1);
	write_probe(&abi, p.code, p.n);
	scmpc_prog *prog = compat_prog(false);
	run_probe(&abi, prog, &r);
	scmpc_prog_free(prog);
	if (!WIFSIGNALED(r.status) || WTERMSIG(r.status) != SIGSYS)
		fail_msg("a 31-bit call under an s390x-only filter: status 0x%x, %zu words: %s",
			 r.status, r.nout, r.err);
	assert_int_equal(r.nout, 0);
}

/* The same program with no filter at all: the probe itself is sound. */
static void test_s390_unfiltered(void **state)
{
	(void)state;
	compat_require(&abi);
	const struct call calls[] = { { s390_nr("getppid"), 5, 0 }, { s390_nr("getpid"), 0, 0 } };
	struct s390_code p;
	struct run r;

	s390_program(&p, calls, 2);
	write_probe(&abi, p.code, p.n);
	run_probe(&abi, NULL, &r);
	if (!WIFEXITED(r.status) || WEXITSTATUS(r.status) != 0)
		fail_msg("the unfiltered 31-bit probe: status 0x%x", r.status);
	assert_int_equal(r.nout, 2);
	assert_int_equal(r.out[0], getpid());
	assert_int_equal(r.out[1], r.pid);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_s390_unfiltered),
		cmocka_unit_test(test_s390_rules),
		cmocka_unit_test(test_s390_bad_arch),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
