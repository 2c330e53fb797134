/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Emission: the DAG becomes a straight-line program.
 *
 * Nodes are placed in reverse postorder with the false branch visited last,
 * so it lands right after its test and costs no jump (jf = 0 is also the
 * kernel's cheaper conversion).  Targets stay symbolic until the end, like
 * the jump lists of a one-pass code generator, and are patched once every
 * position is known.  Conditional offsets are 8-bit: a jump that reaches
 * too far goes through a trampoline placed right after it, a copy of the
 * target when that is a return (no extra step executed) and a `ja`
 * otherwise; trampolines already in reach are shared.
 */
#include <stdlib.h>
#include <string.h>
#include "emit.h"

#define NONE UINT32_MAX

struct item {
	struct sock_filter ins;
	uint32_t jt, jf;	/* target item ids (conditionals); jt also for ja */
	bool cond, ja;
	bool trampoline;
};

struct emitter {
	const struct dag *g;
	uint32_t *order;	/* node ids in placement order */
	size_t norder;
	uint8_t *seen;
	struct item *items;
	size_t nitems, cap;
	uint32_t *seq;		/* item ids in program order */
	size_t nseq;
	uint32_t *pos;		/* item id -> position */
};

/* Postorder with the true branch first; reversed, the false branch
 * follows its test.  Iterative, since DAG depth is data-dependent. */
static bool place(struct emitter *e, uint32_t root)
{
	struct frame { uint32_t id; uint8_t next; } *stack;
	size_t sp = 0;
	stack = malloc((e->g->n + 1) * sizeof(*stack));
	if (!stack)
		return false;
	stack[sp++] = (struct frame){ root, 0 };
	e->seen[root] = 1;
	while (sp) {
		struct frame *f = &stack[sp - 1];
		const struct node *n = &e->g->nodes[f->id];
		uint32_t child = NONE;
		if (n->kind == N_JMP && f->next < 2)
			child = f->next == 0 ? n->a : n->b;
		else if ((n->kind == N_LD || n->kind == N_AND) && f->next < 1)
			child = n->a;
		if (child == NONE) {
			e->order[e->norder++] = f->id;
			sp--;
			continue;
		}
		f->next++;
		if (!e->seen[child]) {
			e->seen[child] = 1;
			stack[sp++] = (struct frame){ child, 0 };
		}
	}
	free(stack);
	for (size_t i = 0; i < e->norder / 2; i++) {
		uint32_t t = e->order[i];
		e->order[i] = e->order[e->norder - 1 - i];
		e->order[e->norder - 1 - i] = t;
	}
	return true;
}

static uint32_t add_item(struct emitter *e, struct item it)
{
	if (e->nitems == e->cap) {
		size_t cap = e->cap ? e->cap * 2 : 256;
		struct item *n = realloc(e->items, cap * sizeof(*n));
		uint32_t *s = realloc(e->seq, cap * sizeof(*s));
		if (s)
			e->seq = s;
		if (!n || !s) {
			if (n)
				e->items = n;
			return NONE;
		}
		e->items = n;
		e->cap = cap;
	}
	e->items[e->nitems] = it;
	return (uint32_t)e->nitems++;
}

static void compute_pos(struct emitter *e)
{
	for (size_t i = 0; i < e->nseq; i++)
		e->pos[e->seq[i]] = (uint32_t)i;
}

/* Find or insert a trampoline to item TARGET reachable from position AT. */
static uint32_t trampoline(struct emitter *e, size_t at, uint32_t target)
{
	const struct item *t = &e->items[target];
	for (size_t p = at + 1; p < e->nseq && p <= at + 256; p++) {
		const struct item *c = &e->items[e->seq[p]];
		if (!c->trampoline)
			continue;
		if (c->ja && c->jt == target)
			return e->seq[p];
		if (!c->ja && t->ins.code == (BPF_RET | BPF_K) && c->ins.code == t->ins.code &&
		    c->ins.k == t->ins.k)
			return e->seq[p];
	}
	struct item it = { .trampoline = true, .jt = NONE, .jf = NONE };
	if (t->ins.code == (BPF_RET | BPF_K)) {
		it.ins = t->ins;
	} else {
		it.ins = (struct sock_filter)BPF_STMT(BPF_JMP | BPF_JA, 0);
		it.ja = true;
		it.jt = target;
	}
	uint32_t id = add_item(e, it);
	if (id == NONE)
		return NONE;
	memmove(&e->seq[at + 2], &e->seq[at + 1], (e->nseq - at - 1) * sizeof(*e->seq));
	e->seq[at + 1] = id;
	e->nseq++;
	return id;
}

static int fix_reach(struct emitter *e)
{
	for (;;) {
		uint32_t *pos = realloc(e->pos, e->nitems * sizeof(*pos));
		if (!pos)
			return -ENOMEM;
		e->pos = pos;
		compute_pos(e);
		bool changed = false;
		for (size_t p = 0; p < e->nseq && !changed; p++) {
			struct item *it = &e->items[e->seq[p]];
			if (!it->cond)
				continue;
			uint32_t tgt[2] = { it->jt, it->jf };
			for (int w = 0; w < 2; w++) {
				if (e->pos[tgt[w]] - p - 1 <= 255)
					continue;
				uint32_t tr = trampoline(e, p, tgt[w]);
				if (tr == NONE)
					return -ENOMEM;
				it = &e->items[e->seq[p]];	/* items may have moved */
				if (w == 0)
					it->jt = tr;
				else
					it->jf = tr;
				changed = true;
				break;
			}
		}
		if (!changed)
			return 0;
		if (e->nseq > 0x10000)
			return -E2BIG;
	}
}

int emit_program(const struct dag *g, uint32_t root, struct sock_filter **out, size_t *len,
		 scmpc_diag *d)
{
	struct emitter e = { .g = g };
	uint32_t *first = NULL;
	int err = -ENOMEM;

	e.order = malloc(g->n * sizeof(*e.order));
	e.seen = calloc(g->n, 1);
	first = malloc(g->n * sizeof(*first));
	if (!e.order || !e.seen || !first || !place(&e, root))
		goto out;

	/* First pass: one item per node, plus a `ja` where a straight-line
	 * node's successor was placed elsewhere.  Targets are node ids. */
	for (size_t i = 0; i < e.norder; i++) {
		const struct node *n = &g->nodes[e.order[i]];
		struct item it = { .jt = NONE, .jf = NONE };
		switch (n->kind) {
		case N_RET:
			it.ins = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, n->k);
			break;
		case N_LD:
			it.ins = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, n->k);
			break;
		case N_AND:
			it.ins = (struct sock_filter)BPF_STMT(BPF_ALU | BPF_AND | BPF_K, n->k);
			break;
		case N_JMP:
			it.ins = (struct sock_filter)BPF_JUMP(BPF_JMP | n->op | BPF_K, n->k, 0, 0);
			it.cond = true;
			it.jt = n->a;
			it.jf = n->b;
			break;
		}
		uint32_t id = add_item(&e, it);
		if (id == NONE)
			goto out;
		first[e.order[i]] = id;
		e.seq[e.nseq++] = id;
		if ((n->kind == N_LD || n->kind == N_AND) &&
		    (i + 1 >= e.norder || e.order[i + 1] != n->a)) {
			struct item ja = { .ins = BPF_STMT(BPF_JMP | BPF_JA, 0), .ja = true,
					   .jt = n->a, .jf = NONE };
			if ((id = add_item(&e, ja)) == NONE)
				goto out;
			e.seq[e.nseq++] = id;
		}
	}
	for (size_t i = 0; i < e.nitems; i++) {
		if (e.items[i].jt != NONE)
			e.items[i].jt = first[e.items[i].jt];
		if (e.items[i].jf != NONE)
			e.items[i].jf = first[e.items[i].jf];
	}

	if ((err = fix_reach(&e)) < 0)
		goto out;
	if (e.nseq > BPF_MAXINSNS) {
		err = diag_err(d, -E2BIG, NULL,
			       "the program needs %zu instructions; the kernel accepts at most %d",
			       e.nseq, BPF_MAXINSNS);
		goto done;
	}
	struct sock_filter *prog = malloc(e.nseq * sizeof(*prog));
	if (!prog)
		goto out;
	for (size_t p = 0; p < e.nseq; p++) {
		const struct item *it = &e.items[e.seq[p]];
		prog[p] = it->ins;
		if (it->cond) {
			prog[p].jt = (uint8_t)(e.pos[it->jt] - p - 1);
			prog[p].jf = (uint8_t)(e.pos[it->jf] - p - 1);
		} else if (it->ja) {
			prog[p].k = (uint32_t)(e.pos[it->jt] - p - 1);
		}
	}
	*out = prog;
	*len = e.nseq;
	err = 0;
	goto done;
out:
	if (err == -E2BIG)
		err = diag_err(d, -E2BIG, NULL, "the program exceeds 65536 instructions");
	else
		err = diag_err(d, -ENOMEM, NULL, "out of memory");
done:
	free(e.order);
	free(e.seen);
	free(first);
	free(e.items);
	free(e.seq);
	free(e.pos);
	return err;
}
