/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* The decision DAG the compiler builds before it lays out instructions.
 * Nodes are hash-consed: building a node equal to an existing one returns
 * the existing id, so every distinct tail is emitted once. */
#ifndef SCMPC_DAG_H
#define SCMPC_DAG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/base.h"

enum node_kind {
	N_RET,	/* return k */
	N_JMP,	/* if (A op k) goto a else goto b */
	N_LD,	/* A = word at offset k; goto a */
	N_AND,	/* A &= k; goto a */
};

#define NODE_NONE UINT32_MAX

struct node {
	uint8_t kind;
	uint8_t op;	/* BPF_JEQ, BPF_JGT, BPF_JGE or BPF_JSET for N_JMP */
	uint16_t cost;	/* most instructions executed from here to a return */
	uint32_t k;
	uint32_t a, b;
};

/* Why a DAG was given up as too big: each bound says something different
 * about the policy, and the message must say which. */
enum dag_limit {
	DAG_LIMIT_NONE,
	DAG_LIMIT_NODES,	/* DAG_MAX_NODES distinct tests */
	DAG_LIMIT_WORK,		/* DAG_MAX_WORK units of lowering */
	DAG_LIMIT_RANGES,	/* more ranges than a 4096-instruction search holds */
};

struct dag {
	struct node *nodes;
	size_t n, cap;
	uint32_t *table;	/* open addressing: node id + 1, 0 = empty */
	size_t tcap;
	bool oom;		/* sticky: once set, every builder returns NODE_NONE */
	bool too_big;		/* set with oom when a DAG_MAX_* limit is reached */
	enum dag_limit limit;	/* which one, for the message */
	size_t ranges;		/* DAG_LIMIT_RANGES: how many the layout was given */
	/* The call being lowered when the limit was reached, if any. */
	const char *blame_abi, *blame_call;	/* blame_call NULL: no name */
	uint32_t blame_nr;
	size_t blame_rules;
	bool blamed;
	uint64_t work;		/* lowering steps, weighted by their size */
	uint64_t max_work;	/* the bound on work: DAG_MAX_WORK, or less when
				 * a caller's budget has less left (split.c) */
	/* A trial (dag_trial_begin) in progress: its bounds, 0 when none, and
	 * whether it went past them (oom is set too, to stop the builders). */
	size_t trial_nodes;
	uint64_t trial_work;
	bool trial_failed;
	/* Subgraphs already built, by the inputs that built them (dag_memo_*). */
	struct dag_memo *memo;
	size_t nmemo, memo_cap;
	size_t memo_words;	/* key words held, bounded by DAG_MEMO_WORDS */
	uint32_t *memo_table;	/* open addressing: entry index + 1, 0 = empty */
	size_t memo_tcap;
	/* Search trees kept across a compile's lowerings (treecache.h), or
	 * NULL; not owned.  REC: the search in progress records its calls. */
	struct tree_cache *trees;
	struct tree_rec *rec;
};

/* A program has at most 4096 instructions, so a DAG this large can only
 * come from a policy far too big to load; stopping here bounds the time
 * such a policy takes to fail. */
#define DAG_MAX_NODES (1u << 18)
/* The same bound on time: a policy whose lowering needs this much work
 * (about a second) cannot fit either. */
#define DAG_MAX_WORK (1ull << 27)

/* The error for a DAG given up as too big (g->too_big): which bound, and
 * the call it was reached on. */
int dag_limit_error(const struct dag *g, scmpc_diag *d);

/* Charge N units of lowering work; false (and the DAG marked too big) when
 * the budget is spent. */
static inline bool dag_charge(struct dag *g, uint64_t n)
{
	g->work += n;
	if (g->trial_work && g->work > g->trial_work && !g->oom) {
		g->trial_failed = true;
		g->oom = true;
	}
	if (g->work > g->max_work && !g->too_big) {
		g->too_big = true;
		g->limit = DAG_LIMIT_WORK;
		g->oom = true;
	}
	return !g->oom;
}

/*
 * A build that may be given up: between dag_trial_begin() and
 * dag_trial_end(), going past NODES new nodes or WORK units of work (or the
 * DAG's own node limit) stops the builders as oom does, and
 * dag_trial_end() then removes every node made since the beginning, clears
 * the stop and returns false.  Returns true when the trial stayed within
 * bounds.  A real allocation failure stays sticky either way.
 */
struct dag_mark {
	size_t n;
};
void dag_trial_begin(struct dag *g, struct dag_mark *m, size_t nodes, uint64_t work);
bool dag_trial_end(struct dag *g, const struct dag_mark *m);

/*
 * Subgraphs already built, keyed by the words that describe what built
 * them (a search tree's goal and ranges): the lowering asks for the same
 * tree under several argument prefixes, and building it again costs time
 * to intern nodes that exist.  MAXID is the largest node id the key or the
 * result names, so that a trial's truncation forgets what it made; WORK is
 * what the build charged, charged again on a hit so that the DAG's bounds
 * fall where they would without the memo.  dag_memo_get() returns the
 * root, or NODE_NONE when absent or when charging the work stops the DAG;
 * dag_memo_put() copies KEY and may fail silently (a miss next time); it
 * keeps at most DAG_MEMO_WORDS key words (16 MiB), past which the memo
 * only serves what it holds.
 */
#define DAG_MEMO_WORDS (1u << 22)
struct dag_memo {
	uint64_t hash, work;
	uint32_t *key;
	size_t nkey;
	uint32_t root, maxid;
};
uint32_t dag_memo_get(struct dag *g, const uint32_t *key, size_t nkey);
void dag_memo_put(struct dag *g, const uint32_t *key, size_t nkey, uint32_t root, uint32_t maxid,
		  uint64_t work);

void dag_init(struct dag *g);
void dag_fini(struct dag *g);
uint32_t dag_ret(struct dag *g, uint32_t k);
uint32_t dag_jmp(struct dag *g, uint8_t op, uint32_t k, uint32_t t, uint32_t f);
uint32_t dag_ld(struct dag *g, uint32_t off, uint32_t next);
uint32_t dag_and(struct dag *g, uint32_t k, uint32_t next);

/* Distinct nodes reachable from ROOT (the instructions it would emit,
 * before jump trampolines); 0 on ENOMEM. */
size_t dag_reach(const struct dag *g, uint32_t root);
/* The same, calling VISIT (if not NULL) once for each of them. */
size_t dag_walk(const struct dag *g, uint32_t root,
		void (*visit)(void *ctx, const struct dag *g, uint32_t id), void *ctx);

static inline const struct node *dag_node(const struct dag *g, uint32_t id)
{
	return &g->nodes[id];
}

#endif
