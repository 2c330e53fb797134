/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
#include <linux/filter.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bpf/insn.h"
#include "compiler/dag.h"

void dag_init(struct dag *g)
{
	memset(g, 0, sizeof(*g));
	g->max_work = DAG_MAX_WORK;
}

void dag_fini(struct dag *g)
{
	for (size_t i = 0; i < g->nmemo; i++)
		free(g->memo[i].key);
	free(g->memo);
	free(g->memo_table);
	free(g->nodes);
	free(g->table);
	memset(g, 0, sizeof(*g));
}

static uint64_t node_hash(const struct node *n)
{
	uint64_t h = ((uint64_t)n->kind << 56) ^ ((uint64_t)n->op << 48) ^ n->k;
	h = (h ^ (h >> 31)) * 0x9e3779b97f4a7c15ULL;
	h ^= ((uint64_t)n->a << 32) | n->b;
	h = (h ^ (h >> 29)) * 0xbf58476d1ce4e5b9ULL;
	return h ^ (h >> 32);
}

static bool node_eq(const struct node *x, const struct node *y)
{
	return x->kind == y->kind && x->op == y->op && x->k == y->k && x->a == y->a &&
	       x->b == y->b;
}

/* Fill the empty open-addressing table T of CAP slots (a power of two)
 * with entries 0..N-1 as index + 1, each at its hash. */
static void index_fill(uint32_t *t, size_t cap, size_t n,
		       uint64_t (*hash)(const struct dag *, size_t), const struct dag *g)
{
	for (size_t i = 0; i < n; i++) {
		size_t h = hash(g, i) & (cap - 1);
		while (t[h])
			h = (h + 1) & (cap - 1);
		t[h] = (uint32_t)i + 1;
	}
}

/* The same in a new table; NULL on ENOMEM. */
static uint32_t *index_table(size_t cap, size_t n, uint64_t (*hash)(const struct dag *, size_t),
			     const struct dag *g)
{
	uint32_t *t = calloc(cap, sizeof(*t));
	if (t)
		index_fill(t, cap, n, hash, g);
	return t;
}

static uint64_t node_hash_at(const struct dag *g, size_t i)
{
	return node_hash(&g->nodes[i]);
}

static bool grow_table(struct dag *g)
{
	size_t cap = g->tcap ? g->tcap * 2 : 1024;
	uint32_t *t = index_table(cap, g->n, node_hash_at, g);
	if (!t)
		return false;
	free(g->table);
	g->table = t;
	g->tcap = cap;
	return true;
}

void dag_trial_begin(struct dag *g, struct dag_mark *m, size_t nodes, uint64_t work)
{
	m->n = g->n;
	g->trial_nodes = g->n + nodes < DAG_MAX_NODES ? g->n + nodes : DAG_MAX_NODES;
	g->trial_work = g->work + work;
	g->trial_failed = false;
}

static uint64_t memo_hash(const uint32_t *key, size_t nkey)
{
	uint64_t h = nkey * 0x9e3779b97f4a7c15ULL;
	for (size_t i = 0; i < nkey; i++) {
		h = (h ^ key[i]) * 0xbf58476d1ce4e5b9ULL;
		h ^= h >> 31;
	}
	return h;
}

static uint64_t memo_hash_at(const struct dag *g, size_t i)
{
	return g->memo[i].hash;
}

/* Index every entry into a table of CAP slots (a power of two). */
static bool memo_index(struct dag *g, size_t cap)
{
	uint32_t *t = index_table(cap, g->nmemo, memo_hash_at, g);
	if (!t)
		return false;
	free(g->memo_table);
	g->memo_table = t;
	g->memo_tcap = cap;
	return true;
}

/* Forget the entries that name nodes from N on (a trial's, truncated). */
static void memo_truncate(struct dag *g, size_t n)
{
	size_t kept = 0;
	for (size_t i = 0; i < g->nmemo; i++) {
		if (g->memo[i].maxid < n) {
			g->memo[kept++] = g->memo[i];
		} else {
			g->memo_words -= g->memo[i].nkey;
			free(g->memo[i].key);
		}
	}
	if (kept == g->nmemo)
		return;
	g->nmemo = kept;
	if (!memo_index(g, g->memo_tcap)) {
		/* No table, no lookups: the entries are only lost time. */
		for (size_t i = 0; i < g->nmemo; i++)
			free(g->memo[i].key);
		g->nmemo = 0;
		g->memo_tcap = 0;
		g->memo_words = 0;
	}
}

uint32_t dag_memo_get(struct dag *g, const uint32_t *key, size_t nkey)
{
	if (!g->memo_tcap || g->oom)
		return NODE_NONE;
	uint64_t hash = memo_hash(key, nkey);
	for (size_t h = hash & (g->memo_tcap - 1); g->memo_table[h];
	     h = (h + 1) & (g->memo_tcap - 1)) {
		const struct dag_memo *e = &g->memo[g->memo_table[h] - 1];
		if (e->hash == hash && e->nkey == nkey && !memcmp(e->key, key, nkey * sizeof(*key)))
			return dag_charge(g, e->work) ? e->root : NODE_NONE;
	}
	return NODE_NONE;
}

void dag_memo_put(struct dag *g, const uint32_t *key, size_t nkey, uint32_t root, uint32_t maxid,
		  uint64_t work)
{
	if (nkey > DAG_MEMO_WORDS - g->memo_words)
		return;
	if ((g->nmemo + 1) * 2 > g->memo_tcap &&
	    !memo_index(g, g->memo_tcap ? g->memo_tcap * 2 : 64))
		return;
	if (!array_reserve(&g->memo, &g->memo_cap, g->nmemo, sizeof(*g->memo), 16))
		return;
	uint32_t *copy = malloc(nkey * sizeof(*copy));
	if (!copy)
		return;
	memcpy(copy, key, nkey * sizeof(*copy));
	uint64_t hash = memo_hash(key, nkey);
	size_t h = hash & (g->memo_tcap - 1);
	while (g->memo_table[h])
		h = (h + 1) & (g->memo_tcap - 1);
	g->memo_words += nkey;
	g->memo[g->nmemo] = (struct dag_memo){ hash, work, copy, nkey, root, maxid };
	g->memo_table[h] = (uint32_t)++g->nmemo;
}

bool dag_trial_end(struct dag *g, const struct dag_mark *m)
{
	bool failed = g->trial_failed;
	g->trial_nodes = 0;
	g->trial_work = 0;
	g->trial_failed = false;
	if (!failed)
		return true;
	/* Forget the trial's nodes: truncate, and rebuild the hash table
	 * without them (the table is sized for more than remain). */
	g->n = m->n;
	memset(g->table, 0, g->tcap * sizeof(*g->table));
	index_fill(g->table, g->tcap, g->n, node_hash_at, g);
	memo_truncate(g, m->n);
	g->oom = false;
	return false;
}

/* The id of node N, made when no equal node exists (hash-consing); NODE_NONE past a bound or
 * without memory. */
static uint32_t intern(struct dag *g, struct node n)
{
	if (g->oom)
		return NODE_NONE;
	if ((g->n + 1) * 2 > g->tcap && !grow_table(g))
		goto oom;
	size_t h = node_hash(&n) & (g->tcap - 1);
	for (; g->table[h]; h = (h + 1) & (g->tcap - 1))
		if (node_eq(&g->nodes[g->table[h] - 1], &n))
			return g->table[h] - 1;
	if (g->trial_nodes && g->n >= g->trial_nodes) {
		g->trial_failed = true;
		goto oom;
	}
	if (g->n >= DAG_MAX_NODES) {
		if (!g->too_big)
			g->limit = DAG_LIMIT_NODES;
		g->too_big = true;
		goto oom;
	}
	if (!array_reserve(&g->nodes, &g->cap, g->n, sizeof(*g->nodes), 256))
		goto oom;
	g->nodes[g->n] = n;
	g->table[h] = (uint32_t)g->n + 1;
	return (uint32_t)g->n++;
oom:
	g->oom = true;
	return NODE_NONE;
}

static uint16_t cost_after(const struct dag *g, uint32_t id)
{
	uint16_t c = g->nodes[id].cost;
	return c == UINT16_MAX ? c : c + 1;
}

uint32_t dag_ret(struct dag *g, uint32_t k)
{
	return intern(g, (struct node){ .kind = N_RET, .k = k, .cost = 1 });
}

/* A conditional jump node in canonical form (JGT as JGE, constant tests folded), so equal tests
 * share one node. */
uint32_t dag_jmp(struct dag *g, uint8_t op, uint32_t k, uint32_t t, uint32_t f)
{
	if (t == NODE_NONE || f == NODE_NONE || g->oom)
		return NODE_NONE;
	if (t == f)
		return t;
	/* Canonical forms let equal tests share a node: A > k is A >= k+1,
	 * and tests with a constant outcome are no tests at all. */
	int fixed = insn_jump_fixed(op, k);
	if (fixed >= 0)
		return fixed ? t : f;
	if (op == BPF_JGT) {
		op = BPF_JGE;
		k++;
	}
	uint16_t ct = cost_after(g, t), cf = cost_after(g, f);
	return intern(g, (struct node){ .kind = N_JMP, .op = op, .k = k, .a = t, .b = f,
					.cost = ct > cf ? ct : cf });
}

uint32_t dag_ld(struct dag *g, uint32_t off, uint32_t next)
{
	if (next == NODE_NONE || g->oom)
		return NODE_NONE;
	/* A load whose value nothing reads is dead: a constant return after it
	 * would cost an instruction and, loading an argument, keep the kernel
	 * from caching a call whose decision does not depend on it. */
	if (g->nodes[next].kind == N_RET)
		return next;
	return intern(g, (struct node){ .kind = N_LD, .k = off, .a = next,
					.cost = cost_after(g, next) });
}

uint32_t dag_and(struct dag *g, uint32_t k, uint32_t next)
{
	if (next == NODE_NONE || g->oom)
		return NODE_NONE;
	if (g->nodes[next].kind == N_RET)
		return next;	/* as for dag_ld: nothing reads A */
	return intern(g, (struct node){ .kind = N_AND, .k = k, .a = next,
					.cost = cost_after(g, next) });
}

size_t dag_walk(const struct dag *g, uint32_t root,
		void (*visit)(void *ctx, const struct dag *g, uint32_t id), void *ctx)
{
	uint8_t *seen = calloc(g->n, 1);
	uint32_t *stack = malloc(g->n * sizeof(*stack));
	size_t count = 0, sp = 0;
	if (!seen || !stack)
		goto out;
	stack[sp++] = root;
	seen[root] = 1;
	while (sp) {
		uint32_t id = stack[--sp];
		const struct node *n = &g->nodes[id];
		count++;
		if (visit)
			visit(ctx, g, id);
		uint32_t kids[2] = { n->kind == N_RET ? NODE_NONE : n->a,
				     n->kind == N_JMP ? n->b : NODE_NONE };
		for (int k = 0; k < 2; k++)
			if (kids[k] != NODE_NONE && !seen[kids[k]]) {
				seen[kids[k]] = 1;
				stack[sp++] = kids[k];
			}
	}
out:
	free(seen);
	free(stack);
	return count;
}

size_t dag_reach(const struct dag *g, uint32_t root)
{
	return dag_walk(g, root, NULL, NULL);
}

int dag_limit_error(const struct dag *g, scmpc_diag *d)
{
	char call[96] = "";
	if (g->blamed && g->blame_call)
		snprintf(call, sizeof(call), " (reached at %s on %s, %zu rules)", g->blame_call, g->blame_abi,
			 g->blame_rules);
	else if (g->blamed)
		snprintf(call, sizeof(call), " (reached at syscall %u on %s, %zu rules)", g->blame_nr,
			 g->blame_abi, g->blame_rules);
	switch (g->limit) {
	case DAG_LIMIT_RANGES:
		return diag_err(d, -E2BIG, NULL,
				"the policy cannot fit%s: it splits into %zu ranges of values, "
				"which take at least %zu instructions; the kernel accepts at most %d",
				call, g->ranges, (g->ranges - 1) / 2, BPF_MAXINSNS);
	case DAG_LIMIT_WORK:
		return diag_err(d, -E2BIG, NULL,
				"the policy is too complex to compile%s: lowering its argument checks "
				"takes more than the compiler's bound of %llu steps (about a second); "
				"the program may well be small, but scmpc does not find it within "
				"that bound", call, (unsigned long long)DAG_MAX_WORK);
	case DAG_LIMIT_NODES:
	default:
		return diag_err(d, -E2BIG, NULL,
				"the policy is too complex to compile%s: its decisions need more than "
				"the compiler's bound of %u distinct tests", call, DAG_MAX_NODES);
	}
}
