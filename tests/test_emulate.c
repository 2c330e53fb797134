/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * scmpc_emulate(), scmpc_emulate_trace() and bpf_ebpf_len().  Every
 * expected value was worked out by hand from the kernel's semantics: how a
 * seccomp program runs once
 * net/core/filter.c `bpf_convert_filter` has turned it into eBPF (A and X
 * start at 0 but M[] is not cleared, arithmetic is 32-bit and wraps,
 * jgt/jge compare unsigned, a `div x` by 0 ends the program returning 0,
 * KILL_THREAD) and the eBPF length that conversion gives each program.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <linux/audit.h>
#include "internal.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define ALLOW SCMPC_ACT_ALLOW
#define UNTOUCHED 0xdeadbeefU

static const struct seccomp_data zero_sd;

/* Runs P and checks that it succeeds; returns the value. */
static uint32_t run_ok(const struct sock_filter *p, size_t n, const struct seccomp_data *sd,
		       unsigned *steps)
{
	uint32_t ret = UNTOUCHED;
	assert_int_equal(scmpc_emulate(p, n, sd ? sd : &zero_sd, &ret, steps), 0);
	return ret;
}

static void run_fails(const struct sock_filter *p, size_t n, const struct seccomp_data *sd)
{
	uint32_t ret = UNTOUCHED;
	unsigned steps = 12345;
	assert_int_equal(scmpc_emulate(p, n, sd ? sd : &zero_sd, &ret, &steps), -EINVAL);
	assert_int_equal(ret, UNTOUCHED);
	assert_int_equal(steps, 12345);
}

/* ------------------------------------------------------------ loads */

static void test_ld_abs_fields(void **state)
{
	(void)state;
	struct seccomp_data sd = {
		.nr = 59,
		.instruction_pointer = 0x1122334455667788ULL,
		.args = { 0xaaaaaaaa00000001ULL, 0x0000000200000003ULL, 4, 5, 6,
			  0xffffffffffffffffULL },
	};
	/* offset -> word, in the byte order of the ABI that sd.arch names
	 * (the kernel of that ABI lays seccomp_data out so), whatever the
	 * host's: x86_64 little-endian, s390x big-endian. */
	static const struct {
		uint32_t arch;
		uint32_t want[16];
	} cases[] = {
		{ AUDIT_ARCH_X86_64, {
			59, AUDIT_ARCH_X86_64, 0x55667788, 0x11223344,
			0x00000001, 0xaaaaaaaa, 3, 2,
			4, 0, 5, 0, 6, 0, 0xffffffff, 0xffffffff,
		} },
		{ AUDIT_ARCH_S390X, {
			59, AUDIT_ARCH_S390X, 0x11223344, 0x55667788,
			0xaaaaaaaa, 0x00000001, 2, 3,
			0, 4, 0, 5, 0, 6, 0xffffffff, 0xffffffff,
		} },
	};
	for (size_t c = 0; c < N(cases); c++) {
		sd.arch = cases[c].arch;
		for (uint32_t k = 0; k < 64; k += 4) {
			struct sock_filter p[] = {
				BPF_STMT(BPF_LD | BPF_W | BPF_ABS, k),
				BPF_STMT(BPF_RET | BPF_A, 0),
			};
			unsigned steps = 0;
			assert_int_equal(run_ok(p, N(p), &sd, &steps), cases[c].want[k / 4]);
			assert_int_equal(steps, 2);
		}
	}
}

static void test_nr_minus_one(void **state)
{
	(void)state;
	struct seccomp_data sd = { .nr = -1 };
	struct sock_filter p[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0),
		BPF_STMT(BPF_RET | BPF_A, 0),
	};
	assert_int_equal(run_ok(p, N(p), &sd, NULL), 0xffffffffU);
}

static void test_initial_registers(void **state)
{
	(void)state;
	struct sock_filter a[] = { BPF_STMT(BPF_RET | BPF_A, 0) };
	struct sock_filter x[] = { BPF_STMT(BPF_MISC | BPF_TXA, 0), BPF_STMT(BPF_RET | BPF_A, 0) };
	/* unwritten scratch memory reads as 0 here */
	struct sock_filter m[] = { BPF_STMT(BPF_LD | BPF_MEM, 7), BPF_STMT(BPF_RET | BPF_A, 0) };
	unsigned steps = 0;

	assert_int_equal(run_ok(a, N(a), NULL, &steps), 0);
	assert_int_equal(steps, 1);
	assert_int_equal(run_ok(x, N(x), NULL, &steps), 0);
	assert_int_equal(steps, 2);
	assert_int_equal(run_ok(m, N(m), NULL, NULL), 0);
}

static void test_len_imm_tax_txa(void **state)
{
	(void)state;
	struct sock_filter len[] = { BPF_STMT(BPF_LD | BPF_W | BPF_LEN, 0), BPF_STMT(BPF_RET | BPF_A, 0) };
	struct sock_filter xlen[] = {
		BPF_STMT(BPF_LDX | BPF_W | BPF_LEN, 0),
		BPF_STMT(BPF_MISC | BPF_TXA, 0),
		BPF_STMT(BPF_RET | BPF_A, 0),
	};
	struct sock_filter imm[] = { BPF_STMT(BPF_LD | BPF_IMM, 0x80000001), BPF_STMT(BPF_RET | BPF_A, 0) };
	struct sock_filter ximm[] = {
		BPF_STMT(BPF_LDX | BPF_IMM, 77),
		BPF_STMT(BPF_LD | BPF_IMM, 5),
		BPF_STMT(BPF_MISC | BPF_TXA, 0),	/* A = 77 */
		BPF_STMT(BPF_RET | BPF_A, 0),
	};
	struct sock_filter tax[] = {
		BPF_STMT(BPF_LD | BPF_IMM, 9),
		BPF_STMT(BPF_MISC | BPF_TAX, 0),	/* X = 9 */
		BPF_STMT(BPF_LD | BPF_IMM, 1),
		BPF_STMT(BPF_ALU | BPF_ADD | BPF_X, 0),	/* A = 10 */
		BPF_STMT(BPF_RET | BPF_A, 0),
	};
	unsigned steps = 0;

	assert_int_equal(run_ok(len, N(len), NULL, NULL), 64);
	assert_int_equal(run_ok(xlen, N(xlen), NULL, NULL), 64);
	assert_int_equal(run_ok(imm, N(imm), NULL, NULL), 0x80000001U);
	assert_int_equal(run_ok(ximm, N(ximm), NULL, &steps), 77);
	assert_int_equal(steps, 4);
	assert_int_equal(run_ok(tax, N(tax), NULL, &steps), 10);
	assert_int_equal(steps, 5);
}

static void test_scratch_memory(void **state)
{
	(void)state;
	struct sock_filter p[] = {
		BPF_STMT(BPF_LD | BPF_IMM, 111),
		BPF_STMT(BPF_ST, 0),			/* M[0] = 111 */
		BPF_STMT(BPF_LDX | BPF_IMM, 222),
		BPF_STMT(BPF_STX, 15),			/* M[15] = 222 */
		BPF_STMT(BPF_LD | BPF_IMM, 0),
		BPF_STMT(BPF_LDX | BPF_IMM, 0),
		BPF_STMT(BPF_LDX | BPF_MEM, 0),		/* X = 111 */
		BPF_STMT(BPF_LD | BPF_MEM, 15),		/* A = 222 */
		BPF_STMT(BPF_ALU | BPF_SUB | BPF_X, 0),	/* A = 111 */
		BPF_STMT(BPF_RET | BPF_A, 0),
	};
	unsigned steps = 0;
	assert_int_equal(run_ok(p, N(p), NULL, &steps), 111);
	assert_int_equal(steps, 10);
}

/* -------------------------------------------------------------- ALU */

/* ld #a; ldx #x; OP; ret a */
static uint32_t alu(uint16_t op, uint32_t a, uint32_t x, uint32_t k)
{
	struct sock_filter p[] = {
		BPF_STMT(BPF_LD | BPF_IMM, a),
		BPF_STMT(BPF_LDX | BPF_IMM, x),
		BPF_STMT(op, k),
		BPF_STMT(BPF_RET | BPF_A, 0),
	};
	unsigned steps = 0;
	uint32_t r = run_ok(p, N(p), NULL, &steps);
	assert_int_equal(steps, 4);
	return r;
}

#define ALU_K(op) (BPF_ALU | (op) | BPF_K)
#define ALU_X(op) (BPF_ALU | (op) | BPF_X)

static void test_alu_k(void **state)
{
	(void)state;
	assert_int_equal(alu(ALU_K(BPF_ADD), 0xfffffff0, 0, 0x20), 0x10);	/* wraps */
	assert_int_equal(alu(ALU_K(BPF_SUB), 5, 0, 7), 0xfffffffe);
	assert_int_equal(alu(ALU_K(BPF_MUL), 0x10000, 0, 0x10000), 0);	/* wraps */
	assert_int_equal(alu(ALU_K(BPF_MUL), 0x12345678, 0, 16), 0x23456780);
	assert_int_equal(alu(ALU_K(BPF_DIV), 0xfffffffe, 0, 2), 0x7fffffff);	/* unsigned */
	assert_int_equal(alu(ALU_K(BPF_DIV), 7, 0, 0x80000000), 0);
	assert_int_equal(alu(ALU_K(BPF_OR), 0xf0, 0, 0x0f), 0xff);
	assert_int_equal(alu(ALU_K(BPF_AND), 0x12345678, 0, 0xffff), 0x5678);
	assert_int_equal(alu(ALU_K(BPF_XOR), 0xff00ff00, 0, 0xffffffff), 0x00ff00ff);
	assert_int_equal(alu(ALU_K(BPF_LSH), 0x80000001, 0, 1), 2);
	assert_int_equal(alu(ALU_K(BPF_LSH), 1, 0, 31), 0x80000000);
	assert_int_equal(alu(ALU_K(BPF_RSH), 0x80000000, 0, 31), 1);	/* logical */
	assert_int_equal(alu(ALU_K(BPF_RSH), 0xf0, 0, 4), 0xf);
	assert_int_equal(alu(BPF_ALU | BPF_NEG, 1, 0, 0), 0xffffffff);
	assert_int_equal(alu(BPF_ALU | BPF_NEG, 0, 0, 0), 0);
	assert_int_equal(alu(BPF_ALU | BPF_NEG, 0x80000000, 0, 0), 0x80000000);
}

static void test_alu_x(void **state)
{
	(void)state;
	/* k is set to junk to show the X forms ignore it */
	assert_int_equal(alu(ALU_X(BPF_ADD), 0xffffffff, 2, 99), 1);
	assert_int_equal(alu(ALU_X(BPF_SUB), 0, 1, 99), 0xffffffff);
	assert_int_equal(alu(ALU_X(BPF_MUL), 0x80000000, 2, 99), 0);
	assert_int_equal(alu(ALU_X(BPF_DIV), 100, 7, 99), 14);
	assert_int_equal(alu(ALU_X(BPF_DIV), 0x80000000, 0xffffffff, 99), 0);	/* unsigned */
	assert_int_equal(alu(ALU_X(BPF_OR), 1, 6, 99), 7);
	assert_int_equal(alu(ALU_X(BPF_AND), 0xf0f0, 0xff00, 99), 0xf000);
	assert_int_equal(alu(ALU_X(BPF_XOR), 5, 3, 99), 6);
	assert_int_equal(alu(ALU_X(BPF_LSH), 3, 4, 99), 0x30);
	assert_int_equal(alu(ALU_X(BPF_RSH), 0x30, 4, 99), 3);
	/* register shift counts are taken mod 32 */
	assert_int_equal(alu(ALU_X(BPF_LSH), 1, 33, 99), 2);
	assert_int_equal(alu(ALU_X(BPF_LSH), 5, 32, 99), 5);
	assert_int_equal(alu(ALU_X(BPF_RSH), 0x80000000, 63, 99), 1);
}

static void test_div_x_by_zero(void **state)
{
	(void)state;
	struct sock_filter p[] = {
		BPF_STMT(BPF_LD | BPF_IMM, 7),
		BPF_STMT(BPF_LDX | BPF_IMM, 0),
		BPF_STMT(BPF_ALU | BPF_DIV | BPF_X, 0),
		BPF_STMT(BPF_RET | BPF_K, ALLOW),
	};
	unsigned steps = 0;
	/* the program ends at the div with 0 = SECCOMP_RET_KILL_THREAD */
	assert_int_equal(run_ok(p, N(p), NULL, &steps), SCMPC_ACT_KILL_THREAD);
	assert_int_equal(steps, 3);
}

/* ------------------------------------------------------------ jumps */

/* ld #a; ldx #x; JMP k, 1, 0; ret #0xF; ret #0x7  ->  0x7 when taken */
static bool jump(uint16_t code, uint32_t a, uint32_t x, uint32_t k)
{
	struct sock_filter p[] = {
		BPF_STMT(BPF_LD | BPF_IMM, a),
		BPF_STMT(BPF_LDX | BPF_IMM, x),
		BPF_JUMP(code, k, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, 0xf),
		BPF_STMT(BPF_RET | BPF_K, 0x7),
	};
	unsigned steps = 0;
	uint32_t r = run_ok(p, N(p), NULL, &steps);
	assert_int_equal(steps, 4);
	assert_true(r == 0x7 || r == 0xf);
	return r == 0x7;
}

#define J_K(op) (BPF_JMP | (op) | BPF_K)
#define J_X(op) (BPF_JMP | (op) | BPF_X)

static void test_jumps_k(void **state)
{
	(void)state;
	assert_true(jump(J_K(BPF_JEQ), 5, 0, 5));
	assert_false(jump(J_K(BPF_JEQ), 5, 0, 6));
	assert_true(jump(J_K(BPF_JEQ), 0xffffffff, 0, 0xffffffff));
	assert_true(jump(J_K(BPF_JGT), 6, 0, 5));
	assert_false(jump(J_K(BPF_JGT), 5, 0, 5));
	/* unsigned, also for k >= 2^31 */
	assert_true(jump(J_K(BPF_JGT), 0x80000000, 0, 0x7fffffff));
	assert_false(jump(J_K(BPF_JGT), 0x7fffffff, 0, 0x80000000));
	assert_true(jump(J_K(BPF_JGE), 5, 0, 5));
	assert_false(jump(J_K(BPF_JGE), 4, 0, 5));
	assert_true(jump(J_K(BPF_JGE), 0xffffffff, 0, 0x80000000));
	assert_true(jump(J_K(BPF_JSET), 6, 0, 4));
	assert_false(jump(J_K(BPF_JSET), 6, 0, 1));
	assert_false(jump(J_K(BPF_JSET), 6, 0, 0));
	assert_true(jump(J_K(BPF_JSET), 0x40000001, 0, 0x40000000));
}

static void test_jumps_x(void **state)
{
	(void)state;
	/* k = 12345 is junk the X forms must ignore */
	assert_true(jump(J_X(BPF_JEQ), 9, 9, 12345));
	assert_false(jump(J_X(BPF_JEQ), 9, 8, 9));
	assert_true(jump(J_X(BPF_JGT), 0x90000000, 0x8fffffff, 0));
	assert_false(jump(J_X(BPF_JGT), 3, 3, 0));
	assert_true(jump(J_X(BPF_JGE), 3, 3, 12345));
	assert_false(jump(J_X(BPF_JGE), 2, 3, 0));
	assert_true(jump(J_X(BPF_JSET), 0x10, 0x30, 0));
	assert_false(jump(J_X(BPF_JSET), 0x10, 0x20, 0xffffffff));
}

static void test_ja_and_false_branch(void **state)
{
	(void)state;
	struct sock_filter ja[] = {
		BPF_STMT(BPF_JMP | BPF_JA, 1),
		BPF_STMT(BPF_RET | BPF_K, 1),
		BPF_STMT(BPF_RET | BPF_K, 2),
	};
	/* jf leads further than jt */
	struct sock_filter jf[] = {
		BPF_STMT(BPF_LD | BPF_IMM, 3),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 4, 0, 2),
		BPF_STMT(BPF_RET | BPF_K, 10),
		BPF_STMT(BPF_RET | BPF_K, 11),
		BPF_STMT(BPF_RET | BPF_K, 12),
	};
	unsigned steps = 0;
	assert_int_equal(run_ok(ja, N(ja), NULL, &steps), 2);
	assert_int_equal(steps, 2);
	assert_int_equal(run_ok(jf, N(jf), NULL, &steps), 12);
	assert_int_equal(steps, 3);
}

static void test_ret_a_full_width(void **state)
{
	(void)state;
	struct sock_filter p[] = {
		BPF_STMT(BPF_LD | BPF_IMM, 0x80000000),
		BPF_STMT(BPF_ALU | BPF_OR | BPF_K, 0x1234),
		BPF_STMT(BPF_RET | BPF_A, 0),
	};
	assert_int_equal(run_ok(p, N(p), NULL, NULL), 0x80001234U);
}

/* A realistic filter: arch check, x32 guard, two allowed calls. */
static void test_small_filter(void **state)
{
	(void)state;
	struct sock_filter p[] = {
		/* 0 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 4),
		/* 1 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 0, 6),
		/* 2 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0),
		/* 3 */ BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 4, 0),
		/* 4 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 2, 0),
		/* 5 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 1, 1, 0),
		/* 6 */ BPF_STMT(BPF_RET | BPF_K, SCMPC_ACT_ERRNO(1)),
		/* 7 */ BPF_STMT(BPF_RET | BPF_K, ALLOW),
		/* 8 */ BPF_STMT(BPF_RET | BPF_K, SCMPC_ACT_KILL_PROCESS),
	};
	struct seccomp_data sd = { .arch = AUDIT_ARCH_X86_64 };
	unsigned steps = 0;

	sd.nr = 0;	/* 0 1 2 3 4 7 */
	assert_int_equal(run_ok(p, N(p), &sd, &steps), ALLOW);
	assert_int_equal(steps, 6);
	sd.nr = 1;	/* 0 1 2 3 4 5 7 */
	assert_int_equal(run_ok(p, N(p), &sd, &steps), ALLOW);
	assert_int_equal(steps, 7);
	sd.nr = 2;	/* 0 1 2 3 4 5 6 */
	assert_int_equal(run_ok(p, N(p), &sd, &steps), SCMPC_ACT_ERRNO(1));
	assert_int_equal(steps, 7);
	sd.nr = 0x40000000;	/* 0 1 2 3 8 */
	assert_int_equal(run_ok(p, N(p), &sd, &steps), SCMPC_ACT_KILL_PROCESS);
	assert_int_equal(steps, 5);
	sd.nr = 0;
	sd.arch = AUDIT_ARCH_I386;	/* 0 1 8 */
	assert_int_equal(run_ok(p, N(p), &sd, &steps), SCMPC_ACT_KILL_PROCESS);
	assert_int_equal(steps, 3);
}

/* ----------------------------------------------------------- errors */

static void test_bad_arguments(void **state)
{
	(void)state;
	struct sock_filter p[] = { BPF_STMT(BPF_RET | BPF_K, ALLOW) };
	uint32_t ret = 0;

	assert_int_equal(scmpc_emulate(NULL, 1, &zero_sd, &ret, NULL), -EINVAL);
	assert_int_equal(scmpc_emulate(p, 0, &zero_sd, &ret, NULL), -EINVAL);
	assert_int_equal(scmpc_emulate(p, 1, NULL, &ret, NULL), -EINVAL);
	assert_int_equal(scmpc_emulate(p, 1, &zero_sd, NULL, NULL), -EINVAL);
	assert_int_equal(scmpc_emulate(p, 1, &zero_sd, &ret, NULL), 0);
	assert_int_equal(ret, ALLOW);
}

static void test_out_of_range_programs(void **state)
{
	(void)state;
	struct sock_filter no_ret[] = { BPF_STMT(BPF_LD | BPF_IMM, 1) };
	struct sock_filter jt_past[] = {
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 5, 0),
		BPF_STMT(BPF_RET | BPF_K, 1),
	};
	struct sock_filter jf_past[] = {
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 1, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, 1),
	};
	struct sock_filter ja_past[] = {
		BPF_STMT(BPF_JMP | BPF_JA, 1),
		BPF_STMT(BPF_RET | BPF_K, 1),
	};
	/* a jump offset that would wrap a 32-bit pc back onto itself */
	struct sock_filter ja_wrap[] = {
		BPF_STMT(BPF_JMP | BPF_JA, 0xffffffff),
		BPF_STMT(BPF_RET | BPF_K, 1),
	};
	struct sock_filter ld_misaligned[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 2),
		BPF_STMT(BPF_RET | BPF_A, 0),
	};
	struct sock_filter ld_past[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 64),
		BPF_STMT(BPF_RET | BPF_A, 0),
	};
	struct sock_filter ld_huge[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0xfffff000),
		BPF_STMT(BPF_RET | BPF_A, 0),
	};
	struct sock_filter mem_past[] = {
		BPF_STMT(BPF_LD | BPF_MEM, 16),
		BPF_STMT(BPF_RET | BPF_A, 0),
	};
	struct sock_filter st_past[] = {
		BPF_STMT(BPF_ST, 16),
		BPF_STMT(BPF_RET | BPF_A, 0),
	};
	struct sock_filter div0[] = {
		BPF_STMT(BPF_ALU | BPF_DIV | BPF_K, 0),
		BPF_STMT(BPF_RET | BPF_A, 0),
	};
	struct sock_filter lsh32[] = {
		BPF_STMT(BPF_ALU | BPF_LSH | BPF_K, 32),
		BPF_STMT(BPF_RET | BPF_A, 0),
	};
	struct sock_filter rsh32[] = {
		BPF_STMT(BPF_ALU | BPF_RSH | BPF_K, 32),
		BPF_STMT(BPF_RET | BPF_A, 0),
	};

	run_fails(no_ret, N(no_ret), NULL);
	run_fails(jt_past, N(jt_past), NULL);	/* A == 0: true branch taken */
	run_fails(jf_past, N(jf_past), NULL);	/* A != 1: false branch taken */
	run_fails(ja_past, N(ja_past), NULL);
	run_fails(ja_wrap, N(ja_wrap), NULL);
	run_fails(ld_misaligned, N(ld_misaligned), NULL);
	run_fails(ld_past, N(ld_past), NULL);
	run_fails(ld_huge, N(ld_huge), NULL);
	run_fails(mem_past, N(mem_past), NULL);
	run_fails(st_past, N(st_past), NULL);
	run_fails(div0, N(div0), NULL);
	run_fails(lsh32, N(lsh32), NULL);
	run_fails(rsh32, N(rsh32), NULL);

	/* Only what executes is checked: the bad target is not taken. */
	struct sock_filter untaken[] = {
		BPF_STMT(BPF_LD | BPF_IMM, 1),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 200, 0),
		BPF_STMT(BPF_RET | BPF_K, 3),
	};
	assert_int_equal(run_ok(untaken, N(untaken), NULL, NULL), 3);
}

static void test_non_seccomp_opcodes(void **state)
{
	(void)state;
	/* classic BPF but not seccomp, then not classic at all */
	static const uint16_t codes[] = {
		0x28, 0x30, 0x40, 0x48, 0x50, 0x94, 0x9c, 0xb1,
		0x0e, 0xa5, 0x8c, 0xbf, 0xff, 0x106,
	};
	for (size_t i = 0; i < N(codes); i++) {
		struct sock_filter p[] = {
			{ codes[i], 0, 0, 4 },
			BPF_STMT(BPF_RET | BPF_K, 1),
		};
		run_fails(p, N(p), NULL);
	}
}

/* ------------------------------------------------------- eBPF length */

static struct sock_filter rets[4096];
static struct sock_filter loads[4096];

static void test_ebpf_len_reference_table(void **state)
{
	(void)state;
	struct sock_filter ret1[] = { BPF_STMT(BPF_RET | BPF_K, ALLOW) };
	struct sock_filter ld_ret[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0),
		BPF_STMT(BPF_RET | BPF_K, ALLOW),
	};
	struct sock_filter jeq[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 1, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, ALLOW),
		BPF_STMT(BPF_RET | BPF_K, 0),
	};
	struct sock_filter jset[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0),
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, 1, 2, 1),
		BPF_STMT(BPF_RET | BPF_K, 1),
		BPF_STMT(BPF_RET | BPF_K, 2),
		BPF_STMT(BPF_RET | BPF_K, 3),
	};

	/* bpf_convert_filter: 3 for the prologue, 2 per `ret #k`, 5 per
	 * `div x`, 1 per other statement; 1 per conditional jump with jf == 0
	 * (or jt == 0 for jeq/jgt/jge, which it inverts), 2 for the others,
	 * and 1 more for a jump's K of 0x80000000 or above. */
	assert_int_equal(bpf_ebpf_len(ret1, N(ret1)), 5);
	assert_int_equal(bpf_ebpf_len(ld_ret, N(ld_ret)), 6);
	assert_int_equal(bpf_ebpf_len(jeq, N(jeq)), 9);
	assert_int_equal(bpf_ebpf_len(jset, N(jset)), 12);

	for (size_t i = 0; i < 4096; i++) {
		rets[i] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, ALLOW);
		loads[i] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0);
	}
	loads[4095] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, ALLOW);
	assert_int_equal(bpf_ebpf_len(rets, 4096), 8195);
	assert_int_equal(bpf_ebpf_len(loads, 4096), 4100);
}

/* 3 + ld (1) + X + two rets (4) */
static size_t cost_of_jump(uint16_t code, uint32_t k, uint8_t jt, uint8_t jf)
{
	struct sock_filter p[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0),
		BPF_JUMP(code, k, jt, jf),
		BPF_STMT(BPF_RET | BPF_K, ALLOW),
		BPF_STMT(BPF_RET | BPF_K, 0),
	};
	return bpf_ebpf_len(p, N(p)) - 8;
}

static void test_ebpf_len_jumps(void **state)
{
	(void)state;
	/* jf == 0: one jump */
	assert_int_equal(cost_of_jump(J_K(BPF_JEQ), 1, 1, 0), 1);
	assert_int_equal(cost_of_jump(J_K(BPF_JSET), 1, 1, 0), 1);
	assert_int_equal(cost_of_jump(J_K(BPF_JEQ), 1, 0, 0), 1);
	/* jt == 0: jeq/jgt/jge are inverted, jset is not */
	assert_int_equal(cost_of_jump(J_K(BPF_JEQ), 1, 0, 1), 1);
	assert_int_equal(cost_of_jump(J_K(BPF_JGT), 1, 0, 1), 1);
	assert_int_equal(cost_of_jump(J_K(BPF_JGE), 1, 0, 1), 1);
	assert_int_equal(cost_of_jump(J_K(BPF_JSET), 1, 0, 1), 2);
	/* both taken somewhere else: jump + ja (jt = jf = 1 both reach insn 3) */
	assert_int_equal(cost_of_jump(J_K(BPF_JEQ), 1, 1, 1), 2);
	assert_int_equal(cost_of_jump(J_K(BPF_JGT), 1, 1, 1), 2);
	/* K >= 2^31 needs a mov into a scratch register first */
	assert_int_equal(cost_of_jump(J_K(BPF_JEQ), 0x80000000, 1, 0), 2);
	assert_int_equal(cost_of_jump(J_K(BPF_JEQ), 0xc000003e, 0, 1), 2);
	assert_int_equal(cost_of_jump(J_K(BPF_JSET), 0xffffffff, 0, 1), 3);
	assert_int_equal(cost_of_jump(J_K(BPF_JGE), 0x7fffffff, 1, 1), 2);
	/* the X forms have no immediate to widen */
	assert_int_equal(cost_of_jump(J_X(BPF_JEQ), 0x80000000, 1, 0), 1);
	assert_int_equal(cost_of_jump(J_X(BPF_JSET), 0x80000000, 0, 1), 2);
	assert_int_equal(cost_of_jump(J_X(BPF_JGE), 0, 0, 1), 1);
}

static void test_ebpf_len_other(void **state)
{
	(void)state;
	struct sock_filter divx[] = {
		BPF_STMT(BPF_LD | BPF_IMM, 1),
		BPF_STMT(BPF_LDX | BPF_IMM, 1),
		BPF_STMT(BPF_ALU | BPF_DIV | BPF_X, 0),
		BPF_STMT(BPF_RET | BPF_A, 0),
	};
	/* ret #k with a negative k, ld #k and ALU with big K: no extra cost */
	struct sock_filter big_k[] = {
		BPF_STMT(BPF_LD | BPF_IMM, 0x80000000),
		BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 0xffffffff),
		BPF_STMT(BPF_ALU | BPF_DIV | BPF_K, 0x80000000),
		BPF_STMT(BPF_JMP | BPF_JA, 0),
		BPF_STMT(BPF_RET | BPF_K, SCMPC_ACT_KILL_PROCESS),
	};
	struct sock_filter misc[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_LEN, 0),
		BPF_STMT(BPF_LDX | BPF_W | BPF_LEN, 0),
		BPF_STMT(BPF_ST, 0),
		BPF_STMT(BPF_STX, 1),
		BPF_STMT(BPF_LD | BPF_MEM, 0),
		BPF_STMT(BPF_LDX | BPF_MEM, 1),
		BPF_STMT(BPF_MISC | BPF_TAX, 0),
		BPF_STMT(BPF_MISC | BPF_TXA, 0),
		BPF_STMT(BPF_ALU | BPF_NEG, 0),
		BPF_STMT(BPF_ALU | BPF_LSH | BPF_X, 0),
		BPF_STMT(BPF_RET | BPF_A, 0),
	};
	assert_int_equal(bpf_ebpf_len(divx, N(divx)), 3 + 1 + 1 + 5 + 1);
	assert_int_equal(bpf_ebpf_len(big_k, N(big_k)), 3 + 1 + 1 + 1 + 1 + 2);
	assert_int_equal(bpf_ebpf_len(misc, N(misc)), 3 + 11);
}

/* A whole program in the shape scmpc emits, each line's count worked out
 * from bpf_convert_filter()'s rules (net/core/filter.c), not from the
 * code under test: the sum is what the layout choices of issue #26 are
 * measured by. */
static void test_ebpf_len_program(void **state)
{
	(void)state;
	struct sock_filter p[] = {
		/* ldx_mem: 1 */
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 4),
		/* mov32 tmp, k; jne a, tmp (jt == 0 inverts it): 2 */
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0xc000003e, 0, 5),
		/* ldx_mem: 1 */
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0),
		/* jge, false branch next: 1 */
		BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 100, 2, 0),
		/* a leaf whose branches both jump: jeq + ja, 2 */
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 3, 1, 2),
		/* jset is never inverted, and its K needs a register: 3 */
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, 0x80000000, 0, 1),
		/* mov32 r0, k; exit: 2 each */
		BPF_STMT(BPF_RET | BPF_K, ALLOW),
		BPF_STMT(BPF_RET | BPF_K, 0x50001),
	};
	/* 3 of prologue (A and X cleared, the context saved) */
	assert_int_equal(bpf_ebpf_len(p, N(p)), 3 + 1 + 2 + 1 + 1 + 2 + 3 + 2 + 2);
	/* The leaf with its false branch next instead: one `ja` fewer. */
	p[4].jf = 0;
	p[4].jt = 1;
	assert_int_equal(bpf_ebpf_len(p, N(p)), 3 + 1 + 2 + 1 + 1 + 1 + 3 + 2 + 2);
}

/* ------------------------------------------------------------ trace */

static void test_trace(void **state)
{
	(void)state;
	struct sock_filter p[] = {
		/* 0 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0),
		/* 1 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 1, 1, 0),
		/* 2 */ BPF_STMT(BPF_RET | BPF_K, SCMPC_ACT_ERRNO(1)),
		/* 3 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 16),
		/* 4 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 5, 0, 1),
		/* 5 */ BPF_STMT(BPF_RET | BPF_K, ALLOW),
		/* 6 */ BPF_STMT(BPF_RET | BPF_K, SCMPC_ACT_KILL_PROCESS),
	};
	struct seccomp_data sd = { .nr = 1, .arch = AUDIT_ARCH_X86_64, .args = { 5 } };
	size_t path[N(p)], npath = 0;
	uint32_t ret = 0;

	assert_int_equal(scmpc_emulate_trace(p, N(p), &sd, &ret, path, N(p), &npath), 0);
	assert_int_equal(ret, ALLOW);
	assert_int_equal(npath, 5);
	const size_t want[] = { 0, 1, 3, 4, 5 };
	for (size_t i = 0; i < N(want); i++)
		assert_int_equal(path[i], want[i]);

	/* a short buffer holds the start; the count is the whole path's */
	path[2] = 99;
	assert_int_equal(scmpc_emulate_trace(p, N(p), &sd, &ret, path, 2, &npath), 0);
	assert_int_equal(npath, 5);
	assert_int_equal(path[1], 1);
	assert_int_equal(path[2], 99);
	assert_int_equal(scmpc_emulate_trace(p, N(p), &sd, &ret, NULL, 0, &npath), 0);
	assert_int_equal(npath, 5);

	sd.nr = 2;
	assert_int_equal(scmpc_emulate_trace(p, N(p), &sd, &ret, path, N(p), &npath), 0);
	assert_int_equal(ret, SCMPC_ACT_ERRNO(1));
	assert_int_equal(npath, 3);
	assert_int_equal(path[2], 2);

	assert_int_equal(scmpc_emulate_trace(p, N(p), &sd, &ret, NULL, 1, &npath), -EINVAL);
	assert_int_equal(scmpc_emulate_trace(NULL, 1, &sd, &ret, path, 1, &npath), -EINVAL);
	/* off the end: an error, and no count */
	npath = 12345;
	assert_int_equal(scmpc_emulate_trace(p, 2, &sd, &ret, path, 2, &npath), -EINVAL);
	assert_int_equal(npath, 12345);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ld_abs_fields),
		cmocka_unit_test(test_nr_minus_one),
		cmocka_unit_test(test_initial_registers),
		cmocka_unit_test(test_len_imm_tax_txa),
		cmocka_unit_test(test_scratch_memory),
		cmocka_unit_test(test_alu_k),
		cmocka_unit_test(test_alu_x),
		cmocka_unit_test(test_div_x_by_zero),
		cmocka_unit_test(test_jumps_k),
		cmocka_unit_test(test_jumps_x),
		cmocka_unit_test(test_ja_and_false_branch),
		cmocka_unit_test(test_ret_a_full_width),
		cmocka_unit_test(test_small_filter),
		cmocka_unit_test(test_bad_arguments),
		cmocka_unit_test(test_out_of_range_programs),
		cmocka_unit_test(test_non_seccomp_opcodes),
		cmocka_unit_test(test_ebpf_len_reference_table),
		cmocka_unit_test(test_ebpf_len_jumps),
		cmocka_unit_test(test_ebpf_len_other),
		cmocka_unit_test(test_ebpf_len_program),
		cmocka_unit_test(test_trace),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
