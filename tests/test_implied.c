/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * No test whose outcome is implied (tests/implied.h): on every program
 * scmpc emits, each conditional jump with two distinct targets is taken
 * both ways by some input.  Checked with the engine, exactly, over the
 * packaged profiles on four ABIs, the benchmark's families and random
 * policies, in each layout the compiler offers.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "families.h"
#include "implied.h"
#include "scmpc.h"
#include "testutil.h"

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

static const unsigned layouts[] = { 0, SCMPC_COMPILE_SMALLEST, SCMPC_COMPILE_SHORTEST };

/* Programs walked, and the ones the engine could not walk in its bound. */
static unsigned walked, too_many;

static void print_prog(const scmpc_prog *prog)
{
	char *text = NULL;
	size_t n;
	if (scmpc_format(scmpc_prog_insns(prog), scmpc_prog_len(prog), SCMPC_FORMAT_TEXT, NULL,
			 &text, &n, NULL) == 0)
		fprintf(stderr, "%s", text);
	free(text);
}

/* P compiled in every layout: no implied test in any program.  False
 * (after printing the policy and the program) when there is one. */
static bool none_implied(const scmpc_policy *p, const char *what)
{
	for (size_t l = 0; l < N_OF(layouts); l++) {
		struct scmpc_compile_opts o = { .sz = sizeof(o), .flags = layouts[l] };
		scmpc_prog *prog = NULL;
		if (scmpc_compile(p, &o, &prog, NULL) < 0)
			continue;	/* too big, or refused: nothing emitted */
		struct implied r;
		int err = implied_tests(scmpc_prog_insns(prog), scmpc_prog_len(prog), 200000, &r);
		if (err == -E2BIG) {
			too_many++;
			scmpc_prog_free(prog);
			continue;
		}
		assert_int_equal(err, 0);
		walked++;
		if (r.implied) {
			fprintf(stderr, "%s (layout flags %#x): %zu of %zu tests implied, the first "
				"at insn %ld (always %s)\n", what, layouts[l], r.implied, r.jumps,
				r.first, r.first_taken ? "taken" : "not taken");
			if (getenv("IMPLIED_VERBOSE")) {
				testutil_policy_dump(stderr, p);
				print_prog(prog);
			}
			scmpc_prog_free(prog);
			return false;
		}
		scmpc_prog_free(prog);
	}
	return true;
}

static scmpc_policy *new_policy(uint32_t def, enum scmpc_arch a)
{
	scmpc_policy *p = scmpc_policy_new(def);
	assert_non_null(p);
	assert_int_equal(scmpc_policy_add_arch(p, a, NULL), 0);
	return p;
}

/* ------------------------------------------------------------ profiles */

static void test_profiles(void **state)
{
	static const enum scmpc_arch abis[] = { SCMPC_ARCH_X86_64, SCMPC_ARCH_AARCH64,
						SCMPC_ARCH_I386, SCMPC_ARCH_S390X };
	unsigned bad = 0, seen = 0;
	(void)state;
	for (size_t i = 0; testutil_profile_names[i]; i++)
		for (size_t a = 0; a < N_OF(abis); a++) {
			scmpc_policy *p = testutil_policy(testutil_profile_names[i], abis[a]);
			char what[128];
			if (!p)
				continue;
			seen++;
			snprintf(what, sizeof(what), "%s on %s", testutil_profile_names[i],
				 scmpc_arch_name(abis[a]));
			bad += !none_implied(p, what);
			scmpc_policy_free(p);
		}
	if (!seen)
		skip();
	assert_int_equal(bad, 0);
}

/* ------------------------------------------------------------ families */

/* The benchmark's families (tests/families.h), each as bench_compare
 * builds it, and Firecracker's shapes under more seeds. */
static void test_families(void **state)
{
	unsigned bad = 0;
	char what[96];
	(void)state;
	struct { const char *what; scmpc_policy *p; } fixed[] = {
		{ "tiny 1", family_tiny(1) }, { "tiny 2", family_tiny(2) },
		{ "tiny 3", family_tiny(3) },
		{ "2000 values", family_value_set("ioctl", 2000, false) },
		{ "300 64-bit values", family_value_set("ioctl", 300, true) },
		{ "3 x 19 64-bit values", family_wide_sets(false) },
		{ "3 x 19 64-bit values of their own", family_wide_sets(true) },
		{ "VMM-like", family_vmm() }, { "two rules, 64-bit", family_two_rule_64() },
		{ "91-name allowlist", family_allowlist(91) },
	};
	for (size_t i = 0; i < N_OF(fixed); i++) {
		assert_non_null(fixed[i].p);
		bad += !none_implied(fixed[i].p, fixed[i].what);
		scmpc_policy_free(fixed[i].p);
	}
	for (unsigned r = 0; r <= 8; r++) {
		scmpc_policy *p = family_synthetic(300, r);
		assert_non_null(p);
		snprintf(what, sizeof(what), "300 calls x %u values", r);
		bad += !none_implied(p, what);
		scmpc_policy_free(p);
	}
	for (unsigned n = 1; n <= 64; n++) {
		scmpc_policy *p = family_scattered(n);
		assert_non_null(p);
		snprintf(what, sizeof(what), "%u scattered calls", n);
		bad += !none_implied(p, what);
		scmpc_policy_free(p);
	}
	for (unsigned kind = 0; kind < 3; kind++)
		for (unsigned seed = 0; seed < 8; seed++)
			for (int qword = 0; qword < 2; qword++) {
				scmpc_policy *p = family_firecracker(kind, seed, qword);
				assert_non_null(p);
				snprintf(what, sizeof(what), "Firecracker-shaped %u seed %u%s", kind,
					 seed, qword ? " (64-bit)" : "");
				bad += !none_implied(p, what);
				scmpc_policy_free(p);
			}
	assert_int_equal(bad, 0);
}

/* ------------------------------------------------------------- random */

static const char *const rnd_names[] = {
	"read", "write", "openat", "socket", "clone", "personality", "ioctl", "mmap",
	"mprotect", "futex", "prctl", "fcntl", "setsockopt", "kill", "dup3", "bpf",
};

static const uint64_t rnd_consts[] = {
	0, 1, 2, 3, 7, 0x80, 0xffff, 0x7fffffff, 0x80000000, 0xffffffff, 0x100000000ULL,
	0x100000001ULL, 0x1ffffffffULL, 0xffffffff00000000ULL, 0xffffffffffffffffULL,
	0x8000000000000000ULL, 0x7fffffffffffffffULL, 0x1234567800000005ULL,
};

static uint64_t rnd_const(struct testutil_rng *r)
{
	if (testutil_rng_below(r, 3) == 0) {
		uint64_t x = testutil_rng_next(r);
		return x >> testutil_rng_below(r, 64);
	}
	return rnd_consts[testutil_rng_below(r, N_OF(rnd_consts))];
}

static scmpc_policy *random_policy(struct testutil_rng *r)
{
	static const enum scmpc_arch abis[] = { SCMPC_ARCH_X86_64, SCMPC_ARCH_AARCH64,
						SCMPC_ARCH_I386, SCMPC_ARCH_S390X };
	static const uint32_t acts[] = { SCMPC_ACT_ALLOW, SCMPC_ACT_ALLOW, SCMPC_ACT_ERRNO(1),
					 SCMPC_ACT_ERRNO(13), SCMPC_ACT_TRAP, SCMPC_ACT_LOG,
					 SCMPC_ACT_KILL_PROCESS };
	scmpc_policy *p = new_policy(acts[2 + testutil_rng_below(r, N_OF(acts) - 2)],
				     abis[testutil_rng_below(r, N_OF(abis))]);
	if (testutil_rng_below(r, 4) == 0) {
		enum scmpc_arch extra = abis[testutil_rng_below(r, N_OF(abis))];
		if (extra != scmpc_policy_arch(p, 0))
			scmpc_policy_add_arch(p, extra, NULL);
	}
	/* libseccomp's merge: its comparison trees, which test a word once
	 * per rule */
	if (testutil_rng_below(r, 3) == 0)
		assert_int_equal(scmpc_policy_set_merge(p, SCMPC_MERGE_LIBSECCOMP, NULL), 0);
	/* a set of values on one argument, some of them 64-bit */
	if (testutil_rng_below(r, 3) == 0) {
		const char *name = rnd_names[testutil_rng_below(r, N_OF(rnd_names))];
		unsigned arg = testutil_rng_below(r, 3), n = 2 + testutil_rng_below(r, 40);
		uint64_t hi = testutil_rng_below(r, 2) ? 0 : rnd_const(r) << 32;
		uint64_t v = testutil_rng_below(r, 100);
		for (unsigned i = 0; i < n; i++) {
			struct scmpc_cond c = { .arg = arg, .op = SCMPC_OP_EQ,
						.value = hi | (v += 1 + testutil_rng_below(r, 5)) };
			if (testutil_rng_below(r, 6) == 0)
				c.value ^= rnd_const(r) << 32;
			if (testutil_rng_below(r, 8) == 0)
				c.op = 1 + testutil_rng_below(r, 7);
			struct scmpc_rule ru = { .sz = sizeof(ru), .syscall = name,
						 .action = acts[testutil_rng_below(r, 3)],
						 .conds = &c, .nconds = 1 };
			scmpc_policy_add_rule(p, &ru, NULL);
		}
	}
	unsigned nrules = 1 + testutil_rng_below(r, testutil_rng_below(r, 3) ? 6 : 24);
	for (unsigned i = 0; i < nrules; i++) {
		const char *name = rnd_names[testutil_rng_below(r, N_OF(rnd_names))];
		uint32_t act = acts[testutil_rng_below(r, N_OF(acts))];
		struct scmpc_cond c[3];
		unsigned nc = testutil_rng_below(r, 4);
		for (unsigned k = 0; k < nc; k++) {
			c[k] = (struct scmpc_cond){ .arg = testutil_rng_below(r, 3),
						    .op = 1 + testutil_rng_below(r, 7),
						    .value = rnd_const(r) };
			if (c[k].op == SCMPC_OP_MASKED_EQ)
				c[k].value2 = testutil_rng_below(r, 4) ? c[k].value & rnd_const(r)
								      : rnd_const(r);
			if (testutil_rng_below(r, 10) == 0)
				c[k].flags = SCMPC_COND_32BIT;
		}
		struct scmpc_rule ru = { .sz = sizeof(ru), .syscall = name, .action = act,
					 .conds = c, .nconds = nc };
		scmpc_policy_add_rule(p, &ru, NULL);	/* refusals (duplicates) are fine */
	}
	return p;
}

static void test_random(void **state)
{
	unsigned bad = 0, n = getenv("IMPLIED_RANDOM") ? (unsigned)atoi(getenv("IMPLIED_RANDOM"))
						       : 1500;
	(void)state;
	for (unsigned i = 0; i < n && bad < 10; i++) {
		struct testutil_rng r;
		char what[64];
		testutil_rng_seed(&r, 0x1a2b0000 + i);
		scmpc_policy *p = random_policy(&r);
		snprintf(what, sizeof(what), "random policy %u", i);
		bad += !none_implied(p, what);
		scmpc_policy_free(p);
	}
	printf("%u programs walked, %u past the path bound\n", walked, too_many);
	assert_int_equal(bad, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_profiles),
		cmocka_unit_test(test_families),
		cmocka_unit_test(test_random),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
