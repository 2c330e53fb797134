/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * The engine: a classic BPF program, or a stack of them, run symbolically
 * over every input.  A path is one run from the first instruction to a
 * RET; along it each of the 16 32-bit words of seccomp_data keeps the set
 * of values that lead there (struct wcon: an interval, a pattern of fixed
 * bits and a list of excluded patterns), and every jump splits a set in
 * two, so the paths are disjoint and together cover every call.  What a
 * path cannot follow exactly it refuses, naming the instruction: nothing
 * is approximated.  The engine knows programs and seccomp_data; it knows
 * no policy.
 */
#ifndef SCMPC_ENGINE_H
#define SCMPC_ENGINE_H

#include <linux/filter.h>
#include "bpf/bpf.h"

#define NWORDS 16		/* 32-bit words of struct seccomp_data */
#define W_NR 0
#define W_ARCH 1
#define W_IP 2			/* words 2 and 3 */
#define W_ARGS 4		/* words 4..15: two per argument */
#define MAX_STEPS 200000000ULL	/* instructions walked over all paths */
#define PIN_MAX 64		/* values a word may take to be followed one by one */
#define SCAN_BUDGET 4096	/* skips of a scan through a word's values before the search by halves */
#define MAX_INTERVALS 65536	/* intervals of one path's number set */
#define RET_ACTION_FULL 0xffff0000U

static inline int act_rank(uint32_t r)
{
	return (int32_t)(r & RET_ACTION_FULL);
}
static inline int top_bit(uint32_t x)
{
	return 31 - __builtin_clz(x);
}

/* ---- wordset.c: sets of a word */

/* An excluded cube: (w & m) != v.  Lists are shared between the paths that
 * forked from one another, so nodes are never changed once linked. */
struct ne {
	uint32_t m, v;
	const struct ne *next;
};

struct chunk {
	struct chunk *next;
	size_t used;
	struct ne nodes[1024];
};

/* The values of one word on a path: lo <= w <= hi, (w & m) == v and, for
 * each excluded cube, (w & ne->m) != ne->v. */
struct wcon {
	uint32_t lo, hi;
	uint32_t m, v;
	const struct ne *ne;
	int32_t insn;		/* the first jump that constrained it, or -1 */
	uint16_t prog;		/* in which filter */
};

static const struct wcon wcon_all = { 0, 0xffffffffU, 0, 0, NULL, -1, 0 };

struct ival {
	uint32_t lo, hi;
	uint32_t path;
};

struct ivals {
	struct ival *v;
	size_t n, cap;
};

/* How a branch restricts a word. */
enum { P_ALL, P_RANGE, P_CUBE, P_NOT };

struct piece {
	uint8_t kind;
	uint32_t a, b;		/* RANGE: [a, b]; CUBE, NOT: mask a, value b */
};

struct wcon_arena {
	struct chunk *head;
};

bool wcon_trivial(const struct wcon *c);

bool wcon_has(const struct wcon *c, uint32_t x);

int wcon_first(const struct wcon *c, uint32_t from, uint32_t *out);

/* Whether no value is in both A and B (an undecided search says no). */
bool wcon_disjoint(const struct wcon *a, const struct wcon *b);

/* The last value of the run of C's values that starts at X (in C). */
uint32_t wcon_run_end(const struct wcon *c, uint32_t x);

bool wcon_feasible(const struct wcon *c);

/* Whether some value of C lies in P, C unchanged and nothing allocated:
 * the question wcon_apply() answers, asked before a set is cut (an
 * undecided search says yes, as wcon_feasible() does). */
bool wcon_meets(const struct wcon *c, const struct piece *p);

/* Append C's values within [LO, HI] as disjoint intervals, tagged PATH. */
int wcon_intervals(const struct wcon *c, uint32_t lo, uint32_t hi, uint32_t path,
			  struct ivals *out);

void wcon_arena_free(struct wcon_arena *ar);

/* Restrict C by P.  Returns 1 when values remain, 0 when none do, or
 * -ENOMEM. */
int wcon_apply(struct wcon_arena *ar, struct wcon *c, const struct piece *p);

/* ---- walk.c: the paths of a program or a stack */

struct path {
	uint32_t ret;
	int32_t insn;		/* the RET that decided, -1 for the stack's initial ALLOW */
	uint16_t prog;
	uint32_t len;		/* instructions executed, over every program it ran */
	struct wcon w[NWORDS];
};

/* How the programs of a walk combine.  ONE: a single program; STACK:
 * as the kernel runs a stack of filters (newest first, the most
 * restrictive return wins, ties to the newer); EACH: every program runs
 * on the same call and each one's return is kept (walker.each), for
 * answers that compare programs; STACK_THEN: programs 0..n-2 run as
 * STACK does, then program n-1 on the same call, each return kept as
 * EACH keeps it: a program set against a stack, whose filters older than
 * a KILL_PROCESS need not run (EACH runs them) since nothing can change
 * the stack's return; those count as returning ALLOW. */
enum walk_mode { WALK_ONE, WALK_STACK, WALK_EACH, WALK_STACK_THEN };
#define WALK_MAX_EACH 64

struct walker {
	const struct sock_filter *const *progs;	/* oldest first */
	const size_t *lens;
	size_t n;
	enum walk_mode mode;
	size_t max_paths;
	uint64_t steps;
	struct wcon_arena ar;
	struct state *stk;
	size_t nstk, capstk;
	struct path *paths;
	size_t npaths, cappaths;
	/* EACH: what a path returns, from every program's return (oldest
	 * first); NULL: the oldest program's */
	uint32_t (*combine)(const uint32_t *rets, size_t n, void *ctx);
	void *combine_ctx;
	/* EACH: path i's returns, program j's at each[i * n + j], and the
	 * RET instruction that gave it (-1 for a filter STACK_THEN did not
	 * run) */
	uint32_t *each;
	int32_t *each_insn;
	size_t capeach, capeach_insn;
	scmpc_diag *d;
	/* ONE and STACK: when set, each path goes to VISIT as it is found
	 * instead of into paths (npaths still counts them, max_paths still
	 * bounds them), so that a caller who judges paths one at a time
	 * holds one, not all, and may stop the walk early: VISIT returns 0
	 * to go on or a negative errno that walk_paths() returns. */
	int (*visit)(struct walker *L, const struct path *p, void *arg);
	void *visit_arg;
	/* STACK and STACK_THEN: the lowest action rank (act_rank) any RET
	 * reachable from each instruction can return, program i's at
	 * floor[floor_at[i] + pc] (walk_paths() fills them in): a filter
	 * whose rest cannot return below the result so far cannot change
	 * it, and is left there instead of forked. */
	int32_t *floor;
	size_t *floor_at;
	/* when set, the words' sets the walk starts from (NWORDS of
	 * them); NULL: every call */
	const struct wcon *start;
	/* STACK and STACK_THEN: where each filter alone kills every call
	 * (stack_kill.c), or NULL */
	struct kill_table *kill;
};

/* An error at instruction INSN of filter PROG (-1: none) of L's input, in
 * L->d; returns ERR. */
int walk_err(const struct walker *L, int err, unsigned prog, long insn, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* Every path of L's programs, from the call no word constrains, into
 * L->paths (and L->each): 0, or a negative errno with the reason in L->d
 * (-E2BIG past L->max_paths or the engine's step bound, -ENOTSUP where a
 * program does what the engine cannot follow exactly, naming the
 * instruction). */
int walk_paths(struct walker *L);
/* The call whose 32-bit words, as a filter loads them, are W: the layout
 * of the ABI whose AUDIT_ARCH is W[W_ARCH] (scmpc_emulate()'s). */
void words_to_data(const uint32_t w[NWORDS], struct seccomp_data *sd);

/* Free what a walk holds (L itself is the caller's). */
void walker_fini(struct walker *L);

/* ---- stack_kill.c: where one filter of a stack kills every call */

/* L->kill for the stack L->progs[0..NSTACK) (each filter's part built
 * when first asked about). */
int stack_kill_new(struct walker *L, size_t nstack);

void stack_kill_free(struct kill_table *t);

/* Whether a filter from PROG back to OLDEST returns KILL_PROCESS on every
 * call of the words W: 1 with that value in *V, the newest such filter in
 * *G and one of its KILL_PROCESS instructions the path's numbers reach in
 * *INSN (-1 if none is found); 0 when none is known to; a negative errno.
 * Each filter is walked alone the first time it is asked about. */
int stack_kill_find(struct walker *L, uint16_t prog, uint16_t oldest, const struct wcon *w,
		    uint32_t *v, uint16_t *g, int32_t *insn);

/* Whether filter PROG can return an action ranking below RANK on some
 * call of the words W: 0 when it cannot (every path of it alone that does
 * meets W nowhere), 1 when it may, or a negative errno. */
int stack_kill_lowers(struct walker *L, uint16_t prog, const struct wcon *w, int32_t rank);

#endif
