/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Lifting (scmpc_lift) and stack merging (scmpc_merge_stack), each held
 * against the programs themselves: every lifted policy must decide as the
 * program (the stack, run filter by filter as seccomp_run_filters() does)
 * on every probe, and so must its recompiled program.  Probes: every
 * AUDIT_ARCH scmpc knows and two it does not; numbers 0-600 (from each
 * ABI's base), every constant the programs compare and its neighbours, the
 * edges (bit 30, the sign bit, -1, ARM's private calls); arguments made of
 * those constants, their neighbours and high-word variants, and random.
 *
 * Sources of programs: hand-written ones (ALU, scratch memory, X, RET A,
 * and each refusal with its instruction), scmpc's compiles of the packaged
 * profiles and of random policies, and libseccomp's (level 1 and 2) of
 * Docker's profile and of random policies.  Set SCMPC_LIFT_ITER to scale
 * the random runs and SCMPC_LIFT_SEED to replay one.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <linux/audit.h>
#include "internal.h"
#include "lsc_ref.h"
#include "testutil.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define LD(k) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (k))
#define RET(k) BPF_STMT(BPF_RET | BPF_K, (k))
#define JEQ(k, t, f) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (k), (t), (f))
#define JGT(k, t, f) BPF_JUMP(BPF_JMP | BPF_JGT | BPF_K, (k), (t), (f))
#define JGE(k, t, f) BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, (k), (t), (f))
#define JSET(k, t, f) BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, (k), (t), (f))
#define ALU(op, k) BPF_STMT(BPF_ALU | (op) | BPF_K, (k))
#define ALLOW SCMPC_ACT_ALLOW
#define EPERM_ SCMPC_ACT_ERRNO(1)
#define KILL SCMPC_ACT_KILL_PROCESS
#define X86_64 AUDIT_ARCH_X86_64
#define OFF_NR 0
#define OFF_ARCH 4
#define OFF_IP 8
/* seccomp_data offsets of argument I's halves on a little-endian ABI */
#define ARG_LO(i) (16 + 8 * (i))
#define ARG_HI(i) (20 + 8 * (i))

static unsigned iters(unsigned dflt)
{
	const char *e = getenv("SCMPC_LIFT_ITER");
	return e && *e ? (unsigned)strtoul(e, NULL, 0) : dflt;
}

static uint64_t seed(void)
{
	const char *e = getenv("SCMPC_LIFT_SEED");
	return e && *e ? strtoull(e, NULL, 0) : 0x5eed11f7ULL;
}

/* Run I of a suite seeded S0: far from run I of S0 + 1. */
static uint64_t run_seed(uint64_t s0, unsigned i)
{
	uint64_t z = s0 * 0x9e3779b97f4a7c15ULL + i;
	z = (z ^ (z >> 31)) * 0xbf58476d1ce4e5b9ULL;
	return z ^ (z >> 29);
}

/* ---------------------------------------------------------------- probes */

struct pool {
	uint32_t *v;
	size_t n, cap;
};

static void pool_add(struct pool *p, uint32_t x)
{
	if (p->n == p->cap) {
		p->cap = p->cap ? 2 * p->cap : 256;
		p->v = realloc(p->v, p->cap * sizeof(*p->v));
		assert_non_null(p->v);
	}
	p->v[p->n++] = x;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

/* Every constant a program compares or computes with, and its neighbours. */
static void pool_from_prog(struct pool *p, const struct sock_filter *f, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		uint16_t c = f[i].code;
		if (BPF_CLASS(c) == BPF_RET || c == (BPF_LD | BPF_W | BPF_ABS) ||
		    c == (BPF_JMP | BPF_JA))
			continue;
		uint32_t k = f[i].k;
		pool_add(p, k);
		pool_add(p, k + 1);
		pool_add(p, k - 1);
		pool_add(p, ~k);
	}
}

static void pool_finish(struct pool *p)
{
	static const uint32_t edges[] = { 0, 1, 2, 0x3fffffffU, 0x40000000U, 0x7fffffffU,
					  0x80000000U, 0xbfffffffU, 0xc0000000U, 0xfffffffeU,
					  0xffffffffU, 0x0f0000U, 0x0f0001U, 0x0f07ffU, 0x0f0800U };
	for (size_t i = 0; i < N(edges); i++)
		pool_add(p, edges[i]);
	qsort(p->v, p->n, sizeof(*p->v), cmp_u32);
	size_t u = 0;
	for (size_t i = 0; i < p->n; i++)
		if (!u || p->v[i] != p->v[u - 1])
			p->v[u++] = p->v[i];
	p->n = u;
}

/* The programs under test: one filter (raw return), or a stack. */
struct stk {
	const struct sock_filter *const *progs;
	const size_t *lens;
	size_t n;
	bool stack;
};

/* The kernel's answer: each filter, newest first; a strictly lower action
 * replaces the result. */
static uint32_t stk_run(const struct stk *s, const struct seccomp_data *sd)
{
	uint32_t acc = SCMPC_ACT_ALLOW;
	for (size_t i = s->n; i-- > 0;) {
		uint32_t r;
		assert_int_equal(scmpc_emulate(s->progs[i], s->lens[i], sd, &r, NULL), 0);
		if (!s->stack)
			return r;
		if ((int32_t)(r & 0xffff0000U) < (int32_t)(acc & 0xffff0000U))
			acc = r;
	}
	return acc;
}

static uint64_t rand_arg(struct testutil_rng *r, const struct pool *p)
{
	uint32_t lo, hi;
	switch (testutil_rng_below(r, 6)) {
	case 0: lo = 0; break;
	case 1: lo = (uint32_t)testutil_rng_next(r); break;
	default: lo = p->v[testutil_rng_below(r, (uint32_t)p->n)]; break;
	}
	switch (testutil_rng_below(r, 6)) {
	case 0: hi = (lo & 0x80000000U) ? 0xffffffffU : 0; break;
	case 1: hi = 0xffffffffU; break;
	case 2: hi = p->v[testutil_rng_below(r, (uint32_t)p->n)]; break;
	case 3: hi = (uint32_t)testutil_rng_next(r); break;
	default: hi = 0; break;
	}
	return ((uint64_t)hi << 32) | lo;
}

struct cmp_stats {
	unsigned long probes;
	unsigned long mismatches;
};

/*
 * Probe S against the lifted policy P (decided from its rules) and its
 * compiled program RE: all three must agree.  VECS random argument vectors
 * per number, more on the numbers the programs compare with.
 */
static void compare(const struct stk *s, const scmpc_policy *p, const struct sock_filter *re,
		    size_t relen, struct testutil_rng *r, unsigned vecs, const char *label,
		    struct cmp_stats *st)
{
	struct pool pool = { 0 };
	for (size_t i = 0; i < s->n; i++)
		pool_from_prog(&pool, s->progs[i], s->lens[i]);
	pool_finish(&pool);
	struct arch_view views[SCMPC_ARCH_COUNT];
	assert_int_equal(policy_views_init(p, views, NULL), 0);

	uint32_t audits[SCMPC_ARCH_COUNT + 2];
	size_t na = 0;
	for (int a = 1; a <= SCMPC_ARCH_COUNT; a++) {
		uint32_t v = scmpc_arch_audit((enum scmpc_arch)a);
		bool dup = false;
		for (size_t i = 0; i < na; i++)
			dup |= audits[i] == v;
		if (!dup)
			audits[na++] = v;
	}
	audits[na++] = 0;
	audits[na++] = 0x12345678U;
	for (size_t ai = 0; ai < na; ai++) {
		uint32_t audit = audits[ai];
		enum scmpc_arch abi = arch_of_call(audit, 0);
		struct pool nrs = { 0 };
		uint32_t base = abi ? arch_info(abi)->nr_base : 0;
		for (uint32_t nr = 0; nr <= 600; nr++) {
			pool_add(&nrs, nr);
			if (base)
				pool_add(&nrs, base + nr);
			if (abi == SCMPC_ARCH_X86_64)
				pool_add(&nrs, X32_SYSCALL_BIT + nr);
		}
		for (size_t i = 0; i < pool.n; i++)
			pool_add(&nrs, pool.v[i]);
		pool_finish(&nrs);
		bool named_audit = false;
		for (size_t i = 0; i < scmpc_policy_arch_count(p); i++)
			named_audit |= scmpc_arch_audit(scmpc_policy_arch(p, i)) == audit;
		for (size_t ni = 0; ni < nrs.n; ni++) {
			uint32_t nr = nrs.v[ni];
			bool compared = bsearch(&nr, pool.v, pool.n, sizeof(nr), cmp_u32) != NULL;
			unsigned nv = named_audit && compared ? vecs * 4 : vecs;
			for (unsigned k = 0; k <= nv; k++) {
				uint64_t args[6] = { 0 };
				if (k)
					for (int a = 0; a < 6; a++)
						args[a] = testutil_rng_below(r, 3) ? rand_arg(r, &pool) : 0;
				struct seccomp_data sd = testutil_sd_audit(audit, nr, args);
				if (testutil_rng_below(r, 8) == 0)
					sd.instruction_pointer = testutil_rng_next(r);
				uint32_t want = stk_run(s, &sd);
				uint32_t got = policy_decide(p, views, &sd, NULL);
				uint32_t rec = got;
				if (re)
					assert_int_equal(scmpc_emulate(re, relen, &sd, &rec, NULL), 0);
				st->probes++;
				if (want == got && got == rec)
					continue;
				if (st->mismatches++ < 5) {
					fprintf(stderr, "%s: MISMATCH ", label);
					testutil_sd_dump(stderr, &sd);
					fprintf(stderr, ": program %s, lifted policy %s, recompiled %s\n",
						testutil_act(want), testutil_act(got), testutil_act(rec));
				}
			}
		}
		free(nrs.v);
	}
	policy_views_fini(p, views, scmpc_policy_arch_count(p));
	free(pool.v);
}

struct rt {
	unsigned lifted, refused;
	unsigned too_big;		/* lifted right, but recompiled past the kernel's limit */
	size_t orig_len, re_len;	/* of the last one */
	struct cmp_stats cmp;
};

/* Lift S (or merge it), recompile, and compare.  Returns 0, or the
 * negative errno of a refusal (counted; a failure when MUST). */
static int roundtrip(const struct stk *s, const struct scmpc_lift_opts *o, struct testutil_rng *r,
		     unsigned vecs, const char *label, bool must, struct rt *st)
{
	scmpc_diag *d = scmpc_diag_new();
	scmpc_policy *p = NULL;
	int rc = s->stack ? scmpc_merge_stack(s->progs, s->lens, s->n, o, &p, d)
			  : scmpc_lift(s->progs[0], s->lens[0], o, &p, d);
	if (rc < 0) {
		st->refused++;
		if (must || rc == -EPROTO || rc == -ENOMEM)
			fail_msg("%s: lifting failed (%d): %s: %s", label, rc, scmpc_diag_where(d),
				 scmpc_diag_message(d));
		printf("%s: refused: %s\n", label, scmpc_diag_message(d));
		scmpc_diag_free(d);
		return rc;
	}
	scmpc_prog *prog = NULL;
	rc = scmpc_compile(p, NULL, &prog, d);
	if (rc < 0 && scmpc_policy_arch_count(p) == 0) {
		/* A program that gives every call the bad-arch action lifts to a
		 * policy without ABIs, which decides right but does not compile. */
		struct cmp_stats cs = { 0 };
		compare(s, p, NULL, 0, r, vecs, label, &cs);
		st->cmp.probes += cs.probes;
		st->cmp.mismatches += cs.mismatches;
		assert_int_equal(cs.mismatches, 0);
		st->lifted++;
		scmpc_policy_free(p);
		scmpc_diag_free(d);
		return 0;
	}
	if (rc == -E2BIG && !must) {
		/* Exact, but the rules of its paths compile into more than
		 * the kernel takes (the program's own rules overlapped in ways
		 * the paths do not): the policy must still decide right. */
		printf("%s: lifted, recompiled too large: %s\n", label, scmpc_diag_message(d));
		struct cmp_stats cs = { 0 };
		compare(s, p, NULL, 0, r, vecs, label, &cs);
		st->cmp.probes += cs.probes;
		st->cmp.mismatches += cs.mismatches;
		assert_int_equal(cs.mismatches, 0);
		st->lifted++;
		st->too_big++;
		scmpc_policy_free(p);
		scmpc_diag_free(d);
		return 0;
	}
	if (rc < 0) {
		testutil_policy_dump(stderr, p);
		fail_msg("%s: the lifted policy does not compile: %s: %s", label, scmpc_diag_where(d),
			 scmpc_diag_message(d));
	}
	struct cmp_stats cs = { 0 };
	compare(s, p, scmpc_prog_insns(prog), scmpc_prog_len(prog), r, vecs, label, &cs);
	st->cmp.probes += cs.probes;
	st->cmp.mismatches += cs.mismatches;
	st->lifted++;
	st->orig_len = 0;
	for (size_t i = 0; i < s->n; i++)
		st->orig_len += s->lens[i];
	st->re_len = scmpc_prog_len(prog);
	if (cs.mismatches) {
		testutil_policy_dump(stderr, p);
		fail_msg("%s: %lu of %lu probes decide differently", label, cs.mismatches,
			 cs.probes);
	}
	scmpc_prog_free(prog);
	scmpc_policy_free(p);
	scmpc_diag_free(d);
	return 0;
}

static int lift1(const struct sock_filter *f, size_t len, const struct scmpc_lift_opts *o,
		 const char *label, struct rt *st)
{
	const struct sock_filter *progs[] = { f };
	size_t lens[] = { len };
	struct stk s = { progs, lens, 1, false };
	struct testutil_rng r;
	testutil_rng_seed(&r, seed());
	return roundtrip(&s, o, &r, 4, label, true, st);
}

/* Lifting F fails with ERR at instruction INSN. */
static void refused(const struct sock_filter *f, size_t len, const struct scmpc_lift_opts *o,
		    int err, long insn, const char *what)
{
	scmpc_diag *d = scmpc_diag_new();
	scmpc_policy *p = NULL;
	int rc = scmpc_lift(f, len, o, &p, d);
	if (rc != err || (insn >= 0 && scmpc_diag_insn(d) != insn))
		fail_msg("%s: expected %d at insn %ld, got %d at insn %ld: %s", what, err, insn, rc,
			 scmpc_diag_insn(d), scmpc_diag_message(d));
	assert_null(p);
	scmpc_diag_free(d);
}

/* ------------------------------------------------------ hand-written */

/* x86_64 only; write(1) allowed when args[0] < 3 and args[1]'s low word
 * masked with 0xff0 is 0x120; getpid allowed; everything else EPERM. */
static const struct sock_filter prog_basic[] = {
	LD(OFF_ARCH),
	JEQ(X86_64, 1, 0),
	RET(KILL),
	LD(OFF_NR),
	JGE(0x40000000U, 0, 1),
	RET(KILL),
	JEQ(39, 9, 0),			/* getpid */
	JEQ(1, 0, 9),			/* write */
	LD(ARG_HI(0)),
	JEQ(0, 0, 7),
	LD(ARG_LO(0)),
	JGE(3, 5, 0),
	LD(ARG_LO(1)),
	ALU(BPF_AND, 0xff0),
	JEQ(0x120, 0, 2),
	RET(ALLOW),
	RET(ALLOW),
	RET(EPERM_),
};

static void test_basic(void **state)
{
	(void)state;
	struct rt st = { 0 };
	lift1(prog_basic, N(prog_basic), NULL, "basic", &st);
	scmpc_policy *p = NULL;
	assert_int_equal(scmpc_lift(prog_basic, N(prog_basic), NULL, &p, NULL), 0);
	assert_int_equal(scmpc_policy_arch_count(p), 1);
	assert_int_equal(scmpc_policy_arch(p, 0), SCMPC_ARCH_X86_64);
	assert_int_equal(scmpc_policy_default_action(p), EPERM_);
	uint64_t args[6] = { 2, 0x1123, 0 };
	struct seccomp_data sd = testutil_sd(SCMPC_ARCH_X86_64, 1, args);
	int rule;
	assert_int_equal(scmpc_policy_eval(p, &sd, &rule), ALLOW);
	assert_string_equal(scmpc_policy_rule_origin(p, (size_t)rule), "insn 15");
	sd.args[0] = 3;
	assert_int_equal(scmpc_policy_eval(p, &sd, NULL), EPERM_);
	sd = testutil_sd(SCMPC_ARCH_I386, 1, args);
	assert_int_equal(scmpc_policy_eval(p, &sd, NULL), KILL);
	scmpc_policy_free(p);
}

/* Bit operations, shifts, add with wrap-around, X, scratch memory, RET A. */
static const struct sock_filter prog_alu[] = {
	LD(OFF_ARCH),					/* 0 */
	JEQ(AUDIT_ARCH_AARCH64, 1, 0),
	RET(KILL),
	LD(OFF_NR),
	BPF_STMT(BPF_ST, 3),				/* M[3] = nr */
	BPF_STMT(BPF_LDX | BPF_IMM, 100),		/* 5 */
	JEQ(1, 0, 5),					/* nr 1: args[0] low word >> 4 */
	LD(ARG_LO(0)),
	ALU(BPF_RSH, 4),
	JGT(0x10, 0, 1),				/* (a >> 4) > 0x10 */
	RET(EPERM_),
	RET(ALLOW),
	BPF_STMT(BPF_LD | BPF_MEM, 3),			/* 12 */
	JEQ(2, 0, 5),					/* nr 2: a0 + 0x80000000 > 0x90000000 */
	LD(ARG_LO(0)),
	ALU(BPF_ADD, 0x80000000U),
	JGT(0x90000000U, 0, 1),
	RET(SCMPC_ACT_ERRNO(2)),
	RET(ALLOW),
	BPF_STMT(BPF_LD | BPF_MEM, 3),			/* 19 */
	JEQ(3, 0, 4),					/* nr 3: jset on xor'd, or'd args[1] */
	LD(ARG_LO(1)),
	ALU(BPF_XOR, 0x0f0f0000U),
	JSET(0x00ff0000U, 0, 1),
	RET(SCMPC_ACT_ERRNO(3)),
	BPF_STMT(BPF_LD | BPF_MEM, 3),			/* 25 */
	JEQ(4, 0, 5),					/* nr 4: 100 > args[2] (jgt x, A constant) */
	LD(ARG_LO(2)),
	BPF_STMT(BPF_MISC | BPF_TAX, 0),
	BPF_STMT(BPF_LD | BPF_IMM, 100),
	BPF_JUMP(BPF_JMP | BPF_JGT | BPF_X, 0, 0, 1),	/* 30: 100 > a2 */
	RET(SCMPC_ACT_ERRNO(4)),
	BPF_STMT(BPF_LD | BPF_MEM, 3),			/* 32 */
	JEQ(5, 0, 4),					/* nr 5: a3's low byte, lsh'd, > X */
	LD(ARG_LO(3)),
	ALU(BPF_LSH, 24),
	BPF_JUMP(BPF_JMP | BPF_JGE | BPF_X, 0, 0, 1),	/* (a3 << 24) >= 100 */
	RET(SCMPC_ACT_ERRNO(5)),
	BPF_STMT(BPF_LD | BPF_MEM, 3),			/* 38 */
	JEQ(6, 0, 4),					/* nr 6: RET A of a masked word */
	LD(ARG_LO(4)),
	JGT(1, 2, 0),
	ALU(BPF_OR, SCMPC_ACT_ERRNO(0)),
	BPF_STMT(BPF_RET | BPF_A, 0),			/* ERRNO(0) or ERRNO(1) */
	BPF_STMT(BPF_LD | BPF_MEM, 3),			/* 44 */
	JEQ(7, 0, 5),					/* nr 7: a5 * 3 == 9 (pinned per value) */
	LD(ARG_LO(5)),
	JGT(4, 2, 0),
	ALU(BPF_MUL, 3),
	JEQ(9, 1, 0),					/* 49 */
	RET(SCMPC_ACT_TRAP),
	BPF_STMT(BPF_LD | BPF_MEM, 3),			/* 51 */
	JEQ(8, 0, 3),					/* nr 8: div by X == 0 returns 0 */
	BPF_STMT(BPF_LDX | BPF_IMM, 0),
	ALU(BPF_DIV, 1),
	BPF_STMT(BPF_ALU | BPF_DIV | BPF_X, 0),		/* 55 */
	RET(ALLOW),
};

static void test_alu(void **state)
{
	(void)state;
	struct rt st = { 0 };
	lift1(prog_alu, N(prog_alu), NULL, "alu", &st);
	/* Spot checks on the lifted policy itself. */
	scmpc_policy *p = NULL;
	assert_int_equal(scmpc_lift(prog_alu, N(prog_alu), NULL, &p, NULL), 0);
	struct { uint32_t nr; uint64_t a[6]; uint32_t want; } cases[] = {
		{ 1, { 0x110 }, EPERM_ }, { 1, { 0x10f }, ALLOW }, { 1, { 0x100000110ULL }, EPERM_ },
		{ 2, { 0x10000001 }, SCMPC_ACT_ERRNO(2) }, { 2, { 0x10000000 }, ALLOW },
		{ 2, { 0x80000000U }, ALLOW }, { 2, { 0x7fffffffU }, SCMPC_ACT_ERRNO(2) },
		{ 3, { 0, 0x0f000000 }, SCMPC_ACT_ERRNO(3) }, { 3, { 0, 0x0f0f0000 }, ALLOW },
		{ 4, { 0, 0, 99 }, SCMPC_ACT_ERRNO(4) }, { 4, { 0, 0, 100 }, ALLOW },
		{ 5, { 0, 0, 0, 1 }, SCMPC_ACT_ERRNO(5) }, { 5, { 0, 0, 0, 0x100 }, ALLOW },
		{ 6, { 0, 0, 0, 0, 1 }, SCMPC_ACT_ERRNO(1) }, { 6, { 0, 0, 0, 0, 2 }, ALLOW },
		{ 7, { 0, 0, 0, 0, 0, 3 }, ALLOW }, { 7, { 0, 0, 0, 0, 0, 4 }, SCMPC_ACT_TRAP },
		{ 8, { 0 }, SCMPC_ACT_KILL_THREAD }, { 9, { 0 }, ALLOW },
	};
	for (size_t i = 0; i < N(cases); i++) {
		struct seccomp_data sd = testutil_sd(SCMPC_ARCH_AARCH64, cases[i].nr, cases[i].a);
		uint32_t em;
		assert_int_equal(scmpc_emulate(prog_alu, N(prog_alu), &sd, &em, NULL), 0);
		if (em != cases[i].want)
			fail_msg("case %zu: nr %u: program %s, expected %s", i, cases[i].nr, testutil_act(em), testutil_act(cases[i].want));
		assert_int_equal(scmpc_policy_eval(p, &sd, NULL), cases[i].want);
	}
	scmpc_policy_free(p);
}

/* runc's stub in front of a small allow-list: limits, x32, -1. */
static const struct sock_filter prog_stub[] = {
	LD(OFF_ARCH),
	JEQ(X86_64, 0, 10),
	LD(OFF_NR),
	JSET(X32_SYSCALL_BIT, 6, 0),		/* x32 */
	JGT(450, 0, 1),
	RET(SCMPC_ACT_ERRNO(38)),
	JEQ(0, 2, 0),
	JEQ(60, 1, 0),
	RET(EPERM_),
	RET(ALLOW),
	JGT(X32_SYSCALL_BIT + 500, 1, 0),	/* 10: x32 */
	JEQ(0xffffffffU, 0, 1),
	RET(SCMPC_ACT_ERRNO(38)),
	RET(SCMPC_ACT_KILL_THREAD),
};

static void test_stub(void **state)
{
	(void)state;
	struct rt st = { 0 };
	lift1(prog_stub, N(prog_stub), NULL, "stub", &st);
	scmpc_policy *p = NULL;
	assert_int_equal(scmpc_lift(prog_stub, N(prog_stub), NULL, &p, NULL), 0);
	assert_int_equal(scmpc_policy_arch_count(p), 2);	/* x86_64 and x32 */
	scmpc_policy_free(p);
}

/* A program without an arch test: refused, or lifted for the ABIs named. */
static const struct sock_filter prog_noarch[] = {
	LD(OFF_NR),
	JEQ(59, 0, 1),
	RET(EPERM_),
	RET(ALLOW),
};

static void test_noarch(void **state)
{
	(void)state;
	refused(prog_noarch, N(prog_noarch), NULL, -ENOTSUP, -1, "no arch test");
	static const enum scmpc_arch abis[] = { SCMPC_ARCH_X86_64, SCMPC_ARCH_I386 };
	struct scmpc_lift_opts o = { .sz = sizeof(o), .flags = SCMPC_LIFT_BAD_ARCH,
				     .arches = abis, .narches = 2,
				     .bad_arch_action = SCMPC_ACT_KILL_PROCESS };
	scmpc_policy *p = NULL;
	assert_int_equal(scmpc_lift(prog_noarch, N(prog_noarch), &o, &p, NULL), 0);
	assert_int_equal(scmpc_policy_arch_count(p), 2);
	for (int a = 0; a < 2; a++)
		for (uint32_t nr = 0; nr < 400; nr++) {
			struct seccomp_data sd = testutil_sd(abis[a], nr, NULL);
			uint32_t want;
			assert_int_equal(scmpc_emulate(prog_noarch, N(prog_noarch), &sd, &want, NULL), 0);
			assert_int_equal(scmpc_policy_eval(p, &sd, NULL), want);
		}
	struct seccomp_data sd = testutil_sd(SCMPC_ARCH_AARCH64, 1, NULL);
	assert_int_equal(scmpc_policy_eval(p, &sd, NULL), SCMPC_ACT_KILL_PROCESS);
	scmpc_policy_free(p);
	/* Both byte orders: refused. */
	static const enum scmpc_arch mixed[] = { SCMPC_ARCH_X86_64, SCMPC_ARCH_S390X };
	o.arches = mixed;
	refused(prog_noarch, N(prog_noarch), &o, -ENOTSUP, -1, "byte orders");
}

static void test_refusals(void **state)
{
	(void)state;
	/* The decision depends on instruction_pointer. */
	static const struct sock_filter ip[] = {
		LD(OFF_ARCH), JEQ(X86_64, 1, 0), RET(KILL),
		LD(OFF_NR), JEQ(2, 0, 3),
		LD(OFF_IP), JGT(0x1000, 0, 1),		/* 6 */
		RET(EPERM_),
		RET(ALLOW),
	};
	refused(ip, N(ip), NULL, -ENOTSUP, 6, "instruction_pointer");
	/* ... but reading it without it mattering is fine. */
	static const struct sock_filter ip_ok[] = {
		LD(OFF_ARCH), JEQ(X86_64, 1, 0), RET(KILL),
		LD(OFF_IP), JGT(0x1000, 0, 1),
		RET(ALLOW),
		RET(ALLOW),
	};
	struct rt st = { 0 };
	lift1(ip_ok, N(ip_ok), NULL, "ip unused", &st);
	/* i386: the high word of an argument decides. */
	static const struct sock_filter hi32[] = {
		LD(OFF_ARCH), JEQ(AUDIT_ARCH_I386, 1, 0), RET(KILL),
		LD(ARG_HI(1)), JEQ(0, 1, 0),		/* 4 */
		RET(EPERM_),
		RET(ALLOW),
	};
	refused(hi32, N(hi32), NULL, -ENOTSUP, 4, "high word on i386");
	/* Two words compared with each other. */
	static const struct sock_filter two[] = {
		LD(OFF_ARCH), JEQ(X86_64, 1, 0), RET(KILL),
		LD(ARG_LO(0)), BPF_STMT(BPF_MISC | BPF_TAX, 0),
		LD(ARG_LO(1)), BPF_JUMP(BPF_JMP | BPF_JGT | BPF_X, 0, 0, 1),	/* 6 */
		RET(EPERM_),
		RET(ALLOW),
	};
	refused(two, N(two), NULL, -ENOTSUP, 6, "two words");
	/* Two words combined, then tested. */
	static const struct sock_filter sum[] = {
		LD(OFF_ARCH), JEQ(X86_64, 1, 0), RET(KILL),
		LD(ARG_LO(0)), BPF_STMT(BPF_MISC | BPF_TAX, 0),
		LD(ARG_LO(1)), BPF_STMT(BPF_ALU | BPF_ADD | BPF_X, 0),
		JEQ(7, 0, 1),				/* 7 */
		RET(EPERM_),
		RET(ALLOW),
	};
	refused(sum, N(sum), NULL, -ENOTSUP, 7, "two words added");
	/* Arithmetic on a word with many values, under jset. */
	static const struct sock_filter mul[] = {
		LD(OFF_ARCH), JEQ(X86_64, 1, 0), RET(KILL),
		LD(ARG_LO(0)), ALU(BPF_MUL, 3),
		JSET(4, 0, 1),				/* 5 */
		RET(EPERM_),
		RET(ALLOW),
	};
	refused(mul, N(mul), NULL, -ENOTSUP, 5, "mul");
	/* A return value that is no action. */
	static const struct sock_filter bad[] = {
		LD(OFF_ARCH), JEQ(X86_64, 1, 0), RET(KILL),
		RET(SCMPC_ACT_ERRNO(5000)),		/* 3 */
	};
	refused(bad, N(bad), NULL, -ENOTSUP, 3, "ERRNO(5000)");
	/* RET A of the call's number. */
	static const struct sock_filter reta[] = {
		LD(OFF_ARCH), JEQ(X86_64, 1, 0), RET(KILL),
		LD(OFF_NR), BPF_STMT(BPF_RET | BPF_A, 0),	/* 4 */
	};
	refused(reta, N(reta), NULL, -ENOTSUP, 4, "ret nr");
	/* Not a program the kernel loads. */
	static const struct sock_filter past[] = { LD(OFF_NR), JEQ(1, 5, 0), RET(ALLOW) };
	refused(past, N(past), NULL, -EINVAL, -1, "jump past the end");
	/* A path bound. */
	struct scmpc_lift_opts o = { .sz = sizeof(o), .max_paths = 2 };
	refused(prog_basic, N(prog_basic), &o, -E2BIG, -1, "max_paths");
	/* The API. */
	scmpc_policy *p = NULL;
	assert_int_equal(scmpc_lift(NULL, 1, NULL, &p, NULL), -EINVAL);
	assert_int_equal(scmpc_lift(prog_basic, N(prog_basic), NULL, NULL, NULL), -EINVAL);
	struct scmpc_lift_opts bad_flags = { .sz = sizeof(bad_flags), .flags = 0x80 };
	assert_int_equal(scmpc_lift(prog_basic, N(prog_basic), &bad_flags, &p, NULL), -EINVAL);
	struct scmpc_lift_opts short_sz = { .sz = 1 };
	assert_int_equal(scmpc_lift(prog_basic, N(prog_basic), &short_sz, &p, NULL), -EINVAL);
	assert_int_equal(scmpc_merge_stack(NULL, NULL, 0, NULL, &p, NULL), -EINVAL);
	assert_null(p);
}

/* ----------------------------------------------------- random policies */

static const char *const names[] = {
	"read", "write", "close", "openat", "open", "socket", "clone", "personality", "ioctl",
	"mmap", "mprotect", "futex", "getpid", "kill", "prctl", "fcntl", "setsockopt", "sendto",
	"socketcall", "ipc", "semop", "_llseek", "arch_prctl", "set_tls", "dup3", "exit_group",
	"clone3", "bpf", "accept4",
};

static const uint32_t acts[] = {
	SCMPC_ACT_ALLOW, SCMPC_ACT_ALLOW, SCMPC_ACT_ALLOW, SCMPC_ACT_LOG, SCMPC_ACT_ERRNO(1),
	SCMPC_ACT_ERRNO(13), SCMPC_ACT_ERRNO(38), SCMPC_ACT_TRAP, SCMPC_ACT_TRACE(7),
	SCMPC_ACT_KILL_THREAD, SCMPC_ACT_KILL_PROCESS, SCMPC_ACT_USER_NOTIF,
};

static const uint64_t consts[] = {
	0, 1, 2, 5, 40, 0xff, 0x7e020000, 0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff,
	0x100000000ULL, 0xffffffff00000000ULL, 0xffffffffffffffffULL, 0x8000000000000000ULL,
	0x1234567800000005ULL,
};

static uint32_t ract(struct testutil_rng *r)
{
	return acts[testutil_rng_below(r, N(acts))];
}

static uint64_t rconst(struct testutil_rng *r)
{
	if (testutil_rng_below(r, 4) == 0) {
		uint64_t x = testutil_rng_next(r);
		return x >> testutil_rng_below(r, 64);
	}
	return consts[testutil_rng_below(r, N(consts))];
}

static struct scmpc_cond rcond(struct testutil_rng *r, unsigned arg)
{
	struct scmpc_cond c = { .arg = arg };
	c.op = (enum scmpc_op)(1 + testutil_rng_below(r, 7));
	c.value = rconst(r);
	if (c.op == SCMPC_OP_MASKED_EQ)
		c.value2 = c.value & rconst(r);
	if (testutil_rng_below(r, 10) == 0)
		c.flags = SCMPC_COND_32BIT;
	return c;
}

static const enum scmpc_arch groups[][3] = {
	{ SCMPC_ARCH_X86_64 },
	{ SCMPC_ARCH_X86_64, SCMPC_ARCH_I386, SCMPC_ARCH_X32 },
	{ SCMPC_ARCH_X86_64, SCMPC_ARCH_X32 },
	{ SCMPC_ARCH_I386 },
	{ SCMPC_ARCH_X32 },
	{ SCMPC_ARCH_AARCH64, SCMPC_ARCH_ARM },
	{ SCMPC_ARCH_ARM },
	{ SCMPC_ARCH_RISCV64 },
	{ SCMPC_ARCH_MIPSEL64, SCMPC_ARCH_MIPSEL, SCMPC_ARCH_MIPSEL64N32 },
	/* big-endian */
	{ SCMPC_ARCH_S390X, SCMPC_ARCH_S390 },
	{ SCMPC_ARCH_PPC64, SCMPC_ARCH_PPC },
	{ SCMPC_ARCH_MIPS64, SCMPC_ARCH_MIPS, SCMPC_ARCH_MIPS64N32 },
};
#define LE_GROUPS 9

static void radd(scmpc_policy *p, const char *name, uint32_t nr, enum scmpc_arch a, uint32_t act,
		 const struct scmpc_cond *c, size_t n)
{
	struct scmpc_rule rl = { .sz = sizeof(rl), .syscall = name, .nr = nr, .arch = a,
				 .action = act, .conds = c, .nconds = n };
	assert_true(scmpc_policy_add_rule(p, &rl, NULL) >= 0);
}

/* A random policy: MAXRULES rule groups at most; ABIs of one byte order,
 * ORDER: 'l' little-endian, 'b' big-endian, else either. */
static scmpc_policy *rpolicy(struct testutil_rng *r, unsigned maxrules, int order)
{
	scmpc_policy *p = scmpc_policy_new(ract(r));
	assert_non_null(p);
	bool le = order == 'l' || (order != 'b' && testutil_rng_below(r, 4) != 0);
	const enum scmpc_arch *g =
		groups[le ? testutil_rng_below(r, LE_GROUPS)
			  : LE_GROUPS + testutil_rng_below(r, N(groups) - LE_GROUPS)];
	size_t na = 0;
	for (; na < 3 && g[na]; na++)
		assert_int_equal(scmpc_policy_add_arch(p, g[na], NULL), 0);
	static const uint32_t bad[] = { SCMPC_ACT_KILL_PROCESS, SCMPC_ACT_KILL_THREAD,
					SCMPC_ACT_TRAP, SCMPC_ACT_ERRNO(1) };
	assert_int_equal(scmpc_policy_set_bad_arch_action(p, bad[testutil_rng_below(r, N(bad))],
							  NULL), 0);
	if (testutil_rng_below(r, 3) == 0)
		assert_int_equal(scmpc_policy_set_merge(p, SCMPC_MERGE_LIBSECCOMP, NULL), 0);
	if (testutil_rng_below(r, 6) == 0)
		assert_int_equal(scmpc_policy_set_unknown_action(
					 p, SCMPC_ACT_ERRNO(38),
					 testutil_rng_below(r, 2) ? SCMPC_UNKNOWN_POLICY_MAX
								  : SCMPC_UNKNOWN_TABLE_MAX, NULL), 0);
	unsigned nr_rules = 1 + testutil_rng_below(r, maxrules);
	for (unsigned i = 0; i < nr_rules; i++) {
		const char *name = names[testutil_rng_below(r, N(names))];
		struct scmpc_cond c[4];
		size_t n = testutil_rng_below(r, 4);
		for (size_t j = 0; j < n; j++)
			c[j] = rcond(r, testutil_rng_below(r, 6));
		enum scmpc_arch a = g[testutil_rng_below(r, (uint32_t)na)];
		switch (testutil_rng_below(r, 6)) {
		case 0: {
			static const uint32_t edges[] = { 0, 0x3fffffffU, 0x7fffffffU, 0x80000000U,
							  0xfffffffeU, 0xffffffffU, 0x0f0002U };
			int64_t nr = scmpc_syscall_resolve(a, name);
			if (nr < 0 || testutil_rng_below(r, 4) == 0)
				nr = arch_info(a)->nr_base + testutil_rng_below(r, 500);
			if (testutil_rng_below(r, 5) == 0)
				nr = edges[testutil_rng_below(r, N(edges))];
			radd(p, NULL, (uint32_t)nr, a, ract(r), c, n);
			break;
		}
		case 1:
			radd(p, name, 0, a, ract(r), c, n);
			break;
		case 2: {
			/* Two rules on one argument that exclude each other. */
			struct scmpc_cond x = { .arg = testutil_rng_below(r, 6), .op = SCMPC_OP_LT,
						.value = rconst(r) };
			struct scmpc_cond y = x;
			y.op = SCMPC_OP_GE;
			radd(p, name, 0, SCMPC_ARCH_NONE, ract(r), &x, 1);
			radd(p, name, 0, SCMPC_ARCH_NONE, ract(r), &y, 1);
			break;
		}
		default:
			radd(p, name, 0, SCMPC_ARCH_NONE, ract(r), c, n);
			break;
		}
	}
	if (testutil_rng_below(r, 5) == 0)
		for (size_t i = 0; i < na; i++) {
			if (testutil_rng_below(r, 3) == 0)
				continue;
			uint32_t max = arch_info(g[i])->nr_base + testutil_rng_below(r, 520);
			assert_int_equal(scmpc_policy_set_limit(p, g[i], max,
								testutil_rng_below(r, 3) ? SCMPC_ACT_ERRNO(38)
											 : ract(r),
								testutil_rng_below(r, 4) ? 0 : SCMPC_LIMIT_ZERO,
								NULL), 0);
		}
	return p;
}

static void test_random(void **state)
{
	(void)state;
	struct testutil_rng r;
	uint64_t s0 = seed();
	unsigned n = iters(150);
	struct rt st = { 0 };
	unsigned naive = 0, skipped = 0;
	for (unsigned i = 0; i < n; i++) {
		testutil_rng_seed(&r, run_seed(s0, i));
		scmpc_policy *p = rpolicy(&r, testutil_rng_below(&r, 4) ? 10 : 30, 0);
		bool lin = testutil_rng_below(&r, 4) == 0;
		struct scmpc_compile_opts co = { .sz = sizeof(co),
						 .flags = lin ? SCMPC_COMPILE_NAIVE : 0 };
		scmpc_prog *prog = NULL;
		if (scmpc_compile(p, &co, &prog, NULL) < 0) {
			skipped++;
			scmpc_policy_free(p);
			continue;
		}
		naive += lin;
		const struct sock_filter *progs[] = { scmpc_prog_insns(prog) };
		size_t lens[] = { scmpc_prog_len(prog) };
		struct stk s = { progs, lens, 1, false };
		char label[64];
		snprintf(label, sizeof(label), "random policy %u (SCMPC_LIFT_SEED=%#llx)", i,
			 (unsigned long long)s0);
		if (roundtrip(&s, NULL, &r, 2, label, false, &st) < 0) {
			testutil_policy_dump(stderr, p);
			fail_msg("%s: refused", label);
		}
		scmpc_prog_free(prog);
		scmpc_policy_free(p);
	}
	printf("random policies: %u compiled by scmpc (%u as linear chains), %u lifted (%u of "
	       "them recompiled past 4096 insns), %u refused, %u not compiled; %lu probes, %lu "
	       "mismatches\n", st.lifted + st.refused, naive, st.lifted, st.too_big, st.refused,
	       skipped, st.cmp.probes, st.cmp.mismatches);
	assert_int_equal(st.refused, 0);
	assert_true(st.too_big * 100 <= st.lifted);
}

/* --------------------------------------------------- packaged profiles */

static void test_profiles(void **state)
{
	(void)state;
	static const enum scmpc_arch targets[] = { SCMPC_ARCH_X86_64, SCMPC_ARCH_AARCH64,
						   SCMPC_ARCH_S390X, SCMPC_ARCH_PPC64LE,
						   SCMPC_ARCH_RISCV64, SCMPC_ARCH_MIPSEL64 };
	struct testutil_rng r;
	testutil_rng_seed(&r, seed());
	struct rt st = { 0 };
	unsigned missing = 0;
	for (const char *const *nm = testutil_profile_names; *nm; nm++)
		for (size_t t = 0; t < N(targets); t++) {
			scmpc_policy *p = testutil_policy(*nm, targets[t]);
			if (!p) {
				printf("%s for %s: %s\n", *nm, scmpc_arch_name(targets[t]),
				       testutil_last_error());
				missing++;
				continue;
			}
			scmpc_prog *prog = NULL;
			scmpc_diag *d = scmpc_diag_new();
			if (scmpc_compile(p, NULL, &prog, d) < 0)
				fail_msg("%s for %s: %s", *nm, scmpc_arch_name(targets[t]),
					 scmpc_diag_message(d));
			const struct sock_filter *progs[] = { scmpc_prog_insns(prog) };
			size_t lens[] = { scmpc_prog_len(prog) };
			struct stk s = { progs, lens, 1, false };
			char label[128];
			snprintf(label, sizeof(label), "%s for %s", *nm, scmpc_arch_name(targets[t]));
			roundtrip(&s, NULL, &r, 2, label, true, &st);
			if (t == 0)
				printf("%s (x86_64): %zu insns compiled, %zu lifted and recompiled\n",
				       *nm, st.orig_len, st.re_len);
			scmpc_prog_free(prog);
			scmpc_policy_free(p);
			scmpc_diag_free(d);
		}
	printf("packaged profiles: %u round trips, %u profiles that do not resolve for a "
	       "target (or are not installed); %lu probes, %lu mismatches\n", st.lifted, missing,
	       st.cmp.probes, st.cmp.mismatches);
	if (!st.lifted)
		skip();
}

/* ----------------------------------------------------------- libseccomp */

static void test_libseccomp_docker(void **state)
{
	(void)state;
	scmpc_policy *p = testutil_policy("docker-default.json", SCMPC_ARCH_X86_64);
	if (!p) {
		printf("docker-default.json: %s\n", testutil_last_error());
		skip();
	}
	struct testutil_rng r;
	testutil_rng_seed(&r, seed());
	for (int level = 1; level <= 2; level++) {
		struct sock_filter *insns = NULL;
		size_t len = 0;
		char err[256];
		int rc = lsc_compile(p, level, &insns, &len, err, sizeof(err));
		if (rc < 0)
			fail_msg("libseccomp level %d: %s", level, err);
		const struct sock_filter *progs[] = { insns };
		size_t lens[] = { len };
		struct stk s = { progs, lens, 1, false };
		struct rt st = { 0 };
		char label[64];
		snprintf(label, sizeof(label), "libseccomp level %d Docker", level);
		uint64_t t0 = testutil_now_ns();
		roundtrip(&s, NULL, &r, 3, label, true, &st);
		printf("libseccomp level %d, Docker's default (x86_64, i386, x32): %zu insns; lifted "
		       "and recompiled: %zu insns (%.1f%%); %lu probes agree (%.0f ms)\n", level,
		       len, st.re_len, 100.0 * (double)st.re_len / (double)len, st.cmp.probes,
		       (double)(testutil_now_ns() - t0) / 1e6);
		if (level == 1)
			assert_true(st.re_len * 100 < len * 30);
		free(insns);
	}
	scmpc_policy_free(p);
}

/* SCMPC_LIFT_NAMED, the shape an OCI profile says: Docker's and Podman's
 * defaults stacked lift to rules only on named numbers, and to rules that
 * no call matches two of with different actions (the unconditional ALLOW
 * of clone the plain lift widens to, over its ERRNO rules, is what
 * libseccomp's reading would let through); so the lifted policy under
 * libseccomp's merge still decides as the stack, proven by scmpc_diff().
 * A filter that allows only a number no table names has no such shape. */
static void test_named(void **state)
{
	(void)state;
	scmpc_policy *pol[2] = { testutil_policy("docker-default.json", SCMPC_ARCH_X86_64),
				 testutil_policy("podman-default.json", SCMPC_ARCH_X86_64) };
	if (!pol[0] || !pol[1]) {
		printf("profiles: %s\n", testutil_last_error());
		scmpc_policy_free(pol[0]);
		scmpc_policy_free(pol[1]);
		skip();
	}
	scmpc_diag *d = scmpc_diag_new();
	scmpc_prog *pr[2] = { NULL, NULL }, *merged = NULL, *back = NULL;
	const struct sock_filter *progs[2];
	size_t lens[2];
	for (int i = 0; i < 2; i++) {
		assert_int_equal(scmpc_compile(pol[i], NULL, &pr[i], d), 0);
		progs[i] = scmpc_prog_insns(pr[i]);
		lens[i] = scmpc_prog_len(pr[i]);
	}
	scmpc_policy *q = NULL;
	assert_int_equal(scmpc_intersect(progs, lens, 2, NULL, &merged, NULL, d), 0);
	struct scmpc_lift_opts lo = { .sz = sizeof(lo), .flags = SCMPC_LIFT_NAMED };
	int rc = scmpc_lift(scmpc_prog_insns(merged), scmpc_prog_len(merged), &lo, &q, d);
	if (rc < 0)
		fail_msg("lift: %s", scmpc_diag_message(d));
	size_t n = scmpc_policy_rule_count(q), pairs = 0;
	for (size_t i = 0; i < n; i++) {
		struct scmpc_rule_info a = { .sz = sizeof(a) };
		assert_int_equal(scmpc_policy_rule(q, i, &a), 0);
		if (!a.syscall && !scmpc_syscall_name(a.arch, a.nr, NULL, 0))
			fail_msg("rule %zu: number %u on ABI %d has no name", i, a.nr, (int)a.arch);
		uint64_t args[6];
		assert_int_equal(scmpc_conds_witness(a.conds, a.nconds, args), 0);
		struct seccomp_data sd = { .nr = (int)a.nr };
		sd.arch = scmpc_arch_audit(a.arch);
		memcpy(sd.args, args, sizeof(args));
		for (size_t j = 0; j < n; j++) {
			struct scmpc_rule_info b = { .sz = sizeof(b) };
			assert_int_equal(scmpc_policy_rule(q, j, &b), 0);
			if (j == i || b.arch != a.arch || b.nr != a.nr || b.action == a.action)
				continue;
			pairs++;
			if (scmpc_policy_rule_holds(q, j, &sd, NULL) == 1)
				fail_msg("rules %zu and %zu of different actions both hold for "
					 "nr %u", i, j, a.nr);
		}
	}
	assert_true(pairs > 0);
	/* libseccomp's reading of the same rules decides as the stack */
	assert_int_equal(scmpc_policy_set_merge(q, SCMPC_MERGE_LIBSECCOMP, d), 0);
	assert_int_equal(scmpc_compile(q, NULL, &back, d), 0);
	scmpc_answer *ans = NULL;
	assert_int_equal(scmpc_diff(scmpc_prog_insns(merged), scmpc_prog_len(merged),
				    scmpc_prog_insns(back), scmpc_prog_len(back), NULL, &ans, d), 0);
	assert_int_equal(scmpc_answer_count(ans), 0);
	printf("Docker's and Podman's defaults stacked: %zu rules lifted by name, %zu pairs of "
	       "one number's rules of other actions apart on each rule's witness; under "
	       "libseccomp's merge proven to decide as the stack\n", n, pairs);
	scmpc_answer_free(ans);

	/* x86_64 number 1000 allowed, everything else ERRNO(1) */
	struct sock_filter unnamed[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 4),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 1000, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SCMPC_ACT_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SCMPC_ACT_ERRNO(1)),
	};
	scmpc_policy *u = NULL;
	assert_int_equal(scmpc_lift(unnamed, 6, NULL, &u, d), 0);
	scmpc_policy_free(u);
	u = NULL;
	assert_int_equal(scmpc_lift(unnamed, 6, &lo, &u, d), -ENOTSUP);
	assert_null(u);
	assert_non_null(strstr(scmpc_diag_message(d), "no table names"));

	scmpc_policy_free(q);
	scmpc_prog_free(back);
	scmpc_prog_free(merged);
	for (int i = 0; i < 2; i++) {
		scmpc_prog_free(pr[i]);
		scmpc_policy_free(pol[i]);
	}
	scmpc_diag_free(d);
}

/* libseccomp's programs of the other profiles and of random policies. */
static void test_libseccomp_random(void **state)
{
	(void)state;
	struct testutil_rng r;
	uint64_t s0 = seed() ^ 0x15c;
	unsigned n = iters(150), nolsc = 0;
	struct rt st = { 0 };
	for (const char *const *nm = testutil_profile_names; *nm; nm++) {
		scmpc_policy *p = testutil_policy(*nm, SCMPC_ARCH_AARCH64);
		if (!p)
			continue;
		for (int level = 1; level <= 2; level++) {
			struct sock_filter *insns = NULL;
			size_t len = 0;
			char err[256], label[128];
			if (lsc_compile(p, level, &insns, &len, err, sizeof(err)) < 0) {
				nolsc++;
				continue;
			}
			const struct sock_filter *progs[] = { insns };
			size_t lens[] = { len };
			struct stk s = { progs, lens, 1, false };
			snprintf(label, sizeof(label), "libseccomp level %d %s (aarch64)", level, *nm);
			testutil_rng_seed(&r, s0);
			roundtrip(&s, NULL, &r, 2, label, true, &st);
			free(insns);
		}
		scmpc_policy_free(p);
	}
	for (unsigned i = 0; i < n; i++) {
		testutil_rng_seed(&r, run_seed(s0, i));
		scmpc_policy *p = rpolicy(&r, 12, 0);
		int level = 1 + (int)testutil_rng_below(&r, 2);
		struct sock_filter *insns = NULL;
		size_t len = 0;
		char err[256], label[96];
		if (lsc_compile(p, level, &insns, &len, err, sizeof(err)) < 0) {
			nolsc++;
			scmpc_policy_free(p);
			continue;
		}
		const struct sock_filter *progs[] = { insns };
		size_t lens[] = { len };
		struct stk s = { progs, lens, 1, false };
		snprintf(label, sizeof(label), "libseccomp level %d of random policy %u "
			 "(SCMPC_LIFT_SEED=%#llx)", level, i, (unsigned long long)seed());
		/* A random policy may name numbers whose decision libseccomp
		 * makes in a way the policy IR has no words for (a 64-bit
		 * argument test for 0x7fffffff, which the IR gives x32):
		 * refused, counted, but never wrong. */
		roundtrip(&s, NULL, &r, 2, label, false, &st);
		free(insns);
		scmpc_policy_free(p);
	}
	printf("libseccomp programs: %u lifted, %u refused, %u policies libseccomp could not "
	       "compile; %lu probes, %lu mismatches\n", st.lifted, st.refused, nolsc,
	       st.cmp.probes, st.cmp.mismatches);
	assert_true(st.refused * 50 <= st.lifted + st.refused);
}

/* ---------------------------------------------------------------- merge */

/* 64-bit comparisons across high words, said by the program word by word
 * (`a1 > 0x100000005`: hi > 1, or hi == 1 and lo > 5), lift to one rule
 * each again (lift_join.c), not to a rule per word's alternative: the
 * lifted policy holds as many rules as the source, and compiles to no
 * more instructions than its program.  Before the join, 11 rules. */
static void test_join64(void **state)
{
	(void)state;
	static const struct {
		uint32_t nr;
		struct scmpc_cond c[2];
		size_t n;
	} rules[] = {
		{ 1, { { .arg = 1, .op = SCMPC_OP_GT, .value = 0x100000005ULL } }, 1 },
		{ 2, { { .arg = 2, .op = SCMPC_OP_NE, .value = 5 } }, 1 },
		{ 3, { { .arg = 3, .op = SCMPC_OP_GE, .value = 0x100000010ULL },
		       { .arg = 3, .op = SCMPC_OP_LE, .value = 0x300000020ULL } }, 2 },
		{ 4, { { .arg = 0, .op = SCMPC_OP_LE, .value = 0x12345678000001ccULL } }, 1 },
		{ 5, { { .arg = 4, .op = SCMPC_OP_NE, .value = 0x200000007ULL } }, 1 },
	};
	scmpc_policy *p = scmpc_policy_new(EPERM_), *l = NULL;
	assert_non_null(p);
	assert_int_equal(scmpc_policy_add_arch(p, SCMPC_ARCH_X86_64, NULL), 0);
	for (size_t i = 0; i < N(rules); i++)
		radd(p, NULL, rules[i].nr, SCMPC_ARCH_X86_64, ALLOW, rules[i].c, rules[i].n);
	scmpc_prog *prog = NULL, *again = NULL;
	assert_int_equal(scmpc_compile(p, NULL, &prog, NULL), 0);
	assert_int_equal(scmpc_lift(scmpc_prog_insns(prog), scmpc_prog_len(prog), NULL, &l, NULL),
			 0);
	assert_int_equal(scmpc_policy_rule_count(l), N(rules));
	for (size_t i = 0; i < scmpc_policy_rule_count(l); i++) {
		struct scmpc_rule_info ri = { .sz = sizeof(ri) };
		assert_int_equal(scmpc_policy_rule(l, i, &ri), 0);
		for (size_t k = 0; k < ri.nconds; k++)
			assert_int_equal(ri.conds[k].flags & SCMPC_COND_32BIT, 0);
	}
	/* the same decision, proven over every call, in no more instructions */
	assert_int_equal(scmpc_compile(l, NULL, &again, NULL), 0);
	assert_true(scmpc_prog_len(again) <= scmpc_prog_len(prog));
	scmpc_answer *ans = NULL;
	assert_int_equal(scmpc_diff(scmpc_prog_insns(prog), scmpc_prog_len(prog),
				    scmpc_prog_insns(again), scmpc_prog_len(again), NULL, &ans, NULL),
			 0);
	assert_int_equal(scmpc_answer_count(ans), 0);
	scmpc_answer_free(ans);
	scmpc_prog_free(again);
	scmpc_prog_free(prog);
	scmpc_policy_free(l);
	scmpc_policy_free(p);
}

/* Two filters: equal actions keep the newer filter's data; a lower action
 * wins whichever filter returns it. */
static void test_merge_ties(void **state)
{
	(void)state;
	static const struct sock_filter older[] = {
		LD(OFF_ARCH), JEQ(X86_64, 1, 0), RET(KILL),
		LD(OFF_NR), JEQ(1, 0, 1), RET(SCMPC_ACT_ERRNO(13)),
		JEQ(2, 0, 1), RET(SCMPC_ACT_TRAP),
		RET(ALLOW),
	};
	static const struct sock_filter newer[] = {
		LD(OFF_ARCH), JEQ(X86_64, 1, 0), RET(SCMPC_ACT_KILL_THREAD),
		LD(OFF_NR), JEQ(1, 0, 1), RET(SCMPC_ACT_ERRNO(1)),
		JEQ(2, 0, 1), RET(SCMPC_ACT_ERRNO(2)),
		RET(SCMPC_ACT_LOG),
	};
	const struct sock_filter *progs[] = { older, newer };
	size_t lens[] = { N(older), N(newer) };
	scmpc_policy *p = NULL;
	scmpc_diag *d = scmpc_diag_new();
	if (scmpc_merge_stack(progs, lens, 2, NULL, &p, d) < 0)
		fail_msg("%s", scmpc_diag_message(d));
	struct { uint32_t audit, nr, want; } cases[] = {
		{ X86_64, 1, SCMPC_ACT_ERRNO(1) },	/* tie: the newer's data */
		{ X86_64, 2, SCMPC_ACT_TRAP },		/* TRAP ranks below ERRNO */
		{ X86_64, 3, SCMPC_ACT_LOG },
		{ AUDIT_ARCH_I386, 3, KILL },		/* KILL_PROCESS below KILL_THREAD */
	};
	for (size_t i = 0; i < N(cases); i++) {
		struct seccomp_data sd = testutil_sd_audit(cases[i].audit, cases[i].nr, NULL);
		assert_int_equal(scmpc_policy_eval(p, &sd, NULL), cases[i].want);
	}
	scmpc_policy_free(p);
	/* The order matters: swapped, the other filter is newer. */
	const struct sock_filter *swapped[] = { newer, older };
	size_t lens2[] = { N(newer), N(older) };
	assert_int_equal(scmpc_merge_stack(swapped, lens2, 2, NULL, &p, d), 0);
	struct seccomp_data sd = testutil_sd_audit(X86_64, 1, NULL);
	assert_int_equal(scmpc_policy_eval(p, &sd, NULL), SCMPC_ACT_ERRNO(13));
	scmpc_policy_free(p);
	/* An error names the filter. */
	static const struct sock_filter bad[] = { LD(OFF_NR), BPF_STMT(BPF_RET | BPF_A, 0) };
	const struct sock_filter *withbad[] = { older, bad };
	size_t lens3[] = { N(older), N(bad) };
	assert_int_equal(scmpc_merge_stack(withbad, lens3, 2, NULL, &p, d), -ENOTSUP);
	assert_non_null(strstr(scmpc_diag_message(d), "filter 1"));
	assert_int_equal(scmpc_diag_insn(d), 1);
	scmpc_diag_free(d);
}

static void test_merge_random(void **state)
{
	(void)state;
	struct testutil_rng r;
	uint64_t s0 = seed() ^ 0x3e76e;
	unsigned n = iters(60), nfilters = 0, from_lsc = 0;
	struct rt st = { 0 };
	size_t sum_orig = 0, sum_re = 0;
	for (unsigned i = 0; i < n; i++) {
		testutil_rng_seed(&r, run_seed(s0, i));
		size_t k = 2 + testutil_rng_below(&r, testutil_rng_below(&r, 3) ? 7 : 31);
		struct sock_filter *f[32];
		const struct sock_filter *progs[32];
		size_t lens[32], m = 0;
		/* One byte order per stack: a policy holds only one. */
		bool le = testutil_rng_below(&r, 5) != 0;
		unsigned grp = testutil_rng_below(&r, 3);
		while (m < k) {
			struct testutil_rng pr;
			testutil_rng_seed(&pr, testutil_rng_next(&r));
			scmpc_policy *p = rpolicy(&pr, 4, le ? 'l' : 'b');
			/* Mostly one ABI family per stack, as a process has. */
			if (grp && le && scmpc_policy_arch(p, 0) != SCMPC_ARCH_X86_64 &&
			    scmpc_policy_arch(p, 0) != SCMPC_ARCH_I386 &&
			    scmpc_policy_arch(p, 0) != SCMPC_ARCH_X32) {
				scmpc_policy_free(p);
				continue;
			}
			char err[256];
			if (testutil_rng_below(&r, 4) == 0 &&
			    lsc_compile(p, 1 + (int)testutil_rng_below(&r, 2), &f[m], &lens[m], err,
					sizeof(err)) == 0) {
				from_lsc++;
			} else {
				scmpc_prog *prog = NULL;
				if (scmpc_compile(p, NULL, &prog, NULL) < 0) {
					scmpc_policy_free(p);
					continue;
				}
				lens[m] = scmpc_prog_len(prog);
				f[m] = malloc(lens[m] * sizeof(*f[m]));
				assert_non_null(f[m]);
				memcpy(f[m], scmpc_prog_insns(prog), lens[m] * sizeof(*f[m]));
				scmpc_prog_free(prog);
			}
			progs[m] = f[m];
			m++;
			scmpc_policy_free(p);
		}
		nfilters += (unsigned)m;
		struct stk s = { progs, lens, m, true };
		char label[96];
		snprintf(label, sizeof(label), "stack %u of %zu filters (SCMPC_LIFT_SEED=%#llx)", i, m,
			 (unsigned long long)seed());
		struct scmpc_lift_opts o = { .sz = sizeof(o), .max_paths = 1U << 20 };
		unsigned big = st.too_big;
		if (roundtrip(&s, &o, &r, 1, label, false, &st) == 0 && st.too_big == big) {
			sum_orig += st.orig_len;
			sum_re += st.re_len;
		}
		for (size_t j = 0; j < m; j++)
			free(f[j]);
	}
	printf("merged stacks: %u of %u (%u filters, %u by libseccomp), %u refused, %u "
	       "recompiled past 4096 insns; %lu probes, %lu mismatches; %zu insns in the stacks, "
	       "%zu merged\n", st.lifted, n, nfilters, from_lsc, st.refused, st.too_big,
	       st.cmp.probes, st.cmp.mismatches, sum_orig, sum_re);
	assert_true(st.lifted * 10 >= n * 9);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_basic),
		cmocka_unit_test(test_alu),
		cmocka_unit_test(test_stub),
		cmocka_unit_test(test_noarch),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_random),
		cmocka_unit_test(test_profiles),
		cmocka_unit_test(test_libseccomp_docker),
		cmocka_unit_test(test_named),
		cmocka_unit_test(test_libseccomp_random),
		cmocka_unit_test(test_join64),
		cmocka_unit_test(test_merge_ties),
		cmocka_unit_test(test_merge_random),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
