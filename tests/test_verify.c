/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * scmpc_verify_insns(): each of the kernel's acceptance rules
 * (net/core/filter.c `bpf_check_classic` and `check_load_and_stores`,
 * kernel/seccomp.c `seccomp_check_filter`), with the expectation for every
 * case derived by hand from those rules.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "internal.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define ALLOW SCMPC_ACT_ALLOW
#define RET_ALLOW BPF_STMT(BPF_RET | BPF_K, ALLOW)
#define RET_KILL BPF_STMT(BPF_RET | BPF_K, SCMPC_ACT_KILL_PROCESS)

static void accepts(const struct sock_filter *p, size_t n)
{
	scmpc_diag *d = scmpc_diag_new();
	int r = scmpc_verify_insns(p, n, d);
	if (r != 0)
		fail_msg("rejected: %s", scmpc_diag_message(d));
	assert_int_equal(scmpc_diag_errno(d), 0);
	scmpc_diag_free(d);
}

/* Expect -EINVAL blamed on instruction INSN (-1: none) with a message
 * containing WHAT. */
static void rejects(const struct sock_filter *p, size_t n, long insn, const char *what)
{
	scmpc_diag *d = scmpc_diag_new();
	assert_int_equal(scmpc_verify_insns(p, n, d), -EINVAL);
	assert_int_equal(scmpc_diag_errno(d), -EINVAL);
	assert_int_equal(scmpc_diag_insn(d), insn);
	if (!strstr(scmpc_diag_message(d), what))
		fail_msg("message \"%s\" lacks \"%s\"", scmpc_diag_message(d), what);
	if (insn >= 0) {
		char where[32];
		snprintf(where, sizeof(where), "insn %ld", insn);
		assert_string_equal(scmpc_diag_where(d), where);
	}
	scmpc_diag_free(d);
	/* and without a diag object */
	assert_int_equal(scmpc_verify_insns(p, n, NULL), -EINVAL);
}

/* ------------------------------------------------------------ length */

static struct sock_filter big[4097];

static void test_length_limits(void **state)
{
	(void)state;
	struct sock_filter one[] = { RET_ALLOW };

	accepts(one, 1);
	rejects(one, 0, -1, "empty");
	for (size_t i = 0; i < N(big); i++)
		big[i] = (struct sock_filter)RET_ALLOW;
	accepts(big, 4096);
	rejects(big, 4097, -1, "program has 4097 instructions; the kernel accepts at most 4096");
	rejects(big, 5000, -1, "program has 5000 instructions");
	assert_int_equal(scmpc_verify_insns(NULL, 3, NULL), -EINVAL);
}

/* ---------------------------------------------------------- opcodes */

/* The 41 opcodes seccomp_check_filter() accepts (the cases of its switch
 * in kernel/seccomp.c), sorted. */
static const uint16_t legal[41] = {
	0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x0c, 0x14, 0x15, 0x16, 0x1c, 0x1d,
	0x20, 0x24, 0x25, 0x2c, 0x2d, 0x34, 0x35, 0x3c, 0x3d, 0x44, 0x45, 0x4c, 0x4d, 0x54,
	0x5c, 0x60, 0x61, 0x64, 0x6c, 0x74, 0x7c, 0x80, 0x81, 0x84, 0x87, 0xa4, 0xac,
};

/* Opcodes classic BPF has but seccomp refuses: half/byte and indirect
 * loads, mod, ldx msh. */
static const uint16_t classic_only[8] = { 0x28, 0x30, 0x40, 0x48, 0x50, 0x94, 0x9c, 0xb1 };

static bool in(const uint16_t *set, size_t n, unsigned code)
{
	for (size_t i = 0; i < n; i++)
		if (set[i] == code)
			return true;
	return false;
}

/*
 * Every 16-bit opcode in a context where its operand is fine: M[4] is
 * stored first, k = 4 is a valid offset, divisor, shift, slot and (with five
 * returns after it) jump distance.
 */
static void test_every_opcode(void **state)
{
	(void)state;
	unsigned accepted = 0;
	scmpc_diag *d = scmpc_diag_new();

	for (unsigned code = 0; code <= 0xffff; code++) {
		struct sock_filter p[] = {
			BPF_STMT(BPF_ST, 4),
			{ (uint16_t)code, 0, 0, 4 },
			RET_ALLOW, RET_ALLOW, RET_ALLOW, RET_ALLOW, RET_ALLOW,
		};
		scmpc_diag_clear(d);
		int r = scmpc_verify_insns(p, N(p), d);
		bool ok = in(legal, N(legal), code);
		if (ok) {
			if (r != 0)
				fail_msg("opcode 0x%02x rejected: %s", code, scmpc_diag_message(d));
			accepted++;
			continue;
		}
		assert_int_equal(r, -EINVAL);
		assert_int_equal(scmpc_diag_insn(d), 1);
		const char *want = in(classic_only, N(classic_only), code)
					   ? "is not allowed in seccomp filters"
					   : "is not a classic BPF instruction";
		if (!strstr(scmpc_diag_message(d), want))
			fail_msg("opcode 0x%02x: \"%s\"", code, scmpc_diag_message(d));
	}
	assert_int_equal(accepted, 41);
	scmpc_diag_free(d);
}

static void test_illegal_opcode_messages(void **state)
{
	(void)state;
	struct sock_filter ldh[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 4),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0),
		BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 0),
		RET_ALLOW,
	};
	struct sock_filter mod[] = { BPF_STMT(BPF_ALU | BPF_MOD | BPF_K, 3), RET_ALLOW };
	struct sock_filter modx[] = { BPF_STMT(BPF_ALU | BPF_MOD | BPF_X, 0), RET_ALLOW };
	struct sock_filter ldb[] = { BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 0), RET_ALLOW };
	struct sock_filter ind[] = { BPF_STMT(BPF_LD | BPF_W | BPF_IND, 0), RET_ALLOW };
	struct sock_filter msh[] = { BPF_STMT(BPF_LDX | BPF_B | BPF_MSH, 0), RET_ALLOW };
	struct sock_filter retx[] = { BPF_STMT(BPF_LD | BPF_IMM, 0), { 0x0e, 0, 0, 0 }, RET_ALLOW };
	struct sock_filter jlt[] = { { 0xa5, 0, 0, 1 }, RET_ALLOW };

	rejects(ldh, N(ldh), 3, "insn 3: opcode 0x28 (ld h abs) is not allowed in seccomp filters");
	rejects(mod, N(mod), 0, "opcode 0x94 (mod #k)");
	rejects(modx, N(modx), 0, "opcode 0x9c (mod x)");
	rejects(ldb, N(ldb), 0, "opcode 0x30");
	rejects(ind, N(ind), 0, "opcode 0x40");
	rejects(msh, N(msh), 0, "opcode 0xb1");
	rejects(retx, N(retx), 1, "insn 1: opcode 0x0e is not a classic BPF instruction");
	rejects(jlt, N(jlt), 0, "opcode 0xa5 is not a classic");
}

/* --------------------------------------------------------- operands */

static void test_alu_operands(void **state)
{
	(void)state;
	struct sock_filter div0[] = { BPF_STMT(BPF_LD | BPF_IMM, 1),
				      BPF_STMT(BPF_ALU | BPF_DIV | BPF_K, 0), RET_ALLOW };
	struct sock_filter div1[] = { BPF_STMT(BPF_ALU | BPF_DIV | BPF_K, 1), RET_ALLOW };
	/* mod #0 fails the classic check before the seccomp one */
	struct sock_filter mod0[] = { BPF_STMT(BPF_ALU | BPF_MOD | BPF_K, 0), RET_ALLOW };
	/* div x cannot be checked statically and is allowed */
	struct sock_filter divx[] = { BPF_STMT(BPF_ALU | BPF_DIV | BPF_X, 0), RET_ALLOW };
	struct sock_filter lsh31[] = { BPF_STMT(BPF_ALU | BPF_LSH | BPF_K, 31), RET_ALLOW };
	struct sock_filter lsh32[] = { BPF_STMT(BPF_ALU | BPF_LSH | BPF_K, 32), RET_ALLOW };
	struct sock_filter rsh31[] = { BPF_STMT(BPF_ALU | BPF_RSH | BPF_K, 31), RET_ALLOW };
	struct sock_filter rsh99[] = { BPF_STMT(BPF_ALU | BPF_RSH | BPF_K, 99), RET_ALLOW };
	struct sock_filter lshx[] = { BPF_STMT(BPF_ALU | BPF_LSH | BPF_X, 99), RET_ALLOW };

	rejects(div0, N(div0), 1, "insn 1: div #k divides by the constant 0");
	accepts(div1, N(div1));
	rejects(mod0, N(mod0), 0, "divides by the constant 0");
	accepts(divx, N(divx));
	accepts(lsh31, N(lsh31));
	rejects(lsh32, N(lsh32), 0, "shifts by 32");
	accepts(rsh31, N(rsh31));
	rejects(rsh99, N(rsh99), 0, "shifts by 99");
	accepts(lshx, N(lshx));
}

static void test_scratch_slots(void **state)
{
	(void)state;
	struct sock_filter st15[] = {
		BPF_STMT(BPF_ST, 15), BPF_STMT(BPF_STX, 15),
		BPF_STMT(BPF_LD | BPF_MEM, 15), BPF_STMT(BPF_LDX | BPF_MEM, 15), RET_ALLOW,
	};
	struct sock_filter st16[] = { BPF_STMT(BPF_ST, 16), RET_ALLOW };
	struct sock_filter stx16[] = { BPF_STMT(BPF_STX, 16), RET_ALLOW };
	struct sock_filter ld16[] = { BPF_STMT(BPF_ST, 0), BPF_STMT(BPF_LD | BPF_MEM, 16), RET_ALLOW };
	struct sock_filter ldx16[] = { BPF_STMT(BPF_LDX | BPF_MEM, 0xffffffff), RET_ALLOW };

	accepts(st15, N(st15));
	rejects(st16, N(st16), 0, "M[16]");
	rejects(stx16, N(stx16), 0, "M[16]");
	rejects(ld16, N(ld16), 1, "M[16]");
	rejects(ldx16, N(ldx16), 0, "M[4294967295]");
}

static void test_ld_abs_offsets(void **state)
{
	(void)state;
	for (uint32_t k = 0; k < 64; k += 4) {
		struct sock_filter p[] = { BPF_STMT(BPF_LD | BPF_W | BPF_ABS, k), RET_ALLOW };
		accepts(p, N(p));
	}
	struct sock_filter k64[] = { BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 64), RET_ALLOW };
	struct sock_filter k2[] = { RET_ALLOW, BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 2), RET_ALLOW };
	struct sock_filter k61[] = { BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 61), RET_ALLOW };
	struct sock_filter anc[] = { BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0xfffff000), RET_ALLOW };
	struct sock_filter k1000[] = { BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 1000), RET_ALLOW };

	rejects(k64, N(k64), 0, "ld [64] is outside struct seccomp_data");
	rejects(k2, N(k2), 1, "insn 1: ld [2] is not 4-byte aligned");
	rejects(k61, N(k61), 0, "ld [61]");
	rejects(anc, N(anc), 0, "ld [0xfffff000] is outside struct seccomp_data");
	rejects(k1000, N(k1000), 0, "ld [1000] is outside");
}

static void test_ancillary_loads(void **state)
{
	(void)state;
	/* SKF_AD_OFF + 0 (protocol) is a known ancillary field: the classic
	 * pass lets it through and the bad jump after it is found first. */
	struct sock_filter known[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0xfffff000),
		BPF_STMT(BPF_JMP | BPF_JA, 5),
		RET_ALLOW,
	};
	/* SKF_AD_OFF + 0x100 is no field: the classic pass stops at insn 0 */
	struct sock_filter unknown[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0xfffff100),
		BPF_STMT(BPF_JMP | BPF_JA, 5),
		RET_ALLOW,
	};
	/* SKF_AD_OFF + 62 is not 4-aligned, so not a field either */
	struct sock_filter unaligned[] = {
		BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 0xfffff03e),
		BPF_STMT(BPF_JMP | BPF_JA, 5),
		RET_ALLOW,
	};
	/* a known field through ld h abs gets past the classic pass and is
	 * refused for its opcode */
	struct sock_filter half[] = {
		BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 0xfffff03c),
		RET_ALLOW,
	};

	rejects(known, N(known), 1, "jump target 7");
	rejects(unknown, N(unknown), 0, "offset 0xfffff100 is outside struct seccomp_data");
	rejects(unaligned, N(unaligned), 0, "offset 0xfffff03e");
	rejects(half, N(half), 0, "opcode 0x28 (ld h abs) is not allowed");
}

/* ------------------------------------------------------------ jumps */

static void test_ja_range(void **state)
{
	(void)state;
	struct sock_filter ok[] = { BPF_STMT(BPF_JMP | BPF_JA, 0), RET_ALLOW };
	struct sock_filter ok_far[] = { BPF_STMT(BPF_JMP | BPF_JA, 1), RET_ALLOW, RET_ALLOW };
	/* k must be < len - pc - 1 = 1 */
	struct sock_filter past[] = { BPF_STMT(BPF_JMP | BPF_JA, 1), RET_ALLOW };
	struct sock_filter huge[] = { BPF_STMT(BPF_JMP | BPF_JA, 0xffffffff), RET_ALLOW };
	/* the brief's example: ja at insn 7 aiming at 7 + 1 + 292 = 300 */
	struct sock_filter far[12];

	accepts(ok, N(ok));
	accepts(ok_far, N(ok_far));
	rejects(past, N(past), 0, "insn 0: jump target 2 is past the end (len 2)");
	rejects(huge, N(huge), 0, "jump target 4294967296 is past the end");
	for (size_t i = 0; i < N(far); i++)
		far[i] = (struct sock_filter)RET_ALLOW;
	far[7] = (struct sock_filter)BPF_STMT(BPF_JMP | BPF_JA, 292);
	rejects(far, N(far), 7, "insn 7: jump target 300 is past the end (len 12)");
}

static void test_conditional_range(void **state)
{
	(void)state;
	/* targets pc+1+jt and pc+1+jf must both be < len (3 here) */
	struct sock_filter jt_end[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 1, 1, 0),
		RET_ALLOW,
	};
	struct sock_filter jf_end[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0),
		BPF_JUMP(BPF_JMP | BPF_JGT | BPF_K, 1, 0, 1),
		RET_ALLOW,
	};
	struct sock_filter x_form[] = {
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_X, 0, 0, 200),
		RET_ALLOW,
	};
	struct sock_filter last_ok[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0),
		BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 1, 1, 0),
		RET_ALLOW,
		RET_KILL,
	};

	rejects(jt_end, N(jt_end), 1, "insn 1: jump target 3 (if true) is past the end (len 3)");
	rejects(jf_end, N(jf_end), 1, "insn 1: jump target 3 (if false) is past the end (len 3)");
	rejects(x_form, N(x_form), 0, "jump target 201 (if false)");
	accepts(last_ok, N(last_ok));
}

static struct sock_filter long_prog[300];

static void test_jump_255(void **state)
{
	(void)state;
	/* jt/jf are 8-bit: 255 is the farthest reach, and fine when in range */
	for (size_t i = 0; i < N(long_prog); i++)
		long_prog[i] = (struct sock_filter)RET_ALLOW;
	long_prog[0] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0);
	long_prog[1] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 1, 255, 255);
	accepts(long_prog, 258);	/* 1 + 1 + 255 = 257 = len - 1 */
	rejects(long_prog, 257, 1, "jump target 257 (if true) is past the end (len 257)");
}

static void test_last_must_return(void **state)
{
	(void)state;
	struct sock_filter ld_only[] = { BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0) };
	struct sock_filter ret_then_ld[] = { RET_ALLOW, BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0) };
	struct sock_filter ends_ja[] = { RET_ALLOW, BPF_STMT(BPF_MISC | BPF_TAX, 0) };
	struct sock_filter ret_a[] = { BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0), BPF_STMT(BPF_RET | BPF_A, 0) };

	rejects(ld_only, N(ld_only), 0, "last instruction is not a return");
	rejects(ret_then_ld, N(ret_then_ld), 1, "insn 1: last instruction is not a return");
	rejects(ends_ja, N(ends_ja), 1, "(it is tax)");
	accepts(ret_a, N(ret_a));
}

/* -------------------------------------------------- scratch memory */

static void test_memory_read_before_write(void **state)
{
	(void)state;
	struct sock_filter never[] = { BPF_STMT(BPF_LD | BPF_MEM, 0), RET_ALLOW };
	struct sock_filter other_slot[] = {
		BPF_STMT(BPF_ST, 1), BPF_STMT(BPF_LDX | BPF_MEM, 3), RET_ALLOW,
	};
	/* stored on the false path only: 0 ld; 1 jeq ->2/3; 2 st; 3 ld M0 */
	struct sock_filter one_path[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 1, 0, 1),
		BPF_STMT(BPF_ST, 0),
		BPF_STMT(BPF_LD | BPF_MEM, 0),
		RET_ALLOW,
	};
	/* stored on both paths: 1 jeq -> 2/4; 3 ja -> 5; 5 ld M0 */
	struct sock_filter both_paths[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 1, 0, 2),
		BPF_STMT(BPF_ST, 0),
		BPF_STMT(BPF_JMP | BPF_JA, 1),
		BPF_STMT(BPF_STX, 0),
		BPF_STMT(BPF_LD | BPF_MEM, 0),
		BPF_STMT(BPF_RET | BPF_A, 0),
	};
	/* stored before the branch: survives both edges */
	struct sock_filter before_branch[] = {
		BPF_STMT(BPF_ST, 7),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0),
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, 1, 1, 0),
		BPF_STMT(BPF_LDX | BPF_MEM, 7),
		BPF_STMT(BPF_LD | BPF_MEM, 7),
		BPF_STMT(BPF_RET | BPF_A, 0),
	};

	rejects(never, N(never), 0, "insn 0: M[0] may be read before it is written");
	rejects(other_slot, N(other_slot), 1, "insn 1: M[3] may be read before it is written");
	rejects(one_path, N(one_path), 3, "insn 3: M[0] may be read before it is written");
	accepts(both_paths, N(both_paths));
	accepts(before_branch, N(before_branch));
}

static void test_ret_quirk(void **state)
{
	(void)state;
	/*
	 * check_load_and_stores() does not reset its state at a RET: the
	 * insn after a RET starts from the state before it, ANDed with the
	 * jumps into it.  So it refuses
	 * ld nr; jeq 5,0,2; st M0; ja 1; ret KILL; ld M0; ret ALLOW.
	 * The only jump into `ld M0` (from the ja) stored M0, but the state
	 * reaching it over the RET is the one after the jeq reset at insn 4:
	 * valid = incoming[4] = {} (the jeq's false edge), so M0 is invalid.
	 */
	struct sock_filter quirk[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 5, 0, 2),
		BPF_STMT(BPF_ST, 0),
		BPF_STMT(BPF_JMP | BPF_JA, 1),
		RET_KILL,
		BPF_STMT(BPF_LD | BPF_MEM, 0),
		RET_ALLOW,
	};
	rejects(quirk, N(quirk), 5, "insn 5: M[0] may be read before it is written");
	rejects(quirk, N(quirk), 5, "across a return");

	/* The quirk in the accepting direction: the load after the RET is
	 * unreachable, yet passes because the state before the RET had M0. */
	struct sock_filter carried[] = {
		BPF_STMT(BPF_ST, 0),
		RET_ALLOW,
		BPF_STMT(BPF_LD | BPF_MEM, 0),
		BPF_STMT(BPF_RET | BPF_A, 0),
	};
	accepts(carried, N(carried));
	/* ... and the same dead load without the store is rejected, since
	 * unreachable code is checked too. */
	struct sock_filter dead[] = {
		RET_ALLOW,
		BPF_STMT(BPF_LD | BPF_MEM, 0),
		BPF_STMT(BPF_RET | BPF_A, 0),
	};
	rejects(dead, N(dead), 1, "M[0] may be read before it is written");

	/* Both jump edges and the pre-RET state stored M0: accepted. */
	struct sock_filter stored_everywhere[] = {
		BPF_STMT(BPF_ST, 0),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 5, 0, 1),
		RET_KILL,
		BPF_STMT(BPF_LD | BPF_MEM, 0),
		RET_ALLOW,
	};
	accepts(stored_everywhere, N(stored_everywhere));

	/* Code after an unconditional ja starts all-valid: the unreachable
	 * load at 2 passes (the ja's target, 3, gets the empty set). */
	struct sock_filter after_ja[] = {
		BPF_STMT(BPF_LD | BPF_IMM, 0),
		BPF_STMT(BPF_JMP | BPF_JA, 1),
		BPF_STMT(BPF_LD | BPF_MEM, 0),
		BPF_STMT(BPF_RET | BPF_A, 0),
	};
	accepts(after_ja, N(after_ja));
}

/* ------------------------------------------------------------ order */

static void test_kernel_order(void **state)
{
	(void)state;
	/* bpf_check_classic() runs before seccomp_check_filter(): with an
	 * illegal opcode at 0 and a bad jump at 1, the jump is reported. */
	struct sock_filter p[] = {
		BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 0),
		BPF_STMT(BPF_JMP | BPF_JA, 5),
		RET_ALLOW,
	};
	rejects(p, N(p), 1, "jump target 7");
	/* the final-RET check comes before the scratch-memory check */
	struct sock_filter q[] = { BPF_STMT(BPF_LD | BPF_MEM, 0), BPF_STMT(BPF_MISC | BPF_TAX, 0) };
	rejects(q, N(q), 1, "last instruction is not a return");
	/* and the scratch check before the opcode list */
	struct sock_filter r[] = {
		BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 0),
		BPF_STMT(BPF_LD | BPF_MEM, 2),
		RET_ALLOW,
	};
	rejects(r, N(r), 1, "M[2] may be read");
}

static void test_realistic_filter(void **state)
{
	(void)state;
	struct sock_filter p[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 4),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0xc000003e, 0, 8),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0),
		BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 6, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 16, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 28),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 2),
		BPF_STMT(BPF_RET | BPF_K, SCMPC_ACT_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SCMPC_ACT_ERRNO(1)),
		BPF_STMT(BPF_RET | BPF_K, SCMPC_ACT_ERRNO(1)),
		RET_KILL,
	};
	accepts(p, N(p));
}

/* The semantic check covers every number, not a sample: a program that
 * is right on the first thousand numbers and every boundary the policy
 * has, but wrong far out in a gap, a number no probe list would name, is
 * caught; so is one wrong on a block that a JSET tells apart. */
static void test_semantic_check_whole_space(void **state)
{
	(void)state;
	uint32_t audit = scmpc_arch_audit(SCMPC_ARCH_X86_64);
	scmpc_diag *d = scmpc_diag_new();
	scmpc_policy *p = scmpc_policy_new(SCMPC_ACT_ERRNO(1));
	assert_int_equal(scmpc_policy_add_arch(p, SCMPC_ARCH_X86_64, d), 0);
	assert_int_equal(scmpc_policy_set_bad_arch_action(p, SCMPC_ACT_KILL_PROCESS, d), 0);
	/* ERRNO(1) for x86_64's numbers and -1; x32's (bit 30 and up) are a
	 * foreign ABI here.  Instruction 6 is where the variants go wrong; as
	 * written it never matches (x32's numbers left already). */
	struct sock_filter prog[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, audit, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SCMPC_ACT_KILL_PROCESS),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0xffffffffU, 4, 0),
		BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000U, 1, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0x40000000U, 0, 1),	/* variant */
		BPF_STMT(BPF_RET | BPF_K, SCMPC_ACT_KILL_PROCESS),
		BPF_STMT(BPF_RET | BPF_K, SCMPC_ACT_ERRNO(1)),
		BPF_STMT(BPF_RET | BPF_K, SCMPC_ACT_ERRNO(1)),
	};
	size_t n = sizeof(prog) / sizeof(prog[0]);
	assert_int_equal(scmpc_verify_policy(p, prog, n, d), 0);
	/* number 123457 alone killed: far past the first thousand numbers and
	 * every boundary the policy has, where no probe list would look */
	prog[6] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 123457, 0, 1);
	assert_int_equal(scmpc_verify_policy(p, prog, n, d), -EPROTO);
	assert_non_null(strstr(scmpc_diag_message(d), "123457"));
	/* or every number with bit 20 set, told apart by a JSET */
	prog[6] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, 0x00100000U, 0, 1);
	assert_int_equal(scmpc_verify_policy(p, prog, n, d), -EPROTO);
	scmpc_policy_free(p);
	scmpc_diag_free(d);
}

/* Faults only a proof over every argument value catches.  The policy
 * allows read(arg0 < 1000), mmap(arg2 & 7 == 1) and ioctl(arg2 < 1 << 47),
 * 64-bit conditions on x86_64; the program below decides exactly that, and
 * each planted variant is wrong on one class of argument values that holds
 * none of the check's probe vectors (constants, their neighbours, high-word
 * and mask-bit variants): read at 777, mmap where bit 20 is set and bit 21
 * clear, ioctl where arg2's high word is 0x1234.  The probes alone pass
 * every variant (shown first); the check must name a value of the class,
 * which is derived by hand: its least member, other words 0. */
enum { SLOT_READ = 14, SLOT_MMAP = 18, SLOT_IOCTL = 24 };

static scmpc_policy *args_policy(scmpc_diag *d)
{
	scmpc_policy *p = scmpc_policy_new(SCMPC_ACT_ERRNO(1));
	assert_int_equal(scmpc_policy_add_arch(p, SCMPC_ARCH_X86_64, d), 0);
	assert_int_equal(scmpc_policy_set_bad_arch_action(p, SCMPC_ACT_KILL_PROCESS, d), 0);
	struct scmpc_cond rd = { .arg = 0, .op = SCMPC_OP_LT, .value = 1000 };
	struct scmpc_cond mm = { .arg = 2, .op = SCMPC_OP_MASKED_EQ, .value = 7, .value2 = 1 };
	struct scmpc_cond io = { .arg = 2, .op = SCMPC_OP_LT, .value = 1ULL << 47 };
	struct scmpc_rule r[] = {
		{ .sz = sizeof(r[0]), .syscall = "read", .action = ALLOW, .conds = &rd, .nconds = 1 },
		{ .sz = sizeof(r[0]), .syscall = "mmap", .action = ALLOW, .conds = &mm, .nconds = 1 },
		{ .sz = sizeof(r[0]), .syscall = "ioctl", .action = ALLOW, .conds = &io, .nconds = 1 },
	};
	for (size_t i = 0; i < N(r); i++)
		assert_true(scmpc_policy_add_rule(p, &r[i], d) >= 0);
	return p;
}

/* x86_64 (little-endian): args[a] low word at 16 + 8a, high word at 20 + 8a. */
static void args_program(struct sock_filter prog[28])
{
	uint32_t audit = scmpc_arch_audit(SCMPC_ARCH_X86_64);
	const struct sock_filter p[28] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, audit, 1, 0),
		RET_KILL,
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0xffffffffU, 21, 0),	/* -1: 26 */
		BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000U, 21, 0),	/* x32: 27 */
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 3, 0),		/* read: 10 */
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 9, 8, 0),		/* mmap: 16 */
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 16, 13, 0),		/* ioctl: 22 */
		BPF_STMT(BPF_RET | BPF_K, SCMPC_ACT_ERRNO(1)),
		/* 10: read */
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 20),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 14),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 16),
		BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 1000, 12, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 1000, 11, 0),	/* SLOT_READ: never */
		BPF_STMT(BPF_JMP | BPF_JA, 9),
		/* 16: mmap */
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 32),
		BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 0x300007),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0x400001, 7, 0),	/* SLOT_MMAP: never */
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 32),
		BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 7),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 1, 3, 4),
		/* 22: ioctl */
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 36),
		BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x8000, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0x10000, 1, 0),	/* SLOT_IOCTL: never */
		RET_ALLOW,
		BPF_STMT(BPF_RET | BPF_K, SCMPC_ACT_ERRNO(1)),
		RET_KILL,
	};
	memcpy(prog, p, sizeof(p));
}

/* Whether the program agrees with the policy on every probe vector of
 * call NR: what the check did before it walked the arguments. */
static bool probes_agree(const scmpc_policy *p, const struct sock_filter *prog, size_t n,
			 uint32_t nr)
{
	struct arch_view v;
	uint64_t (*vec)[6] = NULL;
	assert_int_equal(arch_view_init(&v, p, SCMPC_ARCH_X86_64, NULL), 0);
	long nv = probe_args(p, &v, nr, &vec);
	assert_true(nv > 0);
	bool agree = true;
	for (long k = 0; k < nv && agree; k++) {
		struct seccomp_data sd = { .nr = (int)nr, .arch = scmpc_arch_audit(SCMPC_ARCH_X86_64) };
		memcpy(sd.args, vec[k], sizeof(sd.args));
		uint32_t got;
		assert_int_equal(scmpc_emulate(prog, n, &sd, &got, NULL), 0);
		agree = got == scmpc_policy_eval(p, &sd, NULL);
	}
	free(vec);
	arch_view_fini(&v);
	return agree;
}

/* The counterexample the message names must be one: the program and the
 * policy decide it differently when run on their own. */
static void names_counterexample(const scmpc_policy *p, const struct sock_filter *prog, size_t n,
				 const char *msg)
{
	struct seccomp_data sd = { 0 };
	unsigned arch, nr;
	unsigned long long a[6];
	const char *at = strstr(msg, "arch 0x");
	assert_non_null(at);
	assert_int_equal(sscanf(at, "arch 0x%x nr %u (%*[^)]) args {0x%llx, 0x%llx, 0x%llx, 0x%llx, 0x%llx, 0x%llx}",
				&arch, &nr, &a[0], &a[1], &a[2], &a[3], &a[4], &a[5]), 8);
	sd.arch = arch;
	sd.nr = (int)nr;
	for (int i = 0; i < 6; i++)
		sd.args[i] = a[i];
	uint32_t got;
	assert_int_equal(scmpc_emulate(prog, n, &sd, &got, NULL), 0);
	assert_int_not_equal(got, scmpc_policy_eval(p, &sd, NULL));
}

static void test_semantic_check_every_argument(void **state)
{
	(void)state;
	scmpc_diag *d = scmpc_diag_new();
	scmpc_policy *p = args_policy(d);
	struct sock_filter prog[28];
	args_program(prog);
	assert_int_equal(scmpc_verify_policy(p, prog, N(prog), d), 0);

	const struct {
		size_t slot;
		uint32_t k, nr;
		const char *want;
	} planted[] = {
		{ SLOT_READ, 777, 0, "nr 0 (read) args {0x309, 0x0, 0x0, 0x0, 0x0, 0x0}: the program "
				     "returns ERRNO(1), the policy says ALLOW" },
		{ SLOT_MMAP, 0x100001, 9, "nr 9 (mmap) args {0x0, 0x0, 0x100001, 0x0, 0x0, 0x0}: the "
					  "program returns ERRNO(1), the policy says ALLOW" },
		{ SLOT_IOCTL, 0x1234, 16, "nr 16 (ioctl) args {0x0, 0x0, 0x123400000000, 0x0, 0x0, "
					  "0x0}: the program returns ERRNO(1), the policy says ALLOW" },
	};
	for (size_t i = 0; i < N(planted); i++) {
		args_program(prog);
		prog[planted[i].slot].k = planted[i].k;
		if (!probes_agree(p, prog, N(prog), planted[i].nr))
			fail_msg("planted fault %zu is on a probe: it shows nothing", i);
		assert_int_equal(scmpc_verify_policy(p, prog, N(prog), d), -EPROTO);
		if (!strstr(scmpc_diag_message(d), planted[i].want))
			fail_msg("fault %zu: \"%s\"", i, scmpc_diag_message(d));
		names_counterexample(p, prog, N(prog), scmpc_diag_message(d));
	}

	/* An order test on a masked word (which the check's classes could
	 * not represent, so it once fell back to probes) is cut by the
	 * engine into cubes: the program as it is is proven, and a fault
	 * at 999, below read's bound, is named. */
	args_program(prog);
	prog[SLOT_READ] = (struct sock_filter)BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 0x7fffffffU);
	prog[SLOT_READ + 1] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGT | BPF_K, 0x7fffffffU, 10, 9);
	assert_int_equal(scmpc_verify_policy(p, prog, N(prog), d), 0);
	prog[SLOT_READ + 1].k = 998;
	assert_int_equal(scmpc_verify_policy(p, prog, N(prog), d), -EPROTO);
	assert_non_null(strstr(scmpc_diag_message(d), "nr 0 (read) args {0x3e7, "));
	names_counterexample(p, prog, N(prog), scmpc_diag_message(d));
	scmpc_policy_free(p);
	scmpc_diag_free(d);
}

/* The LIBSECCOMP merge leaves ioctl to libseccomp's tree: for `a2 > 128
 * -> ERRNO(5)` and `a2 > 256 -> ERRNO(6)` (32-bit) the tree tries the
 * larger constant first, so 300 gets ERRNO(6) where the most restrictive
 * rule would give ERRNO(5).  The old check handed such calls to probes;
 * this one judges the tree over every value.  The planted fault, ALLOW
 * at a2 == 0x5555 alone, is no probe (constants, neighbours, high-word
 * variants) and must be named. */
enum { SLOT_TREE = 9 };

static void tree_program(struct sock_filter prog[16])
{
	uint32_t audit = scmpc_arch_audit(SCMPC_ARCH_X86_64);
	const struct sock_filter p[16] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, audit, 1, 0),
		RET_KILL,
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0xffffffffU, 9, 0),	/* -1: 14 */
		BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000U, 9, 0),	/* x32: 15 */
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 16, 0, 7),		/* not ioctl: 14 */
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 32),			/* a2, low word */
		BPF_JUMP(BPF_JMP | BPF_JGT | BPF_K, 256, 0, 2),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 4, 0),		/* SLOT_TREE: never */
		BPF_STMT(BPF_RET | BPF_K, SCMPC_ACT_ERRNO(6)),
		BPF_JUMP(BPF_JMP | BPF_JGT | BPF_K, 128, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SCMPC_ACT_ERRNO(5)),
		RET_ALLOW,
		RET_ALLOW,
		RET_KILL,
	};
	memcpy(prog, p, sizeof(p));
}

static void test_semantic_check_libseccomp_tree(void **state)
{
	(void)state;
	scmpc_diag *d = scmpc_diag_new();
	scmpc_policy *p = scmpc_policy_new(ALLOW);
	assert_int_equal(scmpc_policy_add_arch(p, SCMPC_ARCH_X86_64, d), 0);
	assert_int_equal(scmpc_policy_set_bad_arch_action(p, SCMPC_ACT_KILL_PROCESS, d), 0);
	assert_int_equal(scmpc_policy_set_merge(p, SCMPC_MERGE_LIBSECCOMP, d), 0);
	struct scmpc_cond c5 = { .arg = 2, .op = SCMPC_OP_GT, .value = 128, .flags = SCMPC_COND_32BIT };
	struct scmpc_cond c6 = { .arg = 2, .op = SCMPC_OP_GT, .value = 256, .flags = SCMPC_COND_32BIT };
	struct scmpc_rule r5 = { .sz = sizeof(r5), .syscall = "ioctl", .action = SCMPC_ACT_ERRNO(5),
				 .conds = &c5, .nconds = 1 };
	struct scmpc_rule r6 = r5;
	r6.action = SCMPC_ACT_ERRNO(6);
	r6.conds = &c6;
	assert_true(scmpc_policy_add_rule(p, &r5, d) >= 0);
	assert_true(scmpc_policy_add_rule(p, &r6, d) >= 0);
	/* the tree decides ioctl here, not the rules' precedence */
	struct arch_view v;
	assert_int_equal(arch_view_init(&v, p, SCMPC_ARCH_X86_64, d), 0);
	assert_non_null(view_tree(&v, 16));
	arch_view_fini(&v);

	struct sock_filter prog[16];
	tree_program(prog);
	assert_int_equal(scmpc_verify_policy(p, prog, N(prog), d), 0);

	/* the fault no probe holds */
	prog[SLOT_TREE].k = 0x5555;
	if (!probes_agree(p, prog, N(prog), 16))
		fail_msg("the planted fault is on a probe: it shows nothing");
	assert_int_equal(scmpc_verify_policy(p, prog, N(prog), d), -EPROTO);
	if (!strstr(scmpc_diag_message(d), "nr 16 (ioctl) args {0x0, 0x0, 0x5555, 0x0, 0x0, 0x0}: "
					   "the program returns ALLOW, the policy says ERRNO(6)"))
		fail_msg("\"%s\"", scmpc_diag_message(d));
	names_counterexample(p, prog, N(prog), scmpc_diag_message(d));

	/* precedence where the tree's order decides: from 257 up */
	tree_program(prog);
	prog[10].k = SCMPC_ACT_ERRNO(5);
	assert_int_equal(scmpc_verify_policy(p, prog, N(prog), d), -EPROTO);
	if (!strstr(scmpc_diag_message(d), "args {0x0, 0x0, 0x101, "))
		fail_msg("\"%s\"", scmpc_diag_message(d));
	names_counterexample(p, prog, N(prog), scmpc_diag_message(d));
	scmpc_policy_free(p);
	scmpc_diag_free(d);
}

/* A fault in a piece that several excluded cubes cut out of a word, the
 * word kept in scratch memory (where the old check's classes gave up):
 * mmap is allowed for (a2 & 7) == 1, and the program tests its bits
 * again through M[3] with four multi-bit jsets, wrong only where a2 has
 * no bit of 0xf000 and some bit of each of 0x30, 0xc0, 0x300 and 0xc00.
 * No probe vector lies there (the least member, 0x551, is derived by
 * hand), every probe agrees, and the check must name that member. */
enum { SLOT_CUBES = 17 };

static void cubes_program(struct sock_filter prog[21])
{
	uint32_t audit = scmpc_arch_audit(SCMPC_ARCH_X86_64);
	const struct sock_filter p[21] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, audit, 1, 0),
		RET_KILL,
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000U, 0, 1),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0xffffffffU, 13, 14),	/* -1: 19, x32: 20 */
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 9, 0, 12),			/* not mmap: 19 */
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 32),				/* a2, low word */
		BPF_STMT(BPF_ST, 3),
		BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 7),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 1, 0, 8),			/* not 1: 19 */
		BPF_STMT(BPF_LD | BPF_MEM, 3),
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, 0xf000, 5, 0),		/* ALLOW: 18 */
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, 0x30, 0, 4),
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, 0xc0, 0, 3),
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, 0x300, 0, 2),
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, 0xc00, 0, 1),
		RET_ALLOW,						/* SLOT_CUBES */
		RET_ALLOW,
		BPF_STMT(BPF_RET | BPF_K, SCMPC_ACT_ERRNO(1)),
		RET_KILL,
	};
	memcpy(prog, p, sizeof(p));
}

static void test_semantic_check_excluded_cubes(void **state)
{
	(void)state;
	scmpc_diag *d = scmpc_diag_new();
	struct sock_filter prog[21];
	cubes_program(prog);
	scmpc_policy *p = scmpc_policy_new(SCMPC_ACT_ERRNO(1));
	assert_int_equal(scmpc_policy_add_arch(p, SCMPC_ARCH_X86_64, d), 0);
	assert_int_equal(scmpc_policy_set_bad_arch_action(p, SCMPC_ACT_KILL_PROCESS, d), 0);
	struct scmpc_cond mm = { .arg = 2, .op = SCMPC_OP_MASKED_EQ, .value = 7, .value2 = 1 };
	struct scmpc_rule r = { .sz = sizeof(r), .syscall = "mmap", .action = ALLOW, .conds = &mm,
				.nconds = 1 };
	assert_true(scmpc_policy_add_rule(p, &r, d) >= 0);
	if (scmpc_verify_policy(p, prog, N(prog), d) != 0)
		fail_msg("\"%s\"", scmpc_diag_message(d));

	prog[SLOT_CUBES].k = SCMPC_ACT_ERRNO(1);
	if (!probes_agree(p, prog, N(prog), 9))
		fail_msg("the planted fault is on a probe: it shows nothing");
	assert_int_equal(scmpc_verify_policy(p, prog, N(prog), d), -EPROTO);
	if (!strstr(scmpc_diag_message(d), "nr 9 (mmap) args {0x0, 0x0, 0x551, 0x0, 0x0, 0x0}: the "
					   "program returns ERRNO(1), the policy says ALLOW"))
		fail_msg("\"%s\"", scmpc_diag_message(d));
	names_counterexample(p, prog, N(prog), scmpc_diag_message(d));
	scmpc_policy_free(p);
	scmpc_diag_free(d);
}

/* The policy never reads the instruction pointer; a program that does
 * must still decide every call alike.  Probes always ran with ip 0, so
 * a program that lets everything through at one address passed them; the
 * check names the address. */
static void test_semantic_check_instruction_pointer(void **state)
{
	(void)state;
	uint32_t audit = scmpc_arch_audit(SCMPC_ARCH_X86_64);
	scmpc_diag *d = scmpc_diag_new();
	scmpc_policy *p = scmpc_policy_new(SCMPC_ACT_ERRNO(1));
	assert_int_equal(scmpc_policy_add_arch(p, SCMPC_ARCH_X86_64, d), 0);
	assert_int_equal(scmpc_policy_set_bad_arch_action(p, SCMPC_ACT_KILL_PROCESS, d), 0);
	struct scmpc_rule r = { .sz = sizeof(r), .syscall = "read", .action = ALLOW };
	assert_true(scmpc_policy_add_rule(p, &r, d) >= 0);
	struct sock_filter prog[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, audit, 1, 0),
		RET_KILL,
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, instruction_pointer)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0x7777, 0, 0),	/* both ways alike */
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000U, 0, 2),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0xffffffffU, 2, 0),
		RET_KILL,
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SCMPC_ACT_ERRNO(1)),
		RET_ALLOW,
	};
	assert_int_equal(scmpc_verify_policy(p, prog, N(prog), d), 0);
	prog[4].jt = 6;		/* ip 0x7777: straight to ALLOW */
	assert_int_equal(scmpc_verify_policy(p, prog, N(prog), d), -EPROTO);
	if (!strstr(scmpc_diag_message(d), "nr 1 (write) ip 0x7777 args {0x0, "))
		fail_msg("\"%s\"", scmpc_diag_message(d));
	scmpc_policy_free(p);
	scmpc_diag_free(d);
}

/* AUDIT_ARCH values of no ABI of the policy get the bad-arch action for
 * every number: a program that lets one such value through at one far
 * number is caught at that value and number. */
static void test_semantic_check_foreign_arch(void **state)
{
	(void)state;
	uint32_t audit = scmpc_arch_audit(SCMPC_ARCH_X86_64);
	scmpc_diag *d = scmpc_diag_new();
	scmpc_policy *p = scmpc_policy_new(ALLOW);
	assert_int_equal(scmpc_policy_add_arch(p, SCMPC_ARCH_X86_64, d), 0);
	assert_int_equal(scmpc_policy_set_bad_arch_action(p, SCMPC_ACT_KILL_PROCESS, d), 0);
	struct sock_filter prog[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, audit, 5, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0x12345678U, 0, 3),	/* planted */
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0xabcdef, 2, 1),
		RET_KILL,
		RET_KILL,
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000U, 0, 2),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0xffffffffU, 1, 0),
		RET_KILL,
		RET_ALLOW,
	};
	/* as written insn 4 goes to KILL either way */
	prog[4].jt = 1;
	assert_int_equal(scmpc_verify_policy(p, prog, N(prog), d), 0);
	prog[4].jt = 6;		/* 0x12345678 with number 0xabcdef: ALLOW */
	assert_int_equal(scmpc_verify_policy(p, prog, N(prog), d), -EPROTO);
	if (!strstr(scmpc_diag_message(d), "arch 0x12345678 nr 11259375 (?) args {0x0, "))
		fail_msg("\"%s\"", scmpc_diag_message(d));
	assert_non_null(strstr(scmpc_diag_message(d), "returns ALLOW, the policy says KILL_PROCESS"));
	scmpc_policy_free(p);
	scmpc_diag_free(d);
}

/* Every operator at the edges of the 64-bit and 32-bit ranges, on a
 * 64-bit little-endian, a 32-bit and a big-endian ABI: the compiler's
 * program must be proven (the judge reads each operator as
 * policy_eval.c does, or the check fails the compile), and each RET
 * changed to another action must be refuted with a call that shows it. */
static void test_semantic_check_operators(void **state)
{
	(void)state;
	static const enum scmpc_arch abis[] = { SCMPC_ARCH_X86_64, SCMPC_ARCH_I386,
						SCMPC_ARCH_S390X };
	static const enum scmpc_op ops[] = { SCMPC_OP_EQ, SCMPC_OP_NE, SCMPC_OP_LT, SCMPC_OP_LE,
					     SCMPC_OP_GT, SCMPC_OP_GE, SCMPC_OP_MASKED_EQ };
	static const uint64_t vals[] = { 0, 5, 0xffffffffULL, 0x100000000ULL, 0x123456789ULL,
					 UINT64_MAX };
	scmpc_diag *d = scmpc_diag_new();
	unsigned refuted = 0;
	for (size_t a = 0; a < N(abis); a++)
		for (size_t o = 0; o < N(ops); o++)
			for (size_t k = 0; k < N(vals); k++)
				for (unsigned w = 0; w < 2; w++) {
					scmpc_policy *p = scmpc_policy_new(SCMPC_ACT_ERRNO(1));
					assert_int_equal(scmpc_policy_add_arch(p, abis[a], d), 0);
					struct scmpc_cond c = { .arg = 1, .op = ops[o], .value = vals[k],
								.value2 = vals[k] & 0x1234567812345678ULL,
								.flags = w ? SCMPC_COND_32BIT : 0 };
					struct scmpc_rule r = { .sz = sizeof(r), .syscall = "write",
								.action = ALLOW, .conds = &c, .nconds = 1 };
					assert_true(scmpc_policy_add_rule(p, &r, d) >= 0);
					scmpc_prog *prog = NULL;
					if (scmpc_compile(p, NULL, &prog, d) < 0)
						fail_msg("abi %zu op %zu value %zu 32-bit %u: %s", a, o, k, w,
							 scmpc_diag_message(d));
					size_t len = scmpc_prog_len(prog);
					struct sock_filter *m = malloc(len * sizeof(*m));
					assert_non_null(m);
					for (size_t i = 0; i < len; i++) {
						memcpy(m, scmpc_prog_insns(prog), len * sizeof(*m));
						if (m[i].code != (BPF_RET | BPF_K) || m[i].k == SCMPC_ACT_ERRNO(1))
							continue;
						m[i].k = SCMPC_ACT_ERRNO(1);
						int rc = scmpc_verify_policy(p, m, len, d);
						if (rc != -EPROTO || strstr(scmpc_diag_message(d), "internal"))
							fail_msg("abi %zu op %zu value %zu 32-bit %u insn %zu: %d %s",
								 a, o, k, w, i, rc, scmpc_diag_message(d));
						names_counterexample(p, m, len, scmpc_diag_message(d));
						refuted++;
					}
					free(m);
					scmpc_prog_free(prog);
					scmpc_policy_free(p);
				}
	assert_true(refuted > 100);
	scmpc_diag_free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_length_limits),
		cmocka_unit_test(test_semantic_check_whole_space),
		cmocka_unit_test(test_semantic_check_every_argument),
		cmocka_unit_test(test_semantic_check_libseccomp_tree),
		cmocka_unit_test(test_semantic_check_excluded_cubes),
		cmocka_unit_test(test_semantic_check_instruction_pointer),
		cmocka_unit_test(test_semantic_check_foreign_arch),
		cmocka_unit_test(test_semantic_check_operators),
		cmocka_unit_test(test_every_opcode),
		cmocka_unit_test(test_illegal_opcode_messages),
		cmocka_unit_test(test_alu_operands),
		cmocka_unit_test(test_scratch_slots),
		cmocka_unit_test(test_ld_abs_offsets),
		cmocka_unit_test(test_ancillary_loads),
		cmocka_unit_test(test_ja_range),
		cmocka_unit_test(test_conditional_range),
		cmocka_unit_test(test_jump_255),
		cmocka_unit_test(test_last_must_return),
		cmocka_unit_test(test_memory_read_before_write),
		cmocka_unit_test(test_ret_quirk),
		cmocka_unit_test(test_kernel_order),
		cmocka_unit_test(test_realistic_filter),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
