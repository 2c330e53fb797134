/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Emission: the DAG becomes a straight-line program.
 *
 * Nodes are placed in reverse postorder with the false branch visited last,
 * so it lands right after its test and costs no jump (jf = 0 is also the
 * kernel's cheaper conversion).  Targets stay symbolic until the end, like
 * the jump lists of a one-pass code generator, and are patched once every
 * position is known.  Conditional offsets are 8-bit: a jump that reaches
 * too far goes through a trampoline, a copy of the target when that is a
 * return (no extra step executed) and a `ja` otherwise (see fix_reach).
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
	size_t nitems, cap, seq_cap;
	uint32_t *seq;		/* item ids in program order */
	size_t nseq;
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
	/* seq never holds more entries than there are items. */
	if (!array_reserve(&e->items, &e->cap, e->nitems, sizeof(*e->items), 256) ||
	    !array_reserve(&e->seq, &e->seq_cap, e->nitems, sizeof(*e->seq), 256))
		return NONE;
	e->items[e->nitems] = it;
	return (uint32_t)e->nitems++;
}

/* A trampoline already placed within a jump's reach (the last 256 placed)
 * that leads to TGT: a `ja TGT`, or a copy of TGT when TGT is a return. */
static uint32_t trampoline_near(const struct emitter *e, const uint32_t *rev, size_t nrev,
				uint32_t tgt)
{
	const struct item *t = &e->items[tgt];
	bool is_ret = t->ins.code == (BPF_RET | BPF_K);
	for (size_t k = 0; k < 256 && k < nrev; k++) {
		const struct item *c = &e->items[rev[nrev - 1 - k]];
		if (c->trampoline && ((c->ja && c->jt == tgt) ||
				      (is_ret && !c->ja && c->ins.code == t->ins.code &&
				       c->ins.k == t->ins.k)))
			return rev[nrev - 1 - k];
	}
	return NONE;
}

/* A new trampoline to TGT: a copy of a return (one instruction either way,
 * and no further jump), else `ja TGT`, whose offset has 32 bits. */
static uint32_t trampoline_new(struct emitter *e, uint32_t tgt)
{
	struct item ti = { .trampoline = true, .jt = NONE, .jf = NONE };
	const struct item *t = &e->items[tgt];
	if (t->ins.code == (BPF_RET | BPF_K)) {
		ti.ins = t->ins;
	} else {
		ti.ins = (struct sock_filter)BPF_STMT(BPF_JMP | BPF_JA, 0);
		ti.ja = true;
		ti.jt = tgt;
	}
	return add_item(e, ti);
}

/*
 * Jump reach, in one backward pass.  Walking from the end, everything after
 * the current instruction is final, so its distance from the end (`rpos`)
 * never changes again.  A conditional that cannot reach a target gets a
 * trampoline right after it; conditionals before it, handled later, reuse
 * any trampoline with the same target within their reach.  Inserting right
 * after a conditional never separates a load or ALU step from the
 * instruction it falls into.  Each new trampoline moves the conditional's
 * other target one further, so both are checked again until both fit.
 */
static int fix_reach(struct emitter *e, struct sock_filter **out, size_t *len)
{
	/* Each instruction gets at most two trampolines, one per target. */
	uint32_t *rev = malloc((e->nseq * 3 + 1) * sizeof(*rev));	/* final order, reversed */
	uint32_t *rpos = malloc((e->nitems + 2 * e->nseq + 1) * sizeof(*rpos));
	size_t nrev = 0;
	int err = -ENOMEM;
	if (!rev || !rpos)
		goto out;

	for (size_t p = e->nseq; p-- > 0;) {
		uint32_t id = e->seq[p];
		bool added;
		do {
			added = false;
			for (int w = 0; e->items[id].cond && w < 2 && !added; w++) {
				uint32_t tgt = w == 0 ? e->items[id].jt : e->items[id].jf;
				/* placed now, the source would be at rpos nrev */
				if (nrev - rpos[tgt] - 1 <= 255)
					continue;
				uint32_t tr = trampoline_near(e, rev, nrev, tgt);
				if (tr == NONE) {
					if ((tr = trampoline_new(e, tgt)) == NONE)
						goto out;
					rpos[tr] = (uint32_t)nrev;
					rev[nrev++] = tr;
					added = true;
				}
				if (w == 0)
					e->items[id].jt = tr;
				else
					e->items[id].jf = tr;
			}
		} while (added);
		rpos[id] = (uint32_t)nrev;
		rev[nrev++] = id;
	}

	if (nrev > BPF_MAXINSNS) {
		*len = nrev;
		err = -E2BIG;
		goto out;
	}
	struct sock_filter *prog = malloc(nrev * sizeof(*prog));
	if (!prog)
		goto out;
	for (size_t p = 0; p < nrev; p++) {
		uint32_t id = rev[nrev - 1 - p];
		const struct item *it = &e->items[id];
		prog[p] = it->ins;
		if (it->cond) {
			prog[p].jt = (uint8_t)(rpos[id] - rpos[it->jt] - 1);
			prog[p].jf = (uint8_t)(rpos[id] - rpos[it->jf] - 1);
		} else if (it->ja) {
			prog[p].k = rpos[id] - rpos[it->jt] - 1;
		}
	}
	*out = prog;
	*len = nrev;
	err = 0;
out:
	free(rev);
	free(rpos);
	return err;
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

	err = fix_reach(&e, out, len);
	if (err == -E2BIG)
		err = diag_err(d, -E2BIG, NULL,
			       "the program needs %zu instructions; the kernel accepts at most %d",
			       *len, BPF_MAXINSNS);
	else if (err == -ENOMEM)
		err = diag_err(d, -ENOMEM, NULL, "out of memory");
	goto done;
out:
	err = diag_err(d, -ENOMEM, NULL, "out of memory");
done:
	free(e.order);
	free(e.seen);
	free(first);
	free(e.items);
	free(e.seq);
	return err;
}
