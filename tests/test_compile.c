/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * The compiler: each lowering rule, every operator at 64- and 32-bit
 * boundaries, every ABI, jump reach, the size limit, cacheability.
 *
 * Expected decisions come from plain C comparisons written here, never from
 * the library's own evaluator; shapes (which words are loaded, how many
 * returns) come from the lowering rules the compiler promises.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <linux/audit.h>
#include "compiler/compile.h"
#include "families.h"
#include "lsc_ref.h"
#include "oracle.h"
#include "scmpc.h"
#include "testutil.h"

struct fx {
	scmpc_diag *d;
	scmpc_policy *p;
	scmpc_prog *prog;
};

static scmpc_policy *policy(scmpc_diag *d, uint32_t def, enum scmpc_arch a)
{
	scmpc_policy *p = scmpc_policy_new(def);
	assert_non_null(p);
	assert_int_equal(scmpc_policy_add_arch(p, a, d), 0);
	return p;
}

static void rule(scmpc_policy *p, scmpc_diag *d, const char *name, uint32_t act,
		 const struct scmpc_cond *c, size_t n)
{
	struct scmpc_rule r = { .sz = sizeof(r), .syscall = name, .action = act, .conds = c,
				.nconds = n };
	int idx = scmpc_policy_add_rule(p, &r, d);
	if (idx < 0)
		fail_msg("add %s: %s", name, scmpc_diag_message(d));
}

static scmpc_prog *compile(scmpc_policy *p, scmpc_diag *d, unsigned flags)
{
	struct scmpc_compile_opts o = { .sz = sizeof(o), .flags = flags };
	scmpc_prog *prog = NULL;
	int err = scmpc_compile(p, &o, &prog, d);
	if (err)
		fail_msg("compile: %d %s", err, scmpc_diag_message(d));
	assert_int_equal(scmpc_verify_insns(scmpc_prog_insns(prog), scmpc_prog_len(prog), d), 0);
	return prog;
}

static uint32_t run(const scmpc_prog *prog, enum scmpc_arch a, uint32_t nr, uint64_t a0,
		    uint64_t a1, unsigned *steps)
{
	struct seccomp_data sd = { .nr = (int)nr, .arch = scmpc_arch_audit(a) };
	sd.args[0] = a0;
	sd.args[1] = a1;
	uint32_t ret = 0;
	assert_int_equal(scmpc_emulate(scmpc_prog_insns(prog), scmpc_prog_len(prog), &sd, &ret, steps), 0);
	return ret;
}

static uint32_t nr_of(enum scmpc_arch a, const char *name)
{
	int64_t n = scmpc_syscall_resolve(a, name);
	assert_true(n >= 0);
	return (uint32_t)n;
}

/* Count the instructions that load seccomp_data word K. */
static unsigned loads_of(const scmpc_prog *prog, uint32_t k)
{
	const struct sock_filter *f = scmpc_prog_insns(prog);
	unsigned n = 0;
	for (size_t i = 0; i < scmpc_prog_len(prog); i++)
		n += f[i].code == (BPF_LD | BPF_W | BPF_ABS) && f[i].k == k;
	return n;
}

static unsigned count_code(const scmpc_prog *prog, uint16_t code)
{
	const struct sock_filter *f = scmpc_prog_insns(prog);
	unsigned n = 0;
	for (size_t i = 0; i < scmpc_prog_len(prog); i++)
		n += f[i].code == code;
	return n;
}

/* ------------------------------------------------------------- operators */

static bool expect(enum scmpc_op op, uint64_t x, uint64_t v, uint64_t v2)
{
	struct scmpc_cond c = { .op = op, .value = v, .value2 = v2 };
	return oracle_cond(&c, x, false);
}

static const uint64_t consts[] = {
	0, 1, 2, 0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff, 0x100000000ULL,
	0x100000001ULL, 0x123456789ULL, 0xffffffff00000000ULL, 0xfffffffffffffffeULL,
	UINT64_MAX,
};

static void probe_values(uint64_t c, uint64_t *out, size_t *n)
{
	uint64_t lo = c & 0xffffffffULL, hi = c >> 32;
	uint64_t v[] = { c - 1, c, c + 1, lo, lo | 0xffffffff00000000ULL, c ^ (1ULL << 32),
			 ((hi + 1) << 32) | lo, (hi << 32) | ((lo + 1) & 0xffffffffULL),
			 (hi << 32) | ((lo - 1) & 0xffffffffULL), 0, UINT64_MAX, 0x80000000ULL,
			 0xffffffff80000000ULL };
	memcpy(out, v, sizeof(v));
	*n = sizeof(v) / sizeof(v[0]);
}

/* One operator, one constant, one width, on one ABI: every probe value
 * decides as the C expression says. */
static void check_op(enum scmpc_arch a, enum scmpc_op op, uint64_t c, uint64_t c2, bool narrow)
{
	scmpc_diag *d = scmpc_diag_new();
	scmpc_policy *p = policy(d, SCMPC_ACT_ERRNO(1), a);
	struct scmpc_cond cond = { .arg = 1, .op = op, .value = c, .value2 = c2,
				   .flags = narrow ? SCMPC_COND_32BIT : 0 };
	rule(p, d, "write", SCMPC_ACT_ALLOW, &cond, 1);
	scmpc_prog *prog = compile(p, d, 0);
	bool compat = a == SCMPC_ARCH_I386 || a == SCMPC_ARCH_ARM;
	uint32_t nr = nr_of(a, "write");

	uint64_t vals[16], more[16];
	size_t nv, nm;
	probe_values(c, vals, &nv);
	probe_values(c2, more, &nm);
	for (size_t i = 0; i < nv + nm; i++) {
		uint64_t x = i < nv ? vals[i] : more[i - nv];
		uint64_t seen = (compat || narrow) ? (x & 0xffffffffULL) : x;
		uint32_t want = expect(op, seen, c, c2) ? SCMPC_ACT_ALLOW : SCMPC_ACT_ERRNO(1);
		uint32_t got = run(prog, a, nr, 0, x, NULL);
		if (got != want)
			fail_msg("%s op %d c=0x%llx c2=0x%llx narrow=%d x=0x%llx: got 0x%x want 0x%x",
				 scmpc_arch_name(a), op, (unsigned long long)c, (unsigned long long)c2,
				 narrow, (unsigned long long)x, got, want);
	}
	/* 32-bit comparisons never read the high word. */
	if (compat || narrow)
		assert_int_equal(loads_of(prog, 16 + 8 + 4), 0);
	scmpc_prog_free(prog);
	scmpc_policy_free(p);
	scmpc_diag_free(d);
}

static void test_operators_64(void **state)
{
	(void)state;
	for (enum scmpc_op op = SCMPC_OP_EQ; op <= SCMPC_OP_GE; op++)
		for (size_t i = 0; i < sizeof(consts) / sizeof(consts[0]); i++)
			check_op(SCMPC_ARCH_X86_64, op, consts[i], 0, false);
}

static void test_operators_32(void **state)
{
	(void)state;
	for (enum scmpc_op op = SCMPC_OP_EQ; op <= SCMPC_OP_GE; op++)
		for (size_t i = 0; i < sizeof(consts) / sizeof(consts[0]); i++) {
			check_op(SCMPC_ARCH_X86_64, op, consts[i], 0, true);
			check_op(SCMPC_ARCH_I386, op, consts[i], 0, false);
		}
}

static void test_masked_eq(void **state)
{
	(void)state;
	static const uint64_t masks[][2] = {
		{ 0x7e020000, 0 },			/* clone's namespace flags */
		{ 0xffffffff, 5 },			/* low word only */
		{ 0xffffffffffffffffULL, 0x100000005ULL },
		{ 0xffff0000, 0x00010000 },		/* a prefix: an interval */
		{ 0x8, 0x8 },				/* one bit set */
		{ 0x8, 0 },				/* one bit clear */
		{ 0xf0f0, 0x1010 },			/* holes: and + jeq */
		{ 0xff00000000ULL, 0x1200000000ULL },	/* high word only */
		{ 0x0f, 0x10 },				/* datum outside mask: masked, 0 */
		{ 0x0f, 0x13 },				/* masked to 3 */
		{ 0, 0 },				/* always */
		{ 0x100000001ULL, 0x100000000ULL },
	};
	for (size_t i = 0; i < sizeof(masks) / sizeof(masks[0]); i++) {
		check_op(SCMPC_ARCH_X86_64, SCMPC_OP_MASKED_EQ, masks[i][0], masks[i][1], false);
		check_op(SCMPC_ARCH_X86_64, SCMPC_OP_MASKED_EQ, masks[i][0], masks[i][1], true);
		check_op(SCMPC_ARCH_ARM, SCMPC_OP_MASKED_EQ, masks[i][0], masks[i][1], false);
	}
}

/* --------------------------------------------------------- lowering rules */

static void test_tautological_halves_dropped(void **state)
{
	(void)state;
	scmpc_diag *d = scmpc_diag_new();
	scmpc_policy *p = policy(d, SCMPC_ACT_ERRNO(1), SCMPC_ARCH_X86_64);
	/* Mask with no high bits: the high half is never loaded (libseccomp
	 * emits `ld hi; and #0; jeq #0` here). */
	struct scmpc_cond c = { .arg = 0, .op = SCMPC_OP_MASKED_EQ, .value = 0x7e020000, .value2 = 0 };
	rule(p, d, "clone", SCMPC_ACT_ALLOW, &c, 1);
	scmpc_prog *prog = compile(p, d, 0);
	assert_int_equal(loads_of(prog, 20), 0);
	assert_int_equal(loads_of(prog, 16), 1);
	/* (x & m) == 0 is one jset, no `and`. */
	assert_int_equal(count_code(prog, BPF_ALU | BPF_AND | BPF_K), 0);
	assert_int_equal(count_code(prog, BPF_JMP | BPF_JSET | BPF_K), 1);
	unsigned steps;
	uint32_t clone = nr_of(SCMPC_ARCH_X86_64, "clone");
	assert_int_equal(run(prog, SCMPC_ARCH_X86_64, clone, 0x11, 0, &steps), SCMPC_ACT_ALLOW);
	assert_int_equal(run(prog, SCMPC_ARCH_X86_64, clone, 0x10000000, 0, NULL), SCMPC_ACT_ERRNO(1));
	/* ld arch, jeq, ld nr, (tree), ld arg0, jset, ret: the argument part is 3. */
	assert_true(steps <= 9);
	scmpc_prog_free(prog);
	scmpc_policy_free(p);
	scmpc_diag_free(d);
}

static void test_value_set_is_a_search(void **state)
{
	(void)state;
	scmpc_diag *d = scmpc_diag_new();
	scmpc_policy *p = policy(d, SCMPC_ACT_ERRNO(1), SCMPC_ARCH_X86_64);
	/* 64 ioctl request numbers: a chain would execute up to 64 tests. */
	uint64_t vals[64];
	for (int i = 0; i < 64; i++) {
		vals[i] = 0x5400 + (uint64_t)i * 3;
		struct scmpc_cond c = { .arg = 1, .op = SCMPC_OP_EQ, .value = vals[i],
					.flags = SCMPC_COND_32BIT };
		rule(p, d, "ioctl", SCMPC_ACT_ALLOW, &c, 1);
	}
	scmpc_prog *prog = compile(p, d, 0);
	uint32_t ioctl = nr_of(SCMPC_ARCH_X86_64, "ioctl");
	unsigned worst = 0;
	for (uint64_t x = 0x53f0; x < 0x5400 + 64 * 3 + 16; x++) {
		unsigned steps;
		bool in = x >= 0x5400 && (x - 0x5400) % 3 == 0 && x < 0x5400 + 64 * 3;
		assert_int_equal(run(prog, SCMPC_ARCH_X86_64, ioctl, 0, x, &steps),
				 in ? SCMPC_ACT_ALLOW : SCMPC_ACT_ERRNO(1));
		worst = steps > worst ? steps : worst;
	}
	/* A policy that is this set and nothing else: a search (8 deep, about
	 * 95 instructions) would be larger than the chain of 64 jeq that
	 * libseccomp's level 1 makes, so the set is that chain (see
	 * compile.c): header (ld arch, jeq, ld nr), two number tests, one
	 * load, 64 jeq and a return executed at most; the 64 jeq, the load,
	 * those five and the unknown-number tail (4 tests) and 3 returns in
	 * all.  In a profile with calls enough for its number search to save
	 * more, the set stays a search (test_lean_is_kept_from_profiles). */
	assert_true(worst <= 3 + 2 + 1 + 64 + 1);
	assert_true(scmpc_prog_len(prog) <= 64 + 1 + 5 + 4 + 3);
	/* One load of the argument (no high word: 32-bit), one of each return. */
	assert_int_equal(loads_of(prog, 24), 1);
	assert_int_equal(loads_of(prog, 28), 0);
	assert_int_equal(count_code(prog, BPF_RET | BPF_K), 3);	/* ALLOW, ERRNO, KILL */
	scmpc_prog_free(prog);
	scmpc_policy_free(p);
	scmpc_diag_free(d);
}

static void test_ranges_merged(void **state)
{
	(void)state;
	scmpc_diag *d = scmpc_diag_new();
	scmpc_policy *p = policy(d, SCMPC_ACT_ERRNO(1), SCMPC_ARCH_X86_64);
	/* Every x86_64 syscall 0..99 by number: one range, so the dispatch is
	 * a couple of comparisons, not a hundred. */
	for (uint32_t nr = 0; nr < 100; nr++) {
		struct scmpc_rule r = { .sz = sizeof(r), .nr = nr, .arch = SCMPC_ARCH_X86_64,
					.action = SCMPC_ACT_ALLOW };
		assert_true(scmpc_policy_add_rule(p, &r, d) >= 0);
	}
	scmpc_prog *prog = compile(p, d, 0);
	/* ld arch, jeq, ld nr, jge 100, jge 0x40000000, jeq -1, three returns. */
	assert_true(scmpc_prog_len(prog) <= 9);
	for (uint32_t nr = 0; nr < 200; nr++)
		assert_int_equal(run(prog, SCMPC_ARCH_X86_64, nr, 0, 0, NULL),
				 nr < 100 ? SCMPC_ACT_ALLOW : SCMPC_ACT_ERRNO(1));
	scmpc_prog_free(prog);
	scmpc_policy_free(p);
	scmpc_diag_free(d);
}

static void test_precedence_and_determinism(void **state)
{
	(void)state;
	scmpc_diag *d = scmpc_diag_new();
	struct scmpc_cond ge10 = { .arg = 0, .op = SCMPC_OP_GE, .value = 10 };
	struct scmpc_cond lt20 = { .arg = 0, .op = SCMPC_OP_LT, .value = 20 };
	scmpc_prog *progs[2];
	for (int order = 0; order < 2; order++) {
		scmpc_policy *p = policy(d, SCMPC_ACT_ALLOW, SCMPC_ARCH_X86_64);
		if (order == 0) {
			rule(p, d, "kill", SCMPC_ACT_ERRNO(1), &ge10, 1);
			rule(p, d, "kill", SCMPC_ACT_KILL_PROCESS, &lt20, 1);
			rule(p, d, "kill", SCMPC_ACT_TRAP, &ge10, 1);
		} else {
			rule(p, d, "kill", SCMPC_ACT_TRAP, &ge10, 1);
			rule(p, d, "kill", SCMPC_ACT_KILL_PROCESS, &lt20, 1);
			rule(p, d, "kill", SCMPC_ACT_ERRNO(1), &ge10, 1);
		}
		progs[order] = compile(p, d, 0);
		uint32_t kill = nr_of(SCMPC_ARCH_X86_64, "kill");
		for (uint64_t x = 0; x < 30; x++) {
			/* Most restrictive wins: KILL_PROCESS below 20, then TRAP. */
			uint32_t want = x < 20 ? SCMPC_ACT_KILL_PROCESS : SCMPC_ACT_TRAP;
			assert_int_equal(run(progs[order], SCMPC_ARCH_X86_64, kill, x, 0, NULL), want);
		}
		scmpc_policy_free(p);
	}
	/* Same policy, different insertion order: the same bytes. */
	assert_int_equal(scmpc_prog_len(progs[0]), scmpc_prog_len(progs[1]));
	assert_memory_equal(scmpc_prog_insns(progs[0]), scmpc_prog_insns(progs[1]),
			    scmpc_prog_len(progs[0]) * sizeof(struct sock_filter));
	scmpc_prog_free(progs[0]);
	scmpc_prog_free(progs[1]);
	scmpc_diag_free(d);
}

/* ----------------------------------------------------------- ABIs, x32 */

static void test_every_arch(void **state)
{
	(void)state;
	enum scmpc_arch all[] = { SCMPC_ARCH_X86_64, SCMPC_ARCH_I386, SCMPC_ARCH_X32,
				  SCMPC_ARCH_AARCH64, SCMPC_ARCH_ARM };
	for (size_t i = 0; i < 5; i++) {
		scmpc_diag *d = scmpc_diag_new();
		scmpc_policy *p = policy(d, SCMPC_ACT_ERRNO(1), all[i]);
		rule(p, d, "read", SCMPC_ACT_ALLOW, NULL, 0);
		rule(p, d, "exit_group", SCMPC_ACT_ALLOW, NULL, 0);
		rule(p, d, "getpid", SCMPC_ACT_TRAP, NULL, 0);
		scmpc_prog *prog = compile(p, d, 0);
		uint32_t read = nr_of(all[i], "read"), eg = nr_of(all[i], "exit_group");
		uint32_t gp = nr_of(all[i], "getpid");
		assert_int_equal(run(prog, all[i], read, 0, 0, NULL), SCMPC_ACT_ALLOW);
		assert_int_equal(run(prog, all[i], eg, 0, 0, NULL), SCMPC_ACT_ALLOW);
		assert_int_equal(run(prog, all[i], gp, 0, 0, NULL), SCMPC_ACT_TRAP);
		assert_int_equal(run(prog, all[i], read + 1000, 0, 0, NULL), SCMPC_ACT_ERRNO(1));
		/* Every other ABI gets the bad-arch action. */
		for (size_t k = 0; k < 5; k++) {
			if (scmpc_arch_audit(all[k]) == scmpc_arch_audit(all[i]))
				continue;
			assert_int_equal(run(prog, all[k], 0, 0, 0, NULL), SCMPC_ACT_KILL_PROCESS);
		}
		/* Names resolved per ABI: aarch64 has no open(2). */
		scmpc_prog_free(prog);
		scmpc_policy_free(p);
		scmpc_diag_free(d);
	}
}

static void test_x32_bit(void **state)
{
	(void)state;
	scmpc_diag *d = scmpc_diag_new();
	scmpc_policy *p = policy(d, SCMPC_ACT_ERRNO(1), SCMPC_ARCH_X86_64);
	rule(p, d, "read", SCMPC_ACT_ALLOW, NULL, 0);
	scmpc_prog *prog = compile(p, d, 0);
	/* Without x32 rules an x32 call is a foreign ABI, even for read. */
	assert_int_equal(run(prog, SCMPC_ARCH_X86_64, 0, 0, 0, NULL), SCMPC_ACT_ALLOW);
	assert_int_equal(run(prog, SCMPC_ARCH_X86_64, 0x40000000, 0, 0, NULL), SCMPC_ACT_KILL_PROCESS);
	assert_int_equal(run(prog, SCMPC_ARCH_X86_64, 0x7fffffff, 0, 0, NULL), SCMPC_ACT_KILL_PROCESS);
	assert_int_equal(run(prog, SCMPC_ARCH_X86_64, 0xc0000000, 0, 0, NULL), SCMPC_ACT_KILL_PROCESS);
	/* -1 is a tracer skipping the call: the default. */
	assert_int_equal(run(prog, SCMPC_ARCH_X86_64, 0xffffffff, 0, 0, NULL), SCMPC_ACT_ERRNO(1));
	/* Bit 30 clear but above it: no x86_64 number either. */
	assert_int_equal(run(prog, SCMPC_ARCH_X86_64, 0x80000000, 0, 0, NULL), SCMPC_ACT_KILL_PROCESS);
	scmpc_prog_free(prog);

	assert_int_equal(scmpc_policy_add_arch(p, SCMPC_ARCH_X32, d), 0);
	assert_int_equal(scmpc_policy_set_bad_arch_action(p, SCMPC_ACT_KILL_THREAD, d), 0);
	prog = compile(p, d, 0);
	assert_int_equal(run(prog, SCMPC_ARCH_X86_64, 0x40000000, 0, 0, NULL), SCMPC_ACT_ALLOW);
	assert_int_equal(run(prog, SCMPC_ARCH_X86_64, 0x40000001, 0, 0, NULL), SCMPC_ACT_ERRNO(1));
	assert_int_equal(run(prog, SCMPC_ARCH_I386, 3, 0, 0, NULL), SCMPC_ACT_KILL_THREAD);
	scmpc_prog_free(prog);
	scmpc_policy_free(p);
	scmpc_diag_free(d);
}

/* Rules on -1 itself (libseccomp's API_TSKIP) decide it, on the first ABI
 * of its AUDIT_ARCH that has them; without them it keeps the default. */
static void test_minus_one_rules(void **state)
{
	(void)state;
	scmpc_diag *d = scmpc_diag_new();
	scmpc_policy *p = policy(d, SCMPC_ACT_ERRNO(1), SCMPC_ARCH_X86_64);
	assert_int_equal(scmpc_policy_add_arch(p, SCMPC_ARCH_X32, d), 0);
	assert_int_equal(scmpc_policy_add_arch(p, SCMPC_ARCH_I386, d), 0);
	struct scmpc_cond c = { .arg = 0, .op = SCMPC_OP_EQ, .value = 5 };
	struct scmpc_rule r = { .sz = sizeof(r), .nr = 0xffffffffU, .arch = SCMPC_ARCH_X32,
				.action = SCMPC_ACT_TRAP };
	assert_true(scmpc_policy_add_rule(p, &r, d) >= 0);
	r = (struct scmpc_rule){ .sz = sizeof(r), .nr = 0xffffffffU, .arch = SCMPC_ARCH_X86_64,
				 .action = SCMPC_ACT_ALLOW, .conds = &c, .nconds = 1 };
	assert_true(scmpc_policy_add_rule(p, &r, d) >= 0);
	/* the unoptimised lowering too */
	for (unsigned naive = 0; naive < 2; naive++) {
		scmpc_prog *prog = compile(p, d, naive ? SCMPC_COMPILE_NAIVE : 0);
		/* x86_64 comes first in the policy: its conditional rule decides. */
		assert_int_equal(run(prog, SCMPC_ARCH_X86_64, 0xffffffff, 5, 0, NULL),
				 SCMPC_ACT_ALLOW);
		assert_int_equal(run(prog, SCMPC_ARCH_X86_64, 0xffffffff, 4, 0, NULL),
				 SCMPC_ACT_ERRNO(1));
		/* i386 has no rule on -1. */
		assert_int_equal(run(prog, SCMPC_ARCH_I386, 0xffffffff, 5, 0, NULL),
				 SCMPC_ACT_ERRNO(1));
		scmpc_prog_free(prog);
	}
	struct seccomp_data sd = { .nr = -1, .arch = scmpc_arch_audit(SCMPC_ARCH_X86_64) };
	sd.args[0] = 5;
	assert_int_equal(scmpc_policy_eval(p, &sd, NULL), SCMPC_ACT_ALLOW);
	sd.arch = scmpc_arch_audit(SCMPC_ARCH_I386);
	assert_int_equal(scmpc_policy_eval(p, &sd, NULL), SCMPC_ACT_ERRNO(1));
	scmpc_policy_free(p);
	scmpc_diag_free(d);
}

static void test_unknown_numbers(void **state)
{
	(void)state;
	scmpc_diag *d = scmpc_diag_new();
	scmpc_policy *p = policy(d, SCMPC_ACT_ERRNO(1), SCMPC_ARCH_AARCH64);
	assert_int_equal(scmpc_policy_add_arch(p, SCMPC_ARCH_ARM, d), 0);
	rule(p, d, "openat", SCMPC_ACT_ALLOW, NULL, 0);	/* aarch64 56, arm 322 */
	assert_int_equal(scmpc_policy_set_unknown_action(p, SCMPC_ACT_ERRNO(38),
							 SCMPC_UNKNOWN_POLICY_MAX, d), 0);
	scmpc_prog *prog = compile(p, d, 0);
	assert_int_equal(run(prog, SCMPC_ARCH_AARCH64, 56, 0, 0, NULL), SCMPC_ACT_ALLOW);
	assert_int_equal(run(prog, SCMPC_ARCH_AARCH64, 55, 0, 0, NULL), SCMPC_ACT_ERRNO(1));
	assert_int_equal(run(prog, SCMPC_ARCH_AARCH64, 57, 0, 0, NULL), SCMPC_ACT_ERRNO(38));
	assert_int_equal(run(prog, SCMPC_ARCH_ARM, 322, 0, 0, NULL), SCMPC_ACT_ALLOW);
	assert_int_equal(run(prog, SCMPC_ARCH_ARM, 323, 0, 0, NULL), SCMPC_ACT_ERRNO(38));
	/* ARM's private calls are never "unknown". */
	assert_int_equal(run(prog, SCMPC_ARCH_ARM, 0x0f0005, 0, 0, NULL), SCMPC_ACT_ERRNO(1));
	assert_int_equal(run(prog, SCMPC_ARCH_ARM, 0x0f0800, 0, 0, NULL), SCMPC_ACT_ERRNO(38));
	assert_int_equal(run(prog, SCMPC_ARCH_AARCH64, 0xffffffff, 0, 0, NULL), SCMPC_ACT_ERRNO(1));
	scmpc_prog_free(prog);
	scmpc_policy_free(p);
	scmpc_diag_free(d);
}

/* ------------------------------------------------- reach, size, the cache */

static void test_jump_overflow(void **state)
{
	(void)state;
	scmpc_diag *d = scmpc_diag_new();
	scmpc_policy *p = policy(d, SCMPC_ACT_ERRNO(1), SCMPC_ARCH_X86_64);
	/* Many syscalls, each with a distinct argument test and action: far
	 * more than 255 instructions between the tree's top and its leaves. */
	for (uint32_t nr = 0; nr < 300; nr++) {
		struct scmpc_cond c = { .arg = nr % 6, .op = SCMPC_OP_EQ, .value = nr * 7 + 1 };
		struct scmpc_rule r = { .sz = sizeof(r), .nr = nr, .arch = SCMPC_ARCH_X86_64,
					.action = SCMPC_ACT_ERRNO(nr % 200 + 2), .conds = &c,
					.nconds = 1 };
		assert_true(scmpc_policy_add_rule(p, &r, d) >= 0);
	}
	scmpc_prog *prog = compile(p, d, 0);
	assert_true(scmpc_prog_len(prog) > 512);
	const struct sock_filter *f = scmpc_prog_insns(prog);
	unsigned ja = 0;
	for (size_t i = 0; i < scmpc_prog_len(prog); i++)
		ja += f[i].code == (BPF_JMP | BPF_JA);
	assert_true(ja > 0);
	for (uint32_t nr = 0; nr < 300; nr++) {
		struct seccomp_data sd = { .nr = (int)nr, .arch = AUDIT_ARCH_X86_64 };
		uint32_t ret;
		sd.args[nr % 6] = nr * 7 + 1;
		assert_int_equal(scmpc_emulate(f, scmpc_prog_len(prog), &sd, &ret, NULL), 0);
		assert_int_equal(ret, SCMPC_ACT_ERRNO(nr % 200 + 2));
		sd.args[nr % 6] = nr * 7;
		assert_int_equal(scmpc_emulate(f, scmpc_prog_len(prog), &sd, &ret, NULL), 0);
		assert_int_equal(ret, SCMPC_ACT_ERRNO(1));
	}
	scmpc_prog_free(prog);
	scmpc_policy_free(p);
	scmpc_diag_free(d);
}

static void test_too_big(void **state)
{
	(void)state;
	scmpc_diag *d = scmpc_diag_new();
	scmpc_policy *p = policy(d, SCMPC_ACT_ERRNO(1), SCMPC_ARCH_X86_64);
	/* 3000 unrelated 64-bit values with distinct errnos on one argument:
	 * each needs its own return and tests, well past 4096. */
	for (uint32_t i = 0; i < 3000; i++) {
		struct scmpc_cond c = { .arg = 0, .op = SCMPC_OP_EQ,
					.value = ((uint64_t)i << 32) | (i * 2654435761u) };
		rule(p, d, "ioctl", SCMPC_ACT_ERRNO(i % 4000 + 2), &c, 1);
	}
	scmpc_prog *prog = NULL;
	int err = scmpc_compile(p, NULL, &prog, d);
	assert_int_equal(err, -E2BIG);
	assert_null(prog);
	assert_non_null(strstr(scmpc_diag_message(d), "the kernel accepts at most 4096"));
	assert_non_null(strstr(scmpc_diag_message(d), "the program needs "));
	scmpc_policy_free(p);
	scmpc_diag_free(d);
}

/* 300 syscalls with eight `arg0 ==` values each: searching each value set
 * takes more than 4096 instructions in all, chains fit (libseccomp's
 * layout does), so the compiler must fall back to laying them out for
 * size rather than fail. */
static void test_compact_fallback(void **state)
{
	(void)state;
	scmpc_diag *d = scmpc_diag_new();
	scmpc_policy *p = policy(d, SCMPC_ACT_ERRNO(1), SCMPC_ARCH_X86_64);
	unsigned added = 0;
	for (uint32_t nr = 0; added < 300 && nr < 460; nr++) {
		char name[64];
		if (!scmpc_syscall_name(SCMPC_ARCH_X86_64, nr, name, sizeof(name)))
			continue;
		added++;
		for (uint64_t k = 0; k < 8; k++) {
			struct scmpc_cond c = { .arg = 0, .op = SCMPC_OP_EQ, .value = nr * 31 + k * 7919 };
			rule(p, d, name, SCMPC_ACT_ALLOW, &c, 1);
		}
	}
	scmpc_prog *prog = compile(p, d, 0);
	assert_true(scmpc_prog_len(prog) <= 4096);
	uint32_t read = nr_of(SCMPC_ARCH_X86_64, "read");
	assert_int_equal(run(prog, SCMPC_ARCH_X86_64, read, 7919, 0, NULL), SCMPC_ACT_ALLOW);
	assert_int_equal(run(prog, SCMPC_ARCH_X86_64, read, 7918, 0, NULL), SCMPC_ACT_ERRNO(1));
	scmpc_prog_free(prog);
	scmpc_policy_free(p);
	scmpc_diag_free(d);
}

/* Conditions on two arguments with staggered constants make every slice of
 * one argument a different problem for the other: the tree search gives up
 * for the chain of rules, which is still far too big to load; it must fail
 * with that reason rather than grind. */
/* When a bound of the compiler, not the kernel's 4096, stops a policy, the
 * message says so and names the call: 60000 consecutive values would make
 * a small program, but scmpc gives up before it finds it. */
static void test_compiler_bound_named(void **state)
{
	(void)state;
	scmpc_diag *d = scmpc_diag_new();
	scmpc_policy *p = policy(d, SCMPC_ACT_ERRNO(1), SCMPC_ARCH_X86_64);
	for (uint64_t i = 0; i < 60000; i++) {
		struct scmpc_cond c = { .arg = 0, .op = SCMPC_OP_EQ, .value = i };
		rule(p, d, "read", SCMPC_ACT_ALLOW, &c, 1);
	}
	scmpc_prog *prog = NULL;
	assert_int_equal(scmpc_compile(p, NULL, &prog, d), -E2BIG);
	assert_null(prog);
	const char *m = scmpc_diag_message(d);
	assert_non_null(strstr(m, "too complex to compile (reached at read on x86_64, 60000 rules)"));
	assert_non_null(strstr(m, "the compiler's bound"));
	assert_null(strstr(m, "4096"));
	scmpc_policy_free(p);
	scmpc_diag_free(d);
}

/* No instruction of PROG reads an argument word. */
static void assert_no_argument_load(const scmpc_prog *prog)
{
	for (size_t i = 0; i < scmpc_prog_len(prog); i++) {
		const struct sock_filter *f = &scmpc_prog_insns(prog)[i];
		if (BPF_CLASS(f->code) == BPF_LD)
			assert_true(f->k < offsetof(struct seccomp_data, args));
	}
}

/* Rules that together allow every argument value leave no argument load
 * before the return, so the kernel caches the call: its decision, not the
 * rules' shape, is what counts. */
static void test_tautologies_cacheable(void **state)
{
	(void)state;
	scmpc_diag *d = scmpc_diag_new();
	scmpc_policy *p = policy(d, SCMPC_ACT_ERRNO(1), SCMPC_ARCH_X86_64);
	struct scmpc_cond ne1 = { .arg = 0, .op = SCMPC_OP_NE, .value = 1 };
	struct scmpc_cond ne2 = { .arg = 0, .op = SCMPC_OP_NE, .value = 2 };
	struct scmpc_cond ge0 = { .arg = 1, .op = SCMPC_OP_GE, .value = 0 };
	rule(p, d, "read", SCMPC_ACT_ALLOW, &ne1, 1);
	rule(p, d, "read", SCMPC_ACT_ALLOW, &ne2, 1);
	rule(p, d, "close", SCMPC_ACT_ALLOW, &ge0, 1);
	scmpc_prog *prog = compile(p, d, 0);
	uint32_t audit = scmpc_arch_audit(SCMPC_ARCH_X86_64);
	assert_int_equal(scmpc_cache_const_allow(scmpc_prog_insns(prog), scmpc_prog_len(prog), audit,
						 0 /* read */, NULL), 1);
	assert_int_equal(scmpc_cache_const_allow(scmpc_prog_insns(prog), scmpc_prog_len(prog), audit,
						 3 /* close */, NULL), 1);
	assert_no_argument_load(prog);
	scmpc_prog_free(prog);
	scmpc_policy_free(p);
	scmpc_diag_free(d);
}

/* Whether the path the program takes for (A, NR) loads an argument word
 * before it returns.  Until the first such load the path cannot depend on
 * the arguments, so one run with zero arguments answers for all of them. */
static bool path_loads_args(const scmpc_prog *prog, enum scmpc_arch a, uint32_t nr)
{
	struct seccomp_data sd = { .nr = (int)nr, .arch = scmpc_arch_audit(a) };
	size_t path[4096], npath = 0;
	uint32_t ret;
	const struct sock_filter *f = scmpc_prog_insns(prog);
	assert_int_equal(scmpc_emulate_trace(f, scmpc_prog_len(prog), &sd, &ret, path, 4096, &npath), 0);
	for (size_t i = 0; i < npath; i++)
		if (BPF_CLASS(f[path[i]].code) == BPF_LD &&
		    f[path[i]].k >= offsetof(struct seccomp_data, args))
			return true;
	return false;
}

/* The restrictive merge, written out: of the rules whose conditions all
 * hold, the action the kernel ranks most restrictive, then the lower
 * data; the default when none holds. */
struct trule {
	uint32_t action;
	struct scmpc_cond c[2];
	size_t n;
};

static uint32_t oracle_decide(const struct trule *r, size_t nr, uint32_t def, const uint64_t *args)
{
	bool any = false;
	uint32_t best = 0;
	for (size_t i = 0; i < nr; i++) {
		bool all = true;
		for (size_t k = 0; k < r[i].n; k++)
			all &= oracle_cond(&r[i].c[k], args[r[i].c[k].arg], false);
		if (!all)
			continue;
		int32_t rank = (int32_t)(r[i].action & 0xffff0000U), brank = (int32_t)(best & 0xffff0000U);
		if (!any || rank < brank || (rank == brank && (r[i].action & 0xffff) < (best & 0xffff)))
			best = r[i].action;
		any = true;
	}
	return any ? best : def;
}

static void grid_add(uint32_t *v, size_t *n, uint32_t x)
{
	for (size_t i = 0; i < *n; i++)
		if (v[i] == x)
			return;
	v[(*n)++] = x;
}

/* PROG decides READ as the rules TR say on every cell of the grid of
 * high and low words of both arguments; true when every cell decides
 * alike (*WANT0: how). */
static bool grid_decides(const scmpc_prog *prog, uint32_t read, const struct trule *tr, size_t ntr,
			 uint32_t def, uint32_t hi[2][256], const size_t nhi[2],
			 uint32_t lo[2][256], const size_t nlo[2], uint32_t *want0)
{
	bool first = true, same = true;
	for (size_t h0 = 0; h0 < nhi[0]; h0++)
		for (size_t l0 = 0; l0 < nlo[0]; l0++)
			for (size_t h1 = 0; h1 < nhi[1]; h1++)
				for (size_t l1 = 0; l1 < nlo[1]; l1++) {
					uint64_t args[2] = { ((uint64_t)hi[0][h0] << 32) | lo[0][l0],
							     ((uint64_t)hi[1][h1] << 32) | lo[1][l1] };
					uint32_t want = oracle_decide(tr, ntr, def, args);
					assert_int_equal(run(prog, SCMPC_ARCH_X86_64, read, args[0],
							     args[1], NULL), want);
					if (first)
						*want0 = want;
					same &= want == *want0;
					first = false;
				}
	return same;
}

/* Random rule sets for one call, conditions on two arguments with
 * constants near 0, 2^32 and 2^64 (tautologies such as `>= 0` and
 * `<= 2^64-1`, contradictions, complementary pairs, masks against ranges),
 * 64- and 32-bit.  Every comparison's outcome is constant on the cells of
 * the grid cut at 0, c and c + 1 of each constant's high and low word, and
 * each corner is also taken with every mask's bits set and clear, so the
 * independent oracle says which calls do not depend on their arguments;
 * each of those must load no argument word before returning (the kernel
 * then caches an ALLOW), whatever rules express it; the others must read
 * one. */
static void test_argument_free_decisions_fold(void **state)
{
	(void)state;
	static const uint64_t ks[] = { 0, 1, 2, 0xffffffffULL, 0x100000000ULL, 0x100000001ULL,
				       UINT64_MAX - 1, UINT64_MAX };
	static const uint64_t masks[] = { 1, 3, 0x80000000ULL, 0x100000000ULL, 0x100000001ULL };
	static const uint32_t acts[] = { SCMPC_ACT_ALLOW, SCMPC_ACT_ALLOW, SCMPC_ACT_LOG,
					 SCMPC_ACT_ERRNO(5) };
	const uint32_t def = SCMPC_ACT_ERRNO(1);
	uint64_t seed = 0x5eed15;
	unsigned constant = 0, constant_allow = 0, dependent = 0;
	uint32_t read = nr_of(SCMPC_ARCH_X86_64, "read");
#define RND(n) ((uint32_t)((seed = seed * 6364136223846793005ULL + 1442695040888963407ULL) >> 33) % (n))
	for (int iter = 0; iter < 600; iter++) {
		struct trule tr[6];
		size_t ntr = 1 + RND(4);
		for (size_t i = 0; i < ntr; i++) {
			tr[i].action = acts[RND(4)];
			tr[i].n = 1 + RND(2);
			for (size_t k = 0; k < tr[i].n; k++) {
				struct scmpc_cond *c = &tr[i].c[k];
				/* One draw per statement: the same sequence on every
				 * compiler. */
				*c = (struct scmpc_cond){ .arg = (uint8_t)RND(2) };
				c->op = (enum scmpc_op)(SCMPC_OP_EQ + RND(7));
				c->value = ks[RND(8)];
				c->flags = RND(4) == 0 ? SCMPC_COND_32BIT : 0;
				if (c->op == SCMPC_OP_MASKED_EQ) {
					c->value = masks[RND(5)];
					c->value2 = RND(2) ? c->value : 0;
				}
			}
		}
		/* A complementary pair on one comparison: together always true. */
		if (RND(3) == 0 && ntr < 6) {
			static const enum scmpc_op neg[][2] = {
				{ SCMPC_OP_EQ, SCMPC_OP_NE }, { SCMPC_OP_LT, SCMPC_OP_GE },
				{ SCMPC_OP_LE, SCMPC_OP_GT } };
			size_t w = RND(3);
			tr[ntr] = tr[0];
			tr[ntr].n = 1;
			tr[0].c[0].op = neg[w][0];
			tr[ntr].c[0].op = neg[w][1];
			ntr++;
		}
		scmpc_diag *d = scmpc_diag_new();
		scmpc_policy *p = policy(d, def, SCMPC_ARCH_X86_64);
		for (size_t i = 0; i < ntr; i++)
			rule(p, d, "read", tr[i].action, tr[i].c, tr[i].n);

		uint32_t hi[2][256], lo[2][256];
		size_t nhi[2] = { 0, 0 }, nlo[2] = { 0, 0 };
		for (int a = 0; a < 2; a++) {
			grid_add(hi[a], &nhi[a], 0);
			grid_add(lo[a], &nlo[a], 0);
		}
		for (size_t i = 0; i < ntr; i++)
			for (size_t k = 0; k < tr[i].n; k++) {
				const struct scmpc_cond *c = &tr[i].c[k];
				uint32_t h = (uint32_t)(c->value >> 32), l = (uint32_t)c->value;
				grid_add(hi[c->arg], &nhi[c->arg], h);
				grid_add(hi[c->arg], &nhi[c->arg], h + 1);
				grid_add(lo[c->arg], &nlo[c->arg], l);
				grid_add(lo[c->arg], &nlo[c->arg], l + 1);
			}
		/* A mask splits each cell by its bits: each corner with them
		 * set and clear. */
		for (size_t i = 0; i < ntr; i++)
			for (size_t k = 0; k < tr[i].n; k++) {
				const struct scmpc_cond *c = &tr[i].c[k];
				if (c->op != SCMPC_OP_MASKED_EQ)
					continue;
				uint32_t mh = (uint32_t)(c->value >> 32), ml = (uint32_t)c->value;
				for (size_t g = 0, n = nhi[c->arg]; g < n; g++) {
					grid_add(hi[c->arg], &nhi[c->arg], hi[c->arg][g] | mh);
					grid_add(hi[c->arg], &nhi[c->arg], hi[c->arg][g] & ~mh);
				}
				for (size_t g = 0, n = nlo[c->arg]; g < n; g++) {
					grid_add(lo[c->arg], &nlo[c->arg], lo[c->arg][g] | ml);
					grid_add(lo[c->arg], &nlo[c->arg], lo[c->arg][g] & ~ml);
				}
			}
		/* The program laid out for size (equalities low half first)
		 * decides and caches alike. */
		for (int smallest = 0; smallest < 2; smallest++) {
			scmpc_prog *prog = compile(p, d, smallest ? SCMPC_COMPILE_SMALLEST : 0);
			uint32_t want0 = 0;
			bool same = grid_decides(prog, read, tr, ntr, def, hi, nhi, lo, nlo,
						 &want0);
			uint32_t audit = scmpc_arch_audit(SCMPC_ARCH_X86_64);
			int cached = scmpc_cache_const_allow(scmpc_prog_insns(prog),
							     scmpc_prog_len(prog), audit, read, NULL);
			if (same) {
				constant += !smallest;
				constant_allow += !smallest && want0 == SCMPC_ACT_ALLOW;
				if (path_loads_args(prog, SCMPC_ARCH_X86_64, read))
					fail_msg("policy %d: read decides 0x%x whatever its arguments, "
						 "yet its path loads one", iter, want0);
				assert_int_equal(cached, want0 == SCMPC_ACT_ALLOW);
			} else {
				dependent += !smallest;
				assert_true(path_loads_args(prog, SCMPC_ARCH_X86_64, read));
				assert_int_equal(cached, 0);
			}
			scmpc_prog_free(prog);
		}
		scmpc_policy_free(p);
		scmpc_diag_free(d);
	}
#undef RND
	/* Both kinds in numbers, so neither branch above went unexercised. */
	print_message("%u argument-free decisions (%u ALLOW), %u argument-dependent\n", constant,
		      constant_allow, dependent);
	assert_true(constant >= 60 && constant_allow >= 20 && dependent >= 60);
}

/* How many jumps compare with K. */
static unsigned jumps_with(const scmpc_prog *prog, uint32_t k)
{
	const struct sock_filter *f = scmpc_prog_insns(prog);
	unsigned n = 0;
	for (size_t i = 0; i < scmpc_prog_len(prog); i++)
		n += BPF_CLASS(f[i].code) == BPF_JMP && BPF_OP(f[i].code) != BPF_JA && f[i].k == k;
	return n;
}

/* libseccomp's program sizes for P at levels 1 and 2. */
static void lsc_sizes(const scmpc_policy *p, size_t *l1, size_t *l2)
{
	char err[256];
	*l1 = *l2 = 0;
	for (int level = 1; level <= 2; level++) {
		struct sock_filter *insns = NULL;
		size_t len = 0;
		if (lsc_compile(p, level, &insns, &len, err, sizeof(err)) < 0)
			fail_msg("libseccomp L%d: %s", level, err);
		free(insns);
		*(level == 1 ? l1 : l2) = len;
	}
}

/* 64-bit conditions on one argument share its high-word test: values with
 * one high word are one high test and the low-word set; values under four
 * high words one high-word search, then the low word once per high word;
 * a range across high words tests the high word once.  Counts worked out
 * by hand from those shapes; decisions from C comparisons. */
static void test_wide_high_word_shared(void **state)
{
	(void)state;
	const uint32_t a1_lo = 24, a1_hi = 28, a0_lo = 16, a0_hi = 20;	/* x86_64 offsets */
	uint32_t ioctl = nr_of(SCMPC_ARCH_X86_64, "ioctl");
	for (int mixed = 0; mixed < 2; mixed++) {
		scmpc_diag *d = scmpc_diag_new();
		scmpc_policy *p = policy(d, SCMPC_ACT_ERRNO(1), SCMPC_ARCH_X86_64);
		for (uint64_t i = 0; i < 16; i++) {
			uint64_t hi = mixed ? 4 + i % 4 : 7;
			struct scmpc_cond c = { .arg = 1, .op = SCMPC_OP_EQ,
						.value = (hi << 32) | (0x5400 + i * 3) };
			rule(p, d, "ioctl", SCMPC_ACT_ALLOW, &c, 1);
		}
		scmpc_prog *prog = compile(p, d, 0);
		assert_int_equal(loads_of(prog, a1_hi), 1);
		assert_int_equal(loads_of(prog, a1_lo), mixed ? 4 : 1);
		if (!mixed)
			assert_int_equal(jumps_with(prog, 7), 1);
		for (uint64_t i = 0; i < 16; i++) {
			uint64_t hi = mixed ? 4 + i % 4 : 7, v = (hi << 32) | (0x5400 + i * 3);
			assert_int_equal(run(prog, SCMPC_ARCH_X86_64, ioctl, 0, v, NULL), SCMPC_ACT_ALLOW);
			assert_int_equal(run(prog, SCMPC_ARCH_X86_64, ioctl, 0, v + 1, NULL), SCMPC_ACT_ERRNO(1));
			assert_int_equal(run(prog, SCMPC_ARCH_X86_64, ioctl, 0, v ^ (8ULL << 32), NULL),
					 SCMPC_ACT_ERRNO(1));
		}
		scmpc_prog_free(prog);
		scmpc_policy_free(p);
		scmpc_diag_free(d);
	}

	/* 0x100000010 <= a0 <= 0x200000000: one high-word load and search
	 * (below 1, 1, 2, above 2), the low word loaded under 1 and under 2. */
	scmpc_diag *d = scmpc_diag_new();
	scmpc_policy *p = policy(d, SCMPC_ACT_ERRNO(1), SCMPC_ARCH_X86_64);
	struct scmpc_cond r[2] = { { .arg = 0, .op = SCMPC_OP_GE, .value = 0x100000010ULL },
				   { .arg = 0, .op = SCMPC_OP_LE, .value = 0x200000000ULL } };
	rule(p, d, "ioctl", SCMPC_ACT_ALLOW, r, 2);
	scmpc_prog *prog = compile(p, d, 0);
	assert_int_equal(loads_of(prog, a0_hi), 1);
	assert_int_equal(loads_of(prog, a0_lo), 2);
	const uint64_t xs[] = { 0, 0x10, 0x10000000f, 0x100000010, 0x1ffffffff, 0x200000000,
				0x200000001, 0x300000000, UINT64_MAX };
	for (size_t i = 0; i < sizeof(xs) / sizeof(xs[0]); i++)
		assert_int_equal(run(prog, SCMPC_ARCH_X86_64, ioctl, xs[i], 0, NULL),
				 xs[i] >= 0x100000010ULL && xs[i] <= 0x200000000ULL ? SCMPC_ACT_ALLOW
										 : SCMPC_ACT_ERRNO(1));
	scmpc_prog_free(prog);

	/* Three 64-bit masks on a0, each testing both words: the high word's
	 * two tests need one load when its jset goes before its `and`
	 * (libseccomp: 28).  Laid out for size, the low word goes first (the
	 * high word's tests then follow the low word's outcomes), and its two
	 * tests need one load the same way. */
	scmpc_policy_free(p);
	p = policy(d, SCMPC_ACT_ERRNO(1), SCMPC_ARCH_X86_64);
	const uint64_t m[] = { 0x00ff0000000000ffULL, 0xf0f0, 0x100000001ULL };
	for (int i = 0; i < 3; i++) {
		struct scmpc_cond c = { .arg = 0, .op = SCMPC_OP_MASKED_EQ, .value = m[i],
					.value2 = m[i] & 0x0101010101010101ULL };
		rule(p, d, "clone", SCMPC_ACT_ALLOW, &c, 1);
	}
	prog = compile(p, d, 0);
	assert_int_equal(loads_of(prog, a0_hi), 1);
	scmpc_prog *small = compile(p, d, SCMPC_COMPILE_SMALLEST);
	assert_int_equal(loads_of(small, a0_lo), 1);
	assert_true(scmpc_prog_len(small) <= scmpc_prog_len(prog));
	uint32_t clone = nr_of(SCMPC_ARCH_X86_64, "clone");
	for (uint64_t lo = 0; lo < 0x200; lo += 0x11) {
		for (int hb = 0; hb < 8; hb++) {
			uint64_t x = ((uint64_t)(hb & 1) | (uint64_t)(hb & 2) << 15 |
				      (uint64_t)(hb & 4) << 20) << 32 | lo;
			bool any = false;
			for (int i = 0; i < 3; i++)
				any |= (x & m[i]) == (m[i] & 0x0101010101010101ULL);
			assert_int_equal(run(prog, SCMPC_ARCH_X86_64, clone, x, 0, NULL),
					 any ? SCMPC_ACT_ALLOW : SCMPC_ACT_ERRNO(1));
			assert_int_equal(run(small, SCMPC_ARCH_X86_64, clone, x, 0, NULL),
					 any ? SCMPC_ACT_ALLOW : SCMPC_ACT_ERRNO(1));
		}
	}
	size_t l1, l2;
	lsc_sizes(p, &l1, &l2);
	assert_true(scmpc_prog_len(prog) <= l1 && scmpc_prog_len(prog) <= l2);
	scmpc_prog_free(prog);
	scmpc_prog_free(small);
	scmpc_policy_free(p);
	scmpc_diag_free(d);
}

/* A mask test fixes bits of the word; a range on the same word that they
 * exclude is no test, and a mask they decide is none either:
 * a0 == 2^64-1 with bit 32 clear can never hold, bit 0 set and bit 1
 * clear decide a0 & 3 == 1, and a0 & 1 with a0 & 3 == 2 can never both
 * hold.  Each call's decision is constant, so its path loads nothing. */
static void test_masks_fold_with_ranges(void **state)
{
	(void)state;
	scmpc_diag *d = scmpc_diag_new();
	scmpc_policy *p = policy(d, SCMPC_ACT_ERRNO(1), SCMPC_ARCH_X86_64);
	struct scmpc_cond never1[2] = {
		{ .arg = 0, .op = SCMPC_OP_GT, .value = UINT64_MAX - 1 },
		{ .arg = 0, .op = SCMPC_OP_MASKED_EQ, .value = 0x100000000ULL, .value2 = 0 } };
	rule(p, d, "read", SCMPC_ACT_ALLOW, never1, 2);
	struct scmpc_cond never2[2] = {
		{ .arg = 0, .op = SCMPC_OP_MASKED_EQ, .value = 1, .value2 = 1 },
		{ .arg = 0, .op = SCMPC_OP_MASKED_EQ, .value = 3, .value2 = 2 } };
	rule(p, d, "write", SCMPC_ACT_LOG, never2, 2);
	/* close: bit 0 set, or clear: every value */
	struct scmpc_cond set = { .arg = 1, .op = SCMPC_OP_MASKED_EQ, .value = 1, .value2 = 1 };
	struct scmpc_cond clr = { .arg = 1, .op = SCMPC_OP_MASKED_EQ, .value = 1, .value2 = 0 };
	rule(p, d, "close", SCMPC_ACT_ALLOW, &set, 1);
	rule(p, d, "close", SCMPC_ACT_ALLOW, &clr, 1);
	scmpc_prog *prog = compile(p, d, 0);
	const char *calls[] = { "read", "write", "close" };
	for (int i = 0; i < 3; i++)
		if (path_loads_args(prog, SCMPC_ARCH_X86_64, nr_of(SCMPC_ARCH_X86_64, calls[i])))
			fail_msg("%s loads an argument", calls[i]);
	assert_int_equal(run(prog, SCMPC_ARCH_X86_64, 0, UINT64_MAX, 0, NULL), SCMPC_ACT_ERRNO(1));
	assert_int_equal(run(prog, SCMPC_ARCH_X86_64, 1, 3, 0, NULL), SCMPC_ACT_ERRNO(1));
	assert_int_equal(scmpc_cache_const_allow(scmpc_prog_insns(prog), scmpc_prog_len(prog),
						 scmpc_arch_audit(SCMPC_ARCH_X86_64), 3, NULL), 1);
	assert_no_argument_load(prog);
	scmpc_prog_free(prog);
	scmpc_policy_free(p);
	scmpc_diag_free(d);
}

/* Tiny policies against a plain jeq chain, counted by hand, and against
 * libseccomp.  On aarch64 the chain is `ld arch; jne; ld nr; jeq` per
 * call, then the default, ALLOW and bad-arch returns: 6 + k.  x86_64 adds
 * the x32 guard (`jge 0x40000000`, and -1 taken apart from it): 8 + k.  A
 * section whose numbers all decide alike loads no number: 4 in all. */
static void test_tiny_policies(void **state)
{
	(void)state;
	const char *names[] = { "read", "write", "close", "openat" };
	struct {
		enum scmpc_arch a, b;	/* b: a second ABI, or NONE */
		size_t nrules;
		size_t chain;
	} cases[] = {
		{ SCMPC_ARCH_AARCH64, SCMPC_ARCH_NONE, 0, 4 },
		{ SCMPC_ARCH_X86_64, SCMPC_ARCH_X32, 0, 4 },
		{ SCMPC_ARCH_X86_64, SCMPC_ARCH_NONE, 0, 7 },
		{ SCMPC_ARCH_AARCH64, SCMPC_ARCH_NONE, 1, 7 },
		{ SCMPC_ARCH_AARCH64, SCMPC_ARCH_NONE, 2, 8 },
		{ SCMPC_ARCH_AARCH64, SCMPC_ARCH_NONE, 3, 9 },
		{ SCMPC_ARCH_X86_64, SCMPC_ARCH_NONE, 1, 9 },
		{ SCMPC_ARCH_X86_64, SCMPC_ARCH_NONE, 2, 10 },
		{ SCMPC_ARCH_X86_64, SCMPC_ARCH_NONE, 3, 11 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		scmpc_diag *d = scmpc_diag_new();
		scmpc_policy *p = policy(d, SCMPC_ACT_ERRNO(1), cases[i].a);
		if (cases[i].b != SCMPC_ARCH_NONE)
			assert_int_equal(scmpc_policy_add_arch(p, cases[i].b, d), 0);
		/* read, write, close (numbers apart on aarch64); openat far off */
		for (size_t k = 0; k < cases[i].nrules; k++)
			rule(p, d, names[k == 2 && cases[i].a == SCMPC_ARCH_X86_64 ? 3 : k],
			     SCMPC_ACT_ALLOW, NULL, 0);
		scmpc_prog *prog = compile(p, d, 0);
		size_t len = scmpc_prog_len(prog), l1, l2;
		if (len > cases[i].chain)
			fail_msg("case %zu: %zu instructions, the jeq chain has %zu", i, len,
				 cases[i].chain);
		if (cases[i].nrules == 0 && cases[i].chain == 4)
			assert_int_equal(loads_of(prog, offsetof(struct seccomp_data, nr)), 0);
		lsc_sizes(p, &l1, &l2);
		if (len > l1 || len > l2)
			fail_msg("case %zu: %zu instructions, libseccomp %zu (L1) %zu (L2)", i, len,
				 l1, l2);
		scmpc_prog_free(prog);
		scmpc_policy_free(p);
		scmpc_diag_free(d);
	}
}

static void test_too_complex(void **state)
{
	(void)state;
	scmpc_diag *d = scmpc_diag_new();
	scmpc_policy *p = policy(d, SCMPC_ACT_ERRNO(1), SCMPC_ARCH_X86_64);
	for (uint64_t i = 1; i <= 1500; i++) {
		struct scmpc_cond c[2] = { { .arg = 0, .op = SCMPC_OP_GE, .value = i * 3 },
					   { .arg = 1, .op = SCMPC_OP_GE, .value = i * 5 } };
		rule(p, d, "ioctl", SCMPC_ACT_ERRNO((uint32_t)(i % 4000) + 2), c, 2);
	}
	scmpc_prog *prog = NULL;
	assert_int_equal(scmpc_compile(p, NULL, &prog, d), -E2BIG);
	assert_null(prog);
	assert_non_null(strstr(scmpc_diag_message(d), "accepts at most 4096"));
	scmpc_policy_free(p);
	scmpc_diag_free(d);
}

/* Fuzzer finding F4: masks straddling both words of an argument, 411 of
 * them on one call of four ABIs.  The tree search for the call outgrows
 * any program; it must give up for the call's plain chain of rules instead
 * of calling the policy too big while the naive program fits (3730). */
static void test_search_gives_up_for_chain(void **state)
{
	(void)state;
	scmpc_diag *d = scmpc_diag_new();
	scmpc_policy *p = policy(d, SCMPC_ACT_ERRNO(1), SCMPC_ARCH_ARM);
	const enum scmpc_arch more[] = { SCMPC_ARCH_X86_64, SCMPC_ARCH_I386, SCMPC_ARCH_X32 };
	for (size_t i = 0; i < 3; i++)
		assert_int_equal(scmpc_policy_add_arch(p, more[i], d), 0);
	uint64_t mask = 0x10000000;
	for (int i = 0; i < 411; i++, mask += 0x80000001ULL) {
		struct scmpc_cond c = { .arg = 2, .op = SCMPC_OP_MASKED_EQ, .value = mask,
					.value2 = 0x90000000 & mask };
		rule(p, d, "getpid", SCMPC_ACT_KILL_PROCESS, &c, 1);
	}
	scmpc_prog *naive = compile(p, d, SCMPC_COMPILE_NAIVE);
	scmpc_prog *opt = compile(p, d, 0);
	assert_true(scmpc_prog_len(opt) <= scmpc_prog_len(naive));
	scmpc_prog_free(opt);
	scmpc_prog_free(naive);
	scmpc_policy_free(p);
	scmpc_diag_free(d);
}

static void test_unconditional_allows_cacheable(void **state)
{
	(void)state;
	scmpc_diag *d = scmpc_diag_new();
	scmpc_policy *p = policy(d, SCMPC_ACT_ERRNO(1), SCMPC_ARCH_X86_64);
	assert_int_equal(scmpc_policy_add_arch(p, SCMPC_ARCH_I386, d), 0);
	const char *names[] = { "read", "write", "close", "mmap", "futex", "getpid", "openat" };
	for (size_t i = 0; i < 7; i++)
		rule(p, d, names[i], SCMPC_ACT_ALLOW, NULL, 0);
	struct scmpc_cond c = { .arg = 0, .op = SCMPC_OP_EQ, .value = 1 };
	rule(p, d, "socket", SCMPC_ACT_ALLOW, &c, 1);
	scmpc_prog *prog = compile(p, d, 0);
	const struct sock_filter *f = scmpc_prog_insns(prog);
	for (size_t i = 0; i < 7; i++) {
		uint32_t stop;
		assert_int_equal(scmpc_cache_const_allow(f, scmpc_prog_len(prog), AUDIT_ARCH_X86_64,
							 nr_of(SCMPC_ARCH_X86_64, names[i]), &stop), 1);
		assert_int_equal(scmpc_cache_const_allow(f, scmpc_prog_len(prog), AUDIT_ARCH_I386,
							 nr_of(SCMPC_ARCH_I386, names[i]), NULL), 1);
	}
	/* Argument-checked and denied calls are not cached. */
	assert_int_equal(scmpc_cache_const_allow(f, scmpc_prog_len(prog), AUDIT_ARCH_X86_64,
						 nr_of(SCMPC_ARCH_X86_64, "socket"), NULL), 0);
	assert_int_equal(scmpc_cache_const_allow(f, scmpc_prog_len(prog), AUDIT_ARCH_X86_64,
						 nr_of(SCMPC_ARCH_X86_64, "kill"), NULL), 0);
	scmpc_prog_free(prog);
	scmpc_policy_free(p);
	scmpc_diag_free(d);
}

static void test_naive_agrees(void **state)
{
	(void)state;
	scmpc_diag *d = scmpc_diag_new();
	scmpc_policy *p = policy(d, SCMPC_ACT_ERRNO(1), SCMPC_ARCH_X86_64);
	assert_int_equal(scmpc_policy_add_arch(p, SCMPC_ARCH_I386, d), 0);
	struct scmpc_cond socket_rules[] = {
		{ .arg = 0, .op = SCMPC_OP_LT, .value = 38 },
		{ .arg = 0, .op = SCMPC_OP_EQ, .value = 39 },
		{ .arg = 0, .op = SCMPC_OP_GT, .value = 40 },
	};
	for (int i = 0; i < 3; i++)
		rule(p, d, "socket", SCMPC_ACT_ALLOW, &socket_rules[i], 1);
	rule(p, d, "read", SCMPC_ACT_ALLOW, NULL, 0);
	scmpc_prog *opt = compile(p, d, 0), *naive = compile(p, d, SCMPC_COMPILE_NAIVE);
	assert_true(scmpc_prog_len(opt) < scmpc_prog_len(naive));
	uint32_t sock = nr_of(SCMPC_ARCH_X86_64, "socket");
	for (uint64_t x = 0; x < 64; x++) {
		uint64_t v[] = { x, x | (1ULL << 32) };
		for (int k = 0; k < 2; k++) {
			bool allow = v[k] < 38 || v[k] == 39 || v[k] > 40;
			uint32_t want = allow ? SCMPC_ACT_ALLOW : SCMPC_ACT_ERRNO(1);
			assert_int_equal(run(opt, SCMPC_ARCH_X86_64, sock, v[k], 0, NULL), want);
			assert_int_equal(run(naive, SCMPC_ARCH_X86_64, sock, v[k], 0, NULL), want);
		}
	}
	scmpc_prog_free(opt);
	scmpc_prog_free(naive);
	scmpc_policy_free(p);
	scmpc_diag_free(d);
}

/* The semantic check must notice any single broken branch: swap the
 * targets of a conditional, move a tested value by one, drop a mask bit or
 * change a return, and the verifier has to name a call the program now
 * gets wrong. */
static void test_verifier_catches_mutants(void **state)
{
	(void)state;
	scmpc_diag *d = scmpc_diag_new();
	scmpc_policy *p = policy(d, SCMPC_ACT_ERRNO(1), SCMPC_ARCH_X86_64);
	assert_int_equal(scmpc_policy_add_arch(p, SCMPC_ARCH_I386, d), 0);
	const char *names[] = { "read", "write", "close", "mmap", "futex", "getpid", "openat",
				"exit_group", "brk", "rt_sigreturn" };
	for (size_t i = 0; i < 10; i++)
		rule(p, d, names[i], SCMPC_ACT_ALLOW, NULL, 0);
	struct scmpc_cond sock[] = { { .arg = 0, .op = SCMPC_OP_LT, .value = 38 },
				     { .arg = 0, .op = SCMPC_OP_EQ, .value = 39 },
				     { .arg = 0, .op = SCMPC_OP_GT, .value = 40 } };
	for (int i = 0; i < 3; i++)
		rule(p, d, "socket", SCMPC_ACT_ALLOW, &sock[i], 1);
	uint64_t pers[] = { 0, 8, 0x20000, 0x20008, 0xffffffff };
	for (int i = 0; i < 5; i++) {
		struct scmpc_cond c = { .arg = 0, .op = SCMPC_OP_EQ, .value = pers[i] };
		rule(p, d, "personality", SCMPC_ACT_ALLOW, &c, 1);
	}
	struct scmpc_cond clone = { .arg = 0, .op = SCMPC_OP_MASKED_EQ, .value = 0x7e020000 };
	rule(p, d, "clone", SCMPC_ACT_ALLOW, &clone, 1);
	struct scmpc_cond fl = { .arg = 1, .op = SCMPC_OP_MASKED_EQ, .value = 0xf0f0, .value2 = 0x1010 };
	rule(p, d, "fcntl", SCMPC_ACT_TRAP, &fl, 1);
	rule(p, d, "clone3", SCMPC_ACT_ERRNO(38), NULL, 0);

	scmpc_prog *prog = compile(p, d, 0);
	size_t len = scmpc_prog_len(prog);
	struct sock_filter *m = malloc(len * sizeof(*m));
	assert_non_null(m);
	unsigned mutants = 0;
	for (size_t i = 0; i < len; i++) {
		const struct sock_filter *f = scmpc_prog_insns(prog);
		if (BPF_CLASS(f[i].code) == BPF_JMP && BPF_OP(f[i].code) != BPF_JA) {
			memcpy(m, f, len * sizeof(*m));
			m[i].jt = f[i].jf;
			m[i].jf = f[i].jt;
			if (scmpc_verify_policy(p, m, len, d) != -EPROTO)
				fail_msg("swapped branches of insn %zu not caught", i);
			mutants++;
			/* A split's constant may move without changing anything when
			 * the value it moves across decides alike on both sides; a
			 * tested value or mask bit never can. */
			if (BPF_OP(f[i].code) != BPF_JEQ && BPF_OP(f[i].code) != BPF_JSET)
				continue;
			for (int delta = -1; delta <= 1; delta += 2) {
				memcpy(m, f, len * sizeof(*m));
				m[i].k = f[i].k + (uint32_t)delta;
				if (BPF_OP(f[i].code) == BPF_JSET)
					m[i].k = f[i].k ^ (f[i].k & -f[i].k);	/* drop its lowest bit */
				if (scmpc_verify_policy(p, m, len, d) != -EPROTO)
					fail_msg("constant of insn %zu moved by %d not caught", i, delta);
				mutants++;
			}
		}
		if (f[i].code == (BPF_RET | BPF_K)) {
			memcpy(m, f, len * sizeof(*m));
			m[i].k = f[i].k == SCMPC_ACT_ALLOW ? SCMPC_ACT_LOG : SCMPC_ACT_ALLOW;
			if (scmpc_verify_policy(p, m, len, d) != -EPROTO)
				fail_msg("return %zu changed not caught", i);
			mutants++;
		}
	}
	assert_true(mutants > 50);
	/* And the message names the call: */
	assert_non_null(strstr(scmpc_diag_message(d), "the policy says"));
	free(m);
	scmpc_prog_free(prog);
	scmpc_policy_free(p);
	scmpc_diag_free(d);
}

/* Steps and result of INSNS on SD, counted by this loop alone (loads of
 * seccomp_data words, `and`, conditional jumps, `ja` and returns: all the
 * two compilers emit here) so that both programs' paths are measured
 * alike and apart from the emulator under test. */
/* The 32-bit word at offset K of SD as an x86_64 (little-endian) kernel
 * lays seccomp_data out, whatever the host's byte order: these policies
 * are all x86_64's, and the tests also run on big-endian hosts. */
static uint32_t x86_word(const struct seccomp_data *sd, uint32_t k)
{
	uint64_t v;
	switch (k) {
	case 0: return (uint32_t)sd->nr;
	case 4: return sd->arch;
	default:
		v = k < 16 ? sd->instruction_pointer : sd->args[(k - 16) / 8];
		return (uint32_t)(k % 8 ? v >> 32 : v);
	}
}

static unsigned raw_steps(const struct sock_filter *f, size_t len, const struct seccomp_data *sd,
			  uint32_t *ret)
{
	uint32_t a = 0;
	unsigned steps = 0;
	for (size_t pc = 0; pc < len;) {
		const struct sock_filter *x = &f[pc++];
		steps++;
		switch (BPF_CLASS(x->code)) {
		case BPF_LD:
			assert_int_equal(x->code, BPF_LD | BPF_W | BPF_ABS);
			assert_true(x->k % 4 == 0 && x->k < sizeof(*sd));
			a = x86_word(sd, x->k);
			break;
		case BPF_ALU:
			assert_int_equal(x->code, BPF_ALU | BPF_AND | BPF_K);
			a &= x->k;
			break;
		case BPF_JMP: {
			bool t;
			switch (BPF_OP(x->code)) {
			case BPF_JA: pc += x->k; continue;
			case BPF_JEQ: t = a == x->k; break;
			case BPF_JGT: t = a > x->k; break;
			case BPF_JGE: t = a >= x->k; break;
			case BPF_JSET: t = (a & x->k) != 0; break;
			default: fail_msg("jump %#x", x->code); return 0;
			}
			pc += t ? x->jt : x->jf;
			break;
		}
		case BPF_RET:
			*ret = x->k;
			return steps;
		default:
			fail_msg("instruction %#x", x->code);
		}
	}
	fail_msg("ran off the end");
	return 0;
}

struct probe_set {
	struct seccomp_data *sd;
	size_t n, cap;
};

static void probe_add(struct probe_set *ps, uint32_t nr, int arg, uint64_t v)
{
	if (ps->n == ps->cap) {
		ps->cap = ps->cap ? 2 * ps->cap : 256;
		ps->sd = realloc(ps->sd, ps->cap * sizeof(*ps->sd));
		assert_non_null(ps->sd);
	}
	struct seccomp_data sd = { .nr = (int)nr, .arch = AUDIT_ARCH_X86_64 };
	sd.args[arg] = v;
	ps->sd[ps->n++] = sd;
}

/* Both compilers' programs for P: scmpc's decides as WANT says on every
 * probe, is no larger than libseccomp's level 1 and level 2 programs,
 * and executes no more instructions on any probe than level 2's longest. */
static void within_libseccomp(scmpc_policy *p, const struct probe_set *ps,
			      uint32_t (*want)(const struct seccomp_data *), const char *what)
{
	scmpc_diag *d = scmpc_diag_new();
	scmpc_prog *prog = compile(p, d, 0);
	struct sock_filter *l2 = NULL;
	size_t l1len, l2len, len = scmpc_prog_len(prog);
	char err[256];
	lsc_sizes(p, &l1len, &l2len);
	if (lsc_compile(p, 2, &l2, &l2len, err, sizeof(err)) < 0)
		fail_msg("libseccomp L2: %s", err);
	unsigned worst = 0, l2worst = 0;
	for (size_t i = 0; i < ps->n; i++) {
		uint32_t r, r2;
		unsigned st = raw_steps(scmpc_prog_insns(prog), len, &ps->sd[i], &r);
		unsigned st2 = raw_steps(l2, l2len, &ps->sd[i], &r2);
		if (r != want(&ps->sd[i]))
			fail_msg("%s: probe %zu gives %#x", what, i, r);
		worst = st > worst ? st : worst;
		l2worst = st2 > l2worst ? st2 : l2worst;
	}
	print_message("%s: %zu instructions (L1 %zu, L2 %zu), worst path %u (L2 %u)\n", what, len,
		      l1len, l2len, worst, l2worst);
	assert_true(len <= l1len && len <= l2len);
	assert_true(worst <= l2worst);
	free(l2);
	scmpc_prog_free(prog);
	scmpc_diag_free(d);
}

static uint32_t growth_want(const struct seccomp_data *sd)
{
	uint64_t v = sd->args[0], base = (uint64_t)sd->nr << 16;
	for (uint64_t j = 0; j < 4; j++)
		if (v == base + 3 * j + 1)
			return SCMPC_ACT_ALLOW;
	return SCMPC_ACT_ERRNO(1);
}

static unsigned wide_n, wide_his;

static uint64_t wide_value(unsigned i)
{
	return ((uint64_t)(wide_his == 1 ? 7 : 4 + i % wide_his) << 32) | (0x5400 + i * 3);
}

static uint32_t wide_want(const struct seccomp_data *sd)
{
	if (sd->nr != 16)	/* ioctl */
		return SCMPC_ACT_ERRNO(1);
	for (unsigned i = 0; i < wide_n; i++)
		if (sd->args[1] == wide_value(i))
			return SCMPC_ACT_ALLOW;
	return SCMPC_ACT_ERRNO(1);
}

/* Where the path-first layout is larger than libseccomp's chains (a few
 * values on each of hundreds of calls, sets of 64-bit values on one
 * call), the program is laid out for size, and stays within level 2's
 * path.  The policies are the bench's growth row R = 4 and the value sets
 * of test_wide_high_word_shared() at 16 and 64 values. */
static void test_lean_sets_within_libseccomp(void **state)
{
	(void)state;
	scmpc_diag *d = scmpc_diag_new();
	scmpc_policy *p = policy(d, SCMPC_ACT_ERRNO(1), SCMPC_ARCH_X86_64);
	struct probe_set ps = { 0 };
	unsigned made = 0;
	for (uint32_t nr = 0; made < 300 && nr < 1024; nr++) {
		char name[64];
		if (!scmpc_syscall_name(SCMPC_ARCH_X86_64, nr, name, sizeof(name)))
			continue;
		for (uint64_t j = 0; j < 4; j++) {
			uint64_t v = ((uint64_t)nr << 16) + 3 * j + 1;
			struct scmpc_cond c = { .arg = 0, .op = SCMPC_OP_EQ, .value = v };
			rule(p, d, name, SCMPC_ACT_ALLOW, &c, 1);
			probe_add(&ps, nr, 0, v);
			probe_add(&ps, nr, 0, v + 1);
			probe_add(&ps, nr, 0, v | 1ULL << 32);
		}
		probe_add(&ps, nr, 0, 0);
		made++;
	}
	/* Level 1's jeq chain over the numbers needs no `ja`, where the
	 * number search needs some to reach across the program; the low word
	 * first, with the high word's test one tail for every call, more than
	 * makes up for them. */
	within_libseccomp(p, &ps, growth_want, "300 calls x 4 values");
	scmpc_policy_free(p);

	for (unsigned n = 16; n <= 64; n *= 4) {
		for (wide_his = 1; wide_his <= 4; wide_his += 3) {
			char what[64];
			wide_n = n;
			ps.n = 0;
			p = policy(d, SCMPC_ACT_ERRNO(1), SCMPC_ARCH_X86_64);
			for (unsigned i = 0; i < n; i++) {
				uint64_t v = wide_value(i);
				struct scmpc_cond c = { .arg = 1, .op = SCMPC_OP_EQ, .value = v };
				rule(p, d, "ioctl", SCMPC_ACT_ALLOW, &c, 1);
				probe_add(&ps, 16, 1, v);
				probe_add(&ps, 16, 1, v + 1);
				probe_add(&ps, 16, 1, v ^ (8ULL << 32));
				probe_add(&ps, 16, 1, (uint32_t)v);
			}
			probe_add(&ps, 16, 1, UINT64_MAX);
			probe_add(&ps, 15, 1, wide_value(0));
			snprintf(what, sizeof(what), "%u 64-bit values, %u high word%s", n, wide_his,
				 wide_his > 1 ? "s" : "");
			within_libseccomp(p, &ps, wide_want, what);
			scmpc_policy_free(p);
		}
	}
	free(ps.sd);
	scmpc_diag_free(d);
}

/* The caller's choice between size and path, on 2,000 values of one
 * call's argument.  By default the program is no larger than libseccomp's
 * level 1 and level 2 (a chain, as theirs are); SCMPC_COMPILE_SHORTEST
 * keeps the search, about two compares per halving of the 4,001 ranges of
 * the low word; SCMPC_COMPILE_SMALLEST is no larger than the default.
 * Both at once, or a flag this version does not know, are refused. */
static void test_size_or_path(void **state)
{
	(void)state;
	scmpc_diag *d = scmpc_diag_new();
	scmpc_policy *p = policy(d, SCMPC_ACT_ERRNO(1), SCMPC_ARCH_X86_64);
	for (uint64_t i = 0; i < 2000; i++) {
		struct scmpc_cond c = { .arg = 0, .op = SCMPC_OP_EQ, .value = 3 + 3 * i };
		rule(p, d, "ioctl", SCMPC_ACT_ALLOW, &c, 1);
	}
	static const unsigned flags[] = { 0, SCMPC_COMPILE_SHORTEST, SCMPC_COMPILE_SMALLEST };
	scmpc_prog *prog[3];
	unsigned worst[3] = { 0, 0, 0 };
	uint32_t ioctl = nr_of(SCMPC_ARCH_X86_64, "ioctl");
	for (int k = 0; k < 3; k++) {
		prog[k] = compile(p, d, flags[k]);
		for (uint64_t v = 0; v < 6010; v++) {
			for (int hi = 0; hi < 2; hi++) {
				uint64_t x = v | (uint64_t)hi << 32;
				bool in = !hi && v >= 3 && v <= 6000 && v % 3 == 0;
				unsigned st = 0;
				assert_int_equal(run(prog[k], SCMPC_ARCH_X86_64, ioctl, x, 0, &st),
						 in ? SCMPC_ACT_ALLOW : SCMPC_ACT_ERRNO(1));
				worst[k] = st > worst[k] ? st : worst[k];
			}
		}
	}
	size_t l1, l2, len[3];
	lsc_sizes(p, &l1, &l2);
	for (int k = 0; k < 3; k++)
		len[k] = scmpc_prog_len(prog[k]);
	print_message("default %zu instructions, worst path %u; shortest %zu, %u; smallest %zu, "
		      "%u; libseccomp L1 %zu, L2 %zu\n", len[0], worst[0], len[1], worst[1], len[2],
		      worst[2], l1, l2);
	assert_true(len[0] <= l1 && len[0] <= l2);
	assert_true(len[2] <= len[0]);
	/* arch, nr, x32 edge, the call, the high word: a handful; 4,001
	 * ranges of the low word: 12 halvings, each at most two compares */
	assert_true(worst[1] <= 10 + 2 * 12 + 1);
	assert_true(worst[1] < worst[0]);

	scmpc_prog *none = NULL;
	SCMPC_OPTS(scmpc_compile_opts, both, .flags = SCMPC_COMPILE_SHORTEST | SCMPC_COMPILE_SMALLEST);
	assert_int_equal(scmpc_compile(p, &both, &none, d), -EINVAL);
	SCMPC_OPTS(scmpc_compile_opts, unknown, .flags = 0x100);
	assert_int_equal(scmpc_compile(p, &unknown, &none, d), -EINVAL);
	assert_null(none);
	for (int k = 0; k < 3; k++)
		scmpc_prog_free(prog[k]);
	scmpc_policy_free(p);
	scmpc_diag_free(d);
}

/* The steps of profile NAME's program on ABI A for clone(0), its
 * argument-checked call, and its size and worst path over the
 * argument-free numbers 0..1023; false when the profile is not installed. */
static bool clone_path(const char *name, enum scmpc_arch a, unsigned *clone, size_t *len,
		       unsigned *free_worst)
{
	scmpc_diag *d = scmpc_diag_new();
	scmpc_policy *p = testutil_policy(name, a);
	if (!p) {
		print_message("%s not installed: its part skipped\n", name);
		scmpc_diag_free(d);
		return false;
	}
	scmpc_prog *prog = compile(p, d, 0);
	uint32_t nr_clone = nr_of(a, "clone");
	assert_int_equal(run(prog, a, nr_clone, 0, 0, clone), SCMPC_ACT_ALLOW);
	*len = scmpc_prog_len(prog);
	*free_worst = 0;
	for (uint32_t nr = 0; nr < 1024; nr++) {
		unsigned st = 0;
		if (nr != nr_clone && nr != nr_of(a, "personality"))
			run(prog, a, nr, 0, 0, &st);
		*free_worst = st > *free_worst ? st : *free_worst;
	}
	print_message("%s on %s: %zu instructions, clone %u steps, argument-free worst %u\n", name,
		      scmpc_arch_name(a), *len, *clone, *free_worst);
	scmpc_prog_free(prog);
	scmpc_policy_free(p);
	scmpc_diag_free(d);
	return true;
}

/* An argument-checked call runs the filter on every call where the
 * kernel's action cache serves the argument-free allows, so the number
 * search reaches it sooner when that costs no instruction and no longer
 * worst path (argfirst.c).  Docker's example profile on aarch64: the
 * search alone tested clone third (8 steps), now first, as gVisor's
 * compiler does (7); Docker's default on x86_64: clone 11 steps, now 10.
 * Sizes and argument-free worst paths are those of before (golden). */
static void test_checked_call_first(void **state)
{
	(void)state;
	unsigned clone, free_worst;
	size_t len;
	if (clone_path("docker-example.json", SCMPC_ARCH_AARCH64, &clone, &len, &free_worst)) {
		assert_true(clone <= 7);
		assert_true(len <= 12 && free_worst <= 7);
	}
	if (clone_path("docker-default.json", SCMPC_ARCH_X86_64, &clone, &len, &free_worst)) {
		assert_true(clone <= 10);
		assert_true(len <= 231 && free_worst <= 10);
	}
}

/* Where the number search saves more than the argument checks could,
 * nothing is traded: Docker's profile keeps the size and personality's
 * path of the last release (231 instructions, 14 steps, as bench_compare
 * printed them), and a set of 16 ioctl values in a profile of 250 plain
 * calls stays a search (a chain layout would need a jeq per call, far
 * more than the search's few extra compares), which tests with jge
 * within the set's span. */
static void test_lean_is_kept_from_profiles(void **state)
{
	(void)state;
	scmpc_diag *d = scmpc_diag_new();
	scmpc_policy *p = testutil_policy("docker-default.json", SCMPC_ARCH_X86_64);
	if (p) {
		scmpc_prog *prog = compile(p, d, 0);
		uint32_t pers = nr_of(SCMPC_ARCH_X86_64, "personality");
		const uint64_t xs[] = { 0, 8, 0x20000, 0x20008, 0xffffffff, 1, 9, 0x20001,
					0x100000000ULL, UINT64_MAX };
		unsigned worst = 0;
		for (size_t i = 0; i < sizeof(xs) / sizeof(xs[0]); i++) {
			unsigned steps;
			bool allowed = i < 5;
			uint32_t r = run(prog, SCMPC_ARCH_X86_64, pers, xs[i], 0, &steps);
			assert_true(allowed ? r == SCMPC_ACT_ALLOW : r != SCMPC_ACT_ALLOW);
			worst = steps > worst ? steps : worst;
		}
		assert_true(scmpc_prog_len(prog) <= 231);
		assert_true(worst <= 14);
		scmpc_prog_free(prog);
		scmpc_policy_free(p);
	} else {
		print_message("docker-default.json not installed: its part skipped\n");
	}

	p = policy(d, SCMPC_ACT_ERRNO(1), SCMPC_ARCH_X86_64);
	unsigned plain = 0;
	for (uint32_t nr = 0; plain < 250 && nr < 1024; nr++) {
		char name[64];
		if (nr != 16 && scmpc_syscall_name(SCMPC_ARCH_X86_64, nr, name, sizeof(name))) {
			rule(p, d, name, SCMPC_ACT_ALLOW, NULL, 0);
			plain++;
		}
	}
	for (int i = 0; i < 16; i++) {
		struct scmpc_cond c = { .arg = 1, .op = SCMPC_OP_EQ, .value = 0x5400 + i * 3,
					.flags = SCMPC_COND_32BIT };
		rule(p, d, "ioctl", SCMPC_ACT_ALLOW, &c, 1);
	}
	scmpc_prog *prog = compile(p, d, 0);
	const struct sock_filter *f = scmpc_prog_insns(prog);
	unsigned in_span = 0;
	for (size_t i = 0; i < scmpc_prog_len(prog); i++)
		in_span += f[i].code == (BPF_JMP | BPF_JGE | BPF_K) && f[i].k > 0x5400 &&
			   f[i].k <= 0x5400 + 15 * 3;
	assert_true(in_span > 0);
	for (uint64_t x = 0x53ff; x <= 0x5400 + 16 * 3; x++)
		assert_int_equal(run(prog, SCMPC_ARCH_X86_64, 16, 0, x, NULL),
				 x >= 0x5400 && x < 0x5400 + 16 * 3 && (x - 0x5400) % 3 == 0
					 ? SCMPC_ACT_ALLOW
								      : SCMPC_ACT_ERRNO(1));
	scmpc_prog_free(prog);
	scmpc_policy_free(p);
	scmpc_diag_free(d);
}


/*
 * Without a budget, the argfirst lowering starts from the path-first
 * lowering's DAG and number trees (lower_argfirst(), size.c's struct
 * kept); with one, every lowering is made afresh, as it was before.  A
 * budget no lowering can spend stands for none, so both must give the
 * same program, on the families the benchmark measures (the VMM-like one
 * takes argfirst.c's tree) and the packaged profiles on three ABIs.
 */
static void same_with_budget(scmpc_policy *p, const char *what, unsigned *compared)
{
	if (!p)
		return;
	scmpc_diag *d = scmpc_diag_new();
	scmpc_prog *kept = NULL, *fresh = NULL;
	struct compile_budget budget = { .left = UINT64_MAX };
	int rk = compile_policy(p, NULL, &kept, NULL, NULL, d);
	int rf = compile_policy(p, NULL, &fresh, NULL, &budget, d);
	assert_int_equal(rk, rf);
	if (rk == 0 && (scmpc_prog_len(kept) != scmpc_prog_len(fresh) ||
			memcmp(scmpc_prog_insns(kept), scmpc_prog_insns(fresh),
			       scmpc_prog_len(kept) * sizeof(struct sock_filter))))
		fail_msg("%s: %zu instructions from the kept lowering, %zu afresh", what,
			 scmpc_prog_len(kept), scmpc_prog_len(fresh));
	*compared += rk == 0;
	scmpc_prog_free(kept);
	scmpc_prog_free(fresh);
	scmpc_policy_free(p);
	scmpc_diag_free(d);
}

static void test_argfirst_kept_matches_fresh(void **state)
{
	(void)state;
	unsigned compared = 0;
	same_with_budget(family_vmm(), "VMM-like", &compared);
	same_with_budget(family_wide_sets(false), "wide sets", &compared);
	same_with_budget(family_two_rule_64(), "two rules", &compared);
	same_with_budget(family_allowlist(91), "allowlist", &compared);
	same_with_budget(family_synthetic(300, 2), "synthetic", &compared);
	for (unsigned k = 0; k < 3; k++)
		for (unsigned seed = 0; seed < 4; seed++)
			same_with_budget(family_firecracker(k, seed == 3 ? 0 : seed, seed == 3),
					 "Firecracker-shaped", &compared);
	static const enum scmpc_arch abis[] = { SCMPC_ARCH_X86_64, SCMPC_ARCH_AARCH64,
						SCMPC_ARCH_I386 };
	for (size_t i = 0; testutil_profile_names[i]; i++)
		for (size_t a = 0; a < ARRAY_SIZE(abis); a++)
			same_with_budget(testutil_policy(testutil_profile_names[i], abis[a]),
					 testutil_profile_names[i], &compared);
	assert_true(compared >= 17);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_operators_64),
		cmocka_unit_test(test_tautologies_cacheable),
		cmocka_unit_test(test_argument_free_decisions_fold),
		cmocka_unit_test(test_masks_fold_with_ranges),
		cmocka_unit_test(test_wide_high_word_shared),
		cmocka_unit_test(test_tiny_policies),
		cmocka_unit_test(test_compiler_bound_named),
		cmocka_unit_test(test_minus_one_rules),
		cmocka_unit_test(test_operators_32),
		cmocka_unit_test(test_masked_eq),
		cmocka_unit_test(test_tautological_halves_dropped),
		cmocka_unit_test(test_value_set_is_a_search),
		cmocka_unit_test(test_ranges_merged),
		cmocka_unit_test(test_precedence_and_determinism),
		cmocka_unit_test(test_every_arch),
		cmocka_unit_test(test_x32_bit),
		cmocka_unit_test(test_unknown_numbers),
		cmocka_unit_test(test_jump_overflow),
		cmocka_unit_test(test_too_big),
		cmocka_unit_test(test_too_complex),
		cmocka_unit_test(test_search_gives_up_for_chain),
		cmocka_unit_test(test_compact_fallback),
		cmocka_unit_test(test_unconditional_allows_cacheable),
		cmocka_unit_test(test_naive_agrees),
		cmocka_unit_test(test_verifier_catches_mutants),
		cmocka_unit_test(test_lean_sets_within_libseccomp),
		cmocka_unit_test(test_size_or_path),
		cmocka_unit_test(test_checked_call_first),
		cmocka_unit_test(test_argfirst_kept_matches_fresh),
		cmocka_unit_test(test_lean_is_kept_from_profiles),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
