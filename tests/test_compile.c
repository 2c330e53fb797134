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
#include "oracle.h"
#include "scmpc.h"

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
	/* 129 ranges of arg1: a search is 8 deep; with the header, the number
	 * tree and one load that stays well under 20. */
	assert_true(worst <= 16);
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
	/* no instruction of the program reads an argument */
	for (size_t i = 0; i < scmpc_prog_len(prog); i++) {
		const struct sock_filter *f = &scmpc_prog_insns(prog)[i];
		if (BPF_CLASS(f->code) == BPF_LD)
			assert_true(f->k < offsetof(struct seccomp_data, args));
	}
	scmpc_prog_free(prog);
	scmpc_policy_free(p);
	scmpc_diag_free(d);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_operators_64),
		cmocka_unit_test(test_tautologies_cacheable),
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
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
