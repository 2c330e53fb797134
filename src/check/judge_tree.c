/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * libseccomp's tree of one call over a region of its arguments (judge.h),
 * for the calls the LIBSECCOMP merge leaves to it (lsc_tree.h).
 *
 * lsc_tree_eval() tries the comparisons of a level in order: the taken
 * branch goes on to a deeper level when it has one (and, when that level
 * decides nothing, to the next comparison of this one), else decides when
 * it has an action, else passes to the next comparison.  The judge does
 * the same with a region in place of a call: a comparison true or false on
 * all of it takes that branch, one that is neither cuts the region and
 * each part takes its own.  Where a part will come back to when a deeper
 * level decides nothing is a chain of continuations, shared by the parts
 * cut below it.
 */
#include <stdlib.h>
#include <string.h>
#include "check/judge.h"

/* Level LVL, comparison POS: where to go on; UP: the next one out. */
struct tree_cont {
	uint32_t lvl, pos;
	const struct tree_cont *up;
};

struct cont_chunk {
	struct cont_chunk *next;
	size_t used;
	struct tree_cont c[256];
};

struct titem {
	struct region r;
	uint32_t lvl, pos;
	const struct tree_cont *k;
};

/* A continuation (level LVL, position POS, then UP) from the judge's chunks; NULL without memory. */
static const struct tree_cont *cont_new(struct judge *J, uint32_t lvl, uint32_t pos,
					const struct tree_cont *up)
{
	struct cont_chunk *h = J->conts;
	if (!h || h->used == sizeof(h->c) / sizeof(h->c[0])) {
		h = malloc(sizeof(*h));
		if (!h)
			return NULL;
		h->next = J->conts;
		h->used = 0;
		J->conts = h;
	}
	struct tree_cont *c = &h->c[h->used++];
	*c = (struct tree_cont){ lvl, pos, up };
	return c;
}

static void conts_free(struct judge *J)
{
	while (J->conts) {
		struct cont_chunk *h = J->conts;
		J->conts = h->next;
		free(h);
	}
}

/* The index in CR->levels of the level AT leads to, read on first use. */
static long level_of(struct judge *J, struct call_rules *cr, int32_t at)
{
	for (size_t i = 0; i < cr->nlevels; i++)
		if (cr->levels[i].at == at)
			return (long)i;
	if (!array_reserve(&cr->levels, &cr->caplevels, cr->nlevels, sizeof(*cr->levels), 8))
		return diag_err(J->d, -ENOMEM, NULL, "out of memory");
	struct lsc_cmp *v;
	long n = lsc_tree_level(cr->tree, at, &v);
	if (n < 0)
		return diag_err(J->d, (int)n, NULL, "out of memory");
	cr->levels[cr->nlevels] = (struct tree_level){ at, (size_t)n, v };
	return (long)cr->nlevels++;
}

static int tpush(struct judge *J, const struct region *r, uint32_t lvl, uint32_t pos,
		 const struct tree_cont *k)
{
	struct titem *s = J->tstk;
	if (!array_reserve(&s, &J->captstk, J->ntstk, sizeof(*s), 16))
		return diag_err(J->d, -ENOMEM, NULL, "out of memory");
	J->tstk = s;
	memcpy(&s[J->ntstk].r, r, sizeof(*r));
	s[J->ntstk].lvl = lvl;
	s[J->ntstk].pos = pos;
	s[J->ntstk].k = k;
	J->ntstk++;
	return 0;
}

/* Part R took branch B of comparison X (at LVL, POS, continuation K):
 * push where it goes on, or judge the action it meets. */
static int branch(struct judge *J, struct call_rules *cr, const struct region *r,
		  const struct lsc_cmp *x, int b, uint32_t lvl, uint32_t pos,
		  const struct tree_cont *k)
{
	if (x->sub[b] != LSC_NONE) {
		long sub = level_of(J, cr, x->sub[b]);
		if (sub < 0)
			return (int)sub;
		const struct tree_cont *c = cont_new(J, lvl, pos + 1, k);
		if (!c)
			return diag_err(J->d, -ENOMEM, NULL, "out of memory");
		return tpush(J, r, (uint32_t)sub, 0, c);
	}
	if (x->has[b])
		return judge_decided(J, r, x->act[b]);
	return tpush(J, r, lvl, pos + 1, k);
}

/* Decide region R0 of one call through libseccomp's tree, cutting it wherever a comparison holds
 * on part of it. */
static int run(struct judge *J, struct call_rules *cr, const struct region *r0)
{
	const struct arch_info *ai = cr->v->info;
	struct side t, f;
	struct titem it;
	long root = level_of(J, cr, LSC_ROOT);
	if (root < 0)
		return (int)root;
	J->ntstk = 0;
	int err = tpush(J, r0, (uint32_t)root, 0, NULL);
	while (!err && J->ntstk) {
		memcpy(&it, &((struct titem *)J->tstk)[--J->ntstk], sizeof(it));
		for (;;) {
			if (++J->steps > JUDGE_STEPS)
				return judge_steps_over(J);
			const struct tree_level *L = &cr->levels[it.lvl];
			if (it.pos == L->n) {
				/* the level decided nothing: back out, or no match */
				if (!it.k) {
					err = judge_decided(J, &it.r, cr->fallback);
					break;
				}
				it.lvl = it.k->lvl;
				it.pos = it.k->pos;
				it.k = it.k->up;
				continue;
			}
			/* a copy: reading a level may move cr->levels */
			struct lsc_cmp x = L->v[it.pos];
			if (!cmp_sides(&x, ai, &t, &f))
				return diag_err(J->d, -ENOTSUP, NULL,
						"libseccomp's tree for call %u orders a masked word "
						"against a datum outside the mask", cr->nr);
			bool any[2] = { false, false };
			for (size_t k = 0; k < t.n; k++)
				any[1] |= conj_meets(&it.r, &t.c[k]);
			for (size_t k = 0; k < f.n; k++)
				any[0] |= conj_meets(&it.r, &f.c[k]);
			if (any[0] != any[1]) {
				/* all of it takes one branch: on in place when it
				 * passes to the next comparison */
				int b = any[1];
				if (x.sub[b] == LSC_NONE && !x.has[b]) {
					it.pos++;
					continue;
				}
				err = branch(J, cr, &it.r, &x, b, it.lvl, it.pos, it.k);
				break;
			}
			if (!any[0])
				break;		/* an empty part: nothing to judge */
			struct region part;
			for (int b = 1; b >= 0 && !err; b--) {
				const struct side *s = b ? &t : &f;
				for (size_t k = 0; k < s->n && !err; k++) {
					int cut = conj_cut(&J->ar, &it.r, &s->c[k], &part);
					if (cut < 0)
						return diag_err(J->d, cut, NULL, "out of memory");
					if (cut)
						err = branch(J, cr, &part, &x, b, it.lvl, it.pos, it.k);
				}
			}
			break;
		}
	}
	return err;
}

int judge_tree(struct judge *J, struct call_rules *cr, const struct region *r)
{
	int err = run(J, cr, r);
	conts_free(J);
	return err;
}
