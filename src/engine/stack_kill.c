/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * What each filter of a stack does alone (engine.h), asked by a path of
 * the joint walk as it enters a filter: whether some filter kills every
 * call of the path, and whether the filter it enters can return anything
 * below the path's result on any of them.
 *
 * Why: nothing ranks below KILL_PROCESS, so once any filter of the stack
 * kills every call of a path, the stack's return there is decided, and
 * walking the newer filters' argument tests on that number only cuts the
 * same decision into pieces.  On 32 filters sharing x86_64 and i386, one
 * filter without rules for read(2) under a KILL_PROCESS default made the
 * walk of read's number alone 200,000 paths, all of them KILL_PROCESS.
 * Likewise a filter none of whose lower paths meets the path's words
 * cannot change its result, and forking it only multiplies paths.
 *
 * Each filter is walked alone once per AUDIT_ARCH value, the first time a
 * path on it asks; its paths are disjoint and cover every call, so calls
 * that meet none of its other paths take its KILL_PROCESS ones.  A filter
 * that cannot be walked alone within the bounds is never said to kill or
 * to stay above: the joint walk then forks it as before, exact either way.
 */
#include <stdlib.h>
#include <string.h>
#include "arch/arch.h"
#include "engine/engine.h"

enum { KF_UNBUILT, KF_BUILT, KF_NONE };

/* The number line cut where some path's numbers start or end: segment j
 * is [lo[j], lo[j + 1]) and the paths whose numbers cover it are
 * box[at[j] .. at[j + 1]), so that a number finds its paths at once even
 * when some path covers every number. */
struct segs {
	uint32_t *lo, *at, *box;
	size_t n;
};

/* A path of a filter alone. */
struct box {
	struct wcon w[NWORDS];
	int32_t rank;		/* act_rank() of its return */
	bool dead;		/* it returns the stack's KILL_PROCESS */
	unsigned cut;		/* words it does not leave whole */
};

/* One filter on one AUDIT_ARCH value (walked with seccomp_data.arch
 * pinned to it, so that a stack of filters each on ABIs of its own pays
 * only for what it asks about): its paths (their sets' excluded cubes in
 * AR), and per AUDIT_ARCH value (the one) the numbers of those that do not kill (LIVE: merged,
 * sorted), each path's numbers (LP: sorted by lo, .path the box, PMAX[k]
 * the highest hi of LP[0..k]), and the numbers of its KILL_PROCESS paths
 * (DEAD: sorted by lo, .path the RET's instruction). */
struct kill_filter {
	int state;
	struct box *box;
	size_t nbox, capbox;
	struct wcon_arena ar;
	struct ivals live[SCMPC_ARCH_COUNT], lp[SCMPC_ARCH_COUNT], dead[SCMPC_ARCH_COUNT];
	struct segs seg[SCMPC_ARCH_COUNT];
};

struct kill_table {
	bool uniform;			/* the stack's KILL_PROCESS returns are one value */
	uint32_t v;			/* that value */
	uint32_t aud[SCMPC_ARCH_COUNT];
	size_t naud;
	size_t n;			/* filters of the stack */
	struct kill_filter f[];		/* filter g on aud[i] at g * SCMPC_ARCH_COUNT + i */
};

static int ival_cmp(const void *a, const void *b)
{
	const struct ival *x = a, *y = b;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

int stack_kill_new(struct walker *L, size_t nstack)
{
	/* Ties keep the newer filter's return: only when every KILL_PROCESS
	 * of the stack is one value is the return the same whichever filter
	 * kills.  A RET A may return anything, so none may be there. */
	bool have = false, uniform = true;
	uint32_t v = 0;
	for (size_t i = 0; i < nstack; i++)
		for (size_t pc = 0; pc < L->lens[i]; pc++) {
			const struct sock_filter *f = &L->progs[i][pc];
			if (f->code == (BPF_RET | BPF_A))
				uniform = false;
			if (f->code != (BPF_RET | BPF_K) ||
			    act_rank(f->k) != act_rank(SCMPC_ACT_KILL_PROCESS))
				continue;
			if (have && f->k != v)
				uniform = false;
			have = true;
			v = f->k;
		}
	struct kill_table *t = calloc(1, sizeof(*t) + nstack * SCMPC_ARCH_COUNT * sizeof(t->f[0]));
	if (!t)
		return diag_err(L->d, -ENOMEM, NULL, "out of memory");
	t->v = v;
	t->uniform = have && uniform;
	t->n = nstack;
	for (int a = 1; a <= SCMPC_ARCH_COUNT; a++) {
		uint32_t au = arch_info((enum scmpc_arch)a)->audit;
		bool seen = false;
		for (size_t i = 0; i < t->naud; i++)
			seen |= t->aud[i] == au;
		if (!seen)
			t->aud[t->naud++] = au;
	}
	L->kill = t;
	return 0;
}

void stack_kill_free(struct kill_table *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->n * SCMPC_ARCH_COUNT; i++) {
		struct kill_filter *kf = &t->f[i];
		for (size_t a = 0; a < SCMPC_ARCH_COUNT; a++) {
			free(kf->live[a].v);
			free(kf->lp[a].v);
			free(kf->dead[a].v);
			free(kf->seg[a].lo);
			free(kf->seg[a].at);
			free(kf->seg[a].box);
		}
		free(kf->box);
		wcon_arena_free(&kf->ar);
	}
	free(t);
}

struct build {
	struct kill_table *t;
	struct kill_filter *kf;
};

/* One path of the filter alone: its numbers, per AUDIT_ARCH it reaches. */
static int visit_path(struct walker *W, const struct path *p, void *arg)
{
	(void)W;
	struct build *b = arg;
	struct kill_filter *kf = b->kf;
	bool dead = p->ret == b->t->v;
	if (!array_reserve(&kf->box, &kf->capbox, kf->nbox, sizeof(*kf->box), 64))
		return -ENOMEM;
	struct box *bx = &kf->box[kf->nbox++];
	memcpy(bx->w, p->w, sizeof(p->w));
	bx->rank = act_rank(p->ret);
	bx->dead = dead;
	bx->cut = 0;
	for (size_t x = 0; x < NWORDS; x++)
		bx->cut += !wcon_trivial(&p->w[x]);
	for (size_t i = 0; i < b->t->naud; i++) {
		if (!wcon_has(&p->w[W_ARCH], b->t->aud[i]))
			continue;
		struct ivals *out = dead ? &kf->dead[i] : &kf->live[i];
		size_t from = out->n;
		int err = wcon_intervals(&p->w[W_NR], 0, 0xffffffffU,
					 dead ? (uint32_t)p->insn : (uint32_t)(kf->nbox - 1), out);
		if (err < 0)
			return err;
		if (out->n == from)
			continue;
		/* the path's numbers, to find its box by */
		for (size_t k = from; k < out->n; k++) {
			if (!array_reserve(&kf->lp[i].v, &kf->lp[i].cap, kf->lp[i].n,
					   sizeof(*kf->lp[i].v), 64))
				return -ENOMEM;
			kf->lp[i].v[kf->lp[i].n++] = (struct ival){ out->v[k].lo, out->v[k].hi,
								     (uint32_t)(kf->nbox - 1) };
		}
	}
	return 0;
}

static int u32_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* The last segment of SG starting at or below X, or SIZE_MAX. */
static size_t seg_of(const struct segs *sg, uint32_t x)
{
	size_t a = 0, b = sg->n;
	while (a < b) {
		size_t m = a + (b - a) / 2;
		if (sg->lo[m] <= x)
			a = m + 1;
		else
			b = m;
	}
	return a ? a - 1 : SIZE_MAX;
}

/* SG from the paths' numbers LP (their boxes BOX). */
static int segs_build(const struct ivals *lp, const struct box *box, struct segs *sg)
{
	if (!lp->n)
		return 0;
	if (!(sg->lo = malloc(2 * lp->n * sizeof(*sg->lo))))
		return -ENOMEM;
	size_t n = 0;
	for (size_t k = 0; k < lp->n; k++) {
		sg->lo[n++] = lp->v[k].lo;
		if (lp->v[k].hi != 0xffffffffU)
			sg->lo[n++] = lp->v[k].hi + 1;
	}
	qsort(sg->lo, n, sizeof(*sg->lo), u32_cmp);
	size_t m = 0;
	for (size_t k = 0; k < n; k++)
		if (!m || sg->lo[m - 1] != sg->lo[k])
			sg->lo[m++] = sg->lo[k];
	sg->n = m;
	if (!(sg->at = calloc(m + 1, sizeof(*sg->at))))
		return -ENOMEM;
	/* count, then place: a path in every segment its numbers cover */
	size_t total = 0;
	for (size_t k = 0; k < lp->n; k++)
		for (size_t j = seg_of(sg, lp->v[k].lo); j < m && sg->lo[j] <= lp->v[k].hi; j++) {
			sg->at[j + 1]++;
			total++;
		}
	for (size_t j = 0; j < m; j++)
		sg->at[j + 1] += sg->at[j];
	if (!(sg->box = malloc((total ? total : 1) * sizeof(*sg->box))))
		return -ENOMEM;
	uint32_t *fill = malloc(m * sizeof(*fill));
	if (!fill)
		return -ENOMEM;
	memcpy(fill, sg->at, m * sizeof(*fill));
	for (size_t k = 0; k < lp->n; k++)
		for (size_t j = seg_of(sg, lp->v[k].lo); j < m && sg->lo[j] <= lp->v[k].hi; j++)
			sg->box[fill[j]++] = lp->v[k].path;
	free(fill);
	/* In each segment, paths with fewer words cut first: those likeliest
	 * to meet a path's words, which ends some_meets() sooner. */
	uint32_t *tmp = malloc((total ? total : 1) * sizeof(*tmp));
	if (!tmp)
		return -ENOMEM;
	for (size_t j = 0; j < m; j++) {
		size_t o = 0;
		for (unsigned c = 0; c <= NWORDS; c++)
			for (size_t k = sg->at[j]; k < sg->at[j + 1]; k++)
				if (box[sg->box[k]].cut == c)
					tmp[o++] = sg->box[k];
		memcpy(&sg->box[sg->at[j]], tmp, o * sizeof(*tmp));
	}
	free(tmp);
	return 0;
}

/* Walk filter G alone on AUDIT_ARCH value AU (into KF); KF_NONE when it
 * cannot be (past a bound, or something the engine does not follow),
 * which is no error of the stack. */
static int build_filter(struct walker *L, size_t g, uint32_t au, struct kill_filter *kf)
{
	struct kill_table *t = L->kill;
	struct build b = { t, kf };
	struct wcon start[NWORDS];
	for (size_t i = 0; i < NWORDS; i++)
		start[i] = wcon_all;
	start[W_ARCH].lo = start[W_ARCH].hi = au;
	struct walker W = { .progs = &L->progs[g], .lens = &L->lens[g], .n = 1, .mode = WALK_ONE,
			    .max_paths = L->max_paths, .visit = visit_path, .visit_arg = &b,
			    .start = start };
	int err = walk_paths(&W);
	/* the boxes' excluded cubes live in the walk's arena */
	kf->ar = W.ar;
	W.ar.head = NULL;
	walker_fini(&W);
	if (err == -ENOMEM)
		return diag_err(L->d, err, NULL, "out of memory");
	if (err < 0) {
		kf->state = KF_NONE;
		return 0;
	}
	for (size_t i = 0; i < t->naud; i++) {
		struct ivals *lv = &kf->live[i];
		if (lv->n)
			qsort(lv->v, lv->n, sizeof(*lv->v), ival_cmp);
		size_t m = 0;
		for (size_t k = 0; k < lv->n; k++) {
			if (m && (uint64_t)lv->v[m - 1].hi + 1 >= lv->v[k].lo) {
				if (lv->v[k].hi > lv->v[m - 1].hi)
					lv->v[m - 1].hi = lv->v[k].hi;
				continue;
			}
			lv->v[m++] = lv->v[k];
		}
		lv->n = m;
		if (kf->dead[i].n)
			qsort(kf->dead[i].v, kf->dead[i].n, sizeof(*kf->dead[i].v), ival_cmp);
		if (segs_build(&kf->lp[i], kf->box, &kf->seg[i]) < 0)
			return diag_err(L->d, -ENOMEM, NULL, "out of memory");
	}
	kf->state = KF_BUILT;
	return 0;
}

/* The first interval of IV (sorted, disjoint) that ends at or after LO. */
static const struct ival *first_from(const struct ivals *iv, uint32_t lo)
{
	size_t a = 0, b = iv->n;
	while (a < b) {
		size_t m = a + (b - a) / 2;
		if (iv->v[m].hi < lo)
			a = m + 1;
		else
			b = m;
	}
	return a < iv->n ? &iv->v[a] : NULL;
}

/* Whether some path of KF on AUDIT_ARCH value I with numbers meeting
 * [LO, HI] that LIVE (does not kill) or, without LIVE, ranks below BELOW
 * meets the words W in every word.  A set whose search is undecided counts
 * as meeting W. */
static bool some_meets(struct walker *L, const struct kill_filter *kf, size_t i,
		       const struct wcon *w, uint32_t lo, uint32_t hi, bool live, int32_t below)
{
	const struct segs *sg = &kf->seg[i];
	size_t j = seg_of(sg, lo);
	for (j = j == SIZE_MAX ? 0 : j; j < sg->n && sg->lo[j] <= hi; j++) {
		/* each path looked at counts as a step of the walk, whose
		 * bound (MAX_STEPS) then bounds this work too */
		L->steps += sg->at[j + 1] - sg->at[j];
		for (size_t k = sg->at[j]; k < sg->at[j + 1]; k++) {
			const struct box *bx = &kf->box[sg->box[k]];
			if (live ? bx->dead : bx->rank >= below)
				continue;
			bool apart = false;
			/* a word either side leaves whole meets the other's
			 * (an undecided search says so too): not searched */
			for (unsigned x = 0; x < NWORDS && !apart; x++)
				apart = x != W_ARCH && !wcon_trivial(&bx->w[x]) &&
					!wcon_trivial(&w[x]) && wcon_disjoint(&bx->w[x], &w[x]);
			if (!apart)
				return true;
		}
	}
	return false;
}

/* The index of W's one AUDIT_ARCH value in T, or -1. */
static int audit_of(const struct kill_table *t, const struct wcon *w)
{
	const struct wcon *ar = &w[W_ARCH];
	uint32_t au;
	if (ar->m == 0xffffffffU)
		au = ar->v;
	else if (ar->lo == ar->hi)
		au = ar->lo;
	else
		return -1;
	for (size_t i = 0; i < t->naud; i++)
		if (t->aud[i] == au)
			return wcon_has(ar, au) ? (int)i : -1;
	return -1;
}

/* Filter K's table on the AUDIT_ARCH value of index I, built the first
 * time; NULL when it has none. */
static int filter_table(struct walker *L, size_t k, size_t i, struct kill_filter **out)
{
	struct kill_filter *kf = &L->kill->f[k * SCMPC_ARCH_COUNT + i];
	if (kf->state == KF_UNBUILT) {
		int err = build_filter(L, k, L->kill->aud[i], kf);
		if (err < 0)
			return err;
	}
	*out = kf->state == KF_BUILT ? kf : NULL;
	return 0;
}

int stack_kill_find(struct walker *L, uint16_t prog, uint16_t oldest, const struct wcon *w,
		    uint32_t *v, uint16_t *g, int32_t *insn)
{
	struct kill_table *t = L->kill;
	int i;
	/* only on one AUDIT_ARCH: the tables are per value */
	if (!t || !t->uniform || (i = audit_of(t, w)) < 0)
		return 0;
	/* the path's numbers lie within [lo, hi]: a filter that kills all
	 * of those kills the path's */
	uint32_t lo = w[W_NR].lo, hi = w[W_NR].hi;
	for (size_t k = (size_t)prog + 1; k-- > oldest;) {
		struct kill_filter *kf;
		int err = filter_table(L, k, (size_t)i, &kf);
		if (err < 0)
			return err;
		if (!kf)
			continue;
		const struct ival *lv = first_from(&kf->live[i], lo);
		if (lv && lv->lo <= hi && some_meets(L, kf, (size_t)i, w, lo, hi, true, 0))
			continue;
		const struct ival *dv = first_from(&kf->dead[i], lo);
		*v = t->v;
		*g = (uint16_t)k;
		*insn = dv && dv->lo <= hi ? (int32_t)dv->path : -1;
		return 1;
	}
	return 0;
}

int stack_kill_lowers(struct walker *L, uint16_t prog, const struct wcon *w, int32_t rank)
{
	struct kill_table *t = L->kill;
	int i;
	if (!t || (i = audit_of(t, w)) < 0)
		return 1;
	struct kill_filter *kf;
	int err = filter_table(L, prog, (size_t)i, &kf);
	if (err < 0)
		return err;
	return !kf || some_meets(L, kf, (size_t)i, w, w[W_NR].lo, w[W_NR].hi, false, rank);
}
