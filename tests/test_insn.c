/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * The one definition of what an instruction means (src/bpf/insn.h), pinned
 * on its edge cases against values derived by hand from the kernel (the
 * eBPF interpreter the classic program is converted to: ALU32 ops, shift
 * counts masked to 5 bits, `div x` guarded by an exit returning 0), and
 * the three readers built on it checked against each other on random
 * valid programs: the emulator, the kernel's cache analysis and the
 * engine's symbolic walk must tell the same story about every call.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include <linux/audit.h>
#include "arch/arch.h"
#include "bpf/insn.h"
#include "engine/engine.h"
#include "testutil.h"

/* ------------------------------------------------- the semantics, pinned */

static void test_alu_values(void **state)
{
	(void)state;
	/* 32-bit wrap-around, unsigned throughout */
	assert_int_equal(insn_alu(BPF_ADD, 0xffffffffU, 2), 1);
	assert_int_equal(insn_alu(BPF_SUB, 0, 1), 0xffffffffU);
	assert_int_equal(insn_alu(BPF_MUL, 0x10000, 0x10000), 0);
	assert_int_equal(insn_alu(BPF_MUL, 0x80000001U, 3), 0x80000003U);
	assert_int_equal(insn_alu(BPF_DIV, 7, 2), 3);
	assert_int_equal(insn_alu(BPF_DIV, 0xffffffffU, 0x10), 0x0fffffffU);
	assert_int_equal(insn_alu(BPF_OR, 0xf0, 0x0f), 0xff);
	assert_int_equal(insn_alu(BPF_AND, 0xf0, 0x3c), 0x30);
	assert_int_equal(insn_alu(BPF_XOR, 0xff, 0x0f), 0xf0);
	assert_int_equal(insn_alu(BPF_NEG, 1, 12345), 0xffffffffU);
	assert_int_equal(insn_alu(BPF_NEG, 0x80000000U, 0), 0x80000000U);
	assert_int_equal(insn_alu(BPF_NEG, 0, 0), 0);
	/* shifts: ALU32 with the count masked to 5 bits (the interpreter's
	 * `(u32) DST << (SRC & 31)`, what x86's shl does for a 32-bit op) */
	assert_int_equal(insn_alu(BPF_LSH, 1, 31), 0x80000000U);
	assert_int_equal(insn_alu(BPF_LSH, 0x12345678U, 32), 0x12345678U);
	assert_int_equal(insn_alu(BPF_LSH, 3, 33), 6);
	assert_int_equal(insn_alu(BPF_RSH, 0x80000000U, 31), 1);
	assert_int_equal(insn_alu(BPF_RSH, 0x80000000U, 63), 1);
	assert_int_equal(insn_alu(BPF_RSH, 0x80000000U, 0xffffffe0U), 0x80000000U);
	assert_int_equal(insn_shift_count(32), 0);
	assert_int_equal(insn_shift_count(0xffffffffU), 31);
}

static void test_alu_faults(void **state)
{
	(void)state;
	/* `div x` by 0 ends the program with 0 (SECCOMP_RET_KILL_THREAD) */
	assert_int_equal(insn_alu_check(BPF_ALU | BPF_DIV | BPF_X, 0), INSN_ALU_KILL);
	assert_int_equal(insn_alu_check(BPF_ALU | BPF_DIV | BPF_X, 1), INSN_ALU_OK);
	/* constants the kernel refuses at load time */
	assert_int_equal(insn_alu_check(BPF_ALU | BPF_DIV | BPF_K, 0), INSN_ALU_BAD);
	assert_int_equal(insn_alu_check(BPF_ALU | BPF_LSH | BPF_K, 32), INSN_ALU_BAD);
	assert_int_equal(insn_alu_check(BPF_ALU | BPF_RSH | BPF_K, 0xffffffffU), INSN_ALU_BAD);
	assert_int_equal(insn_alu_check(BPF_ALU | BPF_LSH | BPF_K, 31), INSN_ALU_OK);
	/* a register count is never refused, it is masked */
	assert_int_equal(insn_alu_check(BPF_ALU | BPF_LSH | BPF_X, 32), INSN_ALU_OK);
	assert_int_equal(insn_alu_check(BPF_ALU | BPF_RSH | BPF_X, 1000), INSN_ALU_OK);
	/* classic BPF, not seccomp */
	assert_int_equal(insn_alu_check(BPF_ALU | BPF_MOD | BPF_K, 3), INSN_ALU_BAD);
	assert_int_equal(insn_alu_check(BPF_ALU | BPF_NEG | BPF_X, 0), INSN_ALU_BAD);
	assert_int_equal(insn_alu_check(BPF_ALU | BPF_NEG, 0), INSN_ALU_OK);
	/* what bpf_check_classic() says of the constants */
	assert_int_equal(insn_k_fault(BPF_ALU | BPF_DIV | BPF_K, 0), INSN_K_DIV0);
	assert_int_equal(insn_k_fault(BPF_ALU | BPF_MOD | BPF_K, 0), INSN_K_DIV0);
	assert_int_equal(insn_k_fault(BPF_ALU | BPF_DIV | BPF_X, 0), INSN_K_OK);
	assert_int_equal(insn_k_fault(BPF_ALU | BPF_RSH | BPF_K, 32), INSN_K_SHIFT);
	assert_int_equal(insn_k_fault(BPF_ST, 15), INSN_K_OK);
	assert_int_equal(insn_k_fault(BPF_STX, 16), INSN_K_MEM);
	assert_int_equal(insn_k_fault(BPF_LD | BPF_MEM, 16), INSN_K_MEM);
	assert_int_equal(insn_k_fault(BPF_LDX | BPF_MEM, 0xffffffffU), INSN_K_MEM);
}

static void test_jumps(void **state)
{
	(void)state;
	/* unsigned comparisons: 0xffffffff is the largest, not -1 */
	assert_true(insn_jump_taken(BPF_JGT, 0xffffffffU, 1));
	assert_false(insn_jump_taken(BPF_JGT, 5, 5));
	assert_true(insn_jump_taken(BPF_JGE, 5, 5));
	assert_true(insn_jump_taken(BPF_JGE, 0, 0));
	assert_false(insn_jump_taken(BPF_JGE, 0x7fffffffU, 0x80000000U));
	assert_true(insn_jump_taken(BPF_JEQ, 0x40000000U, 0x40000000U));
	/* jset: some common bit; never with 0 */
	assert_true(insn_jump_taken(BPF_JSET, 0x10, 0x11));
	assert_false(insn_jump_taken(BPF_JSET, 0x10, 0x01));
	assert_false(insn_jump_taken(BPF_JSET, 0xffffffffU, 0));
	/* tests with one outcome for every A */
	assert_int_equal(insn_jump_fixed(BPF_JGE, 0), 1);
	assert_int_equal(insn_jump_fixed(BPF_JGT, 0xffffffffU), 0);
	assert_int_equal(insn_jump_fixed(BPF_JSET, 0), 0);
	assert_int_equal(insn_jump_fixed(BPF_JGT, 0xfffffffeU), -1);
	assert_int_equal(insn_jump_fixed(BPF_JGE, 1), -1);
	assert_int_equal(insn_jump_fixed(BPF_JEQ, 0), -1);
	for (uint32_t a = 0; a < 4; a++) {
		uint32_t v = a * 0x55555555U;
		assert_true(insn_jump_taken(BPF_JGE, v, 0));
		assert_false(insn_jump_taken(BPF_JGT, v, 0xffffffffU));
		assert_false(insn_jump_taken(BPF_JSET, v, 0));
	}
	/* where they go; a huge `ja` lands past any program, not wrapped */
	struct sock_filter ja = BPF_JUMP(BPF_JMP | BPF_JA, 0xffffffffU, 0, 0);
	struct sock_filter jeq = BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 3, 7);
	assert_true(insn_jump_target(&ja, 10, true) == 11ULL + 0xffffffffULL);
	assert_true(insn_jump_target(&jeq, 10, true) == 14);
	assert_true(insn_jump_target(&jeq, 10, false) == 18);
	assert_true(insn_is_cond(jeq.code));
	assert_false(insn_is_cond(ja.code));
}

static void test_loads(void **state)
{
	(void)state;
	assert_int_equal(INSN_DATA_LEN, 64);
	assert_int_equal(INSN_NWORDS, 16);
	assert_int_equal(insn_load_word(0), 0);
	assert_int_equal(insn_load_word(4), 1);
	assert_int_equal(insn_load_word(60), 15);
	assert_int_equal(insn_load_word(64), -1);
	assert_int_equal(insn_load_word(2), -1);
	assert_int_equal(insn_load_word(0xfffff000U), -1);	/* SKF_AD_OFF */

	/* seccomp_data in the ABI's byte order: low half first on a
	 * little-endian ABI, high half first on a big-endian one */
	struct seccomp_data d = { .nr = -1, .arch = AUDIT_ARCH_X86_64,
				  .instruction_pointer = 0xaabbccdd00112233ULL,
				  .args = { 0x1122334455667788ULL, 0, 0, 0, 0, 0xffffffff00000001ULL } };
	uint32_t w[INSN_NWORDS];
	insn_data_words(&d, false, w);
	assert_int_equal(w[0], 0xffffffffU);
	assert_int_equal(w[1], AUDIT_ARCH_X86_64);
	assert_int_equal(w[2], 0x00112233U);
	assert_int_equal(w[3], 0xaabbccddU);
	assert_int_equal(w[4], 0x55667788U);
	assert_int_equal(w[5], 0x11223344U);
	assert_int_equal(w[14], 1);
	assert_int_equal(w[15], 0xffffffffU);
	insn_data_words(&d, true, w);
	assert_int_equal(w[4], 0x11223344U);
	assert_int_equal(w[5], 0x55667788U);
	struct seccomp_data back;
	insn_words_data(w, true, &back);
	assert_memory_equal(&back, &d, sizeof(d));
}

/* Run P (N instructions) by insn_step alone on the words W. */
static enum insn_step_res step_run(const struct sock_filter *p, size_t n, const uint32_t *w,
				   uint32_t *ret)
{
	struct insn_regs r = { 0 };
	uint64_t pc = 0, next;
	while (pc < n) {
		enum insn_step_res s = insn_step(&r, w, &p[pc], (size_t)pc, &next, ret);
		if (s != INSN_NEXT)
			return s;
		pc = next;
	}
	return INSN_BAD;
}

static void test_step(void **state)
{
	(void)state;
	uint32_t w[INSN_NWORDS] = { 59, AUDIT_ARCH_X86_64, 0, 0, 7 };
	uint32_t ret = 0;

	/* ld len, and M[] carries values between registers */
	struct sock_filter mem[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_LEN, 0),		/* A = 64 */
		BPF_STMT(BPF_ST, 15),				/* M[15] = 64 */
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 16),		/* A = args[0] low = 7 */
		BPF_STMT(BPF_LDX | BPF_MEM, 15),		/* X = 64 */
		BPF_STMT(BPF_ALU | BPF_ADD | BPF_X, 0),		/* A = 71 */
		BPF_STMT(BPF_RET | BPF_A, 0),
	};
	assert_int_equal(step_run(mem, 6, w, &ret), INSN_RET);
	assert_int_equal(ret, 71);

	/* `div x` by 0 returns 0, whatever follows */
	struct sock_filter div0[] = {
		BPF_STMT(BPF_LD | BPF_IMM, 10),
		BPF_STMT(BPF_ALU | BPF_DIV | BPF_X, 0),	/* X = 0 */
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	ret = 1;
	assert_int_equal(step_run(div0, 3, w, &ret), INSN_RET);
	assert_int_equal(ret, 0);

	/* a register shift count of 33 shifts by 1 */
	struct sock_filter sh[] = {
		BPF_STMT(BPF_LDX | BPF_IMM, 33),
		BPF_STMT(BPF_LD | BPF_IMM, 3),
		BPF_STMT(BPF_ALU | BPF_LSH | BPF_X, 0),
		BPF_STMT(BPF_RET | BPF_A, 0),
	};
	assert_int_equal(step_run(sh, 4, w, &ret), INSN_RET);
	assert_int_equal(ret, 6);

	/* jset on nr (59 = 0b111011): bit 2 is clear, bit 3 set */
	struct sock_filter js[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0),
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, 4, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, 8, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, 1),
		BPF_STMT(BPF_RET | BPF_K, 2),
	};
	assert_int_equal(step_run(js, 5, w, &ret), INSN_RET);
	assert_int_equal(ret, 1);

	/* what the kernel refuses is refused when it runs */
	struct sock_filter bad[][2] = {
		{ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 64), BPF_STMT(BPF_RET | BPF_A, 0) },
		{ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 6), BPF_STMT(BPF_RET | BPF_A, 0) },
		{ BPF_STMT(BPF_LD | BPF_MEM, 16), BPF_STMT(BPF_RET | BPF_A, 0) },
		{ BPF_STMT(BPF_ALU | BPF_DIV | BPF_K, 0), BPF_STMT(BPF_RET | BPF_A, 0) },
		{ BPF_STMT(BPF_ALU | BPF_RSH | BPF_K, 32), BPF_STMT(BPF_RET | BPF_A, 0) },
		{ BPF_STMT(BPF_ALU | BPF_MOD | BPF_K, 3), BPF_STMT(BPF_RET | BPF_A, 0) },
		{ BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 0), BPF_STMT(BPF_RET | BPF_A, 0) },
	};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		assert_int_equal(step_run(bad[i], 2, w, &ret), INSN_BAD);
}

/* --------------------------------------------- three readers, one meaning */

#define MAXLEN 48
#define NRETS 5

static const uint32_t rets[NRETS] = {
	SECCOMP_RET_ALLOW, SECCOMP_RET_ERRNO | 1, SECCOMP_RET_ERRNO | 13,
	SECCOMP_RET_KILL_PROCESS, SECCOMP_RET_LOG,
};

/* A constant a test or an argument is likely to meet. */
static uint32_t pick_k(struct testutil_rng *r)
{
	static const uint32_t ks[] = { 0, 1, 2, 3, 4, 7, 8, 59, 0xff, 0x100, 0x40000000U,
				       0x7fffffffU, 0x80000000U, 0xfffffffeU, 0xffffffffU,
				       AUDIT_ARCH_X86_64, AUDIT_ARCH_S390X };
	if (testutil_rng_below(r, 4) == 0)
		return (uint32_t)testutil_rng_next(r);
	return ks[testutil_rng_below(r, ARRAY_SIZE(ks))];
}

/* A word of seccomp_data a program reads: nr, arch or an argument's. */
static uint32_t pick_word(struct testutil_rng *r)
{
	uint32_t w = testutil_rng_below(r, 14);
	return w < 2 ? w : W_ARGS + w - 2;
}

/* Kinds of random program, by what the kernel's cache emulation does
 * with them. */
enum gen_kind {
	GEN_MEM,	/* anything, scratch memory written first: it stops at once */
	GEN_ANY,	/* anything but scratch memory */
	GEN_KERNEL,	/* only the instructions it folds, arguments loaded too */
	GEN_FOLDED,	/* only those, and only nr and arch: it decides every call */
};

/*
 * A random program the kernel accepts: a body of loads, ALU operations,
 * moves, scratch memory and forward jumps as KIND allows, then NRETS
 * returns.
 */
static size_t gen(struct testutil_rng *r, struct sock_filter *p, enum gen_kind kind)
{
	bool folded = kind >= GEN_KERNEL;
	size_t body = 4 + testutil_rng_below(r, MAXLEN - NRETS - 4), len = body + NRETS, n = 0;
	static const uint16_t alu_ops[] = { BPF_ADD, BPF_SUB, BPF_MUL, BPF_DIV, BPF_OR, BPF_AND,
					    BPF_XOR, BPF_LSH, BPF_RSH, BPF_NEG };
	static const uint16_t jmp_ops[] = { BPF_JEQ, BPF_JGT, BPF_JGE, BPF_JSET };

	if (kind == GEN_MEM) {
		/* both slots written before anything can read them */
		p[n++] = (struct sock_filter)BPF_STMT(BPF_ST, 0);
		p[n++] = (struct sock_filter)BPF_STMT(BPF_STX, 1);
	}
	while (n < body) {
		uint32_t c = testutil_rng_below(r, 100), k = pick_k(r);
		if (folded) {
			if (c < 30)
				p[n] = (struct sock_filter)BPF_STMT(
					BPF_LD | BPF_W | BPF_ABS,
					4 * (kind == GEN_KERNEL && c < 10 ? pick_word(r)
									  : testutil_rng_below(r, 2)));
			else if (c < 40)
				p[n] = (struct sock_filter)BPF_STMT(BPF_ALU | BPF_AND | BPF_K, k);
			else if (c < 45)
				p[n] = (struct sock_filter)BPF_STMT(
					BPF_JMP | BPF_JA, testutil_rng_below(r, (uint32_t)(len - n - 1)));
			else
				c = 99;	/* a conditional jump, below */
		} else if (c < 25) {
			p[n] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 4 * pick_word(r));
		} else if (c < 30) {
			p[n] = (struct sock_filter)BPF_STMT(
				testutil_rng_below(r, 2) ? BPF_LD | BPF_IMM : BPF_LDX | BPF_IMM, k);
		} else if (c < 33) {
			static const uint16_t codes[] = { BPF_MISC | BPF_TAX, BPF_MISC | BPF_TXA,
							  BPF_LD | BPF_W | BPF_LEN,
							  BPF_LDX | BPF_W | BPF_LEN };
			p[n] = (struct sock_filter)BPF_STMT(codes[testutil_rng_below(r, 4)], 0);
		} else if (c < 38 && kind == GEN_MEM) {
			static const uint16_t codes[] = { BPF_ST, BPF_STX, BPF_LD | BPF_MEM,
							  BPF_LDX | BPF_MEM };
			p[n] = (struct sock_filter)BPF_STMT(codes[testutil_rng_below(r, 4)],
							    testutil_rng_below(r, 2));
		} else if (c < 55) {
			uint16_t op = alu_ops[testutil_rng_below(r, ARRAY_SIZE(alu_ops))];
			bool by_x = op != BPF_NEG && testutil_rng_below(r, 6) == 0;
			if (op == BPF_LSH || op == BPF_RSH)
				k %= 32;
			if (op == BPF_DIV && !k)
				k = 3;
			p[n] = (struct sock_filter)BPF_STMT(BPF_ALU | op | (by_x ? BPF_X : BPF_K),
							    op == BPF_NEG ? 0 : k);
		} else {
			c = 99;
		}
		if (c == 99) {
			size_t left = len - n - 1;	/* instructions after this one */
			uint16_t op = jmp_ops[testutil_rng_below(r, 4)];
			bool by_x = !folded && testutil_rng_below(r, 8) == 0;
			p[n] = (struct sock_filter)BPF_JUMP(BPF_JMP | op | (by_x ? BPF_X : BPF_K), k,
							    (uint8_t)testutil_rng_below(r, (uint32_t)left),
							    (uint8_t)testutil_rng_below(r, (uint32_t)left));
		}
		n++;
	}
	for (size_t i = 0; i < NRETS; i++)
		p[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, rets[i]);
	return n;
}

/* Words of a call that meet the program's constants often. */
static void pick_call(struct testutil_rng *r, uint32_t w[NWORDS])
{
	for (unsigned i = 0; i < NWORDS; i++)
		w[i] = pick_k(r) + (uint32_t)testutil_rng_below(r, 3) - 1;
	static const uint32_t arches[] = { AUDIT_ARCH_X86_64, AUDIT_ARCH_S390X, AUDIT_ARCH_I386 };
	if (testutil_rng_below(r, 4))
		w[W_ARCH] = arches[testutil_rng_below(r, 3)];
}

static void emulate_words(const struct sock_filter *p, size_t len, const uint32_t w[NWORDS],
			  uint32_t *ret, unsigned *steps)
{
	struct seccomp_data sd;
	words_to_data(w, &sd);
	assert_int_equal(scmpc_emulate(p, len, &sd, ret, steps), 0);
}

/* The cache analysis against the emulator on one (arch, nr): where the
 * kernel folds the call to ALLOW every argument gets ALLOW, and the
 * kernel's walk is a prefix of the emulator's path.  EXACT (a folded
 * program): the two decide alike. */
static void cache_vs_emulate(struct testutil_rng *r, const struct sock_filter *p, size_t len,
			     bool exact, const struct walker *W)
{
	uint32_t w[NWORDS];
	pick_call(r, w);
	uint32_t stop = 0, ret;
	int c = scmpc_cache_const_allow(p, len, w[W_ARCH], w[W_NR], &stop);
	assert_true(c == 0 || c == 1);
	/* every argument at once, from the engine's paths when it walked
	 * the program: a cached call is ALLOW on each path it lies on */
	for (size_t i = 0; W && c == 1 && i < W->npaths; i++)
		if (wcon_has(&W->paths[i].w[W_NR], w[W_NR]) &&
		    wcon_has(&W->paths[i].w[W_ARCH], w[W_ARCH]))
			assert_int_equal(W->paths[i].ret, SECCOMP_RET_ALLOW);
	for (int t = 0; t < 4; t++) {
		size_t path[4 * MAXLEN], npath = 0;
		struct seccomp_data sd;
		words_to_data(w, &sd);
		assert_int_equal(scmpc_emulate_trace(p, len, &sd, &ret, path, ARRAY_SIZE(path),
						     &npath), 0);
		if (c == 1)
			assert_int_equal(ret, SECCOMP_RET_ALLOW);
		if (exact)
			assert_int_equal(c, ret == SECCOMP_RET_ALLOW);
		bool on_path = false;
		for (size_t i = 0; i < npath; i++)
			on_path |= path[i] == stop;
		assert_true(on_path);
		if (exact)
			assert_int_equal(path[npath - 1], stop);
		/* other arguments, same (arch, nr) */
		for (unsigned i = W_IP; i < NWORDS; i++)
			w[i] = pick_k(r);
	}
}

/* The engine's paths against the emulator: each path's first input
 * returns what the path says in as many steps, and a random call lies in
 * exactly one path, whose return the emulator gives.  False when the
 * engine refuses the program (arithmetic it cannot follow exactly). */
static bool engine_vs_emulate(struct testutil_rng *r, const struct sock_filter *p, size_t len,
			      struct walker *L)
{
	const struct sock_filter *progs[1] = { p };
	struct walker W = { .progs = progs, .lens = &len, .n = 1, .mode = WALK_ONE,
			    .max_paths = 100000 };
	int err = walk_paths(&W);
	if (err < 0) {
		assert_true(err == -ENOTSUP || err == -E2BIG);
		walker_fini(&W);
		return false;
	}
	*L = W;
	assert_true(W.npaths > 0);
	for (size_t i = 0; i < W.npaths; i++) {
		uint32_t w[NWORDS], ret;
		unsigned steps;
		for (unsigned j = 0; j < NWORDS; j++)
			assert_int_equal(wcon_first(&W.paths[i].w[j], 0, &w[j]), 1);
		emulate_words(p, len, w, &ret, &steps);
		assert_int_equal(ret, W.paths[i].ret);
		assert_int_equal(steps, W.paths[i].len);
	}
	for (int t = 0; t < 64; t++) {
		uint32_t w[NWORDS], ret;
		unsigned steps;
		pick_call(r, w);
		emulate_words(p, len, w, &ret, &steps);
		size_t hits = 0;
		for (size_t i = 0; i < W.npaths; i++) {
			bool in = true;
			for (unsigned j = 0; j < NWORDS && in; j++)
				in = wcon_has(&W.paths[i].w[j], w[j]);
			if (!in)
				continue;
			hits++;
			assert_int_equal(ret, W.paths[i].ret);
			assert_int_equal(steps, W.paths[i].len);
		}
		assert_int_equal(hits, 1);
	}
	return true;
}

static void test_readers_agree(void **state)
{
	(void)state;
	struct testutil_rng r;
	struct sock_filter p[MAXLEN];
	unsigned walked = 0, tried = 0;

	testutil_rng_seed(&r, 0x1e5e7);
	for (int i = 0; i < 3000; i++) {
		enum gen_kind kind = (enum gen_kind)(i % 4);
		size_t len = gen(&r, p, kind);
		bool folded = kind == GEN_FOLDED;
		assert_int_equal(scmpc_verify_insns(p, len, NULL), 0);
		struct walker W;
		bool ok = engine_vs_emulate(&r, p, len, &W);
		for (int t = 0; t < 8; t++)
			cache_vs_emulate(&r, p, len, folded, ok ? &W : NULL);
		if (ok)
			walker_fini(&W);
		tried++;
		walked += ok;
	}
	print_message("%u of %u random programs walked by the engine\n", walked, tried);
	/* most must be, or the engine's side proves little */
	assert_true(walked * 2 > tried);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_alu_values),
		cmocka_unit_test(test_alu_faults),
		cmocka_unit_test(test_jumps),
		cmocka_unit_test(test_loads),
		cmocka_unit_test(test_step),
		cmocka_unit_test(test_readers_agree),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
