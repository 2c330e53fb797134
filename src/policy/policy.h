/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * The policy IR and its views: the rules as the caller added them
 * (policy.c), each ABI's view of them (the rules resolved to numbers,
 * socket and IPC rules copied onto their multiplexers, libseccomp's merge
 * applied: arch_view), and the decision the rules make for a call
 * (policy_eval.c), the meaning every program is checked against.
 * libseccomp's tree of comparisons, which decides some calls under the
 * LIBSECCOMP merge, is lsc_tree.h.  Nothing here knows programs.
 */
#ifndef SCMPC_POLICY_H
#define SCMPC_POLICY_H

#include "arch/arch.h"

struct lsc_tree;

/* ---- policy.c */
struct rule {
	char *name;		/* NULL when given by number */
	uint32_t nr;
	enum scmpc_arch arch;	/* NONE: every ABI of the policy */
	uint32_t action;
	struct scmpc_cond *conds;
	size_t nconds;
	char *origin;
	uint32_t source;	/* a view's own rule: the policy rule it stands for */
};

/* runc's ENOSYS stub for one ABI (scmpc_policy_set_limit). */
struct limit {
	bool set;
	uint32_t max;
	uint32_t action;
	unsigned flags;		/* SCMPC_LIMIT_* */
};

struct scmpc_policy {
	uint32_t def_action;
	uint32_t badarch_action;
	unsigned load_flags;
	enum scmpc_merge merge;		/* RESTRICTIVE or LIBSECCOMP */
	bool lsc_strict;		/* LIBSECCOMP_STRICT: refusals are errors */
	uint32_t unknown_action;
	bool unknown_set;
	enum scmpc_unknown_threshold unknown_thr;
	enum scmpc_arch arches[SCMPC_ARCH_COUNT];
	size_t narches;
	struct limit limits[SCMPC_ARCH_COUNT + 1];	/* by enum scmpc_arch */
	char *listener_path, *listener_meta;	/* OCI listenerPath, listenerMetadata */
	struct rule *rules;
	size_t nrules, cap;
	/* Lifted (lift.c): rules decide the numbers they name and nothing
	 * else; none is copied onto socketcall(2)/ipc(2). */
	bool literal;
};

bool policy_has_arch(const scmpc_policy *p, enum scmpc_arch a);
/* A policy with every setting of P (actions, ABIs, limits, flags, merge,
 * listener) and none of its rules; NULL without memory.  Whoever adds a
 * field above adds it there. */
scmpc_policy *policy_new_like(const scmpc_policy *p);

/* A rule resolved for one ABI. Sorted by nr, then by rule index. */
struct resolved {
	uint32_t nr;
	uint32_t rule;		/* < p->nrules: p->rules[]; else v->own[rule - p->nrules] */
	uint32_t order;		/* the policy rule it comes from: ties keep add order */
};

struct arch_view {
	enum scmpc_arch arch;
	const struct arch_info *info;
	struct resolved *rs;
	size_t nrs;
	uint32_t threshold;	/* numbers above get the unknown action */
	bool unknown_set;
	/* Rules the view made itself: multiplexed copies of socket and IPC
	 * rules (socketcall(2), ipc(2)), and libseccomp's 32-bit truncation of
	 * wide constants.  Their conditions are owned here. */
	struct rule *own;
	size_t nown, ownc;
	size_t base;		/* p->nrules when the view was made */
	/* LIBSECCOMP merge: the calls libseccomp decides by its tree of
	 * comparisons (lsc_tree.h), sorted by number. */
	struct view_tree *trees;
	size_t ntrees;
};

struct view_tree {
	uint32_t nr;
	struct lsc_tree *t;
};

/* The view whose rules decide nr == -1 under AUDIT: the first of the
 * policy's ABIs with that AUDIT_ARCH that has rules for -1 (positions
 * [*LO, *HI) of it), or NULL when none has and -1 gets the default. */
const struct arch_view *minus1_view(const scmpc_policy *p, const struct arch_view *views,
				    uint32_t audit, size_t *lo, size_t *hi);

/* The tree that decides NR on V, or NULL when its rules do. */
const struct lsc_tree *view_tree(const struct arch_view *v, uint32_t nr);

/* The rule at view position I. */
static inline const struct rule *view_rule(const scmpc_policy *p, const struct arch_view *v,
					   size_t i)
{
	uint32_t r = v->rs[i].rule;
	return r < v->base ? &p->rules[r] : &v->own[r - v->base];
}
/* The policy rule index to report for view position I. */
static inline uint32_t view_source(const struct arch_view *v, size_t i)
{
	uint32_t r = v->rs[i].rule;
	return r < v->base ? r : v->own[r - v->base].source;
}

/* Resolve every rule of P for ABI A. Names missing on the ABI are skipped. */
int arch_view_init(struct arch_view *v, const scmpc_policy *p, enum scmpc_arch a, scmpc_diag *d);
void arch_view_fini(struct arch_view *v);
/* Index range [*lo, *hi) of the resolved rules for NR. */
void arch_view_find(const struct arch_view *v, uint32_t nr, size_t *lo, size_t *hi);
/* Whether any of NR's rules on V has conditions. */
bool arch_view_has_conds(const scmpc_policy *p, const struct arch_view *v, uint32_t nr);
/* The action when no rule for NR decides: default, or unknown above the
 * threshold. */
uint32_t arch_view_fallback(const scmpc_policy *p, const struct arch_view *v, uint32_t nr);
/* The limit (runc's stub) for a call of P's with AUDIT and NR, or NULL:
 * its ABI's, bit 30 choosing between x86_64 and x32. */
const struct limit *call_limit(const scmpc_policy *p, uint32_t audit, uint32_t nr);
/* Whether limit L decides number NR (L may be NULL). */
static inline bool limit_hits(const struct limit *l, uint32_t nr)
{
	return l && (nr > l->max || (nr == 0 && (l->flags & SCMPC_LIMIT_ZERO)));
}

/* ---- policy_eval.c */
/* Decision of the rules alone for a call on ABI V (no arch dispatch). */
uint32_t eval_on_view(const scmpc_policy *p, const struct arch_view *v,
		      const struct seccomp_data *sd, int *rule);

/* The same for repeated questions about one call NR of V with many rules
 * (the verifier asks thousands): rules with an equality are filed by its
 * constant, rules of one order comparison by their bound with the best of
 * each run precomputed, and the best `!=` rules are kept.  Built per call;
 * eval_indexed() falls back to eval_on_view() for other numbers. */
struct call_key {
	uint64_t value;		/* equality: the constant; order: the bound */
	size_t pos;		/* in v->rs */
	size_t best;		/* order: the best rule of the run that matches with this one */
	uint8_t slot;		/* 0-5: 64-bit compare of args[slot]; 6-11: low word of args[slot - 6] */
	bool upper;		/* order: x < value; else x >= value */
};
#define CALL_INDEX_MIN 8	/* calls with at most this many rules are scanned */
struct call_index {
	uint32_t nr;
	bool filed;		/* false: too few rules to file; eval_on_view() decides */
	size_t lo, hi;		/* v->rs range of NR */
	struct call_key *keys;	/* equalities by (slot, value) */
	size_t nkeys;
	struct call_key *bounds;	/* order comparisons by (slot, upper, value) */
	size_t nbounds;
	/* x != c alone, per slot: the best such rule, and the best whose
	 * constant differs from its (SIZE_MAX: none). */
	size_t ne[12][2];
	size_t *scan;		/* positions of the other rules */
	size_t nscan;
};
int call_index_init(struct call_index *ix, const scmpc_policy *p, const struct arch_view *v,
		    uint32_t nr);
void call_index_fini(struct call_index *ix);
uint32_t eval_indexed(const scmpc_policy *p, const struct arch_view *v,
		      const struct call_index *ix, const struct seccomp_data *sd, int *rule);

/* scmpc_conds_witness() of R's conditions, for the compiler fuzzer. */
void rule_witness(const struct rule *r, uint64_t args[6]);

/* The whole policy's decision, given views[i] for p->arches[i]. */
uint32_t policy_decide(const scmpc_policy *p, const struct arch_view *views,
		       const struct seccomp_data *sd, int *rule);
int policy_views_init(const scmpc_policy *p, struct arch_view *views, scmpc_diag *d);
void policy_views_fini(const scmpc_policy *p, struct arch_view *views, size_t n);

#endif
