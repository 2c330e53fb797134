/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Search trees kept across the lowerings of one compile.
 *
 * size.c lowers a policy several times (path first, then for size, then
 * with argfirst.c's number trees), each time into a fresh DAG, and most
 * of those lowerings ask layout.c for number trees over the same ranges:
 * the argfirst lowering's own tree is the path-first one.  The search is
 * most of a compile, so its outcome is kept as the DAG calls it made
 * (tests and work charged, in order), named by what they apply to (the
 * N input ranges' nodes, or an earlier call's result) rather than by node
 * id, and replayed into the next DAG.  The key holds all the search reads
 * of its input (each range's bounds, weight, heat, its node's cost and
 * which earlier range has the same node), and the search is deterministic
 * in it, so a replay makes the very calls the search would have made: the
 * same nodes under the same ids, the same work charged.
 */
#ifndef SCMPC_TREECACHE_H
#define SCMPC_TREECACHE_H
#include "compiler/layout.h"

/* The DAG calls of one search, as it makes them (dag.h: g->rec). */
struct tree_event {
	uint8_t charge;		/* dag_charge(amount), else dag_jmp(op, k, t, f) = id */
	uint8_t op;
	uint32_t k, t, f, id;
	uint64_t amount;
};

struct tree_rec {
	struct tree_event *ev;
	size_t n, cap;
	bool failed;		/* out of memory: not to be kept */
};

void tree_rec_jmp(struct tree_rec *rec, uint8_t op, uint32_t k, uint32_t t, uint32_t f,
		  uint32_t id);
void tree_rec_charge(struct tree_rec *rec, uint64_t amount);
void tree_rec_free(struct tree_rec *rec);

struct tree_cache;

/* An empty cache, or NULL without memory (the compile goes on without). */
struct tree_cache *tree_cache_new(void);
void tree_cache_free(struct tree_cache *c);
/* How many trees C holds: the tests tell a replay from a search by it. */
size_t tree_cache_count(const struct tree_cache *c);

/* Whether C holds the tree for KEY; if so, its calls are made again in G
 * with R's nodes as the inputs, and *ROOT is the tree (NODE_NONE, with
 * G's oom set, when a call failed where the search's own would have). */
bool tree_cache_replay(struct tree_cache *c, struct dag *g, const uint32_t *key, size_t nkey,
		       const struct range *r, size_t n, uint32_t *root);

/* Keep REC, the calls that built ROOT over R, under KEY; silently not
 * when memory or the cache's bound says no, or when a call names a node
 * that is neither an input nor made by REC. */
void tree_cache_put(struct tree_cache *c, const uint32_t *key, size_t nkey,
		    const struct tree_rec *rec, const struct range *r, size_t n, uint32_t root);

#endif
