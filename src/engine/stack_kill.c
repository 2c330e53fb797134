/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Where a filter of a stack kills every call (engine.h): the numbers of
 * each AUDIT_ARCH on which every path of the filter alone returns the
 * stack's KILL_PROCESS value, whatever the rest of the call.
 *
 * Why: nothing ranks below KILL_PROCESS, so once any filter of the stack
 * kills every call of a path, the stack's return there is decided, and
 * walking the newer filters' argument tests on that number only cuts the
 * same decision into pieces.  On 32 filters sharing x86_64 and i386, one
 * filter without rules for read(2) under a KILL_PROCESS default made the
 * walk of read's number alone 200,000 paths, all of them KILL_PROCESS.
 *
 * Each filter is walked alone, once, the first time a stack's path asks
 * about it; its paths are disjoint and cover every call, so a number on
 * which no path returns anything else is one the filter kills on every
 * call.  A filter that cannot be walked alone within the bounds is never
 * said to kill: the joint walk then goes on as before, exact either way.
 */
#include <stdlib.h>
#include <string.h>
#include "arch/arch.h"
#include "engine/engine.h"

enum { KF_UNBUILT, KF_BUILT, KF_NONE };

/* A path of a filter alone that returns something else. */
struct box {
	struct wcon w[NWORDS];
};

/* One filter: its paths that do not kill (their sets' excluded cubes in
 * AR), and per AUDIT_ARCH value the numbers they reach (LIVE: merged,
 * sorted), each one's numbers (LP: sorted by lo, .path the box, PMAX[k]
 * the highest hi of LP[0..k]), and the numbers of its KILL_PROCESS paths
 * (DEAD: sorted by lo, .path the RET's instruction). */
struct kill_filter {
	int state;
	struct box *box;
	size_t nbox, capbox;
	struct wcon_arena ar;
	struct ivals live[SCMPC_ARCH_COUNT], lp[SCMPC_ARCH_COUNT], dead[SCMPC_ARCH_COUNT];
	uint32_t *pmax[SCMPC_ARCH_COUNT];
};

struct kill_table {
	uint32_t v;			/* the one KILL_PROCESS value of the stack */
	uint32_t aud[SCMPC_ARCH_COUNT];
	size_t naud;
	size_t n;			/* filters of the stack */
	struct kill_filter f[];
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
	bool have = false;
	uint32_t v = 0;
	L->kill = NULL;
	for (size_t i = 0; i < nstack; i++)
		for (size_t pc = 0; pc < L->lens[i]; pc++) {
			const struct sock_filter *f = &L->progs[i][pc];
			if (f->code == (BPF_RET | BPF_A))
				return 0;
			if (f->code != (BPF_RET | BPF_K) ||
			    act_rank(f->k) != act_rank(SCMPC_ACT_KILL_PROCESS))
				continue;
			if (have && f->k != v)
				return 0;
			have = true;
			v = f->k;
		}
	if (!have)
		return 0;
	struct kill_table *t = calloc(1, sizeof(*t) + nstack * sizeof(t->f[0]));
	if (!t)
		return diag_err(L->d, -ENOMEM, NULL, "out of memory");
	t->v = v;
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
	for (size_t i = 0; i < t->n; i++) {
		struct kill_filter *kf = &t->f[i];
		for (size_t a = 0; a < SCMPC_ARCH_COUNT; a++) {
			free(kf->live[a].v);
			free(kf->lp[a].v);
			free(kf->dead[a].v);
			free(kf->pmax[a]);
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
	if (!dead) {
		if (!array_reserve(&kf->box, &kf->capbox, kf->nbox, sizeof(*kf->box), 64))
			return -ENOMEM;
		memcpy(kf->box[kf->nbox++].w, p->w, sizeof(p->w));
	}
	for (size_t i = 0; i < b->t->naud; i++) {
		if (!wcon_has(&p->w[W_ARCH], b->t->aud[i]))
			continue;
		struct ivals *out = dead ? &kf->dead[i] : &kf->live[i];
		size_t from = out->n;
		int err = wcon_intervals(&p->w[W_NR], 0, 0xffffffffU,
					 dead ? (uint32_t)p->insn : (uint32_t)(kf->nbox - 1), out);
		if (err < 0)
			return err;
		if (dead || out->n == from)
			continue;
		/* the path's numbers as one interval, to find its box by */
		if (!array_reserve(&kf->lp[i].v, &kf->lp[i].cap, kf->lp[i].n, sizeof(*kf->lp[i].v),
				   64))
			return -ENOMEM;
		kf->lp[i].v[kf->lp[i].n++] = (struct ival){ out->v[from].lo, out->v[out->n - 1].hi,
							     (uint32_t)(kf->nbox - 1) };
	}
	return 0;
}

/* Walk filter G alone; KF_NONE when it cannot be (past a bound, or
 * something the engine does not follow), which is no error of the stack. */
static int build_filter(struct walker *L, size_t g)
{
	struct kill_table *t = L->kill;
	struct kill_filter *kf = &t->f[g];
	struct build b = { t, kf };
	struct walker W = { .progs = &L->progs[g], .lens = &L->lens[g], .n = 1, .mode = WALK_ONE,
			    .max_paths = L->max_paths, .visit = visit_path, .visit_arg = &b };
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
		qsort(kf->dead[i].v, kf->dead[i].n, sizeof(*kf->dead[i].v), ival_cmp);
		struct ivals *lp = &kf->lp[i];
		qsort(lp->v, lp->n, sizeof(*lp->v), ival_cmp);
		if (lp->n && !(kf->pmax[i] = malloc(lp->n * sizeof(*kf->pmax[i]))))
			return diag_err(L->d, -ENOMEM, NULL, "out of memory");
		for (size_t k = 0; k < lp->n; k++)
			kf->pmax[i][k] = k && kf->pmax[i][k - 1] > lp->v[k].hi ? kf->pmax[i][k - 1]
									: lp->v[k].hi;
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

/* Whether every path of KF that does not kill, on AUDIT_ARCH value I
 * with numbers meeting [LO, HI], misses the words W in some word: then
 * the calls of W all take KF's other paths, which kill.  A set whose
 * search is undecided counts as meeting W. */
static bool kills_box(const struct kill_filter *kf, size_t i, const struct wcon *w, uint32_t lo,
		      uint32_t hi)
{
	const struct ivals *lp = &kf->lp[i];
	/* the last path whose numbers start at or below HI, back while
	 * some path before may still reach LO */
	size_t a = 0, b = lp->n;
	while (a < b) {
		size_t m = a + (b - a) / 2;
		if (lp->v[m].lo <= hi)
			a = m + 1;
		else
			b = m;
	}
	for (size_t k = a; k-- > 0 && kf->pmax[i][k] >= lo;) {
		if (lp->v[k].hi < lo)
			continue;
		const struct wcon *bw = kf->box[lp->v[k].path].w;
		bool apart = false;
		for (unsigned x = 0; x < NWORDS && !apart; x++)
			apart = x != W_ARCH && wcon_disjoint(&bw[x], &w[x]);
		if (!apart)
			return false;
	}
	return true;
}

int stack_kill_find(struct walker *L, uint16_t prog, const struct wcon *w, uint32_t *v,
		    uint16_t *g, int32_t *insn)
{
	struct kill_table *t = L->kill;
	if (!t)
		return 0;
	/* only on one AUDIT_ARCH: the tables are per value */
	const struct wcon *ar = &w[W_ARCH];
	uint32_t au;
	if (ar->m == 0xffffffffU)
		au = ar->v;
	else if (ar->lo == ar->hi)
		au = ar->lo;
	else
		return 0;
	size_t i = 0;
	while (i < t->naud && t->aud[i] != au)
		i++;
	if (i == t->naud || !wcon_has(ar, au))
		return 0;
	/* the path's numbers lie within [lo, hi]: a filter that kills all
	 * of those kills the path's */
	uint32_t lo = w[W_NR].lo, hi = w[W_NR].hi;
	for (size_t k = (size_t)prog + 1; k-- > 0;) {
		struct kill_filter *kf = &t->f[k];
		if (kf->state == KF_UNBUILT) {
			int err = build_filter(L, k);
			if (err < 0)
				return err;
		}
		if (kf->state != KF_BUILT)
			continue;
		const struct ival *lv = first_from(&kf->live[i], lo);
		if (lv && lv->lo <= hi && !kills_box(kf, i, w, lo, hi))
			continue;
		const struct ival *dv = first_from(&kf->dead[i], lo);
		*v = t->v;
		*g = (uint16_t)k;
		*insn = dv && dv->lo <= hi ? (int32_t)dv->path : -1;
		return 1;
	}
	return 0;
}
