/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Differential tests.  Every probe is decided by
 *   - scmpc's optimized program, its SCMPC_COMPILE_NAIVE program and its
 *     SCMPC_COMPILE_SMALLEST program (argument checks laid out for size,
 *     in both orders of an equality's halves), which must all give what
 *     the IR gives (policy_decide(), the body of scmpc_policy_eval(), which
 *     is itself checked on every 16th probe), everywhere;
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
 *  (a) i386/arm/x32 under SCMPC_MERGE_RESTRICTIVE: a constant with a
 *      non-zero high word.  scmpc folds such a condition (no 32-bit value
 *      equals 1 << 32), libseccomp compares its low word.  Calls with such
 *      conditions are skipped.  Under SCMPC_MERGE_LIBSECCOMP scmpc keeps the
 *      low word too, and they are compared.  High argument words themselves
 *      are compared: neither compiler reads them there.
 *  (b) The unknown-syscall range (runc's ENOSYS stub, set by the JSON front
 *      end): a number above the ABI's threshold that no rule names gets the
 *      unknown action from scmpc; libseccomp cannot compare numbers, so it
 *      must give the default action there, which is checked.
 *  (c) KILL_PROCESS vs KILL_THREAD for a bad arch: none; the reference sets
 *      libseccomp's bad-arch action to the policy's.
 *  (d) socketcall(2) and ipc(2) on ABIs that have them (i386, s390, ppc,
 *      mips o32, ...), when the policy has rules for socket or SysV IPC
 *      calls, under SCMPC_MERGE_RESTRICTIVE: both add the rules there too,
 *      libseccomp with each rule's argument-0 condition replaced by the
 *      sub-call test, scmpc's restrictive merge with the most restrictive
 *      action a conditional call can get.  Skipped.  Under
 *      SCMPC_MERGE_LIBSECCOMP scmpc copies the rules as libseccomp does, and
 *      the multiplexers are compared like any call.
 *  (e) Under SCMPC_MERGE_RESTRICTIVE, rules with different actions for one
 *      call that may match together (scmpc: the most restrictive wins;
 *      libseccomp: its tree decides), and a default-action rule overlapping
 *      a less restrictive one (libseccomp refuses the rule).  Calls with
 *      such rules are skipped.  Under SCMPC_MERGE_LIBSECCOMP scmpc decides
 *      them by libseccomp's tree (src/policy/lsc_tree.c) and they are compared;
 *      where libseccomp refuses a rule (EEXIST) scmpc must have warned.
 *  (f) none: a MASKED_EQ expected value with bits outside the mask is
 *      masked when the rule is added (with a warning), as libseccomp masks
 *      it; the count stays to show it.
 *  (g) none: on x32 both compare the low word of each argument (x32 is
 *      ILP32), so high words are compared like any other probe; wide
 *      constants fall under (a).
 *  (h) libseccomp 2.5.4 tree-merge bugs: calls with two rules testing a
 *      common argument where one has several conditions, or one is
 *      KILL_THREAD, or a constant on that argument has a non-zero high word.
 *      Skipped; reproducers in tree_merge_unsafe() (lsc_ref.c).
 *  (i) none: under SCMPC_MERGE_LIBSECCOMP the IR drops default-action
 *      rules and takes zero-mask MASKED_EQ rules as unconditional, as
 *      libseccomp does (9000 random policies compared without skipping
 *      such calls: no difference).
 *  (j) A call newer than libseccomp 2.5.4's table (mseal, listmount, ...):
 *      scmpc has it in its own table, libseccomp cannot add the rule, so
 *      its programs must give the default action there, which is checked.
 *  (l) socketcall(2) and ipc(2) whose first argument has bits the kernel
 *      does not read as the call (ipc: above the low 16; socketcall: the
 *      high word on a 64-bit ABI): scmpc tests the sub-call as the kernel
 *      decodes it, in every merge, libseccomp compares the whole argument,
 *      so ipc(SEMOP | 1 << 16) passes its rules on semop.  The one
 *      deliberate difference from libseccomp (README, "Policy semantics").
 *      Skipped; tests/test_runtime.c pins scmpc's answers there.
 *  (k) Big-endian ABIs on this little-endian host: libseccomp 2.5.4 exports
 *      the program in the ABI's byte order but leaves some `ret` constants
 *      (the bad-arch and default actions, an ALLOW at a syscall's first
 *      test) in host order; on a big-endian machine its conversions are
 *      no-ops and the program is right.  An answer that is exactly the
 *      expected action byte-swapped is counted here (the same decision,
 *      mis-encoded); any other difference fails.
 * Policies libseccomp cannot express (SCMPC_COND_32BIT, two conditions on
 * one argument, raw numbers it cannot name) are not compared with it.
 *
 * Random policies: SCMPC_SEED, SCMPC_RANDOM_COUNT (1000, 300 under ASan);
 * SCMPC_RANDOM_ONLY=I replays policy I of the seed alone.  Most have a
 * few to a few dozen rules, so that a failure is easy to read; one in 32
 * also covers a random share of each ABI's whole table (add_bulk()), the
 * size of real allow-lists.
 *
 * Shrinking.  The first MAX_SHRUNK failing policies of a run (random or
 * profile) are shrunk (tests/shrink.c) to a local minimum that still fails
 * the same way: the same program against the IR (scmpc, scmpc-naive,
 * libseccomp-L1 or -L2 against its expectation, scmpc_policy_eval against
 * the views), or scmpc refusing with the same error; a policy failing on
 * both scmpc's side and libseccomp's is shrunk once for each.  Rules go
 * (halves, quarters, ..., single rules), then conditions and ABIs; the
 * unknown action, libseccomp merge and bad-arch action are reset; actions
 * move toward the default, ALLOW, KILL_PROCESS; conditions toward ==,
 * 64-bit, arg 0 and the constants 0, 1 or their low word.  Every candidate
 * is checked from scratch (programs, views, lsc_expect()'s differences and
 * the probe set all derive from the policy).  Budget: 5000 checks or
 * SCMPC_SHRINK_SECONDS (10; 0 turns shrinking off) per shrink.  The
 * reproducer gives the sizes before and after, the policy, its simplest
 * failing probes with every program's answer, and all of it as C to paste.
 * `test_differential shrink` (meson test differential-shrink) checks the
 * shrinker on bugs injected into one program; SCMPC_DIFF_INJECT=errno13 or
 * =const puts one into every optimized program of a normal run.
 *
 * Campaign.  tests/differential-campaign runs the random policies only
 * (SCMPC_DIFF_PROFILES=0) with fresh seeds on every CPU until stopped; with
 * SCMPC_DIFF_FINDINGS=DIR each failing policy is written to
 * DIR/seed-SEED-INDEX.txt: the replay line, the reproducer, the original.
 */
#include <dirent.h>
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
#include "shrink.h"
#include "testutil.h"

enum {
	P_OPT,
	P_NAIVE,
	P_SMALL,	/* SCMPC_COMPILE_SMALLEST: argument checks laid out for size */
	P_LSC1,
	P_LSC2,
	NPROG
};
static const char *const prog_name[NPROG] = {
	"scmpc", "scmpc-naive", "scmpc-smallest", "libseccomp-L1", "libseccomp-L2",
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
	W_MERGE_MODEL,	/* (i) none */
	W_UNNAMED,	/* (j) must be the default action */
	W_XENDIAN,	/* (k) checked: the expected action, byte-swapped */
	W_MUXBITS,	/* (l) skipped */
	NWHY
};
static const char *const why_name[NWHY] = {
	"compared", "(b) unknown range", "(a) 64-bit constant",
	"(d) multiplexer", "(e) overlapping rules", "(f) MASKED_EQ outside mask",
	"(g) x32 high words", "(h) libseccomp tree merge",
	"(i) merge model", "(j) call newer than libseccomp", "(k) cross-endian ret",
	"(l) multiplexer call bits",
};

/* Kinds of mismatch, as bits: bit P_* when that program disagreed with
 * the IR (libseccomp: with lsc_expect()) or could not be run, and: */
enum {
	K_EVAL = NPROG,	/* scmpc_policy_eval() disagreed with the views */
	K_REFUSED,	/* scmpc_compile() failed */
	K_LSC_REFUSED,	/* LIBSECCOMP merge: libseccomp refused (EEXIST) unannounced */
	NKIND
};
static const char *const kind_name[NKIND] = {
	"scmpc vs IR", "scmpc-naive vs IR", "scmpc-smallest vs IR", "libseccomp-L1 vs IR",
	"libseccomp-L2 vs IR",
	"scmpc_policy_eval vs IR", "scmpc refused the policy",
	"libseccomp refused a rule scmpc did not warn of",
};
#define KIND(k) (1U << (k))
#define SCMPC_SIDE (KIND(P_OPT) | KIND(P_NAIVE) | KIND(P_SMALL) | KIND(K_EVAL) | KIND(K_REFUSED))

struct diff_cfg {
	bool quiet;	/* random policies: print only on mismatch */
	bool silent;	/* shrinking: print nothing, only record */
	bool no_lsc;	/* leave libseccomp out (a shrink step not about it) */
	unsigned stop;	/* K_* bits: stop probing once one of these is seen */
	unsigned record;	/* K_* bits of the mismatches kept in seen[]; 0: all */
	bool simplest;	/* keep the simplest mismatches in seen[], not the first */
	/* A bug injected into program `mutated` (P_*) after it compiled
	 * (the shrinker's self-test). */
	void (*mutate)(struct sock_filter *insns, size_t len);
	int mutated;
};

#define MAX_PRINTED 8		/* probes per policy */
#define MAX_POLICIES_PRINTED 10	/* failing random policies */
#define MAX_SHRUNK 3		/* failing policies shrunk per run */
static unsigned policies_printed, policies_shrunk;
static unsigned lsc_hangs;	/* libseccomp compiles abandoned (lsc_compile) */
static unsigned refusals_agreed;	/* libseccomp refused a rule (EEXIST) and scmpc warned */
static unsigned refusals_only_warned;	/* scmpc warned, libseccomp took the rules (its pruning) */
static unsigned long tree_compared;	/* decisions of libseccomp's tree compared (LIBSECCOMP merge) */
static const char *self = "test_differential";	/* argv[0], for replay lines */
/* SCMPC_DIFF_INJECT: a bug put into every optimized program of the run, to
 * see the shrinker and the campaign's findings at work. */
static void (*injected)(struct sock_filter *insns, size_t len);

struct mismatch {
	struct seccomp_data sd;
	uint32_t ir, got[NPROG], expect[NPROG];
	int rule;
	bool ran[NPROG];
	unsigned kinds;
};

struct diff {
	const char *label;
	const scmpc_policy *p;
	struct diff_cfg cfg;
	struct arch_view views[SCMPC_ARCH_COUNT];
	struct lsc_call_diff *cd;
	size_t ncd;
	struct sock_filter *insns[NPROG];
	size_t len[NPROG];
	bool have[NPROG];
	unsigned long count[NPROG][NWHY];
	unsigned long probes, mismatches;
	bool dumped;
	unsigned kinds;		/* K_* bits seen */
	int refused_rc;		/* K_REFUSED: scmpc_compile()'s error */
	bool warned_eexist;	/* scmpc warned that libseccomp refuses a rule */
	char refused_msg[256];
	struct mismatch seen[MAX_PRINTED];
	size_t nseen;
};

/* ---------------------------------------------------------------- setup */

static int compile_scmpc(struct diff *t, int k, unsigned flags)
{
	struct scmpc_compile_opts o = { .sz = sizeof(o), .flags = flags };
	scmpc_diag *d = scmpc_diag_new();
	scmpc_prog *prog = NULL;
	int rc = scmpc_compile(t->p, &o, &prog, d);
	if (rc < 0) {
		t->kinds |= KIND(K_REFUSED);
		t->refused_rc = rc;
		snprintf(t->refused_msg, sizeof(t->refused_msg), "%s failed: %s (%s)",
			 prog_name[k], scmpc_diag_message(d), scmpc_diag_where(d));
		if (!t->cfg.silent) {
			fprintf(stderr, "%s: %s\n", t->label, t->refused_msg);
			testutil_policy_dump(stderr, t->p);
		}
		scmpc_diag_free(d);
		return rc;
	}
	for (size_t w = 0; w < scmpc_diag_warning_count(d); w++)
		if (strstr(scmpc_diag_warning(d, w), "(EEXIST"))
			t->warned_eexist = true;
	scmpc_diag_free(d);
	t->len[k] = scmpc_prog_len(prog);
	t->insns[k] = malloc(t->len[k] * sizeof(struct sock_filter));
	assert_non_null(t->insns[k]);
	memcpy(t->insns[k], scmpc_prog_insns(prog), t->len[k] * sizeof(struct sock_filter));
	scmpc_prog_free(prog);
	if (k == t->cfg.mutated && t->cfg.mutate)
		t->cfg.mutate(t->insns[k], t->len[k]);
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
		if (getenv("LSCDBG") || (!t->cfg.quiet && !t->cfg.silent))
			fprintf(stderr, "%s: %s not compared: %s\n", t->label, prog_name[k], err);
		/* Under the LIBSECCOMP merge scmpc warns where libseccomp
		 * refuses a rule. */
		if (rc == -EEXIST && t->p->merge == SCMPC_MERGE_LIBSECCOMP && t->warned_eexist &&
		    k == P_LSC1)
			refusals_agreed++;
		if (rc == -EEXIST && t->p->merge == SCMPC_MERGE_LIBSECCOMP && !t->warned_eexist) {
			t->kinds |= KIND(K_LSC_REFUSED);
			if (!t->cfg.silent) {
				fprintf(stderr, "%s: %s refused a rule, scmpc did not warn: %s\n", t->label,
					prog_name[k], err);
				if (k == P_LSC1)
					testutil_policy_dump(stderr, t->p);
			}
		}
		return rc;
	}
	if (k == t->cfg.mutated && t->cfg.mutate)
		t->cfg.mutate(t->insns[k], t->len[k]);
	t->have[k] = true;
	return 0;
}

/* Builds every program.  Returns false, after printing why, when scmpc
 * cannot compile the policy; libseccomp failing only leaves it out. */
static bool diff_init(struct diff *t, const char *label, const scmpc_policy *p,
		      const struct diff_cfg *cfg)
{
	memset(t, 0, sizeof(*t));
	t->label = label;
	t->p = p;
	t->cfg = *cfg;
	assert_int_equal(policy_views_init(p, t->views, NULL), 0);
	long n = lsc_call_diffs(p, &t->cd);
	assert_true(n >= 0);
	t->ncd = (size_t)n;
	if (compile_scmpc(t, P_OPT, 0) < 0 || compile_scmpc(t, P_NAIVE, SCMPC_COMPILE_NAIVE) < 0 ||
	    compile_scmpc(t, P_SMALL, SCMPC_COMPILE_SMALLEST) < 0)
		return false;
	if (!cfg->no_lsc) {
		int rc = compile_lsc(t, P_LSC1, 1);
		if (rc == 0 && t->warned_eexist)
			refusals_only_warned++;
		compile_lsc(t, P_LSC2, 2);
	}
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

/* (l): SD calls socketcall(2) or ipc(2) on ABI I with bits in argument 0
 * that the kernel does not read as the call (a 32-bit ABI's filter sees the
 * low word only, as libseccomp's does). */
static bool mux_bits_unread(const struct arch_info *i, const struct seccomp_data *sd)
{
	uint32_t sc, ipc, nr = (uint32_t)sd->nr;
	uint64_t a0 = i->compat32 ? (uint32_t)sd->args[0] : sd->args[0];
	if (arch_multiplexer(i, MUX_IPC, &ipc) == 0 && nr == ipc)
		return a0 > 0xffff;
	if (arch_multiplexer(i, MUX_SOCKETCALL, &sc) == 0 && nr == sc)
		return a0 > 0xffffffffU;
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
	/* runc's stub (a limit): libseccomp has none, so its answer is the
	 * policy's without the limits, give or take the differences below. */
	enum why same = W_EQUAL;
	if (audit_in_policy(p, sd->arch) && limit_hits(call_limit(p, sd->arch, nr), nr)) {
		scmpc_policy bare = *p;
		memset(bare.limits, 0, sizeof(bare.limits));
		*expect = ir = policy_decide(&bare, t->views, sd, NULL);
		same = W_UNKNOWN;
	}
	if (!v || nr == 0xffffffffU || !audit_in_policy(p, sd->arch))
		return same;
	uint32_t mux_nr;
	if (p->merge == SCMPC_MERGE_RESTRICTIVE && lsc_policy_multiplexes(p, a) &&
	    ((arch_multiplexer(v->info, MUX_SOCKETCALL, &mux_nr) == 0 && nr == mux_nr) ||
	     (arch_multiplexer(v->info, MUX_IPC, &mux_nr) == 0 && nr == mux_nr)))
		return W_MUX;
	if (mux_bits_unread(v->info, sd))
		return W_MUXBITS;
	unsigned bits = lsc_call_diff_find(t->cd, t->ncd, a, nr);
	if (bits & LSC_DIFF_UNNAMED) {
		*expect = p->def_action;
		return W_UNNAMED;
	}
	/* Under the LIBSECCOMP merge scmpc follows libseccomp's tree there. */
	if ((bits & (LSC_DIFF_OVERLAP | LSC_DIFF_DEFAULT_RULE)) &&
	    p->merge != SCMPC_MERGE_LIBSECCOMP)
		return W_OVERLAP;
	if (bits & LSC_DIFF_WIDE32)
		return W_WIDE32;
	if (bits & LSC_DIFF_MASKED)
		return W_MASKED;
	if (bits & LSC_DIFF_TREE)
		return W_TREE;
	size_t lo, hi;
	arch_view_find(v, nr, &lo, &hi);
	if (lo == hi && arch_view_fallback(p, v, nr) != p->def_action) {
		*expect = p->def_action;
		return W_UNKNOWN;
	}
	return same;
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

/* How hard a probe is to read: arguments that are not zero, then bits. */
static unsigned sd_weight(const struct seccomp_data *sd)
{
	unsigned w = 0;
	for (int i = 0; i < 6; i++)
		w += (sd->args[i] != 0) * 1000U + (unsigned)__builtin_popcountll(sd->args[i]);
	return w;
}

static void probe(struct diff *t, const struct seccomp_data *sd)
{
	int rule;
	/* The IR's decision through the views built once per policy;
	 * scmpc_policy_eval() rebuilds them on every call (resolving every
	 * name), so it is checked on every 16th probe only. */
	uint32_t ir = policy_decide(t->p, t->views, sd, &rule);
	uint32_t got[NPROG] = { 0 }, expect[NPROG];
	bool ran[NPROG] = { false };
	unsigned kinds = 0;

	/* A shrink step about scmpc_policy_eval() must not miss it. */
	if (t->probes++ % 16 == 0 || (t->cfg.stop & KIND(K_EVAL))) {
		int rule2;
		uint32_t pub = scmpc_policy_eval(t->p, sd, &rule2);
		if (pub != ir || rule2 != rule) {
			if (!t->cfg.silent)
				fprintf(stderr,
					"%s: scmpc_policy_eval says %s (rule %d), the views %s (rule %d)\n",
					t->label, testutil_act(pub), rule2, testutil_act(ir), rule);
			kinds |= KIND(K_EVAL);
		}
	}
	for (int k = 0; k < NPROG; k++) {
		expect[k] = ir;
		if (!t->have[k])
			continue;
		int rc = scmpc_emulate(t->insns[k], t->len[k], sd, &got[k], NULL);
		if (rc < 0) {
			if (!t->cfg.silent)
				fprintf(stderr, "%s: %s: scmpc_emulate failed (%d)\n", t->label,
					prog_name[k], rc);
			kinds |= KIND(k);
			continue;
		}
		ran[k] = true;
		if (k == P_OPT || k == P_NAIVE || k == P_SMALL) {
			/* No exceptions: scmpc's programs must be the IR. */
			t->count[k][W_EQUAL]++;
			if (got[k] != ir)
				kinds |= KIND(k);
			continue;
		}
		enum why w = lsc_expect(t, sd, ir, &expect[k]);
		/* (k): libseccomp 2.5.4's export, for an ABI of the other byte
		 * order than the host's, leaves the odd `ret` in host order. */
		if ((w == W_EQUAL || w == W_UNKNOWN || w == W_UNNAMED) && got[k] != expect[k] &&
		    t->p->narches && scmpc_arch_big_endian(t->p->arches[0]) != host_big_endian() &&
		    got[k] == __builtin_bswap32(expect[k]))
			w = W_XENDIAN;
		t->count[k][w]++;
		if (w == W_EQUAL && k == P_LSC2) {
			const struct arch_view *v = view_of(t, arch_of_call(sd->arch, (uint32_t)sd->nr));
			if (v && view_tree(v, (uint32_t)sd->nr))
				tree_compared++;
		}
		if ((w == W_EQUAL || w == W_UNKNOWN || w == W_UNNAMED) && got[k] != expect[k])
			kinds |= KIND(k);
	}
	if (kinds) {
		t->kinds |= kinds;
		struct mismatch *m = NULL;
		if (t->cfg.record && !(kinds & t->cfg.record))
			;
		else if (t->nseen < MAX_PRINTED)
			m = &t->seen[t->nseen++];
		else if (t->cfg.simplest)
			for (size_t i = 0; i < t->nseen; i++)
				if (sd_weight(sd) < sd_weight(&t->seen[i].sd) &&
				    (!m || sd_weight(&t->seen[i].sd) > sd_weight(&m->sd)))
					m = &t->seen[i];
		if (m) {
			m->sd = *sd;
			m->ir = ir;
			m->rule = rule;
			m->kinds = kinds;
			memcpy(m->got, got, sizeof(got));
			memcpy(m->expect, expect, sizeof(expect));
			memcpy(m->ran, ran, sizeof(ran));
		}
		if (!t->cfg.silent)
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
	/* ABIs scmpc has no table for: always the bad-arch action. */
	static const uint32_t foreign[] = { AUDIT_ARCH_SPARC64, AUDIT_ARCH_RISCV32, AUDIT_ARCH_ARMEB };
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
				if (t->kinds & t->cfg.stop)
					goto out;
			}
		}
	}
out:
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

/* ------------------------------------------------------------ shrinking */

/* What every shrink step must keep: a mismatch of one kind (K_REFUSED: with
 * the same error), under the probing the original policy got. */
struct target {
	const char *label;
	unsigned kind;
	int refused_rc;
	bool full;	/* run_probes(t, full) */
	void (*mutate)(struct sock_filter *insns, size_t len);
	int mutated;
};

/* The whole check again on P: programs, views, the allowed differences
 * and the probe set all derive from the policy, so nothing is reused from
 * the policy P was shrunk from. */
static bool still_fails(const scmpc_policy *p, void *ctx)
{
	const struct target *g = ctx;
	struct diff_cfg cfg = {
		.silent = true,
		/* libseccomp is the slow part (a fork per compile when it may
		 * loop): built only when the mismatch is about it. */
		.no_lsc = !(KIND(g->kind) & (KIND(P_LSC1) | KIND(P_LSC2))),
		.stop = KIND(g->kind),
		.mutate = g->mutate,
		.mutated = g->mutated,
	};
	struct diff t;
	if (diff_init(&t, g->label, p, &cfg))
		run_probes(&t, g->full);
	bool hit = (t.kinds & KIND(g->kind)) &&
		   (g->kind != K_REFUSED || t.refused_rc == g->refused_rc);
	diff_fini(&t);
	return hit;
}

/* The budget from SCMPC_SHRINK_SECONDS (default 10 s per shrink, within
 * 5000 checks); false when it is 0: no shrinking. */
static bool shrink_budget(struct shrink_opts *o)
{
	const char *e = getenv("SCMPC_SHRINK_SECONDS");
	memset(o, 0, sizeof(*o));
	if (!e || !*e)
		return true;
	double secs = strtod(e, NULL);
	o->max_ns = secs > 0 ? (uint64_t)(secs * 1e9) : 0;
	return secs > 0;
}

static void print_mismatch(FILE *f, const struct mismatch *m)
{
	testutil_sd_dump(f, &m->sd);
	fprintf(f, "  IR (policy_decide):   %s (rule %d)\n", testutil_act(m->ir), m->rule);
	for (int k = 0; k < NPROG; k++) {
		if (!m->ran[k])
			continue;
		fprintf(f, "  %-14s %s", prog_name[k], testutil_act(m->got[k]));
		if (m->expect[k] != m->ir)
			fprintf(f, " (expected %s)", testutil_act(m->expect[k]));
		fprintf(f, "%s\n", m->kinds & KIND(k) ? "   <- differs" : "");
	}
	if (m->kinds & KIND(K_EVAL))
		fprintf(f, "  scmpc_policy_eval differs from the IR here\n");
}

static void print_kinds(FILE *f, unsigned kinds)
{
	const char *sep = "";
	for (int k = 0; k < NKIND; k++)
		if (kinds & KIND(k)) {
			fprintf(f, "%s%s", sep, kind_name[k]);
			sep = ", ";
		}
}

#define MAX_SHOWN 3	/* probes in a reproducer */

static int cmp_weight(const void *x, const void *y)
{
	unsigned a = sd_weight(&((const struct mismatch *)x)->sd);
	unsigned b = sd_weight(&((const struct mismatch *)y)->sd);
	return (a > b) - (a < b);
}

/* SMALL, shrunk from ORIG, checked once more with every program and printed
 * to each of OUTS: sizes, the policy, its failing probes, then all of it as
 * C to paste into a test. */
static void reproducer(const struct target *g, const scmpc_policy *orig, const scmpc_policy *small,
		       const struct shrink_stats *st, const char *replay, FILE *const *outs,
		       size_t nouts)
{
	struct diff_cfg cfg = { .silent = true, .record = KIND(g->kind), .simplest = true,
				.mutate = g->mutate, .mutated = g->mutated };
	struct diff t;
	if (diff_init(&t, g->label, small, &cfg))
		run_probes(&t, g->full);
	qsort(t.seen, t.nseen, sizeof(t.seen[0]), cmp_weight);
	size_t shown = t.nseen < MAX_SHOWN ? t.nseen : MAX_SHOWN;
	for (size_t o = 0; o < nouts; o++) {
		FILE *f = outs[o];
		fprintf(f, "=== shrunk reproducer for %s: %s\n", g->label, kind_name[g->kind]);
		if (replay)
			fprintf(f, "replay the original: %s\n", replay);
		fprintf(f, "shrunk from %zu rules, %zu conditions, %zu ABIs to %zu, %zu, %zu "
			"(%u checks, %.2f s%s)\n", orig->nrules,
			shrink_cond_count(orig), orig->narches, small->nrules,
			shrink_cond_count(small), small->narches, st->checks, (double)st->ns / 1e9,
			st->exhausted ? "; budget spent, a smaller one may exist" : "");
		testutil_policy_dump(f, small);
		if (t.kinds & KIND(K_REFUSED)) {
			fprintf(f, "scmpc: %s\n", t.refused_msg);
		} else {
			fprintf(f, "%lu of %lu probes mismatch (", t.mismatches, t.probes);
			print_kinds(f, t.kinds);
			fprintf(f, "); the simplest of this kind:\n");
			for (size_t i = 0; i < shown; i++)
				print_mismatch(f, &t.seen[i]);
		}
		fprintf(f, "in C (scmpc_policy_eval() gives the IR's answer, scmpc_compile() and "
			"scmpc_emulate() the program's):\n");
		shrink_print_c(f, small, "\t");
		for (size_t i = 0; i < shown; i++) {
			const struct mismatch *m = &t.seen[i];
			char name[16];
			fprintf(f, "\t/* IR %s (rule %d)", testutil_act(m->ir), m->rule);
			for (int k = 0; k < NPROG; k++)
				if (m->ran[k])
					fprintf(f, "; %s %s", prog_name[k],
						testutil_act(m->got[k]));
			fprintf(f, " */\n");
			snprintf(name, sizeof(name), "sd%zu", i);
			shrink_print_sd_c(f, &m->sd, name, "\t");
		}
		fprintf(f, "=== end of reproducer\n");
		fflush(f);
	}
	diff_fini(&t);
}

/* Shrink P, whose check showed KINDS, once for scmpc's side and once for
 * libseccomp's (they are different bugs), each for its first kind in the
 * order below, and print each reproducer to OUTS. */
static void shrink_and_report(const char *label, const scmpc_policy *p, unsigned kinds,
			      int refused_rc, bool full, const char *replay, FILE *const *outs,
			      size_t nouts)
{
	static const unsigned order[] = { K_REFUSED, P_OPT, P_NAIVE, P_SMALL, K_EVAL, P_LSC2, P_LSC1 };
	bool side_done[2] = { false, false };
	struct shrink_opts o;
	if (!shrink_budget(&o))
		return;
	/* Hangs met while shrinking are not the run's own. */
	unsigned hangs = lsc_hangs;
	for (size_t i = 0; i < ARRAY_SIZE(order); i++) {
		unsigned k = order[i], side = (KIND(k) & SCMPC_SIDE) ? 0 : 1;
		if (!(kinds & KIND(k)) || side_done[side])
			continue;
		side_done[side] = true;
		struct target g = { .label = label, .kind = k, .refused_rc = refused_rc,
				    .full = full, .mutate = injected };
		struct shrink_stats st;
		scmpc_policy *small = shrink_policy(p, still_fails, &g, &o, &st);
		if (small) {
			reproducer(&g, p, small, &st, replay, outs, nouts);
		} else {
			for (size_t j = 0; j < nouts; j++)
				fprintf(outs[j], "%s: %s: not shrunk: %s\n", label, kind_name[k],
					st.lost ? "its copy through the API does not fail"
						: "out of memory");
		}
		scmpc_policy_free(small);
	}
	lsc_hangs = hangs;
}

/* A failing policy of the run: shrink the first few, and write a finding
 * file when SCMPC_DIFF_FINDINGS names a directory (the campaign script).
 * INDEX < 0: not a random policy, no replay line. */
static void found(const char *label, const scmpc_policy *p, const struct diff *t, bool full,
		  uint64_t seed, long index)
{
	char replay[4352] = "";
	FILE *outs[2] = { stderr, NULL };
	size_t nouts = 1;
	const char *dir = getenv("SCMPC_DIFF_FINDINGS");

	if (index >= 0) {
		const char *inj = getenv("SCMPC_DIFF_INJECT");
		snprintf(replay, sizeof(replay), "%s%s%sSCMPC_SEED=0x%llx SCMPC_RANDOM_ONLY=%ld %s",
			 injected ? "SCMPC_DIFF_INJECT=" : "", injected ? inj : "",
			 injected ? " " : "", (unsigned long long)seed, index, self);
		if (dir && *dir) {
			char path[4096];
			snprintf(path, sizeof(path), "%s/seed-0x%llx-%ld.txt", dir,
				 (unsigned long long)seed, index);
			if (!(outs[1] = fopen(path, "w")))
				fprintf(stderr, "%s: %s\n", path, strerror(errno));
			else
				nouts = 2;
		}
	}
	if (nouts == 2) {
		fprintf(outs[1], "differential finding: %s\nkinds: ", label);
		print_kinds(outs[1], t->kinds);
		fprintf(outs[1], "\nreplay: %s\n\n", replay);
	}
	if (policies_shrunk < MAX_SHRUNK) {
		policies_shrunk++;
		shrink_and_report(label, p, t->kinds, t->refused_rc, full,
				  index >= 0 ? replay : NULL, outs, nouts);
	} else if (nouts == 2) {
		/* stderr gets one list of the failing policies at the end. */
		fprintf(outs[1], "not shrunk: %d failing policies of this run were already\n",
			MAX_SHRUNK);
	}
	if (nouts == 2) {
		fprintf(outs[1], "\n=== original policy\n");
		testutil_policy_dump(outs[1], p);
		if (t->kinds & KIND(K_REFUSED))
			fprintf(outs[1], "scmpc: %s\n", t->refused_msg);
		for (size_t i = 0; i < t->nseen; i++)
			print_mismatch(outs[1], &t->seen[i]);
		fclose(outs[1]);
	}
}

/* -------------------------------------------------------- real profiles */

struct profile_case {
	char path[4096];
	char label[320];	/* "NAME for ABI", NAME up to 299 (collect_profile_cases) */
	enum scmpc_arch target;
};

/* The packaged profiles (testutil_profile_names) and, when
 * $SCMPC_EXTRA_POLICIES names a directory, every *.json in it, each for
 * x86_64 and aarch64. */
#define MAX_PROFILE_CASES 256
static struct profile_case profile_cases[MAX_PROFILE_CASES];
static size_t nprofile_cases;

static void add_profile_case(const char *path, const char *name)
{
	static const enum scmpc_arch common[] = { SCMPC_ARCH_X86_64, SCMPC_ARCH_AARCH64 };
	/* Docker's default profile for every host its archMap or arches
	 * name, and a few more, big-endian ones among them. */
	static const enum scmpc_arch docker[] = {
		SCMPC_ARCH_X86_64, SCMPC_ARCH_AARCH64, SCMPC_ARCH_ARM,	  SCMPC_ARCH_S390X,
		SCMPC_ARCH_PPC64LE, SCMPC_ARCH_RISCV64, SCMPC_ARCH_MIPS64, SCMPC_ARCH_MIPSEL64,
	};
	bool all = !strcmp(name, "docker-default.json");
	const enum scmpc_arch *targets = all ? docker : common;
	size_t ntargets = all ? ARRAY_SIZE(docker) : ARRAY_SIZE(common);
	for (size_t t = 0; t < ntargets && nprofile_cases < MAX_PROFILE_CASES; t++) {
		struct profile_case *pc = &profile_cases[nprofile_cases++];
		snprintf(pc->path, sizeof(pc->path), "%s", path);
		snprintf(pc->label, sizeof(pc->label), "%s for %s", name,
			 scmpc_arch_name(targets[t]));
		pc->target = targets[t];
	}
}

static int collect_profile_cases(void)
{
	char path[4096];
	for (size_t i = 0; testutil_profile_names[i]; i++)
		add_profile_case(testutil_profile_path(testutil_profile_names[i], path, sizeof(path)),
				 testutil_profile_names[i]);
	const char *extra = testutil_extra_policies_dir();
	if (!extra)
		return 0;
	struct dirent **ents;
	int n = scandir(extra, &ents, NULL, alphasort);
	if (n < 0) {
		fprintf(stderr, "SCMPC_EXTRA_POLICIES=%s: %s\n", extra, strerror(errno));
		return -1;
	}
	for (int i = 0; i < n; i++) {
		size_t len = strlen(ents[i]->d_name);
		if (len > 5 && !strcmp(ents[i]->d_name + len - 5, ".json")) {
			char name[300];
			snprintf(path, sizeof(path), "%s/%s", extra, ents[i]->d_name);
			snprintf(name, sizeof(name), "extra/%s", ents[i]->d_name);
			add_profile_case(path, name);
		}
		free(ents[i]);
	}
	free(ents);
	return 0;
}

/* A profile that lists its ABIs is compared for aarch64 only when aarch64
 * is among them; one that lists none applies to whatever ABI it is
 * resolved for.  (Docker's default is resolved for every target it has.) */
static bool profile_applies(const struct profile_case *pc)
{
	char *buf;
	size_t len;
	if (pc->target != SCMPC_ARCH_AARCH64 || testutil_load_file(pc->path, &buf, &len) < 0)
		return true;
	bool lists = strstr(buf, "SCMP_ARCH_") != NULL;
	bool has = strstr(buf, "SCMP_ARCH_AARCH64") != NULL;
	free(buf);
	return has || !lists;
}

static void test_profile(void **state)
{
	const struct profile_case *pc = *state;
	char label[sizeof(pc->label)];

	if (!profile_applies(pc)) {
		fprintf(stderr, "%s: the profile has no aarch64 section\n", pc->label);
		skip();
	}
	scmpc_policy *p = testutil_policy_file(scmpc_policy_from_json, pc->path, pc->target);
	if (!p)
		fail_msg("%s", testutil_last_error());
	snprintf(label, sizeof(label), "%s", pc->label);

	struct diff t;
	bool ok = diff_init(&t, label, p, &(struct diff_cfg){ .mutate = injected });
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
	if (t.kinds)
		found(label, p, &t, true, 0, -1);
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
	SCMPC_ACT_KILL_THREAD, SCMPC_ACT_KILL_PROCESS, SCMPC_ACT_USER_NOTIF,
};

static const uint64_t pool_consts[] = {
	0, 1, 2, 5, 38, 40, 0xff, 0x7e020000, 0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff,
	0x100000000ULL, 0xffffffff00000000ULL, 0xffffffffffffffffULL, 0x8000000000000000ULL,
	0x1234567800000005ULL,
};

static uint64_t rand_const(struct testutil_rng *r)
{
	if (testutil_rng_below(r, 4) == 0) {
		/* Two statements: the operands of >> are unsequenced, and gcc
		 * drew them in one order without ASan and in the other with it,
		 * so a seed gave other policies under ASan.  This is the order
		 * of the plain build, whose runs stay as they were. */
		uint64_t x = testutil_rng_next(r);
		return x >> testutil_rng_below(r, 64);
	}
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

/* Allow-list sized policies: on each ABI a random share of its whole table
 * (a few to several hundred calls; a thousand and more over three ABIs),
 * mostly unconditional, some with a condition, a few repeated. */
static void add_bulk(struct testutil_rng *r, scmpc_policy *p)
{
	for (size_t k = 0; k < p->narches; k++) {
		enum scmpc_arch a = p->arches[k];
		uint32_t base = arch_info(a)->nr_base, top = arch_table_max(a) - base;
		uint32_t share = testutil_rng_below(r, 101);
		uint32_t act = pool_actions[testutil_rng_below(r, ARRAY_SIZE(pool_actions))];

		for (uint32_t i = 0; i <= top; i++) {
			char name[64];
			if (testutil_rng_below(r, 100) >= share ||
			    !scmpc_syscall_name(a, base + i, name, sizeof(name)))
				continue;
			struct scmpc_cond c = rand_cond(r, testutil_rng_below(r, 6));
			c.flags = 0;	/* keep libseccomp in the comparison */
			uint32_t ra = testutil_rng_below(r, 4) ? act
				    : pool_actions[testutil_rng_below(r, ARRAY_SIZE(pool_actions))];
			add(p, NULL, base + i, a, ra, &c, testutil_rng_below(r, 8) == 0);
			if (testutil_rng_below(r, 50) == 0)
				add(p, NULL, base + i, a, ra, NULL, 0);
		}
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
		/* the other ABIs, in groups of one byte order as kernels run them */
		{ SCMPC_ARCH_S390X, SCMPC_ARCH_S390 },
		{ SCMPC_ARCH_S390X },
		{ SCMPC_ARCH_PPC64LE },
		{ SCMPC_ARCH_PPC64, SCMPC_ARCH_PPC },
		{ SCMPC_ARCH_MIPS64, SCMPC_ARCH_MIPS, SCMPC_ARCH_MIPS64N32 },
		{ SCMPC_ARCH_MIPSEL64, SCMPC_ARCH_MIPSEL, SCMPC_ARCH_MIPSEL64N32 },
		{ SCMPC_ARCH_MIPSEL64N32 },
		{ SCMPC_ARCH_RISCV64 },
		{ SCMPC_ARCH_PARISC64, SCMPC_ARCH_PARISC },
		{ SCMPC_ARCH_LOONGARCH64 },
		{ SCMPC_ARCH_M68K },
		{ SCMPC_ARCH_SH },
		{ SCMPC_ARCH_SHEB },
	};
	static const uint32_t badarch[] = { SCMPC_ACT_KILL_PROCESS, SCMPC_ACT_KILL_THREAD,
					    SCMPC_ACT_TRAP, SCMPC_ACT_ERRNO(1) };
	uint32_t def;
	do	/* libseccomp refuses to notify by default */
		def = pool_actions[testutil_rng_below(r, ARRAY_SIZE(pool_actions))];
	while (def == SCMPC_ACT_USER_NOTIF);
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
	if (testutil_rng_below(r, 32) == 0)
		add_bulk(r, p);
	/* runc's stub: limits on some ABIs, near and far from the names. */
	if (testutil_rng_below(r, 6) == 0)
		for (size_t i = 0; i < p->narches; i++) {
			if (testutil_rng_below(r, 3) == 0)
				continue;
			enum scmpc_arch a = p->arches[i];
			uint32_t max = arch_info(a)->nr_base + testutil_rng_below(r, 520);
			if (testutil_rng_below(r, 8) == 0)
				max = arch_info(a)->nr_base;
			uint32_t act = testutil_rng_below(r, 4) ? SCMPC_ACT_ERRNO(38)
								: pool_actions[testutil_rng_below(
									  r, ARRAY_SIZE(pool_actions))];
			assert_int_equal(scmpc_policy_set_limit(p, a, max, act,
								testutil_rng_below(r, 4) ? 0
											 : SCMPC_LIMIT_ZERO,
								NULL), 0);
		}
	return p;
}

/* Policy I of SEED's run: splitmix64 of (seed, i), so nearby seeds give
 * unrelated runs and each policy replays alone. */
static scmpc_policy *policy_of(uint64_t seed, unsigned i)
{
	struct testutil_rng r;
	uint64_t z = seed + (i + 1) * 0x9e3779b97f4a7c15ULL;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	testutil_rng_seed(&r, z ^ (z >> 31));
	return random_policy(&r);
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
	if (only >= 0 && (unsigned long)only >= count)
		count = (unsigned)only + 1;
	fprintf(stderr, "random policies: seed 0x%llx, %u policies (SCMPC_SEED, SCMPC_RANDOM_COUNT)\n",
		(unsigned long long)seed, count);

	unsigned long failed = 0, probes = 0, compared[NPROG] = { 0 }, why_total[NWHY] = { 0 };
	unsigned lsc_policies = 0, failing[20], large = 0, large_lsc = 0, smaller = 0;
	unsigned over_l1 = 0, over_l2 = 0, same_meaning = 0;
	size_t largest = 0;
	for (unsigned i = 0; i < count; i++) {
		if (only >= 0 && i != (unsigned long)only)
			continue;
		scmpc_policy *p = policy_of(seed, i);
		char label[64];
		snprintf(label, sizeof(label), "random policy %u of seed 0x%llx", i,
			 (unsigned long long)seed);
		struct diff t;
		struct diff_cfg cfg = { .quiet = true, .mutate = injected };
		if (p->nrules >= 100) {
			large++;
			largest = p->nrules > largest ? p->nrules : largest;
		}
		if (diff_init(&t, label, p, &cfg)) {
			run_probes(&t, false);
			probes += t.probes;
			lsc_policies += t.have[P_LSC1];
			large_lsc += p->nrules >= 100 && t.have[P_LSC1];
			smaller += t.len[P_SMALL] < t.len[P_OPT];
			bool alike = t.have[P_LSC1] && t.have[P_LSC2];
			for (int w = 0; w < NWHY && alike; w++)
				alike = w == W_EQUAL || (!t.count[P_LSC1][w] && !t.count[P_LSC2][w]);
			same_meaning += alike;
			over_l1 += alike && t.len[P_OPT] > t.len[P_LSC1];
			over_l2 += alike && t.len[P_OPT] > t.len[P_LSC2];
			for (int k = 0; k < NPROG; k++)
				compared[k] += t.count[k][W_EQUAL] + t.count[k][W_UNKNOWN] +
					       t.count[k][W_UNNAMED];
			for (int w = 0; w < NWHY; w++)
				why_total[w] += t.count[P_LSC2][w];
		}
		if (t.kinds) {
			if (failed < ARRAY_SIZE(failing))
				failing[failed] = i;
			failed++;
			found(label, p, &t, false, seed, i);
		}
		diff_fini(&t);
		scmpc_policy_free(p);
	}
	fprintf(stderr, "random: %lu probes; %u of %u policies compiled by libseccomp (%u compiles "
		"abandoned: libseccomp looped; %u refused by libseccomp with EEXIST as scmpc warned, "
		"%u warned of but taken after libseccomp's pruning); %u policies of 100 rules or more "
		"(the largest %zu, %u of them compiled by libseccomp)\n", probes, lsc_policies, count,
		lsc_hangs, refusals_agreed, refusals_only_warned, large, largest, large_lsc);
	for (int k = 0; k < NPROG; k++)
		fprintf(stderr, "  %-14s %lu decisions compared\n", prog_name[k], compared[k]);
	fprintf(stderr, "  scmpc-smallest smaller than scmpc on %u policies\n", smaller);
	fprintf(stderr, "  scmpc larger than libseccomp L1 on %u, than L2 on %u of the %u policies "
		"both compile with one meaning (no allowed difference on any probe)\n", over_l1,
		over_l2, same_meaning);
	fprintf(stderr, "  libseccomp-L2 on calls decided by libseccomp's tree (LIBSECCOMP merge): "
		"%lu compared\n", tree_compared);
	fprintf(stderr, "  libseccomp-L2 by kind:");
	for (int w = 0; w < NWHY; w++)
		fprintf(stderr, " %s: %lu;", why_name[w], why_total[w]);
	fprintf(stderr, "\n");
	if (failed) {
		fprintf(stderr, "FAILED: %lu random policies:", failed);
		for (unsigned long i = 0; i < failed && i < ARRAY_SIZE(failing); i++)
			fprintf(stderr, " %u", failing[i]);
		fprintf(stderr, "%s (the first %d shrunk above); replay one with SCMPC_SEED=0x%llx "
			"SCMPC_RANDOM_ONLY=N\n", failed > ARRAY_SIZE(failing) ? " ..." : "",
			MAX_SHRUNK, (unsigned long long)seed);
	}
	assert_int_equal(failed, 0);
}

/* ---------------------------------------------- the shrinker's self-test */

/* Injected bugs, applied to one program only, so that the others and the
 * IR keep the right answer. */
static void bug_errno13(struct sock_filter *insns, size_t len)
{
	/* A wrong return: ERRNO(13) comes out as ALLOW. */
	for (size_t i = 0; i < len; i++)
		if (BPF_CLASS(insns[i].code) == BPF_RET && BPF_RVAL(insns[i].code) == BPF_K &&
		    insns[i].k == SCMPC_ACT_ERRNO(13))
			insns[i].k = SCMPC_ACT_ALLOW;
}

#define BUG_CONST 0x7e020000U	/* in pool_consts, and no syscall number */

static void bug_const(struct sock_filter *insns, size_t len)
{
	/* An off-by-one on one argument constant, whichever way the
	 * compiler cut around it (jeq c, jgt c, jge c + 1, ...). */
	for (size_t i = 0; i < len; i++)
		if (BPF_CLASS(insns[i].code) == BPF_JMP && BPF_OP(insns[i].code) != BPF_JA &&
		    BPF_SRC(insns[i].code) == BPF_K && insns[i].k - (BUG_CONST - 1) <= 2)
			insns[i].k++;
}

static bool near_bug_const(uint64_t x)
{
	uint32_t lo = (uint32_t)x, hi = (uint32_t)(x >> 32);
	return lo - (BUG_CONST - 2) <= 3 || hi - (BUG_CONST - 2) <= 3;
}

struct selftest {
	const char *what;
	void (*mutate)(struct sock_filter *insns, size_t len);
	int prog;		/* the program given the bug: the kind to shrink for */
	bool need_const;	/* the shrunk policy must keep a BUG_CONST condition */
};

/* Finds a random policy of at least 25 rules on which the injected bug
 * shows, shrinks it, and checks that the result is small, still shows the
 * bug, and passes without it. */
static void test_shrink(void **state)
{
	const struct selftest *st = *state;
	const uint64_t seed = 0x5eccc0de2024ULL;
	scmpc_policy *p = NULL;
	unsigned i;

	for (i = 0; i < 5000 && !p; i++) {
		p = policy_of(seed, i);
		struct target g = { .label = "probe", .kind = (unsigned)st->prog,
				    .mutate = st->mutate, .mutated = st->prog };
		if (p->nrules >= 25 && still_fails(p, &g))
			break;
		scmpc_policy_free(p);
		p = NULL;
	}
	if (!p)
		fail_msg("no random policy of seed 0x%llx shows %s", (unsigned long long)seed,
			 st->what);
	char label[128];
	snprintf(label, sizeof(label), "random policy %u of seed 0x%llx with %s", i,
		 (unsigned long long)seed, st->what);
	struct target bug = { .label = label, .kind = (unsigned)st->prog, .mutate = st->mutate,
			      .mutated = st->prog };
	struct target none = { .label = label, .kind = (unsigned)st->prog };
	/* The predicate can say no: without the bug the policy passes. */
	assert_false(still_fails(p, &none));

	struct shrink_opts o = { 0 };
	struct shrink_stats ss;
	scmpc_policy *small = shrink_policy(p, still_fails, &bug, &o, &ss);
	assert_non_null(small);
	FILE *out = stderr;
	reproducer(&bug, p, small, &ss, NULL, &out, 1);
	assert_false(ss.exhausted);
	assert_true(small->nrules <= 2);
	assert_true(shrink_cond_count(small) <= 2);
	assert_true(still_fails(small, &bug));
	assert_false(still_fails(small, &none));
	if (st->need_const) {
		bool kept = false;
		for (size_t r = 0; r < small->nrules; r++)
			for (size_t c = 0; c < small->rules[r].nconds; c++)
				kept |= near_bug_const(small->rules[r].conds[c].value) ||
					near_bug_const(small->rules[r].conds[c].value2);
		assert_true(kept);
	}
	scmpc_policy_free(small);
	scmpc_policy_free(p);
}

static const struct selftest selftests[] = {
	{ "scmpc returning ERRNO(13) as ALLOW", bug_errno13, P_OPT, false },
	{ "scmpc off by one at 0x7e020000", bug_const, P_OPT, true },
	/* libseccomp's side: the allowed differences must hold on every
	 * shrunk policy as on the original. */
	{ "libseccomp-L2 returning ERRNO(13) as ALLOW", bug_errno13, P_LSC2, false },
};

int main(int argc, char **argv)
{
	static struct CMUnitTest tests[MAX_PROFILE_CASES + 1];
	size_t n = 0;

	if (argc > 0)
		self = argv[0];
	const char *inj = getenv("SCMPC_DIFF_INJECT");
	if (inj && *inj) {
		if (!strcmp(inj, "errno13")) {
			injected = bug_errno13;
		} else if (!strcmp(inj, "const")) {
			injected = bug_const;
		} else {
			fprintf(stderr, "SCMPC_DIFF_INJECT: errno13 or const, not '%s'\n", inj);
			return 2;
		}
		fprintf(stderr, "SCMPC_DIFF_INJECT=%s: scmpc's optimized programs carry a bug\n",
			inj);
	}
	/* `test_differential shrink`: the shrinker's self-test, a suite of
	 * its own so that the differential's run stays as it was. */
	if (argc > 1 && !strcmp(argv[1], "shrink")) {
		struct CMUnitTest st[ARRAY_SIZE(selftests)];
		for (size_t i = 0; i < ARRAY_SIZE(selftests); i++) {
			st[i] = (struct CMUnitTest)cmocka_unit_test_prestate(
				test_shrink, (void *)&selftests[i]);
			st[i].name = selftests[i].what;
		}
		return _cmocka_run_group_tests("differential shrinker", st, ARRAY_SIZE(st), NULL,
					       NULL);
	}
	/* Replaying one random policy needs nothing else; the campaign
	 * (SCMPC_DIFF_PROFILES=0) runs random policies only. */
	const char *only = getenv("SCMPC_RANDOM_ONLY"), *prof = getenv("SCMPC_DIFF_PROFILES");
	bool profiles = !(only && *only) && !(prof && !strcmp(prof, "0"));
	if (profiles && collect_profile_cases() < 0)
		return 1;
	for (size_t i = 0; i < nprofile_cases; i++) {
		tests[n] = (struct CMUnitTest)cmocka_unit_test_prestate(
			test_profile, (void *)&profile_cases[i]);
		tests[n].name = profile_cases[i].label;
		n++;
	}
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_random);
	return _cmocka_run_group_tests("differential", tests, n, NULL, NULL);
}
