/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Differential tests.  Every probe is decided by
 *   - scmpc's optimized program and its SCMPC_COMPILE_NAIVE program, which
 *     must both give what the IR gives (policy_decide(), the body of
 *     scmpc_policy_eval(), which is itself checked on every 16th probe),
 *     everywhere;
 *   - libseccomp 2.5.4 at optimize levels 1 and 2 (tests/lsc_ref.c), which
 *     must give the IR's answer except for the differences listed below.
 * All programs run in scmpc_emulate().  The probes: every AUDIT_ARCH of the
 * five ABIs plus two foreign ones; numbers 0..1023 (and 0x40000000 + 0..1023
 * under X86_64), 0x3fffffff, 0x7fffffff, 0x80000000, 0xffffffff and their
 * neighbours, each named number +-1, the table ends, ARM's private range;
 * argument vectors built from the rules' constants for calls with
 * conditions (testutil_arg_vectors()).
 *
 * Allowed differences from libseccomp, decided by lsc_expect() and counted
 * per kind in the log:
 *  (a) i386/arm: a constant with a non-zero high word.  scmpc folds such a
 *      condition (no 32-bit value equals 1 << 32), libseccomp compares its
 *      low word.  Calls with such conditions are skipped.  High argument
 *      words themselves are compared: neither compiler reads them there.
 *  (b) The unknown-syscall range (runc's ENOSYS stub, set by the JSON front
 *      end): a number above the ABI's threshold that no rule names gets the
 *      unknown action from scmpc; libseccomp cannot compare numbers, so it
 *      must give the default action there, which is checked.
 *  (c) KILL_PROCESS vs KILL_THREAD for a bad arch: none; the reference sets
 *      libseccomp's bad-arch action to the policy's.
 *  (d) i386 socketcall(102) and ipc(117), when the policy has i386 rules
 *      for socket or SysV IPC calls: libseccomp also adds those rules,
 *      multiplexed, to socketcall/ipc with an arg0 test; for scmpc they are
 *      ordinary calls.  Skipped.  (The direct numbers are compared.)
 *  (e) Rules with different actions for one call that may match together
 *      (scmpc: the most restrictive wins; libseccomp: its tree decides), and
 *      a default-action rule overlapping a less restrictive one (libseccomp
 *      refuses the rule).  Calls with such rules are skipped.
 *  (f) MASKED_EQ whose expected value has bits outside the mask: libseccomp
 *      masks it, (arg & m) == (v & m); scmpc, as OCI writes it, never
 *      matches.  Calls with such a rule are skipped.
 *  (g) none: on x32 both compare the low word of each argument (x32 is
 *      ILP32), so high words are compared like any other probe; wide
 *      constants fall under (a).
 *  (h) libseccomp 2.5.4 tree-merge bugs: calls with two rules testing a
 *      common argument where one has several conditions, or one is
 *      KILL_THREAD, or a constant on that argument has a non-zero high word.
 *      Skipped; reproducers in tree_merge_unsafe() (lsc_ref.c).
 *  (i) SCMPC_MERGE_LIBSECCOMP calls with several rules where one has the
 *      default action or only always-true MASKED_EQ conditions (see
 *      merge_model_bits() in lsc_ref.c).  Skipped.
 * Policies libseccomp cannot express (SCMPC_COND_32BIT, two conditions on
 * one argument, numbers it cannot name) are not compared with it.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/audit.h>
#include <cmocka.h>

#include "internal.h"
#include "lsc_ref.h"
#include "testutil.h"

enum {
	P_OPT,
	P_NAIVE,
	P_LSC1,
	P_LSC2,
	NPROG
};
static const char *const prog_name[NPROG] = {
	"scmpc", "scmpc-naive", "libseccomp-L1", "libseccomp-L2",
};

enum why {
	W_EQUAL,	/* must match the IR */
	W_UNKNOWN,	/* (b) must be the default action */
	W_WIDE32,	/* (a) skipped */
	W_MUX,		/* (d) skipped */
	W_OVERLAP,	/* (e) skipped */
	W_MASKED,	/* (f) skipped */
	W_X32,		/* (g) skipped */
	W_TREE,		/* (h) skipped */
	W_MERGE_MODEL,	/* (i) skipped */
	NWHY
};
static const char *const why_name[NWHY] = {
	"compared", "(b) unknown range", "(a) 64-bit constant",
	"(d) i386 multiplexing", "(e) overlapping rules", "(f) MASKED_EQ outside mask",
	"(g) x32 high words", "(h) libseccomp tree merge",
	"(i) merge model",
};

struct diff {
	const char *label;
	const scmpc_policy *p;
	struct arch_view views[SCMPC_ARCH_COUNT];
	struct lsc_call_diff *cd;
	size_t ncd;
	struct sock_filter *insns[NPROG];
	size_t len[NPROG];
	bool have[NPROG];
	unsigned long count[NPROG][NWHY];
	unsigned long probes, mismatches;
	bool mux;		/* lsc_policy_multiplexes() */
	bool dumped;
	bool quiet;		/* random policies: print only on mismatch */
};

#define MAX_PRINTED 8		/* probes per policy */
#define MAX_POLICIES_PRINTED 10	/* failing random policies */
static unsigned policies_printed;
static unsigned lsc_hangs;	/* libseccomp compiles abandoned (lsc_compile) */

/* ---------------------------------------------------------------- setup */

static int compile_scmpc(struct diff *t, int k, unsigned flags)
{
	struct scmpc_compile_opts o = { .sz = sizeof(o), .flags = flags };
	scmpc_diag *d = scmpc_diag_new();
	scmpc_prog *prog = NULL;
	int rc = scmpc_compile(t->p, &o, &prog, d);
	if (rc < 0) {
		fprintf(stderr, "%s: %s failed: %s (%s)\n", t->label, prog_name[k],
			scmpc_diag_message(d), scmpc_diag_where(d));
		testutil_policy_dump(stderr, t->p);
		scmpc_diag_free(d);
		return rc;
	}
	scmpc_diag_free(d);
	t->len[k] = scmpc_prog_len(prog);
	t->insns[k] = malloc(t->len[k] * sizeof(struct sock_filter));
	assert_non_null(t->insns[k]);
	memcpy(t->insns[k], scmpc_prog_insns(prog), t->len[k] * sizeof(struct sock_filter));
	scmpc_prog_free(prog);
	t->have[k] = true;
	return 0;
}

/* Returns 0, or the libseccomp error when the policy is beyond it. */
static int compile_lsc(struct diff *t, int k, int level)
{
	char err[256];
	int rc = lsc_compile(t->p, level, &t->insns[k], &t->len[k], err, sizeof(err));
	if (rc == -ETIMEDOUT)
		lsc_hangs++;
	if (rc < 0) {
		if (!t->quiet)
			fprintf(stderr, "%s: %s not compared: %s\n", t->label, prog_name[k], err);
		return rc;
	}
	t->have[k] = true;
	return 0;
}

/* Builds every program.  Returns false, after printing why, when scmpc
 * cannot compile the policy; libseccomp failing only leaves it out. */
static bool diff_init(struct diff *t, const char *label, const scmpc_policy *p, bool quiet)
{
	memset(t, 0, sizeof(*t));
	t->label = label;
	t->p = p;
	t->quiet = quiet;
	assert_int_equal(policy_views_init(p, t->views, NULL), 0);
	long n = lsc_call_diffs(p, &t->cd);
	assert_true(n >= 0);
	t->ncd = (size_t)n;
	if (compile_scmpc(t, P_OPT, 0) < 0 || compile_scmpc(t, P_NAIVE, SCMPC_COMPILE_NAIVE) < 0)
		return false;
	compile_lsc(t, P_LSC1, 1);
	compile_lsc(t, P_LSC2, 2);
	t->mux = lsc_policy_multiplexes(p);
	return true;
}

static void diff_fini(struct diff *t)
{
	for (int k = 0; k < NPROG; k++)
		free(t->insns[k]);
	free(t->cd);
	policy_views_fini(t->p, t->views, t->p->narches);
}

/* ------------------------------------------------------------ comparison */

static const struct arch_view *view_of(const struct diff *t, enum scmpc_arch a)
{
	for (size_t i = 0; i < t->p->narches; i++)
		if (t->views[i].arch == a)
			return &t->views[i];
	return NULL;
}

static bool audit_in_policy(const scmpc_policy *p, uint32_t audit)
{
	for (size_t i = 0; i < p->narches; i++)
		if (scmpc_arch_audit(p->arches[i]) == audit)
			return true;
	return false;
}

/* What a libseccomp program must answer for SD (see the header comment);
 * *EXPECT is set for W_EQUAL and W_UNKNOWN. */
static enum why lsc_expect(const struct diff *t, const struct seccomp_data *sd, uint32_t ir,
			   uint32_t *expect)
{
	const scmpc_policy *p = t->p;
	uint32_t nr = (uint32_t)sd->nr;
	enum scmpc_arch a = arch_of_call(sd->arch, nr);
	const struct arch_view *v = view_of(t, a);

	*expect = ir;
	if (!v || nr == 0xffffffffU || !audit_in_policy(p, sd->arch))
		return W_EQUAL;
	if (t->mux && a == SCMPC_ARCH_I386 && (nr == 102 || nr == 117))
		return W_MUX;
	unsigned bits = lsc_call_diff_find(t->cd, t->ncd, a, nr);
	if (bits & (LSC_DIFF_OVERLAP | LSC_DIFF_DEFAULT_RULE))
		return W_OVERLAP;
	if (bits & LSC_DIFF_WIDE32)
		return W_WIDE32;
	if (bits & LSC_DIFF_MASKED)
		return W_MASKED;
	if (bits & LSC_DIFF_TREE)
		return W_TREE;
	if (bits & LSC_DIFF_MERGE)
		return W_MERGE_MODEL;
	size_t lo, hi;
	arch_view_find(v, nr, &lo, &hi);
	if (lo == hi && arch_view_fallback(p, v, nr) != p->def_action) {
		*expect = p->def_action;
		return W_UNKNOWN;
	}
	return W_EQUAL;
}

static void report(struct diff *t, const struct seccomp_data *sd, uint32_t ir, int rule,
		   const uint32_t *got, const bool *ran)
{
	if (t->mismatches >= MAX_PRINTED)
		return;
	if (!t->dumped) {
		if (policies_printed++ >= MAX_POLICIES_PRINTED) {
			t->mismatches = MAX_PRINTED;	/* silence this policy */
			return;
		}
		fprintf(stderr, "=== mismatch in %s\n", t->label);
		testutil_policy_dump(stderr, t->p);
		t->dumped = true;
	}
	testutil_sd_dump(stderr, sd);
	fprintf(stderr, "  IR (policy_decide):   %s (rule %d)\n", testutil_act(ir), rule);
	for (int k = 0; k < NPROG; k++)
		if (ran[k])
			fprintf(stderr, "  %-14s %s\n", prog_name[k], testutil_act(got[k]));
}

static void probe(struct diff *t, const struct seccomp_data *sd)
{
	int rule;
	/* The IR's decision through the views built once per policy;
	 * scmpc_policy_eval() rebuilds them on every call (resolving every
	 * name), so it is checked on every 16th probe only. */
	uint32_t ir = policy_decide(t->p, t->views, sd, &rule);
	uint32_t got[NPROG];
	bool ran[NPROG] = { false }, bad = false;

	if (t->probes++ % 16 == 0) {
		int rule2;
		uint32_t pub = scmpc_policy_eval(t->p, sd, &rule2);
		if (pub != ir || rule2 != rule) {
			fprintf(stderr, "%s: scmpc_policy_eval says %s (rule %d), the views %s (rule %d)\n",
				t->label, testutil_act(pub), rule2, testutil_act(ir), rule);
			bad = true;
		}
	}
	for (int k = 0; k < NPROG; k++) {
		if (!t->have[k])
			continue;
		int rc = scmpc_emulate(t->insns[k], t->len[k], sd, &got[k], NULL);
		if (rc < 0) {
			fprintf(stderr, "%s: %s: scmpc_emulate failed (%d)\n", t->label,
				prog_name[k], rc);
			bad = true;
			continue;
		}
		ran[k] = true;
		if (k == P_OPT || k == P_NAIVE) {
			/* No exceptions: both must be the IR. */
			t->count[k][W_EQUAL]++;
			bad |= got[k] != ir;
			continue;
		}
		uint32_t expect;
		enum why w = lsc_expect(t, sd, ir, &expect);
		t->count[k][w]++;
		if (w == W_EQUAL || w == W_UNKNOWN)
			bad |= got[k] != expect;
	}
	if (bad) {
		report(t, sd, ir, rule, got, ran);
		t->mismatches++;
	}
}

/* ------------------------------------------------------------- numbers */

struct nums {
	uint32_t *v;
	size_t n, cap;
};

static void nums_add(struct nums *s, uint32_t x)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 256;
		s->v = realloc(s->v, s->cap * sizeof(*s->v));
		assert_non_null(s->v);
	}
	s->v[s->n++] = x;
}

static int cmp_u32(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	return (a > b) - (a < b);
}

static void nums_unique(struct nums *s)
{
	if (s->n < 2)
		return;
	qsort(s->v, s->n, sizeof(*s->v), cmp_u32);
	size_t w = 1;
	for (size_t i = 1; i < s->n; i++)
		if (s->v[i] != s->v[w - 1])
			s->v[w++] = s->v[i];
	s->n = w;
}

/* Numbers probed under AUDIT: FULL adds 0..1023 (and the x32 block on
 * X86_64); every rule's number, its neighbours, the unknown threshold and
 * the special boundaries are always in. */
static void numbers_for(const struct diff *t, uint32_t audit, bool full, struct nums *s)
{
	static const uint32_t bounds[] = { 0x3fffffffU, 0x40000000U, 0x7fffffffU, 0x80000000U,
					   0x80000001U, 0xbfffffffU, 0xc0000000U, 0xc0000001U,
					   0xfffffffeU, 0xffffffffU };
	s->n = 0;
	for (uint32_t i = 0; i < (full ? 1024U : 8U); i++) {
		nums_add(s, i);
		if (audit == AUDIT_ARCH_X86_64)
			nums_add(s, 0x40000000U + i);
	}
	for (size_t i = 0; i < ARRAY_SIZE(bounds); i++)
		nums_add(s, bounds[i]);
	if (audit == AUDIT_ARCH_ARM) {
		/* ARM's private calls are never "unknown". */
		for (uint32_t i = 0; i < 8; i++)
			nums_add(s, 0x0f0000U + i);
		nums_add(s, 0x0effffU);
		nums_add(s, 0x0f07ffU);
		nums_add(s, 0x0f0800U);
	}
	for (size_t i = 0; i < t->p->narches; i++) {
		const struct arch_view *v = &t->views[i];
		if (v->info->audit != audit)
			continue;
		for (size_t j = 0; j < v->nrs; j++) {
			nums_add(s, v->rs[j].nr - 1);
			nums_add(s, v->rs[j].nr);
			nums_add(s, v->rs[j].nr + 1);
		}
		uint32_t tmax = arch_table_max(v->arch);
		nums_add(s, tmax);
		nums_add(s, tmax + 1);
		if (v->unknown_set) {
			nums_add(s, v->threshold);
			nums_add(s, v->threshold + 1);
		}
	}
	nums_unique(s);
}

/* Probe every number (with argument vectors where rules have conditions)
 * under every ABI of the policy, plus foreign ABIs for the bad-arch path. */
static void run_probes(struct diff *t, bool full)
{
	static const uint32_t foreign[] = { AUDIT_ARCH_PPC64LE, AUDIT_ARCH_S390X };
	uint32_t audits[SCMPC_ARCH_COUNT + ARRAY_SIZE(foreign)];
	size_t naudit = 0;
	struct nums s = { 0 };
	struct testutil_vecs vs = { 0 };

	for (int a = 1; a <= SCMPC_ARCH_COUNT; a++) {
		uint32_t au = scmpc_arch_audit((enum scmpc_arch)a);
		bool seen = false;
		for (size_t i = 0; i < naudit; i++)
			seen |= audits[i] == au;
		/* ABIs outside the policy are probed too: they are bad arches. */
		if (!seen)
			audits[naudit++] = au;
	}
	for (size_t i = 0; i < ARRAY_SIZE(foreign); i++)
		audits[naudit++] = foreign[i];

	for (size_t ai = 0; ai < naudit; ai++) {
		bool ours = audit_in_policy(t->p, audits[ai]);
		numbers_for(t, audits[ai], full && ours, &s);
		for (size_t i = 0; i < s.n; i++) {
			uint32_t nr = s.v[i];
			enum scmpc_arch a = arch_of_call(audits[ai], nr);
			assert_int_equal(testutil_arg_vectors(t->p, ours ? view_of(t, a) : NULL, nr,
							      &vs), 0);
			for (size_t j = 0; j < vs.n; j++) {
				struct seccomp_data sd = testutil_sd_audit(audits[ai], nr, vs.v[j]);
				probe(t, &sd);
			}
		}
	}
	free(s.v);
	testutil_vecs_free(&vs);
}

static void print_summary(const struct diff *t)
{
	fprintf(stderr, "%s: %lu probes, %lu mismatching; insns:", t->label, t->probes,
		t->mismatches);
	for (int k = 0; k < NPROG; k++)
		if (t->have[k])
			fprintf(stderr, " %s %zu", prog_name[k], t->len[k]);
	fprintf(stderr, "\n");
	for (int k = P_LSC1; k < NPROG; k++) {
		if (!t->have[k])
			continue;
		fprintf(stderr, "  %-14s", prog_name[k]);
		for (int w = 0; w < NWHY; w++)
			if (t->count[k][w])
				fprintf(stderr, " %s: %lu;", why_name[w], t->count[k][w]);
		fprintf(stderr, "\n");
	}
}

/* -------------------------------------------------------- real profiles */

struct profile_case {
	const char *file;
	enum scmpc_arch target;
};

static const struct profile_case profile_cases[] = {
	{ "docker-default.json", SCMPC_ARCH_X86_64 },
	{ "docker-default.json", SCMPC_ARCH_AARCH64 },
	{ "podman-default.json", SCMPC_ARCH_X86_64 },
	{ "podman-default.json", SCMPC_ARCH_AARCH64 },
	{ "oci-runc-testdata-1.json", SCMPC_ARCH_X86_64 },
	{ "oci-runc-testdata-1.json", SCMPC_ARCH_AARCH64 },
	{ "oci-runc-testdata-2.json", SCMPC_ARCH_X86_64 },
	{ "oci-runc-testdata-2.json", SCMPC_ARCH_AARCH64 },
};

/* Whether the profile names an aarch64 ABI at all; others are only resolved
 * for x86_64. */
static bool profile_has_aarch64(const char *file)
{
	char path[4096], *buf;
	size_t len;
	snprintf(path, sizeof(path), "%s/%s", testutil_policies_dir(), file);
	if (testutil_load_file(path, &buf, &len) < 0)
		return false;
	bool has = strstr(buf, "SCMP_ARCH_AARCH64") != NULL;
	free(buf);
	return has;
}

static void test_profile(void **state)
{
	const struct profile_case *pc = *state;
	char label[128];

	if (pc->target == SCMPC_ARCH_AARCH64 && !profile_has_aarch64(pc->file)) {
		fprintf(stderr, "%s has no aarch64 section\n", pc->file);
		skip();
	}
	scmpc_policy *p = testutil_policy(pc->file, pc->target);
	if (!p && testutil_json_missing()) {
		fprintf(stderr, "SKIP: JSON front end not available: %s\n", testutil_last_error());
		skip();
	}
	if (!p)
		fail_msg("%s", testutil_last_error());
	snprintf(label, sizeof(label), "%s/%s", pc->file, scmpc_arch_name(pc->target));

	struct diff t;
	bool ok = diff_init(&t, label, p, false);
	if (ok) {
		char why[256];
		unsigned bits = lsc_check(p, why, sizeof(why));
		if (bits)
			fprintf(stderr, "%s: libseccomp differences expected (0x%x): %s\n", label,
				bits, why);
		/* A real profile libseccomp can express must be compared. */
		if (!(bits & (LSC_DIFF_COND32 | LSC_DIFF_SAME_ARG)))
			for (int k = P_LSC1; k < NPROG; k++)
				if (!t.have[k])
					fail_msg("%s: %s did not compile", label, prog_name[k]);
		run_probes(&t, true);
		print_summary(&t);
	}
	unsigned long mism = t.mismatches;
	diff_fini(&t);
	scmpc_policy_free(p);
	assert_true(ok);
	assert_int_equal(mism, 0);
}

/* ------------------------------------------------------ random policies */

static const char *const pool_names[] = {
	"read", "write", "close", "openat", "open", "socket", "clone", "personality",
	"ioctl", "mmap", "mprotect", "futex", "getpid", "kill", "prctl", "fcntl",
	"setsockopt", "sendto", "socketcall", "_llseek", "arch_prctl", "set_tls",
	"dup3", "exit_group", "clone3", "bpf",
};

static const uint32_t pool_actions[] = {
	SCMPC_ACT_ALLOW, SCMPC_ACT_ALLOW, SCMPC_ACT_ALLOW, SCMPC_ACT_LOG, SCMPC_ACT_ERRNO(1),
	SCMPC_ACT_ERRNO(13), SCMPC_ACT_ERRNO(38), SCMPC_ACT_TRAP, SCMPC_ACT_TRACE(7),
	SCMPC_ACT_KILL_THREAD, SCMPC_ACT_KILL_PROCESS,
};

static const uint64_t pool_consts[] = {
	0, 1, 2, 5, 38, 40, 0xff, 0x7e020000, 0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff,
	0x100000000ULL, 0xffffffff00000000ULL, 0xffffffffffffffffULL, 0x8000000000000000ULL,
	0x1234567800000005ULL,
};

static uint64_t rand_const(struct testutil_rng *r)
{
	if (testutil_rng_below(r, 4) == 0)
		return testutil_rng_next(r) >> testutil_rng_below(r, 64);
	return pool_consts[testutil_rng_below(r, ARRAY_SIZE(pool_consts))];
}

static struct scmpc_cond rand_cond(struct testutil_rng *r, unsigned arg)
{
	struct scmpc_cond c = { .arg = arg };
	c.op = (enum scmpc_op)(1 + testutil_rng_below(r, 7));
	c.value = rand_const(r);
	if (c.op == SCMPC_OP_MASKED_EQ) {
		c.value2 = testutil_rng_below(r, 3) ? c.value & rand_const(r) : rand_const(r);
	}
	if (testutil_rng_below(r, 12) == 0)
		c.flags = SCMPC_COND_32BIT;
	return c;
}

static void add(scmpc_policy *p, const char *name, uint32_t nr, enum scmpc_arch arch, uint32_t act,
		const struct scmpc_cond *c, size_t n)
{
	struct scmpc_rule r = { .sz = sizeof(r), .syscall = name, .nr = nr, .arch = arch,
				.action = act, .conds = c, .nconds = n };
	assert_true(scmpc_policy_add_rule(p, &r, NULL) >= 0);
}

/* A group of rules for one call whose conditions exclude each other while
 * their actions differ: the overlaps libseccomp handles like scmpc. */
static void add_disjoint_group(struct testutil_rng *r, scmpc_policy *p, const char *name)
{
	unsigned arg = testutil_rng_below(r, 6);
	uint64_t c = rand_const(r);
	uint32_t a1 = pool_actions[testutil_rng_below(r, ARRAY_SIZE(pool_actions))];
	uint32_t a2 = pool_actions[testutil_rng_below(r, ARRAY_SIZE(pool_actions))];
	struct scmpc_cond x[2], y[2];
	size_t nx = 1, ny = 1;

	switch (testutil_rng_below(r, 4)) {
	case 0:
		x[0] = (struct scmpc_cond){ .arg = arg, .op = SCMPC_OP_EQ, .value = c };
		y[0] = (struct scmpc_cond){ .arg = arg, .op = SCMPC_OP_NE, .value = c };
		break;
	case 1:
		x[0] = (struct scmpc_cond){ .arg = arg, .op = SCMPC_OP_LT, .value = c };
		y[0] = (struct scmpc_cond){ .arg = arg, .op = SCMPC_OP_GE, .value = c };
		break;
	case 2:
		x[0] = (struct scmpc_cond){ .arg = arg, .op = SCMPC_OP_EQ, .value = c };
		y[0] = (struct scmpc_cond){ .arg = arg, .op = SCMPC_OP_EQ, .value = c + 1 };
		break;
	default: {
		uint64_t m = rand_const(r) | 1;
		x[0] = (struct scmpc_cond){ .arg = arg, .op = SCMPC_OP_MASKED_EQ, .value = m,
					    .value2 = c & m };
		y[0] = (struct scmpc_cond){ .arg = arg, .op = SCMPC_OP_MASKED_EQ, .value = m,
					    .value2 = (c & m) ^ (m & -m) };
		break;
	}
	}
	/* An extra condition on another argument keeps the tree non-trivial. */
	if (testutil_rng_below(r, 2))
		x[nx++] = rand_cond(r, (arg + 1 + testutil_rng_below(r, 5)) % 6);
	if (testutil_rng_below(r, 2))
		y[ny++] = rand_cond(r, (arg + 1 + testutil_rng_below(r, 5)) % 6);
	add(p, name, 0, SCMPC_ARCH_NONE, a1, x, nx);
	add(p, name, 0, SCMPC_ARCH_NONE, a2, y, ny);
}

/* Several rules for one call comparing one argument with many constants
 * that share a high word (value sets, half-word splits), some with a second
 * action, an `!=` or a range among them. */
static void add_value_set(struct testutil_rng *r, scmpc_policy *p, const char *name)
{
	unsigned arg = testutil_rng_below(r, 6), n = 3 + testutil_rng_below(r, 12);
	uint64_t hi = testutil_rng_below(r, 3) ? 0 : (testutil_rng_next(r) & 0xffffffff00000000ULL);
	uint32_t base = testutil_rng_below(r, 2) ? testutil_rng_below(r, 64)
						 : (uint32_t)testutil_rng_next(r);
	uint32_t a1 = pool_actions[testutil_rng_below(r, ARRAY_SIZE(pool_actions))];
	uint32_t a2 = pool_actions[testutil_rng_below(r, ARRAY_SIZE(pool_actions))];
	unsigned flags = testutil_rng_below(r, 6) == 0 ? SCMPC_COND_32BIT : 0;

	for (unsigned i = 0; i < n; i++) {
		struct scmpc_cond c = { .arg = arg, .op = SCMPC_OP_EQ, .flags = flags };
		base += 1 + testutil_rng_below(r, testutil_rng_below(r, 2) ? 3 : 1000);
		c.value = hi | base;
		switch (testutil_rng_below(r, 12)) {
		case 0: c.op = SCMPC_OP_NE; break;
		case 1: c.op = SCMPC_OP_GT; break;
		case 2: c.op = SCMPC_OP_LE; break;
		default: break;
		}
		add(p, name, 0, SCMPC_ARCH_NONE, testutil_rng_below(r, 4) ? a1 : a2, &c, 1);
	}
}

/* A run of consecutive numbers on one ABI with one action, so that number
 * ranges merge, with an odd hole or a different action inside. */
static void add_number_run(struct testutil_rng *r, scmpc_policy *p)
{
	enum scmpc_arch a = p->arches[testutil_rng_below(r, (uint32_t)p->narches)];
	uint32_t start = testutil_rng_below(r, 460), len = 2 + testutil_rng_below(r, 60);
	uint32_t act = pool_actions[testutil_rng_below(r, ARRAY_SIZE(pool_actions))];
	uint32_t odd = pool_actions[testutil_rng_below(r, ARRAY_SIZE(pool_actions))];

	for (uint32_t i = 0; i < len; i++) {
		char name[64];
		uint32_t nr = arch_info(a)->nr_base + start + i;
		unsigned roll = testutil_rng_below(r, 16);
		/* Named numbers only: libseccomp must be able to name them. */
		if (roll == 0 || !scmpc_syscall_name(a, nr, name, sizeof(name)))
			continue;
		add(p, NULL, nr, a, roll == 1 ? odd : act, NULL, 0);
	}
}

static scmpc_policy *random_policy(struct testutil_rng *r)
{
	static const enum scmpc_arch groups[][3] = {
		{ SCMPC_ARCH_X86_64 },
		{ SCMPC_ARCH_X86_64, SCMPC_ARCH_I386, SCMPC_ARCH_X32 },
		{ SCMPC_ARCH_X86_64, SCMPC_ARCH_X32 },
		{ SCMPC_ARCH_I386 },
		{ SCMPC_ARCH_AARCH64, SCMPC_ARCH_ARM },
		{ SCMPC_ARCH_AARCH64 },
		{ SCMPC_ARCH_ARM, SCMPC_ARCH_X86_64 },
		{ SCMPC_ARCH_X32 },
	};
	static const uint32_t badarch[] = { SCMPC_ACT_KILL_PROCESS, SCMPC_ACT_KILL_THREAD,
					    SCMPC_ACT_TRAP, SCMPC_ACT_ERRNO(1) };
	uint32_t def = pool_actions[testutil_rng_below(r, ARRAY_SIZE(pool_actions))];
	scmpc_policy *p = scmpc_policy_new(def);
	assert_non_null(p);

	const enum scmpc_arch *g = groups[testutil_rng_below(r, ARRAY_SIZE(groups))];
	for (int i = 0; i < 3 && g[i]; i++)
		assert_int_equal(scmpc_policy_add_arch(p, g[i], NULL), 0);
	assert_int_equal(scmpc_policy_set_bad_arch_action(
				 p, badarch[testutil_rng_below(r, ARRAY_SIZE(badarch))], NULL), 0);
	if (testutil_rng_below(r, 2))
		assert_int_equal(scmpc_policy_set_merge(p, SCMPC_MERGE_LIBSECCOMP, NULL), 0);
	if (testutil_rng_below(r, 8) == 0)
		assert_int_equal(scmpc_policy_set_unknown_action(
					 p, SCMPC_ACT_ERRNO(38),
					 testutil_rng_below(r, 2) ? SCMPC_UNKNOWN_POLICY_MAX
								  : SCMPC_UNKNOWN_TABLE_MAX, NULL), 0);

	unsigned nrules = 1 + testutil_rng_below(r, testutil_rng_below(r, 4) ? 12 : 30);
	for (unsigned i = 0; i < nrules; i++) {
		const char *name = pool_names[testutil_rng_below(r, ARRAY_SIZE(pool_names))];
		unsigned kind = testutil_rng_below(r, 14);
		if (kind < 2) {
			add_disjoint_group(r, p, name);
			continue;
		}
		if (kind < 4) {
			add_value_set(r, p, name);
			continue;
		}
		if (kind == 4) {
			add_number_run(r, p);
			continue;
		}
		uint32_t act = pool_actions[testutil_rng_below(r, ARRAY_SIZE(pool_actions))];
		struct scmpc_cond c[3];
		size_t n = testutil_rng_below(r, 4);
		unsigned used = 0;
		for (size_t j = 0; j < n; j++) {
			unsigned arg;
			/* Mostly distinct arguments: libseccomp refuses two
			 * conditions on one argument. */
			do
				arg = testutil_rng_below(r, 6);
			while ((used & (1U << arg)) && testutil_rng_below(r, 8));
			used |= 1U << arg;
			c[j] = rand_cond(r, arg);
		}
		if (kind == 2) {
			/* By number on one ABI of the policy. */
			enum scmpc_arch a = p->arches[testutil_rng_below(r, (uint32_t)p->narches)];
			static const uint32_t edges[] = { 0, 0x3fffffffU, 0x7fffffffU, 0x80000000U,
							  0xfffffffeU, 0xffffffffU };
			int64_t nr = scmpc_syscall_resolve(a, name);
			if (nr < 0)
				nr = arch_info(a)->nr_base + testutil_rng_below(r, 500);
			/* Now and then a number at an edge: past the table,
			 * the x32 bit, the sign bit, -1, ARM's private calls. */
			switch (testutil_rng_below(r, 16)) {
			case 0: nr = arch_table_max(a) + 1 + testutil_rng_below(r, 3); break;
			case 1: nr = edges[testutil_rng_below(r, ARRAY_SIZE(edges))]; break;
			case 2: nr = 0x0f0000U + testutil_rng_below(r, 8); break;
			default: break;
			}
			add(p, NULL, (uint32_t)nr, a, act, c, n);
		} else if (kind == 3) {
			/* By name, limited to one ABI. */
			enum scmpc_arch a = p->arches[testutil_rng_below(r, (uint32_t)p->narches)];
			add(p, name, 0, a, act, c, n);
		} else {
			add(p, name, 0, SCMPC_ARCH_NONE, act, c, n);
		}
	}
	return p;
}

static void test_random(void **state)
{
	(void)state;
	uint64_t seed = 0x5eccc0de2024ULL;
#ifdef __SANITIZE_ADDRESS__
	/* Under ASan every fork (lsc_compile's guard against libseccomp's
	 * loops) maps the shadow memory again; fewer policies keep the
	 * sanitizer run short, memory errors show on any of them. */
	unsigned count = 300;
#else
	unsigned count = 1000;
#endif
	const char *e = getenv("SCMPC_SEED");
	if (e && *e)
		seed = strtoull(e, NULL, 0);
	e = getenv("SCMPC_RANDOM_COUNT");
	if (e && *e)
		count = (unsigned)strtoul(e, NULL, 0);
	/* Replays one policy of the run (its index in the mismatch report). */
	long only = -1;
	e = getenv("SCMPC_RANDOM_ONLY");
	if (e && *e)
		only = strtol(e, NULL, 0);
	fprintf(stderr, "random policies: seed 0x%llx, %u policies (SCMPC_SEED, SCMPC_RANDOM_COUNT)\n",
		(unsigned long long)seed, count);

	struct testutil_rng r;
	unsigned long failed = 0, probes = 0, compared[NPROG] = { 0 }, why_total[NWHY] = { 0 };
	unsigned lsc_policies = 0;
	for (unsigned i = 0; i < count; i++) {
		/* splitmix64 of (seed, i): nearby seeds give unrelated runs. */
		uint64_t z = seed + (i + 1) * 0x9e3779b97f4a7c15ULL;
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
		testutil_rng_seed(&r, z ^ (z >> 31));
		if (only >= 0 && i != (unsigned long)only)
			continue;
		scmpc_policy *p = random_policy(&r);
		char label[64];
		snprintf(label, sizeof(label), "random policy %u of seed 0x%llx", i,
			 (unsigned long long)seed);
		struct diff t;
		if (!diff_init(&t, label, p, true)) {
			failed++;
		} else {
			run_probes(&t, false);
			failed += t.mismatches != 0;
			probes += t.probes;
			lsc_policies += t.have[P_LSC1];
			for (int k = 0; k < NPROG; k++)
				compared[k] += t.count[k][W_EQUAL] + t.count[k][W_UNKNOWN];
			for (int w = 0; w < NWHY; w++)
				why_total[w] += t.count[P_LSC2][w];
		}
		diff_fini(&t);
		scmpc_policy_free(p);
	}
	fprintf(stderr, "random: %lu probes; %u of %u policies compiled by libseccomp (%u compiles "
		"abandoned: libseccomp looped)\n", probes, lsc_policies, count, lsc_hangs);
	for (int k = 0; k < NPROG; k++)
		fprintf(stderr, "  %-14s %lu decisions compared\n", prog_name[k], compared[k]);
	fprintf(stderr, "  libseccomp-L2 by kind:");
	for (int w = 0; w < NWHY; w++)
		fprintf(stderr, " %s: %lu;", why_name[w], why_total[w]);
	fprintf(stderr, "\n");
	assert_int_equal(failed, 0);
}

int main(void)
{
	struct CMUnitTest tests[ARRAY_SIZE(profile_cases) + 1];
	static char names[ARRAY_SIZE(profile_cases)][96];
	size_t n = 0;
	/* Replaying one random policy needs nothing else. */
	const char *only = getenv("SCMPC_RANDOM_ONLY");
	for (size_t i = 0; i < ARRAY_SIZE(profile_cases) && !(only && *only); i++) {
		tests[n] = (struct CMUnitTest)cmocka_unit_test_prestate(
			test_profile, (void *)&profile_cases[i]);
		snprintf(names[i], sizeof(names[i]), "profile %s for %s", profile_cases[i].file,
			 scmpc_arch_name(profile_cases[i].target));
		tests[n].name = names[i];
		n++;
	}
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_random);
	return _cmocka_run_group_tests("differential", tests, n, NULL, NULL);
}
