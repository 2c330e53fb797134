/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Exact answers (scmpc_diff, scmpc_subset, scmpc_intersect, scmpc_optimize)
 * against planted differences and an oracle of this file's own.
 *
 * Each trial draws a policy P and plants one rule in a copy P': two or
 * three conditions, on a 64-bit high word, on one ABI of several, on
 * nr == -1, on x32 numbers.  Both are compiled (the restrictive merge) and
 * their programs compared.  The oracle below decides a call from the rules
 * alone (oracle.h for a condition, the merge written out here), never with
 * the library's evaluator.  Required:
 *  - a call that meets the planted rule and that the oracle decides
 *    differently under P and P' lies in a region diff reports (its ABI
 *    and number), and diff reports no region when there is none to find
 *    in a policy pair built to decide alike;
 *  - every region's witness is decided by the oracle as the region says,
 *    differently by the two policies (diff) or less restrictively by the
 *    candidate (subset);
 *  - subset holds where the planted rule only tightens, and fails with a
 *    region where it loosens.
 * Run against a library built with the engine deliberately broken
 * (answer-mutant), the suite must fail.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oracle.h"
#include "scmpc.h"
#include "testutil.h"

#define TRIALS 300
#define MAX_RULES 40

static const char *const calls[] = { "read", "write", "openat", "close", "mmap", "ioctl",
				     "fcntl", "prctl", "futex", "kill", "getpid", "personality",
				     "madvise", "dup3" };
static const enum scmpc_arch abis[] = { SCMPC_ARCH_X86_64, SCMPC_ARCH_X32, SCMPC_ARCH_AARCH64 };

struct trule {
	const char *name;	/* NULL: by number NR on ARCH */
	uint32_t nr;
	enum scmpc_arch arch;	/* NONE: every ABI of the policy */
	uint32_t action;
	struct scmpc_cond c[3];
	size_t n;
};

struct tpol {
	uint32_t def, badarch;
	enum scmpc_arch arches[3];
	size_t narches;
	struct trule r[MAX_RULES + 1];
	size_t n;
};

/* --------------------------------------------------------------- oracle */

/* The kernel's order of actions: the lower (signed) action wins, then
 * the lower data. */
static bool stricter(uint32_t a, uint32_t b)
{
	int32_t x = (int32_t)(a & 0xffff0000U), y = (int32_t)(b & 0xffff0000U);
	return x != y ? x < y : (a & 0xffff) < (b & 0xffff);
}

/* CAND decides less restrictively than BASE, or alike with other data. */
static bool looser(uint32_t base, uint32_t cand)
{
	int32_t x = (int32_t)(base & 0xffff0000U), y = (int32_t)(cand & 0xffff0000U);
	return y > x || (y == x && base != cand);
}

/* The ABI of a call: x86_64's AUDIT_ARCH with bit 30 set is x32. */
static enum scmpc_arch abi_of(const struct tpol *p, const struct seccomp_data *sd)
{
	for (size_t i = 0; i < p->narches; i++) {
		enum scmpc_arch a = p->arches[i];
		if (scmpc_arch_audit(a) != sd->arch)
			continue;
		bool x32call = a != SCMPC_ARCH_AARCH64 && ((uint32_t)sd->nr & 0x40000000U);
		if ((a == SCMPC_ARCH_X32) == x32call)
			return a;
	}
	return SCMPC_ARCH_NONE;
}

/* nr == -1, how a tracer skips a call, belongs to no number range: the
 * first of the policy's ABIs with its AUDIT_ARCH that has rules for -1
 * decides it; with none the default does (README, "Policy semantics"). */
static enum scmpc_arch minus1_abi(const struct tpol *p, uint32_t audit, bool *served)
{
	*served = false;
	for (size_t i = 0; i < p->narches; i++) {
		if (scmpc_arch_audit(p->arches[i]) != audit)
			continue;
		*served = true;
		for (size_t k = 0; k < p->n; k++)
			if (!p->r[k].name && p->r[k].nr == UINT32_MAX && p->r[k].arch == p->arches[i])
				return p->arches[i];
	}
	return SCMPC_ARCH_NONE;
}

static uint32_t oracle(const struct tpol *p, const struct seccomp_data *sd)
{
	enum scmpc_arch a = abi_of(p, sd);
	if ((uint32_t)sd->nr == UINT32_MAX) {
		bool served;
		a = minus1_abi(p, sd->arch, &served);
		if (a == SCMPC_ARCH_NONE)
			return served ? p->def : p->badarch;
	}
	if (a == SCMPC_ARCH_NONE)
		return p->badarch;
	bool compat32 = a == SCMPC_ARCH_X32;
	bool any = false;
	uint32_t best = 0;
	for (size_t i = 0; i < p->n; i++) {
		const struct trule *r = &p->r[i];
		if (r->arch != SCMPC_ARCH_NONE && r->arch != a)
			continue;
		int64_t nr = r->name ? scmpc_syscall_resolve(a, r->name) : (int64_t)r->nr;
		if (nr < 0 || (uint32_t)nr != (uint32_t)sd->nr)
			continue;
		bool all = true;
		for (size_t k = 0; k < r->n; k++)
			all &= oracle_cond(&r->c[k], sd->args[r->c[k].arg], compat32);
		if (all && (!any || stricter(r->action, best))) {
			best = r->action;
			any = true;
		}
	}
	return any ? best : p->def;
}

/* -------------------------------------------------------------- policies */

static uint32_t rand_action(struct testutil_rng *g)
{
	static const uint32_t acts[] = { SCMPC_ACT_ALLOW, SCMPC_ACT_ERRNO(1), SCMPC_ACT_ERRNO(13),
					 SCMPC_ACT_KILL_PROCESS, SCMPC_ACT_TRAP, SCMPC_ACT_LOG,
					 SCMPC_ACT_KILL_THREAD };
	return acts[testutil_rng_below(g, sizeof(acts) / sizeof(acts[0]))];
}

static uint64_t rand_value(struct testutil_rng *g, bool high)
{
	static const uint64_t vals[] = { 0, 1, 5, 40, 0xff, 0x7fffffff, 0x80000000, 0xffffffff,
					 0x100000000ULL, 0x1234567800000005ULL, UINT64_MAX };
	uint64_t v = vals[testutil_rng_below(g, sizeof(vals) / sizeof(vals[0]))];
	if (high)
		v |= (uint64_t)(testutil_rng_below(g, 7) + 1) << 32;
	return v;
}

static struct scmpc_cond rand_cond(struct testutil_rng *g, unsigned arg, bool high)
{
	struct scmpc_cond c = { .arg = arg, .op = (enum scmpc_op)(1 + testutil_rng_below(g, 7)),
				.value = rand_value(g, high) };
	if (c.op == SCMPC_OP_MASKED_EQ) {
		c.value = high ? 0xffff0000ffULL : 0xffULL << (8 * testutil_rng_below(g, 4));
		c.value2 = rand_value(g, high) & c.value;
	}
	return c;
}

static struct trule rand_rule(struct testutil_rng *g, const struct tpol *p, size_t nconds,
			      bool high)
{
	struct trule r = { .name = calls[testutil_rng_below(g, sizeof(calls) / sizeof(calls[0]))],
			   .action = rand_action(g) };
	unsigned used = 0;
	for (size_t k = 0; k < nconds; k++) {
		unsigned arg;
		do
			arg = testutil_rng_below(g, 6);
		while (used & (1U << arg));
		used |= 1U << arg;
		r.c[r.n++] = rand_cond(g, arg, high && k == 0);
	}
	if (p->narches > 1 && testutil_rng_below(g, 4) == 0)
		r.arch = p->arches[testutil_rng_below(g, (uint32_t)p->narches)];
	return r;
}

static void rand_policy(struct testutil_rng *g, struct tpol *p)
{
	memset(p, 0, sizeof(*p));
	p->def = rand_action(g);
	p->badarch = SCMPC_ACT_KILL_PROCESS;
	/* one to three ABIs, x86_64 before x32 when both */
	uint32_t mask = 1 + testutil_rng_below(g, 7);
	for (size_t i = 0; i < 3; i++)
		if (mask & (1U << i))
			p->arches[p->narches++] = abis[i];
	size_t n = testutil_rng_below(g, MAX_RULES - 5);
	for (size_t i = 0; i < n; i++)
		p->r[p->n++] = rand_rule(g, p, testutil_rng_below(g, 3), testutil_rng_below(g, 5) == 0);
}

static scmpc_prog *build(const struct tpol *t)
{
	scmpc_diag *d = scmpc_diag_new();
	scmpc_policy *p = scmpc_policy_new(t->def);
	assert_non_null(p);
	for (size_t i = 0; i < t->narches; i++)
		assert_int_equal(scmpc_policy_add_arch(p, t->arches[i], d), 0);
	assert_int_equal(scmpc_policy_set_bad_arch_action(p, t->badarch, d), 0);
	for (size_t i = 0; i < t->n; i++) {
		const struct trule *r = &t->r[i];
		struct scmpc_rule sr = { .sz = sizeof(sr), .syscall = r->name, .nr = r->nr,
					 .arch = r->arch, .action = r->action, .conds = r->c,
					 .nconds = r->n };
		int rc = scmpc_policy_add_rule(p, &sr, d);
		if (rc < 0)
			fail_msg("rule %zu: %s", i, scmpc_diag_message(d));
	}
	scmpc_prog *prog = NULL;
	if (scmpc_compile(p, NULL, &prog, d) < 0)
		fail_msg("compile: %s", scmpc_diag_message(d));
	scmpc_policy_free(p);
	scmpc_diag_free(d);
	return prog;
}

/* ---------------------------------------------------------------- checks */

static unsigned long regions_checked, planted_found, planted_total, subsets_proven;

/* Every region's witness decided by the oracle as the answer says. */
static void check_regions(const scmpc_answer *ans, const struct tpol *a, const struct tpol *b,
			  bool subset, int trial)
{
	for (size_t i = 0; i < scmpc_answer_count(ans); i++) {
		struct scmpc_region r = { .sz = sizeof(r) };
		assert_int_equal(scmpc_answer_region(ans, i, &r), 0);
		uint32_t x = oracle(a, &r.witness), y = oracle(b, &r.witness);
		if (x != r.action[0] || y != r.action[1])
			fail_msg("trial %d: region %zu (nr %u-%u %s): the oracle says %#x and %#x, "
				 "the answer %#x and %#x", trial, i, r.nr_lo, r.nr_hi, r.args, x, y,
				 r.action[0], r.action[1]);
		if (subset ? !looser(x, y) : x == y)
			fail_msg("trial %d: region %zu does not differ as it should", trial, i);
		if ((uint32_t)r.witness.nr < r.nr_lo || (uint32_t)r.witness.nr > r.nr_hi ||
		    r.witness.arch != r.audit)
			fail_msg("trial %d: region %zu's witness is outside it", trial, i);
		regions_checked++;
	}
}

/* Whether ANS has a region holding CALL's ABI and number. */
static bool region_holds(const scmpc_answer *ans, const struct seccomp_data *call)
{
	for (size_t i = 0; i < scmpc_answer_count(ans); i++) {
		struct scmpc_region r = { .sz = sizeof(r) };
		assert_int_equal(scmpc_answer_region(ans, i, &r), 0);
		if (r.audit == call->arch && (uint32_t)call->nr >= r.nr_lo &&
		    (uint32_t)call->nr <= r.nr_hi)
			return true;
	}
	return false;
}

/* A call meeting rule R on ABI A. */
static struct seccomp_data planted_call(const struct trule *r, enum scmpc_arch a)
{
	uint64_t args[6] = { 0 };
	int64_t nr = r->name ? scmpc_syscall_resolve(a, r->name) : (int64_t)r->nr;
	scmpc_conds_witness(r->c, r->n, args);
	return testutil_sd(a, (uint32_t)nr, args);
}

static void one_trial(struct testutil_rng *g, int trial)
{
	struct tpol a, b;
	rand_policy(g, &a);
	b = a;
	/* the planted rule, one kind per trial */
	struct trule r = rand_rule(g, &b, 2 + testutil_rng_below(g, 2), trial % 3 == 1);
	enum scmpc_arch where = b.arches[testutil_rng_below(g, (uint32_t)b.narches)];
	switch (trial % 5) {
	case 2:	/* one ABI of several */
		r.arch = where;
		break;
	case 3:	/* nr == -1, by number on one ABI */
		if (where != SCMPC_ARCH_AARCH64)
			break;
		r.name = NULL;
		r.nr = UINT32_MAX;
		r.arch = where;
		break;
	case 4:	/* x32 numbers */
		if (where == SCMPC_ARCH_X32)
			r.arch = where;
		break;
	}
	b.r[b.n++] = r;
	scmpc_prog *pa = build(&a), *pb = build(&b);
	scmpc_diag *d = scmpc_diag_new();
	scmpc_answer *ans = NULL;
	int rc = scmpc_diff(scmpc_prog_insns(pa), scmpc_prog_len(pa), scmpc_prog_insns(pb),
			    scmpc_prog_len(pb), NULL, &ans, d);
	if (rc < 0)
		fail_msg("trial %d: diff: %s", trial, scmpc_diag_message(d));
	check_regions(ans, &a, &b, false, trial);
	enum scmpc_arch on = r.arch != SCMPC_ARCH_NONE ? r.arch : where;
	if (r.name && scmpc_syscall_resolve(on, r.name) < 0)
		on = SCMPC_ARCH_NONE;
	struct seccomp_data call;
	bool planted = false;
	if (on != SCMPC_ARCH_NONE) {
		call = planted_call(&r, on);
		if (oracle(&a, &call) != oracle(&b, &call)) {
			planted = true;
			planted_total++;
			if (!region_holds(ans, &call))
				fail_msg("trial %d: the planted difference at nr %d on %s is not "
					 "reported", trial, call.nr, scmpc_arch_name(on));
			planted_found++;
		}
	}
	scmpc_answer_free(ans);

	/* subset both ways: whichever of A and B the planted call finds the
	 * looser must be reported there */
	for (int dir = 0; dir < 2; dir++) {
		const struct tpol *base = dir ? &b : &a, *cand = dir ? &a : &b;
		const scmpc_prog *pbase = dir ? pb : pa, *pcand = dir ? pa : pb;
		ans = NULL;
		rc = scmpc_subset(scmpc_prog_insns(pbase), scmpc_prog_len(pbase),
				  scmpc_prog_insns(pcand), scmpc_prog_len(pcand), NULL, &ans, d);
		if (rc < 0)
			fail_msg("trial %d: subset: %s", trial, scmpc_diag_message(d));
		check_regions(ans, base, cand, true, trial);
		if (planted && looser(oracle(base, &call), oracle(cand, &call)) &&
		    !region_holds(ans, &call))
			fail_msg("trial %d: subset misses the planted call (nr %d)", trial, call.nr);
		if (!scmpc_answer_count(ans))
			subsets_proven++;
		scmpc_answer_free(ans);
	}
	scmpc_diag_free(d);
	scmpc_prog_free(pa);
	scmpc_prog_free(pb);
}

static void test_planted(void **state)
{
	(void)state;
	struct testutil_rng g;
	const char *s = getenv("SCMPC_SEED");
	uint64_t seed = s ? strtoull(s, NULL, 0) : 0xa115e7ULL;
	testutil_rng_seed(&g, seed);
	for (int t = 0; t < TRIALS; t++)
		one_trial(&g, t);
	printf("planted differences: %lu of %lu reported; %lu region witnesses checked by the "
	       "oracle; %lu subsets proven (seed %#" PRIx64 ")\n", planted_found, planted_total,
	       regions_checked, subsets_proven, seed);
	assert_true(planted_total > TRIALS / 4);
}

/* The same programs compared: no region, and a proof over the paths. */
static void test_equal(void **state)
{
	(void)state;
	struct testutil_rng g;
	testutil_rng_seed(&g, 7);
	for (int t = 0; t < 50; t++) {
		struct tpol a;
		rand_policy(&g, &a);
		scmpc_prog *p1 = build(&a);
		/* another layout of the same policy */
		scmpc_diag *d = scmpc_diag_new();
		scmpc_answer *ans = NULL;
		assert_int_equal(scmpc_diff(scmpc_prog_insns(p1), scmpc_prog_len(p1),
					    scmpc_prog_insns(p1), scmpc_prog_len(p1), NULL, &ans, d),
				 0);
		assert_int_equal(scmpc_answer_count(ans), 0);
		assert_true(scmpc_answer_paths(ans) > 0);
		scmpc_answer_free(ans);
		scmpc_diag_free(d);
		scmpc_prog_free(p1);
	}
}

/* intersect: the most restrictive of its inputs on every call, as the
 * oracle says of the two policies. */
static void test_intersect(void **state)
{
	(void)state;
	struct testutil_rng g;
	testutil_rng_seed(&g, 11);
	for (int t = 0; t < 40; t++) {
		struct tpol a, b;
		rand_policy(&g, &a);
		rand_policy(&g, &b);
		scmpc_prog *pa = build(&a), *pb = build(&b), *pi = NULL;
		const struct sock_filter *progs[2] = { scmpc_prog_insns(pa), scmpc_prog_insns(pb) };
		size_t lens[2] = { scmpc_prog_len(pa), scmpc_prog_len(pb) };
		scmpc_diag *d = scmpc_diag_new();
		if (scmpc_intersect(progs, lens, 2, NULL, &pi, NULL, d) < 0)
			fail_msg("intersect %d: %s", t, scmpc_diag_message(d));
		/* every region where the intersection differs from A must be one
		 * where B is the stricter, with B's decision */
		scmpc_answer *ans = NULL;
		assert_int_equal(scmpc_diff(progs[0], lens[0], scmpc_prog_insns(pi),
					    scmpc_prog_len(pi), NULL, &ans, d), 0);
		for (size_t i = 0; i < scmpc_answer_count(ans); i++) {
			struct scmpc_region r = { .sz = sizeof(r) };
			assert_int_equal(scmpc_answer_region(ans, i, &r), 0);
			uint32_t x = oracle(&a, &r.witness), y = oracle(&b, &r.witness);
			uint32_t want = (int32_t)(y & 0xffff0000U) <= (int32_t)(x & 0xffff0000U) ? y : x;
			if ((x & 0xffff0000U) == (y & 0xffff0000U))
				want = y;	/* ties: the newer filter's data */
			if (r.action[1] != want) {
				uint32_t gb = 0;
				scmpc_emulate(progs[1], lens[1], &r.witness, &gb, NULL);
				fail_msg("intersect %d: %#x for A %#x, B %#x (B's program %#x) at "
					 "arch %#x nr %d args %#" PRIx64 " %#" PRIx64 " %#" PRIx64
					 " %#" PRIx64 " %#" PRIx64 " %#" PRIx64, t, r.action[1], x, y,
					 gb, r.witness.arch, r.witness.nr, (uint64_t)r.witness.args[0],
					 (uint64_t)r.witness.args[1], (uint64_t)r.witness.args[2],
					 (uint64_t)r.witness.args[3], (uint64_t)r.witness.args[4],
					 (uint64_t)r.witness.args[5]);
			}
		}
		scmpc_answer_free(ans);
		scmpc_diag_free(d);
		scmpc_prog_free(pa);
		scmpc_prog_free(pb);
		scmpc_prog_free(pi);
	}
}

/* A big-endian ABI: the witness's arguments are laid out as its kernel
 * lays them out (high word first), as scmpc_emulate() reads them. */
static void test_big_endian(void **state)
{
	(void)state;
	struct tpol a = { .def = SCMPC_ACT_ALLOW, .badarch = SCMPC_ACT_KILL_PROCESS,
			  .arches = { SCMPC_ARCH_S390X }, .narches = 1 };
	struct tpol b = a;
	b.r[b.n++] = (struct trule){ .name = "read", .action = SCMPC_ACT_ERRNO(7), .n = 2,
				     .c = { { .arg = 0, .op = SCMPC_OP_EQ, .value = 0x1234567800000005ULL },
					    { .arg = 2, .op = SCMPC_OP_GT, .value = 0x100000000ULL } } };
	scmpc_prog *pa = build(&a), *pb = build(&b);
	scmpc_diag *d = scmpc_diag_new();
	scmpc_answer *ans = NULL;
	assert_int_equal(scmpc_diff(scmpc_prog_insns(pa), scmpc_prog_len(pa), scmpc_prog_insns(pb),
				    scmpc_prog_len(pb), NULL, &ans, d), 0);
	/* a2 > 1 << 32: the high word 1 with a low word above 0, or above 1 */
	assert_int_equal(scmpc_answer_count(ans), 2);
	for (size_t i = 0; i < 2; i++) {
		struct scmpc_region r = { .sz = sizeof(r) };
		assert_int_equal(scmpc_answer_region(ans, i, &r), 0);
		assert_int_equal(r.arch, SCMPC_ARCH_S390X);
		assert_true(r.witness.args[0] == 0x1234567800000005ULL);
		assert_true(r.witness.args[2] > 0x100000000ULL);
		assert_int_equal(oracle(&b, &r.witness), SCMPC_ACT_ERRNO(7));
		assert_int_equal(oracle(&a, &r.witness), SCMPC_ACT_ALLOW);
		assert_non_null(strstr(r.args, "a0 == 0x1234567800000005"));
	}
	scmpc_answer_free(ans);
	scmpc_diag_free(d);
	scmpc_prog_free(pa);
	scmpc_prog_free(pb);
}

/* The API's contract: refusals and the growable region struct. */
static void test_api(void **state)
{
	(void)state;
	static const struct sock_filter allow[] = { BPF_STMT(BPF_RET | BPF_K, SCMPC_ACT_ALLOW) };
	static const struct sock_filter bad[] = { BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 3),
						  BPF_STMT(BPF_RET | BPF_K, 0) };
	scmpc_diag *d = scmpc_diag_new();
	scmpc_answer *ans = NULL;
	assert_int_equal(scmpc_diff(allow, 1, allow, 1, NULL, NULL, d), -EINVAL);
	assert_int_equal(scmpc_diff(allow, 1, bad, 2, NULL, &ans, d), -EINVAL);
	assert_null(ans);
	struct scmpc_compare_opts o = { .sz = sizeof(o), .flags = 0x80 };
	assert_int_equal(scmpc_diff(allow, 1, allow, 1, &o, &ans, d), -EINVAL);
	static const struct sock_filter deny[] = {
		BPF_STMT(BPF_RET | BPF_K, SCMPC_ACT_ERRNO(5)) };
	/* every call differs: one region per AUDIT_ARCH scmpc knows (x86_64's
	 * cut at x32's bit 30) and one for the values no ABI has, last */
	assert_int_equal(scmpc_diff(allow, 1, deny, 1, NULL, &ans, d), 0);
	size_t n = scmpc_answer_count(ans);
	assert_true(n > 10);
	struct scmpc_region r = { .sz = sizeof(r) };
	bool x86_64 = false, x32 = false;
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(scmpc_answer_region(ans, i, &r), 0);
		assert_int_equal(r.action[0], SCMPC_ACT_ALLOW);
		assert_int_equal(r.action[1], SCMPC_ACT_ERRNO(5));
		assert_true(r.other_arches == (i == n - 1));
		x86_64 |= r.arch == SCMPC_ARCH_X86_64 && r.nr_lo == 0 && r.nr_hi == 0x3fffffff;
		x32 |= r.arch == SCMPC_ARCH_X32 && r.nr_lo == 0x40000000 && r.nr_hi == UINT32_MAX;
	}
	assert_true(x86_64 && x32);
	assert_int_equal(r.nr_lo, 0);
	assert_int_equal(r.nr_hi, UINT32_MAX);
	r.sz = 2;
	assert_int_equal(scmpc_answer_region(ans, 0, &r), -EINVAL);
	r.sz = sizeof(r);
	assert_int_equal(scmpc_answer_region(ans, n, &r), -EINVAL);
	scmpc_answer_free(ans);
	scmpc_diag_free(d);
}

/* What a progress callback was told: each call must be STAGE's next step
 * of TOTAL, in order. */
struct step_seen {
	const char *stage;
	uint64_t total;
	unsigned calls;
	uint64_t last;
	bool order_ok;
};

static void step_note(void *user, const char *stage, uint64_t done, uint64_t total)
{
	struct step_seen *s = user;
	s->order_ok &= !strcmp(stage, s->stage) && total == s->total && done == s->last + 1;
	s->last = done;
	s->calls++;
}

/* scmpc_optimize() reports its six steps (the lift, the input's worst
 * path, three candidates, the proof) through the progress callback, in
 * order, ending at 6 of 6; a progress struct with unknown fields set is
 * refused. */

static void test_optimize_progress(void **state)
{
	(void)state;
	scmpc_policy *p = scmpc_policy_new(SCMPC_ACT_ERRNO(1));
	assert_int_equal(scmpc_policy_add_arch(p, SCMPC_ARCH_X86_64, NULL), 0);
	struct scmpc_rule r = { .sz = sizeof(r), .syscall = "read", .action = SCMPC_ACT_ALLOW };
	assert_true(scmpc_policy_add_rule(p, &r, NULL) >= 0);
	scmpc_prog *in = NULL, *out = NULL;
	assert_int_equal(scmpc_compile(p, NULL, &in, NULL), 0);

	struct step_seen seen = { .stage = "optimize", .total = 6, .order_ok = true };
	struct scmpc_progress pr = { .sz = sizeof(pr), .fn = step_note, .user = &seen };
	struct scmpc_lift_opts o = { .sz = sizeof(o), .progress = &pr };
	scmpc_diag *d = scmpc_diag_new();
	assert_int_equal(scmpc_optimize(scmpc_prog_insns(in), scmpc_prog_len(in), &o, &out, NULL,
					NULL, d), 0);
	assert_int_equal(seen.calls, 6);
	assert_true(seen.order_ok);
	scmpc_prog_free(out);
	out = NULL;

	struct { struct scmpc_progress pr; uint64_t extra; } big = { pr, 1 };
	big.pr.sz = sizeof(big);
	o.progress = &big.pr;
	assert_int_equal(scmpc_optimize(scmpc_prog_insns(in), scmpc_prog_len(in), &o, &out, NULL,
					NULL, d), -EINVAL);
	assert_null(out);
	scmpc_diag_free(d);
	scmpc_prog_free(in);
	scmpc_policy_free(p);
}

/* scmpc_intersect() and scmpc_canary() report their three steps (lift,
 * compile, proof) in order under their own stage names; a progress
 * struct with unknown fields set is refused before any work. */
static void test_answer_progress(void **state)
{
	(void)state;
	scmpc_policy *p = scmpc_policy_new(SCMPC_ACT_ALLOW), *q = scmpc_policy_new(SCMPC_ACT_ALLOW);
	assert_int_equal(scmpc_policy_add_arch(p, SCMPC_ARCH_X86_64, NULL), 0);
	assert_int_equal(scmpc_policy_add_arch(q, SCMPC_ARCH_X86_64, NULL), 0);
	struct scmpc_rule r = { .sz = sizeof(r), .syscall = "uname", .action = SCMPC_ACT_ERRNO(1) };
	assert_true(scmpc_policy_add_rule(q, &r, NULL) >= 0);
	scmpc_prog *a = NULL, *b = NULL, *out = NULL;
	assert_int_equal(scmpc_compile(p, NULL, &a, NULL), 0);
	assert_int_equal(scmpc_compile(q, NULL, &b, NULL), 0);
	const struct sock_filter *progs[2] = { scmpc_prog_insns(a), scmpc_prog_insns(b) };
	size_t lens[2] = { scmpc_prog_len(a), scmpc_prog_len(b) };
	scmpc_diag *d = scmpc_diag_new();

	struct step_seen seen = { .stage = "intersect", .total = 3, .order_ok = true };
	struct scmpc_progress pr = { .sz = sizeof(pr), .fn = step_note, .user = &seen };
	struct scmpc_compare_opts o = { .sz = sizeof(o), .progress = &pr };
	assert_int_equal(scmpc_intersect(progs, lens, 2, &o, &out, NULL, d), 0);
	assert_int_equal(seen.calls, 3);
	assert_true(seen.order_ok);
	scmpc_prog_free(out);
	out = NULL;

	seen = (struct step_seen){ .stage = "canary", .total = 3, .order_ok = true };
	assert_int_equal(scmpc_canary(progs[0], lens[0], progs[1], lens[1], &o, &out, NULL, d), 0);
	assert_int_equal(seen.calls, 3);
	assert_true(seen.order_ok);
	scmpc_prog_free(out);
	out = NULL;

	struct { struct scmpc_progress pr; uint64_t extra; } big = { pr, 1 };
	big.pr.sz = sizeof(big);
	o.progress = &big.pr;
	seen.calls = 0;
	assert_int_equal(scmpc_intersect(progs, lens, 2, &o, &out, NULL, d), -EINVAL);
	assert_int_equal(scmpc_canary(progs[0], lens[0], progs[1], lens[1], &o, &out, NULL, d),
			 -EINVAL);
	assert_null(out);
	assert_int_equal(seen.calls, 0);
	scmpc_diag_free(d);
	scmpc_prog_free(a);
	scmpc_prog_free(b);
	scmpc_policy_free(p);
	scmpc_policy_free(q);
}

/* scmpc_compile() reports its three steps (views, lowering and layout,
 * the check) under "compile"; a malformed progress struct is refused. */
static void test_compile_progress(void **state)
{
	(void)state;
	scmpc_policy *p = scmpc_policy_new(SCMPC_ACT_ERRNO(1));
	assert_int_equal(scmpc_policy_add_arch(p, SCMPC_ARCH_X86_64, NULL), 0);
	struct scmpc_rule r = { .sz = sizeof(r), .syscall = "read", .action = SCMPC_ACT_ALLOW };
	assert_true(scmpc_policy_add_rule(p, &r, NULL) >= 0);
	struct step_seen seen = { .stage = "compile", .total = 3, .order_ok = true };
	struct scmpc_progress pr = { .sz = sizeof(pr), .fn = step_note, .user = &seen };
	struct scmpc_compile_opts o = { .sz = sizeof(o), .progress = &pr };
	scmpc_prog *out = NULL;
	assert_int_equal(scmpc_compile(p, &o, &out, NULL), 0);
	assert_int_equal(seen.calls, 3);
	assert_true(seen.order_ok);
	scmpc_prog_free(out);
	out = NULL;
	pr.sz = 4;
	assert_int_equal(scmpc_compile(p, &o, &out, NULL), -EINVAL);
	assert_null(out);
	scmpc_policy_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_api),
		cmocka_unit_test(test_equal),
		cmocka_unit_test(test_planted),
		cmocka_unit_test(test_intersect),
		cmocka_unit_test(test_big_endian),
		cmocka_unit_test(test_optimize_progress),
		cmocka_unit_test(test_answer_progress),
		cmocka_unit_test(test_compile_progress),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
