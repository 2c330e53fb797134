/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * What the files of the semantic check share, private to src/check/:
 *
 *   region.c      a region of calls (one set per word of seccomp_data, the
 *                 engine's struct wcon) and the two sides of a test on it;
 *   judge.c       the rules of one call over a region;
 *   judge_tree.c  libseccomp's tree of one call over a region;
 *   numbers.c     the number space of one AUDIT_ARCH value, cut where the
 *                 policy's decision can change;
 *   check.c       the driver: the program's paths, each judged.
 *
 * Every decision here must be policy_eval.c's, the reference meaning, on
 * every call of the region judged; nothing is sampled.
 */
#ifndef SCMPC_CHECK_JUDGE_H
#define SCMPC_CHECK_JUDGE_H

#include "check/check.h"
#include "engine/engine.h"
#include "policy/lsc_tree.h"

/* ---- region.c */

/* The calls whose every word lies in its set: a product, so a test on one
 * or two words cuts it into regions of the same kind. */
struct region {
	struct wcon w[NWORDS];
};

/* A conjunction of a piece on each of up to two words. */
struct conj {
	uint8_t n;
	uint8_t word[2];
	struct piece p[2];
};

/* One side of a test: disjoint conjunctions (a 64-bit order comparison is
 * two: high word beyond, or equal and the low word beyond; a masked order
 * test at most one cube per bit of its mask, and one for equality). */
#define SIDE_MAX 34
struct side {
	size_t n;
	struct conj c[SIDE_MAX];
};

/* The calls where rule condition C holds (T) and where it does not (F), on
 * ABI AI: cond_holds()'s meaning, the low word alone for a 32-bit
 * condition or ABI. */
void cond_sides(const struct scmpc_cond *c, const struct arch_info *ai, struct side *t,
		struct side *f);
/* The same for one comparison of libseccomp's tree (lsc_tree.c holds());
 * false for an order test on a masked word with bits outside its mask,
 * which no tree holds. */
bool cmp_sides(const struct lsc_cmp *x, const struct arch_info *ai, struct side *t,
	       struct side *f);
/* Whether some call of R meets C (an undecided search says yes). */
bool conj_meets(const struct region *r, const struct conj *c);
/* *OUT = R cut by C: 1, or 0 when nothing is left, or -ENOMEM. */
int conj_cut(struct wcon_arena *ar, const struct region *r, const struct conj *c,
	     struct region *out);

/* ---- judge.c, judge_tree.c */

/* One level of a libseccomp tree as lsc_tree_level() reads it, filed by
 * a SUB that leads there (LSC_ROOT for the root). */
struct tree_level {
	int32_t at;
	size_t n;
	struct lsc_cmp *v;
};

/* A named number of a view, ready to be judged: its rules in the order
 * that decides (the most restrictive action, then the earliest rule), up
 * to the first that holds always, or libseccomp's tree. */
struct call_rules {
	const struct arch_view *v;
	uint32_t nr;
	uint32_t fallback;		/* when nothing decides: no_match() */
	uint32_t tail;			/* after the last rule: the fallback, or
					   its action when it always holds */
	size_t *pos;			/* view positions, in that order */
	size_t n;
	/* same[i]: the action every one of pos[i..n) and the fallback give,
	 * or SAME_NONE: a region that reaches i needs no more cutting */
	uint64_t *same;
	/* per rule in that order, an equality it needs: on args[slot] (0-5)
	 * or its low word (6-11), or slot -1 for none; a region where that
	 * argument has one value that is not the constant skips the rule */
	int8_t *key_slot;
	uint64_t *key_val;
	const struct lsc_tree *tree;	/* when set, it decides */
	struct tree_level *levels;	/* its levels as read so far */
	size_t nlevels, caplevels;
};
#define SAME_NONE UINT64_MAX

/* Prepare NR's rules on V (at least one).  1: they depend on the
 * arguments; 0: *CONST_ACT decides every call of NR; -ENOMEM. */
int call_rules_init(struct call_rules *cr, const scmpc_policy *p, const struct arch_view *v,
		    uint32_t nr, uint32_t *const_act);
void call_rules_fini(struct call_rules *cr);

/* The judge of one region against one return value. */
struct judge {
	const scmpc_policy *p;
	scmpc_diag *d;
	struct wcon_arena ar;		/* excluded cubes of the regions it cuts */
	uint32_t want;			/* the program's return on the region */
	uint64_t steps;
	void *stk;			/* judge.c's work: parts still to judge */
	size_t nstk, capstk;
	size_t *cand;			/* the rules a region may meet, in order */
	uint64_t *csame;		/* same[] over them */
	size_t capcand;
	void *tstk;			/* judge_tree.c's */
	size_t ntstk, captstk;
	struct cont_chunk *conts;	/* judge_tree.c's continuations */
	/* where it found the policy deciding otherwise */
	struct region bad;
	uint32_t bad_act;
};
/* Cuts of regions the judge makes over one check before it gives up, far
 * above what a compiled program needs (each cut is a few set operations). */
#define JUDGE_STEPS 50000000ULL

/* Whether the policy decides every call of R with NR as J->want: 0 yes, 1
 * no (J->bad is a region where it gives J->bad_act), or a negative errno
 * with J->d set. */
int judge_call(struct judge *J, struct call_rules *cr, const struct region *r);
int judge_tree(struct judge *J, struct call_rules *cr, const struct region *r);
void judge_fini(struct judge *J);
/* Shared by both: the error past JUDGE_STEPS; the decision ACT on all of
 * R (0 when it is J->want, else 1 with R kept in J->bad). */
int judge_steps_over(struct judge *J);
int judge_decided(struct judge *J, const struct region *r, uint32_t act);

/* ---- numbers.c */

/* A run of numbers: CALL's rules decide it (one number), or ACTION does,
 * whatever the arguments. */
struct nr_seg {
	uint32_t lo, hi;
	uint32_t action;
	struct call_rules *call;
};

struct nr_map {
	uint32_t audit;
	struct nr_seg *seg;		/* sorted, covering 0..UINT32_MAX */
	size_t nseg, capseg;
	struct call_rules *calls;
	size_t ncalls;
};

/* The numbers of AUDIT (an AUDIT_ARCH of P's ABIs) as policy_decide()
 * treats them: 0, or -ENOMEM. */
int nr_map_init(struct nr_map *m, const scmpc_policy *p, const struct arch_view *views,
		uint32_t audit);
void nr_map_fini(struct nr_map *m);
/* The first run that ends at or after NR. */
size_t nr_map_find(const struct nr_map *m, uint32_t nr);

#endif
