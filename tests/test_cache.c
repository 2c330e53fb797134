/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * The action-cache predictor, after kernel/seccomp.c (Linux 5.11+):
 * seccomp_is_const_allow() walks the one path a program takes knowing only
 * nr and arch (A starts at 0; `ld [0]`/`ld [4]`, K-form jeq/jge/jgt/jset,
 * `and #k` and ja are followed, anything else gives up) and is true iff it
 * ends at `ret 0x7fff0000`; seccomp_cache_prepare_bitmap() intersects each
 * new filter's bitmap with the previous filter's, so the chain caches only
 * what every filter allows; seccomp_uprobe_exception() makes x86_64's
 * uretprobe (6.14+) and uprobe (6.18+) always allowed.  Every expectation
 * is worked out by hand from those rules.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <linux/audit.h>
#include <linux/version.h>
#include "internal.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define ALLOW SCMPC_ACT_ALLOW
#define RET(k) BPF_STMT(BPF_RET | BPF_K, (k))
#define LD(k) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (k))
#define X86 AUDIT_ARCH_X86_64
#define A64 AUDIT_ARCH_AARCH64

#define BITMAP_BYTES 64	/* enough for 470 bits plus a guard */

static bool bit(const uint8_t *bits, unsigned nr)
{
	return bits[nr / 8] & (1U << (nr % 8));
}

/* Bitmap of one program; returns the count. */
static int bitmap1(const struct sock_filter *p, size_t n, enum scmpc_arch a, unsigned kv,
		   uint32_t nr_count, uint8_t *bits)
{
	const struct sock_filter *progs[] = { p };
	size_t lens[] = { n };
	struct scmpc_cache_opts o = { .sz = sizeof(o), .kernel_version = kv, .nr_count = nr_count };
	memset(bits, 0xa5, BITMAP_BYTES);
	return scmpc_cache_bitmap(progs, lens, 1, a, &o, bits);
}

/*
 * 0 ld [4]
 * 1 jeq X86_64, 0, 6     -> 2 / 8
 * 2 ld [0]
 * 3 jge 0x40000000, 4, 0 -> 8 / 4
 * 4 jeq 0, 2, 0          -> 7 / 5
 * 5 jeq 1, 1, 0          -> 7 / 6
 * 6 ret ERRNO(1)
 * 7 ret ALLOW
 * 8 ret KILL_PROCESS
 */
static const struct sock_filter allow01[] = {
	LD(4),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 0, 6),
	LD(0),
	BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 4, 0),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 2, 0),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 1, 1, 0),
	RET(SCMPC_ACT_ERRNO(1)),
	RET(ALLOW),
	RET(SCMPC_ACT_KILL_PROCESS),
};

static void test_const_allow_dispatch(void **state)
{
	(void)state;
	uint32_t stop = 99;

	assert_int_equal(scmpc_cache_const_allow(allow01, N(allow01), X86, 0, &stop), 1);
	assert_int_equal(stop, 7);
	assert_int_equal(scmpc_cache_const_allow(allow01, N(allow01), X86, 1, &stop), 1);
	assert_int_equal(stop, 7);
	assert_int_equal(scmpc_cache_const_allow(allow01, N(allow01), X86, 2, &stop), 0);
	assert_int_equal(stop, 6);
	assert_int_equal(scmpc_cache_const_allow(allow01, N(allow01), X86, 0x40000000, &stop), 0);
	assert_int_equal(stop, 8);
	assert_int_equal(scmpc_cache_const_allow(allow01, N(allow01), AUDIT_ARCH_I386, 0, &stop), 0);
	assert_int_equal(stop, 8);
	assert_int_equal(scmpc_cache_const_allow(allow01, N(allow01), X86, 0, NULL), 1);
}

static void test_bitmap_dispatch(void **state)
{
	(void)state;
	uint8_t bits[BITMAP_BYTES];

	/* default kernel (6.18): 0, 1 and both uprobe calls */
	assert_int_equal(bitmap1(allow01, N(allow01), SCMPC_ARCH_X86_64, 0, 0, bits), 4);
	assert_true(bit(bits, 0) && bit(bits, 1) && bit(bits, 335) && bit(bits, 336));
	assert_false(bit(bits, 2) || bit(bits, 334) || bit(bits, 337) || bit(bits, 469));
	/* 470 bits = 59 bytes, the rest untouched */
	assert_int_equal(bits[59], 0xa5);
	/* the compat ABI is killed by the arch check and has no exception */
	assert_int_equal(bitmap1(allow01, N(allow01), SCMPC_ARCH_I386, 0, 0, bits), 0);
	for (unsigned i = 0; i < 59; i++)
		assert_int_equal(bits[i], 0);
	/* nor does aarch64 (and the arch check fails there too) */
	assert_int_equal(bitmap1(allow01, N(allow01), SCMPC_ARCH_AARCH64, 0, 0, bits), 0);
}

static void test_uprobe_exception_by_version(void **state)
{
	(void)state;
	static const struct sock_filter deny[] = { RET(SCMPC_ACT_ERRNO(1)) };
	uint8_t bits[BITMAP_BYTES];

	assert_int_equal(bitmap1(deny, 1, SCMPC_ARCH_X86_64, KERNEL_VERSION(6, 18, 0), 0, bits), 2);
	assert_true(bit(bits, 335) && bit(bits, 336));
	assert_int_equal(bitmap1(deny, 1, SCMPC_ARCH_X86_64, KERNEL_VERSION(6, 19, 3), 0, bits), 2);
	assert_int_equal(bitmap1(deny, 1, SCMPC_ARCH_X86_64, KERNEL_VERSION(6, 17, 9), 0, bits), 1);
	assert_true(bit(bits, 335));
	assert_false(bit(bits, 336));
	assert_int_equal(bitmap1(deny, 1, SCMPC_ARCH_X86_64, KERNEL_VERSION(6, 14, 0), 0, bits), 1);
	assert_true(bit(bits, 335));
	assert_int_equal(bitmap1(deny, 1, SCMPC_ARCH_X86_64, KERNEL_VERSION(6, 13, 0), 0, bits), 0);
	assert_int_equal(bitmap1(deny, 1, SCMPC_ARCH_X86_64, KERNEL_VERSION(6, 1, 0), 451, bits), 0);
	/* the exception is native x86_64 only */
	assert_int_equal(bitmap1(deny, 1, SCMPC_ARCH_I386, 0, 0, bits), 0);
	assert_int_equal(bitmap1(deny, 1, SCMPC_ARCH_AARCH64, 0, 0, bits), 0);
	assert_int_equal(bitmap1(deny, 1, SCMPC_ARCH_ARM, 0, 0, bits), 0);
	/* and only inside the bitmap */
	assert_int_equal(bitmap1(deny, 1, SCMPC_ARCH_X86_64, 0, 336, bits), 1);
	assert_int_equal(bitmap1(deny, 1, SCMPC_ARCH_X86_64, 0, 300, bits), 0);
}

static void test_args_before_dispatch(void **state)
{
	(void)state;
	/* An argument load ahead of the nr dispatch stops the emulation at
	 * insn 0 for every call. */
	static const struct sock_filter p[] = {
		LD(16),
		LD(0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 1),
		RET(ALLOW),
		RET(SCMPC_ACT_ERRNO(1)),
	};
	uint8_t bits[BITMAP_BYTES];
	uint32_t stop = 99;

	for (uint32_t nr = 0; nr < 3; nr++) {
		assert_int_equal(scmpc_cache_const_allow(p, N(p), X86, nr, &stop), 0);
		assert_int_equal(stop, 0);
	}
	assert_int_equal(bitmap1(p, N(p), SCMPC_ARCH_AARCH64, 0, 0, bits), 0);
	/* only the uprobe calls, which bypass filtering altogether */
	assert_int_equal(bitmap1(p, N(p), SCMPC_ARCH_X86_64, 0, 0, bits), 2);
	assert_false(bit(bits, 0));
}

static void test_returns(void **state)
{
	(void)state;
	static const struct sock_filter allow[] = { RET(0x7fff0000) };
	static const struct sock_filter allow_data[] = { RET(0x7fff0001) };
	static const struct sock_filter log[] = { RET(SCMPC_ACT_LOG) };
	static const struct sock_filter errno0[] = { RET(SCMPC_ACT_ERRNO(0)) };
	static const struct sock_filter ret_a[] = {
		BPF_STMT(BPF_LD | BPF_IMM, ALLOW),
		BPF_STMT(BPF_RET | BPF_A, 0),
	};
	uint32_t stop = 99;

	assert_int_equal(scmpc_cache_const_allow(allow, 1, A64, 5, &stop), 1);
	assert_int_equal(stop, 0);
	/* ALLOW with data allows, but is not exactly SECCOMP_RET_ALLOW */
	assert_int_equal(scmpc_cache_const_allow(allow_data, 1, A64, 5, &stop), 0);
	assert_int_equal(stop, 0);
	assert_int_equal(scmpc_cache_const_allow(log, 1, A64, 5, NULL), 0);
	assert_int_equal(scmpc_cache_const_allow(errno0, 1, A64, 5, NULL), 0);
	/* ld #k and ret a are both outside the emulator */
	assert_int_equal(scmpc_cache_const_allow(ret_a, 2, A64, 5, &stop), 0);
	assert_int_equal(stop, 0);
}

/*
 * 0 ld [0]
 * 1 jset 0x40000000, 3, 0 -> 5 / 2
 * 2 and #0xff
 * 3 jeq 0x10, 0, 1        -> 4 / 5
 * 4 ret ALLOW
 * 5 ret ERRNO(38)
 */
static const struct sock_filter masked[] = {
	LD(0),
	BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, 0x40000000, 3, 0),
	BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 0xff),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0x10, 0, 1),
	RET(ALLOW),
	RET(SCMPC_ACT_ERRNO(38)),
};

static void test_jset_and(void **state)
{
	(void)state;
	uint8_t bits[BITMAP_BYTES];
	uint32_t stop = 99;

	assert_int_equal(scmpc_cache_const_allow(masked, N(masked), A64, 0x10, &stop), 1);
	assert_int_equal(stop, 4);
	/* 0x110 & 0xff == 0x10 as well */
	assert_int_equal(scmpc_cache_const_allow(masked, N(masked), A64, 0x110, &stop), 1);
	assert_int_equal(scmpc_cache_const_allow(masked, N(masked), A64, 0x11, &stop), 0);
	assert_int_equal(stop, 5);
	assert_int_equal(scmpc_cache_const_allow(masked, N(masked), A64, 0x40000010, &stop), 0);
	assert_int_equal(stop, 5);
	/* below 470: 0x10 = 16 and 0x110 = 272 (0x210 = 528 is beyond) */
	assert_int_equal(bitmap1(masked, N(masked), SCMPC_ARCH_AARCH64, 0, 0, bits), 2);
	assert_true(bit(bits, 16) && bit(bits, 272));
}

/*
 * 0 ld [0]
 * 1 jge 100, 0, 2  -> 2 / 4
 * 2 jgt 199, 1, 0  -> 4 / 3
 * 3 ret ALLOW
 * 4 ret ERRNO(1)
 */
static const struct sock_filter range100_199[] = {
	LD(0),
	BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 100, 0, 2),
	BPF_JUMP(BPF_JMP | BPF_JGT | BPF_K, 199, 1, 0),
	RET(ALLOW),
	RET(SCMPC_ACT_ERRNO(1)),
};

static void test_ranges(void **state)
{
	(void)state;
	uint8_t bits[BITMAP_BYTES];

	assert_int_equal(scmpc_cache_const_allow(range100_199, 5, A64, 99, NULL), 0);
	assert_int_equal(scmpc_cache_const_allow(range100_199, 5, A64, 100, NULL), 1);
	assert_int_equal(scmpc_cache_const_allow(range100_199, 5, A64, 199, NULL), 1);
	assert_int_equal(scmpc_cache_const_allow(range100_199, 5, A64, 200, NULL), 0);
	assert_int_equal(bitmap1(range100_199, 5, SCMPC_ARCH_AARCH64, 0, 0, bits), 100);
	for (unsigned nr = 0; nr < 470; nr++)
		assert_int_equal(bit(bits, nr), nr >= 100 && nr <= 199);
	/* the same on arm: only the arch value differs, and it is never read */
	assert_int_equal(bitmap1(range100_199, 5, SCMPC_ARCH_ARM, 0, 0, bits), 100);
}

static void test_ja_followed(void **state)
{
	(void)state;
	static const struct sock_filter p[] = {
		BPF_STMT(BPF_JMP | BPF_JA, 1),
		RET(SCMPC_ACT_ERRNO(1)),
		RET(ALLOW),
	};
	uint32_t stop = 99;
	assert_int_equal(scmpc_cache_const_allow(p, N(p), X86, 3, &stop), 1);
	assert_int_equal(stop, 2);
}

/* Each instruction the kernel's emulator does not know, placed after the
 * nr load: the walk stops there. */
static void test_gives_up(void **state)
{
	(void)state;
	static const struct sock_filter stoppers[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 8),	/* instruction pointer */
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 20),
		BPF_STMT(BPF_LD | BPF_W | BPF_LEN, 0),
		BPF_STMT(BPF_LDX | BPF_W | BPF_LEN, 0),
		BPF_STMT(BPF_LD | BPF_IMM, 0),
		BPF_STMT(BPF_LDX | BPF_IMM, 0),
		BPF_STMT(BPF_ST, 0),
		BPF_STMT(BPF_STX, 0),
		BPF_STMT(BPF_MISC | BPF_TAX, 0),
		BPF_STMT(BPF_MISC | BPF_TXA, 0),
		BPF_STMT(BPF_ALU | BPF_OR | BPF_K, 0),
		BPF_STMT(BPF_ALU | BPF_ADD | BPF_K, 0),
		BPF_STMT(BPF_ALU | BPF_RSH | BPF_K, 0),
		BPF_STMT(BPF_ALU | BPF_AND | BPF_X, 0),
		BPF_STMT(BPF_ALU | BPF_NEG, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_X, 0, 0, 0),
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_X, 0, 0, 0),
	};
	for (size_t i = 0; i < N(stoppers); i++) {
		struct sock_filter p[] = { LD(0), stoppers[i], RET(ALLOW) };
		uint32_t stop = 99;
		assert_int_equal(scmpc_cache_const_allow(p, N(p), X86, 0, &stop), 0);
		assert_int_equal(stop, 1);
	}
	/* the memory load, after a store that already stops it */
	struct sock_filter ldm[] = { BPF_STMT(BPF_LD | BPF_MEM, 0), RET(ALLOW) };
	assert_int_equal(scmpc_cache_const_allow(ldm, 2, X86, 0, NULL), 0);
	/* a give-up on an untaken path does not matter */
	struct sock_filter untaken[] = {
		LD(0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 7, 0, 2),
		LD(16),
		RET(SCMPC_ACT_ERRNO(1)),
		RET(ALLOW),
	};
	assert_int_equal(scmpc_cache_const_allow(untaken, N(untaken), X86, 3, NULL), 1);
	assert_int_equal(scmpc_cache_const_allow(untaken, N(untaken), X86, 7, NULL), 0);
}

static void test_stack_intersection(void **state)
{
	(void)state;
	/* allows [0, 200) */
	static const struct sock_filter below200[] = {
		LD(0),
		BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 200, 1, 0),
		RET(ALLOW),
		RET(SCMPC_ACT_ERRNO(1)),
	};
	/* allows [100, oo) */
	static const struct sock_filter from100[] = {
		LD(0),
		BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 100, 1, 0),
		RET(SCMPC_ACT_ERRNO(1)),
		RET(ALLOW),
	};
	static const struct sock_filter args[] = { LD(16), RET(ALLOW) };
	const struct sock_filter *progs[] = { below200, from100, args };
	size_t lens[] = { N(below200), N(from100), N(args) };
	const struct sock_filter *rev[] = { from100, below200 };
	size_t rev_lens[] = { N(from100), N(below200) };
	uint8_t bits[BITMAP_BYTES];

	assert_int_equal(scmpc_cache_bitmap(progs, lens, 1, SCMPC_ARCH_AARCH64, NULL, bits), 200);
	assert_int_equal(scmpc_cache_bitmap(progs + 1, lens + 1, 1, SCMPC_ARCH_AARCH64, NULL, bits),
			 370);
	assert_int_equal(scmpc_cache_bitmap(progs, lens, 2, SCMPC_ARCH_AARCH64, NULL, bits), 100);
	for (unsigned nr = 0; nr < 470; nr++)
		assert_int_equal(bit(bits, nr), nr >= 100 && nr < 200);
	assert_int_equal(scmpc_cache_bitmap(rev, rev_lens, 2, SCMPC_ARCH_AARCH64, NULL, bits), 100);
	/* one uncacheable filter anywhere uncaches everything */
	assert_int_equal(scmpc_cache_bitmap(progs, lens, 3, SCMPC_ARCH_AARCH64, NULL, bits), 0);
	/* ... but for the uprobe calls on x86_64 */
	assert_int_equal(scmpc_cache_bitmap(progs, lens, 3, SCMPC_ARCH_X86_64, NULL, bits), 2);
	assert_true(bit(bits, 335) && bit(bits, 336));
}

static void test_bitmap_size(void **state)
{
	(void)state;
	static const struct sock_filter all[] = { RET(ALLOW) };
	uint8_t bits[BITMAP_BYTES];

	/* 451 bits (Debian 6.1): 56 full bytes and 3 bits in byte 56 */
	assert_int_equal(bitmap1(all, 1, SCMPC_ARCH_AARCH64, 0, 451, bits), 451);
	for (unsigned i = 0; i < 56; i++)
		assert_int_equal(bits[i], 0xff);
	assert_int_equal(bits[56], 0x07);
	assert_int_equal(bits[57], 0xa5);
	/* default 470 */
	assert_int_equal(bitmap1(all, 1, SCMPC_ARCH_AARCH64, 0, 0, bits), 470);
	assert_int_equal(bits[58], 0x3f);
	assert_int_equal(bits[59], 0xa5);
	/* no cache before 5.11 */
	assert_int_equal(bitmap1(all, 1, SCMPC_ARCH_AARCH64, KERNEL_VERSION(5, 10, 0), 0, bits), 0);
	assert_int_equal(bits[0], 0);
	assert_int_equal(bitmap1(all, 1, SCMPC_ARCH_AARCH64, KERNEL_VERSION(5, 11, 0), 0, bits), 470);

	/* an options struct from an older header stops before nr_count */
	const struct sock_filter *progs[] = { all };
	size_t lens[] = { 1 };
	struct scmpc_cache_opts old = {
		.sz = offsetof(struct scmpc_cache_opts, nr_count),
		.nr_count = 10,
	};
	assert_int_equal(scmpc_cache_bitmap(progs, lens, 1, SCMPC_ARCH_ARM, &old, bits), 470);
}

static void test_bad_input(void **state)
{
	(void)state;
	static const struct sock_filter all[] = { RET(ALLOW) };
	const struct sock_filter *progs[] = { all };
	const struct sock_filter *null_prog[] = { NULL };
	size_t lens[] = { 1 }, zero[] = { 0 };
	uint8_t bits[BITMAP_BYTES];

	/* x32 numbers are outside every bitmap */
	assert_int_equal(scmpc_cache_bitmap(progs, lens, 1, SCMPC_ARCH_X32, NULL, bits), -EINVAL);
	assert_int_equal(scmpc_cache_bitmap(progs, lens, 1, SCMPC_ARCH_NONE, NULL, bits), -EINVAL);
	assert_int_equal(scmpc_cache_bitmap(progs, lens, 1, (enum scmpc_arch)42, NULL, bits), -EINVAL);
	assert_int_equal(scmpc_cache_bitmap(progs, lens, 0, SCMPC_ARCH_X86_64, NULL, bits), -EINVAL);
	assert_int_equal(scmpc_cache_bitmap(NULL, lens, 1, SCMPC_ARCH_X86_64, NULL, bits), -EINVAL);
	assert_int_equal(scmpc_cache_bitmap(progs, NULL, 1, SCMPC_ARCH_X86_64, NULL, bits), -EINVAL);
	assert_int_equal(scmpc_cache_bitmap(progs, lens, 1, SCMPC_ARCH_X86_64, NULL, NULL), -EINVAL);
	assert_int_equal(scmpc_cache_bitmap(null_prog, lens, 1, SCMPC_ARCH_X86_64, NULL, bits), -EINVAL);
	assert_int_equal(scmpc_cache_bitmap(progs, zero, 1, SCMPC_ARCH_X86_64, NULL, bits), -EINVAL);
	assert_int_equal(scmpc_cache_const_allow(NULL, 1, X86, 0, NULL), -EINVAL);
	assert_int_equal(scmpc_cache_const_allow(all, 0, X86, 0, NULL), -EINVAL);
}

static void test_unverified_programs(void **state)
{
	(void)state;
	uint32_t stop = 99;
	/* falls off the end: the kernel WARNs and says no */
	static const struct sock_filter no_ret[] = { LD(0) };
	assert_int_equal(scmpc_cache_const_allow(no_ret, 1, X86, 0, &stop), 0);
	assert_int_equal(stop, 1);
	/* a taken jump past the end */
	static const struct sock_filter jt_past[] = {
		LD(0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 5, 0),
		RET(ALLOW),
	};
	assert_int_equal(scmpc_cache_const_allow(jt_past, 3, X86, 0, &stop), 0);
	assert_int_equal(stop, 3);
	assert_int_equal(scmpc_cache_const_allow(jt_past, 3, X86, 1, &stop), 1);
	assert_int_equal(stop, 2);
	/* an offset that would wrap a 32-bit pc into a loop */
	static const struct sock_filter wrap[] = {
		BPF_STMT(BPF_JMP | BPF_JA, 0xffffffff),
		RET(ALLOW),
	};
	assert_int_equal(scmpc_cache_const_allow(wrap, 2, X86, 0, &stop), 0);
	assert_int_equal(stop, 2);
}

/* scmpc_stats counts calls by their decision, not by the shape of their
 * rules: read (a0 != 1 or a0 != 2), close (a1 >= 0) and getpid (no
 * condition) are allowed whatever the arguments; write (a0 == 1 and
 * a0 == 2) is never allowed, socket (a0 == 1) only sometimes.  So 3 calls
 * of x86_64 are argument-independent allows, all 3 cached by the compiled
 * program, and socket alone is argument-checked. */
static void test_stats_by_decision(void **state)
{
	(void)state;
	scmpc_diag *d = scmpc_diag_new();
	scmpc_policy *p = scmpc_policy_new(SCMPC_ACT_ERRNO(1));
	assert_int_equal(scmpc_policy_add_arch(p, SCMPC_ARCH_X86_64, d), 0);
	struct scmpc_cond ne1 = { .arg = 0, .op = SCMPC_OP_NE, .value = 1 };
	struct scmpc_cond ne2 = { .arg = 0, .op = SCMPC_OP_NE, .value = 2 };
	struct scmpc_cond ge0 = { .arg = 1, .op = SCMPC_OP_GE, .value = 0 };
	struct scmpc_cond both[2] = { { .arg = 0, .op = SCMPC_OP_EQ, .value = 1 },
				      { .arg = 0, .op = SCMPC_OP_EQ, .value = 2 } };
	struct scmpc_cond eq1 = { .arg = 0, .op = SCMPC_OP_EQ, .value = 1 };
	struct {
		const char *name;
		const struct scmpc_cond *c;
		size_t n;
	} rules[] = { { "read", &ne1, 1 }, { "read", &ne2, 1 }, { "close", &ge0, 1 },
		      { "write", both, 2 }, { "socket", &eq1, 1 }, { "getpid", NULL, 0 } };
	for (size_t i = 0; i < N(rules); i++) {
		struct scmpc_rule r = { .sz = sizeof(r), .syscall = rules[i].name, .action = ALLOW,
					.conds = rules[i].c, .nconds = rules[i].n };
		assert_true(scmpc_policy_add_rule(p, &r, d) >= 0);
	}
	scmpc_prog *prog = NULL;
	assert_int_equal(scmpc_compile(p, NULL, &prog, d), 0);
	struct scmpc_stats_opts o = { .sz = sizeof(o) };
	struct scmpc_argsys_stats as[1];
	struct scmpc_arch_stats st = { .sz = sizeof(st), .argsys = as, .argsys_cap = 1 };
	assert_int_equal(scmpc_stats(p, scmpc_prog_insns(prog), scmpc_prog_len(prog), 0, &o, &st, d), 0);
	assert_int_equal(st.allow_unconditional, 3);
	assert_int_equal(st.cacheable, 3);
	assert_int_equal(st.nargsys, 1);
	assert_int_equal(st.argsys[0].nr, 41);	/* socket */
	/* Against a program that checks read's argument as its rules say it,
	 * read is still an argument-independent allow, now one the kernel
	 * does not cache: the count says so. */
	static const struct sock_filter shaped[] = {
		LD(4),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, X86, 0, 7),
		LD(0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 2),	/* read */
		LD(16),
		BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0, 4, 4),	/* always true */
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 3, 3, 0),	/* close */
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 39, 2, 0),	/* getpid */
		RET(SCMPC_ACT_ERRNO(1)),
		RET(SCMPC_ACT_KILL_PROCESS),
		RET(ALLOW),
	};
	assert_int_equal(scmpc_stats(p, shaped, N(shaped), 0, &o, &st, d), 0);
	assert_int_equal(st.allow_unconditional, 3);
	assert_int_equal(st.cacheable, 2);

	/* The figures are the program's: SHAPED decides socket whatever its
	 * arguments (it denies it), so it checks no call's arguments. */
	assert_int_equal(st.nargsys, 0);
	/* The output struct's contract: counted without a list, refused
	 * when malformed, zeros for a newer caller's fields. */
	st = (struct scmpc_arch_stats){ .sz = sizeof(st) };
	assert_int_equal(scmpc_stats(p, scmpc_prog_insns(prog), scmpc_prog_len(prog), 0, &o, &st, d),
			 0);
	assert_int_equal(st.nargsys, 1);
	assert_null(st.argsys);
	st.argsys_cap = 4;
	assert_int_equal(scmpc_stats(p, shaped, N(shaped), 0, &o, &st, d), -EINVAL);
	st = (struct scmpc_arch_stats){ .sz = offsetof(struct scmpc_arch_stats, argsys) };
	assert_int_equal(scmpc_stats(p, shaped, N(shaped), 0, &o, &st, d), -EINVAL);
	st = (struct scmpc_arch_stats){ .sz = sizeof(st) };
	assert_int_equal(scmpc_stats(p, shaped, N(shaped), 1, &o, &st, d), -EINVAL);
	assert_int_equal(scmpc_stats(NULL, shaped, N(shaped), 0, &o, &st, d), -EINVAL);
	struct {
		struct scmpc_arch_stats st;
		uint64_t newer;
	} big;
	memset(&big, 0, sizeof(big));
	big.st.sz = sizeof(big);
	big.newer = 1;	/* a field this version does not know, set: refused */
	assert_int_equal(scmpc_stats(p, shaped, N(shaped), 0, &o, &big.st, d), -EINVAL);
	big.newer = 0;
	assert_int_equal(scmpc_stats(p, shaped, N(shaped), 0, &o, &big.st, d), 0);
	assert_int_equal(big.st.cacheable, 2);
	assert_int_equal(big.st.sz, sizeof(big));
	scmpc_prog_free(prog);
	scmpc_policy_free(p);
	scmpc_diag_free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stats_by_decision),
		cmocka_unit_test(test_const_allow_dispatch),
		cmocka_unit_test(test_bitmap_dispatch),
		cmocka_unit_test(test_uprobe_exception_by_version),
		cmocka_unit_test(test_args_before_dispatch),
		cmocka_unit_test(test_returns),
		cmocka_unit_test(test_jset_and),
		cmocka_unit_test(test_ranges),
		cmocka_unit_test(test_ja_followed),
		cmocka_unit_test(test_gives_up),
		cmocka_unit_test(test_stack_intersection),
		cmocka_unit_test(test_bitmap_size),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_unverified_programs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
