/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Search trees kept across the lowerings of one compile (treecache.h
 * says why).  A kept call names its operands by symbol: 0..N-1 the input
 * ranges' nodes, N + m the result of the m-th kept call.  The cache holds
 * a handful of trees per compile (one per number tree and lowering, and
 * the larger argument trees), so it is a list searched by hash.
 */
#include <stdlib.h>
#include <string.h>
#include "compiler/treecache.h"

/* Bound on the words kept (keys and calls): far above what any policy a
 * kernel loads needs, so a pathological one costs memory only up to it. */
#define TREE_CACHE_WORDS (1u << 22)

struct tree_entry {
	uint64_t hash;
	uint32_t *key;
	size_t nkey;
	struct tree_event *ev;	/* operands and result as symbols */
	size_t nev;
	uint32_t root;		/* symbol */
};

struct tree_cache {
	struct tree_entry *e;
	size_t n, cap;
	size_t words;
};

static void rec_push(struct tree_rec *rec, struct tree_event ev)
{
	if (rec->failed)
		return;
	if (!array_reserve(&rec->ev, &rec->cap, rec->n, sizeof(*rec->ev), 64)) {
		rec->failed = true;
		return;
	}
	rec->ev[rec->n++] = ev;
}

void tree_rec_jmp(struct tree_rec *rec, uint8_t op, uint32_t k, uint32_t t, uint32_t f,
		  uint32_t id)
{
	rec_push(rec, (struct tree_event){ .op = op, .k = k, .t = t, .f = f, .id = id });
}

void tree_rec_charge(struct tree_rec *rec, uint64_t amount)
{
	rec_push(rec, (struct tree_event){ .charge = 1, .amount = amount });
}

void tree_rec_free(struct tree_rec *rec)
{
	free(rec->ev);
	memset(rec, 0, sizeof(*rec));
}

struct tree_cache *tree_cache_new(void)
{
	return calloc(1, sizeof(struct tree_cache));
}

void tree_cache_free(struct tree_cache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++) {
		free(c->e[i].key);
		free(c->e[i].ev);
	}
	free(c->e);
	free(c);
}

size_t tree_cache_count(const struct tree_cache *c)
{
	return c ? c->n : 0;
}

/* FNV-1a over the key's words. */
static uint64_t key_hash(const uint32_t *key, size_t nkey)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	for (size_t i = 0; i < nkey; i++) {
		h ^= key[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

static const struct tree_entry *find(const struct tree_cache *c, const uint32_t *key, size_t nkey,
				     uint64_t hash)
{
	for (size_t i = 0; i < c->n; i++) {
		const struct tree_entry *e = &c->e[i];
		if (e->hash == hash && e->nkey == nkey && !memcmp(e->key, key, nkey * sizeof(*key)))
			return e;
	}
	return NULL;
}

bool tree_cache_replay(struct tree_cache *c, struct dag *g, const uint32_t *key, size_t nkey,
		       const struct range *r, size_t n, uint32_t *root)
{
	const struct tree_entry *e = c ? find(c, key, nkey, key_hash(key, nkey)) : NULL;
	if (!e)
		return false;
	uint32_t *ids = malloc((n + e->nev) * sizeof(*ids));
	if (!ids) {
		g->oom = true;
		*root = NODE_NONE;
		return true;
	}
	for (size_t i = 0; i < n; i++)
		ids[i] = r[i].node;
	/* The search stops at the first call that fails and makes no other
	 * after it (a failed test leaves only calls that fail at once), so
	 * stopping there leaves the DAG as it would. */
	bool ok = true;
	for (size_t m = 0; m < e->nev && ok; m++) {
		const struct tree_event *ev = &e->ev[m];
		if (ev->charge) {
			ok = dag_charge(g, ev->amount);
			ids[n + m] = NODE_NONE;
		} else {
			ids[n + m] = dag_jmp(g, ev->op, ev->k, ids[ev->t], ids[ev->f]);
			ok = ids[n + m] != NODE_NONE;
		}
	}
	*root = ok ? ids[e->root] : NODE_NONE;
	if (!ok)
		g->oom = true;
	free(ids);
	return true;
}

/* The symbol of node ID: the latest call that returned it, else the first
 * input with it; UINT32_MAX when neither. */
struct symtab {
	uint32_t *id, *sym;	/* open addressing on id, UINT32_MAX empty */
	size_t cap;
};

static size_t sym_slot(const struct symtab *s, uint32_t id)
{
	size_t h = (id * 0x9e3779b1u) & (s->cap - 1);
	while (s->id[h] != UINT32_MAX && s->id[h] != id)
		h = (h + 1) & (s->cap - 1);
	return h;
}

static uint32_t sym_of(const struct symtab *s, uint32_t id)
{
	size_t h = sym_slot(s, id);
	return s->id[h] == id ? s->sym[h] : UINT32_MAX;
}

static void sym_set(struct symtab *s, uint32_t id, uint32_t sym, bool replace)
{
	size_t h = sym_slot(s, id);
	if (s->id[h] == id && !replace)
		return;
	s->id[h] = id;
	s->sym[h] = sym;
}

void tree_cache_put(struct tree_cache *c, const uint32_t *key, size_t nkey,
		    const struct tree_rec *rec, const struct range *r, size_t n, uint32_t root)
{
	size_t words = nkey + rec->n * sizeof(struct tree_event) / sizeof(uint32_t);
	if (!c || rec->failed || words > TREE_CACHE_WORDS - c->words ||
	    n + rec->n >= UINT32_MAX / 4)
		return;
	struct symtab s = { .cap = 16 };
	while (s.cap < 2 * (n + rec->n))
		s.cap *= 2;
	s.id = malloc(s.cap * sizeof(*s.id));
	s.sym = malloc(s.cap * sizeof(*s.sym));
	struct tree_entry e = { .hash = key_hash(key, nkey), .nkey = nkey, .nev = rec->n,
				.key = malloc(nkey * sizeof(*key)),
				.ev = malloc((rec->n ? rec->n : 1) * sizeof(*e.ev)) };
	bool ok = s.id && s.sym && e.key && e.ev &&
		  array_reserve(&c->e, &c->cap, c->n, sizeof(*c->e), 8);
	if (ok) {
		memset(s.id, 0xff, s.cap * sizeof(*s.id));
		memcpy(e.key, key, nkey * sizeof(*key));
		for (size_t i = 0; i < n; i++)
			sym_set(&s, r[i].node, (uint32_t)i, false);
	}
	for (size_t m = 0; ok && m < rec->n; m++) {
		struct tree_event ev = rec->ev[m];
		if (!ev.charge) {
			ev.t = sym_of(&s, ev.t);
			ev.f = sym_of(&s, ev.f);
			ok = ev.t != UINT32_MAX && ev.f != UINT32_MAX && ev.id != NODE_NONE;
			if (ok)
				sym_set(&s, ev.id, (uint32_t)(n + m), true);
		}
		e.ev[m] = ev;
	}
	e.root = ok ? sym_of(&s, root) : UINT32_MAX;
	if (ok && e.root != UINT32_MAX) {
		c->e[c->n++] = e;
		c->words += words;
	} else {
		free(e.key);
		free(e.ev);
	}
	free(s.id);
	free(s.sym);
}
