/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Lifting a program, or a stack of them, to the policy it decides (see
 * lift.c): the engine's paths (engine/) analysed per ABI (lift_abi.c),
 * the policy's shape chosen (lift_fit.c), rules written (lift_emit.c) and
 * the result checked (lift_check.c).  These files share what is below; the
 * rest of the library sees scmpc_lift() and scmpc_merge_stack().
 */
#ifndef SCMPC_LIFT_H
#define SCMPC_LIFT_H

#include "engine/engine.h"
#include "policy/policy.h"

#define MAX_PATHS_DEFAULT 65536
#define MAX_RULE_NUMBERS 65536	/* numbers a lifted policy may name */
#define MAX_RULES (1U << 20)
#define MAX_ALTS 4096		/* alternatives one path's argument sets split into */

/* A rule to add for each number of a segment. */
struct tmpl {
	uint32_t action;
	struct scmpc_cond *conds;
	size_t nconds;
	uint32_t path;
};

struct tmpls {
	struct tmpl *v;
	size_t n, cap;
};

/* The rules a number of an argument-dependent segment needs for the paths
 * ending in RET: a default other than RET pays them. */
struct retw {
	uint32_t ret;
	uint64_t rules;
};

/* Numbers of one ABI on which the same paths hold. */
struct seg {
	uint32_t lo, hi;
	bool dep;		/* the action depends on the arguments */
	uint32_t ret;		/* !dep: the action */
	uint32_t first, n;	/* its paths: idx[first .. first + n) */
	struct retw *rw;	/* dep: rules per action, to weigh defaults */
	size_t nrw;
	struct tmpls all;	/* dep: the rules of every action, weighed on ABI all_ab */
	const struct abi *all_ab;
};

/* The decision of nr == -1 under an AUDIT_ARCH. */
struct dec {
	bool dep;
	uint32_t ret;
	uint32_t first, n;
	struct retw *rw;
	size_t nrw;
	struct tmpls all;
	const struct abi *all_ab;
};

/* How lift_fit() lets the policy say one ABI's decision. */
struct plan {
	bool lim;		/* a limit (scmpc_policy_set_limit) */
	uint32_t lim_max, lim_act;
	unsigned lim_flags;
	bool r3;		/* x32: x86_64's limit decides 0x80000000-0xbfffffff */
	int64_t teff;		/* POLICY_MAX: the highest number named */
	bool name_t;		/* name teff with a rule of the default action */
	bool m1;		/* -1 gets its rules here */
};

struct abi {
	enum scmpc_arch arch;
	const struct arch_info *info;
	uint32_t blk[3][2];	/* the numbers the ABI's rules decide */
	size_t nblk;
	struct seg *segs;
	size_t nsegs;
	uint32_t *idx;
	size_t nidx;
	struct dec m1;		/* -1 under its AUDIT_ARCH */
	bool all_bad;		/* every number gets the bad-arch action */
	bool in;		/* one of the policy's ABIs */
	struct plan pl;
};

#define R3_LO 0x80000000U
#define R3_HI 0xbfffffffU

struct fitp {
	uint32_t D;		/* the default action */
	bool U_set;
	uint32_t U;		/* the unknown-syscall action */
	enum scmpc_unknown_threshold thr;
	bool named;	/* SCMPC_LIFT_NAMED: no rule on an unnamed number */
};

#define COST_INF UINT64_MAX

/* One way a word's values split into what conditions can say. */
struct alt {
	uint32_t lo, hi, m, v;
};

struct alts {
	struct alt *v;
	size_t n, cap;
};

struct emitter {
	struct walker *L;
	scmpc_policy *p;
	uint32_t D;
	bool disjoint;	/* SCMPC_LIFT_NAMED: no rule overlaps one of another action */
	size_t nrules;
	/* The templates of the last segment written, reused for its numbers. */
	const void *key;
	struct tmpls t;
	uint64_t relax_steps;	/* word comparisons spent widening rules */
};

/* The lifter's bound: word comparisons spent widening rules (relax())
 * and finding which paths widened rules already match, weighing and
 * writing.  Issue #24's argument-heavy programs of 2,400-4,100
 * instructions (700-7,000 paths per number) take 18M-67M, under a second;
 * a program past it is refused naming it, never left to spin.  A word
 * compared by its interval and cube is one step; a search of its values
 * (wcon_disjoint(), wcon_meets()) costs about eight times that and counts
 * so. */
#define LIFT_SEARCH_STEPS 8
#define LIFT_MAX_STEPS (1ULL << 27)

static inline bool seg_is(const struct seg *s, uint32_t act)
{
	return !s->dep && s->ret == act;
}
static inline bool dec_is(const struct dec *m, uint32_t act)
{
	return !m->dep && m->ret == act;
}
/* The high word of argument I under byte order BE. */
static inline unsigned arg_word(unsigned i, bool high, bool be)
{
	return W_ARGS + 2 * i + (high == be ? 0 : 1);
}

/* ---- lift.c */
/* The policy PROGS[0..N) decide as MODE combines them (WALK_EACH: by
 * COMBINE(returns, N, CTX)), as scmpc_lift() and scmpc_merge_stack() do. */
int lift_programs(const struct sock_filter *const *progs, const size_t *lens, size_t n,
		  enum walk_mode mode, uint32_t (*combine)(const uint32_t *, size_t, void *),
		  void *ctx, const struct scmpc_lift_opts *o, scmpc_policy **out, scmpc_diag *d);

/* ---- lift_abi.c */
/* Cut ABI AB's numbers into segments, and find its -1 decision. */
int lift_abi_build(struct walker *L, struct abi *ab);

/* A decision that depends on the arguments must depend on nothing a rule
 * cannot test: not on instruction_pointer, and on a 32-bit ABI not on an
 * argument's high word (which the policy never compares there). */
int lift_dep_check(const struct walker *L, const struct abi *ab, const uint32_t *idx,
		     uint32_t n, uint32_t nr);

/* ---- lift_fit.c */
/* Whether AB's rules say -1 (see m1_roles()). */
bool lift_m1_host(struct abi *abis, size_t nab, const struct abi *ab);

/*
 * The cheapest limit options of every policy ABI under F, into OPTS (by
 * index in ABIS), and their cost.  x86_64 and x32 are planned together:
 * x86_64's limit decides R3, which x32's rules then need not.  With E, the
 * chosen plans are written.
 */
uint64_t lift_plan_all(struct abi *abis, size_t nab, const struct fitp *f, int *opts,
			 struct emitter *e, int *err);

/* Choose the default and unknown-syscall actions (and limits) that need
 * the fewest rules over the policy's ABIs. */
int lift_fit(struct walker *L, struct abi *abis, size_t nab, struct fitp *best, int *opts);

/* ---- lift_emit.c */
/* Disjoint alternatives whose union is C, each an interval and a cube; the
 * excluded points of C go to *PTS (to be said as `!=`) unless SPLIT, when
 * they cut the intervals instead.  Partial excluded cubes always split:
 * (w & m) != v is "the first bit of m that differs", bit by bit. */
int lift_word_alts(const struct wcon *c, bool split, struct alts *out, uint32_t **pts,
		     size_t *npts);

void lift_tmpls_free(struct tmpls *t);

/* Rules saying path P on ABI AB (every path whose action is not the
 * default; a call no rule matches gets the default). */
int lift_path_rules(const struct abi *ab, const struct path *p, uint32_t pi, bool split,
		      struct tmpls *out);

int lift_emit_numbers(struct emitter *e, struct abi *ab, const struct seg *s, uint32_t lo,
			uint32_t hi);

int lift_emit_m1(struct emitter *e, struct abi *ab, const struct dec *m1);

int lift_emit_name(struct emitter *e, struct abi *ab, uint32_t nr);

/* The rules per action of the paths IDX[0..N) on AB (number NR), as the
 * emitter writes them for every action (into *ALL, for it to reuse),
 * widened apart from other actions when DISJOINT; the steps spent go to
 * *STEPS. */
int lift_weigh(struct walker *L, const struct abi *ab, const uint32_t *idx, uint32_t n,
	       uint32_t nr, bool disjoint, uint64_t *steps, struct retw **out, size_t *nout,
	       struct tmpls *all);

/* A template's action and conditions, those on argument SKIP left out
 * (TMPL_ALL: none): hashed, and compared with another's. */
#define TMPL_ALL 6U
uint64_t tmpl_hash(const struct tmpl *t, unsigned skip);
bool tmpl_same(const struct tmpl *a, const struct tmpl *b, unsigned skip);

/* ---- lift_join.c */
/* Rules of T alike but on one argument, whose sets there make one interval
 * of its 64-bit value (less at most a point), joined into one: the same
 * calls matched, each with its action.  0 or -ENOMEM. */
int lift_join(struct tmpls *t);

/* ---- lift_check.c */
/* A value of C outside the AUDIT_ARCH values AUD: 1 (in *OUT), 0 when
 * there is none, -1 when C has too many intervals to tell. */
int lift_arch_outside(const struct wcon *c, const uint32_t *aud, size_t na, uint32_t *out);

/* Every distinct AUDIT_ARCH value of the ABIs scmpc knows. */
size_t lift_table_audits(uint32_t *aud);

/* Every path, on every ABI it reaches that the policy answers for, and on
 * an unknown AUDIT_ARCH when it reaches one (unless the caller chose the
 * bad-arch action): the program and the lifted policy must agree. */
int lift_check(const struct walker *L, const scmpc_policy *p, const struct abi *abis,
		 size_t nab, bool unknown);

#endif
