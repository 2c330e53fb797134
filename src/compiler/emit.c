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
 *
 * A `ja` costs an instruction and a step on every path through it.  When
 * one carries a test's true branch to a small block that only that test
 * enters (a cold leaf of the number search, such as x86_64's numbers from
 * 0x40000000 up, laid out after a long chain), the block can follow its
 * test instead, with the false branch jumped to: a few instructions moved,
 * a `ja` gone, and the block's returns may share ones already within
 * reach (the arch test's KILL).  Whether that helps is only known once the
 * program is laid out again, so such placements are tried and kept when
 * the program is no longer, in instructions or in the kernel's eBPF, and
 * no edge takes a `ja` it did not take before (so no path grows).
 */
#include <stdlib.h>
#include <string.h>
#include "bpf/bpf.h"
#include "compiler/emit.h"

#define NONE UINT32_MAX

struct item {
	struct sock_filter ins;
	uint32_t jt, jf;	/* target item ids (conditionals); jt also for ja */
	uint32_t node;		/* the node it stands for, NONE for a trampoline */
	bool cond, ja;
	bool trampoline;
};

/* Which edges of a node go through a `ja`: its a (true, or only) edge and
 * its b (false) edge. */
#define VIA_JA_A 1u
#define VIA_JA_B 2u

struct emitter {
	const struct dag *g;
	const uint8_t *flip;	/* per node: true branch placed right after the test */
	uint8_t *via_ja;	/* per node: VIA_JA_* */
	size_t true_ja;		/* tests whose true branch takes a `ja` */
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
			child = (f->next == 0) != (e->flip && e->flip[f->id]) ? n->a : n->b;
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
	struct item ti = { .trampoline = true, .jt = NONE, .jf = NONE, .node = NONE };
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
				if (e->items[tr].ja) {
					uint32_t nd = e->items[id].node;
					e->via_ja[nd] |= w == 0 ? VIA_JA_A : VIA_JA_B;
					e->true_ja += w == 0;
				}
			}
		} while (added);
		rpos[id] = (uint32_t)nrev;
		rev[nrev++] = id;
	}

	*len = nrev;
	if (nrev > BPF_MAXINSNS) {
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

/* A program as laid out, and the figures it is judged by. */
struct layout {
	struct sock_filter *prog;	/* NULL past the size limit */
	size_t len, ebpf;		/* ebpf: SIZE_MAX without a program */
	uint8_t *via_ja;		/* per node: VIA_JA_* */
	size_t true_ja;			/* tests whose true branch takes a `ja` */
};

/* One layout of the DAG below ROOT, FLIP's tests (if any) followed by
 * their true branch, into L (its via_ja zeroed by the caller).  0, -E2BIG
 * (no program) or -ENOMEM. */
static int emit_once(const struct dag *g, uint32_t root, const uint8_t *flip, struct layout *l)
{
	struct emitter e = { .g = g, .flip = flip, .via_ja = l->via_ja };
	uint8_t *via_ja = l->via_ja;
	uint32_t *first = NULL;
	int err = -ENOMEM;

	l->prog = NULL;
	l->ebpf = SIZE_MAX;
	e.order = malloc(g->n * sizeof(*e.order));
	e.seen = calloc(g->n, 1);
	first = malloc(g->n * sizeof(*first));
	if (!e.order || !e.seen || !first || !place(&e, root))
		goto out;

	/* First pass: one item per node, plus a `ja` where a straight-line
	 * node's successor was placed elsewhere.  Targets are node ids. */
	for (size_t i = 0; i < e.norder; i++) {
		const struct node *n = &g->nodes[e.order[i]];
		struct item it = { .jt = NONE, .jf = NONE, .node = e.order[i] };
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
					   .jt = n->a, .jf = NONE, .node = NONE };
			if ((id = add_item(&e, ja)) == NONE)
				goto out;
			e.seq[e.nseq++] = id;
			via_ja[e.order[i]] |= VIA_JA_A;
		}
	}
	for (size_t i = 0; i < e.nitems; i++) {
		if (e.items[i].jt != NONE)
			e.items[i].jt = first[e.items[i].jt];
		if (e.items[i].jf != NONE)
			e.items[i].jf = first[e.items[i].jf];
	}
	err = fix_reach(&e, &l->prog, &l->len);
	if (err == 0)
		l->ebpf = bpf_ebpf_len(l->prog, l->len);
	l->true_ja = e.true_ja;
out:
	free(e.order);
	free(e.seen);
	free(first);
	free(e.items);
	free(e.seq);
	return err;
}

static void count_entries(void *ctx, const struct dag *g, uint32_t id)
{
	uint8_t *in = ctx;
	const struct node *x = &g->nodes[id];
	uint32_t kids[2] = { x->kind == N_RET ? NONE : x->a, x->kind == N_JMP ? x->b : NONE };
	for (int k = 0; k < 2; k++)
		if (kids[k] != NONE)
			in[kids[k]] += in[kids[k]] < 2;
}

/* How many edges enter each node below ROOT, counted up to 2; NULL on
 * ENOMEM. */
static uint8_t *entries(const struct dag *g, uint32_t root)
{
	uint8_t *in = calloc(g->n, 1);
	if (in && !dag_walk(g, root, count_entries, in)) {
		free(in);
		in = NULL;
	}
	return in;
}

/* A block placed after its test pushes the test's false branch that much
 * further: one of a few dozen nodes (a cold leaf, a short check) leaves it
 * within reach, with room for the copies of returns the block may need; a
 * larger one would move the `ja` to the false branch, not save it, and
 * trying it costs a whole layout. */
#define BLOCK_MAX 64

/* Whether fewer than BLOCK_MAX nodes are reachable from T.  MARK holds, per
 * node, the last STAMP that reached it. */
static bool small_block(const struct dag *g, uint32_t t, uint32_t *mark, uint32_t stamp)
{
	uint32_t stack[2 * BLOCK_MAX + 1];
	size_t sp = 0, n = 0;
	stack[sp++] = t;
	mark[t] = stamp;
	while (sp) {
		if (++n >= BLOCK_MAX)
			return false;
		const struct node *x = &g->nodes[stack[--sp]];
		uint32_t kids[2] = { x->kind == N_RET ? NONE : x->a,
				     x->kind == N_JMP ? x->b : NONE };
		for (int k = 0; k < 2; k++)
			if (kids[k] != NONE && mark[kids[k]] != stamp) {
				mark[kids[k]] = stamp;
				stack[sp++] = kids[k];
			}
	}
	return true;
}

/* T at least as good as B on every figure (instructions, eBPF
 * instructions), no edge through a `ja` that did not take one (so no path
 * grows), and better on one of them. */
static bool layout_better(const struct layout *t, const struct layout *b, size_t n)
{
	bool fewer = false;
	if (t->len > b->len || t->ebpf > b->ebpf)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (t->via_ja[i] & ~b->via_ja[i])
			return false;
		fewer |= t->via_ja[i] != b->via_ja[i];
	}
	return t->len < b->len || t->ebpf < b->ebpf || fewer;
}

/* Layouts tried beyond the first: each is a full emission, and a program
 * has few tests whose true branch is that far from them. */
#define MAX_TRIALS 8

int emit_program(const struct dag *g, uint32_t root, struct sock_filter **out, size_t *len,
		 scmpc_diag *d)
{
	struct layout best = { .via_ja = calloc(g->n, 1) }, t = { 0 };
	uint8_t *flip = NULL, *in = NULL;
	uint32_t *cand = NULL, *mark = NULL, stamp = 0;
	size_t trials = 0;
	int err = -ENOMEM;

	if (!best.via_ja)
		goto out;
	if ((err = emit_once(g, root, NULL, &best)) == -ENOMEM)
		goto out;
	while (best.true_ja && trials < MAX_TRIALS) {
		/* Tests whose true branch takes a `ja` to a small block only
		 * they enter: placed right after them, the block needs none. */
		size_t nc = 0;
		if (!flip && !(flip = calloc(g->n, 1)))
			goto nomem;
		for (uint32_t i = 0; i < g->n; i++) {
			if (!(best.via_ja[i] & VIA_JA_A) || flip[i] || g->nodes[i].kind != N_JMP)
				continue;
			if (!in && !(in = entries(g, root)))
				goto nomem;
			if (in[g->nodes[i].a] != 1)
				continue;
			if (!mark && !(mark = calloc(g->n, sizeof(*mark))))
				goto nomem;
			if (!small_block(g, g->nodes[i].a, mark, ++stamp))
				continue;
			if (!cand && !(cand = malloc(g->n * sizeof(*cand))))
				goto nomem;
			cand[nc++] = i;
		}
		if (!nc)
			break;
		if (!t.via_ja && !(t.via_ja = malloc(g->n)))
			goto nomem;
		/* All of them at once, else one at a time. */
		bool kept = false;
		for (size_t k = 0; k <= nc && !kept && trials < MAX_TRIALS; k++) {
			if (k > 0 && nc == 1)
				break;
			size_t c0 = k ? k - 1 : 0, c1 = k ? k : nc;
			for (size_t c = c0; c < c1; c++)
				flip[cand[c]] = 1;
			memset(t.via_ja, 0, g->n);
			int terr = emit_once(g, root, flip, &t);
			trials++;
			if (terr == -ENOMEM)
				goto nomem;
			if (layout_better(&t, &best, g->n)) {
				struct layout sw = best;
				best = t;
				t = sw;
				err = terr;
				kept = true;
			} else {
				for (size_t c = c0; c < c1; c++)
					flip[cand[c]] = 0;
			}
			free(t.prog);
			t.prog = NULL;
		}
		if (!kept)
			break;
	}
	*len = best.len;
	if (err == 0) {
		*out = best.prog;
		best.prog = NULL;
	} else if (err == -E2BIG) {
		err = diag_err(d, -E2BIG, NULL,
			       "the program needs %zu instructions; the kernel accepts at most %d",
			       best.len, BPF_MAXINSNS);
	}
	goto done;
nomem:
	err = -ENOMEM;
out:
	err = diag_err(d, err, NULL, "out of memory");
done:
	free(best.prog);
	free(best.via_ja);
	free(t.prog);
	free(t.via_ja);
	free(flip);
	free(in);
	free(cand);
	free(mark);
	return err;
}
